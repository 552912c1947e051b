/*
 * Stored DOS attributes and creation time (MS-FSCC 2.6, MS-FSA 2.1.5.14.2).
 *
 * Linux has neither, so they live in the user.DOSATTRIB xattr in Samba's
 * format, so that a share moves between Samba and ringsmb with both
 * (lib/dcerpc/xattr_dosattrib.h, docs/vfs.md): a hex string, a NUL, then
 * an NDR xattr_DOSATTRIB.  We write what Samba 4.17 writes, version 5:
 *
 *	0   1  "" (the hex string is empty from version 4 on), NUL
 *	1   1  pad
 *	2   2  version 5
 *	4   2  union level 5
 *	6   2  pad
 *	8   4  valid flags: ATTRIB | CREATE_TIME (0x11)
 *	12  4  FileAttributes (SMBD_DOSMODE_STORED bits, DIRECTORY for a
 *	       directory as Samba stores it)
 *	16  8  CreationTime (NTTIME), always present as in Samba: the
 *	       statx-derived one when none was set
 *
 * We read every version Samba reads (1..5 and the bare hex string) and
 * take what Samba 4.17 takes from each (xattr_dosattrib_meaning).  Our
 * own earlier format, "RSDA" + version 1, is still read; the next store
 * replaces it with Samba's:
 *
 *	0   4  magic "RSDA"
 *	4   2  version (1)
 *	6   2  flags: 0x1 the creation time is stored
 *	8   4  FileAttributes
 *	12  4  reserved, 0
 *	16  8  CreationTime (NTTIME)
 *
 * When there is no value, or the file system has no user xattrs,
 * everything falls back to what statx says (open_files.c).  Nothing here
 * is fatal: a failed or unreadable read means "not stored".
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "lib/dcerpc/xattr_dosattrib.h"
#include "lib/util/byteorder.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/share_names.h"
#include "source3/smbd/files/dosmode.h"
#include "source3/smbd/files/open_files.h"

#define RSDA_MAGIC		"RSDA"
#define RSDA_VERSION		1
#define RSDA_FLAG_CREATE_TIME	0x0001
#define RSDA_SIZE		24

static bool dm_parse_rsda(const uint8_t *b, size_t len,
			  struct smbd_dosmode *dm)
{
	if (len < RSDA_SIZE || memcmp(b, RSDA_MAGIC, 4) != 0 ||
	    pull_le16(b + 4) != RSDA_VERSION) {
		return false;
	}
	dm->attrs = pull_le32(b + 8) & SMBD_DOSMODE_STORED;
	dm->create_time = (pull_le16(b + 6) & RSDA_FLAG_CREATE_TIME) ?
		pull_le64(b + 16) : 0;
	return true;
}

static bool dm_parse_samba(const uint8_t *b, size_t len,
			   struct smbd_dosmode *dm)
{
	struct xattr_dosattrib x;
	uint32_t attrs = 0;

	if (!NT_STATUS_IS_OK(xattr_dosattrib_pull(b, len, &x))) {
		return false;
	}
	xattr_dosattrib_meaning(&x, &attrs, &dm->create_time);
	dm->attrs = attrs & SMBD_DOSMODE_STORED;
	return true;
}

/* status of reading the xattr, and its value in buf */
static NTSTATUS dm_parse(NTSTATUS status, const uint8_t *buf, size_t got,
			 struct smbd_dosmode *dm)
{
	if (!NT_STATUS_IS_OK(status)) {
		return status;          /* none stored, or no xattrs here */
	}
	if (dm_parse_rsda(buf, got, dm) || dm_parse_samba(buf, got, dm)) {
		return NT_STATUS_OK;
	}
	return NT_STATUS_OBJECT_NAME_NOT_FOUND;   /* unknown: ignored */
}

NTSTATUS smbd_dosmode_get(struct vfs_fh *fh, struct smbd_dosmode *dm)
{
	uint8_t buf[XATTR_DOSATTRIB_SIZE_MAX];
	size_t got = 0;
	NTSTATUS status = vfs_fgetxattr(fh, SMBD_DOSATTRIB_XATTR, buf,
					sizeof(buf), &got);

	return dm_parse(status, buf, got, dm);
}

/*
 * As Samba's set_ea_dos_attribute: version 5, both fields valid, the
 * creation time st gives when none was set.
 */
static NTSTATUS dm_store_st(struct vfs_fh *fh, const struct statx *st,
			    const struct smbd_dosmode *dm)
{
	struct xattr_dosattrib x = {
		.version = 5,
		.valid_flags = XATTR_DOSINFO_ATTRIB | XATTR_DOSINFO_CREATE_TIME,
		.attrib = dm->attrs & SMBD_DOSMODE_STORED,
		.create_time = dm->create_time,
	};
	uint8_t b[XATTR_DOSATTRIB_V5_SIZE];
	struct smb2_file_meta m;

	smbd_meta_from_statx(st, "", &m);
	if (m.is_dir) {
		x.attrib |= SMB2_FILE_ATTRIBUTE_DIRECTORY;
	}
	if (x.create_time == 0) {
		x.create_time = m.create_time;
	}
	if (xattr_dosattrib_push(&x, b, sizeof(b)) != sizeof(b)) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	return vfs_fsetxattr(fh, SMBD_DOSATTRIB_XATTR, b, sizeof(b), 0);
}

NTSTATUS smbd_dosmode_store(struct vfs_fh *fh, const struct smbd_dosmode *dm)
{
	struct statx st;
	NTSTATUS status = vfs_fstat(fh, &st);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return dm_store_st(fh, &st, dm);
}

NTSTATUS smbd_dosmode_store_new(struct vfs_fh *fh, const struct statx *st,
				uint32_t attrs)
{
	struct smbd_dosmode dm = { .attrs = attrs };

	return dm_store_st(fh, st, &dm);
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
	m->file_id = vfs_file_index(fh, st);
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

/*
 * A directory entry readdir called a regular file or directory: one statx
 * and one xattr lookup from the directory, no open (a listing's cost is
 * these calls, docs/performance.md "Workers").  Symlinks and unknown
 * types go through smbd_meta_at, which follows a link inside the share
 * only.  If the entry became a symlink meanwhile, statat follows it as
 * smbd_meta_at would, and its DOS attributes are the link's (none).
 */
NTSTATUS smbd_meta_in_dir(struct vfs_fh *dirfh, const char *dir_path,
			  const char *base, bool *xattrs,
			  struct smb2_file_meta *m)
{
	uint8_t buf[XATTR_DOSATTRIB_SIZE_MAX];
	struct smbd_dosmode dm;
	struct statx st;
	size_t got = 0;
	NTSTATUS status = vfs_statat(dirfh, dir_path, base, &st);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	smbd_meta_from_statx(&st, base, m);
	status = NT_STATUS_NOT_FOUND;
	if (*xattrs) {
		/* two statements: got is read only after the call set it */
		status = vfs_getxattrat(dirfh, base, SMBD_DOSATTRIB_XATTR, buf,
					sizeof(buf), &got);
		status = dm_parse(status, buf, got, &dm);
		if (NT_STATUS_IS_OK(status)) {
			smbd_dosmode_apply(&dm, m);
		} else if (NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED)) {
			*xattrs = false;
		}
	}
	m->attributes = smbd_names_attributes(dirfh->vfs, base,
					      m->attributes,
					      NT_STATUS_IS_OK(status));
	return NT_STATUS_OK;
}
