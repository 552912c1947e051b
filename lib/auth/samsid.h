/*
 * SIDs as Samba's standalone server gives them (docs/accounts.md "SIDs"):
 * the machine's domain SID S-1-5-21-a-b-c, kept by Samba in secrets.tdb
 * under "SECRETS/SID/<NETBIOS NAME>", and a RID per passdb user, so a
 * user of the passdb is S-1-5-21-a-b-c-RID.  The RID is the one Samba's
 * tdbsam stored for the name (its "RID_%08x" records) or, for a user it
 * does not know, Samba's algorithmic one (uid * 2 + algorithmic rid base,
 * as its smbpasswd backend computes it).  Everyone else keeps the Unix
 * SIDs S-1-22-1-uid / S-1-22-2-gid, which callers build themselves.
 *
 * This file is pure: parsing the stored values and the map in memory.
 * Reading the tdb files is the daemon's (source3/smbd/session/sidmap.c).
 */
#ifndef RINGSMB_AUTH_SAMSID_H
#define RINGSMB_AUTH_SAMSID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/smb2/eainfo.h"

/* Samba's struct dom_sid as secrets.tdb stores it: 68 bytes */
#define SAMSID_DOM_SID_SIZE	68
#define SAMSID_RID_USERS	513     /* Domain Users */
#define SAMSID_RID_BASE_MIN	1000    /* Samba's BASE_RID */

/*
 * Samba's struct dom_sid: revision (1), number of sub-authorities (<= 15),
 * six authority bytes (big-endian), fifteen 32-bit sub-authorities
 * (little-endian: the x86 hosts Samba and this server run on).  Only a
 * domain SID is accepted: S-1-5-21-x-y-z (false otherwise).
 */
bool samsid_dom_sid_parse(const uint8_t *buf, size_t len,
			  struct smb2_sid *out);
void samsid_dom_sid_push(const struct smb2_sid *sid,
			 uint8_t out[SAMSID_DOM_SID_SIZE]);
/* A new domain SID S-1-5-21-x-y-z from twelve random bytes. */
void samsid_domain_from_random(struct smb2_sid *out, const uint8_t rnd[12]);

/* "SECRETS/SID/<name upper-cased>" on mem_ctx; NULL without memory. */
char *samsid_secrets_key(TALLOC_CTX *mem_ctx, const char *netbios_name);

/*
 * One tdbsam RID index record: key "RID_" + 8 lower-case hex digits,
 * data the user name and its NUL.  *name points into data.  False for
 * any other record or a malformed one.
 */
bool samsid_rid_record(const uint8_t *key, size_t key_len,
		       const uint8_t *data, size_t data_len, uint32_t *rid,
		       const char **name);

/* uid * 2 + base; false when it does not fit in 32 bits. */
bool samsid_algorithmic_rid(uint32_t uid, uint32_t base, uint32_t *rid);

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

/* domain-rid; false when rid does not fit (a domain of 15 auths) */
bool samsid_map_compose(const struct samsid_map *map, uint32_t rid,
			struct smb2_sid *out);

/* A passdb user's SID; false (and *out untouched) for any other uid. */
bool samsid_uid_to_sid(const struct samsid_map *map, uint32_t uid,
		       struct smb2_sid *out);
/* The uid of one of the map's SIDs; false for every other SID. */
bool samsid_sid_to_uid(const struct samsid_map *map,
		       const struct smb2_sid *sid, uint32_t *uid);

#endif
