/*
 * lib/uring: the only code in ringsmb that talks to liburing
 * (docs/architecture.md, "Threads and rings").  Functions return -errno like
 * liburing.
 *
 * Event loop.  One ring per tevent context, created on first use by
 * uring_ev_get() and found again from the context.  The ring fd is a
 * tevent_fd for READ; every wakeup drains all CQEs.  SQEs queued by _send
 * functions are flushed with at most one io_uring_submit() per loop
 * iteration, from the tevent trace callback (AFTER_LOOP_ONCE and
 * BEFORE_WAIT).  Create the ring in the thread that runs the loop, after
 * any fork (the ring is SINGLE_ISSUER where the kernel supports it).
 *
 * Completion.  A _send function never completes its request before it
 * returns: errors found inside _send are posted (tevent_req_post), and
 * CQEs are reaped only from the ring's fd handler.
 *
 * Lifetime rules (see also lib/uring/README.md):
 *
 *  - Each submitted request owns an in-flight record that is a talloc
 *    child of the ring, never of the request; its address is the SQE's
 *    user_data.
 *
 *  - keep: the talloc chunk holding the memory the kernel uses (the
 *    buffer, and whatever the prep function points the SQE at).  From
 *    _send until the last CQE of the request, the in-flight record holds a
 *    talloc reference on keep: if keep's owner is freed meanwhile (for
 *    example keep is a child of the request and the request is freed),
 *    keep moves under the record and is freed only after the kernel is
 *    done with it.  While the kernel holds it, an explicit talloc_free(keep)
 *    is refused by talloc (it stays under its parent); free the request or
 *    keep's parent instead.  keep may be NULL when no memory is shared
 *    with the kernel.  keep must not be an ancestor of the tevent context.
 *
 *  - Freeing a request while its SQEs are in flight (or tevent_req_cancel,
 *    or a tevent_req_set_endtime timeout) queues IORING_OP_ASYNC_CANCEL;
 *    the CQE handler frees the record (and drops keep) later.
 *
 *  - Freeing the tevent context frees the ring: in-flight operations are
 *    cancelled and waited for (io_uring teardown), then every record is
 *    freed.  Requests still alive then never complete; free them.
 *
 * Fallback.  With ring == NULL the high-level functions (pread, pwrite,
 * fsync, recv_full, sendmsg_full) use plain syscalls with identical
 * results: file calls run synchronously and post their completion,
 * socket calls wait for readiness on a tevent_fd and then use
 * non-blocking recv/sendmsg.  The generic functions (uring_req_send,
 * uring_chain_send) need a ring and fail with -ENOSYS without one.
 */
#ifndef RINGSMB_URING_H
#define RINGSMB_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <liburing.h>
#include <talloc.h>
#include <tevent.h>

struct uring;

/*
 * The ring of ev, created on first call.  NULL if io_uring is unavailable
 * (setup failed: old kernel, kernel.io_uring_disabled, seccomp, memlock,
 * missing basic opcodes) or disabled by uring_ev_disable() or the
 * environment variable RINGSMB_NO_IO_URING=1; the reason is logged once
 * per context at level 1.  Callers then use the fallbacks (ring == NULL).
 */
struct uring *uring_ev_get(struct tevent_context *ev);

/*
 * Disable io_uring for ev ("io_uring = no"): later uring_ev_get(ev) calls
 * return NULL.  A ring that already exists keeps serving its requests.
 */
void uring_ev_disable(struct tevent_context *ev);

/*
 * Several threads, one ring each, under one lock the caller holds while
 * it runs (docs/architecture.md, "Workers").  Any thread holding that
 * lock may start requests on any ring: they wait in the ring's user-space
 * queue, and a request started from a thread other than the one that made
 * the ring schedules an immediate on the ring's context, which the caller
 * turns into a wakeup of that thread (a tevent immediate trace callback).
 * Only the owner stages, submits and reaps.  leave and enter are called
 * around each io_uring_enter of the owner, so that it can drop the lock
 * while the kernel copies: the user-space queue is the only ring state
 * other threads touch, and they touch it under the lock.  The last submit
 * of a pass at BEFORE_WAIT calls leave but not enter: the loop waits next,
 * and the caller's BEFORE_WAIT trace callback (called after the ring's)
 * must then not leave again; its AFTER_WAIT enters.
 */
void uring_ev_set_gate(struct tevent_context *ev, void (*leave)(void *),
		       void (*enter)(void *), void *private_data);

