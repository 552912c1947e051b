/*
 * Splice: file -> pipe, and iovec + pipe -> socket (docs/architecture.md,
 * "Data path modes").
 *
 * uring_splice_in moves a file range into a pipe with IORING_OP_SPLICE
 * until the range is in or the file ends.  uring_sendmsg_splice sends an
 * iovec (a response's NBT + SMB2 headers) with MSG_MORE linked to a SPLICE
 * of the pipe's bytes to the socket: one SQE pair, the payload never in
 * user memory.  Short transfers continue where they stopped; a socket
 * that would block (it is non-blocking: the fallback path needs that) is
 * waited for with IORING_OP_POLL_ADD.  Both need a ring (-ENOSYS without).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include "lib/uring/uring_private.h"

#define URING_SPLICE_MAX (1u << 30)     /* per SQE */
/* EAGAIN/EINTR answers in a row before giving up (never expected) */
#define URING_SPLICE_RETRIES 64

/* ---- file -> pipe ---- */

struct uring_splice_in_state {
	struct tevent_context *ev;
	struct uring *ring;
	struct tevent_req *subreq;
	int fd_in;
	int pipe_wr;
	off_t off;
	size_t len;
	size_t done;
	unsigned retries;
	void *keep;
};

static void uring_splice_in_prep(struct io_uring_sqe *sqe, void *private_data)
{
	struct uring_splice_in_state *s = private_data;
	size_t left = s->len - s->done;

	io_uring_prep_splice(sqe, s->fd_in, (int64_t)(s->off + s->done),
			     s->pipe_wr, -1,
			     left < URING_SPLICE_MAX ? left : URING_SPLICE_MAX,
			     SPLICE_F_NONBLOCK);
}

static void uring_splice_in_done(struct tevent_req *subreq);

static int uring_splice_in_step(struct tevent_req *req)
{
	struct uring_splice_in_state *s = tevent_req_data(
		req, struct uring_splice_in_state);

	s->subreq = uring_req_send(s, s->ev, s->ring, uring_splice_in_prep,
				   s, s->keep);
	if (s->subreq == NULL) {
		return -ENOMEM;
	}
	tevent_req_set_callback(s->subreq, uring_splice_in_done, req);
	return 0;
}

static void uring_splice_in_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(
		subreq, struct tevent_req);
	struct uring_splice_in_state *s = tevent_req_data(
		req, struct uring_splice_in_state);
	int32_t res = 0;
	int ret = uring_req_recv(subreq, &res);

	TALLOC_FREE(subreq);
	s->subreq = NULL;
	if (ret == 0 && res == -EAGAIN && s->done > 0) {
		tevent_req_done(req);   /* the pipe is full: short (uring.h) */
		return;
	}
	if (ret == 0 && (res == -EINTR || res == -EAGAIN)) {
		if (++s->retries > URING_SPLICE_RETRIES) {
			uring_req_fail(req, -EAGAIN);
			return;
		}
		res = 1 << 30;          /* marker: no progress, try again */
	} else if (ret == 0 && res < 0) {
		ret = res;
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
		return;
	}
	if (res == 0) {
		tevent_req_done(req);   /* end of file: done < len */
		return;
	}
	if (res != 1 << 30) {
		s->retries = 0;
		s->done += (size_t)res;
	}
	if (s->done == s->len) {
		tevent_req_done(req);
		return;
	}
	ret = uring_splice_in_step(req);
	if (ret != 0) {
		uring_req_fail(req, ret);
	}
}

static void uring_splice_in_cleanup(struct tevent_req *req,
				    enum tevent_req_state req_state)
{
	struct uring_splice_in_state *s = tevent_req_data(
		req, struct uring_splice_in_state);

	TALLOC_FREE(s->subreq);
}

struct tevent_req *uring_splice_in_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct uring *ring, int fd_in,
					off_t off, int pipe_wr, size_t len,
					void *keep)
{
	struct tevent_req *req = NULL;
	struct uring_splice_in_state *s = NULL;
	int ret = 0;

	req = tevent_req_create(mem_ctx, &s, struct uring_splice_in_state);
	if (req == NULL) {
		return NULL;
	}
	*s = (struct uring_splice_in_state) {
		.ev = ev, .ring = ring, .fd_in = fd_in, .pipe_wr = pipe_wr,
		.off = off, .len = len, .keep = keep,
	};
	tevent_req_set_cleanup_fn(req, uring_splice_in_cleanup);
	if (off < 0 || (uint64_t)len > (uint64_t)INT64_MAX - (uint64_t)off) {
		ret = -EINVAL;
	} else if (ring == NULL || !uring_op_supported(ring,
						       IORING_OP_SPLICE)) {
		ret = -ENOSYS;
	} else if (len == 0) {
		tevent_req_done(req);
		return tevent_req_post(req, ev);
	} else {
		ret = uring_splice_in_step(req);
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
		return tevent_req_post(req, ev);
	}
	return req;
}

