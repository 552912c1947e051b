/*
 * One io_uring per tevent context, glued onto tevent's epoll backend with
 * the public API only (docs/architecture.md, "Threads and rings"):
 *
 *  - the ring fd is a tevent_fd for READ; its handler drains all CQEs;
 *  - _send functions only queue SQEs in user space (ring->queue); the
 *    trace callback stages them into the SQ and submits with at most one
 *    io_uring_submit per loop iteration, at BEFORE_WAIT (so the loop never
 *    blocks with work queued) or at AFTER_LOOP_ONCE (loop_once returns
 *    after an immediate or timer without reaching BEFORE_WAIT);
 *  - the ring is found again from the context through a talloc child of
 *    the context with a well-known name (no globals).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/util/debug.h"
#include "lib/uring/uring_private.h"

/* the slot is found by its talloc type name, "struct uring_slot" */
#define URING_SQ_ENTRIES 256
#define URING_CQ_ENTRIES 4096
#define URING_REAP_BATCH 64
#define URING_EXIT_WAIT_SECS 10

/* Per-context state, also when the ring is disabled or failed. */
struct uring_slot {
	struct uring *ring;
	bool tried;             /* setup attempted (and logged if it failed) */
	bool disabled;          /* uring_ev_disable() */
	bool disabled_logged;
};

static void uring_trace(enum tevent_trace_point tp, void *private_data);

static void uring_slot_visit(const void *ptr, int depth, int max_depth,
			     int is_ref, void *private_data)
{
	struct uring_slot **found = private_data;

	if (depth == 1 && is_ref == 0 && *found == NULL &&
	    talloc_check_name(ptr, "struct uring_slot") != NULL) {
		*found = (struct uring_slot *)(uintptr_t)ptr;
	}
}

/*
 * The fast path is our own trace callback (it carries the ring); when
 * another component chained its callback on top of ours, or there is no
 * ring, scan the context's direct children for the slot.
 */
static struct uring_slot *uring_slot_find(struct tevent_context *ev)
{
	tevent_trace_callback_t cb = NULL;
	void *cb_private = NULL;
	struct uring_slot *slot = NULL;

	tevent_get_trace_callback(ev, &cb, &cb_private);
	if (cb == uring_trace) {
		return talloc_get_type_abort(talloc_parent(cb_private),
					     struct uring_slot);
	}
	talloc_report_depth_cb(ev, 0, 1, uring_slot_visit, &slot);
	return slot;
}

static struct uring_slot *uring_slot_get(struct tevent_context *ev)
{
	struct uring_slot *slot = uring_slot_find(ev);

	if (slot != NULL) {
		return slot;
	}
	return talloc_zero(ev, struct uring_slot);
}

/* ---- ring set-up and teardown ---- */

static void uring_kick_handler(struct tevent_context *ev,
			       struct tevent_immediate *im,
			       void *private_data)
{
	/* nothing: returning from loop_once flushes at AFTER_LOOP_ONCE */
}

static void uring_kick(struct uring *r)
{
	tevent_schedule_immediate(r->kick, r->ev, uring_kick_handler, r);
}

/* Queue of ops waiting for SQ space; a unit's ops stay adjacent. */
static void uring_enqueue(struct uring *r, struct uring_op *op)
{
	op->prev = r->queue_tail;
	op->next = NULL;
	if (r->queue_tail != NULL) {
		r->queue_tail->next = op;
	} else {
		r->queue_head = op;
	}
	r->queue_tail = op;
	op->queued = true;
	op->grp->n_queued++;
	URING_STAT_ADD(r, queued, 1);
	if (!pthread_equal(r->owner, pthread_self())) {
		uring_kick(r);          /* wakes the owner (uring_ev_set_gate) */
	}
}

void uring_queue_unit(struct uring *r, struct uring_op *first, unsigned n)
{
	unsigned i;

	if (r->fault_armed != URING_FAULT_NONE && n == 1 &&
	    !first->is_cancel) {
		first->fault = r->fault_armed;
		r->fault_armed = URING_FAULT_NONE;
	}
	first->unit = n;
	for (i = 0; i < n; i++) {
		uring_enqueue(r, first + i);
	}
}

