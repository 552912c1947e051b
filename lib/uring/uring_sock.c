/*
 * recv_full / sendmsg_full: loop until the whole buffer moved.
 *
 * Ring: IORING_OP_RECV / IORING_OP_SENDMSG; if the kernel answers -EAGAIN
 * (a non-blocking socket it did not arm poll for) wait with
 * IORING_OP_POLL_ADD, then try again.  No ring: wait for readiness on a
 * tevent_fd, then non-blocking recv/sendmsg until EAGAIN.  Either way the
 * request completes from the event loop, never inside _send.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include "lib/uring/uring_private.h"

#define URING_SOCK_MAX (1u << 30)       /* per recv SQE */
/* fewer bytes than this before a registered buffer: headers, copied */
#define URING_ZC_MIN 16384

enum { URING_DONE = 0, URING_MORE = 1, URING_WAIT = 2 };

struct uring_zc_seg;

struct uring_sock_state {
	struct tevent_context *ev;
	struct uring *ring;
	struct tevent_req *subreq;
	struct tevent_fd *fde;
	int fd;
	bool sending;
	bool zc;                /* sendmsg as IORING_OP_SENDMSG_ZC */
	bool zc_fixed;          /* ... and registered buffers as SEND_ZC */
	struct uring_zc_seg *seg;       /* zc_fixed: the chain (under msg) */
	unsigned nseg;                  /* segments in flight */
	bool polling;           /* the in-flight op is a POLL_ADD */
	void *keep;
	uint8_t *buf;           /* recv */
	size_t len;
	size_t min;             /* recv: done once this many arrived */
	size_t done;            /* bytes received or sent */
	struct uring_msg *msg;  /* sendmsg */
};

static void uring_sock_done(struct tevent_req *subreq);
static void uring_sock_ready(struct tevent_context *ev,
			     struct tevent_fd *fde, uint16_t flags,
			     void *private_data);

static void uring_msg_skip_empty(struct uring_msg *m)
{
	while (m->cur < m->iovcnt && m->iov[m->cur].iov_len == 0) {
		m->cur++;
	}
}

void uring_msg_consume(struct uring_msg *m, size_t n)
{
	while (n > 0 && m->cur < m->iovcnt) {
		struct iovec *v = &m->iov[m->cur];
		size_t take = n < v->iov_len ? n : v->iov_len;

		v->iov_base = (uint8_t *)v->iov_base + take;
		v->iov_len -= take;
		n -= take;
		uring_msg_skip_empty(m);
	}
}

/* Points the msghdr at what is left; called right before each send. */
struct msghdr *uring_msg_hdr(struct uring_msg *m)
{
	m->mh = (struct msghdr) {
		.msg_iov = m->iov + m->cur,
		.msg_iovlen = (size_t)(m->iovcnt - m->cur),
	};
	return &m->mh;
}

/* One transfer's result: URING_DONE/MORE/WAIT or -errno. */
static int uring_sock_advance(struct uring_sock_state *s, int64_t res)
{
	if (res == -EINTR) {
		return URING_MORE;
	}
	if (res == -EAGAIN || res == -EWOULDBLOCK) {
		return URING_WAIT;
	}
	if (res < 0) {
		return (int)res;
	}
	if (s->sending) {
		if (res == 0) {
			return -EIO;    /* no progress: do not spin */
		}
		s->done += (size_t)res;
		uring_msg_consume(s->msg, (size_t)res);
		return s->msg->cur < s->msg->iovcnt ? URING_MORE : URING_DONE;
	}
	if (res == 0) {
		return URING_DONE;      /* EOF: done < len tells the caller */
	}
	s->done += (size_t)res;
	return s->done < s->min ? URING_MORE : URING_DONE;
}

static size_t uring_sock_chunk(const struct uring_sock_state *s)
{
	size_t left = s->len - s->done;

	return left < URING_SOCK_MAX ? left : URING_SOCK_MAX;
}

/* ---- ring path ---- */

/*
 * Zero-copy send with registered buffers: the iovecs are cut into
 * segments, sent as one linked chain (one submission for a whole batch
 * of READ responses): an iovec in a registered buffer alone as SEND_ZC
 * from the fixed buffer (no page pinning per send); the iovecs between
 * such ones as one SENDMSG_ZC, or, when they are only headers, as a
 * plain SENDMSG with MSG_MORE so they share a segment with the payload
 * that follows in the same chain.  MSG_WAITALL: the kernel continues a
 * short send itself, so a short result means an error or a signal, and
 * the links after it fail (-ECANCELED); what was sent is consumed and the
 * rest goes in the next chain.  Never MSG_MORE on a zero-copy send: its
 * request waits for the notification, which a corked socket holds back
 * until more data comes (200 ms; measured).
 */