int uring_splice_in_recv(struct tevent_req *req, size_t *nspliced)
{
	struct uring_splice_in_state *s = tevent_req_data(
		req, struct uring_splice_in_state);
	int ret = uring_req_error(req);

	/* on error too: the pipe holds what was moved before it */
	*nspliced = s->done;
	tevent_req_received(req);
	return ret;
}

/* ---- iovec + pipes -> socket ---- */

enum uring_ss_phase {
	URING_SS_CHAIN,         /* sendmsg linked to every splice */
	URING_SS_HEADER,        /* the rest of the iovec */
	URING_SS_SPLICE,        /* the rest of the pipes' bytes, pipe by pipe */
};

struct uring_ss_state {
	struct tevent_context *ev;
	struct uring *ring;
	struct tevent_req *subreq;
	int sockfd;
	void *keep;
	struct uring_msg *msg;
	struct uring_splice_src src[URING_SPLICE_SRC_MAX];
	unsigned nsrc;
	unsigned cur;           /* pipe being emptied */
	unsigned prep_idx;      /* the splice the next prep call fills */
	size_t spliced;         /* of src[cur] */
	enum uring_ss_phase phase;
	bool polling;           /* the op in flight is a POLL_ADD */
	unsigned retries;
};

static void uring_ss_prep_send(struct io_uring_sqe *sqe, void *private_data)
{
	struct uring_ss_state *s = private_data;

	/*
	 * MSG_WAITALL: without it a short send completes "successfully" and
	 * the linked splice runs, putting payload bytes on the wire before
	 * the rest of the header.  With it, io_uring retries a short send on
	 * a stream socket until all is out, or fails it (and so cancels the
	 * splices).
	 */
	io_uring_prep_sendmsg(sqe, s->sockfd, uring_msg_hdr(s->msg),
			      MSG_NOSIGNAL | MSG_MORE | MSG_WAITALL);
}

/* Fills the splices of a step in order: src[cur] (its rest), cur+1, ... */
static void uring_ss_prep_splice(struct io_uring_sqe *sqe,
				 void *private_data)
{
	struct uring_ss_state *s = private_data;
	unsigned i = s->prep_idx++;
	size_t left = s->src[i].len - (i == s->cur ? s->spliced : 0);

	/* an empty pipe (we hold its write end) must not block: EAGAIN */
	io_uring_prep_splice(sqe, s->src[i].pipe_rd, -1, s->sockfd, -1,
			     left < URING_SPLICE_MAX ? left : URING_SPLICE_MAX,
			     SPLICE_F_NONBLOCK);
}

static void uring_ss_prep_poll(struct io_uring_sqe *sqe, void *private_data)
{
	struct uring_ss_state *s = private_data;

	io_uring_prep_poll_add(sqe, s->sockfd, POLLOUT);
}

static void uring_ss_done(struct tevent_req *subreq);

/* The ops of the next step: a poll, or [sendmsg] + splices. */
static size_t uring_ss_links(struct uring_ss_state *s,
			     struct uring_link *links)
{
	size_t n = 0;
	unsigned i;

	if (s->polling) {
		links[n++] = (struct uring_link){ uring_ss_prep_poll, s };
		return n;
	}
	if (s->phase != URING_SS_SPLICE) {
		links[n++] = (struct uring_link){ uring_ss_prep_send, s };
	}
	if (s->phase != URING_SS_HEADER) {
		for (i = s->cur; i < s->nsrc; i++) {
			links[n++] = (struct uring_link){
				uring_ss_prep_splice, s };
		}
	}
	return n;
}

