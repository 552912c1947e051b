/*
 * QUERY_INFO SECURITY (MS-SMB2 3.3.5.20.3): a security descriptor made
 * from the file's uid, gid and mode (secdesc.h).  Nothing is stored and
 * nothing can be set (SET_INFO SECURITY is NOT_SUPPORTED).
 *
 * Rights per rwx triple, as Samba maps a POSIX ACL entry by default:
 * rwx is FILE_ALL_ACCESS; otherwise r adds FILE_GENERIC_READ, w
 * FILE_GENERIC_WRITE, x FILE_GENERIC_EXECUTE; none is an ACE with mask 0
 * (kept so the three ACEs always mirror the three triples).
 */
#include "lib/smb2/smb2.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/secdesc.h"
#include "source3/smbd/smbd_files.h"

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

NTSTATUS smbd_secdesc_from_stat(TALLOC_CTX *mem_ctx, const struct statx *st,
				uint32_t secinfo, uint8_t **out,
				size_t *out_len)
{
	struct smb2_sid owner, group;
	struct smb2_ace aces[3] = {};
	struct smb2_secdesc sd = {
		.aces = aces, .num_aces = 3,
		.has_dacl = (secinfo & SMB2_DACL_SECURITY_INFORMATION) != 0,
		.has_sacl = (secinfo & SMB2_SACL_SECURITY_INFORMATION) != 0,
	};

	sd_unix_sid(&owner, SD_UNIX_USER, st->stx_uid);
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
	status = vfs_fstat(open->fh, &st);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return smbd_secdesc_from_stat(mem_ctx, &st, secinfo, out, out_len);
}