/*
 * The gate by hand, for per-byte work done in the owner's thread without
 * the ring (a preadv2 of cached pages into a request's buffer): leave
 * returns whether it left (the owner, with a gate set), and enter takes
 * it back if so.  Only from a handler of the owner's loop, where the
 * caller holds what the gate guards.  In between the thread may touch
 * only memory no other thread can reach or free: no talloc, tevent or
 * shared state.
 */
bool uring_gate_leave(struct uring *ring);
void uring_gate_enter(struct uring *ring, bool left);

/* Whether the kernel supports opcode (IORING_OP_*), probed at setup. */
bool uring_op_supported(struct uring *ring, uint8_t opcode);

/*
 * Personalities (io_uring_register_personality): the credentials an SQE
 * runs with.  uring_personality_register records the calling thread's
 * current credentials and returns their id (> 0) or -errno; switch the
 * thread to a client's identity around the call (lib/util/unix_token.h).
 * uring_set_personality makes every request started from now on run
 * with id (0: as the thread that submits, i.e. the daemon) and returns
 * the previous id, so a caller sets it around its own _send call only:
 *
 *   prev = uring_set_personality(ring, token->personality);
 *   subreq = uring_pread_send(...);
 *   uring_set_personality(ring, prev);
 *
 * Cancels run without one (they touch no file).
 */
int uring_personality_register(struct uring *ring);
int uring_personality_unregister(struct uring *ring, uint16_t id);
uint16_t uring_set_personality(struct uring *ring, uint16_t id);

/*
 * Whether the calling thread made the ring: only it may register
 * personalities or buffers on it (SINGLE_ISSUER; others get -EEXIST).
 */
bool uring_is_owner(const struct uring *ring);

/*
 * Faults on purpose, for tests (vfs_error's "error:ring", docs/vfs.md):
 * the next lone operation started on ring after uring_fault_arm (not a
 * linked chain, not a cancel) does not do what it was asked.
 *
 *   URING_FAULT_EAGAIN  it completes with -EAGAIN and touches nothing (a
 *                       NOP goes to the kernel in its place), as the
 *                       kernel answers a non-blocking request it cannot
 *                       serve at once;
 *   URING_FAULT_HANG    its CQE never comes: a timeout of a year goes to
 *                       the kernel in its place, so it ends only when
 *                       cancelled (-ECANCELED), like an I/O stuck in a
 *                       dead device.
 *
 * Arming again replaces the last fault; URING_FAULT_NONE disarms (a
 * caller arms right before its _send call and disarms right after, in
 * case nothing was started on the ring).
 */
enum uring_fault {
	URING_FAULT_NONE = 0,
	URING_FAULT_EAGAIN,
	URING_FAULT_HANG,
};
void uring_fault_arm(struct uring *ring, enum uring_fault fault);

/* Counters since the ring was created. */
struct uring_stats {
	uint64_t enter_calls;     /* io_uring_enter syscalls (submits) */
	uint64_t loop_iterations; /* tevent loop_once calls seen */
	uint64_t sqes_submitted;  /* SQEs the kernel accepted */
	uint64_t cqes_reaped;     /* CQEs consumed */
	uint64_t inflight;        /* SQEs submitted, last CQE not yet seen */
	uint64_t queued;          /* SQEs waiting in user space */
	uint64_t faults;          /* operations faulted (uring_fault_arm) */
};
void uring_get_stats(struct uring *ring, struct uring_stats *st);

/*
 * Fills sqe for one operation; called before the _send function returns
 * (into a staged copy, so private_data may live on the caller's stack).
 * Must not set user_data; IOSQE_IO_LINK is managed by uring_chain_send.
 * Pointers written into the SQE must stay valid until the CQE: keep them
 * under keep.  Multishot operations are not supported.
 */
typedef void (*uring_prep_fn)(struct io_uring_sqe *sqe, void *private_data);

/*
 * One SQE, completed by its CQE.  uring_req_recv: 0 and *res = cqe->res
 * (which may itself be -errno), or -errno if the request failed before
 * reaching the kernel (-ENOMEM, -ENOSYS without a ring, -ECANCELED after
 * tevent_req_cancel when the kernel already dropped it, -ETIMEDOUT).
 * Zero-copy sends complete at the notification CQE (IORING_CQE_F_NOTIF);
 * *res is then the result of the first CQE.
 */
