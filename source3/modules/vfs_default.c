/*
 * vfs_default: the bottom of every stack.  Synchronous POSIX calls on
 * paths resolved beneath the share root with openat2().  The data I/O
 * ops are in vfs_default_io.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "source3/modules/vfs.h"
#include "source3/modules/vfs_default_io.h"

/*
 * RESOLVE_BENEATH refuses `..` above the root, absolute symlinks and
 * symlinks whose target leaves the root (EXDEV); NO_MAGICLINKS refuses
 * /proc/self/fd/N-style jumps.  Relative symlinks inside the share work.
 */
#define VFS_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

#define VFS_STATX_MASK (STATX_BASIC_STATS | STATX_BTIME)

/* openat2 may fail with EAGAIN while racing a rename: retry a few times */
#define VFS_OPENAT2_TRIES 8

/* getdents64 buffer per enumeration */
#define VFS_DIRBUF_SIZE (32 * 1024)

static int default_openat2(int dirfd, const char *path, int flags,
			   mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = VFS_RESOLVE,
	};
	int i;
	long fd = -1;

	if (path[0] == '\0') {
		path = ".";
	}
	/* openat2 is strict: a mode only with O_CREAT, else EINVAL */
	if (flags & O_CREAT) {
		how.mode = mode;
	}
	/* openat2 is strict: O_PATH takes no O_NOCTTY (EINVAL) */
	if ((flags & O_PATH) == 0) {
		how.flags |= O_NOCTTY;
	}
	for (i = 0; i < VFS_OPENAT2_TRIES; i++) {
		fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN) {
			break;
		}
	}
	return fd < 0 ? -errno : (int)fd;
}

static int default_fstatx(int fd, struct statx *st)
{
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT,
		  VFS_STATX_MASK, st) != 0) {
		return -errno;
	}
	return 0;
}

static int default_connect(struct vfs_module *m, const char *path)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		return -errno;
	}
	m->vfs->root_fd = fd;
	return 0;
}

static void default_disconnect(struct vfs_module *m)
{
	/* the handle's destructor closes the root fd */
}

/*
 * Data opens are non-blocking so that a FIFO in the share cannot stall
 * the event loop; for regular files the flag is cleared again, because
 * io_uring answers EAGAIN instead of waiting on O_NONBLOCK files.
 */
static int default_openat(struct vfs_module *m, const char *path, int flags,
			  int *fdp, struct statx *st)
{
	bool nonblock = (flags & O_PATH) == 0;
	int fd = default_openat2(m->vfs->root_fd, path,
				 nonblock ? flags | O_NONBLOCK : flags,
				 m->vfs->file_mode);
	int ret;

	if (fd < 0) {
		return fd;
	}
	ret = default_fstatx(fd, st);
	if (ret == 0 && nonblock && S_ISREG(st->stx_mode) &&
	    (flags & O_NONBLOCK) == 0 &&
	    fcntl(fd, F_SETFL, flags) != 0) {
		ret = -errno;
	}
	if (ret < 0) {
		close(fd);
		return ret;
	}
	*fdp = fd;
	return 0;
}

static int default_fstat(struct vfs_module *m, struct vfs_fh *fh,
			 struct statx *st)
{
	return default_fstatx(fh->fd, st);
}

/* no switch: the descriptor was opened for reading by its user */
static int default_map_read(struct vfs_module *m, struct vfs_fh *fh,
			    size_t len, void **addr)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fh->fd, 0);

	if (p == MAP_FAILED) {
		return -errno;
	}
	*addr = p;
	return 0;
}

static int default_stat_beneath(struct vfs_module *m, const char *dir_path,
				const char *name, struct statx *st)
{
	char *path = NULL;
	int fd;
	int ret;

	path = dir_path[0] == '\0' ?
		talloc_strdup(m, name) :
		talloc_asprintf(m, "%s/%s", dir_path, name);
	if (path == NULL) {
		return -ENOMEM;
	}
	fd = default_openat2(m->vfs->root_fd, path, O_PATH, 0);
	talloc_free(path);
	if (fd < 0) {
		return fd;
	}
	ret = default_fstatx(fd, st);
	close(fd);
	return ret;
}

/*
 * name is one component from readdir.  Most entries are not symlinks and
 * cost one statx; a symlink is followed only as far as it stays in the
 * share (resolved again from the root), so a listing never shows what
 * lies outside it.
 */
