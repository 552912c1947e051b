/*
 * The VFS stack (docs/architecture.md, "Layers").
 *
 * A share's stack is a chain of modules, configured with `vfs objects`,
 * with vfs_default always last.  A module is a table of operations listing
 * only what it changes; a NULL slot means "ask the next module", so a
 * module that overrides pread leaves everything else to the modules
 * below it.
 *
 * Paths are relative to the share root and resolved by vfs_default with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS): `..` and symlinks
 * that leave the share are refused by the kernel, symlinks that stay
 * inside it work.
 *
 * Errors: the public vfs_* calls return NTSTATUS.  Modules return -errno
 * (like lib/uring); the errno is turned into an NTSTATUS by the one table,
 * ntstatus_from_errno(), here at the edge and nowhere else.
 */
#ifndef RINGSMB_VFS_H
#define RINGSMB_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <time.h>
#include <talloc.h>
#include "lib/uring/uring.h"
#include <tevent.h>
#include "lib/util/ntstatus.h"
#include "lib/util/unix_token.h"

struct lp_share;
struct lp_parametric;
struct vfs_module;
struct smbd_share_names;
struct samsid_map;

/* One share's stack: the modules and the share root (O_PATH). */
struct vfs_handle {
	struct tevent_context *ev;
	const char *share_name;
	const char *root_path;
	int root_fd;
	bool io_uring_enabled;
	struct vfs_module *top;
	/*
	 * Whose rights every file access through this handle uses
	 * (docs/security.md): synchronous calls switch the thread to it
	 * (vfs_become), ring operations carry its personality.  NULL: the
	 * daemon's own (tools, tests, "admin users").  Owned by the caller,
	 * who keeps it alive as long as the handle (the tree connect).
	 */
	const struct unix_token *token;
	/*
	 * The server's map of users' SIDs (lib/auth/samsid.h), read
	 * through the server's own pointer: a reload replaces the map.
	 * NULL, or pointing at NULL: Unix SIDs only.
	 */
	struct samsid_map *const *sid_map;
	/* the file layer's per-share name rules (share_names.c), or NULL */
	const struct smbd_share_names *names;
	/* a module serves named streams (vfs_streams_xattr's connect) */
	bool streams;
	/*
	 * NT security descriptors are kept in security.NTACL and decide
	 * access (vfs_acl_xattr's connect; smbd/files/ntacl.c)
	 */
	bool nt_acls;
	/*
	 * vfs_default: WRITEs of at least this many bytes go through the
	 * ring with the token's personality, so the copy into the page
	 * cache runs in io_uring_enter, outside the server lock, in
	 * parallel on each worker (docs/architecture.md, "Workers"); 0:
	 * always a pwrite under the switch (one worker)
	 */
	size_t ring_write_min;
	/*
	 * The share's parametric options ("error:ops = pwrite" ...,
	 * lib/param/param.h), copied at connect: modules read theirs
	 * with vfs_parametric() or walk the array in their connect
	 */
	const struct lp_parametric *parametric;
	size_t num_parametric;
	/* modes of new files and directories (create mask etc. applied) */
	mode_t file_mode;               /* default 0644 */
	mode_t dir_mode;                /* default 0755 */
};

/*
 * An open file or directory.  A talloc destructor closes the fd, so
 * talloc_free() is the close.  The destructor does not
 * touch the stack (there is no close op): the vfs_fh and the vfs_handle
 * are siblings under a tcon and talloc frees siblings in any order.
 */
struct vfs_fh {
	struct vfs_handle *vfs;
	int fd;
	bool is_path_only;      /* O_PATH: metadata only, no data access */
	/*
	 * vfs_default: its file system refuses RWF_NOWAIT reads or
	 * cachestat (tmpfs, some FUSE): read and splice it synchronously
	 */
	bool no_nowait;
	/*
	 * An open of this named stream of the file fd refers to
	 * (vfs_stream_open), or NULL: the file's own data.  The data ops
	 * (pread, pwrite, fstat, ftruncate ...) of a stream handle reach
	 * the module serving streams; metadata ops (times, xattrs, mode)
	 * act on the file.
	 */
	const char *stream;
	void *private_data;     /* for modules */
};

