/*
 * The file layer shared by the file commands (CREATE, CLOSE, READ,
 * QUERY_DIRECTORY, QUERY_INFO): name conversion, metadata, directory
 * enumeration state.  The open table itself is declared in smbd.h.
 */
#ifndef RINGSMB_SMBD_FILES_H
#define RINGSMB_SMBD_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "lib/smb2/fileinfo.h"
#include "source3/smbd/smbd.h"

/* Opens per tree connect (RELIABILITY.md T7); then TOO_MANY_OPENED_FILES */
#define SMBD_MAX_OPENS_PER_TCON 16384

/* Access a tree connect grants at most (MS-SMB2 2.2.10 MaximalAccess) */
#define SMBD_FILE_GENERIC_READ		0x00120089
#define SMBD_FILE_GENERIC_WRITE		0x00120116
#define SMBD_FILE_GENERIC_EXECUTE	0x001200A0
#define SMBD_FILE_ALL_ACCESS		0x001F01FF
#define SMBD_MAX_ACCESS_READ_ONLY	0x001200A9

/* ---- filename.c ---- */

/*
 * A CREATE name (UTF-16LE) as a share-relative, '/'-separated UTF-8 path
 * ("" for the root), checked the way Windows and Samba check it:
 *   leading '\'                           INVALID_PARAMETER
 *   NUL, bad UTF-16                        INVALID_PARAMETER
 *   empty component, '.', wildcards,
 *   control characters, '/', too long,
 *   `..` above the root, bad stream syntax OBJECT_NAME_INVALID
 *   a named stream (x:s, x:s:$DATA)        OBJECT_NAME_NOT_FOUND
 * `x::$DATA` names the default stream of x (*is_stream set).  `..` that
 * stays inside the share is resolved here; symlinks are left to the VFS.
 */
NTSTATUS smbd_filename_convert(TALLOC_CTX *mem_ctx,
			       const struct smb2_blob *name16, char **path,
			       bool *is_stream);

/* The last component of a path ("" for the root). */
const char *smbd_filename_base(const char *path);

/* "\dir\file" in UTF-16LE, as FileNameInformation carries it. */
NTSTATUS smbd_filename_wire(TALLOC_CTX *mem_ctx, const char *path,
			    struct smb2_name16 *out);

/* ---- create_open.c ---- */

/* What CREATE asks of the file layer, already checked and mapped. */
struct smbd_create_params {
	const char *path;               /* share-relative */
	bool is_stream;                 /* x::$DATA */
	uint32_t access;                /* granted, generic rights mapped */
	uint32_t share_access;
	uint32_t disposition;
	uint32_t options;
	uint32_t attributes;            /* FileAttributes for a new file */
	uint64_t allocation_size;       /* AlSi for a new file, or 0 */
	bool read_only_share;
	uint8_t oplock_request;         /* RequestedOplockLevel */
	bool may_wait;                  /* for an oplock break (PENDING) */
};

struct smbd_create_result {
	struct vfs_fh *fh;
	struct statx st;
	uint32_t action;                /* SMB2_FILE_OPENED ... */
	uint8_t oplock_level;           /* granted */
	/* the name as on disk when it differs from p->path (casefold.c) */
	const char *path;
};

/*
 * Open or create p->path as the disposition says (MS-FSA 2.1.5.1):
 * OBJECT_NAME_COLLISION, NAME/PATH_NOT_FOUND, FILE_IS_A_DIRECTORY,
 * NOT_A_DIRECTORY, ACCESS_DENIED (read-only share or attribute),
 * CANNOT_DELETE, DELETE_PENDING and SHARING_VIOLATION (other opens) are
 * decided here, before anything on disk changes.  The caller attaches
 * the new open to the file table at once (smbd_file_attach).
 */
NTSTATUS smbd_create_open(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			  const struct smbd_create_params *p,
			  struct smbd_create_result *out);

/* ---- open_files.c ---- */

/* Fills what the encoders need from statx (DOS attributes as Samba). */
void smbd_meta_from_statx(const struct statx *st, const char *base,
			  struct smb2_file_meta *m);

/* Meta of an open, including the per-open fields (access, mode). */
NTSTATUS smbd_open_meta(struct smbd_open *open, struct smb2_file_meta *m);

/* ---- dosmode.c ---- */

/*
 * DOS attributes and the creation time, stored in an xattr (format in
 * dosmode.c and docs/vfs.md).  Without one, the attributes are derived
 * from statx as Samba does (smbd_meta_from_statx).
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

/* Stores both fields (fh may be O_PATH). */
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

/* ---- dir.c ---- */

struct smbd_dir_query {
	uint8_t info_class;
	uint8_t flags;                  /* SMB2_RESTART_SCANS ... */
	const char *pattern;            /* UTF-8, "" = "*" */
	uint32_t max_len;               /* OutputBufferLength */
};

/*
 * One QUERY_DIRECTORY call on an open directory: fills *out (talloc'd on
 * mem_ctx) with as many entries as fit, resuming where the last call
 * stopped.  NO_SUCH_FILE when nothing ever matched, NO_MORE_FILES at the
 * end, INFO_LENGTH_MISMATCH when not even one entry fits.
 */
NTSTATUS smbd_dir_query(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			const struct smbd_dir_query *q, uint8_t **out,
			size_t *out_len);

#endif