void uring_unqueue(struct uring *r, struct uring_op *op)
{
	if (!op->queued) {
		return;
	}
	if (op->prev != NULL) {
		op->prev->next = op->next;
	} else {
		r->queue_head = op->next;
	}
	if (op->next != NULL) {
		op->next->prev = op->prev;
	} else {
		r->queue_tail = op->prev;
	}
	op->prev = op->next = NULL;
	op->queued = false;
	op->grp->n_queued--;
	URING_STAT_SUB(r, queued, 1);
}

void uring_fault_arm(struct uring *r, enum uring_fault fault)
{
	r->fault_armed = (uint8_t)fault;
}

/* What goes to the kernel in a faulted op's place (uring_fault_arm). */
static void uring_fault_sqe(struct uring *r, struct uring_op *op,
			    struct io_uring_sqe *sqe)
{
	static struct __kernel_timespec a_year = {
		.tv_sec = 365 * 24 * 3600,
	};

	memset(sqe, 0, sizeof(*sqe));
	if (op->fault == URING_FAULT_HANG) {
		io_uring_prep_timeout(sqe, &a_year, 0, 0);
	} else {
		io_uring_prep_nop(sqe);
	}
	URING_STAT_ADD(r, faults, 1);
}

static void uring_stage_op(struct uring *r, struct uring_op *op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	/* the caller checked io_uring_sq_space_left() */
	uring_unqueue(r, op);
	*sqe = op->sqe;
	if (op->fault != URING_FAULT_NONE) {
		uring_fault_sqe(r, op, sqe);
	}
	io_uring_sqe_set_data(sqe, op);
	op->staged = true;
	op->grp->in_kernel++;
	URING_STAT_ADD(r, inflight, 1);
}

/* Moves whole units (linked chains) from the queue into the SQ. */
static void uring_stage_queue(struct uring *r)
{
	struct uring_op *op = r->queue_head;

	while (op != NULL && op->unit <= io_uring_sq_space_left(&r->ring)) {
		unsigned i, n = op->unit;

		for (i = 0; i < n; i++) {
			struct uring_op *next = op->next;

			uring_stage_op(r, op);
			op = next;
		}
	}
}

/*
 * leave_open: the last submit before the loop waits; the gate stays open
 * (the caller's BEFORE_WAIT callback sees that and does not close it
 * again), so a worker does not take the lock back only to drop it.
 */
static void uring_submit(struct uring *r, bool leave_open)
{
	int ret;

	if (r->gate_leave != NULL) {
		r->gate_leave(r->gate_private);
	}
	do {
		ret = io_uring_submit(&r->ring);
		URING_STAT_ADD(r, enter_calls, 1);
	} while (ret == -EINTR);
	if (r->gate_enter != NULL && !leave_open) {
		r->gate_enter(r->gate_private);
	}
	r->submitted_this_pass = true;
	if (ret >= 0) {
		URING_STAT_ADD(r, sqes_submitted, (uint64_t)ret);
		return;
	}
	/* SQEs stay in the SQ; the next loop iteration tries again */
	if (ret == -EAGAIN || ret == -ENOMEM || ret == -EBUSY) {
		DBG_INFO("io_uring_submit: %s, retrying\n", strerror(-ret));
		return;
	}
	DBG_ERR("io_uring_submit: %s\n", strerror(-ret));
}

/*
 * One submit per pass.  If the SQ overflowed: after AFTER_LOOP_ONCE an
 * immediate makes one more pass (and submit); at BEFORE_WAIT the loop is
 * about to block, maybe on operations that never complete (idle
 * sockets), so the rest is submitted now, one submit per SQ full.
 */
static void uring_flush(struct uring *r, bool before_wait)
{
	if (r->submitted_this_pass) {
		return;
	}
	do {
		uring_stage_queue(r);
		if (io_uring_sq_ready(&r->ring) == 0) {
			return;
		}
		if (before_wait && r->queue_head == NULL &&
		    r->gate_leave != NULL) {
			/* all staged; the wait comes next, with the gate open */
			uring_submit(r, true);
			return;
		}
		uring_submit(r, false);
	} while (before_wait && r->queue_head != NULL &&
		 io_uring_sq_ready(&r->ring) == 0);
	if (r->queue_head != NULL) {
		uring_kick(r);
	}
}