/* One named stream of a file (vfs_stream_list). */
struct vfs_stream {
	const char *name;       /* without ':' and ":$DATA" */
	uint64_t size;
};

/* One entry from vfs_readdir(): never "." or "..". */
struct vfs_dirent {
	const char *name;       /* points into the vfs_dir's buffer */
	uint64_t ino;
	unsigned char type;     /* DT_* */
};

/* An enumeration of an open directory; modules hang their state here. */
struct vfs_dir {
	struct vfs_fh *fh;
	void *private_data;
};

/* A module instance in a stack. */
struct vfs_module {
	struct vfs_module *next;        /* toward vfs_default */
	const struct vfs_ops *ops;
	struct vfs_handle *vfs;
	void *private_data;
};

/*
 * The op table.  Every op gets the module it is called on, so a module can
 * call vfs_next_<op>(m, ...) to pass the call down.  Returns are -errno or
 * 0 (>= 0 counts for I/O).
 */
struct vfs_ops {
	const char *name;

	int (*connect)(struct vfs_module *m, const char *path);
	void (*disconnect)(struct vfs_module *m);

	/*
	 * path is share-relative, '/'-separated, "" for the root; resolved
	 * beneath the share root.  flags as open(2); the module adds
	 * O_CLOEXEC and the resolve flags.  Fills *st for the opened object
	 * (the caller needs it anyway, and it saves a syscall).  A FIFO or
	 * device is opened non-blocking and never read by the VFS's users.
	 */
	int (*openat)(struct vfs_module *m, const char *path, int flags,
		      int *fd, struct statx *st);
	int (*fstat)(struct vfs_module *m, struct vfs_fh *fh,
		     struct statx *st);
	/* metadata of a share-relative path, following links inside it */
	int (*statat)(struct vfs_module *m, struct vfs_fh *dirfh,
		      const char *dir_path, const char *name,
		      struct statx *st);
	int (*statvfs)(struct vfs_module *m, struct statvfs *st);

	/*
	 * Asynchronous I/O, completing from the event loop, never inside
	 * _send.  pread fills buf up to len bytes or EOF (short reads are
	 * retried); pwrite writes all of it.  There are no _recv ops: a
	 * module's request state starts with struct vfs_io_state, so one
	 * vfs_io_recv() serves every module.
	 */
	struct tevent_req *(*pread_send)(struct vfs_module *m,
					 TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct vfs_fh *fh, void *buf,
					 size_t len, uint64_t off);
	struct tevent_req *(*pwrite_send)(struct vfs_module *m,
					  TALLOC_CTX *mem_ctx,
					  struct tevent_context *ev,
					  struct vfs_fh *fh, const void *buf,
					  size_t len, uint64_t off);
	struct tevent_req *(*fsync_send)(struct vfs_module *m,
					 TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct vfs_fh *fh);
	/*
	 * Moves up to len bytes from off into the pipe pipe_wr (sized for
	 * them), stopping early at EOF or when the pipe is full (never
	 * blocking on it: see uring_splice_in in lib/uring/uring.h): the data
	 * path's splice mode (docs/architecture.md, "Data path modes").  A
	 * module that cannot (vfs_noop) fails with ENOSYS and the caller
	 * copies instead.
	 */
	struct tevent_req *(*splice_read_send)(struct vfs_module *m,
					       TALLOC_CTX *mem_ctx,
					       struct tevent_context *ev,
					       struct vfs_fh *fh, int pipe_wr,
					       size_t len, uint64_t off,
					       void *keep);
	/*
	 * Maps the first len bytes of the file's data read-only and shared
	 * (mmap(2) PROT_READ, MAP_SHARED), so that READs can be answered
	 * from the page cache without copying it first (files/read_map.c,
	 * docs/architecture.md "Data path modes").  0 and *addr, or -errno;
	 * -ENOSYS: this stack cannot (the bytes are not the file's pages:
	 * vfs_noop, a stream), READ copies.  The caller munmaps.
	 */
	int (*map_read)(struct vfs_module *m, struct vfs_fh *fh, size_t len,
			void **addr);
	/*
	 * Writes src[i].len bytes from each pipe src[i].pipe_rd in turn
	 * to the file from off on (the splice write mode): all of it or
	 * an error.  ENOSYS: this stack cannot; the caller reads the pipes
	 * into memory and uses pwrite.
	 */
	struct tevent_req *(*splice_write_send)(
		struct vfs_module *m, TALLOC_CTX *mem_ctx,
		struct tevent_context *ev, struct vfs_fh *fh,
		const struct uring_splice_src *src, unsigned n, uint64_t off,
		void *keep);

