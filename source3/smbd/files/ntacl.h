/*
 * NT ACLs on a share with "vfs objects = acl_xattr" (docs/vfs.md, "NT
 * ACLs"): each file's security descriptor is the one stored in its
 * security.NTACL xattr in Samba's format when Samba would still trust
 * that value, else the one mapped from its owner and mode
 * (secdesc.c).  That descriptor decides CREATE's access (as well as the
 * kernel's check as the user, which still applies underneath), a new
 * file's descriptor is inherited from its directory's, and setting one
 * stores it and keeps the mode and POSIX ACL in step so the kernel
 * grants what the DACL grants to Unix users and groups.
 */
#ifndef RINGSMB_SMBD_NTACL_H
#define RINGSMB_SMBD_NTACL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "lib/smb2/eainfo.h"
#include "lib/smb2/secdesc_access.h"
#include "source3/smbd/smbd.h"

/* The share keeps NT ACLs (vfs_acl_xattr is in its stack). */
bool smbd_ntacl_share(const struct smbd_tcon *tcon);

/*
 * The SIDs of the tree connect's user: S-1-22-1-uid, S-1-22-2-gid for
 * the primary and each supplementary group, Everyone, Network and,
 * unless a guest, Authenticated Users.  false: no memory.
 */
bool smbd_ntacl_token(TALLOC_CTX *mem_ctx, const struct smbd_tcon *tcon,
		      struct smb2_token *out);

/*
 * The descriptor that governs fh (st its statx): the stored one when
 * present and still trusted (Samba 4.17's rules, xattr_ntacl.h), else
 * the mapped one.  *stored says which.  On mem_ctx.
 */
NTSTATUS smbd_ntacl_get(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			const struct statx *st, struct smb2_secdesc *sd,
			bool *stored);

/*
 * CREATE of an existing file or directory: the rights its descriptor
 * grants the user, DELETE also when the directory's grants
 * FILE_DELETE_CHILD (looked at only when DELETE is requested or
 * maximum, MAXIMUM_ALLOWED, is).  ACCESS_DENIED when requested (generic rights
 * mapped, MAXIMUM_ALLOWED excluded) asks for more.  Root (and admin
 * users) are granted everything.
 */
NTSTATUS smbd_ntacl_check_open(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			       const char *path, struct vfs_fh *fh,
			       const struct statx *st, uint32_t requested,
			       bool maximum, uint32_t *granted);

/*
 * Before creating path: its directory's descriptor must grant
 * FILE_ADD_FILE (is_dir: FILE_ADD_SUBDIRECTORY), else ACCESS_DENIED.
 */
NTSTATUS smbd_ntacl_check_create(TALLOC_CTX *mem_ctx,
				 struct smbd_tcon *tcon, const char *path,
				 bool is_dir);

/*
 * After creating path (fh): its descriptor is stored, the owner and
 * group its own or the SecD's (given, or NULL), the DACL the SecD's as
 * given or else the one inherited from the directory
 * (smb2_secdesc_inherit), or else the one mapped from its mode, as
 * Samba stores one for every new file.
 */
NTSTATUS smbd_ntacl_create_apply(TALLOC_CTX *mem_ctx,
				 struct smbd_tcon *tcon, const char *path,
				 struct vfs_fh *fh,
				 const struct smb2_secdesc *given);

/*
 * SET_INFO SECURITY on such a share, access already checked: the parts
 * secinfo names replace the governing descriptor's, the owner only by
 * the user's own SID (or any Unix user's by root: a chown), the group
 * by a Unix group of the user's; the result is stored and mapped to the
 * mode and POSIX ACL.  A DACL with ACE types other than ACCESS_ALLOWED
 * and ACCESS_DENIED: NOT_SUPPORTED.
 */
NTSTATUS smbd_ntacl_set(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			struct vfs_fh *fh, const struct smb2_secdesc *sd,
			uint32_t secinfo);

/* QUERY_INFO SECURITY: the governing descriptor's parts secinfo asks. */
NTSTATUS smbd_ntacl_query(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			  uint32_t secinfo, uint8_t **out, size_t *out_len);

#endif
