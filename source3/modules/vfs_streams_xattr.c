/*
 * vfs_streams_xattr: named streams kept as Samba's module of the same
 * name keeps them, so a share moves between Samba and ringsmb with its
 * streams (docs/vfs.md, "Named streams"): stream s of a file is the
 * xattr "user.DosStream.s:$DATA" of the file, its value the stream's
 * bytes followed by one NUL byte (an xattr cannot be empty, a stream
 * can).  Names are stored as the client first spelled them and found
 * again without regard to ASCII case.
 *
 * The data of a stream is read and written whole, synchronously, with
 * the thread switched to the handle's user (vfs_become), so the kernel
 * applies the file's own permissions to every access: a stream is no
 * more readable or writable than its file.  Values are at most
 * SX_MAX_SIZE bytes (Samba's "smbd max xattr size" default); the file
 * system may allow less (ext4: what fits in one block with the file's
 * other xattrs).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/xattr.h>
#include <linux/falloc.h>
#include <linux/limits.h>
#include "source3/modules/vfs.h"

#define SX_PREFIX "user.DosStream."
#define SX_SUFFIX ":$DATA"
/* Samba 4.17: a write reaching this is EOVERFLOW (ALLOTTED_SPACE_EXCEEDED) */
#define SX_MAX_SIZE 65536

static char *sx_name(TALLOC_CTX *mem_ctx, const char *stream)
{
	return talloc_asprintf(mem_ctx, SX_PREFIX "%s" SX_SUFFIX, stream);
}

static int sx_name_check(const char *xname)
{
	if (xname == NULL) {
		return -ENOMEM;
	}
	/* the kernel's limit on xattr names: the stream name is too long */
	return strlen(xname) > XATTR_NAME_MAX ? -ENAMETOOLONG : 0;
}

/* The stream's length (the value less its NUL), or -errno. */
static int sx_size(struct vfs_module *m, struct vfs_fh *fh,
		   const char *stream, size_t *size)
{
	char *xname = sx_name(fh, stream);
	int ret = sx_name_check(xname);

	if (ret == 0) {
		ret = vfs_next_fgetxattr(m, fh, xname, NULL, 0);
	}
	talloc_free(xname);
	if (ret >= 0) {
		*size = ret > 0 ? (size_t)ret - 1 : 0;
		ret = 0;
	}
	return ret;
}

/* The whole value of fh's stream on mem_ctx (*len without the NUL). */
static int sx_get(struct vfs_module *m, TALLOC_CTX *mem_ctx,
		  struct vfs_fh *fh, uint8_t **val, size_t *len)
{
	char *xname = sx_name(mem_ctx, fh->stream);
	int ret = sx_name_check(xname);
	int tries;

	/* the value may grow between the two calls: ask again */
	for (tries = 0; ret == 0 && tries < 3; tries++) {
		ret = vfs_next_fgetxattr(m, fh, xname, NULL, 0);
		if (ret < 0) {
			break;
		}
		*val = talloc_zero_size(mem_ctx, (size_t)ret + 1);
		if (*val == NULL) {
			ret = -ENOMEM;
			break;
		}
		ret = vfs_next_fgetxattr(m, fh, xname, *val, (size_t)ret + 1);
		if (ret != -ERANGE) {
			break;
		}
		TALLOC_FREE(*val);
		ret = 0;
	}
	talloc_free(xname);
	if (ret < 0) {
		return ret;
	}
	*len = ret > 0 ? (size_t)ret - 1 : 0;
	return 0;
}

/* Stores buf[0..len) and the NUL as fh's stream. */
static int sx_put(struct vfs_module *m, struct vfs_fh *fh, uint8_t *buf,
		  size_t len)
{
	char *xname = sx_name(fh, fh->stream);
	int ret = sx_name_check(xname);

	if (ret == 0) {
		buf[len] = '\0';
		ret = vfs_next_fsetxattr(m, fh, xname, buf, len + 1, 0);
	}
	talloc_free(xname);
	return ret;
}

static int sx_check_size(uint64_t off, uint64_t len)
{
	if (off >= SX_MAX_SIZE || len >= SX_MAX_SIZE - off) {
		return -EOVERFLOW;
	}
	return 0;
}