static void uring_trace(enum tevent_trace_point tp, void *private_data)
{
	struct uring *r = private_data;

	switch (tp) {
	case TEVENT_TRACE_BEFORE_LOOP_ONCE:
		r->submitted_this_pass = false;
		break;
	case TEVENT_TRACE_BEFORE_WAIT:
		uring_flush(r, true);
		break;
	case TEVENT_TRACE_AFTER_LOOP_ONCE:
		URING_STAT_ADD(r, loop_iterations, 1);
		uring_flush(r, false);
		break;
	default:
		break;
	}
	if (r->prev_trace != NULL) {
		r->prev_trace(tp, r->prev_trace_private);
	}
}

/*
 * Copies the batch out and advances the CQ before dispatching: callbacks
 * may queue new work or free other requests of the same batch (their
 * records stay alive until their own CQE, which is in this batch).
 */
static void uring_dispatch(struct uring *r, struct io_uring_cqe **cqes,
			   unsigned n)
{
	struct io_uring_cqe batch[URING_REAP_BATCH];
	unsigned i;

	for (i = 0; i < n; i++) {
		batch[i] = *cqes[i];
	}
	io_uring_cq_advance(&r->ring, n);
	URING_STAT_ADD(r, cqes_reaped, n);
	for (i = 0; i < n; i++) {
		if (batch[i].user_data != 0) {
			uring_op_cqe((struct uring_op *)(uintptr_t)
				     batch[i].user_data,
				     batch[i].res, batch[i].flags);
		}
	}
}

static void uring_fd_handler(struct tevent_context *ev,
			     struct tevent_fd *fde, uint16_t flags,
			     void *private_data)
{
	struct uring *r = private_data;
	struct io_uring_cqe *cqes[URING_REAP_BATCH];
	unsigned n;

	/* peek_batch also flushes a CQ overflow list (FEAT_NODROP) */
	while ((n = io_uring_peek_batch_cqe(&r->ring, cqes,
					    URING_REAP_BATCH)) > 0) {
		uring_dispatch(r, cqes, n);
	}
}

/* Teardown: get an SQE, submitting (synchronously) when the SQ is full. */
static struct io_uring_sqe *uring_exit_sqe(struct uring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (sqe == NULL) {
		uring_submit(r, false);
		sqe = io_uring_get_sqe(&r->ring);
	}
	return sqe;
}

static void uring_exit_cancel_all(struct uring *r)
{
	struct uring_grp *grp = NULL;
	unsigned i;

	for (grp = r->grps; grp != NULL; grp = grp->next) {
		for (i = 0; i < grp->n; i++) {
			struct uring_op *op = &grp->ops[i];
			struct io_uring_sqe *sqe = NULL;

			if (!op->staged || op->finished) {
				continue;
			}
			sqe = uring_exit_sqe(r);
			if (sqe == NULL) {
				return;
			}
			io_uring_prep_cancel64(sqe, (uintptr_t)op, 0);
			io_uring_sqe_set_data64(sqe, 0);
		}
	}
	uring_submit(r, false);
}

static void uring_exit_reap(struct uring *r, struct io_uring_cqe *cqe)
{
	struct uring_op *op = (struct uring_op *)(uintptr_t)cqe->user_data;

	URING_STAT_ADD(r, cqes_reaped, 1);
	if (op != NULL && (cqe->flags & IORING_CQE_F_MORE) == 0) {
		op->finished = true;
		op->grp->in_kernel--;
		URING_STAT_SUB(r, inflight, 1);
	}
	io_uring_cqe_seen(&r->ring, cqe);
}

/*
 * The kernel may still write into buffers of in-flight operations (an
 * io-wq read is not interruptible), so before the buffers are freed with
 * the records: cancel everything and wait for every CQE.
 */
