/*
 * vfs_io_uring: pread, pwrite and fsync as ring operations (lib/uring).
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
#include "source3/modules/vfs.h"
#include "lib/uring/uring.h"

struct io_uring_state {
	struct vfs_io_state io;
};

/*
 * NULL also when the handle's user has no personality on the ring (the
 * registration failed): then the next module does the call with the
 * thread switched to the user (docs/security.md), never as root.
 */
static struct uring *vfs_io_uring_ring(struct vfs_module *m,
				       struct tevent_context *ev)
{
	const struct unix_token *t = m->vfs->token;

	if (!m->vfs->io_uring_enabled ||
	    (t != NULL && t->personality == 0)) {
		return NULL;
	}
	return uring_ev_get(ev);
}

/* The SQEs staged until the matching restore run as the handle's user. */
static uint16_t vfs_io_uring_as_user(struct uring *ring,
				     const struct vfs_module *m)
{
	const struct unix_token *t = m->vfs->token;

	return uring_set_personality(ring, t != NULL ? t->personality : 0);
}

static void vfs_io_uring_pread_done(struct tevent_req *subreq);

static struct tevent_req *vfs_io_uring_pread_send(struct vfs_module *m,
						  TALLOC_CTX *mem_ctx,
						  struct tevent_context *ev,
						  struct vfs_fh *fh, void *buf,
						  size_t len, uint64_t off)
{
	struct uring *ring = vfs_io_uring_ring(m, ev);
	struct io_uring_state *state = NULL;
	struct tevent_req *req = NULL;
	struct tevent_req *subreq = NULL;
	uint16_t prev;

	if (ring == NULL) {
		return vfs_next_pread_send(m, mem_ctx, ev, fh, buf, len, off);
	}
	req = tevent_req_create(mem_ctx, &state, struct io_uring_state);
	if (req == NULL) {
		return NULL;
	}
	if (tevent_req_nomem(talloc_reference(state, fh), req)) {
		return tevent_req_post(req, ev);
	}
	prev = vfs_io_uring_as_user(ring, m);
	subreq = uring_pread_send(state, ev, ring, fh->fd, buf, len,
				  (off_t)off, buf);
	uring_set_personality(ring, prev);
	if (tevent_req_nomem(subreq, req)) {
		return tevent_req_post(req, ev);
	}
	tevent_req_set_callback(subreq, vfs_io_uring_pread_done, req);
	return req;
}

static void vfs_io_uring_pread_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	size_t nread = 0;
	int ret = uring_pread_recv(subreq, &nread);

	TALLOC_FREE(subreq);
	if (ret < 0) {
		tevent_req_error(req, -ret);
		return;
	}
	vfs_io_done(req, nread);
}

static void vfs_io_uring_pwrite_done(struct tevent_req *subreq);

/* buf may be any memory the caller keeps until completion (above). */
static struct tevent_req *vfs_io_uring_pwrite_send(struct vfs_module *m,
						   TALLOC_CTX *mem_ctx,
						   struct tevent_context *ev,
						   struct vfs_fh *fh,
						   const void *buf,
						   size_t len, uint64_t off)
{
	struct uring *ring = vfs_io_uring_ring(m, ev);
	struct io_uring_state *state = NULL;
	struct tevent_req *req = NULL;
	struct tevent_req *subreq = NULL;
	uint16_t prev;

	if (ring == NULL) {
		return vfs_next_pwrite_send(m, mem_ctx, ev, fh, buf, len, off);
	}
	req = tevent_req_create(mem_ctx, &state, struct io_uring_state);
	if (req == NULL) {
		return NULL;
	}
	if (tevent_req_nomem(talloc_reference(state, fh), req)) {
		return tevent_req_post(req, ev);
	}
	prev = vfs_io_uring_as_user(ring, m);
	subreq = uring_pwrite_send(state, ev, ring, fh->fd, buf, len,
				   (off_t)off, NULL);
	uring_set_personality(ring, prev);
	if (tevent_req_nomem(subreq, req)) {
		return tevent_req_post(req, ev);
	}
	tevent_req_set_callback(subreq, vfs_io_uring_pwrite_done, req);
	return req;
}

static void vfs_io_uring_pwrite_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	size_t nwritten = 0;
	int ret = uring_pwrite_recv(subreq, &nwritten);

	TALLOC_FREE(subreq);
	if (ret < 0) {
		tevent_req_error(req, -ret);
		return;
	}
	vfs_io_done(req, nwritten);
}

static void vfs_io_uring_fsync_done(struct tevent_req *subreq);

static struct tevent_req *vfs_io_uring_fsync_send(struct vfs_module *m,
						  TALLOC_CTX *mem_ctx,
						  struct tevent_context *ev,
						  struct vfs_fh *fh)
{
	struct uring *ring = vfs_io_uring_ring(m, ev);
	struct io_uring_state *state = NULL;
	struct tevent_req *req = NULL;
	struct tevent_req *subreq = NULL;
	uint16_t prev;

