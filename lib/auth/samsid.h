/*
 * SIDs as Samba's standalone server gives them (docs/accounts.md "SIDs"):
 * a machine domain SID S-1-5-21-a-b-c and a RID per passdb user, so a
 * user of the passdb is S-1-5-21-a-b-c-RID.  The RID is the one the SID
 * file names for the user (imported from Samba's tdbsam by
 * ringsmb-import-samba) or, for any other smbpasswd user, Samba's
 * algorithmic one (uid * 2 + algorithmic rid base, as its smbpasswd
 * backend computes it).  Everyone else keeps the Unix SIDs
 * S-1-22-1-uid / S-1-22-2-gid, which callers build themselves.
 *
 * The SID file (`private dir`/sids), one entry per line:
 *
 *   domain S-1-5-21-a-b-c
 *   user NAME RID
 *
 * '#' starts a comment line; a malformed line is reported as
 * "FILE:LINE: what; line ignored" and skipped.
 *
 * This file is pure: the text both ways and the map in memory.  Reading
 * and writing the file is the daemon's (source3/smbd/session/sidmap.c).
 */
#ifndef RINGSMB_AUTH_SAMSID_H
#define RINGSMB_AUTH_SAMSID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/smb2/eainfo.h"

#define SAMSID_RID_USERS	513     /* Domain Users */
#define SAMSID_RID_MIN		1000    /* Samba's BASE_RID: below, its own */
/* "S-1-" + 15 sub-authorities of 10 digits, with room to spare */
#define SAMSID_SID_TEXT_MAX	200
#define SAMSID_MAX_LINE		1024
#define SAMSID_MAX_FILE		(16 * 1024 * 1024)
#define SAMSID_MAX_NAME		256

/*
 * "S-1-A-S1-S2..." (A < 2^48, each Sn < 2^32, at most 15, decimal
 * without signs or leading blanks); false for anything else.
 */
bool samsid_sid_parse(const char *s, size_t len, struct smb2_sid *out);
void samsid_sid_format(const struct smb2_sid *sid,
		       char buf[SAMSID_SID_TEXT_MAX]);

/* S-1-5-21-x-y-z: what a machine's domain SID looks like */
bool samsid_is_domain(const struct smb2_sid *sid);
/* A new domain SID S-1-5-21-x-y-z from twelve random bytes (as Samba). */
void samsid_domain_from_random(struct smb2_sid *out, const uint8_t rnd[12]);

/* uid * 2 + base; false when it does not fit in 32 bits. */
bool samsid_algorithmic_rid(uint32_t uid, uint32_t base, uint32_t *rid);

struct samsid_file_user {
	const char *name;
	uint32_t rid;
};

struct samsid_file {
	bool have_domain;
	struct smb2_sid domain;
	struct samsid_file_user *users;         /* in file order */
	size_t num_users;
	const char **diags;                     /* "NAME:LINE: what; ..." */
	size_t num_diags;
};

/*
 * The SID file's text (buf need not be NUL-terminated), name for the
 * diagnostics.  A second domain line, a user named twice, a RID below
 * SAMSID_RID_MIN or given twice, a line over SAMSID_MAX_LINE bytes or
 * with a NUL: diagnostics, the line ignored.  NULL only without memory.
 */
struct samsid_file *samsid_file_parse(TALLOC_CTX *mem_ctx, const char *name,
				      const char *buf, size_t len);

/* The text of a SID file with this domain and users; NULL: no memory. */
char *samsid_file_format(TALLOC_CTX *mem_ctx, const struct smb2_sid *domain,
			 const struct samsid_file_user *users, size_t n);

struct samsid_user {
	uint32_t uid;
	uint32_t rid;
};

struct samsid_map;

/*
 * The map of a domain SID and its users (copied; a uid or RID given
 * twice keeps its first entry).  NULL without memory or for a domain
 * that is not S-1-5-21-x-y-z.
 */
struct samsid_map *samsid_map_new(TALLOC_CTX *mem_ctx,
				  const struct smb2_sid *domain,
				  const struct samsid_user *users, size_t n);

const struct smb2_sid *samsid_map_domain(const struct samsid_map *map);
size_t samsid_map_num_users(const struct samsid_map *map);

/* domain-rid; false without a map */
bool samsid_map_compose(const struct samsid_map *map, uint32_t rid,
			struct smb2_sid *out);

/* A passdb user's SID; false (and *out untouched) for any other uid. */
bool samsid_uid_to_sid(const struct samsid_map *map, uint32_t uid,
		       struct smb2_sid *out);
/* The uid of one of the map's SIDs; false for every other SID. */
bool samsid_sid_to_uid(const struct samsid_map *map,
		       const struct smb2_sid *sid, uint32_t *uid);

#endif
