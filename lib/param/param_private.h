/*
 * lib/param internals: the parameter table, value codecs, the raw
 * (syntax-only) form of a file, and diagnostics.
 */
#ifndef RINGSMB_PARAM_PRIVATE_H
#define RINGSMB_PARAM_PRIVATE_H

#include <stdarg.h>
#include "lib/param/param.h"

/* ---- parameter table (param_table.c) ---- */

enum lp_type {
	LP_BOOL,        /* bool */
	LP_INT,         /* int, within [min, max] */
	LP_STRING,      /* const char * */
	LP_LIST,        /* const char **, NULL-terminated */
	LP_ENUM,        /* int, one of enums[] */
	LP_PORTS,       /* uint16_t * + size_t count at count_offset */
	LP_PROTOCOL,    /* uint16_t dialect */
	LP_LOGLEVEL,    /* int: the first number of "N class:N ...";
			 * the whole value at text_offset */
	LP_LOGGING,     /* const char *: "file syslog@1 systemd" */
	LP_OCTAL,       /* int, an octal mode 0..07777 ("0744") */
};

#define LP_SCOPE_GLOBAL 0x1     /* in struct lp_global */
#define LP_SCOPE_SHARE  0x2     /* in struct lp_share; [global] = default */

#define LP_FLAG_UPPER     0x1   /* strings: stored upper case */
#define LP_FLAG_PROTO_MAX 0x2   /* protocols: "SMB2"/"SMB3" mean the highest */

struct lp_enum_val {
	const char *name;       /* the first name of a value is canonical */
	int value;
};

struct lp_param {
	const char *name;                       /* Samba's spelling */
	enum lp_type type;
	unsigned scope;
	size_t offset;          /* share offset if LP_SCOPE_SHARE is set */
	size_t goffset;         /* both scopes: the copy in struct lp_global */
	size_t count_offset;    /* LP_PORTS */
	size_t text_offset;     /* LP_LOGLEVEL */
	const char *def;        /* default, as written in smb.conf;
				 * NULL: computed (netbios name) */
	const char *const *synonyms;
	const char *const *inverted;    /* LP_BOOL synonyms meaning "not" */
	const struct lp_enum_val *enums;
	int min, max;                   /* LP_INT */
	size_t max_len;                 /* LP_STRING, 0 = unlimited */
	unsigned flags;
};

extern const struct lp_param lp_params[];
extern const size_t lp_num_params;

/* name as written in smb.conf; *inverted set for e.g. "writeable" */
const struct lp_param *lp_param_find(const char *name, bool *inverted);
bool lp_name_eq(const char *a, const char *b);

/* ---- parametric options (param_parametric.c) ---- */

/* "type:option": a ':' with something on both sides */
bool lp_parametric_name(const char *name);
/*
 * Set (or replace) name in s, allocating on owner (s itself, or the
 * loadparm for [global]'s): 0, 1 when the section already holds
 * LP_MAX_PARAMETRIC (nothing set), -1 out of memory.
 */
int lp_parametric_set(TALLOC_CTX *owner, struct lp_share *s,
		      const char *name, const char *value);
/* s's options as smb.conf lines; those equal in defaults left out */
void lp_parametric_dump(FILE *f, const struct lp_share *s,
			const struct lp_share *defaults, bool show_defaults);

/* ---- values (param_value.c) ---- */

/*
 * Parse value into the field of p at base; allocations go on owner.
 * Returns false for an invalid value; *warning may be set on success
 * (e.g. an SMB1 protocol clamped to SMB2_02).
 */
bool lp_value_parse(TALLOC_CTX *owner, const struct lp_param *p,
		    void *base, const char *value, bool invert,
		    const char **warning);
/* The field's value as it would be written in smb.conf. */
char *lp_value_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
		      const void *base);
/* "a boolean (yes/no)" etc., for error messages */
char *lp_value_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p);
bool lp_parse_bool(const char *s, bool *out);
const char **lp_list_parse(TALLOC_CTX *mem_ctx, const char *s);

/* ---- diagnostics (param_diag.c) ---- */

struct lp_diags {
	TALLOC_CTX *mem_ctx;
	struct lp_diag *head;
	struct lp_diag **tail;
	size_t num_errors;
	size_t num_total;
	/* position in the input of what is being looked at: diagnostics
	 * are sorted by it, so they come in file order */
	unsigned seq;
};

void lp_diags_init(struct lp_diags *d, TALLOC_CTX *mem_ctx);
void lp_diag_add(struct lp_diags *d, enum lp_severity sev,
		 const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* sorts by seq, keeping the order of equal ones; returns the head */
struct lp_diag *lp_diags_sorted(struct lp_diags *d);

/* ---- raw form (param_read.c) ---- */

struct lp_entry {
	const char *key;
	const char *value;
	const char *file;
	unsigned line;
	unsigned seq;
};

struct lp_section {
	const char *name;
	const char *file;
	unsigned line;
	unsigned seq;
	bool ignored;           /* [homes], [printers] */
	struct lp_entry *entries;
	size_t num_entries;
};

/* sections[0] is [global]; repeated sections are merged */
struct lp_raw {
	struct lp_section *sections;
	size_t num_sections;
};

struct lp_raw *lp_raw_read_buffer(TALLOC_CTX *mem_ctx, const char *name,
				  const char *text, size_t len,
				  struct lp_diags *diags);
struct lp_raw *lp_raw_read_file(TALLOC_CTX *mem_ctx, const char *path,
				struct lp_diags *diags);

/* ---- access-control checks (param_check.c) ---- */

/*
 * A Samba parameter ringsmb does not implement but has decided about
 * (param_check.c): reports it (an error if it would restrict access)
 * and returns true when the entry must not be applied further.
 */
bool lp_check_refused(bool in_share, const struct lp_entry *e,
		      struct lp_diags *d);
/* Checks on a value that parsed (hosts allow / hosts deny entries). */
void lp_check_value(const struct lp_param *p, const struct lp_entry *e,
		    struct lp_diags *d);

/* ---- raw form to struct loadparm (param_apply.c) ---- */

struct loadparm *lp_apply(TALLOC_CTX *mem_ctx, const struct lp_raw *raw,
			  const char *config_file, struct lp_diags *diags);
/* a struct loadparm with every parameter at its default */
struct loadparm *lp_new_defaults(TALLOC_CTX *mem_ctx);

#endif