	/*
	 * The namespace, synchronous.  Paths are share-relative; the parent
	 * directory is resolved beneath the share root and the last
	 * component is acted on itself (a symlink is renamed or removed,
	 * never followed).  flags: unlinkat AT_REMOVEDIR; renameat
	 * RENAME_NOREPLACE.
	 */
	int (*mkdirat)(struct vfs_module *m, const char *path, mode_t mode);
	int (*unlinkat)(struct vfs_module *m, const char *path, int flags);
	int (*renameat)(struct vfs_module *m, const char *src,
			const char *dst, unsigned int flags);
	int (*linkat)(struct vfs_module *m, const char *src,
		      const char *dst);

	/*
	 * Metadata of an open file.  ftruncate and fallocate need a
	 * writable fd; fntimes and the xattr ops also work on O_PATH fds.
	 * ts as utimensat(2): [0] access, [1] modification, UTIME_OMIT to
	 * leave one alone.  fgetxattr returns the value's length.
	 */
	int (*ftruncate)(struct vfs_module *m, struct vfs_fh *fh,
			 uint64_t len);
	int (*fallocate)(struct vfs_module *m, struct vfs_fh *fh, int mode,
			 uint64_t off, uint64_t len);
	int (*fntimes)(struct vfs_module *m, struct vfs_fh *fh,
		       const struct timespec ts[2]);
	/* permission bits (07777); O_PATH fds too */
	int (*fchmod)(struct vfs_module *m, struct vfs_fh *fh, mode_t mode);
	int (*fgetxattr)(struct vfs_module *m, struct vfs_fh *fh,
			 const char *name, void *buf, size_t len);
	/*
	 * The xattr attr of entry, one component of the directory dirfh,
	 * not following it if it is a symlink (a directory listing reads
	 * DOS attributes this way, without opening every entry).
	 */
	int (*getxattrat)(struct vfs_module *m, struct vfs_fh *dirfh,
			  const char *entry, const char *attr, void *buf,
			  size_t len);
	int (*fsetxattr)(struct vfs_module *m, struct vfs_fh *fh,
			 const char *name, const void *buf, size_t len,
			 int flags);
	/* NUL-separated names as listxattr(2); returns the length used */
	int (*flistxattr)(struct vfs_module *m, struct vfs_fh *fh,
			  char *buf, size_t len);
	int (*fremovexattr)(struct vfs_module *m, struct vfs_fh *fh,
			    const char *name);

	/*
	 * Server-side copy (FSCTL_SRV_COPYCHUNK), synchronous: len bytes
	 * from src at src_off to dst at dst_off without passing through
	 * the client (copy_file_range(2) where the kernel can).  Short
	 * copies are continued; *copied < len only at the end of src.
	 * src and dst may be the same file with overlapping ranges: the
	 * result is as memmove's.
	 */
	int (*copy_range)(struct vfs_module *m, struct vfs_fh *src,
			  uint64_t src_off, struct vfs_fh *dst,
			  uint64_t dst_off, uint64_t len, uint64_t *copied);
	/* lseek(2) SEEK_DATA / SEEK_HOLE: *res the offset found */
	int (*seek_data)(struct vfs_module *m, struct vfs_fh *fh,
			 uint64_t off, int whence, uint64_t *res);

