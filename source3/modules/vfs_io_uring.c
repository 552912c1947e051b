/*
 * vfs_io_uring: pread, pwrite, fsync and splice as ring operations
 * (lib/uring).
 *
 * The ring is the event context's (uring_ev_get), shared by every share
 * and connection of the worker, so a loop iteration costs one submit
 * however many reads it queued.  Without a ring (io_uring unavailable, or
 * "io_uring = no") each call goes to the next module, i.e. vfs_default.
 *
 * The read buffer must be a talloc chunk: it is lib/uring's `keep`, so it
 * outlives the kernel's use even if the request is freed in flight.  A
 * write buffer may point into a larger chunk (a WRITE's data inside its
 * PDU), which lib/uring cannot reference: the caller keeps it alive
 * until the request completes and never frees the request in flight
 * (commands/write.c hands it to the server instead).
 *
 * The kernel looks the fd up when the SQE is submitted, at the end of the
 * loop iteration, not here.  If the open were closed in between (a CLOSE
 * racing this READ) and another open got the same fd number, the read
 * would return that other file's bytes.  So each request holds a talloc
 * reference on the vfs_fh: freeing the open then leaves the fh (and its
 * fd) under the request until the request is freed.
 */
#include <errno.h>
#include "lib/util/debug.h"
#include "source3/modules/vfs.h"
#include "lib/uring/uring.h"

/*
 * The arguments of one call as its _send op received them.  Each op's
 * start reads the fields it needs; the struct lives on the _send op's
 * stack and is read only while the ring request is being started
 * (NULL for fsync, which needs none).
 */
struct vfs_io_uring_args {
	void *buf;                              /* pread */
	const void *wbuf;                       /* pwrite */
	size_t len;                             /* pread, pwrite, splice_read */
	uint64_t off;
	int pipe_wr;                            /* splice_read */
	const struct uring_splice_src *src;     /* splice_write */
	unsigned n;                             /* splice_write */
	void *keep;                             /* splice_read, splice_write */
};

/*
 * What differs between the operations.  start begins the lib/uring
 * request under mem_ctx while the ring stages SQEs with the handle's
 * personality; finish reads its result: 0 and *count (which starts at
 * 0), or -errno.
 */
typedef struct tevent_req *(*vfs_io_uring_start_fn)(
	TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct uring *ring,
	int fd, const struct vfs_io_uring_args *a);
typedef int (*vfs_io_uring_finish_fn)(struct tevent_req *subreq,
				      size_t *count);
/* the same call through the next module (vfs_next_pread_send, ...) */
typedef struct tevent_req *(*vfs_io_uring_next_fn)(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct vfs_io_uring_args *a);

/*
 * next, where set: a completion of -EAGAIN (the kernel could not serve
 * the request without blocking, e.g. a file opened O_NONBLOCK) is
 * retried once through the next module, which blocks or hands the call
 * to a thread instead of failing the client's READ or WRITE.  The
 * splices have none: READ and WRITE copy when a splice fails.
 */
struct vfs_io_uring_op {
	vfs_io_uring_start_fn start;
	vfs_io_uring_finish_fn finish;
	vfs_io_uring_next_fn next;
};

struct io_uring_state {
	struct vfs_io_state io;         /* first: vfs_io_recv reads it */
	const struct vfs_io_uring_op *op;
	/* for the retry: the call as it came (a->src is not kept: no next) */
	struct vfs_module *m;
	struct tevent_context *ev;
	struct vfs_fh *fh;
	struct vfs_io_uring_args a;
};

/*
 * NULL also when the handle's user has no personality on the ring (the
 * registration failed, or the ring is another worker's): then the next module does the call with the
 * thread switched to the user (docs/security.md), never as root.  A
 * named stream's data is no file range: the module below serves it.
 */
static struct uring *vfs_io_uring_ring(struct vfs_module *m,
				       struct tevent_context *ev,
				       const struct vfs_fh *fh)
{
	const struct unix_token *t = m->vfs->token;
	struct uring *ring = NULL;

	if (!m->vfs->io_uring_enabled || fh->stream != NULL) {
		return NULL;
	}
	ring = uring_ev_get(ev);
	if (t != NULL && vfs_ring_personality(m->vfs, ring) == 0) {
		return NULL;
	}
	return ring;
}

static void vfs_io_uring_done(struct tevent_req *subreq);

/*
 * The one submit path: a request that references fh (see the top of the
 * file) and owns the ring request, started as the handle's user.
 * Freeing the request frees the ring request, which lib/uring cancels.
 */
