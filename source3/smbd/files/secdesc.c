/*
 * QUERY_INFO SECURITY (MS-SMB2 3.3.5.20.3): a security descriptor made
 * from the file's uid, gid and mode (secdesc.h).  Nothing is stored:
 * SET_INFO SECURITY (3.3.5.21.3) and CREATE's SecD context map a DACL
 * back to the mode's rwx bits, as Samba does without an ACL module, and
 * accept only the file's own Unix owner and group SIDs.
 *
 * Rights per rwx triple, as Samba maps a POSIX ACL entry by default:
 * rwx is FILE_ALL_ACCESS; otherwise r adds FILE_GENERIC_READ, w
 * FILE_GENERIC_WRITE, x FILE_GENERIC_EXECUTE; none is an ACE with mask 0
 * (kept so the three ACEs always mirror the three triples).
 */
#include "lib/auth/samsid.h"
#include "lib/smb2/smb2.h"
#include "lib/smb2/smb2_const.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/secdesc.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/ntacl.h"
#include "source3/smbd/files/open_files.h"

#define SD_AUTH_WORLD		1       /* S-1-1-0 Everyone */
#define SD_AUTH_UNIX		22      /* S-1-22-1 users, S-1-22-2 groups */
#define SD_UNIX_USER		1
#define SD_UNIX_GROUP		2
#define SD_SECINFO_READ_CONTROL	(SMB2_OWNER_SECURITY_INFORMATION | \
				 SMB2_GROUP_SECURITY_INFORMATION | \
				 SMB2_DACL_SECURITY_INFORMATION)

uint32_t smbd_secdesc_rights(unsigned perms)
{
	uint32_t mask = 0;

	if ((perms & 7) == 7) {
		return SMBD_FILE_ALL_ACCESS;
	}
	if (perms & 4) {
		mask |= SMBD_FILE_GENERIC_READ;
	}
	if (perms & 2) {
		mask |= SMBD_FILE_GENERIC_WRITE;
	}
	if (perms & 1) {
		mask |= SMBD_FILE_GENERIC_EXECUTE;
	}
	return mask;
}

static void sd_unix_sid(struct smb2_sid *sid, uint32_t kind, uint32_t id)
{
	*sid = (struct smb2_sid) {
		.num_auths = 2, .authority = SD_AUTH_UNIX,
		.sub_auths = { kind, id },
	};
}

void smbd_secdesc_unix_sid(struct smb2_sid *sid, bool group, uint32_t id)
{
	sd_unix_sid(sid, group ? SD_UNIX_GROUP : SD_UNIX_USER, id);
}

const struct samsid_map *smbd_sid_map(const struct vfs_handle *vfs)
{
	return vfs != NULL && vfs->sid_map != NULL ? *vfs->sid_map : NULL;
}

void smbd_sid_of_uid(const struct samsid_map *map, uint32_t uid,
		     struct smb2_sid *sid)
{
	if (!samsid_uid_to_sid(map, uid, sid)) {
		sd_unix_sid(sid, SD_UNIX_USER, uid);
	}
}

bool smbd_uid_of_sid(const struct samsid_map *map,
		     const struct smb2_sid *sid, uint32_t *uid)
{
	return smbd_secdesc_unix_id(sid, false, uid) ||
	       samsid_sid_to_uid(map, sid, uid);
}

