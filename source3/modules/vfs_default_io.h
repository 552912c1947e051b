/*
 * vfs_default's data I/O ops (vfs_default_io.c), for its op table in
 * vfs_default.c.
 */
#ifndef RINGSMB_VFS_DEFAULT_IO_H
#define RINGSMB_VFS_DEFAULT_IO_H

#include "source3/modules/vfs.h"

struct tevent_req *default_pread_send(struct vfs_module *m,
				      TALLOC_CTX *mem_ctx,
				      struct tevent_context *ev,
				      struct vfs_fh *fh, void *buf,
				      size_t len, uint64_t off);
struct tevent_req *default_splice_read_send(struct vfs_module *m,
					    TALLOC_CTX *mem_ctx,
					    struct tevent_context *ev,
					    struct vfs_fh *fh, int pipe_wr,
					    size_t len, uint64_t off,
					    void *keep);
struct tevent_req *default_splice_write_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx,
	struct tevent_context *ev, struct vfs_fh *fh,
	const struct uring_splice_src *src, unsigned n, uint64_t off,
	void *keep);
struct tevent_req *default_pwrite_send(struct vfs_module *m,
				       TALLOC_CTX *mem_ctx,
				       struct tevent_context *ev,
				       struct vfs_fh *fh, const void *buf,
				       size_t len, uint64_t off);
struct tevent_req *default_fsync_send(struct vfs_module *m,
				      TALLOC_CTX *mem_ctx,
				      struct tevent_context *ev,
				      struct vfs_fh *fh);

#endif
