/*
 * Stored DOS attributes and creation time (MS-FSCC 2.6, MS-FSA 2.1.5.14.2).
 *
 * Linux has neither, so they live in the user.DOSATTRIB xattr, as Samba
 * keeps them, in a format of our own (docs/vfs.md):
 *
 *	0   4  magic "RSDA"
 *	4   2  version (1)
 *	6   2  flags: 0x1 the creation time is stored
 *	8   4  FileAttributes (SMBD_DOSMODE_STORED bits only)
 *	12  4  reserved, 0
 *	16  8  CreationTime (NTTIME)
 *
 * A value Samba wrote starts with "0x<hex attributes>" and a NUL; its
 * attributes are read from that string, its times are not.  When there is
 * no value, or the file system has no user xattrs, everything falls back
 * to what statx says (open_files.c).  Nothing here is fatal: a failed
 * read means "not stored".
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "lib/util/byteorder.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/share_names.h"
#include "source3/smbd/files/dosmode.h"
#include "source3/smbd/files/open_files.h"

#define DM_MAGIC		"RSDA"
#define DM_VERSION		1
#define DM_FLAG_CREATE_TIME	0x0001
#define DM_SIZE			24
/* Samba's "0x" + up to 8 hex digits + NUL, then its NDR blob */
#define DM_SAMBA_HEX_MAX	10

static bool dm_parse_ours(const uint8_t *b, size_t len,
			  struct smbd_dosmode *dm)
{
	if (len < DM_SIZE || memcmp(b, DM_MAGIC, 4) != 0 ||
	    pull_le16(b + 4) != DM_VERSION) {
		return false;
	}
	dm->attrs = pull_le32(b + 8) & SMBD_DOSMODE_STORED;
	dm->create_time = (pull_le16(b + 6) & DM_FLAG_CREATE_TIME) ?
		pull_le64(b + 16) : 0;
	return true;
}

static bool dm_parse_samba(const uint8_t *b, size_t len,
			   struct smbd_dosmode *dm)
{
	char hex[DM_SAMBA_HEX_MAX + 1] = "";
	char *end = NULL;
	size_t n = 0;

	if (len < 3 || b[0] != '0' || (b[1] != 'x' && b[1] != 'X')) {
		return false;
	}
	while (n < len && n < DM_SAMBA_HEX_MAX && b[n] != '\0') {
		hex[n] = (char)b[n];
		n++;
	}
	dm->attrs = (uint32_t)strtoul(hex + 2, &end, 16) &
		    SMBD_DOSMODE_STORED;
	dm->create_time = 0;
	return end != hex + 2 && *end == '\0';
}

NTSTATUS smbd_dosmode_get(struct vfs_fh *fh, struct smbd_dosmode *dm)
{
	uint8_t buf[64];
	size_t got = 0;
	NTSTATUS status = vfs_fgetxattr(fh, SMBD_DOSATTRIB_XATTR, buf,
					sizeof(buf), &got);

	if (!NT_STATUS_IS_OK(status)) {
		return status;          /* none stored, or no xattrs here */
	}
	if (dm_parse_ours(buf, got, dm) || dm_parse_samba(buf, got, dm)) {
		return NT_STATUS_OK;
	}
	return NT_STATUS_OBJECT_NAME_NOT_FOUND;   /* unknown: ignored */
}

NTSTATUS smbd_dosmode_store(struct vfs_fh *fh, const struct smbd_dosmode *dm)
{
	uint8_t b[DM_SIZE] = {};

	memcpy(b, DM_MAGIC, 4);
	push_le16(b + 4, DM_VERSION);
	push_le16(b + 6, dm->create_time != 0 ? DM_FLAG_CREATE_TIME : 0);
	push_le32(b + 8, dm->attrs & SMBD_DOSMODE_STORED);
	push_le64(b + 16, dm->create_time);
	return vfs_fsetxattr(fh, SMBD_DOSATTRIB_XATTR, b, sizeof(b), 0);
}

/* What is stored, or else what statx derives (creation time not kept). */
NTSTATUS smbd_dosmode_current(struct vfs_fh *fh, const char *base,
			      struct smbd_dosmode *dm)
{
	struct smb2_file_meta m;
	struct statx st;
	NTSTATUS status;

	if (NT_STATUS_IS_OK(smbd_dosmode_get(fh, dm))) {
		return NT_STATUS_OK;
	}
	status = vfs_fstat(fh, &st);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	smbd_meta_from_statx(&st, base, &m);
	dm->attrs = m.attributes & SMBD_DOSMODE_STORED;
	dm->create_time = 0;
	return NT_STATUS_OK;
}

NTSTATUS smbd_dosmode_set(struct vfs_fh *fh, uint32_t attrs)
{
	struct smbd_dosmode dm = {};

	if (!NT_STATUS_IS_OK(smbd_dosmode_get(fh, &dm))) {
		dm.create_time = 0;
	}
	dm.attrs = attrs & SMBD_DOSMODE_STORED;
	return smbd_dosmode_store(fh, &dm);
}

void smbd_dosmode_apply(const struct smbd_dosmode *dm,
			struct smb2_file_meta *m)
{
	uint32_t attrs = dm->attrs & SMBD_DOSMODE_STORED;

	if (m->is_dir) {
		attrs |= SMB2_FILE_ATTRIBUTE_DIRECTORY;
	}
	/* MS-FSCC 2.6: NORMAL is reported alone, when nothing else is set */
	m->attributes = attrs != 0 ? attrs : SMB2_FILE_ATTRIBUTE_NORMAL;
	if (dm->create_time != 0) {
		m->create_time = dm->create_time;
	}
}

NTSTATUS smbd_meta_from_fh(struct vfs_fh *fh, const struct statx *st,
			   const char *base, struct smb2_file_meta *m)
{
	struct smbd_dosmode dm;
	bool stored = false;

	smbd_meta_from_statx(st, base, m);
	if (NT_STATUS_IS_OK(smbd_dosmode_get(fh, &dm))) {
		smbd_dosmode_apply(&dm, m);
		stored = true;
	}
	m->attributes = smbd_names_attributes(fh->vfs, base, m->attributes,
					      stored);
	return NT_STATUS_OK;
}

/*
 * A directory entry: one O_PATH open gives both statx and the xattr.
 * *xattrs is cleared when the file system has no user xattrs, so the
 * rest of the listing does not ask again.
 */
NTSTATUS smbd_meta_at(TALLOC_CTX *mem_ctx, struct vfs_handle *vfs,
		      const char *path, const char *base, bool *xattrs,
		      struct smb2_file_meta *m)
{
	struct smbd_dosmode dm;
	struct vfs_fh *fh = NULL;
	struct statx st;
	NTSTATUS status = vfs_openat(mem_ctx, vfs, path, O_PATH, &fh, &st);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	smbd_meta_from_statx(&st, base, m);
	status = NT_STATUS_NOT_FOUND;
	if (*xattrs) {
		status = smbd_dosmode_get(fh, &dm);
		if (NT_STATUS_IS_OK(status)) {
			smbd_dosmode_apply(&dm, m);
		} else if (NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED)) {
			*xattrs = false;
		}
	}
	m->attributes = smbd_names_attributes(vfs, base, m->attributes,
					      NT_STATUS_IS_OK(status));
	talloc_free(fh);
	return NT_STATUS_OK;
}
