/*
 * pread/pwrite/fsync on the ring, or as plain syscalls when ring == NULL
 * (completion posted, never inside _send).  Short transfers are normal:
 * loop until done or EOF (Samba bug 14361).
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include "lib/uring/uring_private.h"

/* Linux transfers at most this much per read/write call (MAX_RW_COUNT) */
#define URING_RW_MAX 0x7ffff000u

#define URING_MORE 1

/*
 * -EAGAIN from the ring (a file opened O_NONBLOCK, a device that would
 * block) is tried again this many times, then returned: the caller falls
 * back to a call that may block (vfs_io_uring) instead of the ring
 * spinning on it.
 */
#define URING_RW_EAGAIN_RETRIES 2

struct uring_rw_state {
	struct tevent_context *ev;
	struct uring *ring;
	struct tevent_req *subreq;
	int fd;
	bool write;
	uint8_t *buf;
	size_t len;
	off_t off;
	size_t done;
	void *keep;
	unsigned eagain;                /* in a row, without progress */
	uint8_t fault;                  /* uring_fault_arm: every step */
};

static void uring_rw_done(struct tevent_req *subreq);

/* Samba's sys_valid_io_range: the last byte must fit in off_t */
static int uring_io_range_check(off_t off, size_t len)
{
	if (off < 0 || (uint64_t)len > (uint64_t)(INT64_MAX - off)) {
		return -EINVAL;
	}
	return 0;
}

/* One transfer's result: URING_MORE, 0 when complete, or -errno. */
static int uring_rw_advance(struct uring_rw_state *s, int64_t res)
{
	if (res == -EAGAIN) {
		return ++s->eagain > URING_RW_EAGAIN_RETRIES ? -EAGAIN :
			URING_MORE;
	}
	if (res == -EINTR) {
		return URING_MORE;
	}
	s->eagain = 0;
	if (res < 0) {
		return (int)res;
	}
	if (res == 0) {
		return s->write ? -EIO : 0;     /* EOF ends a read */
	}
	s->done += (size_t)res;
	return s->done < s->len ? URING_MORE : 0;
}

static size_t uring_rw_chunk(const struct uring_rw_state *s)
{
	size_t left = s->len - s->done;

	return left < URING_RW_MAX ? left : URING_RW_MAX;
}

static int uring_rw_sync(struct uring_rw_state *s)
{
	int ret;

	do {
		off_t off = s->off + (off_t)s->done;
		ssize_t n = s->write ?
			pwrite(s->fd, s->buf + s->done, uring_rw_chunk(s), off) :
			pread(s->fd, s->buf + s->done, uring_rw_chunk(s), off);

		if (n < 0 && errno == EAGAIN) {
			return -EAGAIN; /* O_NONBLOCK: do not spin */
		}
		ret = uring_rw_advance(s, n < 0 ? -errno : n);
	} while (ret == URING_MORE);
	return ret;
}

/*
 * Memory in a registered buffer goes as READ_FIXED/WRITE_FIXED: the
 * kernel skips pinning and mapping the user pages on every call.
 */
static void uring_rw_prep(struct io_uring_sqe *sqe, void *private_data)
{
	struct uring_rw_state *s = private_data;
	uint64_t off = (uint64_t)s->off + s->done;
	uint8_t *p = s->buf + s->done;
	unsigned len = (unsigned)uring_rw_chunk(s);
	int idx = uring_buf_index(s->ring, p, len);

	if (idx >= 0 && s->write) {
		io_uring_prep_write_fixed(sqe, s->fd, p, len, off, idx);
	} else if (idx >= 0) {
		io_uring_prep_read_fixed(sqe, s->fd, p, len, off, idx);
	} else if (s->write) {
		io_uring_prep_write(sqe, s->fd, p, len, off);
	} else {
		io_uring_prep_read(sqe, s->fd, p, len, off);
	}
}

static int uring_rw_step(struct tevent_req *req)
{
	struct uring_rw_state *s = tevent_req_data(req, struct uring_rw_state);

	/* a fault armed for this call holds for every SQE of it */
	uring_fault_arm(s->ring, s->fault);
	s->subreq = uring_req_send(s, s->ev, s->ring, uring_rw_prep, s,
				   s->keep);
	uring_fault_arm(s->ring, URING_FAULT_NONE);
	if (s->subreq == NULL) {
		return -ENOMEM;
	}
	tevent_req_set_callback(s->subreq, uring_rw_done, req);
	return 0;
}

static void uring_rw_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(
		subreq, struct tevent_req);
	struct uring_rw_state *s = tevent_req_data(req, struct uring_rw_state);
	int32_t res = 0;
	int ret = uring_req_recv(subreq, &res);

	TALLOC_FREE(subreq);
	s->subreq = NULL;
	if (ret == 0) {
		ret = uring_rw_advance(s, res);
	}
	if (ret == URING_MORE) {
		ret = uring_rw_step(req);
		if (ret == 0) {
			return;
		}
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
		return;
	}
	tevent_req_done(req);
}

static bool uring_rw_cancel(struct tevent_req *req)
{
	struct uring_rw_state *s = tevent_req_data(req, struct uring_rw_state);

	return s->subreq != NULL && tevent_req_cancel(s->subreq);
}

/* Finished early (timeout, error) or freed: drop the sub-request. */
static void uring_rw_cleanup(struct tevent_req *req,
			     enum tevent_req_state req_state)
{
	struct uring_rw_state *s = tevent_req_data(req, struct uring_rw_state);

	TALLOC_FREE(s->subreq);
}

static int uring_rw_start(struct tevent_req *req, struct uring_rw_state *s)
{
	int ret = uring_io_range_check(s->off, s->len);

	if (ret != 0 || s->len == 0) {
		return ret;
	}
	if (s->ring == NULL) {
		return uring_rw_sync(s);
	}
	ret = uring_rw_step(req);
	return ret == 0 ? URING_MORE : ret;
}