NTSTATUS smbd_secdesc_from_stat(TALLOC_CTX *mem_ctx,
				const struct samsid_map *map,
				const struct statx *st, uint32_t secinfo,
				uint8_t **out, size_t *out_len)
{
	struct smb2_sid owner, group;
	struct smb2_ace aces[3] = {};
	struct smb2_secdesc sd = {
		.aces = aces, .num_aces = 3,
		.has_dacl = (secinfo & SMB2_DACL_SECURITY_INFORMATION) != 0,
		.has_sacl = (secinfo & SMB2_SACL_SECURITY_INFORMATION) != 0,
	};

	smbd_sid_of_uid(map, st->stx_uid, &owner);
	sd_unix_sid(&group, SD_UNIX_GROUP, st->stx_gid);
	aces[0].sid = owner;
	aces[0].mask = smbd_secdesc_rights(st->stx_mode >> 6);
	aces[1].sid = group;
	aces[1].mask = smbd_secdesc_rights(st->stx_mode >> 3);
	aces[2].sid = (struct smb2_sid) { .authority = SD_AUTH_WORLD,
					  .num_auths = 1 };
	aces[2].mask = smbd_secdesc_rights(st->stx_mode);
	if (secinfo & SMB2_OWNER_SECURITY_INFORMATION) {
		sd.owner = &owner;
	}
	if (secinfo & SMB2_GROUP_SECURITY_INFORMATION) {
		sd.group = &group;
	}
	return smb2_secdesc_push(mem_ctx, &sd, out, out_len);
}

NTSTATUS smbd_secdesc_query(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			    uint32_t secinfo, uint8_t **out, size_t *out_len)
{
	struct statx st;
	NTSTATUS status;

	if ((secinfo & SMB2_SACL_SECURITY_INFORMATION) &&
	    !(open->access_mask & SMB2_ACCESS_SYSTEM_SECURITY)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if ((secinfo & SD_SECINFO_READ_CONTROL) &&
	    !(open->access_mask & SMB2_READ_CONTROL)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (smbd_ntacl_share(open->tcon)) {
		return smbd_ntacl_query(mem_ctx, open->fh, secinfo, out,
					out_len);
	}
	status = vfs_fstat(open->fh, &st);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return smbd_secdesc_from_stat(mem_ctx, smbd_sid_map(open->fh->vfs),
				      &st, secinfo, out, out_len);
}

/* ---- DACL to mode ---- */

#define SD_READ_BITS	(SMB2_GENERIC_READ | SMB2_GENERIC_ALL | \
			 SMB2_FILE_READ_DATA | SMB2_FILE_READ_EA)
#define SD_WRITE_BITS	(SMB2_GENERIC_WRITE | SMB2_GENERIC_ALL | \
			 SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA | \
			 SMB2_FILE_WRITE_EA)
#define SD_EXEC_BITS	(SMB2_GENERIC_EXECUTE | SMB2_GENERIC_ALL | \
			 SMB2_FILE_EXECUTE)

enum sd_class { SD_OWNER, SD_GROUP, SD_OTHER, SD_NONE };

/* The rwx triple an access mask grants: any bit of each kind counts. */
unsigned smbd_secdesc_perms(uint32_t mask)
{
	return ((mask & SD_READ_BITS) ? 4 : 0) |
	       ((mask & SD_WRITE_BITS) ? 2 : 0) |
	       ((mask & SD_EXEC_BITS) ? 1 : 0);
}

static bool sd_is_unix(const struct smb2_sid *sid, uint32_t kind)
{
	return sid->authority == SD_AUTH_UNIX && sid->num_auths == 2 &&
	       sid->sub_auths[0] == kind;
}

bool smbd_secdesc_unix_id(const struct smb2_sid *sid, bool group,
			  uint32_t *id)
{
	if (!sd_is_unix(sid, group ? SD_UNIX_GROUP : SD_UNIX_USER)) {
		return false;
	}
	*id = sid->sub_auths[1];
	return true;
}

static enum sd_class sd_class_of(const struct samsid_map *map,
				 const struct smb2_sid *sid, uint32_t uid,
				 uint32_t gid)
{
	uint32_t id = 0;

	if (smbd_uid_of_sid(map, sid, &id) && id == uid) {
		return SD_OWNER;
	}
	if (sd_is_unix(sid, SD_UNIX_GROUP) && sid->sub_auths[1] == gid) {
		return SD_GROUP;
	}
	if (sid->authority == SD_AUTH_WORLD && sid->num_auths == 1 &&
	    sid->sub_auths[0] == 0) {
		return SD_OTHER;
	}
	return SD_NONE;
}

