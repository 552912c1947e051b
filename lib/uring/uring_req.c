/*
 * Generic ring requests: one SQE (uring_req_send) or a linked chain
 * (uring_chain_send), each backed by an in-flight record (struct
 * uring_grp) that is a talloc child of the ring, never of the request.
 * The record and the request point at each other
 * while both live; whichever goes first clears the other's pointer.
 *
 *   request freed in flight -> uring_grp_orphan: queue ASYNC_CANCEL for
 *                              each op still in the kernel
 *   last CQE of the record  -> results copied to the request, the
 *                              references on keep dropped, the record
 *                              freed once no SQE of it (cancels included)
 *                              is left in the kernel, then the callback.
 */
#include <errno.h>
#include <string.h>
#include "lib/util/debug.h"
#include "lib/uring/uring_private.h"

struct uring_chain_state {
	struct uring_grp *grp;
	size_t n;
	int32_t res1;           /* results of a single op, no allocation */
	int32_t *res;
};

static void uring_chain_cleanup(struct tevent_req *req,
				enum tevent_req_state req_state);
static bool uring_chain_cancel(struct tevent_req *req);

int uring_req_error(struct tevent_req *req)
{
	enum tevent_req_state state;
	uint64_t err = 0;

	if (!tevent_req_is_error(req, &state, &err)) {
		return 0;
	}
	switch (state) {
	case TEVENT_REQ_USER_ERROR:
		return -(int)err;
	case TEVENT_REQ_TIMED_OUT:
		return -ETIMEDOUT;
	case TEVENT_REQ_NO_MEMORY:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

void uring_req_fail(struct tevent_req *req, int neg_errno)
{
	tevent_req_error(req, (uint64_t)-neg_errno);
}

/* ---- in-flight records ---- */

static int uring_cancel_op_destructor(struct uring_op *op)
{
	uring_unqueue(op->grp->ring, op);
	return 0;
}

static int uring_grp_destructor(struct uring_grp *grp)
{
	struct uring *r = grp->ring;
	unsigned i;

	for (i = 0; i < grp->n; i++) {
		uring_unqueue(r, &grp->ops[i]);
	}
	if (grp->prev != NULL) {
		grp->prev->next = grp->next;
	} else {
		r->grps = grp->next;
	}
	if (grp->next != NULL) {
		grp->next->prev = grp->prev;
	}
	if (grp->req != NULL) {
		struct uring_chain_state *s = tevent_req_data(
			grp->req, struct uring_chain_state);
		s->grp = NULL;
	}
	debug_ident_release(grp->log_ident);
	return 0;
}

static struct uring_grp *uring_grp_new(struct uring *r, size_t n)
{
	struct uring_grp *grp = talloc_zero_size(
		r, sizeof(*grp) + n * sizeof(grp->ops[0]));
	size_t i;

	if (grp == NULL) {
		return NULL;
	}
	talloc_set_name_const(grp, "struct uring_grp");
	grp->ring = r;
	grp->n = grp->unfinished = n;
	grp->log_ident = debug_ident_capture();
	for (i = 0; i < n; i++) {
		grp->ops[i].grp = grp;
	}
	grp->next = r->grps;
	if (r->grps != NULL) {
		r->grps->prev = grp;
	}
	r->grps = grp;
	talloc_set_destructor(grp, uring_grp_destructor);
	return grp;
}

/*
 * A reference, not a steal: keep stays where its owner put it, and only
 * if the owner frees it while the kernel still uses it does talloc move
 * it under the record (to be freed with it).  This also holds when
 * several requests share one keep.
 */
static int uring_grp_keep(struct uring_grp *grp, void *keep, void *keep2)
{
	if (keep != NULL && talloc_reference(grp, keep) == NULL) {
		return -ENOMEM;
	}
	grp->keep[0] = keep;
	if (keep2 != NULL && keep2 != keep &&
	    talloc_reference(grp, keep2) == NULL) {
		return -ENOMEM;
	}
	grp->keep[1] = keep2 != keep ? keep2 : NULL;
	return 0;
}

/* The kernel is done with the memory: drop (or free) keep now. */
static void uring_grp_release(struct uring_grp *grp)
{
	unsigned i;

	for (i = 0; i < 2; i++) {
		if (grp->keep[i] != NULL) {
			talloc_unlink(grp, grp->keep[i]);
			grp->keep[i] = NULL;
		}
	}
}

static int uring_grp_queue_cancel(struct uring_grp *grp,
				  struct uring_op *target)
{
	struct uring_op *c = talloc_zero(grp, struct uring_op);

	if (c == NULL) {
		return -ENOMEM;
	}
	c->grp = grp;
	c->is_cancel = true;
	io_uring_prep_cancel64(&c->sqe, (uintptr_t)target, 0);
	talloc_set_destructor(c, uring_cancel_op_destructor);
	uring_queue_unit(grp->ring, c, 1);
	return 0;
}

/*
 * Cancels every op of the record that is in the kernel.  The cancel
 * records are children of the record, which lives until their CQEs: the
 * target address cannot be reused while a cancel for it is pending.
 */
static void uring_grp_cancel(struct uring_grp *grp)
{
	unsigned i;

	for (i = 0; i < grp->n; i++) {
		struct uring_op *op = &grp->ops[i];

		if (op->staged && !op->finished &&
		    uring_grp_queue_cancel(grp, op) != 0) {
			DBG_ERR("no memory to cancel an io_uring operation\n");
		}
	}
}

static void uring_grp_orphan(struct uring_grp *grp)
{
	if (grp->in_kernel == 0) {
		talloc_free(grp);       /* still queued: the kernel never saw it */
		return;
	}
	uring_grp_cancel(grp);
}

static struct tevent_req *uring_grp_detach(struct uring_grp *grp)
{
	struct tevent_req *req = grp->req;
	struct uring_chain_state *s = tevent_req_data(
		req, struct uring_chain_state);
	size_t i;

	for (i = 0; i < s->n; i++) {
		s->res[i] = grp->ops[i].res;
	}
	s->grp = NULL;
	grp->req = NULL;
	return req;
}

static void uring_grp_progress(struct uring_grp *grp, bool real_op)
{
	struct tevent_req *req = NULL;

	if (grp->unfinished > 0) {
		if (grp->req == NULL && real_op && grp->n > 1) {
			/* an orphaned chain moved on: cancel the next link */
			uring_grp_cancel(grp);
		}
		return;
	}
	if (grp->req != NULL) {
		req = uring_grp_detach(grp);
	}
	uring_grp_release(grp);
	if (grp->in_kernel == 0) {
		talloc_free(grp);       /* queued cancels go with it */
	}
	if (req != NULL) {
		tevent_req_done(req);
	}
}

static void uring_grp_progress_logged(struct uring_grp *grp, bool real)
{
	struct debug_scope scope;

	/* the completion logs as the client it was started for */
	debug_ident_enter(grp->log_ident, &scope);
	uring_grp_progress(grp, real);
	debug_scope_leave(&scope);
}

void uring_op_cqe(struct uring_op *op, int32_t res, uint32_t flags)
{
	struct uring_grp *grp = op->grp;

	if ((flags & IORING_CQE_F_NOTIF) == 0) {
		op->res = res;
	}
	if (op->fault == URING_FAULT_EAGAIN) {
		op->res = -EAGAIN;      /* a NOP stood in for it */
	} else if (op->fault == URING_FAULT_HANG && res == -ETIME) {
		op->res = -ECANCELED;   /* a year later */
	}
	if ((flags & IORING_CQE_F_MORE) != 0) {
		return;                 /* e.g. zero-copy send: wait for NOTIF */
	}
	op->finished = true;
	op->staged = false;
	grp->in_kernel--;
	URING_STAT_SUB(grp->ring, inflight, 1);
	if (!op->is_cancel) {
		grp->unfinished--;
	}
	if (op->is_cancel && grp->unfinished > 0) {
		return;
	}
	uring_grp_progress_logged(grp, !op->is_cancel);
}

/* ---- requests ---- */

static int uring_chain_check(struct tevent_context *ev, struct uring *ring,
			     const struct uring_link *links, size_t n)
{
	size_t i;

	if (ring == NULL) {
		return -ENOSYS;
	}
	if (ev != ring->ev || n == 0 || n > URING_CHAIN_MAX ||
	    n > ring->ring.sq.ring_entries) {
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (links[i].prep == NULL) {
			return -EINVAL;
		}
	}
	return 0;
}

static int uring_chain_start(struct tevent_req *req,
			     struct uring_chain_state *s, struct uring *ring,
			     const struct uring_link *links, void *keep,
			     void *keep2)
{
	struct uring_grp *grp = uring_grp_new(ring, s->n);
	size_t i;

	if (grp == NULL || uring_grp_keep(grp, keep, keep2) != 0) {
		talloc_free(grp);
		return -ENOMEM;
	}
	for (i = 0; i < s->n; i++) {
		struct io_uring_sqe *sqe = &grp->ops[i].sqe;

		links[i].prep(sqe, links[i].private_data);
		sqe->user_data = 0;
		sqe->personality = ring->personality;
		if (i + 1 < s->n) {
			sqe->flags |= IOSQE_IO_LINK;
		}
	}
	grp->req = req;
	s->grp = grp;
	uring_queue_unit(ring, &grp->ops[0], s->n);
	return 0;
}

struct tevent_req *uring_chain_send2(TALLOC_CTX *mem_ctx,
					    struct tevent_context *ev,
					    struct uring *ring,
					    const struct uring_link *links,
					    size_t n, void *keep, void *keep2)
{
	struct tevent_req *req = NULL;
	struct uring_chain_state *s = NULL;
	int ret;

	req = tevent_req_create(mem_ctx, &s, struct uring_chain_state);
	if (req == NULL) {
		return NULL;
	}
	s->n = n;
	s->res = &s->res1;
	tevent_req_set_cleanup_fn(req, uring_chain_cleanup);
	tevent_req_set_cancel_fn(req, uring_chain_cancel);
	ret = uring_chain_check(ev, ring, links, n);
	if (ret == 0 && n > 1) {
		s->res = talloc_zero_array(s, int32_t, n);
		ret = s->res != NULL ? 0 : -ENOMEM;
	}
	if (ret == 0) {
		ret = uring_chain_start(req, s, ring, links, keep, keep2);
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
		return tevent_req_post(req, ev);
	}
	return req;
}

/* Freed, timed out or failed while in flight: hand the record over. */
static void uring_chain_cleanup(struct tevent_req *req,
				enum tevent_req_state req_state)
{
	struct uring_chain_state *s = tevent_req_data(
		req, struct uring_chain_state);
	struct uring_grp *grp = s->grp;

	if (grp == NULL) {
		return;
	}
	s->grp = NULL;
	grp->req = NULL;
	uring_grp_orphan(grp);
}

/*
 * tevent_req_cancel: the request then completes normally, usually with
 * results of -ECANCELED.  Not yet submitted: fail it (deferred, so never
 * inside tevent_req_cancel itself).
 */
static bool uring_chain_cancel(struct tevent_req *req)
{
	struct uring_chain_state *s = tevent_req_data(
		req, struct uring_chain_state);
	struct uring_grp *grp = s->grp;
	struct tevent_context *ev = NULL;

	if (grp == NULL) {
		return false;
	}
	if (grp->in_kernel > 0) {
		uring_grp_cancel(grp);
		return true;
	}
	ev = grp->ring->ev;
	talloc_free(grp);
	tevent_req_defer_callback(req, ev);
	uring_req_fail(req, -ECANCELED);
	return true;
}

struct tevent_req *uring_chain_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct uring *ring,
				    const struct uring_link *links, size_t n,
				    void *keep)
{
	return uring_chain_send2(mem_ctx, ev, ring, links, n, keep, NULL);
}

int uring_chain_recv(struct tevent_req *req, int32_t *results, size_t n)
{
	struct uring_chain_state *s = tevent_req_data(
		req, struct uring_chain_state);
	int ret = uring_req_error(req);

	if (ret == 0 && n != s->n) {
		ret = -EINVAL;
	}
	if (ret == 0) {
		memcpy(results, s->res, n * sizeof(*results));
	}
	tevent_req_received(req);
	return ret;
}

struct tevent_req *uring_req_send2(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct uring *ring,
				   uring_prep_fn prep, void *private_data,
				   void *keep, void *keep2)
{
	struct uring_link link = { .prep = prep,
				   .private_data = private_data };

	return uring_chain_send2(mem_ctx, ev, ring, &link, 1, keep, keep2);
}

struct tevent_req *uring_req_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct uring *ring,
				  uring_prep_fn prep, void *private_data,
				  void *keep)
{
	return uring_req_send2(mem_ctx, ev, ring, prep, private_data, keep,
			       NULL);
}

int uring_req_recv(struct tevent_req *req, int32_t *res)
{
	return uring_chain_recv(req, res, 1);
}

/* ---- personalities ---- */

int uring_personality_register(struct uring *ring)
{
	int ret = io_uring_register_personality(&ring->ring);

	if (ret > UINT16_MAX) {
		io_uring_unregister_personality(&ring->ring, ret);
		return -ENOSPC;
	}
	return ret;
}

int uring_personality_unregister(struct uring *ring, uint16_t id)
{
	return io_uring_unregister_personality(&ring->ring, id);
}

uint16_t uring_set_personality(struct uring *ring, uint16_t id)
{
	uint16_t prev = ring->personality;

	ring->personality = id;
	return prev;
}
