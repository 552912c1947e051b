/*
 * The VFS stack: building a share's chain of modules, dispatching each op
 * to the first module that implements it, and the NTSTATUS edge.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "source3/modules/vfs.h"
#include "source3/modules/vfs_private.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"


static const struct vfs_ops *const vfs_registry[] = {
	&vfs_io_uring_ops,
	&vfs_noop_ops,
	&vfs_streams_xattr_ops,
	&vfs_acl_xattr_ops,
	&vfs_error_ops,
};

static const struct vfs_ops *vfs_lookup(const char *name)
{
	size_t i;

	/* Samba's spellings: "io_uring", also "vfs_io_uring" */
	if (strncmp(name, "vfs_", 4) == 0) {
		name += 4;
	}
	for (i = 0; i < sizeof(vfs_registry) / sizeof(vfs_registry[0]); i++) {
		if (strcmp(vfs_registry[i]->name, name) == 0) {
			return vfs_registry[i];
		}
	}
	return NULL;
}

static struct vfs_module *vfs_module_new(struct vfs_handle *vfs,
					 const struct vfs_ops *ops,
					 struct vfs_module *next)
{
	struct vfs_module *m = talloc_zero(vfs, struct vfs_module);

	if (m == NULL) {
		return NULL;
	}
	m->ops = ops;
	m->vfs = vfs;
	m->next = next;
	return m;
}

static int vfs_handle_destructor(struct vfs_handle *vfs)
{
	struct vfs_module *m = vfs->top;

	VFS_FIND(m, disconnect);
	if (m != NULL) {
		m->ops->disconnect(m);
	}
	if (vfs->root_fd != -1) {
		close(vfs->root_fd);
		vfs->root_fd = -1;
	}
	return 0;
}

