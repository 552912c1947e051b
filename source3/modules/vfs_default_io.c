/*
 * vfs_default's file data I/O (split from vfs_default.c): pread, pwrite,
 * fsync and splice.  They do their work at once and complete through
 * tevent_req_post(), never inside _send, except reads of pages that are
 * not in the page cache, which go through the ring (docs/vfs.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "source3/modules/vfs_default_io.h"

struct default_io_state {
	struct vfs_io_state io;
	/* pread through the ring: bytes read before it, where the rest goes */
	size_t got;
	uint8_t *dst;
	uint8_t *bounce;
};

/*
 * Short reads are normal: loop until len or EOF.  flags RWF_NOWAIT: stop
 * with -EAGAIN (and *done so far) at the first page not in the page
 * cache instead of waiting for the disk.
 */
static int default_pread_flags(int fd, uint8_t *buf, size_t len,
			       uint64_t off, int flags, size_t *done)
{
	size_t got = 0;

	*done = 0;
	while (got < len) {
		struct iovec iov = { buf + got, len - got };
		ssize_t n = preadv2(fd, &iov, 1, (off_t)(off + got), flags);

		if (n < 0 && errno == EAGAIN && flags != 0) {
			*done = got;
			return -EAGAIN;
		}
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -errno;
		}
		if (n == 0) {
			break;
		}
		got += (size_t)n;
	}
	*done = got;
	return 0;
}

int vfs_pread_full(int fd, uint8_t *buf, size_t len, uint64_t off,
		   size_t *done)
{
	return default_pread_flags(fd, buf, len, off, 0, done);
}

/*
 * splice(2) until len, EOF or a full pipe (non-blocking: a splice
 * continued mid-page takes a pipe slot twice, see uring_splice_in in
 * lib/uring/uring.h), like default_pread_flags.
 */
static int default_splice_full(int fd, int pipe_wr, size_t len, uint64_t off,
			       size_t *done)
{
	size_t got = 0;

	while (got < len) {
		loff_t pos = (loff_t)(off + got);
		ssize_t n = splice(fd, &pos, pipe_wr, NULL, len - got,
				   SPLICE_F_NONBLOCK);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && errno == EAGAIN && got > 0) {
			break;          /* the pipe is full: short */
		}
		if (n < 0) {
			*done = got;
			return -errno;
		}
		if (n == 0) {
			break;
		}
		got += (size_t)n;
	}
	*done = got;
	return 0;
}

int vfs_pwrite_full(int fd, const uint8_t *buf, size_t len, uint64_t off)
{
	size_t put = 0;

	while (put < len) {
		ssize_t n = pwrite(fd, buf + put, len - put,
				   (off_t)(off + put));

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? -errno : -EIO;
		}
		put += (size_t)n;
	}
	return 0;
}

static struct tevent_req *default_io_finish(struct tevent_req *req,
					    struct tevent_context *ev,
					    int ret, size_t count)
{
	if (ret < 0) {
		tevent_req_error(req, -ret);
	} else {
		vfs_io_done(req, count);
	}
	return tevent_req_post(req, ev);
}

/*
 * default_io_as_opener: reading an open descriptor (pread, splice to a
 * pipe) and fsync run without switching to the user.  The kernel checked
 * the user's access when the user opened the file (as the user: fh was
 * opened under the switch); these calls check nothing that depends on
 * the caller's ids (DAC is not consulted again; LSMs judge the task's
 * label, which a uid switch does not change), so acting as root grants
 * nothing the descriptor did not already.  A switch costs two system
 * calls (docs/performance.md, "Identity"), per 4 KiB READ as much as
 * the read itself.  Writes, truncation and allocation do switch: as the
 * user they clear set-id bits and are held to the user's quota, neither
 * of which holds for root.  With vfs_io_uring every operation carries
 * the user's personality anyway.
 */
static void default_pread_rest_done(struct tevent_req *subreq);

