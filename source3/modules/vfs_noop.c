/*
 * vfs_noop: measure the server without the file system.  Reads return
 * zeros (up to the file's size, so clients see normal EOF behaviour),
 * writes are discarded and reported as done, fsync does nothing.  Names,
 * metadata, directories and named streams (their data too) still come
 * from the modules below.
 */
#include <errno.h>
#include <string.h>
#include "source3/modules/vfs.h"

static struct tevent_req *noop_pread_send(struct vfs_module *m,
					  TALLOC_CTX *mem_ctx,
					  struct tevent_context *ev,
					  struct vfs_fh *fh, void *buf,
					  size_t len, uint64_t off)
{
	struct statx st;
	int ret = 0;
	size_t n = 0;

	if (fh->stream != NULL) {
		return vfs_next_pread_send(m, mem_ctx, ev, fh, buf, len, off);
	}
	ret = vfs_next_fstat(m, fh, &st);
	if (ret < 0) {
		return vfs_io_posted(mem_ctx, ev, -ret, 0);
	}
	if (off < st.stx_size) {
		n = st.stx_size - off < len ? (size_t)(st.stx_size - off) : len;
	}
	memset(buf, 0, n);
	return vfs_io_posted(mem_ctx, ev, 0, n);
}

static struct tevent_req *noop_pwrite_send(struct vfs_module *m,
					   TALLOC_CTX *mem_ctx,
					   struct tevent_context *ev,
					   struct vfs_fh *fh, const void *buf,
					   size_t len, uint64_t off)
{
	if (fh->stream != NULL) {
		return vfs_next_pwrite_send(m, mem_ctx, ev, fh, buf, len, off);
	}
	return vfs_io_posted(mem_ctx, ev, 0, len);
}

static struct tevent_req *noop_fsync_send(struct vfs_module *m,
					  TALLOC_CTX *mem_ctx,
					  struct tevent_context *ev,
					  struct vfs_fh *fh)
{
	return vfs_io_posted(mem_ctx, ev, 0, 0);
}

/* zeros have no pages to lend: READ copies them */
static struct tevent_req *noop_splice_read_send(struct vfs_module *m,
						TALLOC_CTX *mem_ctx,
						struct tevent_context *ev,
						struct vfs_fh *fh, int pipe_wr,
						size_t len, uint64_t off,
						void *keep)
{
	return vfs_io_posted(mem_ctx, ev, ENOSYS, 0);
}

/* the pipes must be emptied: the caller reads them and "writes" */
static struct tevent_req *noop_splice_write_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct uring_splice_src *src, unsigned n,
	uint64_t off, void *keep)
{
	return vfs_io_posted(mem_ctx, ev, ENOSYS, 0);
}

/* zeros are not the file's pages: READ copies them */
static int noop_map_read(struct vfs_module *m, struct vfs_fh *fh,
			 size_t len, void **addr)
{
	return -ENOSYS;
}

const struct vfs_ops vfs_noop_ops = {
	.name = "noop",
	.pread_send = noop_pread_send,
	.pwrite_send = noop_pwrite_send,
	.fsync_send = noop_fsync_send,
	.splice_read_send = noop_splice_read_send,
	.splice_write_send = noop_splice_write_send,
	.map_read = noop_map_read,
};
