/*
 * Whose rights the VFS acts with (docs/security.md, "Identity"): the
 * per-thread switch around synchronous calls (vfs_become), a hold over
 * a stretch of them (a directory listing), and the handle's ring
 * personality on each worker's ring.  Split from vfs.c, which holds the
 * stack and the dispatch of the operations.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "source3/modules/vfs.h"
#include "lib/util/debug.h"

/*
 * faccessat(2) of an open file as the handle's user: the kernel's answer
 * to "may this user write it" (mode bits, POSIX ACLs), for the access
 * checks the open itself does not make (DELETE).
 */
NTSTATUS vfs_faccess(struct vfs_fh *fh, int mode)
{
	int ret = vfs_become(fh->vfs);

	if (ret == 0) {
		ret = faccessat(fh->fd, "", mode,
				AT_EACCESS | AT_EMPTY_PATH) == 0 ? 0 : -errno;
		vfs_unbecome(fh->vfs);
	}
	return ret < 0 ? ntstatus_from_errno(-ret) : NT_STATUS_OK;
}

/*
 * The switch itself and the hold live in lib/util/unix_token.c: a hold
 * there survives every become/unbecome pair inside it, whoever makes
 * it (notify, personality registration), and the daemon's own calls
 * (token NULL) go to root for the call and back.
 */
int vfs_become(const struct vfs_handle *vfs)
{
	if (vfs->token == NULL) {
		return unix_token_become_root();
	}
	return unix_token_become(vfs->token);
}

void vfs_unbecome(const struct vfs_handle *vfs)
{
	unix_token_unbecome();
}

bool vfs_hold(const struct vfs_handle *vfs)
{
	return vfs != NULL && unix_token_hold(vfs->token);
}

void vfs_release(bool held)
{
	unix_token_release(held);
}

/*
 * The token belongs to the identity cache and is shared by every handle
 * with the same credentials; the table of per-ring ids is the one field
 * written after it is made, only here, under the server lock.
 */
uint16_t vfs_ring_personality(const struct vfs_handle *vfs,
			      struct uring *ring)
{
	struct unix_token *t = (struct unix_token *)(uintptr_t)vfs->token;
	int ret;
	size_t i;

	if (t == NULL || ring == NULL) {
		return 0;
	}
	if (t->personality_ring == (const void *)ring) {
		return t->personality;
	}
	for (i = 0; i < UNIX_TOKEN_MORE_RINGS; i++) {
		if (t->more_personalities[i].ring == (const void *)ring) {
			return t->more_personalities[i].id;
		}
		if (t->more_personalities[i].ring == NULL) {
			break;
		}
	}
	if (i == UNIX_TOKEN_MORE_RINGS || !uring_is_owner(ring) ||
	    unix_token_become(t) != 0) {
		return 0;
	}
	ret = uring_personality_register(ring);
	unix_token_unbecome();
	t->more_personalities[i].ring = ring;
	t->more_personalities[i].id = ret > 0 ? (uint16_t)ret : 0;
	if (ret <= 0) {
		DBG_NOTICE("no io_uring personality for uid %u on this "
			   "worker: %s\n", (unsigned)t->uid, strerror(-ret));
	}
	return t->more_personalities[i].id;
}

/* fh first: the pointer handed out is the talloc chunk */
struct vfs_fh_daemon {
	struct vfs_fh fh;
	struct vfs_handle vfs;
};

struct vfs_fh *vfs_fh_as_daemon(TALLOC_CTX *mem_ctx, struct vfs_fh *fh)
{
	struct vfs_fh_daemon *d = talloc_zero(mem_ctx, struct vfs_fh_daemon);

	if (d == NULL) {
		return NULL;
	}
	/* copies without their destructors: nothing is closed twice */
	d->vfs = *fh->vfs;
	d->vfs.token = NULL;
	d->fh = *fh;
	d->fh.vfs = &d->vfs;
	return &d->fh;
}