/* Rewrites fh's stream as its first off bytes (zero-filled) + data. */
static int sx_update(struct vfs_module *m, struct vfs_fh *fh, uint64_t off,
		     const void *data, size_t len, bool truncate)
{
	TALLOC_CTX *tmp = talloc_new(fh);
	uint8_t *val = NULL;
	size_t cur = 0, want;
	int ret = sx_check_size(off, len);

	if (tmp == NULL) {
		return -ENOMEM;
	}
	if (ret == 0) {
		ret = sx_get(m, tmp, fh, &val, &cur);
	}
	want = truncate || off + len > cur ? off + len : cur;
	if (ret == 0 && want > cur) {
		val = talloc_realloc_size(tmp, val, want + 1);
		if (val == NULL) {
			ret = -ENOMEM;
		} else {
			memset(val + cur, 0, want - cur);
		}
	}
	if (ret == 0) {
		if (len > 0) {
			memcpy(val + off, data, len);
		}
		ret = sx_put(m, fh, val, want);
	}
	talloc_free(tmp);
	return ret;
}

/*
 * A stream has its own identity for the file layer (share modes,
 * oplocks, leases key on dev/ino, as Samba's file ids): the file's inode
 * mixed with the stream's name, case folded (64-bit FNV-1a).
 */
static uint64_t sx_ino(uint64_t ino, const char *stream)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < sizeof(ino); i++) {
		h = (h ^ ((ino >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
	}
	for (; *stream != '\0'; stream++) {
		unsigned char c = (unsigned char)*stream;

		if (c >= 'A' && c <= 'Z') {
			c = (unsigned char)(c - 'A' + 'a');
		}
		h = (h ^ c) * 0x100000001b3ULL;
	}
	return h;
}

static int sx_fstat(struct vfs_module *m, struct vfs_fh *fh,
		    struct statx *st)
{
	size_t size = 0;
	int ret = vfs_next_fstat(m, fh, st);

	if (ret < 0 || fh->stream == NULL) {
		return ret;
	}
	ret = sx_size(m, fh, fh->stream, &size);
	if (ret < 0) {
		return ret;
	}
	st->stx_mode = S_IFREG | (st->stx_mode & 07777);
	st->stx_size = size;
	st->stx_blocks = (size + 511) / 512;
	st->stx_ino = sx_ino(st->stx_ino, fh->stream);
	return 0;
}

/* A stream spelled differently: its stored name, on mem_ctx, or NULL. */
static char *sx_find_case(struct vfs_module *m, TALLOC_CTX *mem_ctx,
			  struct vfs_fh *fh, const char *stream)
{
	struct vfs_stream *list = NULL;
	char *found = NULL;
	size_t n = 0, i;

	if (m->ops->stream_list(m, mem_ctx, fh, &list, &n) < 0) {
		return NULL;
	}
	for (i = 0; i < n && found == NULL; i++) {
		if (strcasecmp(list[i].name, stream) == 0) {
			found = talloc_strdup(mem_ctx, list[i].name);
		}
	}
	talloc_free(list);
	return found;
}

static int sx_stream_open(struct vfs_module *m, struct vfs_fh *fh, int flags,
			  struct statx *st)
{
	size_t size = 0;
	char *other = NULL;
	int ret = sx_size(m, fh, fh->stream, &size);
	uint8_t nul = 0;

	if (ret == -ENODATA) {
		other = sx_find_case(m, fh, fh, fh->stream);
		ret = other != NULL ? 0 : -ENODATA;
		if (other != NULL) {
			fh->stream = other;
		}
	}
	if (ret == 0 && (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
		return -EEXIST;
	}
	if (ret == -ENODATA && (flags & O_CREAT) == 0) {
		return -ENOENT;
	}
	if (ret == -ENODATA) {
		char *xname = sx_name(fh, fh->stream);

		ret = sx_name_check(xname);
		if (ret == 0) {
			ret = vfs_next_fsetxattr(m, fh, xname, &nul, 1,
						 XATTR_CREATE);
		}
		talloc_free(xname);
		ret = ret == 0 ? 1 : ret;
	}
	if (ret < 0) {
		return ret;
	}
	return sx_fstat(m, fh, st) < 0 ? -EIO : ret;
}

/* "user.DosStream.<name>:$DATA" -> name, or NULL for other xattrs */
static char *sx_stream_of(TALLOC_CTX *mem_ctx, const char *xname)
{
	size_t len = strlen(xname);
	size_t pre = sizeof(SX_PREFIX) - 1, suf = sizeof(SX_SUFFIX) - 1;

	if (len <= pre + suf || strncmp(xname, SX_PREFIX, pre) != 0 ||
	    strcmp(xname + len - suf, SX_SUFFIX) != 0) {
		return NULL;
	}
	return talloc_strndup(mem_ctx, xname + pre, len - pre - suf);
}

/* listxattr of fh's file, whole, on mem_ctx */
static int sx_list_names(struct vfs_module *m, TALLOC_CTX *mem_ctx,
			 struct vfs_fh *fh, char **names, size_t *len)
{
	int ret = vfs_next_flistxattr(m, fh, NULL, 0);

	if (ret < 0) {
		return ret == -ENOTSUP ? 0 : ret;
	}
	*names = talloc_zero_size(mem_ctx, (size_t)ret + 1);
	if (*names == NULL) {
		return -ENOMEM;
	}
	ret = vfs_next_flistxattr(m, fh, *names, (size_t)ret);
	if (ret < 0) {
		return ret;
	}
	*len = (size_t)ret;
	return 0;
}

static int sx_stream_list(struct vfs_module *m, TALLOC_CTX *mem_ctx,
			  struct vfs_fh *fh, struct vfs_stream **list,
			  size_t *n)
{
	char *names = NULL;
	size_t len = 0, pos, size;
	int ret = sx_list_names(m, mem_ctx, fh, &names, &len);

	*list = NULL;
	*n = 0;
	for (pos = 0; ret == 0 && pos < len; pos += strlen(names + pos) + 1) {
		char *s = sx_stream_of(mem_ctx, names + pos);
		struct vfs_stream *l = NULL;

		if (s == NULL || sx_size(m, fh, s, &size) < 0) {
			talloc_free(s);
			continue;       /* another xattr, or gone meanwhile */
		}
		l = talloc_realloc(mem_ctx, *list, struct vfs_stream, *n + 1);
		if (l == NULL) {
			ret = -ENOMEM;
			break;
		}
		talloc_steal(l, s);
		l[*n] = (struct vfs_stream){ .name = s, .size = size };
		*list = l;
		(*n)++;
	}
	talloc_free(names);
	return ret;
}

static int sx_stream_remove(struct vfs_module *m, struct vfs_fh *fh)
{
	char *xname = sx_name(fh, fh->stream);
	int ret = sx_name_check(xname);

	if (ret == 0) {
		ret = vfs_next_fremovexattr(m, fh, xname);
	}
	talloc_free(xname);
	return ret;
}

static int sx_stream_rename(struct vfs_module *m, struct vfs_fh *fh,
			    const char *new_name, bool replace)
{
	TALLOC_CTX *tmp = talloc_new(fh);
	char *other = tmp ? sx_find_case(m, tmp, fh, new_name) : NULL;
	char *xname = tmp ? sx_name(tmp, other ? other : new_name) : NULL;
	uint8_t *val = NULL;
	size_t len = 0;
	int ret = sx_name_check(xname);

	if (ret == 0 && other != NULL && strcasecmp(other, fh->stream) != 0 &&
	    !replace) {
		ret = -EEXIST;
	}
	if (ret == 0) {
		ret = sx_get(m, tmp, fh, &val, &len);
	}
	if (ret == 0) {
		ret = vfs_next_fsetxattr(m, fh, xname, val, len + 1, 0);
	}
	if (ret == 0 && strcmp(other ? other : new_name, fh->stream) != 0) {
		ret = sx_stream_remove(m, fh);
	}
	if (ret == 0) {
		fh->stream = talloc_strdup(fh, other ? other : new_name);
		ret = fh->stream != NULL ? 0 : -ENOMEM;
	}
	talloc_free(tmp);
	return ret;
}

/* ---- data ops of a stream handle; anything else goes down ---- */

static int sx_read(struct vfs_module *m, struct vfs_fh *fh, void *buf,
		   size_t len, uint64_t off, size_t *got)
{
	TALLOC_CTX *tmp = talloc_new(fh);
	uint8_t *val = NULL;
	size_t cur = 0;
	int ret = tmp != NULL ? sx_get(m, tmp, fh, &val, &cur) : -ENOMEM;

	*got = 0;
	if (ret == 0 && off < cur) {
		*got = cur - off < len ? (size_t)(cur - off) : len;
		memcpy(buf, val + off, *got);
	}
	talloc_free(tmp);
	return ret;
}

static struct tevent_req *sx_pread_send(struct vfs_module *m,
					TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct vfs_fh *fh, void *buf,
					size_t len, uint64_t off)
{
	size_t got = 0;
	int ret;

	if (fh->stream == NULL) {
		return vfs_next_pread_send(m, mem_ctx, ev, fh, buf, len, off);
	}
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = sx_read(m, fh, buf, len, off, &got);
		vfs_unbecome(fh->vfs);
	}
	return vfs_io_posted(mem_ctx, ev, -ret, got);
}

static struct tevent_req *sx_pwrite_send(struct vfs_module *m,
					 TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct vfs_fh *fh, const void *buf,
					 size_t len, uint64_t off)
{
	int ret;

	if (fh->stream == NULL) {
		return vfs_next_pwrite_send(m, mem_ctx, ev, fh, buf, len, off);
	}
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = sx_update(m, fh, off, buf, len, false);
		vfs_unbecome(fh->vfs);
	}
	return vfs_io_posted(mem_ctx, ev, -ret, len);
}

/* setxattr is as durable as the file system makes metadata */
static struct tevent_req *sx_fsync_send(struct vfs_module *m,
					TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct vfs_fh *fh)
{
	if (fh->stream == NULL) {
		return vfs_next_fsync_send(m, mem_ctx, ev, fh);
	}
	return vfs_io_posted(mem_ctx, ev, 0, 0);
}

/* a stream's bytes are an xattr, not pages: READ copies */
static int sx_map_read(struct vfs_module *m, struct vfs_fh *fh, size_t len,
		       void **addr)
{
	if (fh->stream == NULL) {
		return vfs_next_map_read(m, fh, len, addr);
	}
	return -ENOSYS;
}

/* no pages to lend: READ copies */
static struct tevent_req *sx_splice_read_send(struct vfs_module *m,
					      TALLOC_CTX *mem_ctx,
					      struct tevent_context *ev,
					      struct vfs_fh *fh, int pipe_wr,
					      size_t len, uint64_t off,
					      void *keep)
{
	if (fh->stream == NULL) {
		return vfs_next_splice_read_send(m, mem_ctx, ev, fh, pipe_wr,
						 len, off, keep);
	}
	return vfs_io_posted(mem_ctx, ev, ENOSYS, 0);
}

static struct tevent_req *sx_splice_write_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct uring_splice_src *src, unsigned n,
	uint64_t off, void *keep)
{
	if (fh->stream == NULL) {
		return vfs_next_splice_write_send(m, mem_ctx, ev, fh, src, n,
						  off, keep);
	}
	return vfs_io_posted(mem_ctx, ev, ENOSYS, 0);
}