struct tevent_req *uring_req_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct uring *ring,
				  uring_prep_fn prep, void *private_data,
				  void *keep);
int uring_req_recv(struct tevent_req *req, int32_t *res);

/*
 * n SQEs linked with IOSQE_IO_LINK (e.g. sendmsg -> splice -> splice),
 * submitted in one batch and completed once every CQE of the chain is in.
 * results[i] is the result of links[i] (a failed link makes the rest
 * -ECANCELED).  n must be 1..URING_CHAIN_MAX.
 */
#define URING_CHAIN_MAX 16
struct uring_link {
	uring_prep_fn prep;
	void *private_data;
};
struct tevent_req *uring_chain_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct uring *ring,
				    const struct uring_link *links, size_t n,
				    void *keep);
int uring_chain_recv(struct tevent_req *req, int32_t *results, size_t n);

/*
 * File I/O.  off + len must be <= INT64_MAX (-EINVAL).  Short transfers
 * are continued until len bytes are done; pread stops early only at EOF
 * (*nread < len).  EINTR is retried; EAGAIN twice more, then returned
 * (the caller may block elsewhere).  A pwrite that makes no progress
 * fails with -EIO.  tevent_req_cancel works in flight (-ECANCELED).
 */
struct tevent_req *uring_pread_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct uring *ring, int fd,
				    void *buf, size_t len, off_t off,
				    void *keep);
int uring_pread_recv(struct tevent_req *req, size_t *nread);

struct tevent_req *uring_pwrite_send(TALLOC_CTX *mem_ctx,
				     struct tevent_context *ev,
				     struct uring *ring, int fd,
				     const void *buf, size_t len, off_t off,
				     void *keep);
int uring_pwrite_recv(struct tevent_req *req, size_t *nwritten);

/* fsync(2), or fdatasync(2) when datasync. */
struct tevent_req *uring_fsync_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct uring *ring, int fd, bool datasync);
int uring_fsync_recv(struct tevent_req *req);

/*
 * Registered buffers (uring_buf.c): a pool of count (1..64) buffers of
 * size bytes each, registered with the ring on the first call
 * (IORING_REGISTER_BUFFERS; pinned memory, counted against
 * RLIMIT_MEMLOCK without CAP_IPC_LOCK).  Later calls return 0 if the
 * pool's buffers hold size bytes, else -EEXIST; a failed registration is
 * logged once and its error returned again (no retry per call).  -ENOSYS
 * without a ring.
 *
 * uring_buf_get lends a buffer of at least len bytes until b is freed, or
 * returns NULL (no ring, no pool, len too large, all lent): the caller
 * then uses ordinary memory.  The high-level functions notice registered
 * memory themselves: pread/pwrite use READ_FIXED/WRITE_FIXED, and the
 * zero-copy sendmsg sends an iovec that lies in a registered buffer with
 * IORING_OP_SEND_ZC + IORING_RECVSEND_FIXED_BUF.  As keep for them pass
 * b->data (a talloc chunk) or an ancestor of b.  A buffer is lent again
 * only when b is freed and no request that used it waits for a CQE
 * (the notification CQE of a zero-copy send included).
 */
struct uring_buf {
	uint8_t *data;
	size_t size;
};
int uring_bufs_setup(struct uring *ring, unsigned count, size_t size);
struct uring_buf *uring_buf_get(TALLOC_CTX *mem_ctx, struct uring *ring,
				size_t len);
/* The pool's size and how many buffers are neither lent nor in use. */
void uring_bufs_stats(struct uring *ring, unsigned *count, unsigned *idle);

/*
 * Socket I/O.  recv_full loops until len bytes arrived; at EOF it
 * completes with 0 and *nread < len.  sendmsg_full copies the iovec array
 * (not the data: keep that under keep), loops over partial sends and uses
 * MSG_NOSIGNAL (EPIPE instead of SIGPIPE).  The socket may be blocking or
 * not.
 */
struct tevent_req *uring_recv_full_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct uring *ring, int sockfd,
					void *buf, size_t len, void *keep);
int uring_recv_full_recv(struct tevent_req *req, size_t *nread);
/*
 * recv_some: like recv_full, but done as soon as at least min (1..len)
 * bytes arrived, with whatever one receive brought beyond them, up to
 * len: a read-ahead buffer.  Finish with uring_recv_full_recv.
 */