	if (ring == NULL) {
		return vfs_next_fsync_send(m, mem_ctx, ev, fh);
	}
	req = tevent_req_create(mem_ctx, &state, struct io_uring_state);
	if (req == NULL) {
		return NULL;
	}
	if (tevent_req_nomem(talloc_reference(state, fh), req)) {
		return tevent_req_post(req, ev);
	}
	prev = vfs_io_uring_as_user(ring, m);
	subreq = uring_fsync_send(state, ev, ring, fh->fd, false);
	uring_set_personality(ring, prev);
	if (tevent_req_nomem(subreq, req)) {
		return tevent_req_post(req, ev);
	}
	tevent_req_set_callback(subreq, vfs_io_uring_fsync_done, req);
	return req;
}

static void vfs_io_uring_fsync_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	int ret = uring_fsync_recv(subreq);

	TALLOC_FREE(subreq);
	if (ret < 0) {
		tevent_req_error(req, -ret);
		return;
	}
	vfs_io_done(req, 0);
}

static void vfs_io_uring_splice_done(struct tevent_req *subreq);

/* file -> pipe as IORING_OP_SPLICE (DESIGN.md section 5) */
static struct tevent_req *vfs_io_uring_splice_read_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, int pipe_wr, size_t len, uint64_t off, void *keep)
{
	struct uring *ring = vfs_io_uring_ring(m, ev);
	struct io_uring_state *state = NULL;
	struct tevent_req *req = NULL;
	struct tevent_req *subreq = NULL;
	uint16_t prev;

	if (ring == NULL || !uring_op_supported(ring, IORING_OP_SPLICE)) {
		return vfs_next_splice_read_send(m, mem_ctx, ev, fh, pipe_wr,
						 len, off, keep);
	}
	req = tevent_req_create(mem_ctx, &state, struct io_uring_state);
	if (req == NULL) {
		return NULL;
	}
	if (tevent_req_nomem(talloc_reference(state, fh), req)) {
		return tevent_req_post(req, ev);
	}
	prev = vfs_io_uring_as_user(ring, m);
	subreq = uring_splice_in_send(state, ev, ring, fh->fd, (off_t)off,
				      pipe_wr, len, keep);
	uring_set_personality(ring, prev);
	if (tevent_req_nomem(subreq, req)) {
		return tevent_req_post(req, ev);
	}
	tevent_req_set_callback(subreq, vfs_io_uring_splice_done, req);
	return req;
}

static void vfs_io_uring_splice_done(struct tevent_req *subreq)
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

static void vfs_io_uring_splice_write_done(struct tevent_req *subreq);

/* pipes -> file as IORING_OP_SPLICE */
static struct tevent_req *vfs_io_uring_splice_write_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct uring_splice_src *src, unsigned n,
	uint64_t off, void *keep)
{
	struct uring *ring = vfs_io_uring_ring(m, ev);
	struct io_uring_state *state = NULL;
	struct tevent_req *req = NULL;
	struct tevent_req *subreq = NULL;
	uint16_t prev;

	if (ring == NULL || !uring_op_supported(ring, IORING_OP_SPLICE)) {
		return vfs_next_splice_write_send(m, mem_ctx, ev, fh, src, n,
						  off, keep);
	}
	req = tevent_req_create(mem_ctx, &state, struct io_uring_state);
	if (req == NULL) {
		return NULL;
	}
	if (tevent_req_nomem(talloc_reference(state, fh), req)) {
		return tevent_req_post(req, ev);
	}
	prev = vfs_io_uring_as_user(ring, m);
	subreq = uring_splice_out_send(state, ev, ring, src, n, fh->fd, off,
				       keep);
	uring_set_personality(ring, prev);
	if (tevent_req_nomem(subreq, req)) {
		return tevent_req_post(req, ev);
	}
	tevent_req_set_callback(subreq, vfs_io_uring_splice_write_done, req);
	return req;
}

static void vfs_io_uring_splice_write_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	size_t n = 0;
	int ret = uring_splice_sp_recv(subreq, &n);

	TALLOC_FREE(subreq);
	if (ret < 0) {
		tevent_req_error(req, -ret);
		return;
	}
	vfs_io_done(req, n);
}

const struct vfs_ops vfs_io_uring_ops = {
	.name = "io_uring",
	.pread_send = vfs_io_uring_pread_send,
	.pwrite_send = vfs_io_uring_pwrite_send,
	.fsync_send = vfs_io_uring_fsync_send,
	.splice_read_send = vfs_io_uring_splice_read_send,
	.splice_write_send = vfs_io_uring_splice_write_send,
};