	/*
	 * Named streams (docs/vfs.md, "Named streams").  stream_open makes
	 * fh, which already refers to the base file and has fh->stream set,
	 * an open of that stream: flags O_CREAT and O_EXCL as open(2) (a
	 * missing stream without O_CREAT: -ENOENT); a stream that exists
	 * under another case keeps that spelling (fh->stream is replaced,
	 * on fh).  Returns 1 when it created the stream, else 0; fills *st
	 * as fstat does for a stream handle.  stream_list gives the file's
	 * named streams on mem_ctx; stream_remove and stream_rename act on
	 * the stream of fh (rename: -EEXIST unless replace).  vfs_default
	 * has no streams: -ENOTSUP, and an empty list.
	 */
	int (*stream_open)(struct vfs_module *m, struct vfs_fh *fh, int flags,
			   struct statx *st);
	int (*stream_list)(struct vfs_module *m, TALLOC_CTX *mem_ctx,
			   struct vfs_fh *fh, struct vfs_stream **list,
			   size_t *n);
	int (*stream_remove)(struct vfs_module *m, struct vfs_fh *fh);
	int (*stream_rename)(struct vfs_module *m, struct vfs_fh *fh,
			     const char *new_name, bool replace);

	/* Enumeration of an open directory (not O_PATH). */
	int (*opendir)(struct vfs_module *m, TALLOC_CTX *mem_ctx,
		       struct vfs_fh *fh, struct vfs_dir **dir);
	/* 1: *ent filled; 0: end of directory; < 0: -errno */
	int (*readdir)(struct vfs_module *m, struct vfs_dir *dir,
		       struct vfs_dirent *ent);
	int (*rewinddir)(struct vfs_module *m, struct vfs_dir *dir);
};

/*
 * Build the stack of share->vfs_objects (NULL-terminated names, e.g.
 * "io_uring", "noop") above vfs_default and open the share root.  An
 * unknown module name fails with OBJECT_NAME_NOT_FOUND and is logged.
 * io_uring_enabled = false makes vfs_io_uring use the plain fallback.
 */
NTSTATUS vfs_connect(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
		     const struct lp_share *share, bool io_uring_enabled,
		     const struct unix_token *token,
		     struct vfs_handle **out);

/* The same, without a parsed share (tests, tools). */
NTSTATUS vfs_connect_path(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
			  const char *share_name, const char *path,
			  const char *const *vfs_objects,
			  bool io_uring_enabled, struct vfs_handle **out);

/*
 * The same with parametric options (n of them, copied onto the handle
 * before the modules' connect runs): tests of modules that take options.
 */
NTSTATUS vfs_connect_params(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
			    const char *share_name, const char *path,
			    const char *const *vfs_objects,
			    const struct lp_parametric *params, size_t n,
			    bool io_uring_enabled, struct vfs_handle **out);

/* The value of parametric option "type:option", or NULL (modules). */
const char *vfs_parametric(const struct vfs_handle *vfs, const char *type,
			   const char *option);

/*
 * Opening: flags as open(2) (O_RDONLY, O_PATH, O_DIRECTORY ...); st may be
 * NULL.  An escape from the share fails (OBJECT_PATH_NOT_FOUND).
 */
/*
 * The personality of the handle's token on ring: 0 when there is no
 * token (the daemon's rights) or none can be had (registration failed,
 * or the ring is another thread's and it has not registered one yet):
 * the caller then switches the thread instead.
 */
uint16_t vfs_ring_personality(const struct vfs_handle *vfs,
			      struct uring *ring);

NTSTATUS vfs_openat(TALLOC_CTX *mem_ctx, struct vfs_handle *vfs,
		    const char *path, int flags, struct vfs_fh **out,
		    struct statx *st);
NTSTATUS vfs_fstat(struct vfs_fh *fh, struct statx *st);
/*
 * The file's index number (FileId) clients see for fh with metadata st:
 * st's inode, except for a named stream, whose st carries an identity
 * of its own for the file layer: then its file's inode (as Windows and
 * Samba, smb2.fileid).
 */
uint64_t vfs_file_index(const struct vfs_fh *fh, const struct statx *st);
NTSTATUS vfs_statat(struct vfs_fh *dirfh, const char *dir_path,
		    const char *name, struct statx *st);
NTSTATUS vfs_statvfs(struct vfs_handle *vfs, struct statvfs *st);