static int uring_ss_step(struct tevent_req *req)
{
	struct uring_ss_state *s = tevent_req_data(req, struct uring_ss_state);
	struct uring_link links[URING_CHAIN_MAX];
	size_t n = uring_ss_links(s, links);

	s->prep_idx = s->cur;
	/* the msghdr and iovec copy are kernel-visible memory too */
	s->subreq = uring_chain_send2(s, s->ev, s->ring, links, n, s->keep,
				      s->msg);
	if (s->subreq == NULL) {
		return -ENOMEM;
	}
	tevent_req_set_callback(s->subreq, uring_ss_done, req);
	return 0;
}

/* A would-block or interrupted answer: poll (or retry) a bounded time. */
static int uring_ss_again(struct uring_ss_state *s, int32_t res)
{
	if (++s->retries > URING_SPLICE_RETRIES) {
		return -EAGAIN;
	}
	s->polling = res == -EAGAIN;
	return 0;
}

/* The sendmsg's result: 0 to go on, or -errno. */
static int uring_ss_sent(struct uring_ss_state *s, int32_t res)
{
	if (res == -EAGAIN || res == -EINTR) {
		return uring_ss_again(s, res);
	}
	if (res <= 0) {
		return res < 0 ? res : -EIO;
	}
	s->retries = 0;
	uring_msg_consume(s->msg, (size_t)res);
	return 0;
}

/*
 * One splice's result for src[cur]: 1 when that pipe is empty now (go on
 * with the next link), 0 when it is not (stop here), or -errno.
 */
static int uring_ss_spliced(struct uring_ss_state *s, int32_t res)
{
	if (res == -ECANCELED) {
		return 0;               /* an earlier link fell short */
	}
	if (res == -EAGAIN || res == -EINTR) {
		return uring_ss_again(s, res);
	}
	if (res <= 0) {
		/* an empty pipe with bytes still promised: never send less */
		return res < 0 ? res : -EIO;
	}
	s->retries = 0;
	s->spliced += (size_t)res;
	if (s->spliced < s->src[s->cur].len) {
		return 0;
	}
	s->cur++;
	s->spliced = 0;
	return 1;
}

static int uring_ss_result(struct uring_ss_state *s, const int32_t *res,
			   size_t n)
{
	size_t i = 0;
	int ret = 0;

	if (s->polling) {
		s->polling = false;
		return (res[0] < 0 && res[0] != -EINTR) ? res[0] : 0;
	}
	if (s->phase != URING_SS_SPLICE) {
		ret = uring_ss_sent(s, res[i++]);
		if (ret != 0 || s->polling) {
			s->phase = URING_SS_HEADER;
			return ret;
		}
		if (s->msg->cur < s->msg->iovcnt) {
			s->phase = URING_SS_HEADER;
			if (i < n && res[i] != -ECANCELED) {
				/* payload went out before the header: lost */
				return -EIO;
			}
			return 0;
		}
		s->phase = URING_SS_SPLICE;
		if (i == n) {
			return 0;       /* was HEADER: the splices come next */
		}
	}
	for (; i < n; i++) {
		ret = uring_ss_spliced(s, res[i]);
		if (ret <= 0 || s->polling) {
			return ret < 0 ? ret : 0;
		}
	}
	return 0;
}

static void uring_ss_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(
		subreq, struct tevent_req);
	struct uring_ss_state *s = tevent_req_data(req, struct uring_ss_state);
	struct uring_link links[URING_CHAIN_MAX];
	int32_t res[URING_CHAIN_MAX];
	size_t n = uring_ss_links(s, links);     /* as submitted */
	int ret = uring_chain_recv(subreq, res, n);

	TALLOC_FREE(subreq);
	s->subreq = NULL;
	if (ret == 0) {
		ret = uring_ss_result(s, res, n);
	}
	if (ret == 0 && s->phase == URING_SS_SPLICE && !s->polling &&
	    s->cur == s->nsrc) {
		tevent_req_done(req);
		return;
	}
	if (ret == 0) {
		ret = uring_ss_step(req);
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
	}
}

static void uring_ss_cleanup(struct tevent_req *req,
			     enum tevent_req_state req_state)
{
	struct uring_ss_state *s = tevent_req_data(req, struct uring_ss_state);

	TALLOC_FREE(s->subreq);
}