static int sx_ftruncate(struct vfs_module *m, struct vfs_fh *fh,
			uint64_t len)
{
	if (fh->stream == NULL) {
		return vfs_next_ftruncate(m, fh, len);
	}
	return sx_update(m, fh, len, NULL, 0, true);
}

/* Zeroes what of [off, off + len) lies inside fh's stream. */
static int sx_zero(struct vfs_module *m, struct vfs_fh *fh, uint64_t off,
		   uint64_t len)
{
	TALLOC_CTX *tmp = talloc_new(fh);
	uint8_t *val = NULL;
	size_t cur = 0;
	int ret = tmp != NULL ? sx_get(m, tmp, fh, &val, &cur) : -ENOMEM;

	if (ret == 0 && off < cur) {
		memset(val + off, 0, len < cur - off ? (size_t)len :
		       cur - (size_t)off);
		ret = sx_put(m, fh, val, cur);
	}
	talloc_free(tmp);
	return ret;
}

/*
 * An xattr has no allocation to reserve: KEEP_SIZE only checks the
 * limit; without it the stream grows (zeros); a punched or zeroed range
 * reads as zeros (FSCTL_SET_ZERO_DATA).
 */
static int sx_fallocate(struct vfs_module *m, struct vfs_fh *fh, int mode,
			uint64_t off, uint64_t len)
{
	int ret;

	if (fh->stream == NULL) {
		return vfs_next_fallocate(m, fh, mode, off, len);
	}
	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
		return sx_zero(m, fh, off, len);
	}
	ret = sx_check_size(off, len);
	if (ret == 0 && (mode & FALLOC_FL_KEEP_SIZE) == 0) {
		ret = sx_update(m, fh, off + len, NULL, 0, false);
	}
	return ret;
}