static void uring_exit_drain(struct uring *r)
{
	unsigned timeouts = 0;

	if (r->stats.inflight == 0) {
		return;
	}
	uring_exit_cancel_all(r);
	while (r->stats.inflight > 0 && timeouts < URING_EXIT_WAIT_SECS) {
		struct __kernel_timespec ts = { .tv_sec = 1 };
		struct io_uring_cqe *cqe = NULL;
		int ret = io_uring_wait_cqe_timeout(&r->ring, &cqe, &ts);

		URING_STAT_ADD(r, enter_calls, 1);
		if (ret == -ETIME) {
			timeouts++;
		} else if (ret == 0) {
			uring_exit_reap(r, cqe);
		} else if (ret != -EINTR) {
			break;
		}
	}
}

/* Records the kernel never released are leaked rather than freed. */
static void uring_exit_abandon(struct uring *r)
{
	struct uring_grp *grp = r->grps;

	DBG_ERR("io_uring teardown: %llu operations did not complete, "
		"leaking their buffers\n",
		(unsigned long long)r->stats.inflight);
	while (grp != NULL) {
		struct uring_grp *next = grp->next;

		if (grp->in_kernel > 0) {
			talloc_steal(NULL, grp);
		}
		grp = next;
	}
}

static int uring_destructor(struct uring *r)
{
	tevent_trace_callback_t cb = NULL;
	void *cb_private = NULL;

	TALLOC_FREE(r->fde);
	TALLOC_FREE(r->kick);
	tevent_get_trace_callback(r->ev, &cb, &cb_private);
	if (cb == uring_trace && cb_private == r) {
		tevent_set_trace_callback(r->ev, r->prev_trace,
					  r->prev_trace_private);
	}
	uring_exit_drain(r);
	if (r->stats.inflight > 0) {
		uring_exit_abandon(r);
	}
	io_uring_queue_exit(&r->ring);
	if (r->probe != NULL) {
		io_uring_free_probe(r->probe);
	}
	r->slot->ring = NULL;
	return 0;
}

/*
 * COOP_TASKRUN|SINGLE_ISSUER where the kernel has them (6.0+), else plain.
 * Never DEFER_TASKRUN: its completions are not epoll-visible while they wait
 * as deferred task work (measured on 6.18; docs/architecture.md, "Threads and
 * rings").
 */
static int uring_queue_init(struct uring *r)
{
	static const unsigned flag_sets[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
			IORING_SETUP_SUBMIT_ALL | IORING_SETUP_CQSIZE,
		IORING_SETUP_CQSIZE,
		0,
	};
	size_t i;
	int ret = -EINVAL;

	for (i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
		struct io_uring_params p = {
			.flags = flag_sets[i],
			.cq_entries = URING_CQ_ENTRIES,
		};

		ret = io_uring_queue_init_params(URING_SQ_ENTRIES, &r->ring,
						 &p);
		if (ret == 0 && (p.features & IORING_FEAT_NODROP) == 0) {
			io_uring_queue_exit(&r->ring);
			return -ENOTSUP;        /* pre-5.5: CQEs can be lost */
		}
		if (ret != -EINVAL) {
			r->setup_flags = flag_sets[i];
			return ret;
		}
	}
	return ret;
}

/* The opcodes the high-level functions rely on. */
static const uint8_t uring_required_ops[] = {
	IORING_OP_NOP, IORING_OP_READ, IORING_OP_WRITE, IORING_OP_FSYNC,
	IORING_OP_RECV, IORING_OP_SENDMSG, IORING_OP_POLL_ADD,
	IORING_OP_ASYNC_CANCEL,
};

static const char *uring_probe(struct uring *r)
{
	size_t i;

	r->probe = io_uring_get_probe_ring(&r->ring);
	if (r->probe == NULL) {
		return "opcode probe failed (kernel older than 5.6)";
	}
	for (i = 0; i < sizeof(uring_required_ops); i++) {
		if (!io_uring_opcode_supported(r->probe,
					       uring_required_ops[i])) {
			return "kernel lacks a required opcode";
		}
	}
	return NULL;
}

static const char *uring_hook(struct uring *r)
{
	r->fde = tevent_add_fd(r->ev, r, r->ring.ring_fd, TEVENT_FD_READ,
			       uring_fd_handler, r);
	r->kick = tevent_create_immediate(r);
	if (r->fde == NULL || r->kick == NULL) {
		return "out of memory";
	}
	tevent_get_trace_callback(r->ev, &r->prev_trace,
				  &r->prev_trace_private);
	tevent_set_trace_callback(r->ev, uring_trace, r);
	return NULL;
}