static struct tevent_req *vfs_io_uring_submit(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct uring *ring, struct vfs_fh *fh,
	const struct vfs_io_uring_op *op, const struct vfs_io_uring_args *a)
{
	const struct unix_token *t = m->vfs->token;
	struct io_uring_state *state = NULL;
	struct tevent_req *req = NULL;
	struct tevent_req *subreq = NULL;
	uint16_t prev;

	req = tevent_req_create(mem_ctx, &state, struct io_uring_state);
	if (req == NULL) {
		return NULL;
	}
	state->op = op;
	state->m = m;
	state->ev = ev;
	state->fh = fh;
	if (a != NULL) {
		state->a = *a;
	}
	if (tevent_req_nomem(talloc_reference(state, fh), req)) {
		return tevent_req_post(req, ev);
	}
	/* the SQEs staged until the restore run as the handle's user */
	prev = uring_set_personality(ring, t != NULL ?
				     vfs_ring_personality(m->vfs, ring) : 0);
	subreq = op->start(state, ev, ring, fh->fd, a);
	uring_set_personality(ring, prev);
	if (tevent_req_nomem(subreq, req)) {
		return tevent_req_post(req, ev);
	}
	tevent_req_set_callback(subreq, vfs_io_uring_done, req);
	return req;
}

static void vfs_io_uring_retried(struct tevent_req *subreq);

/* The one completion path. */
static void vfs_io_uring_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct io_uring_state *state = tevent_req_data(req,
						       struct io_uring_state);
	size_t count = 0;
	int ret = state->op->finish(subreq, &count);

	TALLOC_FREE(subreq);
	if (ret == -EAGAIN && state->op->next != NULL) {
		DBG_INFO("EAGAIN from the ring: once more without it\n");
		subreq = state->op->next(state->m, state, state->ev,
					 state->fh, &state->a);
		if (tevent_req_nomem(subreq, req)) {
			return;
		}
		tevent_req_set_callback(subreq, vfs_io_uring_retried, req);
		return;
	}
	if (ret < 0) {
		tevent_req_error(req, -ret);
		return;
	}
	vfs_io_done(req, count);
}

static void vfs_io_uring_retried(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	size_t count = 0;
	int ret = vfs_io_recv(subreq, &count);

	TALLOC_FREE(subreq);
	if (ret < 0) {
		tevent_req_error(req, -ret);
		return;
	}
	vfs_io_done(req, count);
}

/* The read buffer is a talloc chunk: it is its own keep (above). */
static struct tevent_req *vfs_io_uring_pread_start(
	TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct uring *ring,
	int fd, const struct vfs_io_uring_args *a)
{
	return uring_pread_send(mem_ctx, ev, ring, fd, a->buf, a->len,
				(off_t)a->off, a->buf);
}

static struct tevent_req *vfs_io_uring_pread_next(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct vfs_io_uring_args *a)
{
	return vfs_next_pread_send(m, mem_ctx, ev, fh, a->buf, a->len,
				   a->off);
}

static const struct vfs_io_uring_op vfs_io_uring_pread = {
	.start = vfs_io_uring_pread_start,
	.finish = uring_pread_recv,
	.next = vfs_io_uring_pread_next,
};

static struct tevent_req *vfs_io_uring_pread_send(struct vfs_module *m,
						  TALLOC_CTX *mem_ctx,
						  struct tevent_context *ev,
						  struct vfs_fh *fh, void *buf,
						  size_t len, uint64_t off)
{
	struct uring *ring = vfs_io_uring_ring(m, ev, fh);
	const struct vfs_io_uring_args a = {
		.buf = buf, .len = len, .off = off,
	};

	if (ring == NULL) {
		return vfs_next_pread_send(m, mem_ctx, ev, fh, buf, len, off);
	}
	return vfs_io_uring_submit(m, mem_ctx, ev, ring, fh,
				   &vfs_io_uring_pread, &a);
}

/* buf may be any memory the caller keeps until completion (above). */
static struct tevent_req *vfs_io_uring_pwrite_start(
	TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct uring *ring,
	int fd, const struct vfs_io_uring_args *a)
{
	return uring_pwrite_send(mem_ctx, ev, ring, fd, a->wbuf, a->len,
				 (off_t)a->off, NULL);
}

static struct tevent_req *vfs_io_uring_pwrite_next(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct vfs_io_uring_args *a)
{
	return vfs_next_pwrite_send(m, mem_ctx, ev, fh, a->wbuf, a->len,
				    a->off);
}

static const struct vfs_io_uring_op vfs_io_uring_pwrite = {
	.start = vfs_io_uring_pwrite_start,
	.finish = uring_pwrite_recv,
	.next = vfs_io_uring_pwrite_next,
};

static struct tevent_req *vfs_io_uring_pwrite_send(struct vfs_module *m,
						   TALLOC_CTX *mem_ctx,
						   struct tevent_context *ev,
						   struct vfs_fh *fh,
						   const void *buf,
						   size_t len, uint64_t off)
{
	struct uring *ring = vfs_io_uring_ring(m, ev, fh);
	const struct vfs_io_uring_args a = {
		.wbuf = buf, .len = len, .off = off,
	};

	if (ring == NULL) {
		return vfs_next_pwrite_send(m, mem_ctx, ev, fh, buf, len, off);
	}
	return vfs_io_uring_submit(m, mem_ctx, ev, ring, fh,
				   &vfs_io_uring_pwrite, &a);
}

