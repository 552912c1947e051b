/*
 * What vfs.c shares with vfs_stream.c (the public calls of the stack),
 * not for modules.
 */
#ifndef RINGSMB_VFS_PRIVATE_H
#define RINGSMB_VFS_PRIVATE_H

#include "source3/modules/vfs.h"

/* Samba's VFS_FIND: skip modules that leave the op to the next one. */
#define VFS_FIND(m, op) do { \
	while ((m) != NULL && (m)->ops->op == NULL) { \
		(m) = (m)->next; \
	} \
} while (0)

/* -errno or a count -> NTSTATUS (the one table) */
NTSTATUS vfs_status(int ret);
/* closes fh->fd: every vfs_fh gets it */
int vfs_fh_destructor(struct vfs_fh *fh);

/*
 * vfs_params.c: params[0, n) copied onto vfs (vfs_parametric reads
 * them); false: no memory.
 */
struct lp_parametric;
bool vfs_copy_params(struct vfs_handle *vfs,
		     const struct lp_parametric *params, size_t n);

#endif