struct tevent_req *vfs_pread_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct vfs_fh *fh, void *buf, size_t len,
				  uint64_t off);
NTSTATUS vfs_pread_recv(struct tevent_req *req, size_t *nread);
struct tevent_req *vfs_pwrite_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct vfs_fh *fh, const void *buf,
				   size_t len, uint64_t off);
NTSTATUS vfs_pwrite_recv(struct tevent_req *req, size_t *nwritten);
struct tevent_req *vfs_fsync_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct vfs_fh *fh);
NTSTATUS vfs_fsync_recv(struct tevent_req *req);
/* count, or -errno (-ENOSYS: this stack cannot splice; copy instead) */
struct tevent_req *vfs_splice_read_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct vfs_fh *fh, int pipe_wr,
					size_t len, uint64_t off, void *keep);
int vfs_splice_read_recv(struct tevent_req *req, size_t *nspliced);
/* 0 and *addr, or -errno (-ENOSYS: this stack cannot map; copy) */
int vfs_map_read(struct vfs_fh *fh, size_t len, void **addr);
struct tevent_req *vfs_splice_write_send(TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct vfs_fh *fh,
					 const struct uring_splice_src *src,
					 unsigned n, uint64_t off, void *keep);
/* count, or -errno (-ENOSYS: copy instead) */
int vfs_splice_write_recv(struct tevent_req *req, size_t *nwritten);
/* The NTSTATUS for a -errno from the stack (0: NT_STATUS_OK). */
NTSTATUS vfs_errno_status(int ret);

/*
 * The namespace (see the ops).  vfs_openat with O_CREAT creates files
 * with vfs->file_mode; vfs_mkdirat uses the mode it is given (callers
 * pass vfs->dir_mode).
 */
NTSTATUS vfs_mkdirat(struct vfs_handle *vfs, const char *path, mode_t mode);
NTSTATUS vfs_unlinkat(struct vfs_handle *vfs, const char *path, int flags);
NTSTATUS vfs_renameat(struct vfs_handle *vfs, const char *src,
		      const char *dst, unsigned int flags);
NTSTATUS vfs_linkat(struct vfs_handle *vfs, const char *src,
		    const char *dst);
NTSTATUS vfs_ftruncate(struct vfs_fh *fh, uint64_t len);
NTSTATUS vfs_fallocate(struct vfs_fh *fh, int mode, uint64_t off,
		       uint64_t len);
NTSTATUS vfs_fntimes(struct vfs_fh *fh, const struct timespec ts[2]);
/* the same, and for a non-owner who may write it ("dos filetimes") */
NTSTATUS vfs_fntimes_writer(struct vfs_fh *fh, const struct timespec ts[2]);
NTSTATUS vfs_fchmod(struct vfs_fh *fh, mode_t mode);
/* *got: the value's length; NOT_FOUND-style status when there is none */
NTSTATUS vfs_fgetxattr(struct vfs_fh *fh, const char *name, void *buf,
		       size_t len, size_t *got);
NTSTATUS vfs_fsetxattr(struct vfs_fh *fh, const char *name,
		       const void *buf, size_t len, int flags);
/* As vfs_fgetxattr, of a directory's entry (vfs_ops.getxattrat) */
NTSTATUS vfs_getxattrat(struct vfs_fh *dirfh, const char *entry,
			const char *attr, void *buf, size_t len,
			size_t *got);
/* *got: bytes of NUL-separated names (len 0 asks for the size only) */
NTSTATUS vfs_flistxattr(struct vfs_fh *fh, char *buf, size_t len,
			size_t *got);
NTSTATUS vfs_fremovexattr(struct vfs_fh *fh, const char *name);

/*
 * A view of fh that acts with the daemon's rights (vfs_identity.c), on
 * mem_ctx; freeing it leaves fh open.  Only for what the file layer
 * decided itself after its own access check: the security.NTACL value
 * (root-only) and the mode and POSIX ACL an NT ACL maps to, which a
 * user granted WRITE_DAC by that ACL may set on another's file, as in
 * Samba.
 */