/*
 * A large read copies its bytes with the worker's lock dropped (the
 * ring's gate, docs/architecture.md "Workers"), so the other workers go
 * on meanwhile: the copy out of the page cache is most of what a 1 MiB
 * READ costs.  buf is the request's; the reference keeps the descriptor
 * open whatever another thread does to the open meanwhile.
 */
#define DEFAULT_PREAD_UNLOCKED_MIN (64 * 1024)

static int default_pread_unlocked(struct tevent_context *ev,
				  struct vfs_fh *fh, uint8_t *buf,
				  size_t len, uint64_t off, int flags,
				  size_t *got)
{
	struct uring *gate = NULL;
	void *ref = NULL;
	bool left = false;
	int fd = fh->fd;
	int ret;

	if (len >= DEFAULT_PREAD_UNLOCKED_MIN) {
		gate = uring_ev_get(ev);
		ref = gate != NULL ? talloc_reference(ev, fh) : NULL;
		left = ref != NULL && uring_gate_leave(gate);
	}
	ret = default_pread_flags(fd, buf, len, off, flags, got);
	if (ref != NULL) {
		uring_gate_enter(gate, left);
		talloc_unlink(ev, fh);
	}
	return ret;
}

/*
 * default_pread_cached: a READ of pages in the page cache is one
 * preadv2(RWF_NOWAIT) here, as cheap as a plain pread; when a page is
 * not cached, the rest goes through the ring (IORING_OP_READ, io-wq
 * waits for the disk) so that the event loop never blocks on it and
 * other clients go on (docs/performance.md, "File I/O through the ring
 * by default?").  Without a ring: a plain pread.  No personality on the
 * ring read: as the synchronous read, see default_io_as_opener.  The
 * request references fh so the descriptor outlives the ring read, and
 * the ring reads into a buffer of its own (lib/uring's keep: the
 * caller's may be no talloc chunk), copied at completion: only for
 * pages that came from the disk.
 */
struct tevent_req *default_pread_send(struct vfs_module *m,
					     TALLOC_CTX *mem_ctx,
					     struct tevent_context *ev,
					     struct vfs_fh *fh, void *buf,
					     size_t len, uint64_t off)
{
	struct default_io_state *state = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct default_io_state);
	struct uring *ring = m->vfs->io_uring_enabled ? uring_ev_get(ev) :
			     NULL;
	struct tevent_req *subreq = NULL;
	size_t got = 0;
	int ret;

	if (req == NULL) {
		return NULL;
	}
	/* no switch: see default_io_as_opener */
	ret = default_pread_unlocked(ev, fh, buf, len, off,
				     ring != NULL && !fh->no_nowait ?
				     RWF_NOWAIT : 0, &got);
	if (ret == -EAGAIN) {
		/* the kernel without RWF_NOWAIT for this file: -EOPNOTSUPP */
		state->got = got;
		state->dst = (uint8_t *)buf + got;
		state->bounce = talloc_size(state, len - got);
		if (state->bounce == NULL ||
		    talloc_reference(state, fh) == NULL) {
			return default_io_finish(req, ev, -ENOMEM, 0);
		}
		subreq = uring_pread_send(state, ev, ring, fh->fd,
					  state->bounce, len - got,
					  (off_t)(off + got), state->bounce);
		if (subreq == NULL) {
			return default_io_finish(req, ev, -ENOMEM, 0);
		}
		tevent_req_set_callback(subreq, default_pread_rest_done, req);
		return req;
	}
	if (ret == -EOPNOTSUPP && ring != NULL && !fh->no_nowait) {
		/* tmpfs, some FUSE and network file systems: plain reads */
		fh->no_nowait = true;
		ret = default_pread_unlocked(ev, fh, buf, len, off, 0, &got);
	}
	return default_io_finish(req, ev, ret, got);
}

static void default_pread_rest_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct default_io_state *state = tevent_req_data(
		req, struct default_io_state);
	size_t n = 0;
	int ret = uring_pread_recv(subreq, &n);

	TALLOC_FREE(subreq);
	if (ret < 0) {
		tevent_req_error(req, -ret);
		return;
	}
	memcpy(state->dst, state->bounce, n);
	vfs_io_done(req, state->got + n);
}