struct tevent_req *uring_sendmsg_splice_send(TALLOC_CTX *mem_ctx,
					     struct tevent_context *ev,
					     struct uring *ring, int sockfd,
					     const struct iovec *iov,
					     int iovcnt, void *keep,
					     const struct uring_splice_src *src,
					     unsigned nsrc)
{
	struct tevent_req *req = NULL;
	struct uring_ss_state *s = NULL;
	unsigned i;
	int ret = 0;

	req = tevent_req_create(mem_ctx, &s, struct uring_ss_state);
	if (req == NULL) {
		return NULL;
	}
	*s = (struct uring_ss_state) {
		.ev = ev, .ring = ring, .sockfd = sockfd, .keep = keep,
		.nsrc = nsrc,
	};
	tevent_req_set_cleanup_fn(req, uring_ss_cleanup);
	for (i = 0; i < nsrc && i < URING_SPLICE_SRC_MAX; i++) {
		s->src[i] = src[i];
		if (src[i].len == 0) {
			ret = -EINVAL;
		}
	}
	s->msg = uring_msg_copy(s, iov, iovcnt);
	if (nsrc == 0 || nsrc > URING_SPLICE_SRC_MAX) {
		ret = -EINVAL;          /* no pipes: use uring_sendmsg_full */
	} else if (s->msg == NULL) {
		ret = -ENOMEM;
	} else if (ring == NULL || !uring_op_supported(ring,
						       IORING_OP_SPLICE)) {
		ret = -ENOSYS;
	}
	if (ret == 0) {
		s->phase = s->msg->cur < s->msg->iovcnt ? URING_SS_CHAIN :
			URING_SS_SPLICE;
		ret = uring_ss_step(req);
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
		return tevent_req_post(req, ev);
	}
	return req;
}

int uring_sendmsg_splice_recv(struct tevent_req *req)
{
	int ret = uring_req_error(req);

	tevent_req_received(req);
	return ret;
}

/* ---- socket -> pipes, pipes -> file ---- */

/*
 * One state for both directions: fill (or empty) src[0..n) in order,
 * src[i].len bytes each.  recv: socket -> pipe src[i].pipe_rd (a write
 * end here), each SPLICE linked after a POLL_ADD(POLLIN) so that a
 * non-blocking socket without data waits in the kernel, not in a retry
 * loop.  out: pipe src[i].pipe_rd -> fd at off (advancing).
 */
struct uring_sp_state {
	struct tevent_context *ev;
	struct uring *ring;
	struct tevent_req *subreq;
	bool recv;
	int fd;                 /* socket (recv) or file (out) */
	uint64_t off;           /* out: file offset of the next byte */
	struct uring_splice_src src[URING_SPLICE_SRC_MAX];
	unsigned n;
	unsigned cur;
	size_t done;            /* of src[cur] */
	size_t total;
	unsigned retries;
	void *keep;
};

static void uring_sp_prep_poll(struct io_uring_sqe *sqe, void *private_data)
{
	struct uring_sp_state *s = private_data;

	io_uring_prep_poll_add(sqe, s->fd, POLLIN);
}

static void uring_sp_prep_splice(struct io_uring_sqe *sqe, void *private_data)
{
	struct uring_sp_state *s = private_data;
	size_t left = s->src[s->cur].len - s->done;

	if (left > URING_SPLICE_MAX) {
		left = URING_SPLICE_MAX;
	}
	/*
	 * Never wait on a pipe: a full one (recv) or an empty one (out)
	 * has no other reader or writer than us.  A non-blocking socket
	 * does not make the pipe side non-blocking (seen on Linux 6.18).
	 */
	if (s->recv) {
		io_uring_prep_splice(sqe, s->fd, -1, s->src[s->cur].pipe_rd,
				     -1, left, SPLICE_F_NONBLOCK);
	} else {
		io_uring_prep_splice(sqe, s->src[s->cur].pipe_rd, -1, s->fd,
				     (int64_t)s->off, left, SPLICE_F_NONBLOCK);
	}
}

static void uring_sp_done(struct tevent_req *subreq);

static int uring_sp_step(struct tevent_req *req)
{
	struct uring_sp_state *s = tevent_req_data(req, struct uring_sp_state);
	struct uring_link links[2];
	size_t n = 0;

	if (s->recv) {
		links[n++] = (struct uring_link){ uring_sp_prep_poll, s };
	}
	links[n++] = (struct uring_link){ uring_sp_prep_splice, s };
	s->subreq = uring_chain_send(s, s->ev, s->ring, links, n, s->keep);
	if (s->subreq == NULL) {
		return -ENOMEM;
	}
	tevent_req_set_callback(s->subreq, uring_sp_done, req);
	return 0;
}