static int default_statat(struct vfs_module *m, struct vfs_fh *dirfh,
			  const char *dir_path, const char *name,
			  struct statx *st)
{
	if (strchr(name, '/') != NULL || strcmp(name, "..") == 0) {
		return -EINVAL;
	}
	if (statx(dirfh->fd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT,
		  VFS_STATX_MASK, st) != 0) {
		return -errno;
	}
	if (!S_ISLNK(st->stx_mode)) {
		return 0;
	}
	return default_stat_beneath(m, dir_path, name, st);
}

static int default_statvfs(struct vfs_module *m, struct statvfs *st)
{
	if (fstatvfs(m->vfs->root_fd, st) != 0) {
		return -errno;
	}
	return 0;
}

/* ---- the namespace ---- */

/*
 * The directory holding path's last component, opened beneath the root
 * (the root's own fd when path has no '/'); *base points into path.
 * Returns the fd, which the caller closes unless it is the root's.
 */
static int default_parent(struct vfs_module *m, const char *path,
			  const char **base)
{
	const char *slash = strrchr(path, '/');
	char *dir = NULL;
	int fd;

	*base = slash ? slash + 1 : path;
	if (**base == '\0' || strcmp(*base, ".") == 0 ||
	    strcmp(*base, "..") == 0) {
		return -EINVAL;
	}
	if (slash == NULL) {
		return m->vfs->root_fd;
	}
	dir = talloc_strndup(m, path, (size_t)(slash - path));
	if (dir == NULL) {
		return -ENOMEM;
	}
	fd = default_openat2(m->vfs->root_fd, dir, O_PATH | O_DIRECTORY,
			     0);
	talloc_free(dir);
	return fd;
}

static void default_parent_close(struct vfs_module *m, int fd)
{
	if (fd >= 0 && fd != m->vfs->root_fd) {
		close(fd);
	}
}

/* An operation on (directory fd, last component), -errno on failure. */
typedef int (*default_at_fn)(int dfd, const char *base, const void *arg);

/* Runs fn on path's parent, resolved beneath the share root. */
static int default_in_parent(struct vfs_module *m, const char *path,
			     default_at_fn fn, const void *arg)
{
	const char *base = NULL;
	int dfd = default_parent(m, path, &base);
	int ret;

	if (dfd < 0) {
		return dfd;
	}
	ret = fn(dfd, base, arg);
	default_parent_close(m, dfd);
	return ret;
}

/* An operation on two (directory fd, last component) pairs. */
typedef int (*default_at2_fn)(int sfd, const char *sbase, int dfd,
			      const char *dbase, unsigned int flags);

static int default_in_parents(struct vfs_module *m, const char *src,
			      const char *dst, default_at2_fn fn,
			      unsigned int flags)
{
	const char *sbase = NULL, *dbase = NULL;
	int sfd = default_parent(m, src, &sbase);
	int dfd = sfd < 0 ? sfd : default_parent(m, dst, &dbase);
	int ret;

	if (sfd < 0 || dfd < 0) {
		default_parent_close(m, sfd);
		return sfd < 0 ? sfd : dfd;
	}
	ret = fn(sfd, sbase, dfd, dbase, flags);
	default_parent_close(m, sfd);
	default_parent_close(m, dfd);
	return ret;
}

static int do_mkdirat(int dfd, const char *base, const void *arg)
{
	return mkdirat(dfd, base, *(const mode_t *)arg) != 0 ? -errno : 0;
}

static int do_unlinkat(int dfd, const char *base, const void *arg)
{
	return unlinkat(dfd, base, *(const int *)arg) != 0 ? -errno : 0;
}

static int do_renameat(int sfd, const char *sbase, int dfd,
		       const char *dbase, unsigned int flags)
{
	return renameat2(sfd, sbase, dfd, dbase, flags) != 0 ? -errno : 0;
}

static int do_linkat(int sfd, const char *sbase, int dfd,
		     const char *dbase, unsigned int flags)
{
	/* never AT_SYMLINK_FOLLOW: a link to a symlink is to the link */
	return linkat(sfd, sbase, dfd, dbase, 0) != 0 ? -errno : 0;
}

static int default_mkdirat(struct vfs_module *m, const char *path,
			   mode_t mode)
{
	return default_in_parent(m, path, do_mkdirat, &mode);
}