/*
 * Is [off, off + len) all in the page cache?  cachestat(2) (Linux 6.5;
 * Debian 12's headers predate it, the number is the same on every
 * architecture).  Unknown (older kernel, a file system without a page
 * cache): true, the synchronous splice as before.
 */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
struct default_cachestat_range {
	uint64_t off;
	uint64_t len;
};
struct default_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

static bool default_range_cached(struct vfs_fh *fh, uint64_t off, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	struct default_cachestat_range r;
	struct default_cachestat cs = {};
	uint64_t first, last;

	if (fh->no_nowait || len == 0 || page <= 0) {
		return true;
	}
	first = off / (uint64_t)page;
	last = (off + len - 1) / (uint64_t)page;
	r = (struct default_cachestat_range){
		first * (uint64_t)page, (last - first + 1) * (uint64_t)page
	};
	if (syscall(__NR_cachestat, fh->fd, &r, &cs, 0) != 0) {
		if (errno == ENOSYS || errno == EOPNOTSUPP) {
			fh->no_nowait = true;   /* do not ask again */
		}
		return true;
	}
	/* (dirty pages count as cached; past EOF as not: cheap anyway) */
	return cs.nr_cache >= last - first + 1;
}

static void default_splice_ring_done(struct tevent_req *subreq);

/*
 * A splice of pages that are all cached runs here; one of pages that are
 * not goes through the ring (IORING_OP_SPLICE waits in io-wq), so the
 * loop never waits for the disk: default_pread_send's rule for the splice
 * read mode.  As opener, no switch (default_io_as_opener).
 */
struct tevent_req *default_splice_read_send(struct vfs_module *m,
						   TALLOC_CTX *mem_ctx,
						   struct tevent_context *ev,
						   struct vfs_fh *fh,
						   int pipe_wr, size_t len,
						   uint64_t off, void *keep)
{
	struct default_io_state *state = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct default_io_state);
	struct uring *ring = m->vfs->io_uring_enabled ? uring_ev_get(ev) :
			     NULL;
	struct tevent_req *subreq = NULL;
	size_t got = 0;
	int ret;

	if (req == NULL) {
		return NULL;
	}
	if (ring != NULL && !default_range_cached(fh, off, len)) {
		if (talloc_reference(state, fh) == NULL) {
			return default_io_finish(req, ev, -ENOMEM, 0);
		}
		subreq = uring_splice_in_send(state, ev, ring, fh->fd,
					      (off_t)off, pipe_wr, len, keep);
		if (subreq == NULL) {
			return default_io_finish(req, ev, -ENOMEM, 0);
		}
		tevent_req_set_callback(subreq, default_splice_ring_done, req);
		return req;
	}
	/* no switch: see default_io_as_opener */
	ret = default_splice_full(fh->fd, pipe_wr, len, off, &got);
	if (ret < 0 && got > 0) {
		ret = -EIO;     /* part is in the pipe: the caller drops it */
	}
	return default_io_finish(req, ev, ret, got);
}

static void default_splice_ring_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	size_t n = 0;
	int ret = uring_splice_in_recv(subreq, &n);

	TALLOC_FREE(subreq);
	if (ret < 0) {
		/* part in the pipe: the caller must drop the pipe */
		tevent_req_error(req, n > 0 ? EIO : -ret);
		return;
	}
	vfs_io_done(req, n);
}

static int default_splice_out(struct vfs_fh *fh,
			      const struct uring_splice_src *src, unsigned n,
			      uint64_t off, size_t *total)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		size_t put = 0;

		while (put < src[i].len) {
			loff_t pos = (loff_t)(off + *total);
			/* an empty pipe is a bug of ours: EAGAIN, not a hang */
			ssize_t w = splice(src[i].pipe_rd, NULL, fh->fd, &pos,
					   src[i].len - put,
					   SPLICE_F_NONBLOCK);

			if (w < 0 && errno == EINTR) {
				continue;
			}
			if (w <= 0) {
				return w < 0 ? -errno : -EIO;
			}
			put += (size_t)w;
			*total += (size_t)w;
		}
	}
	return 0;
}

