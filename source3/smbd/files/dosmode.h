/*
 * DOS attributes and file metadata from the file system (dosmode.c).
 */
#ifndef RINGSMB_SMBD_DOSMODE_H
#define RINGSMB_SMBD_DOSMODE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "lib/smb2/fileinfo.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/open_files.h"

/*
 * DOS attributes and the creation time, stored in an xattr in Samba's
 * format (dosmode.c, docs/vfs.md), so Samba and ringsmb read each
 * other's.  Without one, the attributes are derived from statx as Samba
 * does (smbd_meta_from_statx).
 */
#define SMBD_DOSATTRIB_XATTR "user.DOSATTRIB"

/* The attributes that are stored; DIRECTORY always comes from statx. */
#define SMBD_DOSMODE_STORED (SMB2_FILE_ATTRIBUTE_READONLY | \
			     SMB2_FILE_ATTRIBUTE_HIDDEN | \
			     SMB2_FILE_ATTRIBUTE_SYSTEM | \
			     SMB2_FILE_ATTRIBUTE_ARCHIVE | \
			     SMB2_FILE_ATTRIBUTE_TEMPORARY | \
			     SMB2_FILE_ATTRIBUTE_OFFLINE | \
			     SMB2_FILE_ATTRIBUTE_NOT_CONTENT_INDEXED | \
			     SMB2_FILE_ATTRIBUTE_SPARSE_FILE)

struct smbd_dosmode {
	uint32_t attrs;                 /* SMBD_DOSMODE_STORED bits */
	uint64_t create_time;           /* NTTIME; 0: not stored */
};

/* What is stored; an error when nothing (readable) is. */
NTSTATUS smbd_dosmode_get(struct vfs_fh *fh, struct smbd_dosmode *dm);

/*
 * Stores both fields as Samba 4.17 does (fh may be O_PATH): a
 * create_time of 0 stores the one the file reports now.
 */
NTSTATUS smbd_dosmode_store(struct vfs_fh *fh,
			    const struct smbd_dosmode *dm);

/* What is stored, else the attributes statx gives (create_time 0). */
NTSTATUS smbd_dosmode_current(struct vfs_fh *fh, const char *base,
			      struct smbd_dosmode *dm);

/*
 * For CREATE: store the FileAttributes of a new file (or of an
 * overwritten one), keeping a stored creation time.  attrs as the client
 * sent them; bits that are not stored (DIRECTORY, NORMAL, ...) are
 * dropped.
 */
NTSTATUS smbd_dosmode_set(struct vfs_fh *fh, uint32_t attrs);

/*
 * For CREATE of a new file or directory, st its statx: stores attrs and
 * the birth time, with no read first (there is nothing to keep).
 */
NTSTATUS smbd_dosmode_store_new(struct vfs_fh *fh, const struct statx *st,
				uint32_t attrs);

/* Puts stored values over statx-derived metadata. */
void smbd_dosmode_apply(const struct smbd_dosmode *dm,
			struct smb2_file_meta *m);

/*
 * statx-derived metadata with the stored attributes and creation time:
 * what CREATE's response, QUERY_INFO and CLOSE report.
 */
NTSTATUS smbd_meta_from_fh(struct vfs_fh *fh, const struct statx *st,
			   const char *base, struct smb2_file_meta *m);

/*
 * The same for a share-relative path (directory listings).  *xattrs
 * starts true and is cleared once the file system refuses user xattrs.
 */
NTSTATUS smbd_meta_at(TALLOC_CTX *mem_ctx, struct vfs_handle *vfs,
		      const char *path, const char *base, bool *xattrs,
		      struct smb2_file_meta *m);

/*
 * The same for base, an entry of the open directory dirfh (share path
 * dir_path) that readdir said is a file or a directory: no open.
 */
NTSTATUS smbd_meta_in_dir(struct vfs_fh *dirfh, const char *dir_path,
			  const char *base, bool *xattrs,
			  struct smb2_file_meta *m);

#endif