/* The stack is built bottom-up: the first name listed is the top. */
static NTSTATUS vfs_build_stack(struct vfs_handle *vfs,
				const char *const *objects)
{
	size_t n = 0;
	struct vfs_module *m = vfs_module_new(vfs, &vfs_default_ops, NULL);

	if (m == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	while (objects != NULL && objects[n] != NULL) {
		n++;
	}
	while (n-- > 0) {
		const char *name = objects[n];
		const struct vfs_ops *ops = NULL;

		if (strcmp(name, "default") == 0 ||
		    strcmp(name, "vfs_default") == 0) {
			continue;
		}
		ops = vfs_lookup(name);
		if (ops == NULL) {
			DBG_ERR("share [%s]: unknown vfs object \"%s\"\n",
				vfs->share_name, name);
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		}
		m = vfs_module_new(vfs, ops, m);
		if (m == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	vfs->top = m;
	return NT_STATUS_OK;
}

NTSTATUS vfs_connect_path(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
			  const char *share_name, const char *path,
			  const char *const *vfs_objects,
			  bool io_uring_enabled, struct vfs_handle **out)
{
	return vfs_connect_params(mem_ctx, ev, share_name, path, vfs_objects,
				  NULL, 0, io_uring_enabled, out);
}

NTSTATUS vfs_connect_params(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
			    const char *share_name, const char *path,
			    const char *const *vfs_objects,
			    const struct lp_parametric *params, size_t n,
			    bool io_uring_enabled, struct vfs_handle **out)
{
	struct vfs_handle *vfs = talloc_zero(mem_ctx, struct vfs_handle);
	struct vfs_module *m = NULL;
	NTSTATUS status;
	int ret;

	if (vfs == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (!vfs_copy_params(vfs, params, n)) {
		talloc_free(vfs);
		return NT_STATUS_NO_MEMORY;
	}
	vfs->ev = ev;
	vfs->root_fd = -1;
	vfs->file_mode = 0644;
	vfs->dir_mode = 0755;
	vfs->io_uring_enabled = io_uring_enabled;
	vfs->share_name = talloc_strdup(vfs, share_name ? share_name : "");
	vfs->root_path = talloc_strdup(vfs, path);
	if (vfs->share_name == NULL || vfs->root_path == NULL) {
		talloc_free(vfs);
		return NT_STATUS_NO_MEMORY;
	}
	talloc_set_destructor(vfs, vfs_handle_destructor);

	status = vfs_build_stack(vfs, vfs_objects);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(vfs);
		return status;
	}
	m = vfs->top;
	VFS_FIND(m, connect);
	ret = m->ops->connect(m, path);
	if (ret < 0) {
		DBG_ERR("share [%s]: cannot open path \"%s\": %s\n",
			vfs->share_name, path, strerror(-ret));
		talloc_free(vfs);
		return ntstatus_from_errno(-ret);
	}
	*out = vfs;
	return NT_STATUS_OK;
}

/*
 * The share root is opened as the user: one who may not reach the path
 * cannot connect (ACCESS_DENIED), as with Samba's chdir at tree connect.
 */
NTSTATUS vfs_connect(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
		     const struct lp_share *share, bool io_uring_enabled,
		     const struct unix_token *token,
		     struct vfs_handle **out)
{
	struct vfs_handle probe = { .token = token };
	NTSTATUS status;
	int ret = vfs_become(&probe);

	if (ret < 0) {
		return ntstatus_from_errno(-ret);
	}
	status = vfs_connect_params(mem_ctx, ev, share->name, share->path,
				    (const char *const *)share->vfs_objects,
				    share->parametric, share->num_parametric,
				    io_uring_enabled, out);
	vfs_unbecome(&probe);
	if (NT_STATUS_IS_OK(status)) {
		(*out)->token = token;
	}
	return status;
}

uint64_t vfs_file_index(const struct vfs_fh *fh, const struct statx *st)
{
	struct statx base;

	/* fd is the stream's file (vfs_fh): no module to go through */
	if (fh->stream == NULL ||
	    statx(fh->fd, "", AT_EMPTY_PATH, STATX_INO, &base) != 0) {
		return st->stx_ino;
	}
	return base.stx_ino;
}

/* ---- passing a call down ---- */

int vfs_next_connect(struct vfs_module *m, const char *path)
{
	m = m->next;
	VFS_FIND(m, connect);
	return m->ops->connect(m, path);
}

void vfs_next_disconnect(struct vfs_module *m)
{
	m = m->next;
	VFS_FIND(m, disconnect);
	if (m != NULL) {
		m->ops->disconnect(m);
	}
}

int vfs_next_openat(struct vfs_module *m, const char *path, int flags,
		    int *fd, struct statx *st)
{
	m = m->next;
	VFS_FIND(m, openat);
	return m->ops->openat(m, path, flags, fd, st);
}

int vfs_next_fstat(struct vfs_module *m, struct vfs_fh *fh,
		   struct statx *st)
{
	m = m->next;
	VFS_FIND(m, fstat);
	return m->ops->fstat(m, fh, st);
}

int vfs_next_statat(struct vfs_module *m, struct vfs_fh *dirfh,
		    const char *dir_path, const char *name, struct statx *st)
{
	m = m->next;
	VFS_FIND(m, statat);
	return m->ops->statat(m, dirfh, dir_path, name, st);
}

int vfs_next_statvfs(struct vfs_module *m, struct statvfs *st)
{
	m = m->next;
	VFS_FIND(m, statvfs);
	return m->ops->statvfs(m, st);
}

struct tevent_req *vfs_next_pread_send(struct vfs_module *m,
				       TALLOC_CTX *mem_ctx,
				       struct tevent_context *ev,
				       struct vfs_fh *fh, void *buf,
				       size_t len, uint64_t off)
{
	m = m->next;
	VFS_FIND(m, pread_send);
	return m->ops->pread_send(m, mem_ctx, ev, fh, buf, len, off);
}

struct tevent_req *vfs_next_pwrite_send(struct vfs_module *m,
					TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct vfs_fh *fh, const void *buf,
					size_t len, uint64_t off)
{
	m = m->next;
	VFS_FIND(m, pwrite_send);
	return m->ops->pwrite_send(m, mem_ctx, ev, fh, buf, len, off);
}

struct tevent_req *vfs_next_splice_read_send(struct vfs_module *m,
					     TALLOC_CTX *mem_ctx,
					     struct tevent_context *ev,
					     struct vfs_fh *fh, int pipe_wr,
					     size_t len, uint64_t off,
					     void *keep)
{
	m = m->next;
	VFS_FIND(m, splice_read_send);
	return m->ops->splice_read_send(m, mem_ctx, ev, fh, pipe_wr, len,
					off, keep);
}

int vfs_next_map_read(struct vfs_module *m, struct vfs_fh *fh, size_t len,
		      void **addr)
{
	m = m->next;
	VFS_FIND(m, map_read);
	if (m == NULL) {
		return -ENOSYS;
	}
	return m->ops->map_read(m, fh, len, addr);
}

struct tevent_req *vfs_next_splice_write_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct uring_splice_src *src, unsigned n,
	uint64_t off, void *keep)
{
	m = m->next;
	VFS_FIND(m, splice_write_send);
	return m->ops->splice_write_send(m, mem_ctx, ev, fh, src, n, off,
					 keep);
}

struct tevent_req *vfs_next_fsync_send(struct vfs_module *m,
				       TALLOC_CTX *mem_ctx,
				       struct tevent_context *ev,
				       struct vfs_fh *fh)
{
	m = m->next;
	VFS_FIND(m, fsync_send);
	return m->ops->fsync_send(m, mem_ctx, ev, fh);
}

int vfs_next_mkdirat(struct vfs_module *m, const char *path, mode_t mode)
{
	m = m->next;
	VFS_FIND(m, mkdirat);
	return m->ops->mkdirat(m, path, mode);
}

int vfs_next_unlinkat(struct vfs_module *m, const char *path, int flags)
{
	m = m->next;
	VFS_FIND(m, unlinkat);
	return m->ops->unlinkat(m, path, flags);
}

int vfs_next_renameat(struct vfs_module *m, const char *src,
		      const char *dst, unsigned int flags)
{
	m = m->next;
	VFS_FIND(m, renameat);
	return m->ops->renameat(m, src, dst, flags);
}

int vfs_next_linkat(struct vfs_module *m, const char *src, const char *dst)
{
	m = m->next;
	VFS_FIND(m, linkat);
	return m->ops->linkat(m, src, dst);
}

int vfs_next_ftruncate(struct vfs_module *m, struct vfs_fh *fh,
		       uint64_t len)
{
	m = m->next;
	VFS_FIND(m, ftruncate);
	return m->ops->ftruncate(m, fh, len);
}

int vfs_next_fallocate(struct vfs_module *m, struct vfs_fh *fh, int mode,
		       uint64_t off, uint64_t len)
{
	m = m->next;
	VFS_FIND(m, fallocate);
	return m->ops->fallocate(m, fh, mode, off, len);
}

int vfs_next_fntimes(struct vfs_module *m, struct vfs_fh *fh,
		     const struct timespec ts[2])
{
	m = m->next;
	VFS_FIND(m, fntimes);
	return m->ops->fntimes(m, fh, ts);
}

int vfs_next_fchmod(struct vfs_module *m, struct vfs_fh *fh, mode_t mode)
{
	m = m->next;
	VFS_FIND(m, fchmod);
	return m->ops->fchmod(m, fh, mode);
}

int vfs_next_fgetxattr(struct vfs_module *m, struct vfs_fh *fh,
		       const char *name, void *buf, size_t len)
{
	m = m->next;
	VFS_FIND(m, fgetxattr);
	return m->ops->fgetxattr(m, fh, name, buf, len);
}

int vfs_next_fsetxattr(struct vfs_module *m, struct vfs_fh *fh,
		       const char *name, const void *buf, size_t len,
		       int flags)
{
	m = m->next;
	VFS_FIND(m, fsetxattr);
	return m->ops->fsetxattr(m, fh, name, buf, len, flags);
}

int vfs_next_flistxattr(struct vfs_module *m, struct vfs_fh *fh, char *buf,
			size_t len)
{
	m = m->next;
	VFS_FIND(m, flistxattr);
	return m->ops->flistxattr(m, fh, buf, len);
}

int vfs_next_fremovexattr(struct vfs_module *m, struct vfs_fh *fh,
			  const char *name)
{
	m = m->next;
	VFS_FIND(m, fremovexattr);
	return m->ops->fremovexattr(m, fh, name);
}

/* ---- the public calls: dispatch from the top, errno -> NTSTATUS ---- */

NTSTATUS vfs_status(int ret)
{
	return ret < 0 ? ntstatus_from_errno(-ret) : NT_STATUS_OK;
}

int vfs_fh_destructor(struct vfs_fh *fh)
{
	if (fh->fd != -1) {
		close(fh->fd);
		fh->fd = -1;
	}
	return 0;
}

NTSTATUS vfs_openat(TALLOC_CTX *mem_ctx, struct vfs_handle *vfs,
		    const char *path, int flags, struct vfs_fh **out,
		    struct statx *st)
{
	struct vfs_module *m = vfs->top;
	struct vfs_fh *fh = NULL;
	struct statx local;
	int fd = -1;
	int ret;

	fh = talloc_zero(mem_ctx, struct vfs_fh);
	if (fh == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	VFS_FIND(m, openat);
	ret = vfs_become(vfs);
	if (ret == 0) {
		ret = m->ops->openat(m, path, flags, &fd, st ? st : &local);
		vfs_unbecome(vfs);
	}
	if (ret < 0) {
		talloc_free(fh);
		/*
		 * open(2) answers EWOULDBLOCK only to a non-blocking open
		 * of a file someone holds a lease on (fcntl(2) F_SETLEASE:
		 * a local process, an NFS server, or our own kernel
		 * oplocks); the lease is being broken.  Samba calls it
		 * NETWORK_BUSY too.  Data opens are non-blocking (see
		 * vfs_default.c), so the server never sleeps in open(2).
		 */
		return ret == -EWOULDBLOCK ? NT_STATUS_NETWORK_BUSY :
			ntstatus_from_errno(-ret);
	}
	fh->vfs = vfs;
	fh->fd = fd;
	fh->is_path_only = (flags & O_PATH) != 0;
	talloc_set_destructor(fh, vfs_fh_destructor);
	*out = fh;
	return NT_STATUS_OK;
}

NTSTATUS vfs_fstat(struct vfs_fh *fh, struct statx *st)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, fstat);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->fstat(m, fh, st);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_statat(struct vfs_fh *dirfh, const char *dir_path,
		    const char *name, struct statx *st)
{
	struct vfs_module *m = dirfh->vfs->top;
	int ret;

	VFS_FIND(m, statat);
	ret = vfs_become(dirfh->vfs);
	if (ret == 0) {
		ret = m->ops->statat(m, dirfh, dir_path, name, st);
		vfs_unbecome(dirfh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_statvfs(struct vfs_handle *vfs, struct statvfs *st)
{
	struct vfs_module *m = vfs->top;
	int ret;

	VFS_FIND(m, statvfs);
	ret = vfs_become(vfs);
	if (ret == 0) {
		ret = m->ops->statvfs(m, st);
		vfs_unbecome(vfs);
	}
	return vfs_status(ret);
}

/* ---- the namespace and metadata ---- */

NTSTATUS vfs_mkdirat(struct vfs_handle *vfs, const char *path, mode_t mode)
{
	struct vfs_module *m = vfs->top;
	int ret;

	VFS_FIND(m, mkdirat);
	ret = vfs_become(vfs);
	if (ret == 0) {
		ret = m->ops->mkdirat(m, path, mode);
		vfs_unbecome(vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_unlinkat(struct vfs_handle *vfs, const char *path, int flags)
{
	struct vfs_module *m = vfs->top;
	int ret;

	VFS_FIND(m, unlinkat);
	ret = vfs_become(vfs);
	if (ret == 0) {
		ret = m->ops->unlinkat(m, path, flags);
		vfs_unbecome(vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_renameat(struct vfs_handle *vfs, const char *src,
		      const char *dst, unsigned int flags)
{
	struct vfs_module *m = vfs->top;
	int ret;

	VFS_FIND(m, renameat);
	ret = vfs_become(vfs);
	if (ret == 0) {
		ret = m->ops->renameat(m, src, dst, flags);
		vfs_unbecome(vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_linkat(struct vfs_handle *vfs, const char *src,
		    const char *dst)
{
	struct vfs_module *m = vfs->top;
	int ret;

	VFS_FIND(m, linkat);
	ret = vfs_become(vfs);
	if (ret == 0) {
		ret = m->ops->linkat(m, src, dst);
		vfs_unbecome(vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_ftruncate(struct vfs_fh *fh, uint64_t len)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	if (len > INT64_MAX) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	VFS_FIND(m, ftruncate);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->ftruncate(m, fh, len);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_fallocate(struct vfs_fh *fh, int mode, uint64_t off,
		       uint64_t len)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	if (off > INT64_MAX || len > INT64_MAX - off) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	VFS_FIND(m, fallocate);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->fallocate(m, fh, mode, off, len);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_fntimes(struct vfs_fh *fh, const struct timespec ts[2])
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, fntimes);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->fntimes(m, fh, ts);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

/*
 * Samba's "dos filetimes" (default yes): a user who may write a file may
 * set its times, as on Windows, although utimensat(2) with explicit
 * times wants the owner.  The kernel's own W_OK answer decides; then the
 * daemon sets them.
 */
NTSTATUS vfs_fntimes_writer(struct vfs_fh *fh, const struct timespec ts[2])
{
	struct vfs_module *m = fh->vfs->top;
	NTSTATUS status = vfs_fntimes(fh, ts);
	int ret;

	if (!NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED) ||
	    fh->vfs->token == NULL ||
	    !NT_STATUS_IS_OK(vfs_faccess(fh, W_OK))) {
		return status;
	}
	VFS_FIND(m, fntimes);
	/* the daemon's rights, also inside a request's hold */
	ret = unix_token_become_root();
	if (ret == 0) {
		ret = m->ops->fntimes(m, fh, ts);
		unix_token_unbecome();
	}
	return vfs_status(ret);
}

NTSTATUS vfs_fchmod(struct vfs_fh *fh, mode_t mode)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, fchmod);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->fchmod(m, fh, mode & 07777);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_fgetxattr(struct vfs_fh *fh, const char *name, void *buf,
		       size_t len, size_t *got)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, fgetxattr);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->fgetxattr(m, fh, name, buf, len);
		vfs_unbecome(fh->vfs);
	}
	if (ret < 0) {
		return ntstatus_from_errno(-ret);
	}
	*got = (size_t)ret;
	return NT_STATUS_OK;
}

NTSTATUS vfs_getxattrat(struct vfs_fh *dirfh, const char *entry,
			const char *attr, void *buf, size_t len, size_t *got)
{
	struct vfs_module *m = dirfh->vfs->top;
	int ret;

	VFS_FIND(m, getxattrat);
	if (m == NULL || strchr(entry, '/') != NULL ||
	    strcmp(entry, "..") == 0 || strcmp(entry, ".") == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	ret = vfs_become(dirfh->vfs);
	if (ret == 0) {
		ret = m->ops->getxattrat(m, dirfh, entry, attr, buf, len);
		vfs_unbecome(dirfh->vfs);
	}
	if (ret < 0) {
		return ntstatus_from_errno(-ret);
	}
	*got = (size_t)ret;
	return NT_STATUS_OK;
}

NTSTATUS vfs_fsetxattr(struct vfs_fh *fh, const char *name,
		       const void *buf, size_t len, int flags)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, fsetxattr);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->fsetxattr(m, fh, name, buf, len, flags);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_copy_range(struct vfs_fh *src, uint64_t src_off,
			struct vfs_fh *dst, uint64_t dst_off, uint64_t len,
			uint64_t *copied)
{
	struct vfs_module *m = dst->vfs->top;
	int ret;

	*copied = 0;
	if (src_off > INT64_MAX || len > INT64_MAX - src_off ||
	    dst_off > INT64_MAX || len > INT64_MAX - dst_off) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	VFS_FIND(m, copy_range);
	ret = vfs_become(dst->vfs);
	if (ret == 0) {
		ret = m->ops->copy_range(m, src, src_off, dst, dst_off,
				     len, copied);
		vfs_unbecome(dst->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_data_extent(struct vfs_fh *fh, uint64_t off, uint64_t *start,
			 uint64_t *end)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	if (off > INT64_MAX) {
		return NT_STATUS_END_OF_FILE;
	}
	VFS_FIND(m, seek_data);
	ret = m->ops->seek_data(m, fh, off, SEEK_DATA, start);
	if (ret == -ENXIO) {
		return NT_STATUS_END_OF_FILE;
	}
	if (ret == 0) {
		ret = m->ops->seek_data(m, fh, *start, SEEK_HOLE, end);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_flistxattr(struct vfs_fh *fh, char *buf, size_t len,
			size_t *got)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, flistxattr);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->flistxattr(m, fh, buf, len);
		vfs_unbecome(fh->vfs);
	}
	if (ret < 0) {
		return ntstatus_from_errno(-ret);
	}
	*got = (size_t)ret;
	return NT_STATUS_OK;
}

NTSTATUS vfs_fremovexattr(struct vfs_fh *fh, const char *name)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, fremovexattr);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->fremovexattr(m, fh, name);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

/* ---- async I/O ---- */

void vfs_io_done(struct tevent_req *req, size_t count)
{
	struct vfs_io_state *state = _tevent_req_data(req);

	state->count = count;
	tevent_req_done(req);
}

struct vfs_posted_state {
	struct vfs_io_state io;
};

struct tevent_req *vfs_io_posted(TALLOC_CTX *mem_ctx,
				 struct tevent_context *ev, int err,
				 size_t count)
{
	struct vfs_posted_state *state = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct vfs_posted_state);

	if (req == NULL) {
		return NULL;
	}
	if (err != 0) {
		tevent_req_error(req, err);
	} else {
		vfs_io_done(req, count);
	}
	return tevent_req_post(req, ev);
}

int vfs_io_recv(struct tevent_req *req, size_t *count)
{
	struct vfs_io_state *state = _tevent_req_data(req);
	enum tevent_req_state rs;
	uint64_t err = 0;

	if (tevent_req_is_error(req, &rs, &err)) {
		if (rs == TEVENT_REQ_USER_ERROR && err != 0) {
			return -(int)err;
		}
		return rs == TEVENT_REQ_NO_MEMORY ? -ENOMEM : -EIO;
	}
	if (count != NULL) {
		*count = state->count;
	}
	return 0;
}

/* An I/O range that a file may not hold. */
static bool vfs_range_invalid(uint64_t off, size_t len)
{
	return off > INT64_MAX || (uint64_t)len > INT64_MAX - off;
}

/* A request that fails with err once the event loop runs. */
static struct tevent_req *vfs_io_fail(TALLOC_CTX *mem_ctx,
				      struct tevent_context *ev, int err)
{
	struct vfs_io_state *state = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct vfs_io_state);

	if (req == NULL) {
		return NULL;
	}
	tevent_req_error(req, err);
	return tevent_req_post(req, ev);
}

struct tevent_req *vfs_pread_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct vfs_fh *fh, void *buf, size_t len,
				  uint64_t off)
{
	struct vfs_module *m = fh->vfs->top;

	if (vfs_range_invalid(off, len)) {
		return vfs_io_fail(mem_ctx, ev, EINVAL);
	}
	VFS_FIND(m, pread_send);
	return m->ops->pread_send(m, mem_ctx, ev, fh, buf, len, off);
}

NTSTATUS vfs_pread_recv(struct tevent_req *req, size_t *nread)
{
	return vfs_status(vfs_io_recv(req, nread));
}

struct tevent_req *vfs_splice_read_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct vfs_fh *fh, int pipe_wr,
					size_t len, uint64_t off, void *keep)
{
	struct vfs_module *m = fh->vfs->top;

	if (vfs_range_invalid(off, len)) {
		return vfs_io_fail(mem_ctx, ev, EINVAL);
	}
	VFS_FIND(m, splice_read_send);
	return m->ops->splice_read_send(m, mem_ctx, ev, fh, pipe_wr, len,
					off, keep);
}

int vfs_splice_read_recv(struct tevent_req *req, size_t *nspliced)
{
	return vfs_io_recv(req, nspliced);
}

int vfs_map_read(struct vfs_fh *fh, size_t len, void **addr)
{
	struct vfs_module *m = fh->vfs->top;

	if (len == 0 || fh->is_path_only) {
		return -EINVAL;
	}
	VFS_FIND(m, map_read);
	if (m == NULL) {
		return -ENOSYS;
	}
	return m->ops->map_read(m, fh, len, addr);
}

struct tevent_req *vfs_splice_write_send(TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct vfs_fh *fh,
					 const struct uring_splice_src *src,
					 unsigned n, uint64_t off, void *keep)
{
	struct vfs_module *m = fh->vfs->top;
	size_t len = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		len += src[i].len;
	}
	if (vfs_range_invalid(off, len)) {
		return vfs_io_fail(mem_ctx, ev, EINVAL);
	}
	VFS_FIND(m, splice_write_send);
	return m->ops->splice_write_send(m, mem_ctx, ev, fh, src, n, off,
					 keep);
}

int vfs_splice_write_recv(struct tevent_req *req, size_t *nwritten)
{
	return vfs_io_recv(req, nwritten);
}

NTSTATUS vfs_errno_status(int ret)
{
	return vfs_status(ret);
}

struct tevent_req *vfs_pwrite_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct vfs_fh *fh, const void *buf,
				   size_t len, uint64_t off)
{
	struct vfs_module *m = fh->vfs->top;

	if (vfs_range_invalid(off, len)) {
		return vfs_io_fail(mem_ctx, ev, EINVAL);
	}
	VFS_FIND(m, pwrite_send);
	return m->ops->pwrite_send(m, mem_ctx, ev, fh, buf, len, off);
}

NTSTATUS vfs_pwrite_recv(struct tevent_req *req, size_t *nwritten)
{
	return vfs_status(vfs_io_recv(req, nwritten));
}

struct tevent_req *vfs_fsync_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct vfs_fh *fh)
{
	struct vfs_module *m = fh->vfs->top;

	VFS_FIND(m, fsync_send);
	return m->ops->fsync_send(m, mem_ctx, ev, fh);
}

NTSTATUS vfs_fsync_recv(struct tevent_req *req)
{
	return vfs_status(vfs_io_recv(req, NULL));
}

/* ---- enumeration ---- */

NTSTATUS vfs_opendir(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
		     struct vfs_dir **out)
{
	struct vfs_module *m = fh->vfs->top;
	int ret;

	VFS_FIND(m, opendir);
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = m->ops->opendir(m, mem_ctx, fh, out);
		vfs_unbecome(fh->vfs);
	}
	return vfs_status(ret);
}

NTSTATUS vfs_readdir(struct vfs_dir *dir, struct vfs_dirent *ent)
{
	struct vfs_module *m = dir->fh->vfs->top;
	int ret;

	VFS_FIND(m, readdir);
	ret = m->ops->readdir(m, dir, ent);
	if (ret == 0) {
		return NT_STATUS_NO_MORE_FILES;
	}
	return vfs_status(ret);
}

NTSTATUS vfs_rewinddir(struct vfs_dir *dir)
{
	struct vfs_module *m = dir->fh->vfs->top;

	VFS_FIND(m, rewinddir);
	return vfs_status(m->ops->rewinddir(m, dir));
}
