/*
 * NT ACLs kept in security.NTACL (ntacl.h; docs/vfs.md, "NT ACLs").
 *
 * The stored value is Samba's version 4 with the "posix_acl" hash of
 * the file's POSIX ACL, so Samba trusts what ringsmb stores and the
 * other way round, until someone changes the mode or POSIX ACL behind
 * the server's back: then the mapped descriptor applies again, as in
 * Samba 4.17.  Writing the xattr needs the daemon's rights
 * (security.* is root's); it only happens after this file's own check
 * that the user may (WRITE_DAC / WRITE_OWNER on the open, or creating
 * the file).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "lib/dcerpc/xattr_ntacl.h"
#include "lib/auth/samsid.h"
#include "lib/smb2/smb2.h"
#include "lib/smb2/smb2_const.h"
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "lib/util/nttime.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/ntacl.h"
#include "source3/smbd/files/secdesc.h"

#define NTACL_POSIX_ACCESS	"system.posix_acl_access"
#define NTACL_POSIX_DEFAULT	"system.posix_acl_default"
#define NTACL_DESCRIPTION	"posix_acl"     /* vfs_default's, in Samba */

/* Linux's POSIX ACL xattr (include/uapi/linux/posix_acl_xattr.h) */
#define POSIX_ACL_VERSION	2
#define POSIX_ACL_HEADER	4
#define POSIX_ACL_ENTRY		8
#define POSIX_USER_OBJ		0x01
#define POSIX_USER		0x02
#define POSIX_GROUP_OBJ		0x04
#define POSIX_GROUP		0x08
#define POSIX_MASK		0x10
#define POSIX_OTHER		0x20
#define POSIX_UNDEFINED_ID	0xFFFFFFFFu
/* named entries an NT ACL maps to at most; more are not mapped */
#define NTACL_MAX_NAMED		64
/* a POSIX ACL this server reads at most */
#define POSIX_ACL_MAX		(POSIX_ACL_HEADER + 1024 * POSIX_ACL_ENTRY)

#define NTACL_SECINFO_ALL	(SMB2_OWNER_SECURITY_INFORMATION | \
				 SMB2_GROUP_SECURITY_INFORMATION | \
				 SMB2_DACL_SECURITY_INFORMATION)

bool smbd_ntacl_share(const struct smbd_tcon *tcon)
{
	return tcon->vfs != NULL && tcon->vfs->nt_acls;
}

/* Root and admin users pass every check, as in Samba. */
static bool ntacl_is_root(const struct smbd_tcon *tcon)
{
	return tcon->vfs->token == NULL || tcon->vfs->token->uid == 0;
}

bool smbd_ntacl_token(TALLOC_CTX *mem_ctx, const struct smbd_tcon *tcon,
		      struct smb2_token *out)
{
	const struct unix_token *t = tcon->vfs->token;
	const struct samsid_map *map = smbd_sid_map(tcon->vfs);
	size_t ngroups = t != NULL ? t->ngroups : 0;
	struct smb2_sid *sids = talloc_zero_array(mem_ctx, struct smb2_sid,
						   ngroups + 7);
	size_t n = 0, i;

	if (sids == NULL) {
		return false;
	}
	/*
	 * Samba's order: the user, the primary group (Domain Users for a
	 * passdb user), then the rest
	 */
	if (t != NULL && samsid_uid_to_sid(map, t->uid, &sids[n])) {
		n++;
		if (samsid_map_compose(map, SAMSID_RID_USERS, &sids[n])) {
			n++;
		}
	}
	if (t != NULL) {
		smbd_secdesc_unix_sid(&sids[n++], false, t->uid);
		smbd_secdesc_unix_sid(&sids[n++], true, t->gid);
		for (i = 0; i < ngroups; i++) {
			if (t->groups[i] != t->gid) {
				smbd_secdesc_unix_sid(&sids[n++], true,
						      t->groups[i]);
			}
		}
	}
	sids[n++] = smb2_sid_well_known(SMB2_SID_AUTH_WORLD, 0);
	sids[n++] = smb2_sid_well_known(SMB2_SID_AUTH_NT, 2);   /* Network */
	if (!tcon->session->guest && !tcon->session->anonymous) {
		/* Authenticated Users */
		sids[n++] = smb2_sid_well_known(SMB2_SID_AUTH_NT, 11);
	}
	*out = (struct smb2_token) { .sids = sids, .num_sids = n };
	return true;
}

