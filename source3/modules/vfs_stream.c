/*
 * The public calls for named streams (docs/vfs.md, "Named streams"):
 * dispatch from the top of the stack as in vfs.c, synchronous, run as
 * the handle's user (vfs_become) like every other metadata call.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "source3/modules/vfs.h"
#include "source3/modules/vfs_private.h"

int vfs_next_copy_range(struct vfs_module *m, struct vfs_fh *src,
			uint64_t src_off, struct vfs_fh *dst,
			uint64_t dst_off, uint64_t len, uint64_t *copied)
{
	m = m->next;
	VFS_FIND(m, copy_range);
	return m->ops->copy_range(m, src, src_off, dst, dst_off, len,
				  copied);
}

int vfs_next_seek_data(struct vfs_module *m, struct vfs_fh *fh,
		       uint64_t off, int whence, uint64_t *res)
{
	m = m->next;
	VFS_FIND(m, seek_data);
	return m->ops->seek_data(m, fh, off, whence, res);
}

/* A handle for stream of base's file: its own descriptor, same file. */
static NTSTATUS stream_fh_new(TALLOC_CTX *mem_ctx, struct vfs_fh *base,
			      const char *stream, struct vfs_fh **out)
{
	struct vfs_fh *fh = talloc_zero(mem_ctx, struct vfs_fh);

	if (fh == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	fh->vfs = base->vfs;
	fh->is_path_only = base->is_path_only;
	fh->fd = fcntl(base->fd, F_DUPFD_CLOEXEC, 0);
	if (fh->fd == -1) {
		int err = errno;

		talloc_free(fh);
		return ntstatus_from_errno(err);
	}
	talloc_set_destructor(fh, vfs_fh_destructor);
	fh->stream = talloc_strdup(fh, stream);
	if (fh->stream == NULL) {
		talloc_free(fh);
		return NT_STATUS_NO_MEMORY;
	}
	*out = fh;
	return NT_STATUS_OK;
}

NTSTATUS vfs_stream_open(TALLOC_CTX *mem_ctx, struct vfs_fh *base,
			 const char *stream, int flags, struct vfs_fh **out,
			 struct statx *st, bool *created)
{
	struct vfs_module *m = base->vfs->top;
	struct vfs_fh *fh = NULL;
	NTSTATUS status = stream_fh_new(mem_ctx, base, stream, &fh);
	int ret;

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	VFS_FIND(m, stream_open);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->stream_open(m, fh, flags, st);
		vfs_unbecome(fh->vfs);
	}
	if (ret < 0) {
		talloc_free(fh);
		return vfs_status(ret);
	}
	*created = ret == 1;
	*out = fh;
	return NT_STATUS_OK;
}

NTSTATUS vfs_stream_list(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			 struct vfs_stream **list, size_t *n)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	*list = NULL;
	*n = 0;
	VFS_FIND(m, stream_list);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->stream_list(m, mem_ctx, fh, list, n);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_stream_remove(struct vfs_fh *fh)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, stream_remove);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->stream_remove(m, fh);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_stream_rename(struct vfs_fh *fh, const char *new_name,
			   bool replace)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, stream_rename);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->stream_rename(m, fh, new_name, replace);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_stream_base_fstat(struct vfs_fh *fh, struct statx *st)
{
	/* the same descriptor, seen as the file's own data */
	struct vfs_fh base = *fh;

	base.stream = NULL;
	return vfs_fstat(&base, st);
}