static struct tevent_req *uring_rw_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct uring *ring, int fd,
					void *buf, size_t len, off_t off,
					void *keep, bool write)
{
	struct tevent_req *req = NULL;
	struct uring_rw_state *s = NULL;
	int ret;

	req = tevent_req_create(mem_ctx, &s, struct uring_rw_state);
	if (req == NULL) {
		return NULL;
	}
	*s = (struct uring_rw_state) {
		.ev = ev, .ring = ring, .fd = fd, .write = write,
		.buf = buf, .len = len, .off = off, .keep = keep,
		.fault = ring != NULL ? ring->fault_armed : URING_FAULT_NONE,
	};
	tevent_req_set_cleanup_fn(req, uring_rw_cleanup);
	tevent_req_set_cancel_fn(req, uring_rw_cancel);
	ret = uring_rw_start(req, s);
	if (ret == URING_MORE) {
		return req;
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
	} else {
		tevent_req_done(req);
	}
	return tevent_req_post(req, ev);
}

static int uring_rw_recv(struct tevent_req *req, size_t *ndone)
{
	struct uring_rw_state *s = tevent_req_data(req, struct uring_rw_state);
	int ret = uring_req_error(req);

	*ndone = ret == 0 ? s->done : 0;
	tevent_req_received(req);
	return ret;
}

struct tevent_req *uring_pread_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct uring *ring, int fd,
				    void *buf, size_t len, off_t off,
				    void *keep)
{
	return uring_rw_send(mem_ctx, ev, ring, fd, buf, len, off, keep,
			     false);
}

int uring_pread_recv(struct tevent_req *req, size_t *nread)
{
	return uring_rw_recv(req, nread);
}

struct tevent_req *uring_pwrite_send(TALLOC_CTX *mem_ctx,
				     struct tevent_context *ev,
				     struct uring *ring, int fd,
				     const void *buf, size_t len, off_t off,
				     void *keep)
{
	/* the ring and pwrite(2) only read from buf */
	return uring_rw_send(mem_ctx, ev, ring, fd, (void *)(uintptr_t)buf,
			     len, off, keep, true);
}

int uring_pwrite_recv(struct tevent_req *req, size_t *nwritten)
{
	return uring_rw_recv(req, nwritten);
}

/* ---- fsync ---- */

struct uring_fsync_state {
	struct tevent_context *ev;
	struct uring *ring;
	struct tevent_req *subreq;
	int fd;
	bool datasync;
};

static void uring_fsync_done(struct tevent_req *subreq);

static int uring_fsync_sync(const struct uring_fsync_state *s)
{
	int ret;

	do {
		ret = s->datasync ? fdatasync(s->fd) : fsync(s->fd);
	} while (ret == -1 && errno == EINTR);
	return ret == -1 ? -errno : 0;
}

static void uring_fsync_prep(struct io_uring_sqe *sqe, void *private_data)
{
	struct uring_fsync_state *s = private_data;

	io_uring_prep_fsync(sqe, s->fd,
			    s->datasync ? IORING_FSYNC_DATASYNC : 0);
}

static int uring_fsync_step(struct tevent_req *req)
{
	struct uring_fsync_state *s = tevent_req_data(
		req, struct uring_fsync_state);

	s->subreq = uring_req_send(s, s->ev, s->ring, uring_fsync_prep, s,
				   NULL);
	if (s->subreq == NULL) {
		return -ENOMEM;
	}
	tevent_req_set_callback(s->subreq, uring_fsync_done, req);
	return 0;
}

static void uring_fsync_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(
		subreq, struct tevent_req);
	struct uring_fsync_state *s = tevent_req_data(
		req, struct uring_fsync_state);
	int32_t res = 0;
	int ret = uring_req_recv(subreq, &res);

	TALLOC_FREE(subreq);
	s->subreq = NULL;
	if (ret == 0 && res == -EINTR) {
		ret = uring_fsync_step(req);
		if (ret == 0) {
			return;
		}
	}
	if (ret == 0 && res < 0) {
		ret = res;
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
		return;
	}
	tevent_req_done(req);
}

static bool uring_fsync_cancel(struct tevent_req *req)
{
	struct uring_fsync_state *s = tevent_req_data(
		req, struct uring_fsync_state);

	return s->subreq != NULL && tevent_req_cancel(s->subreq);
}

static void uring_fsync_cleanup(struct tevent_req *req,
				enum tevent_req_state req_state)
{
	struct uring_fsync_state *s = tevent_req_data(
		req, struct uring_fsync_state);

	TALLOC_FREE(s->subreq);
}

struct tevent_req *uring_fsync_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct uring *ring, int fd, bool datasync)
{
	struct tevent_req *req = NULL;
	struct uring_fsync_state *s = NULL;
	int ret;

	req = tevent_req_create(mem_ctx, &s, struct uring_fsync_state);
	if (req == NULL) {
		return NULL;
	}
	*s = (struct uring_fsync_state) {
		.ev = ev, .ring = ring, .fd = fd, .datasync = datasync,
	};
	tevent_req_set_cleanup_fn(req, uring_fsync_cleanup);
	tevent_req_set_cancel_fn(req, uring_fsync_cancel);
	if (ring != NULL) {
		ret = uring_fsync_step(req);
		if (ret == 0) {
			return req;
		}
	} else {
		ret = uring_fsync_sync(s);
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
	} else {
		tevent_req_done(req);
	}
	return tevent_req_post(req, ev);
}

int uring_fsync_recv(struct tevent_req *req)
{
	int ret = uring_req_error(req);

	tevent_req_received(req);
	return ret;
}