static struct uring *uring_create(struct uring_slot *slot,
				  struct tevent_context *ev)
{
	struct uring *r = talloc_zero(slot, struct uring);
	const char *why = NULL;
	int ret;

	if (r == NULL) {
		return NULL;
	}
	r->ev = ev;
	r->slot = slot;
	r->owner = pthread_self();
	ret = uring_queue_init(r);
	if (ret != 0) {
		DBG_WARNING("io_uring unavailable (setup: %s%s); using plain "
			    "syscalls\n", strerror(-ret), ret == -EPERM ?
			    ", kernel.io_uring_disabled or seccomp?" : "");
		talloc_free(r);
		return NULL;
	}
	slot->ring = r;
	talloc_set_destructor(r, uring_destructor);
	why = uring_probe(r);
	if (why == NULL) {
		why = uring_hook(r);
	}
	if (why != NULL) {
		DBG_WARNING("io_uring unavailable (%s); using plain syscalls\n",
			    why);
		TALLOC_FREE(r);
		return NULL;
	}
	DBG_INFO("io_uring ready: setup flags %#x, %u SQ entries\n",
		 r->setup_flags, r->ring.sq.ring_entries);
	return r;
}

static bool uring_env_disabled(void)
{
	const char *v = getenv("RINGSMB_NO_IO_URING");

	return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

struct uring *uring_ev_get(struct tevent_context *ev)
{
	struct uring_slot *slot = uring_slot_get(ev);

	if (slot == NULL) {
		return NULL;
	}
	if (!slot->disabled && !slot->tried && uring_env_disabled()) {
		slot->disabled = true;
	}
	if (slot->disabled) {
		if (!slot->disabled_logged) {
			DBG_WARNING("io_uring disabled by configuration "
				    "(io_uring = no or RINGSMB_NO_IO_URING)"
				    "; using plain syscalls\n");
			slot->disabled_logged = true;
		}
		return NULL;
	}
	if (slot->ring == NULL && !slot->tried) {
		slot->tried = true;
		uring_create(slot, ev);
	}
	return slot->ring;
}

void uring_ev_set_gate(struct tevent_context *ev, void (*leave)(void *),
		       void (*enter)(void *), void *private_data)
{
	struct uring *r = uring_ev_get(ev);

	if (r != NULL) {
		r->gate_leave = leave;
		r->gate_enter = enter;
		r->gate_private = private_data;
	}
}

bool uring_gate_leave(struct uring *r)
{
	if (r == NULL || r->gate_leave == NULL || !uring_is_owner(r)) {
		return false;
	}
	r->gate_leave(r->gate_private);
	return true;
}

void uring_gate_enter(struct uring *r, bool left)
{
	if (left) {
		r->gate_enter(r->gate_private);
	}
}

void uring_ev_disable(struct tevent_context *ev)
{
	struct uring_slot *slot = uring_slot_get(ev);

	if (slot != NULL) {
		slot->disabled = true;
	}
}

bool uring_op_supported(struct uring *ring, uint8_t opcode)
{
	return ring != NULL && ring->probe != NULL &&
		io_uring_opcode_supported(ring->probe, opcode);
}

bool uring_is_owner(const struct uring *ring)
{
	return ring != NULL && pthread_equal(ring->owner, pthread_self());
}

void uring_get_stats(struct uring *ring, struct uring_stats *st)
{
	const struct uring_stats *s = &ring->stats;

	st->enter_calls = __atomic_load_n(&s->enter_calls, __ATOMIC_RELAXED);
	st->loop_iterations = __atomic_load_n(&s->loop_iterations,
					      __ATOMIC_RELAXED);
	st->sqes_submitted = __atomic_load_n(&s->sqes_submitted,
					     __ATOMIC_RELAXED);
	st->cqes_reaped = __atomic_load_n(&s->cqes_reaped, __ATOMIC_RELAXED);
	st->inflight = __atomic_load_n(&s->inflight, __ATOMIC_RELAXED);
	st->queued = __atomic_load_n(&s->queued, __ATOMIC_RELAXED);
	st->faults = __atomic_load_n(&s->faults, __ATOMIC_RELAXED);
}
