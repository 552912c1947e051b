/*
 * lib/auth/passdb*.c internals, never used outside them: the database in
 * memory and what its three parts share.  passdb.c holds the database
 * (names, diagnostics, lookups, edits), passdb_text.c the smbpasswd line
 * format both ways (parse and format), passdb_file.c the file (load,
 * atomic save, reload).
 */
#ifndef RINGSMB_PASSDB_PRIVATE_H
#define RINGSMB_PASSDB_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <talloc.h>

#include "lib/auth/passdb.h"

struct passdb_entry {
	struct passdb_entry *prev, *next;
	unsigned line;		/* in the file; 0 if added since */
	char *name;		/* NULL: a verbatim line */
	uint8_t *key;		/* upper-cased UTF-16LE name */
	size_t key_len;
	uint32_t uid;
	uint8_t *nt_hash;	/* AUTH_NT_HASH_SIZE bytes or NULL */
	uint16_t acb;
	uint32_t lct;
	char *raw;		/* verbatim lines, without the '\n' */
	size_t raw_len;
};

/* What a (re)load produces; replaced as a whole on reload. */
struct passdb_data {
	struct passdb_entry *entries;
	struct passdb_entry *last;
	size_t num_users;
	struct passdb_diag *diags;
	struct passdb_diag *diags_last;
};

struct passdb {
	char *path;		/* NULL for a buffer */
	char *name;		/* for diagnostics */
	struct passdb_data *data;
	uint64_t generation;	/* passdb_generation() */
	bool have_stat;		/* st describes the file we read/wrote */
	struct stat st;
	struct auth_user_lookup lookup;
};

/* The fields after the name, as parsed or as passdb_add() sets them. */
struct passdb_parsed {
	const char *why;	/* static text; NULL if the line is good */
	uint32_t uid;
	bool have_hash;
	uint8_t hash[AUTH_NT_HASH_SIZE];
	uint16_t acb;
	uint32_t lct;
};

/* ---- passdb.c ---- */

/* An empty database; name is used in diagnostics.  NULL: no memory. */
struct passdb *passdb_new(TALLOC_CTX *mem_ctx, const char *name);

/* A diagnostic about line (0: the whole file) of the last (re)load. */
void passdb_add_diag(struct passdb *db, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* 1..PASSDB_MAX_NAME bytes, no control characters, no ':'. */
bool passdb_name_chars_ok(const char *name, size_t len);
/* The lookup key: UTF-16LE, upper-cased.  -EINVAL if not UTF-8. */
int passdb_name_key(TALLOC_CTX *mem_ctx, const char *name, uint8_t **key,
		    size_t *key_len);
/* The valid entry with this key, or NULL. */
struct passdb_entry *passdb_find_key(const struct passdb_data *d,
				     const uint8_t *key, size_t key_len);

/* Appends e to the line list. */
void passdb_append_entry(struct passdb_data *d, struct passdb_entry *e);
/* Turn the verbatim line e into an entry named name. */
int passdb_fill_entry(struct passdb_entry *e, const char *name,
		      const uint8_t *key, size_t key_len,
		      const struct passdb_parsed *p);

/* ---- passdb_text.c ---- */

/* Parses the lines of buf into db's (empty) data. */
void passdb_parse_text(struct passdb *db, const char *buf, size_t len);

#endif