struct tevent_req *default_splice_write_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct uring_splice_src *src, unsigned n,
	uint64_t off, void *keep)
{
	struct default_io_state *state = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct default_io_state);
	size_t total = 0;
	int ret;

	if (req == NULL) {
		return NULL;
	}
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = default_splice_out(fh, src, n, off, &total);
		vfs_unbecome(fh->vfs);
	}
	return default_io_finish(req, ev, ret, total);
}

static void default_pwrite_ring_done(struct tevent_req *subreq);

/*
 * With several workers (vfs_handle.ring_write_min) a large WRITE goes
 * through the ring as the user (the token's personality on this ring):
 * the copy into the page cache then runs in io_uring_enter, outside the
 * server lock, while the other workers go on.  Otherwise, and when no
 * personality can be had, a pwrite under the switch.  The request
 * references fh so the descriptor outlives the ring write; buf is the
 * caller's until completion (vfs.h).
 */
static struct tevent_req *default_pwrite_ring(struct tevent_req *req,
					      struct default_io_state *state,
					      struct tevent_context *ev,
					      struct uring *ring,
					      uint16_t personality,
					      struct vfs_fh *fh,
					      const void *buf, size_t len,
					      uint64_t off)
{
	struct tevent_req *subreq = NULL;
	uint16_t prev;

	if (talloc_reference(state, fh) == NULL) {
		return default_io_finish(req, ev, -ENOMEM, 0);
	}
	prev = uring_set_personality(ring, personality);
	subreq = uring_pwrite_send(state, ev, ring, fh->fd, buf, len,
				   (off_t)off, NULL);
	uring_set_personality(ring, prev);
	if (subreq == NULL) {
		return default_io_finish(req, ev, -ENOMEM, 0);
	}
	tevent_req_set_callback(subreq, default_pwrite_ring_done, req);
	return req;
}

static void default_pwrite_ring_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	size_t n = 0;
	int ret = uring_pwrite_recv(subreq, &n);

	TALLOC_FREE(subreq);
	if (ret < 0) {
		tevent_req_error(req, -ret);
		return;
	}
	vfs_io_done(req, n);
}

struct tevent_req *default_pwrite_send(struct vfs_module *m,
					      TALLOC_CTX *mem_ctx,
					      struct tevent_context *ev,
					      struct vfs_fh *fh,
					      const void *buf, size_t len,
					      uint64_t off)
{
	struct default_io_state *state = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct default_io_state);
	struct uring *ring = NULL;
	uint16_t personality = 0;
	int ret;

	if (req == NULL) {
		return NULL;
	}
	if (m->vfs->ring_write_min > 0 && len >= m->vfs->ring_write_min &&
	    m->vfs->io_uring_enabled && fh->stream == NULL) {
		ring = uring_ev_get(ev);
		personality = vfs_ring_personality(m->vfs, ring);
		if (ring != NULL &&
		    (personality != 0 || m->vfs->token == NULL)) {
			return default_pwrite_ring(req, state, ev, ring,
						   personality, fh, buf, len,
						   off);
		}
	}
	ret = vfs_become(fh->vfs);
	if (ret == 0) {
		ret = vfs_pwrite_full(fh->fd, buf, len, off);
		vfs_unbecome(fh->vfs);
	}
	return default_io_finish(req, ev, ret, len);
}

struct tevent_req *default_fsync_send(struct vfs_module *m,
					     TALLOC_CTX *mem_ctx,
					     struct tevent_context *ev,
					     struct vfs_fh *fh)
{
	struct default_io_state *state = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct default_io_state);
	int ret;

	if (req == NULL) {
		return NULL;
	}
	/* no switch: see default_io_as_opener */
	ret = fsync(fh->fd) == 0 ? 0 : -errno;
	return default_io_finish(req, ev, ret, 0);
}