static struct tevent_req *vfs_io_uring_fsync_start(
	TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct uring *ring,
	int fd, const struct vfs_io_uring_args *a)
{
	return uring_fsync_send(mem_ctx, ev, ring, fd, false);
}

/* count stays 0 */
static int vfs_io_uring_fsync_finish(struct tevent_req *subreq,
				     size_t *count)
{
	return uring_fsync_recv(subreq);
}

static struct tevent_req *vfs_io_uring_fsync_next(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct vfs_io_uring_args *a)
{
	return vfs_next_fsync_send(m, mem_ctx, ev, fh);
}

static const struct vfs_io_uring_op vfs_io_uring_fsync = {
	.start = vfs_io_uring_fsync_start,
	.finish = vfs_io_uring_fsync_finish,
	.next = vfs_io_uring_fsync_next,
};

static struct tevent_req *vfs_io_uring_fsync_send(struct vfs_module *m,
						  TALLOC_CTX *mem_ctx,
						  struct tevent_context *ev,
						  struct vfs_fh *fh)
{
	struct uring *ring = vfs_io_uring_ring(m, ev, fh);

	if (ring == NULL) {
		return vfs_next_fsync_send(m, mem_ctx, ev, fh);
	}
	return vfs_io_uring_submit(m, mem_ctx, ev, ring, fh,
				   &vfs_io_uring_fsync, NULL);
}

/* file -> pipe as IORING_OP_SPLICE (docs/architecture.md, "Data path modes") */
static struct tevent_req *vfs_io_uring_splice_read_start(
	TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct uring *ring,
	int fd, const struct vfs_io_uring_args *a)
{
	return uring_splice_in_send(mem_ctx, ev, ring, fd, (off_t)a->off,
				    a->pipe_wr, a->len, a->keep);
}

static int vfs_io_uring_splice_read_finish(struct tevent_req *subreq,
					   size_t *count)
{
	int ret = uring_splice_in_recv(subreq, count);

	if (ret < 0 && *count > 0) {
		/* part in the pipe: the caller must drop the pipe */
		return -EIO;
	}
	return ret;
}

static const struct vfs_io_uring_op vfs_io_uring_splice_read = {
	.start = vfs_io_uring_splice_read_start,
	.finish = vfs_io_uring_splice_read_finish,
};

static struct tevent_req *vfs_io_uring_splice_read_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, int pipe_wr, size_t len, uint64_t off, void *keep)
{
	struct uring *ring = vfs_io_uring_ring(m, ev, fh);
	const struct vfs_io_uring_args a = {
		.pipe_wr = pipe_wr, .len = len, .off = off, .keep = keep,
	};

	if (ring == NULL || !uring_op_supported(ring, IORING_OP_SPLICE)) {
		return vfs_next_splice_read_send(m, mem_ctx, ev, fh, pipe_wr,
						 len, off, keep);
	}
	return vfs_io_uring_submit(m, mem_ctx, ev, ring, fh,
				   &vfs_io_uring_splice_read, &a);
}

/* pipes -> file as IORING_OP_SPLICE */
static struct tevent_req *vfs_io_uring_splice_write_start(
	TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct uring *ring,
	int fd, const struct vfs_io_uring_args *a)
{
	return uring_splice_out_send(mem_ctx, ev, ring, a->src, a->n, fd,
				     a->off, a->keep);
}

static const struct vfs_io_uring_op vfs_io_uring_splice_write = {
	.start = vfs_io_uring_splice_write_start,
	.finish = uring_splice_sp_recv,
};

static struct tevent_req *vfs_io_uring_splice_write_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct uring_splice_src *src, unsigned n,
	uint64_t off, void *keep)
{
	struct uring *ring = vfs_io_uring_ring(m, ev, fh);
	const struct vfs_io_uring_args a = {
		.src = src, .n = n, .off = off, .keep = keep,
	};

	if (ring == NULL || !uring_op_supported(ring, IORING_OP_SPLICE)) {
		return vfs_next_splice_write_send(m, mem_ctx, ev, fh, src, n,
						  off, keep);
	}
	return vfs_io_uring_submit(m, mem_ctx, ev, ring, fh,
				   &vfs_io_uring_splice_write, &a);
}

const struct vfs_ops vfs_io_uring_ops = {
	.name = "io_uring",
	.pread_send = vfs_io_uring_pread_send,
	.pwrite_send = vfs_io_uring_pwrite_send,
	.fsync_send = vfs_io_uring_fsync_send,
	.splice_read_send = vfs_io_uring_splice_read_send,
	.splice_write_send = vfs_io_uring_splice_write_send,
};
