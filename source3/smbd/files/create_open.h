/*
 * Opening and creating files through the VFS as the user (create_open.c),
 * and the access a tree connect grants at most.
 */
#ifndef RINGSMB_SMBD_CREATE_OPEN_H
#define RINGSMB_SMBD_CREATE_OPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "lib/smb2/fileinfo.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/open_files.h"

/* Access a tree connect grants at most (MS-SMB2 2.2.10 MaximalAccess) */
#define SMBD_FILE_GENERIC_READ		0x00120089
#define SMBD_FILE_GENERIC_WRITE		0x00120116
#define SMBD_FILE_GENERIC_EXECUTE	0x001200A0
#define SMBD_FILE_ALL_ACCESS		0x001F01FF
#define SMBD_MAX_ACCESS_READ_ONLY	0x001200A9

/* What CREATE asks of the file layer, already checked and mapped. */
struct smbd_lease_req;

struct smbd_create_params {
	const char *path;               /* share-relative */
	bool is_stream;                 /* x::$DATA */
	const char *stream;             /* x:s: the named stream s, or NULL */
	uint32_t access;                /* granted, generic rights mapped */
	/*
	 * What the client asked for explicitly (generic rights mapped,
	 * without MAXIMUM_ALLOWED), whether it asked MAXIMUM_ALLOWED, and
	 * the share's most: with MAXIMUM_ALLOWED, access becomes requested
	 * plus what the file's descriptor (NT ACL share) and the kernel's
	 * open give, within max_access
	 */
	uint32_t requested;
	bool maximum_allowed;
	uint32_t max_access;
	/* the CREATE's SecD (a new file's descriptor), or NULL */
	const struct smb2_secdesc *secd;
	/*
	 * The caller stores a new file's descriptor itself
	 * (smbd_ntacl_create_apply), after the CREATE's EAs
	 */
	bool ntacl_by_caller;
	uint32_t share_access;
	uint32_t disposition;
	uint32_t options;
	uint32_t attributes;            /* FileAttributes for a new file */
	uint64_t allocation_size;       /* AlSi for a new file, or 0 */
	bool read_only_share;
	uint8_t oplock_request;         /* RequestedOplockLevel */
	/* with oplock_request LEASE: the RqLs asked for (lease.h), or NULL */
	const struct smbd_lease_req *lease;
	bool may_wait;                  /* for an oplock break (PENDING) */
	bool retry;                     /* run again after waiting */
};

struct smbd_create_result {
	struct vfs_fh *fh;
	struct statx st;
	uint32_t action;                /* SMB2_FILE_OPENED ... */
	uint8_t oplock_level;           /* granted */
	bool lease_granted;             /* p->lease (v2 on a directory) */
	uint32_t lease_state;           /* what it may hold */
	/* the name as on disk when it differs from p->path (casefold.c) */
	const char *path;
	/*
	 * access_set: the open gets access, not p->access (MAXIMUM_ALLOWED
	 * narrowed to what the kernel and the descriptor give);
	 * ntacl_checked: an NT ACL share's descriptor was checked and
	 * granted is what it grants
	 */
	bool access_set;
	bool ntacl_checked;
	uint32_t access;
	uint32_t granted;
};

/* NT ACL share: check an existing file's descriptor (create_open.c). */
NTSTATUS smbd_create_check_ntacl(struct smbd_tcon *tcon,
				 struct smbd_create_params *p,
				 struct smbd_create_result *out);

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

/*
 * The oplock and lease part of an open of out->st (create_open.c), given
 * the share-mode verdict status; PENDING: wait for a break, run again.
 */
NTSTATUS smbd_create_open_oplock(struct smbd_tcon *tcon,
				 const struct smbd_create_params *p,
				 struct smbd_create_result *out,
				 NTSTATUS status);

/*
 * Open or create the named stream p->stream of p->path (stream_open.c),
 * creating the file first when the disposition creates, as Windows does.
 */
NTSTATUS smbd_stream_create_open(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
				 const struct smbd_create_params *p,
				 struct smbd_create_result *out);

#endif