struct uring_zc_seg {
	struct uring_sock_state *s;
	struct msghdr mh;
	int first, n;           /* msg->iov[first .. first + n) */
	int idx;                /* registered buffer index, or -1 */
	size_t bytes;
	bool copy;              /* headers: plain SENDMSG, MSG_MORE */
};

static void uring_zc_seg_prep(struct io_uring_sqe *sqe, void *private_data)
{
	struct uring_zc_seg *g = private_data;
	struct uring_sock_state *s = g->s;
	struct iovec *v = &s->msg->iov[g->first];
	int fl = MSG_NOSIGNAL | MSG_WAITALL;

	if (g->idx >= 0) {
		io_uring_prep_send_zc_fixed(sqe, s->fd, v->iov_base,
					    v->iov_len, fl, 0,
					    (unsigned)g->idx);
		return;
	}
	g->mh = (struct msghdr){ .msg_iov = v, .msg_iovlen = (size_t)g->n };
	if (g->copy) {
		io_uring_prep_sendmsg(sqe, s->fd, &g->mh, fl | MSG_MORE);
	} else {
		io_uring_prep_sendmsg_zc(sqe, s->fd, &g->mh, fl);
	}
}

/* The registered buffer holding a (non-empty) iovec, or -1. */
static int uring_zc_idx(const struct uring_sock_state *s,
			const struct iovec *v)
{
	return v->iov_len > 0 ? uring_buf_index(s->ring, v->iov_base,
						 v->iov_len) : -1;
}

/* Cuts what is left of msg into at most URING_CHAIN_MAX segments. */
static void uring_zc_plan(struct uring_sock_state *s)
{
	struct uring_msg *m = s->msg;
	int cur = m->cur;

	s->nseg = 0;
	while (cur < m->iovcnt && s->nseg < URING_CHAIN_MAX) {
		struct uring_zc_seg *g = &s->seg[s->nseg++];

		*g = (struct uring_zc_seg){ .s = s, .first = cur, .n = 1,
			.bytes = m->iov[cur].iov_len,
			.idx = uring_zc_idx(s, &m->iov[cur]) };
		cur++;
		while (g->idx < 0 && cur < m->iovcnt &&
		       uring_zc_idx(s, &m->iov[cur]) < 0) {
			g->bytes += m->iov[cur++].iov_len;
			g->n++;
		}
		g->copy = g->idx < 0 && cur < m->iovcnt &&
			  g->bytes < URING_ZC_MIN;
	}
}

/* The chain's results in order, up to the first one that fell short. */
static int uring_zc_result(struct uring_sock_state *s, const int32_t *res)
{
	unsigned i;
	int ret = URING_MORE;

	for (i = 0; i < s->nseg; i++) {
		ret = uring_sock_advance(s, res[i]);
		if (ret != URING_MORE || res[i] < 0 ||
		    (size_t)res[i] < s->seg[i].bytes) {
			break;
		}
	}
	s->nseg = 0;
	return ret;
}

static void uring_sock_prep(struct io_uring_sqe *sqe, void *private_data)
{
	struct uring_sock_state *s = private_data;

	if (s->polling) {
		io_uring_prep_poll_add(sqe, s->fd, s->sending ? POLLOUT : POLLIN);
	} else if (s->sending && s->zc) {
		io_uring_prep_sendmsg_zc(sqe, s->fd, uring_msg_hdr(s->msg),
					 MSG_NOSIGNAL);
	} else if (s->sending) {
		io_uring_prep_sendmsg(sqe, s->fd, uring_msg_hdr(s->msg),
				      MSG_NOSIGNAL);
	} else {
		io_uring_prep_recv(sqe, s->fd, s->buf + s->done,
				   uring_sock_chunk(s), 0);
	}
}

static int uring_sock_step(struct tevent_req *req)
{
	struct uring_sock_state *s = tevent_req_data(
		req, struct uring_sock_state);

	struct uring_link links[URING_CHAIN_MAX];
	unsigned i;

	if (s->zc_fixed && !s->polling) {
		uring_zc_plan(s);
		for (i = 0; i < s->nseg; i++) {
			links[i] = (struct uring_link){
				.prep = uring_zc_seg_prep,
				.private_data = &s->seg[i] };
		}
		/* seg (the msghdrs) lives under msg: kept like it */
		s->subreq = uring_chain_send2(s, s->ev, s->ring, links,
					      s->nseg, s->keep, s->msg);
	} else {
		/* the msghdr and iovec copy are kernel-visible memory too */
		s->subreq = uring_req_send2(s, s->ev, s->ring,
					    uring_sock_prep, s, s->keep,
					    s->msg);
	}
	if (s->subreq == NULL) {
		return -ENOMEM;
	}
	tevent_req_set_callback(s->subreq, uring_sock_done, req);
	return 0;
}