struct tevent_req *uring_recv_some_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct uring *ring, int sockfd,
					void *buf, size_t min, size_t len,
					void *keep);

struct tevent_req *uring_sendmsg_full_send(TALLOC_CTX *mem_ctx,
					   struct tevent_context *ev,
					   struct uring *ring, int sockfd,
					   const struct iovec *iov, int iovcnt,
					   void *keep);
int uring_sendmsg_full_recv(struct tevent_req *req);
/*
 * The same with IORING_OP_SENDMSG_ZC (the kernel sends from keep's pages
 * and drops them at the notification CQE, which ends the request); plain
 * SENDMSG where the kernel lacks it, plain sendmsg(2) without a ring.
 * Finish with uring_sendmsg_full_recv.
 */
struct tevent_req *uring_sendmsg_full_zc_send(TALLOC_CTX *mem_ctx,
					      struct tevent_context *ev,
					      struct uring *ring, int sockfd,
					      const struct iovec *iov,
					      int iovcnt, void *keep);

/*
 * Splice (uring_splice.c; ring only: -ENOSYS without one or when the
 * kernel lacks IORING_OP_SPLICE).
 *
 * splice_in moves len bytes of fd_in from off into the pipe pipe_wr,
 * continuing short splices; it stops early (*nspliced < len) at EOF or
 * when the pipe is full.  The caller sizes the pipe for len bytes, but a
 * pipe counts slots, not bytes: one per page touched by each splice, so
 * a splice continued mid-page (the file grew again after a short one)
 * takes a slot twice, and the pipe may fill before len.  The splices are
 * non-blocking (SPLICE_F_NONBLOCK): a full pipe ends the transfer short
 * instead of blocking forever with nobody reading the pipe.  On error
 * *nspliced still tells how many bytes the pipe received.  keep: the
 * talloc chunk owning the pipe (its fds must stay open until the kernel
 * is done), as for the other _send functions; also below.
 *
 * sendmsg_splice sends the iovec (MSG_MORE), then exactly src[i].len
 * bytes from each pipe src[i].pipe_rd in turn, on sockfd: a SENDMSG
 * linked to one SPLICE per pipe (one submission when nothing falls
 * short), continued (and polled for) until everything is out.  An empty
 * pipe before its len bytes is -EIO: the caller promised the bytes in a
 * header and must drop the connection.  keep as for uring_sendmsg_full.
 */
#define URING_SPLICE_SRC_MAX (URING_CHAIN_MAX - 1)
struct uring_splice_src {
	int pipe_rd;
	size_t len;             /* > 0 */
};
struct tevent_req *uring_splice_in_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct uring *ring, int fd_in,
					off_t off, int pipe_wr, size_t len,
					void *keep);
int uring_splice_in_recv(struct tevent_req *req, size_t *nspliced);

struct tevent_req *uring_sendmsg_splice_send(TALLOC_CTX *mem_ctx,
					     struct tevent_context *ev,
					     struct uring *ring, int sockfd,
					     const struct iovec *iov,
					     int iovcnt, void *keep,
					     const struct uring_splice_src *src,
					     unsigned nsrc);
int uring_sendmsg_splice_recv(struct tevent_req *req);

/*
 * splice_recv moves dst[i].len bytes from the socket into each pipe
 * dst[i].pipe_rd (here: the pipe's WRITE end) in turn: a WRITE's payload
 * received without passing through user memory.  The peer closing first
 * is -ECONNRESET.  A pipe takes one slot per socket buffer fragment,
 * not per page: from a peer (or NIC) with small fragments it fills before
 * dst[i].len bytes, and then the receive stops with -ENOBUFS; the bytes
 * moved are in dst[0..) in order, each pipe filled to its len before the
 * next.  splice_out moves src[i].len bytes from each pipe (read end) into
 * fd at off onward.  Both finish with uring_splice_sp_recv (bytes moved,
 * also on error).
 */
struct tevent_req *uring_splice_recv_send(TALLOC_CTX *mem_ctx,
					  struct tevent_context *ev,
					  struct uring *ring, int sockfd,
					  const struct uring_splice_src *dst,
					  unsigned n, void *keep);
struct tevent_req *uring_splice_out_send(TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct uring *ring,
					 const struct uring_splice_src *src,
					 unsigned n, int fd, uint64_t off,
					 void *keep);
int uring_splice_sp_recv(struct tevent_req *req, size_t *moved);

#endif
