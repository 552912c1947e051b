/*
 * lib/uring internals shared by uring_ev.c (ring, loop glue, CQE
 * dispatch), uring_req.c (requests, in-flight records), uring_file.c and
 * uring_sock.c (high-level I/O).
 */
#ifndef RINGSMB_URING_PRIVATE_H
#define RINGSMB_URING_PRIVATE_H

#include <pthread.h>
#include <sys/socket.h>
#include "lib/uring/uring.h"

struct uring_grp;

/*
 * One SQE.  Real ops live in their group's array; cancel ops are separate
 * talloc children of the group they cancel.  The SQE is staged here
 * until the ring has room, then copied into the SQ with user_data = op.
 */
struct uring_op {
	struct uring_grp *grp;
	struct uring_op *prev, *next;   /* ring->queue while queued */
	struct io_uring_sqe sqe;
	unsigned unit;          /* on a unit's first op: SQEs to stage together */
	int32_t res;
	bool is_cancel;
	bool queued;            /* waiting in ring->queue */
	bool staged;            /* in the SQ / kernel */
	bool finished;          /* last CQE seen */
	uint8_t fault;          /* enum uring_fault, staged in its place */
};

/*
 * The in-flight record of one request: a talloc child of the ring, never
 * of the request, so it outlives the request while the kernel owns its
 * SQEs.  Freed once req is gone and no SQE of it is in the kernel.
 */
struct uring_grp {
	struct uring *ring;
	struct uring_grp *prev, *next;  /* ring->grps: all live groups */
	struct tevent_req *req;         /* NULL once orphaned or completed */
	void *keep[2];                  /* talloc references held until done */
	unsigned n;                     /* real ops */
	unsigned unfinished;            /* real ops without their last CQE */
	unsigned in_kernel;             /* staged ops (real+cancel) not done */
	unsigned n_queued;              /* ops waiting in ring->queue */
	/* the client being served when it started: its log file (debug.h) */
	struct debug_ident *log_ident;
	struct uring_op ops[];
};

struct uring_slot;

struct uring {
	struct tevent_context *ev;
	struct uring_slot *slot;        /* our parent, in ev */
	struct io_uring ring;
	unsigned setup_flags;
	struct io_uring_probe *probe;
	struct tevent_fd *fde;
	struct tevent_immediate *kick;  /* another loop pass for the queue */
	tevent_trace_callback_t prev_trace;
	void *prev_trace_private;
	bool submitted_this_pass;
	struct uring_op *queue_head, *queue_tail;
	struct uring_grp *grps;
	struct uring_stats stats;
	struct uring_bufpool *bufs;     /* registered buffers (uring_buf.c) */
	int bufs_error;                 /* their registration failed */
	/* given to every SQE staged now (uring_set_personality) */
	uint16_t personality;
	/* given to the next lone op queued (uring_fault_arm) */
	uint8_t fault_armed;
	/* the thread that made the ring: the only one that stages, submits
	 * and reaps (SINGLE_ISSUER) */
	pthread_t owner;
	/* around io_uring_enter (uring_ev_set_gate), or NULL */
	void (*gate_leave)(void *private_data);
	void (*gate_enter)(void *private_data);
	void *gate_private;
};

/*
 * The counters (struct uring_stats): written by the ring's thread only,
 * read by any (the metrics endpoint), hence relaxed atomics.
 */
#define URING_STAT_ADD(r, field, n) \
	__atomic_fetch_add(&(r)->stats.field, (n), __ATOMIC_RELAXED)
#define URING_STAT_SUB(r, field, n) \
	__atomic_fetch_sub(&(r)->stats.field, (n), __ATOMIC_RELAXED)

/* uring_ev.c */
void uring_queue_unit(struct uring *r, struct uring_op *first, unsigned n);
void uring_unqueue(struct uring *r, struct uring_op *op);

/*
 * uring_buf.c: the index of the registered buffer that holds all of
 * [ptr, ptr + len), or -1 (no pool, or ordinary memory).
 */
int uring_buf_index(const struct uring *ring, const void *ptr, size_t len);

/* uring_req.c: CQE dispatch */
void uring_op_cqe(struct uring_op *op, int32_t res, uint32_t flags);

/* uring_req_send with a second chunk to keep (e.g. a msghdr copy) */
struct tevent_req *uring_req_send2(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct uring *ring,
				   uring_prep_fn prep, void *private_data,
				   void *keep, void *keep2);

/* n linked SQEs (uring_chain_send) with a second chunk to keep */
struct tevent_req *uring_chain_send2(TALLOC_CTX *mem_ctx,
				     struct tevent_context *ev,
				     struct uring *ring,
				     const struct uring_link *links, size_t n,
				     void *keep, void *keep2);

/*
 * uring_sock.c: a private copy of an iovec array for sendmsg, advanced as
 * bytes go out (also used by uring_splice.c).
 */
struct uring_msg {
	struct msghdr mh;
	int iovcnt;
	int cur;                /* first iovec not completely sent */
	struct iovec iov[];
};
struct uring_msg *uring_msg_copy(TALLOC_CTX *mem_ctx, const struct iovec *iov,
				 int iovcnt);
void uring_msg_consume(struct uring_msg *m, size_t n);
/* Points the msghdr at what is left; called right before each send. */
struct msghdr *uring_msg_hdr(struct uring_msg *m);

/* tevent errors carry positive errno; _recv functions return -errno */
int uring_req_error(struct tevent_req *req);
void uring_req_fail(struct tevent_req *req, int neg_errno);

#endif