/* A stream is all data: [0, size) */
static int sx_seek_data(struct vfs_module *m, struct vfs_fh *fh,
			uint64_t off, int whence, uint64_t *res)
{
	size_t size = 0;
	int ret;

	if (fh->stream == NULL) {
		return vfs_next_seek_data(m, fh, off, whence, res);
	}
	ret = sx_size(m, fh, fh->stream, &size);
	if (ret < 0) {
		return ret;
	}
	if (off >= size) {
		return -ENXIO;
	}
	*res = whence == SEEK_DATA ? off : size;
	return 0;
}

/*
 * Server-side copy with a stream on either side (FSCTL_SRV_COPYCHUNK):
 * through memory, as a stream is read and written whole anyway.  A
 * stream destination bounds len (SX_MAX_SIZE) before anything is read.
 */
static int sx_copy_range(struct vfs_module *m, struct vfs_fh *src,
			 uint64_t src_off, struct vfs_fh *dst,
			 uint64_t dst_off, uint64_t len, uint64_t *copied)
{
	uint8_t *buf = NULL;
	size_t got = 0;
	int ret = 0;

	if (src->stream == NULL && dst->stream == NULL) {
		return vfs_next_copy_range(m, src, src_off, dst, dst_off, len,
					   copied);
	}
	*copied = 0;
	if (dst->stream != NULL) {
		ret = sx_check_size(dst_off, len);
	} else if (len > SX_MAX_SIZE) {
		len = SX_MAX_SIZE;      /* a stream source holds no more */
	}
	buf = ret == 0 ? talloc_size(dst, len > 0 ? len : 1) : NULL;
	if (ret == 0 && buf == NULL) {
		ret = -ENOMEM;
	}
	if (ret == 0) {
		ret = src->stream != NULL ?
			sx_read(m, src, buf, len, src_off, &got) :
			vfs_pread_full(src->fd, buf, len, src_off, &got);
	}
	if (ret == 0 && got > 0) {
		ret = dst->stream != NULL ?
			sx_update(m, dst, dst_off, buf, got, false) :
			vfs_pwrite_full(dst->fd, buf, got, dst_off);
	}
	talloc_free(buf);
	if (ret == 0) {
		*copied = got;
	}
	return ret;
}

static int sx_connect(struct vfs_module *m, const char *path)
{
	m->vfs->streams = true;
	return vfs_next_connect(m, path);
}

const struct vfs_ops vfs_streams_xattr_ops = {
	.name = "streams_xattr",
	.connect = sx_connect,
	.fstat = sx_fstat,
	.pread_send = sx_pread_send,
	.pwrite_send = sx_pwrite_send,
	.fsync_send = sx_fsync_send,
	.splice_read_send = sx_splice_read_send,
	.map_read = sx_map_read,
	.splice_write_send = sx_splice_write_send,
	.ftruncate = sx_ftruncate,
	.fallocate = sx_fallocate,
	.seek_data = sx_seek_data,
	.copy_range = sx_copy_range,
	.stream_open = sx_stream_open,
	.stream_list = sx_stream_list,
	.stream_remove = sx_stream_remove,
	.stream_rename = sx_stream_rename,
};