static int default_unlinkat(struct vfs_module *m, const char *path,
			    int flags)
{
	return default_in_parent(m, path, do_unlinkat, &flags);
}

static int default_renameat(struct vfs_module *m, const char *src,
			    const char *dst, unsigned int flags)
{
	return default_in_parents(m, src, dst, do_renameat, flags);
}

static int default_linkat(struct vfs_module *m, const char *src,
			  const char *dst)
{
	return default_in_parents(m, src, dst, do_linkat, 0);
}

/* ---- metadata of an open file ---- */

static int default_ftruncate(struct vfs_module *m, struct vfs_fh *fh,
			     uint64_t len)
{
	return ftruncate(fh->fd, (off_t)len) != 0 ? -errno : 0;
}

static int default_fallocate(struct vfs_module *m, struct vfs_fh *fh,
			     int mode, uint64_t off, uint64_t len)
{
	return fallocate(fh->fd, mode, (off_t)off, (off_t)len) != 0 ?
		-errno : 0;
}

/*
 * Through a bounce buffer, for what copy_file_range(2) refuses: ranges
 * of one file that overlap (EINVAL), and file systems or kernels without
 * it.  Moving forward copies back to front, so the result is memmove's.
 */
#define BOUNCE_SIZE (1024 * 1024)

static int bounce_piece(int sfd, uint64_t soff, int dfd, uint64_t doff,
			uint8_t *buf, size_t n, size_t *got)
{
	ssize_t r = 0;
	size_t done = 0;

	*got = 0;
	while (done < n) {
		r = pread(sfd, buf + done, n - done, (off_t)(soff + done));
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			return -errno;
		}
		if (r == 0) {
			break;          /* end of the source */
		}
		done += (size_t)r;
	}
	*got = done;
	for (n = 0; n < done; n += (size_t)r) {
		r = pwrite(dfd, buf + n, done - n, (off_t)(doff + n));
		if (r < 0 && errno != EINTR) {
			return -errno;
		}
		r = r < 0 ? 0 : r;
	}
	return 0;
}

static int bounce_copy(int sfd, uint64_t soff, int dfd, uint64_t doff,
		       uint64_t len, uint64_t *copied)
{
	bool backward = doff > soff;
	size_t piece = len < BOUNCE_SIZE ? (size_t)len : BOUNCE_SIZE;
	uint8_t *buf = malloc(piece > 0 ? piece : 1);
	uint64_t left = len;
	size_t got = 0;
	int ret = 0;

	if (buf == NULL) {
		return -ENOMEM;
	}
	while (left > 0 && ret == 0) {
		size_t n = left < piece ? (size_t)left : piece;
		uint64_t at = backward ? left - n : len - left;

		ret = bounce_piece(sfd, soff + at, dfd, doff + at, buf, n,
				   &got);
		if (ret == 0 && got < n && !backward) {
			*copied += got;
			break;
		}
		*copied += got;
		left -= n;
	}
	free(buf);
	return ret;
}

static int default_copy_range(struct vfs_module *m, struct vfs_fh *src,
			      uint64_t src_off, struct vfs_fh *dst,
			      uint64_t dst_off, uint64_t len,
			      uint64_t *copied)
{
	loff_t in = (loff_t)src_off, out = (loff_t)dst_off;
	ssize_t r = 0;

	*copied = 0;
	while (*copied < len) {
		r = copy_file_range(src->fd, &in, dst->fd, &out,
				    (size_t)MIN(len - *copied, 1 << 30), 0);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			break;
		}
		*copied += (uint64_t)r;
	}
	if (r == 0 || *copied == len) {
		return 0;       /* done, or the end of the source */
	}
	if (errno != EINVAL && errno != EXDEV && errno != EOPNOTSUPP &&
	    errno != ENOSYS) {
		return -errno;
	}
	return bounce_copy(src->fd, src_off + *copied, dst->fd,
			   dst_off + *copied, len - *copied, copied);
}

static int default_seek_data(struct vfs_module *m, struct vfs_fh *fh,
			     uint64_t off, int whence, uint64_t *res)
{
	off_t r = lseek(fh->fd, (off_t)off, whence);

	if (r < 0) {
		return -errno;
	}
	*res = (uint64_t)r;
	return 0;
}

static int default_fntimes(struct vfs_module *m, struct vfs_fh *fh,
			   const struct timespec ts[2])
{
	/* AT_EMPTY_PATH works on O_PATH fds too, futimens does not */
	return utimensat(fh->fd, "", ts, AT_EMPTY_PATH) != 0 ? -errno : 0;
}

