/*
 * Names a share hides or refuses (Samba's "veto files", "hide files",
 * "hide dot files", "hide unreadable", "delete veto files"), parsed once
 * per tree connect and hung on its VFS handle (docs/security.md).
 */
#ifndef RINGSMB_SMBD_SHARE_NAMES_H
#define RINGSMB_SMBD_SHARE_NAMES_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/util/ntstatus.h"
#include "source3/modules/vfs.h"

struct lp_share;

/* Parses the share's lists onto vfs (vfs->names). */
NTSTATUS smbd_share_names_attach(struct vfs_handle *vfs,
				 const struct lp_share *share);

/* A final component vetoed: it cannot be opened, created or listed. */
bool smbd_name_vetoed(const struct vfs_handle *vfs, const char *base);

/*
 * A share-relative path with a vetoed component: OBJECT_NAME_NOT_FOUND
 * for the last one, OBJECT_PATH_NOT_FOUND for a directory on the way
 * (what Samba answers); OK otherwise.
 */
NTSTATUS smbd_path_vetoed(const struct vfs_handle *vfs, const char *path);

/*
 * DOS attributes with the share's hiding: HIDDEN for "hide files"
 * matches and, with "hide dot files", for dot names, over stored
 * attributes too (as Samba); without it no HIDDEN for dot names unless
 * it was stored.
 */
uint32_t smbd_names_attributes(const struct vfs_handle *vfs,
			       const char *base, uint32_t attrs,
			       bool stored);

/*
 * Whether a directory listing shows name: not vetoed, and with "hide
 * unreadable" readable by the user (dirfd: the directory, O_PATH ok).
 */
bool smbd_name_listed(const struct vfs_handle *vfs, int dirfd,
		      const char *name);

/* "delete veto files": rmdir may remove vetoed entries first. */
bool smbd_delete_veto_files(const struct vfs_handle *vfs);

#endif
