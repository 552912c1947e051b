/*
 * Security descriptors synthesized from POSIX ownership and mode
 * (docs/vfs.md): owner S-1-22-1-<uid>, group S-1-22-2-<gid>, and a
 * DACL of three ACCESS_ALLOWED ACEs for owner, group and Everyone
 * (S-1-1-0) whose masks map the rwx bits as Samba's default mapping does.
 * Setting one maps its DACL back to the rwx bits; nothing else is kept.
 */
#ifndef RINGSMB_SMBD_SECDESC_H
#define RINGSMB_SMBD_SECDESC_H

#include <sys/stat.h>
#include "lib/smb2/eainfo.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

struct samsid_map;

/* S-1-22-1-id (a Unix user) or, group, S-1-22-2-id (a Unix group) */
void smbd_secdesc_unix_sid(struct smb2_sid *sid, bool group, uint32_t id);
/* The reverse: false for any other SID. */
bool smbd_secdesc_unix_id(const struct smb2_sid *sid, bool group,
			  uint32_t *id);

/* The server's SID map through a share's handle; NULL: Unix SIDs only. */
const struct samsid_map *smbd_sid_map(const struct vfs_handle *vfs);
/*
 * A uid's SID as Samba's standalone server gives it: a passdb user's
 * S-1-5-21-domain-RID (lib/auth/samsid.h), anyone else's S-1-22-1-uid.
 * Groups keep S-1-22-2-gid (smbd_secdesc_unix_sid).
 */
void smbd_sid_of_uid(const struct samsid_map *map, uint32_t uid,
		     struct smb2_sid *sid);
/* The uid a user SID names, in either form; false for any other SID. */
bool smbd_uid_of_sid(const struct samsid_map *map,
		     const struct smb2_sid *sid, uint32_t *uid);

/* Rights for one rwx triple (the bits in the low three of perms). */
uint32_t smbd_secdesc_rights(unsigned perms);

/*
 * The self-relative SD of a file for a QUERY_INFO's
 * AdditionalInformation: only the parts asked for (OWNER, GROUP, DACL);
 * SACL needs ACCESS_SYSTEM_SECURITY on the open, which CREATE never
 * grants (ACCESS_DENIED, as Samba); OWNER/GROUP/DACL need READ_CONTROL.
 */
NTSTATUS smbd_secdesc_query(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			    uint32_t secinfo, uint8_t **out, size_t *out_len);

/* The same from statx alone (tests: map NULL). */
NTSTATUS smbd_secdesc_from_stat(TALLOC_CTX *mem_ctx,
				const struct samsid_map *map,
				const struct statx *st, uint32_t secinfo,
				uint8_t **out, size_t *out_len);

/* The rwx triple (0..7) an ACE's access mask maps to. */
unsigned smbd_secdesc_perms(uint32_t mask);

/*
 * The permission bits (0..0777) a DACL maps to for a file owned by
 * uid:gid.  Only ACEs for uid's SIDs (either form, smbd_uid_of_sid),
 * S-1-22-2-gid and Everyone that
 * apply to the object itself count, in order, first match per bit; an
 * owner or group the DACL does not name gets Everyone's bits.  No DACL
 * or a NULL DACL: 0777; an empty DACL: 0.
 */
mode_t smbd_secdesc_dacl_mode(const struct smb2_secdesc *sd,
			      const struct samsid_map *map, uint32_t uid,
			      uint32_t gid);

/*
 * Applies the parts secinfo names, without access checks: owner and
 * group only as the file's own (another Unix id ACCESS_DENIED, a SID
 * with no Unix id INVALID_OWNER), the DACL as fchmod.
 */
NTSTATUS smbd_secdesc_apply(struct vfs_fh *fh, const struct smb2_secdesc *sd,
			    uint32_t secinfo);

/*
 * SET_INFO SECURITY: parses buf (INVALID_SECURITY_DESCR), checks
 * WRITE_OWNER / WRITE_DAC / ACCESS_SYSTEM_SECURITY for what secinfo
 * sets (ACCESS_DENIED), then applies.
 */
NTSTATUS smbd_secdesc_set(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			  uint32_t secinfo, const uint8_t *buf, size_t len);

/* CREATE's SecD context, parsed; *found false without one. */
NTSTATUS smbd_secdesc_create_get(TALLOC_CTX *mem_ctx,
				 const struct smb2_create_ctx_list *l,
				 struct smb2_secdesc *sd, bool *found);

/* CREATE's SecD: parsed before anything is created ... */
NTSTATUS smbd_secdesc_create_check(const struct smb2_create_ctx_list *l);
/* ... and applied to a file or directory the CREATE created. */
NTSTATUS smbd_secdesc_create_apply(struct vfs_fh *fh, uint32_t action,
				   const struct smb2_create_ctx_list *l);

#endif