/*
 * f*xattr refuse O_PATH fds (EBADF); the fd's /proc link names the same
 * inode without another lookup in the share.
 */
static void default_fd_path(const struct vfs_fh *fh, char *buf,
			    size_t len)
{
	snprintf(buf, len, "/proc/self/fd/%d", fh->fd);
}

/* fchmod refuses O_PATH fds, and fchmodat's AT_EMPTY_PATH is new (6.6) */
static int default_fchmod(struct vfs_module *m, struct vfs_fh *fh,
			  mode_t mode)
{
	char p[32];

	if (!fh->is_path_only) {
		return fchmod(fh->fd, mode) != 0 ? -errno : 0;
	}
	default_fd_path(fh, p, sizeof(p));
	return chmod(p, mode) != 0 ? -errno : 0;
}

static int default_fgetxattr(struct vfs_module *m, struct vfs_fh *fh,
			     const char *name, void *buf, size_t len)
{
	char p[32];
	ssize_t n;

	if (fh->is_path_only) {
		default_fd_path(fh, p, sizeof(p));
		n = getxattr(p, name, buf, len);
	} else {
		n = fgetxattr(fh->fd, name, buf, len);
	}
	return n < 0 ? -errno : (int)n;
}

/*
 * getxattrat(2) (Linux 6.13) looks up one component from the directory
 * fd; older kernels: the directory's /proc link and the name, a longer
 * walk to the same inode.  Never follows the entry.
 */
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif

struct default_xattr_args {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

static int default_getxattrat(struct vfs_module *m, struct vfs_fh *dirfh,
			      const char *entry, const char *attr,
			      void *buf, size_t len)
{
	static bool no_getxattrat;
	struct default_xattr_args a = {
		.value = (uintptr_t)buf,
		.size = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len,
	};
	char p[PATH_MAX];
	ssize_t n;

	if (!no_getxattrat) {
		n = syscall(SYS_getxattrat, dirfh->fd, entry,
			    AT_SYMLINK_NOFOLLOW, attr, &a, sizeof(a));
		if (n >= 0 || errno != ENOSYS) {
			return n < 0 ? -errno : (int)n;
		}
		no_getxattrat = true;
	}
	if (snprintf(p, sizeof(p), "/proc/self/fd/%d/%s", dirfh->fd,
		     entry) >= (int)sizeof(p)) {
		return -ENAMETOOLONG;
	}
	n = lgetxattr(p, attr, buf, len);
	return n < 0 ? -errno : (int)n;
}

static int default_fsetxattr(struct vfs_module *m, struct vfs_fh *fh,
			     const char *name, const void *buf, size_t len,
			     int flags)
{
	char p[32];
	int ret;

	if (fh->is_path_only) {
		default_fd_path(fh, p, sizeof(p));
		ret = setxattr(p, name, buf, len, flags);
	} else {
		ret = fsetxattr(fh->fd, name, buf, len, flags);
	}
	return ret != 0 ? -errno : 0;
}

static int default_flistxattr(struct vfs_module *m, struct vfs_fh *fh,
			      char *buf, size_t len)
{
	char p[32];
	ssize_t n;

	if (fh->is_path_only) {
		default_fd_path(fh, p, sizeof(p));
		n = listxattr(p, buf, len);
	} else {
		n = flistxattr(fh->fd, buf, len);
	}
	return n < 0 ? -errno : (int)n;
}

static int default_fremovexattr(struct vfs_module *m, struct vfs_fh *fh,
				const char *name)
{
	char p[32];
	int ret;

	if (fh->is_path_only) {
		default_fd_path(fh, p, sizeof(p));
		ret = removexattr(p, name);
	} else {
		ret = fremovexattr(fh->fd, name);
	}
	return ret != 0 ? -errno : 0;
}

/* ---- enumeration with getdents64 on the directory's own fd ---- */

struct default_dir {
	uint8_t buf[VFS_DIRBUF_SIZE];
	size_t pos, end;
	bool eof;
};

/* The kernel's record; glibc has no public struct for getdents64. */
struct default_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int default_opendir(struct vfs_module *m, TALLOC_CTX *mem_ctx,
			   struct vfs_fh *fh, struct vfs_dir **out)
{
	struct vfs_dir *dir = NULL;
	struct default_dir *dd = NULL;