static int uring_sock_result(struct uring_sock_state *s, int32_t res)
{
	if (!s->polling) {
		return uring_sock_advance(s, res);
	}
	s->polling = false;
	return (res < 0 && res != -EINTR) ? res : URING_MORE;
}

static void uring_sock_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(
		subreq, struct tevent_req);
	struct uring_sock_state *s = tevent_req_data(
		req, struct uring_sock_state);
	int32_t res[URING_CHAIN_MAX] = { 0 };
	unsigned nseg = s->nseg;
	int ret = nseg > 0 ? uring_chain_recv(subreq, res, nseg) :
		uring_req_recv(subreq, res);

	TALLOC_FREE(subreq);
	s->subreq = NULL;
	if (ret == 0) {
		ret = nseg > 0 ? uring_zc_result(s, res) :
			uring_sock_result(s, res[0]);
	}
	if (ret == URING_WAIT) {
		s->polling = true;
	}
	if (ret == URING_MORE || ret == URING_WAIT) {
		ret = uring_sock_step(req);
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

/* ---- fallback path ---- */

static int64_t uring_sock_try(struct uring_sock_state *s)
{
	ssize_t n;

	if (s->sending) {
		n = sendmsg(s->fd, uring_msg_hdr(s->msg),
			    MSG_NOSIGNAL | MSG_DONTWAIT);
	} else {
		n = recv(s->fd, s->buf + s->done, uring_sock_chunk(s),
			 MSG_DONTWAIT);
	}
	return n < 0 ? -errno : n;
}

/*
 * tevent's epoll backend reports HUP/ERR only to fds that wait for READ
 * (select() semantics) and silently drops a WRITE-only fd on error, so a
 * waiting sender asks for READ too.  A READ wakeup that sends nothing
 * means the peer sent data, not an error: to avoid spinning on it, wait
 * for WRITE only until the next progress.
 */
static void uring_sock_send_flags(struct uring_sock_state *s,
				  uint16_t flags, size_t done_before)
{
	bool progress = s->done != done_before;

	tevent_fd_set_flags(s->fde, progress || (flags & TEVENT_FD_WRITE) ?
			    TEVENT_FD_READ | TEVENT_FD_WRITE :
			    TEVENT_FD_WRITE);
}

static int uring_sock_wait(struct tevent_req *req)
{
	struct uring_sock_state *s = tevent_req_data(
		req, struct uring_sock_state);

	s->fde = tevent_add_fd(s->ev, s, s->fd, s->sending ?
			       TEVENT_FD_READ | TEVENT_FD_WRITE :
			       TEVENT_FD_READ, uring_sock_ready, req);
	return s->fde != NULL ? 0 : -ENOMEM;
}

static void uring_sock_ready(struct tevent_context *ev,
			     struct tevent_fd *fde, uint16_t flags,
			     void *private_data)
{
	struct tevent_req *req = talloc_get_type_abort(
		private_data, struct tevent_req);
	struct uring_sock_state *s = tevent_req_data(
		req, struct uring_sock_state);
	size_t done_before = s->done;
	int ret;

	do {
		ret = uring_sock_advance(s, uring_sock_try(s));
	} while (ret == URING_MORE);
	if (ret == URING_WAIT) {
		if (s->sending) {
			uring_sock_send_flags(s, flags, done_before);
		}
		return;                 /* level-triggered: called again */
	}
	TALLOC_FREE(s->fde);
	if (ret != 0) {
		uring_req_fail(req, ret);
		return;
	}
	tevent_req_done(req);
}

/* ---- common ---- */

static void uring_sock_cleanup(struct tevent_req *req,
			       enum tevent_req_state req_state)
{
	struct uring_sock_state *s = tevent_req_data(
		req, struct uring_sock_state);

	TALLOC_FREE(s->subreq);
	TALLOC_FREE(s->fde);
}

static bool uring_sock_finished(const struct uring_sock_state *s)
{
	if (s->sending) {
		return s->msg->cur == s->msg->iovcnt;
	}
	return s->len == 0;
}

static struct tevent_req *uring_sock_start(struct tevent_req *req,
					   struct uring_sock_state *s)
{
	int ret = 0;

	tevent_req_set_cleanup_fn(req, uring_sock_cleanup);
	if (uring_sock_finished(s)) {
		tevent_req_done(req);
		return tevent_req_post(req, s->ev);
	}
	ret = s->ring != NULL ? uring_sock_step(req) : uring_sock_wait(req);
	if (ret != 0) {
		uring_req_fail(req, ret);
		return tevent_req_post(req, s->ev);
	}
	return req;
}

struct tevent_req *uring_recv_some_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct uring *ring, int sockfd,
					void *buf, size_t min, size_t len,
					void *keep)
{
	struct tevent_req *req = NULL;
	struct uring_sock_state *s = NULL;

	req = tevent_req_create(mem_ctx, &s, struct uring_sock_state);
	if (req == NULL) {
		return NULL;
	}
	*s = (struct uring_sock_state) {
		.ev = ev, .ring = ring, .fd = sockfd, .keep = keep,
		.buf = buf, .len = len, .min = min < len ? min : len,
	};
	if (len > 0 && s->min == 0) {
		s->min = 1;
	}
	return uring_sock_start(req, s);
}