/* ---- the POSIX ACL: read for the hash, written from a DACL ---- */

/* One POSIX ACL xattr of fh; *found false when it has none. */
static NTSTATUS posix_acl_get(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			      const char *name, struct xattr_posix_acl *acl,
			      bool *found)
{
	uint8_t *buf = talloc_size(mem_ctx, POSIX_ACL_MAX);
	size_t got = 0;
	NTSTATUS status;

	*found = false;
	*acl = (struct xattr_posix_acl) {};
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_fgetxattr(fh, name, buf, POSIX_ACL_MAX, &got);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NONEXISTENT_EA_ENTRY) ||
	    NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED) ||
	    NT_STATUS_EQUAL(status, NT_STATUS_EAS_NOT_SUPPORTED)) {
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*found = true;
	return xattr_posix_acl_pull(mem_ctx, buf, got, acl);
}

/* What Samba's vfs_default would hash into sys_acl_hash now. */
static NTSTATUS ntacl_sys_hash(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			       const struct statx *st,
			       uint8_t hash[XATTR_NTACL_HASH_SIZE])
{
	struct xattr_posix_ace from_mode[3];
	struct xattr_posix_acl access, dflt;
	bool is_dir = S_ISDIR(st->stx_mode);
	bool found = false;
	NTSTATUS status = posix_acl_get(mem_ctx, fh, NTACL_POSIX_ACCESS,
					&access, &found);

	if (NT_STATUS_IS_OK(status) && !found) {
		xattr_posix_acl_from_mode(st->stx_mode, from_mode);
		access = (struct xattr_posix_acl) { from_mode, 3 };
	}
	if (NT_STATUS_IS_OK(status) && is_dir) {
		status = posix_acl_get(mem_ctx, fh, NTACL_POSIX_DEFAULT,
				       &dflt, &found);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return xattr_ntacl_sys_acl_hash(&access, is_dir ? &dflt : NULL,
					st->stx_uid, st->stx_gid,
					st->stx_mode, hash);
}

/*
 * The rwx bits the ACEs that apply to the object give sid (and, with
 * world, whatever they give Everyone and Authenticated Users too),
 * first match per bit.
 */
static unsigned ntacl_perms_for(const struct smb2_secdesc *sd,
				const struct samsid_map *map,
				const struct smb2_sid *sid, bool world)
{
	const struct smb2_sid everyone = smb2_sid_well_known(
		SMB2_SID_AUTH_WORLD, 0);
	const struct smb2_sid users = smb2_sid_well_known(SMB2_SID_AUTH_NT,
							  11);
	unsigned allow = 0, deny = 0;
	uint32_t uid = 0, other = 0;
	/* a user is named by either of its SIDs (smbd_uid_of_sid) */
	bool user = smbd_uid_of_sid(map, sid, &uid);
	size_t i;

	for (i = 0; i < sd->num_aces; i++) {
		const struct smb2_ace *a = &sd->aces[i];
		unsigned bits = smbd_secdesc_perms(
			smb2_access_map_generic(a->mask));

		if ((a->flags & SMB2_ACE_INHERIT_ONLY) ||
		    !(smb2_sid_equal(&a->sid, sid) ||
		      (user && smbd_uid_of_sid(map, &a->sid, &other) &&
		       other == uid) ||
		      (world && (smb2_sid_equal(&a->sid, &everyone) ||
				 smb2_sid_equal(&a->sid, &users))))) {
			continue;
		}
		if (a->type == SMB2_ACE_ACCESS_ALLOWED) {
			allow |= bits & ~deny;
		} else if (a->type == SMB2_ACE_ACCESS_DENIED) {
			deny |= bits & ~allow;
		}
	}
	return allow;
}

struct posix_entry {
	uint16_t tag;
	uint16_t perm;
	uint32_t id;
};

/*
 * The named POSIX entries (users, or with group the groups) of sd's
 * DACL: one for each Unix user other than the owner (group other than
 * the file's) an ACCESS_ALLOWED ACE that applies to the object names,
 * each id once, sorted by id as the kernel wants; at most max.
 */
static size_t ntacl_named(const struct smb2_secdesc *sd,
			  const struct samsid_map *map,
			  const struct statx *st, bool group,
			  struct posix_entry *out, size_t max)
{
	size_t n = 0, i, j;

	for (i = 0; i < sd->num_aces && n < max; i++) {
		const struct smb2_ace *a = &sd->aces[i];
		uint32_t id = 0;
		bool dup = false;

		if (a->type != SMB2_ACE_ACCESS_ALLOWED ||
		    (a->flags & SMB2_ACE_INHERIT_ONLY) ||
		    !(group ? smbd_secdesc_unix_id(&a->sid, true, &id) :
		      smbd_uid_of_sid(map, &a->sid, &id)) ||
		    id == (group ? st->stx_gid : st->stx_uid)) {
			continue;
		}
		for (j = 0; j < n; j++) {
			dup = dup || out[j].id == id;
		}
		if (dup) {
			continue;
		}
		for (j = n; j > 0 && out[j - 1].id > id; j--) {
			out[j] = out[j - 1];
		}
		out[j] = (struct posix_entry) {
			.tag = group ? POSIX_GROUP : POSIX_USER, .id = id,
			.perm = (uint16_t)ntacl_perms_for(sd, map, &a->sid,
							  true),
		};
		n++;
	}
	return n;
}

static uint8_t *posix_acl_push(TALLOC_CTX *mem_ctx,
			       const struct posix_entry *e, size_t n,
			       size_t *len)
{
	uint8_t *buf = talloc_zero_size(mem_ctx, POSIX_ACL_HEADER +
					n * POSIX_ACL_ENTRY);
	size_t i;

	if (buf == NULL) {
		return NULL;
	}
	push_le32(buf, POSIX_ACL_VERSION);
	for (i = 0; i < n; i++) {
		uint8_t *p = buf + POSIX_ACL_HEADER + i * POSIX_ACL_ENTRY;

		push_le16(p, e[i].tag);
		push_le16(p + 2, e[i].perm);
		push_le32(p + 4, e[i].id);
	}
	*len = POSIX_ACL_HEADER + n * POSIX_ACL_ENTRY;
	return buf;
}

/*
 * The mode's rwx triples: what the ACEs for the owner's (group's) SID
 * and those for Everyone and Authenticated Users give it, since both
 * match its token; other gets Everyone's.  No DACL or a NULL one: 0777.
 */
static mode_t ntacl_mode(const struct smb2_secdesc *sd,
			 const struct samsid_map *map,
			 const struct statx *st)
{
	struct smb2_sid owner, group;
	const struct smb2_sid world = smb2_sid_well_known(SMB2_SID_AUTH_WORLD,
							  0);

	unsigned up = 0;

	if (!sd->has_dacl || sd->null_dacl) {
		return 0777;
	}
	smbd_sid_of_uid(map, st->stx_uid, &owner);
	smbd_secdesc_unix_sid(&group, true, st->stx_gid);
	/*
	 * The owner keeps r, and rwx on a directory, whatever the DACL
	 * says, as Samba's mapping keeps them (ensure_minimal_owner_ace
	 * _perms): the NT check at CREATE is what limits the owner over
	 * SMB; without them the owner could not create in a directory
	 * whose DACL grants FILE_ADD_FILE only (smb2.acls.DYNAMIC)
	 */
	up = ntacl_perms_for(sd, map, &owner, true) | 4 |
		(S_ISDIR(st->stx_mode) ? 7 : 0);
	return (mode_t)(up << 6 |
			ntacl_perms_for(sd, map, &group, true) << 3 |
			ntacl_perms_for(sd, map, &world, false));
}

/*
 * The mode (ntacl_mode) and, when the
 * DACL names other Unix users or groups, a POSIX access ACL with an
 * entry for each: what lets the kernel grant them what the DACL does.
 * Without named entries any POSIX access ACL goes.  dfh acts as the
 * daemon.
 */
static NTSTATUS ntacl_sync_posix(TALLOC_CTX *mem_ctx, struct vfs_fh *dfh,
				 const struct smb2_secdesc *sd,
				 const struct statx *st)
{
	struct posix_entry e[2 * NTACL_MAX_NAMED + 4];
	const struct samsid_map *map = smbd_sid_map(dfh->vfs);
	mode_t mode = ntacl_mode(sd, map, st);
	unsigned mask = (mode >> 3) & 7;
	size_t users = 0, groups = 0, n = 0, len = 0, i;
	uint8_t *buf = NULL;
	NTSTATUS status = vfs_fchmod(dfh, (st->stx_mode & 07000) | mode);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (sd->has_dacl && !sd->null_dacl) {
		users = ntacl_named(sd, map, st, false, e + 1,
				    NTACL_MAX_NAMED);
		groups = ntacl_named(sd, map, st, true, e + users + 2,
				     NTACL_MAX_NAMED);
	}
	if (users + groups == 0) {
		status = vfs_fremovexattr(dfh, NTACL_POSIX_ACCESS);
		if (NT_STATUS_EQUAL(status, NT_STATUS_NONEXISTENT_EA_ENTRY)) {
			status = NT_STATUS_OK;
		}
		return status;
	}
	e[0] = (struct posix_entry) { POSIX_USER_OBJ, (mode >> 6) & 7,
				      POSIX_UNDEFINED_ID };
	e[users + 1] = (struct posix_entry) { POSIX_GROUP_OBJ,
					      (mode >> 3) & 7,
					      POSIX_UNDEFINED_ID };
	n = users + groups + 2;
	for (i = 0; i < n; i++) {
		if (e[i].tag == POSIX_USER || e[i].tag == POSIX_GROUP) {
			mask |= e[i].perm;
		}
	}
	e[n++] = (struct posix_entry) { POSIX_MASK, (uint16_t)mask,
					POSIX_UNDEFINED_ID };
	e[n++] = (struct posix_entry) { POSIX_OTHER, mode & 7,
					POSIX_UNDEFINED_ID };
	buf = posix_acl_push(mem_ctx, e, n, &len);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	return vfs_fsetxattr(dfh, NTACL_POSIX_ACCESS, buf, len, 0);
}

/* ---- the stored descriptor ---- */

static NTSTATUS ntacl_mapped(TALLOC_CTX *mem_ctx, const struct vfs_fh *fh,
			     const struct statx *st, struct smb2_secdesc *sd,
			     uint8_t **raw, size_t *raw_len)
{
	NTSTATUS status = smbd_secdesc_from_stat(mem_ctx,
						 smbd_sid_map(fh->vfs), st,
						 NTACL_SECINFO_ALL, raw,
						 raw_len);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return smb2_secdesc_pull(mem_ctx, *raw, *raw_len, sd);
}

/* Whether Samba 4.17 would still use the stored value x for fh. */
static NTSTATUS ntacl_trusted(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			      const struct statx *st,
			      const struct xattr_ntacl *x, bool *trusted)
{
	uint8_t now[XATTR_NTACL_HASH_SIZE];
	struct smb2_secdesc mapped;
	uint8_t *raw = NULL;
	size_t raw_len = 0;
	NTSTATUS status = NT_STATUS_OK;

	*trusted = false;
	if (x->version == 4) {
		status = ntacl_sys_hash(mem_ctx, fh, st, now);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	switch (xattr_ntacl_verdict(x, false,
				    x->version == 4 ? now : NULL)) {
	case XATTR_NTACL_USE_STORED:
		*trusted = true;
		return NT_STATUS_OK;
	case XATTR_NTACL_USE_FS:
		return NT_STATUS_OK;
	case XATTR_NTACL_CHECK_SD_HASH:
		break;
	}
	status = ntacl_mapped(mem_ctx, fh, st, &mapped, &raw, &raw_len);
	if (NT_STATUS_IS_OK(status)) {
		status = xattr_ntacl_sd_hash_verify(x, raw, raw_len, trusted);
	}
	return status;
}

NTSTATUS smbd_ntacl_get(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			const struct statx *st, struct smb2_secdesc *sd,
			bool *stored)
{
	uint8_t *buf = talloc_size(mem_ctx, XATTR_NTACL_SIZE_MAX);
	struct xattr_ntacl x;
	uint8_t *raw = NULL;
	size_t got = 0, raw_len = 0;
	bool trusted = false;
	NTSTATUS status;

	*stored = false;
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_fgetxattr(fh, XATTR_NTACL_NAME, buf,
			       XATTR_NTACL_SIZE_MAX, &got);
	if (NT_STATUS_IS_OK(status)) {
		status = xattr_ntacl_pull(mem_ctx, buf, got, &x);
		if (!NT_STATUS_IS_OK(status)) {
			/* Samba refuses the file; ringsmb maps instead */
			DBG_WARNING("security.NTACL of a file unreadable: "
				    "%s; using its mode\n", nt_errstr(status));
		}
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ntacl_trusted(mem_ctx, fh, st, &x, &trusted);
	}
	if (NT_STATUS_IS_OK(status) && trusted) {
		status = smb2_secdesc_pull(mem_ctx, x.sd, x.sd_len, sd);
		*stored = NT_STATUS_IS_OK(status);
		if (*stored) {
			return status;
		}
	}
	return ntacl_mapped(mem_ctx, fh, st, sd, &raw, &raw_len);
}

/*
 * Stores sd as fh's security.NTACL, version 4 as Samba's smbd writes
 * it: the SD hash of the mapped descriptor, the hash of the POSIX ACL
 * as it now is (after ntacl_sync_posix).  dfh acts as the daemon.
 */
static NTSTATUS ntacl_store(TALLOC_CTX *mem_ctx, struct vfs_fh *dfh,
			    const struct smb2_secdesc *sd)
{
	struct xattr_ntacl x = {
		.version = 4, .hash_type = XATTR_NTACL_HASH_SHA256,
		.description = (const uint8_t *)NTACL_DESCRIPTION,
		.description_len = sizeof(NTACL_DESCRIPTION) - 1,
		.time = nttime_now(),
	};
	struct smb2_secdesc mapped;
	struct statx st;
	uint8_t *raw = NULL, *value = NULL;
	size_t raw_len = 0, value_len = 0;
	NTSTATUS status = vfs_fstat(dfh, &st);

	if (NT_STATUS_IS_OK(status)) {
		status = ntacl_sys_hash(mem_ctx, dfh, &st, x.sys_acl_hash);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ntacl_mapped(mem_ctx, dfh, &st, &mapped, &raw, &raw_len);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = xattr_ntacl_sd_hash(raw, raw_len, x.hash);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smb2_secdesc_push(mem_ctx, sd, &raw, &raw_len);
	}
	if (NT_STATUS_IS_OK(status)) {
		x.sd = raw;
		x.sd_len = raw_len;
		status = xattr_ntacl_push(mem_ctx, &x, &value, &value_len);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_fsetxattr(dfh, XATTR_NTACL_NAME, value,
				       value_len, 0);
	}
	return status;
}

/*
 * A DACL a client sets (SET_INFO, SecD): generic rights in its ACEs
 * mapped, as Samba's set_sd maps every ACE.  Into sd's own copy.
 */
static bool ntacl_map_generic(TALLOC_CTX *mem_ctx, struct smb2_secdesc *sd)
{
	struct smb2_ace *aces = NULL;
	size_t i;

	if (sd->num_aces == 0) {
		return true;
	}
	aces = talloc_memdup(mem_ctx, sd->aces, sd->num_aces * sizeof(*aces));
	if (aces == NULL) {
		return false;
	}
	for (i = 0; i < sd->num_aces; i++) {
		aces[i].mask = smb2_access_map_generic(aces[i].mask);
	}
	sd->aces = aces;
	return true;
}

/*
 * The DACL control bits a set keeps: PROTECTED; AUTO_INHERITED only
 * when AUTO_INHERIT_REQ asks for it too; AUTO_INHERIT_REQ never (what
 * Windows and Samba store: smbtorture smb2.acls.INHERITFLAGS).
 */
static uint16_t ntacl_set_control(uint16_t given)
{
	uint16_t both = SMB2_SD_DACL_AUTO_INHERITED |
			SMB2_SD_DACL_AUTO_INHERIT_REQ;
	uint16_t kept = given & SMB2_SD_DACL_PROTECTED;

	if ((given & both) == both) {
		kept |= SMB2_SD_DACL_AUTO_INHERITED;
	}
	return kept;
}

/* Maps sd to the mode and POSIX ACL, then stores it. */
static NTSTATUS ntacl_apply(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			    const struct smb2_secdesc *sd)
{
	struct vfs_fh *dfh = vfs_fh_as_daemon(mem_ctx, fh);
	struct statx st;
	NTSTATUS status;

	if (dfh == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (sd->other_aces) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	status = vfs_fstat(dfh, &st);
	if (NT_STATUS_IS_OK(status)) {
		status = ntacl_sync_posix(mem_ctx, dfh, sd, &st);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ntacl_store(mem_ctx, dfh, sd);
	}
	return status;
}

/* ---- CREATE ---- */

/* The directory of path, opened for its metadata. */
static NTSTATUS ntacl_parent(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			     const char *path, struct vfs_fh **fh,
			     struct statx *st)
{
	const char *slash = strrchr(path, '/');
	char *dir = talloc_strndup(mem_ctx, path,
				   slash != NULL ? (size_t)(slash - path) : 0);

	if (dir == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	return vfs_openat(mem_ctx, tcon->vfs, dir, O_PATH | O_DIRECTORY, fh,
			  st);
}

/* The rights the directory of path grants the user. */
static NTSTATUS ntacl_parent_granted(TALLOC_CTX *mem_ctx,
				     struct smbd_tcon *tcon,
				     const char *path, uint32_t *granted)
{
	struct smb2_secdesc sd;
	struct smb2_token tok;
	struct vfs_fh *dir = NULL;
	struct statx st;
	bool stored = false;
	NTSTATUS status = ntacl_parent(mem_ctx, tcon, path, &dir, &st);

	if (NT_STATUS_IS_OK(status)) {
		status = smbd_ntacl_get(mem_ctx, dir, &st, &sd, &stored);
	}
	if (NT_STATUS_IS_OK(status) && !smbd_ntacl_token(mem_ctx, tcon, &tok)) {
		status = NT_STATUS_NO_MEMORY;
	}
	if (NT_STATUS_IS_OK(status)) {
		*granted = smb2_secdesc_granted(&sd, &tok);
	}
	return status;
}

NTSTATUS smbd_ntacl_check_open(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			       const char *path, struct vfs_fh *fh,
			       const struct statx *st, uint32_t requested,
			       bool maximum, uint32_t *granted)
{
	TALLOC_CTX *tmp = NULL;
	struct smb2_secdesc sd;
	struct smb2_token tok;
	uint32_t from_dir = 0;
	bool stored = false;
	NTSTATUS status;

	if (ntacl_is_root(tcon)) {
		*granted = SMB2_RIGHTS_FILE_ALL;
		return NT_STATUS_OK;
	}
	tmp = talloc_new(mem_ctx);
	if (tmp == NULL || !smbd_ntacl_token(tmp, tcon, &tok)) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	status = smbd_ntacl_get(tmp, fh, st, &sd, &stored);
	if (NT_STATUS_IS_OK(status)) {
		*granted = smb2_secdesc_granted(&sd, &tok);
		/* MS-FSA 2.1.5.1.2.1: the directory may grant DELETE */
		if (!(*granted & SMB2_DELETE) &&
		    ((requested & SMB2_DELETE) || maximum) &&
		    NT_STATUS_IS_OK(ntacl_parent_granted(tmp, tcon, path,
							 &from_dir)) &&
		    (from_dir & SMB2_FILE_DELETE_CHILD)) {
			*granted |= SMB2_DELETE;
		}
		if (requested & ~*granted) {
			DBG_INFO("%s: asked 0x%x, the NT ACL grants 0x%x\n",
				 path, requested, *granted);
			status = NT_STATUS_ACCESS_DENIED;
		}
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS smbd_ntacl_check_create(TALLOC_CTX *mem_ctx,
				 struct smbd_tcon *tcon, const char *path,
				 bool is_dir)
{
	uint32_t need = is_dir ? SMB2_FILE_ADD_SUBDIRECTORY :
		SMB2_FILE_ADD_FILE;
	uint32_t granted = 0;
	TALLOC_CTX *tmp = NULL;
	NTSTATUS status;

	if (ntacl_is_root(tcon)) {
		return NT_STATUS_OK;
	}
	tmp = talloc_new(mem_ctx);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = ntacl_parent_granted(tmp, tcon, path, &granted);
	talloc_free(tmp);
	if (NT_STATUS_IS_OK(status) && (granted & need) == 0) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return status;
}

static NTSTATUS ntacl_chown(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			    struct vfs_fh *fh, const struct statx *st,
			    const struct smb2_sid *owner,
			    const struct smb2_sid *group);

/*
 * A new file's owner and group SIDs, as Samba takes them from the
 * token: the user's SID, and its primary group, which for a passdb user
 * is Domain Users (while the file has the user's own gid); otherwise the
 * file's Unix group.
 */
static void ntacl_new_owner(const struct smbd_tcon *tcon,
			    const struct statx *st, struct smb2_sid *owner,
			    struct smb2_sid *group)
{
	const struct samsid_map *map = smbd_sid_map(tcon->vfs);
	const struct unix_token *t = tcon->vfs->token;

	smbd_sid_of_uid(map, st->stx_uid, owner);
	if (t == NULL || t->gid != st->stx_gid ||
	    !samsid_uid_to_sid(map, t->uid, group) ||
	    !samsid_map_compose(map, SAMSID_RID_USERS, group)) {
		smbd_secdesc_unix_sid(group, true, st->stx_gid);
	}
}

NTSTATUS smbd_ntacl_create_apply(TALLOC_CTX *mem_ctx,
				 struct smbd_tcon *tcon, const char *path,
				 struct vfs_fh *fh,
				 const struct smb2_secdesc *given)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	struct smb2_secdesc parent, sd;
	struct smb2_sid owner, group;
	struct vfs_fh *dir = NULL;
	struct statx st, dst;
	bool stored = false;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_fstat(fh, &st);
	if (NT_STATUS_IS_OK(status) && given != NULL) {
		/* a SecD owner or group: as SET_INFO would allow it */
		status = ntacl_chown(tmp, tcon, fh, &st, given->owner,
				     given->group);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_fstat(fh, &st);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ntacl_parent(tmp, tcon, path, &dir, &dst);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_ntacl_get(tmp, dir, &dst, &parent, &stored);
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(tmp);
		return status;
	}
	ntacl_new_owner(tcon, &st, &owner, &group);
	if (given != NULL && given->owner != NULL) {
		owner = *given->owner;          /* ntacl_chown allowed it */
	}
	if (given != NULL && given->group != NULL) {
		group = *given->group;
	}
	if (!smb2_secdesc_inherit(tmp, stored ? &parent : NULL,
				  S_ISDIR(st.stx_mode), &owner, &group,
				  &sd)) {
		status = NT_STATUS_NO_MEMORY;
	} else if (given != NULL && given->has_dacl) {
		/* the SecD's DACL as given, as Samba sets it */
		sd.has_dacl = true;
		sd.null_dacl = given->null_dacl;
		sd.aces = given->aces;
		sd.num_aces = given->num_aces;
		sd.control = ntacl_set_control(given->control);
		sd.other_aces = given->other_aces;
		status = ntacl_map_generic(tmp, &sd) ? NT_STATUS_OK :
			NT_STATUS_NO_MEMORY;
	}
	if (NT_STATUS_IS_OK(status) && !sd.has_dacl) {
		/*
		 * Nothing inherited, no DACL given: the mode's, stored as
		 * Samba stores what it inherits from the descriptor it maps
		 * for the directory, so either server answers the same
		 */
		struct smb2_secdesc mapped;
		uint8_t *raw = NULL;
		size_t raw_len = 0;

		status = ntacl_mapped(tmp, fh, &st, &mapped, &raw, &raw_len);
		sd.has_dacl = true;
		sd.aces = mapped.aces;
		sd.num_aces = mapped.num_aces;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ntacl_apply(tmp, fh, &sd);
	}
	talloc_free(tmp);
	return status;
}

/* ---- SET_INFO and QUERY_INFO ---- */

/*
 * A new owner or group, as Samba 4.17 allows them (checked against it):
 * the owner must be a SID of the user's token (root: also any Unix
 * user); the user's own Unix SID (root: any Unix user's) makes the file
 * theirs with a chown, another token SID (Everyone, one of the user's
 * groups) is kept in the descriptor only; another user's SID is
 * INVALID_OWNER.  The group may be any SID: a Unix group the user is in
 * (root: any) is a chgrp, another Unix group ACCESS_DENIED, a SID with
 * no Unix group (BUILTIN\Users) kept in the descriptor only.  Changes
 * are made by the daemon: the caller checked WRITE_OWNER.
 */
static NTSTATUS ntacl_chown(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			    struct vfs_fh *fh, const struct statx *st,
			    const struct smb2_sid *owner,
			    const struct smb2_sid *group)
{
	const struct unix_token *t = tcon->vfs->token;
	bool root = ntacl_is_root(tcon);
	struct smb2_token tok;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	uint32_t id = 0;

	if (!smbd_ntacl_token(mem_ctx, tcon, &tok)) {
		return NT_STATUS_NO_MEMORY;
	}
	if (owner != NULL) {
		if (smbd_uid_of_sid(smbd_sid_map(tcon->vfs), owner, &id)) {
			if (!root && id != t->uid) {
				return NT_STATUS_INVALID_OWNER;
			}
			uid = id != st->stx_uid ? id : (uid_t)-1;
		} else if (!root && !smb2_token_has(&tok, owner)) {
			return NT_STATUS_INVALID_OWNER;
		}
	}
	if (group != NULL && smbd_secdesc_unix_id(group, true, &id)) {
		struct smb2_sid mine;

		smbd_secdesc_unix_sid(&mine, true, id);
		if (!root && !smb2_token_has(&tok, &mine)) {
			return NT_STATUS_ACCESS_DENIED;
		}
		gid = id != st->stx_gid ? id : (gid_t)-1;
	}
	if (uid == (uid_t)-1 && gid == (gid_t)-1) {
		return NT_STATUS_OK;
	}
	if (fchownat(fh->fd, "", uid, gid, AT_EMPTY_PATH) != 0) {
		return ntstatus_from_errno(errno);
	}
	return NT_STATUS_OK;
}

NTSTATUS smbd_ntacl_set(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			struct vfs_fh *fh, const struct smb2_secdesc *sd,
			uint32_t secinfo)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	struct smb2_secdesc cur, next;
	struct statx st;
	bool stored = false;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if ((secinfo & SMB2_DACL_SECURITY_INFORMATION) && sd->other_aces) {
		talloc_free(tmp);
		return NT_STATUS_NOT_SUPPORTED;
	}
	status = vfs_fstat(fh, &st);
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_ntacl_get(tmp, fh, &st, &cur, &stored);
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(tmp);
		return status;
	}
	next = cur;
	if (secinfo & SMB2_OWNER_SECURITY_INFORMATION) {
		next.owner = sd->owner;
	}
	if (secinfo & SMB2_GROUP_SECURITY_INFORMATION) {
		next.group = sd->group;
	}
	if (secinfo & SMB2_DACL_SECURITY_INFORMATION) {
		/* no DACL at all is a NULL DACL (smb2.create.nulldacl) */
		next.has_dacl = true;
		next.null_dacl = !sd->has_dacl || sd->null_dacl;
		next.aces = sd->aces;
		next.num_aces = sd->num_aces;
		next.control = (cur.control & ~SMB2_SD_CONTROL_KEPT) |
			ntacl_set_control(sd->control);
	}
	next.has_sacl = false;          /* SACLs are not kept (ntacl.h) */
	if (!ntacl_map_generic(tmp, &next)) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	status = ntacl_chown(tmp, tcon, fh, &st,
			     (secinfo & SMB2_OWNER_SECURITY_INFORMATION) ?
			     sd->owner : NULL,
			     (secinfo & SMB2_GROUP_SECURITY_INFORMATION) ?
			     sd->group : NULL);
	if (NT_STATUS_IS_OK(status)) {
		status = ntacl_apply(tmp, fh, &next);
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS smbd_ntacl_query(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			  uint32_t secinfo, uint8_t **out, size_t *out_len)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	struct smb2_secdesc sd, part = {};
	struct statx st;
	bool stored = false;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_fstat(fh, &st);
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_ntacl_get(tmp, fh, &st, &sd, &stored);
	}
	if (NT_STATUS_IS_OK(status) && sd.other_aces) {
		status = NT_STATUS_NOT_SUPPORTED;
	}
	if (NT_STATUS_IS_OK(status)) {
		if (secinfo & SMB2_OWNER_SECURITY_INFORMATION) {
			part.owner = sd.owner;
		}
		if (secinfo & SMB2_GROUP_SECURITY_INFORMATION) {
			part.group = sd.group;
		}
		if (secinfo & SMB2_DACL_SECURITY_INFORMATION) {
			part.has_dacl = sd.has_dacl;
			part.null_dacl = sd.null_dacl;
			part.aces = sd.aces;
			part.num_aces = sd.num_aces;
			part.control = sd.control;
		}
		part.has_sacl = (secinfo & SMB2_SACL_SECURITY_INFORMATION) != 0;
		status = smb2_secdesc_push(mem_ctx, &part, out, out_len);
	}
	talloc_free(tmp);
	return status;
}