struct vfs_fh *vfs_fh_as_daemon(TALLOC_CTX *mem_ctx, struct vfs_fh *fh);

/* see the copy_range op; ranges past INT64_MAX: INVALID_PARAMETER */
NTSTATUS vfs_copy_range(struct vfs_fh *src, uint64_t src_off,
			struct vfs_fh *dst, uint64_t dst_off, uint64_t len,
			uint64_t *copied);
/*
 * The first data extent [*start, *end) at or after off (SEEK_DATA, then
 * SEEK_HOLE); END_OF_FILE when there is no data after off.
 */
NTSTATUS vfs_data_extent(struct vfs_fh *fh, uint64_t off, uint64_t *start,
			 uint64_t *end);

/*
 * Named streams (see the ops).  vfs_stream_open opens stream of base's
 * file as a new handle on mem_ctx (its own descriptor, a dup of base's);
 * *created says whether it made the stream.  Without a module serving
 * streams: NOT_SUPPORTED (callers ask vfs->streams first).
 */
NTSTATUS vfs_stream_open(TALLOC_CTX *mem_ctx, struct vfs_fh *base,
			 const char *stream, int flags, struct vfs_fh **out,
			 struct statx *st, bool *created);
NTSTATUS vfs_stream_list(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			 struct vfs_stream **list, size_t *n);
NTSTATUS vfs_stream_remove(struct vfs_fh *fh);
/* fstat of the file a stream handle (or any handle) refers to */
NTSTATUS vfs_stream_base_fstat(struct vfs_fh *fh, struct statx *st);
NTSTATUS vfs_stream_rename(struct vfs_fh *fh, const char *new_name,
			   bool replace);

NTSTATUS vfs_opendir(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
		     struct vfs_dir **out);
/* OK with *ent filled; NO_MORE_FILES at the end */
NTSTATUS vfs_readdir(struct vfs_dir *dir, struct vfs_dirent *ent);
NTSTATUS vfs_rewinddir(struct vfs_dir *dir);

/* For modules: pass a call to the next module that implements it. */
int vfs_next_connect(struct vfs_module *m, const char *path);
void vfs_next_disconnect(struct vfs_module *m);
int vfs_next_openat(struct vfs_module *m, const char *path, int flags,
		    int *fd, struct statx *st);
int vfs_next_fstat(struct vfs_module *m, struct vfs_fh *fh,
		   struct statx *st);
int vfs_next_statat(struct vfs_module *m, struct vfs_fh *dirfh,
		    const char *dir_path, const char *name, struct statx *st);
int vfs_next_statvfs(struct vfs_module *m, struct statvfs *st);
int vfs_next_mkdirat(struct vfs_module *m, const char *path, mode_t mode);
int vfs_next_unlinkat(struct vfs_module *m, const char *path, int flags);
int vfs_next_renameat(struct vfs_module *m, const char *src,
		      const char *dst, unsigned int flags);
int vfs_next_linkat(struct vfs_module *m, const char *src, const char *dst);
int vfs_next_ftruncate(struct vfs_module *m, struct vfs_fh *fh,
		       uint64_t len);
int vfs_next_fallocate(struct vfs_module *m, struct vfs_fh *fh, int mode,
		       uint64_t off, uint64_t len);
int vfs_next_fntimes(struct vfs_module *m, struct vfs_fh *fh,
		     const struct timespec ts[2]);
int vfs_next_fchmod(struct vfs_module *m, struct vfs_fh *fh, mode_t mode);
int vfs_next_fgetxattr(struct vfs_module *m, struct vfs_fh *fh,
		       const char *name, void *buf, size_t len);
int vfs_next_fsetxattr(struct vfs_module *m, struct vfs_fh *fh,
		       const char *name, const void *buf, size_t len,
		       int flags);
int vfs_next_flistxattr(struct vfs_module *m, struct vfs_fh *fh, char *buf,
			size_t len);
int vfs_next_fremovexattr(struct vfs_module *m, struct vfs_fh *fh,
			  const char *name);
int vfs_next_copy_range(struct vfs_module *m, struct vfs_fh *src,
			uint64_t src_off, struct vfs_fh *dst,
			uint64_t dst_off, uint64_t len, uint64_t *copied);