struct sd_perms {
	unsigned allow[3];
	unsigned deny[3];
	bool seen[3];
};

/* First match wins per bit, as Windows evaluates ACEs in order. */
static void sd_add_ace(struct sd_perms *p, const struct samsid_map *map,
		       const struct smb2_ace *ace, uint32_t uid, uint32_t gid)
{
	enum sd_class c = SD_NONE;
	unsigned bits = 0;

	if ((ace->flags & SMB2_ACE_INHERIT_ONLY) ||
	    (ace->type != SMB2_ACE_ACCESS_ALLOWED &&
	     ace->type != SMB2_ACE_ACCESS_DENIED)) {
		return;
	}
	c = sd_class_of(map, &ace->sid, uid, gid);
	if (c == SD_NONE) {
		return;                 /* no Unix class to put it in */
	}
	bits = smbd_secdesc_perms(ace->mask);
	p->seen[c] = true;
	if (ace->type == SMB2_ACE_ACCESS_ALLOWED) {
		p->allow[c] |= bits & ~p->deny[c];
	} else {
		p->deny[c] |= bits & ~p->allow[c];
	}
}

mode_t smbd_secdesc_dacl_mode(const struct smb2_secdesc *sd,
			      const struct samsid_map *map, uint32_t uid,
			      uint32_t gid)
{
	struct sd_perms p = {};
	unsigned owner = 0, group = 0;
	size_t i;

	if (!sd->has_dacl || sd->null_dacl) {
		return 0777;
	}
	for (i = 0; i < sd->num_aces; i++) {
		sd_add_ace(&p, map, &sd->aces[i], uid, gid);
	}
	/* a class the DACL does not name gets Everyone's bits (Samba) */
	owner = p.seen[SD_OWNER] ? p.allow[SD_OWNER] : p.allow[SD_OTHER];
	group = p.seen[SD_GROUP] ? p.allow[SD_GROUP] : p.allow[SD_OTHER];
	return (mode_t)(owner << 6 | group << 3 | p.allow[SD_OTHER]);
}

/* ---- setting ---- */

/*
 * Ownership cannot change: ringsmb does not chown.  Another Unix
 * user's or group's SID is what a refused chown answers
 * (ACCESS_DENIED); a SID with no Unix id is INVALID_OWNER, as Samba
 * answers one it cannot map.
 */
static NTSTATUS sd_check_id(const struct samsid_map *map,
			    const struct smb2_sid *sid, uint32_t kind,
			    uint32_t id)
{
	uint32_t got = 0;

	if (sid == NULL) {
		return NT_STATUS_OK;
	}
	if (kind == SD_UNIX_USER ? !smbd_uid_of_sid(map, sid, &got) :
	    !smbd_secdesc_unix_id(sid, true, &got)) {
		return NT_STATUS_INVALID_OWNER;
	}
	return got == id ? NT_STATUS_OK : NT_STATUS_ACCESS_DENIED;
}

NTSTATUS smbd_secdesc_apply(struct vfs_fh *fh, const struct smb2_secdesc *sd,
			    uint32_t secinfo)
{
	const struct samsid_map *map = smbd_sid_map(fh->vfs);
	struct statx st;
	mode_t mode = 0;
	NTSTATUS status = vfs_fstat(fh, &st);

	if (NT_STATUS_IS_OK(status) &&
	    (secinfo & SMB2_OWNER_SECURITY_INFORMATION)) {
		status = sd_check_id(map, sd->owner, SD_UNIX_USER,
				     st.stx_uid);
	}
	if (NT_STATUS_IS_OK(status) &&
	    (secinfo & SMB2_GROUP_SECURITY_INFORMATION)) {
		status = sd_check_id(map, sd->group, SD_UNIX_GROUP,
				     st.stx_gid);
	}
	if (!NT_STATUS_IS_OK(status) ||
	    !(secinfo & SMB2_DACL_SECURITY_INFORMATION)) {
		return status;
	}
	mode = (st.stx_mode & 07000) |
		smbd_secdesc_dacl_mode(sd, map, st.stx_uid, st.stx_gid);
	if (mode == (st.stx_mode & 07777)) {
		return NT_STATUS_OK;
	}
	return vfs_fchmod(fh, mode);
}