	if (fh->is_path_only) {
		return -EACCES;
	}
	if (lseek(fh->fd, 0, SEEK_SET) == (off_t)-1) {
		return -errno;
	}
	dir = talloc_zero(mem_ctx, struct vfs_dir);
	dd = dir ? talloc_zero(dir, struct default_dir) : NULL;
	if (dd == NULL) {
		talloc_free(dir);
		return -ENOMEM;
	}
	dir->fh = fh;
	dir->private_data = dd;
	*out = dir;
	return 0;
}

static int default_fill(struct default_dir *dd, int fd)
{
	long n = syscall(SYS_getdents64, fd, dd->buf, sizeof(dd->buf));

	if (n < 0) {
		return -errno;
	}
	dd->pos = 0;
	dd->end = (size_t)n;
	dd->eof = (n == 0);
	return 0;
}

static int default_readdir(struct vfs_module *m, struct vfs_dir *dir,
			   struct vfs_dirent *ent)
{
	struct default_dir *dd = dir->private_data;

	for (;;) {
		struct default_dirent64 *d = NULL;
		int ret;

		if (dd->pos >= dd->end) {
			if (dd->eof) {
				return 0;
			}
			ret = default_fill(dd, dir->fh->fd);
			if (ret < 0) {
				return ret;
			}
			continue;
		}
		d = (struct default_dirent64 *)(dd->buf + dd->pos);
		dd->pos += d->d_reclen;
		if (strcmp(d->d_name, ".") == 0 ||
		    strcmp(d->d_name, "..") == 0) {
			continue;
		}
		ent->name = d->d_name;
		ent->ino = d->d_ino;
		ent->type = d->d_type;
		return 1;
	}
}

static int default_rewinddir(struct vfs_module *m, struct vfs_dir *dir)
{
	struct default_dir *dd = dir->private_data;

	if (lseek(dir->fh->fd, 0, SEEK_SET) == (off_t)-1) {
		return -errno;
	}
	dd->pos = dd->end = 0;
	dd->eof = false;
	return 0;
}

/*
 * No named streams here: a share without a module serving them refuses
 * stream names before the VFS (OBJECT_NAME_INVALID, as Samba), and a
 * file lists none.
 */
static int default_stream_open(struct vfs_module *m, struct vfs_fh *fh,
			       int flags, struct statx *st)
{
	return -ENOTSUP;
}

static int default_stream_list(struct vfs_module *m, TALLOC_CTX *mem_ctx,
			       struct vfs_fh *fh, struct vfs_stream **list,
			       size_t *n)
{
	*list = NULL;
	*n = 0;
	return 0;
}

static int default_stream_remove(struct vfs_module *m, struct vfs_fh *fh)
{
	return -ENOTSUP;
}

static int default_stream_rename(struct vfs_module *m, struct vfs_fh *fh,
				 const char *new_name, bool replace)
{
	return -ENOTSUP;
}

const struct vfs_ops vfs_default_ops = {
	.name = "default",
	.connect = default_connect,
	.disconnect = default_disconnect,
	.openat = default_openat,
	.fstat = default_fstat,
	.statat = default_statat,
	.statvfs = default_statvfs,
	.mkdirat = default_mkdirat,
	.unlinkat = default_unlinkat,
	.renameat = default_renameat,
	.linkat = default_linkat,
	.ftruncate = default_ftruncate,
	.fallocate = default_fallocate,
	.fntimes = default_fntimes,
	.fchmod = default_fchmod,
	.fgetxattr = default_fgetxattr,
	.getxattrat = default_getxattrat,
	.fsetxattr = default_fsetxattr,
	.copy_range = default_copy_range,
	.seek_data = default_seek_data,
	.flistxattr = default_flistxattr,
	.fremovexattr = default_fremovexattr,
	.pread_send = default_pread_send,
	.splice_read_send = default_splice_read_send,
	.splice_write_send = default_splice_write_send,
	.map_read = default_map_read,
	.pwrite_send = default_pwrite_send,
	.fsync_send = default_fsync_send,
	.opendir = default_opendir,
	.readdir = default_readdir,
	.rewinddir = default_rewinddir,
	.stream_open = default_stream_open,
	.stream_list = default_stream_list,
	.stream_remove = default_stream_remove,
	.stream_rename = default_stream_rename,
};