static void uring_sp_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(
		subreq, struct tevent_req);
	struct uring_sp_state *s = tevent_req_data(req, struct uring_sp_state);
	int32_t res[2] = { 0, 0 };
	size_t n = s->recv ? 2 : 1;
	int ret = uring_chain_recv(subreq, res, n);
	int32_t r = res[n - 1];

	TALLOC_FREE(subreq);
	s->subreq = NULL;
	if (ret == 0 && s->recv && res[0] < 0 && res[0] != -EINTR) {
		ret = res[0];           /* the poll failed */
	}
	if (ret == 0 && s->recv && r == -EAGAIN && res[0] > 0 &&
	    (res[0] & POLLIN)) {
		/* the socket has data, the pipe no room: full (uring.h) */
		uring_req_fail(req, -ENOBUFS);
		return;
	}
	if (ret == 0 && (r == -EAGAIN || r == -EINTR || r == -ECANCELED)) {
		if (++s->retries > URING_SPLICE_RETRIES * 16) {
			ret = -EAGAIN;
		}
		r = 0;
	} else if (ret == 0 && r == 0) {
		/* recv: the peer closed mid-payload; out: an empty pipe */
		ret = s->recv ? -ECONNRESET : -EIO;
	} else if (ret == 0 && r < 0) {
		ret = r;
	} else if (ret == 0) {
		s->retries = 0;
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
		return;
	}
	s->done += (size_t)r;
	s->total += (size_t)r;
	s->off += (uint64_t)r;
	if (s->done == s->src[s->cur].len) {
		s->cur++;
		s->done = 0;
	}
	if (s->cur == s->n) {
		tevent_req_done(req);
		return;
	}
	ret = uring_sp_step(req);
	if (ret != 0) {
		uring_req_fail(req, ret);
	}
}

static void uring_sp_cleanup(struct tevent_req *req,
			     enum tevent_req_state req_state)
{
	struct uring_sp_state *s = tevent_req_data(req, struct uring_sp_state);

	TALLOC_FREE(s->subreq);
}

static struct tevent_req *uring_sp_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct uring *ring, bool recv, int fd,
					uint64_t off,
					const struct uring_splice_src *src,
					unsigned n, void *keep)
{
	struct tevent_req *req = NULL;
	struct uring_sp_state *s = NULL;
	unsigned i;
	int ret = 0;

	req = tevent_req_create(mem_ctx, &s, struct uring_sp_state);
	if (req == NULL) {
		return NULL;
	}
	*s = (struct uring_sp_state) {
		.ev = ev, .ring = ring, .recv = recv, .fd = fd, .off = off,
		.n = n, .keep = keep,
	};
	tevent_req_set_cleanup_fn(req, uring_sp_cleanup);
	if (n == 0 || n > URING_SPLICE_SRC_MAX || off > INT64_MAX) {
		ret = -EINVAL;
	}
	for (i = 0; ret == 0 && i < n; i++) {
		s->src[i] = src[i];
		if (src[i].len == 0) {
			ret = -EINVAL;
		}
	}
	if (ret == 0 && (ring == NULL ||
			 !uring_op_supported(ring, IORING_OP_SPLICE))) {
		ret = -ENOSYS;
	}
	if (ret == 0) {
		ret = uring_sp_step(req);
	}
	if (ret != 0) {
		uring_req_fail(req, ret);
		return tevent_req_post(req, ev);
	}
	return req;
}

struct tevent_req *uring_splice_recv_send(TALLOC_CTX *mem_ctx,
					  struct tevent_context *ev,
					  struct uring *ring, int sockfd,
					  const struct uring_splice_src *dst,
					  unsigned n, void *keep)
{
	return uring_sp_send(mem_ctx, ev, ring, true, sockfd, 0, dst, n,
			     keep);
}

struct tevent_req *uring_splice_out_send(TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct uring *ring,
					 const struct uring_splice_src *src,
					 unsigned n, int fd, uint64_t off,
					 void *keep)
{
	return uring_sp_send(mem_ctx, ev, ring, false, fd, off, src, n,
			     keep);
}

int uring_splice_sp_recv(struct tevent_req *req, size_t *moved)
{
	struct uring_sp_state *s = tevent_req_data(req, struct uring_sp_state);
	int ret = uring_req_error(req);

	*moved = s->total;
	tevent_req_received(req);
	return ret;
}