/* MS-SMB2 3.3.5.21.3: each part needs its own right on the open. */
static NTSTATUS sd_set_access(const struct smbd_open *open,
			      uint32_t secinfo)
{
	uint32_t need = 0;

	if (secinfo & SMB2_SACL_SECURITY_INFORMATION) {
		need |= SMB2_ACCESS_SYSTEM_SECURITY;
	}
	if (secinfo & (SMB2_OWNER_SECURITY_INFORMATION |
		       SMB2_GROUP_SECURITY_INFORMATION)) {
		need |= SMB2_WRITE_OWNER;
	}
	if (secinfo & SMB2_DACL_SECURITY_INFORMATION) {
		need |= SMB2_WRITE_DAC;
	}
	return (open->access_mask & need) == need ? NT_STATUS_OK :
		NT_STATUS_ACCESS_DENIED;
}

NTSTATUS smbd_secdesc_set(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			  uint32_t secinfo, const uint8_t *buf, size_t len)
{
	struct smb2_secdesc sd;
	NTSTATUS status = smb2_secdesc_pull(mem_ctx, buf, len, &sd);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* an owner or group flag without the SID sets nothing (Samba) */
	if (sd.owner == NULL) {
		secinfo &= ~SMB2_OWNER_SECURITY_INFORMATION;
	}
	if (sd.group == NULL) {
		secinfo &= ~SMB2_GROUP_SECURITY_INFORMATION;
	}
	status = sd_set_access(open, secinfo);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (smbd_ntacl_share(open->tcon)) {
		return smbd_ntacl_set(mem_ctx, open->tcon, open->fh, &sd,
				      secinfo);
	}
	return smbd_secdesc_apply(open->fh, &sd, secinfo);
}

/* ---- CREATE's SecD (MS-SMB2 2.2.13.2.1) ---- */

NTSTATUS smbd_secdesc_create_get(TALLOC_CTX *mem_ctx,
				 const struct smb2_create_ctx_list *l,
				 struct smb2_secdesc *sd, bool *found)
{
	size_t n = 0;
	const struct smb2_create_ctx *c = smb2_create_ctx_find(
		l, SMB2_CREATE_TAG_SECD, &n);

	*found = (c != NULL);
	if (c == NULL) {
		return NT_STATUS_OK;
	}
	return smb2_secdesc_pull(mem_ctx, c->data, c->data_len, sd);
}

NTSTATUS smbd_secdesc_create_check(const struct smb2_create_ctx_list *l)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct smb2_secdesc sd;
	bool found = false;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = smbd_secdesc_create_get(tmp, l, &sd, &found);
	talloc_free(tmp);
	return status;
}

NTSTATUS smbd_secdesc_create_apply(struct vfs_fh *fh, uint32_t action,
				   const struct smb2_create_ctx_list *l)
{
	TALLOC_CTX *tmp = NULL;
	struct smb2_secdesc sd;
	uint32_t secinfo = 0;
	bool found = false;
	NTSTATUS status;

	if (action != SMB2_FILE_CREATED) {
		return NT_STATUS_OK;    /* an existing file keeps its SD */
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = smbd_secdesc_create_get(tmp, l, &sd, &found);
	if (NT_STATUS_IS_OK(status) && found) {
		secinfo = (sd.owner ? SMB2_OWNER_SECURITY_INFORMATION : 0) |
			(sd.group ? SMB2_GROUP_SECURITY_INFORMATION : 0) |
			(sd.has_dacl ? SMB2_DACL_SECURITY_INFORMATION : 0);
		status = smbd_secdesc_apply(fh, &sd, secinfo);
	}
	talloc_free(tmp);
	return status;
}