struct tevent_req *uring_recv_full_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct uring *ring, int sockfd,
					void *buf, size_t len, void *keep)
{
	return uring_recv_some_send(mem_ctx, ev, ring, sockfd, buf, len, len,
				    keep);
}

int uring_recv_full_recv(struct tevent_req *req, size_t *nread)
{
	struct uring_sock_state *s = tevent_req_data(
		req, struct uring_sock_state);
	int ret = uring_req_error(req);

	*nread = ret == 0 ? s->done : 0;
	tevent_req_received(req);
	return ret;
}

struct uring_msg *uring_msg_copy(TALLOC_CTX *mem_ctx, const struct iovec *iov,
				 int iovcnt)
{
	struct uring_msg *m = NULL;

	if (iovcnt < 0 || iovcnt > IOV_MAX) {
		return NULL;
	}
	m = talloc_size(mem_ctx, sizeof(*m) + (size_t)iovcnt * sizeof(*iov));
	if (m == NULL) {
		return NULL;
	}
	talloc_set_name_const(m, "struct uring_msg");
	m->iovcnt = iovcnt;
	m->cur = 0;
	if (iovcnt > 0) {
		memcpy(m->iov, iov, (size_t)iovcnt * sizeof(*iov));
	}
	uring_msg_skip_empty(m);
	return m;
}

/* sendmsg_full and its SENDMSG_ZC twin differ only in the opcode */
static struct tevent_req *uring_sendmsg_start(TALLOC_CTX *mem_ctx,
					      struct tevent_context *ev,
					      struct uring *ring, int sockfd,
					      const struct iovec *iov,
					      int iovcnt, void *keep, bool zc)
{
	struct tevent_req *req = NULL;
	struct uring_sock_state *s = NULL;

	req = tevent_req_create(mem_ctx, &s, struct uring_sock_state);
	if (req == NULL) {
		return NULL;
	}
	*s = (struct uring_sock_state) {
		.ev = ev, .ring = ring, .fd = sockfd, .keep = keep,
		.sending = true,
		.zc = zc && ring != NULL &&
		      uring_op_supported(ring, IORING_OP_SENDMSG_ZC),
	};
	s->zc_fixed = s->zc && uring_op_supported(ring, IORING_OP_SEND_ZC) &&
		      ring->bufs != NULL;
	s->msg = uring_msg_copy(s, iov, iovcnt);
	if (s->msg == NULL) {
		uring_req_fail(req, iovcnt < 0 || iovcnt > IOV_MAX ?
			       -EINVAL : -ENOMEM);
		return tevent_req_post(req, ev);
	}
	if (s->zc_fixed) {
		s->seg = talloc_array(s->msg, struct uring_zc_seg,
				      URING_CHAIN_MAX);
		if (s->seg == NULL) {
			uring_req_fail(req, -ENOMEM);
			return tevent_req_post(req, ev);
		}
	}
	return uring_sock_start(req, s);
}

struct tevent_req *uring_sendmsg_full_send(TALLOC_CTX *mem_ctx,
					   struct tevent_context *ev,
					   struct uring *ring, int sockfd,
					   const struct iovec *iov, int iovcnt,
					   void *keep)
{
	return uring_sendmsg_start(mem_ctx, ev, ring, sockfd, iov, iovcnt,
				   keep, false);
}

struct tevent_req *uring_sendmsg_full_zc_send(TALLOC_CTX *mem_ctx,
					      struct tevent_context *ev,
					      struct uring *ring, int sockfd,
					      const struct iovec *iov,
					      int iovcnt, void *keep)
{
	return uring_sendmsg_start(mem_ctx, ev, ring, sockfd, iov, iovcnt,
				   keep, true);
}

int uring_sendmsg_full_recv(struct tevent_req *req)
{
	int ret = uring_req_error(req);

	tevent_req_received(req);
	return ret;
}