int vfs_next_seek_data(struct vfs_module *m, struct vfs_fh *fh,
		       uint64_t off, int whence, uint64_t *res);
struct tevent_req *vfs_next_pread_send(struct vfs_module *m,
				       TALLOC_CTX *mem_ctx,
				       struct tevent_context *ev,
				       struct vfs_fh *fh, void *buf,
				       size_t len, uint64_t off);
struct tevent_req *vfs_next_pwrite_send(struct vfs_module *m,
					TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct vfs_fh *fh, const void *buf,
					size_t len, uint64_t off);
struct tevent_req *vfs_next_fsync_send(struct vfs_module *m,
				       TALLOC_CTX *mem_ctx,
				       struct tevent_context *ev,
				       struct vfs_fh *fh);
struct tevent_req *vfs_next_splice_write_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct uring_splice_src *src, unsigned n,
	uint64_t off, void *keep);
int vfs_next_map_read(struct vfs_module *m, struct vfs_fh *fh, size_t len,
		      void **addr);
struct tevent_req *vfs_next_splice_read_send(struct vfs_module *m,
					     TALLOC_CTX *mem_ctx,
					     struct tevent_context *ev,
					     struct vfs_fh *fh, int pipe_wr,
					     size_t len, uint64_t off,
					     void *keep);

/*
 * For modules: pread(2)/pwrite(2) of a descriptor until len (or EOF for
 * pread, *done the count), retrying short and interrupted calls; 0 or
 * -errno.  No identity switch: the caller decides (vfs_become).
 */
int vfs_pread_full(int fd, uint8_t *buf, size_t len, uint64_t off,
		   size_t *done);
int vfs_pwrite_full(int fd, const uint8_t *buf, size_t len, uint64_t off);

/*
 * For modules whose async op completed synchronously: a request already
 * done (err 0 with count, or an errno), posted so that it completes from
 * the event loop, never inside _send.
 */
struct tevent_req *vfs_io_posted(TALLOC_CTX *mem_ctx,
				 struct tevent_context *ev, int err,
				 size_t count);

/*
 * The common head of every module's async I/O state: a module completes
 * with vfs_io_done(req, count) or tevent_req_error(req, errno).
 */
struct vfs_io_state {
	size_t count;
};
void vfs_io_done(struct tevent_req *req, size_t count);
/* count or -errno */
int vfs_io_recv(struct tevent_req *req, size_t *count);

/*
 * For modules that make system calls on files: run them as vfs->token
 * (NULL: the daemon's own rights, root, inside a hold too).  vfs_become returns 0 or -errno (then nothing may be
 * done); each 0 must be paired with vfs_unbecome before returning to the
 * event loop.  The public vfs_* calls above do this around synchronous
 * ops themselves; async ops that end in a synchronous syscall
 * (vfs_default's pread ...) do it in the module.
 */
int vfs_become(const struct vfs_handle *vfs);
/*
 * A stretch of many synchronous calls as one user (one request's
 * synchronous part, pipeline.c; a directory listing): switches the
 * thread once (unix_token_hold), and vfs_become and
 * vfs_unbecome for the same token are free until vfs_release(the
 * result).  false: nothing held (no token, a hold already running, or
 * the switch failed: each call then switches as usual).  Never across a
 * return to the event loop.
 */
bool vfs_hold(const struct vfs_handle *vfs);
void vfs_release(bool held);
/* faccessat(fh, mode) as the handle's user (R_OK, W_OK ...) */
NTSTATUS vfs_faccess(struct vfs_fh *fh, int mode);
void vfs_unbecome(const struct vfs_handle *vfs);

/* The module tables (one per vfs_<name>.c). */
extern const struct vfs_ops vfs_default_ops;
extern const struct vfs_ops vfs_io_uring_ops;
extern const struct vfs_ops vfs_noop_ops;
extern const struct vfs_ops vfs_streams_xattr_ops;
extern const struct vfs_ops vfs_acl_xattr_ops;
extern const struct vfs_ops vfs_error_ops;

#endif
