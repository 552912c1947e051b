/*
 * lib/uring high-level socket I/O and splices (recv_full, recv_some,
 * sendmsg_full, timeouts, file -> pipe -> socket and socket -> pipe,
 * pipes that fill by slots), each body run with the ring, with
 * uring_ev_disable() and with RINGSMB_NO_IO_URING=1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tests/unit/uring_test_util.h"

/* ---- high-level socket I/O, every mode ---- */

struct dribble {
	int fd;
	const uint8_t *data;
	size_t len;
	size_t sent;
	bool close_at_end;
};

/* Writes the peer's data in growing pieces, one per timer tick. */
static void dribble_tick(struct tevent_context *ev, struct tevent_timer *te,
			 struct timeval now, void *private_data)
{
	struct dribble *d = private_data;
	size_t piece = d->sent == 0 ? 1 : d->sent * 3;
	ssize_t n;

	if (piece > d->len - d->sent) {
		piece = d->len - d->sent;
	}
	n = write(d->fd, d->data + d->sent, piece);
	assert_true(n > 0);
	d->sent += (size_t)n;
	if (d->sent < d->len) {
		tevent_add_timer(ev, ev, tevent_timeval_current_ofs(0, 2000),
				 dribble_tick, d);
	} else if (d->close_at_end) {
		shutdown(d->fd, SHUT_WR);
	}
}

static void recv_full_body(TALLOC_CTX *ctx, enum mode m, bool nonblock)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(ctx, m, &ring);
	const size_t len = 50000;
	uint8_t *data = pattern(ctx, len, 5);
	uint8_t *buf = talloc_zero_size(ctx, len + 10);
	struct dribble d = { .data = data, .len = len };
	struct tevent_req *req = NULL;
	size_t n = 0;
	int sv[2];

	if (m == MODE_RING) {
		RING_OR_SKIP(ev, ring);
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	if (nonblock) {
		fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	}
	d.fd = sv[1];
	tevent_add_timer(ev, ev, tevent_timeval_zero(), dribble_tick, &d);
	req = uring_recv_full_send(ctx, ev, ring, sv[0], buf, len, buf);
	wait_req(ev, req);
	assert_int_equal(uring_recv_full_recv(req, &n), 0);
	assert_int_equal(n, len);
	assert_memory_equal(buf, data, len);
	talloc_free(req);
	/* EOF after 10 bytes: nread < len, no error */
	d = (struct dribble) { .fd = sv[1], .data = data, .len = 10,
			       .close_at_end = true };
	tevent_add_timer(ev, ev, tevent_timeval_zero(), dribble_tick, &d);
	req = uring_recv_full_send(ctx, ev, ring, sv[0], buf, len, buf);
	wait_req(ev, req);
	assert_int_equal(uring_recv_full_recv(req, &n), 0);
	assert_int_equal(n, 10);
	talloc_free(req);
	close(sv[0]);
	close(sv[1]);
	/*
	 * recv_some (the transport's read-ahead): what is there, at least
	 * min, at most len; a receive for 1 byte takes all 300 queued.
	 */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	if (nonblock) {
		fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	}
	assert_int_equal(write(sv[1], data, 300), 300);
	req = uring_recv_some_send(ctx, ev, ring, sv[0], buf, 1, len, buf);
	wait_req(ev, req);
	assert_int_equal(uring_recv_full_recv(req, &n), 0);
	assert_int_equal(n, 300);
	assert_memory_equal(buf, data, 300);
	talloc_free(req);
	/* min 1000 with 600 there: waits for the dribbled rest, len caps */
	assert_int_equal(write(sv[1], data, 600), 600);
	d = (struct dribble) { .fd = sv[1], .data = data + 600, .len = 500 };
	tevent_add_timer(ev, ev, tevent_timeval_zero(), dribble_tick, &d);
	req = uring_recv_some_send(ctx, ev, ring, sv[0], buf, 1000, 2000,
				   buf);
	wait_req(ev, req);
	assert_int_equal(uring_recv_full_recv(req, &n), 0);
	assert_true(n >= 1000 && n <= 2000);
	assert_memory_equal(buf, data, n);
	talloc_free(req);
	close(sv[0]);
	close(sv[1]);
	talloc_free(data);
	talloc_free(buf);
	talloc_free(ev);
}

static void sendmsg_full_body(TALLOC_CTX *ctx, enum mode m, bool nonblock)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(ctx, m, &ring);
	const size_t len = 1 << 20;
	uint8_t *data = pattern(ctx, len, 9);
	uint8_t *buf = talloc_zero_size(ctx, len);
	struct iovec iov[5] = {
		{ data, 10 }, { data + 10, 0 }, { data + 10, 100000 },
		{ data + 100010, len - 100010 }, { data, 0 },
	};
	struct tevent_req *sreq = NULL, *rreq = NULL;
	int sndbuf = 4096, sv[2];
	size_t n = 0;

	if (m == MODE_RING) {
		RING_OR_SKIP(ev, ring);
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (nonblock) {
		fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	}
	sreq = uring_sendmsg_full_send(ctx, ev, ring, sv[0], iov, 5, data);
	memset(iov, 0, sizeof(iov));            /* the array was copied */
	rreq = uring_recv_full_send(ctx, ev, ring, sv[1], buf, len, buf);
	wait_req(ev, sreq);
	wait_req(ev, rreq);
	assert_int_equal(uring_sendmsg_full_recv(sreq), 0);
	assert_int_equal(uring_recv_full_recv(rreq, &n), 0);
	assert_int_equal(n, len);
	assert_memory_equal(buf, data, len);
	talloc_free(sreq);
	talloc_free(rreq);
	/* peer gone: EPIPE, not SIGPIPE */
	close(sv[1]);
	iov[0] = (struct iovec) { data, 100 };
	sreq = uring_sendmsg_full_send(ctx, ev, ring, sv[0], iov, 1, data);
	wait_req(ev, sreq);
	assert_int_equal(uring_sendmsg_full_recv(sreq), -EPIPE);
	talloc_free(sreq);
	sreq = uring_sendmsg_full_send(ctx, ev, ring, sv[0], iov, -1, NULL);
	wait_req(ev, sreq);
	assert_int_equal(uring_sendmsg_full_recv(sreq), -EINVAL);
	talloc_free(sreq);
	close(sv[0]);
	talloc_free(data);
	talloc_free(buf);
	talloc_free(ev);
}

/* A tevent timeout on recv_full; the buffer stays until the CQE. */
static void recv_timeout_body(TALLOC_CTX *ctx, enum mode m)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(ctx, m, &ring);
	bool freed = false;
	struct tbuf *b = NULL;
	struct tevent_req *req = NULL;
	size_t n = 1;
	int sv[2];

	if (m == MODE_RING) {
		RING_OR_SKIP(ev, ring);
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	b = tbuf_new(ctx, &freed);
	req = uring_recv_full_send(ctx, ev, ring, sv[0], b->data,
				   sizeof(b->data), b);
	talloc_steal(req, b);
	assert_true(tevent_req_set_endtime(req, ev,
					   tevent_timeval_current_ofs(0, 20000)));
	wait_req(ev, req);
	assert_int_equal(uring_recv_full_recv(req, &n), -ETIMEDOUT);
	assert_int_equal(n, 0);
	talloc_free(req);
	if (ring != NULL) {
		WAIT_UNTIL(ev, ring_inflight(ring) == 0);
	}
	assert_true(freed);
	close(sv[0]);
	close(sv[1]);
	talloc_free(ev);
}

static void recv_full_block_body(TALLOC_CTX *ctx, enum mode m)
{
	recv_full_body(ctx, m, false);
}

static void recv_full_nonblock_body(TALLOC_CTX *ctx, enum mode m)
{
	recv_full_body(ctx, m, true);
}

static void sendmsg_full_block_body(TALLOC_CTX *ctx, enum mode m)
{
	sendmsg_full_body(ctx, m, false);
}

static void sendmsg_full_nonblock_body(TALLOC_CTX *ctx, enum mode m)
{
	sendmsg_full_body(ctx, m, true);
}

/*
 * splice: a file range into two pipes (the second gets the tail, short at
 * EOF), then header + both pipes on a socket with a small send buffer
 * (short sends, and EAGAIN + polls when non-blocking); the peer gets the
 * exact bytes.  Without a ring both calls fail with -ENOSYS.
 */
static void splice_body(TALLOC_CTX *ctx, enum mode m, bool nonblock)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(ctx, m, &ring);
	const size_t flen = 300000, chunk = 200000, hlen = 150000;
	uint8_t *data = pattern(ctx, flen, 21);
	uint8_t *hdr = pattern(ctx, hlen, 22);
	uint8_t *buf = talloc_zero_size(ctx, hlen + flen);
	struct uring_splice_src src[2];
	struct iovec iov[2] = { { hdr, 10 }, { hdr + 10, hlen - 10 } };
	struct tevent_req *r1 = NULL, *r2 = NULL, *rr = NULL;
	int fd = tmpfile_with(data, flen);
	int p1[2], p2[2], sv[2], sndbuf = 4096, big = 1 << 20;
	size_t n1 = 0, n2 = 0, n = 0;

	assert_int_equal(pipe2(p1, O_CLOEXEC), 0);
	assert_int_equal(pipe2(p2, O_CLOEXEC), 0);
	if (m != MODE_RING) {
		r1 = uring_splice_in_send(ctx, ev, ring, fd, 0, p1[1], chunk,
					  NULL);
		wait_req(ev, r1);
		assert_int_equal(uring_splice_in_recv(r1, &n1), -ENOSYS);
		TALLOC_FREE(r1);
		src[0] = (struct uring_splice_src){ p1[0], 1 };
		r1 = uring_sendmsg_splice_send(ctx, ev, ring, fd, iov, 2, NULL,
					       src, 1);
		wait_req(ev, r1);
		assert_int_equal(uring_sendmsg_splice_recv(r1), -ENOSYS);
		TALLOC_FREE(r1);
		goto done;
	}
	RING_OR_SKIP(ev, ring);
	fcntl(p1[1], F_SETPIPE_SZ, big);
	fcntl(p2[1], F_SETPIPE_SZ, big);
	/* the second asks for more than is left: stops at EOF */
	r1 = uring_splice_in_send(ctx, ev, ring, fd, 0, p1[1], chunk,
					  NULL);
	r2 = uring_splice_in_send(ctx, ev, ring, fd, chunk, p2[1], chunk,
				  NULL);
	wait_req(ev, r1);
	wait_req(ev, r2);
	assert_int_equal(uring_splice_in_recv(r1, &n1), 0);
	assert_int_equal(uring_splice_in_recv(r2, &n2), 0);
	assert_int_equal(n1, chunk);
	assert_int_equal(n2, flen - chunk);
	TALLOC_FREE(r1);
	TALLOC_FREE(r2);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (nonblock) {
		fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	}
	src[0] = (struct uring_splice_src){ p1[0], n1 };
	src[1] = (struct uring_splice_src){ p2[0], n2 };
	r1 = uring_sendmsg_splice_send(ctx, ev, ring, sv[0], iov, 2, hdr,
				       src, 2);
	memset(iov, 0, sizeof(iov));            /* the array was copied */
	rr = uring_recv_full_send(ctx, ev, ring, sv[1], buf, hlen + flen, buf);
	wait_req(ev, r1);
	wait_req(ev, rr);
	assert_int_equal(uring_sendmsg_splice_recv(r1), 0);
	assert_int_equal(uring_recv_full_recv(rr, &n), 0);
	assert_int_equal(n, hlen + flen);
	assert_memory_equal(buf, hdr, hlen);
	assert_memory_equal(buf + hlen, data, flen);
	TALLOC_FREE(r1);
	TALLOC_FREE(rr);
	/* a pipe that holds less than promised: -EIO, never a short frame */
	iov[0] = (struct iovec){ hdr, 10 };
	src[0] = (struct uring_splice_src){ p1[0], 5 };
	assert_int_equal(write(p1[1], "abc", 3), 3);
	close(p1[1]);
	p1[1] = -1;
	r1 = uring_sendmsg_splice_send(ctx, ev, ring, sv[0], iov, 1, hdr,
				       src, 1);
	wait_req(ev, r1);
	assert_int_equal(uring_sendmsg_splice_recv(r1), -EIO);
	TALLOC_FREE(r1);
	close(sv[0]);
	close(sv[1]);
	/*
	 * The same with the write end still open (as our pipes have it): an
	 * error, not a splice waiting forever for bytes nobody will write.
	 */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	if (nonblock) {
		fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	}
	src[0] = (struct uring_splice_src){ p2[0], 5 };
	assert_int_equal(write(p2[1], "abc", 3), 3);
	r1 = uring_sendmsg_splice_send(ctx, ev, ring, sv[0], iov, 1, hdr,
				       src, 1);
	wait_req(ev, r1);
	assert_true(uring_sendmsg_splice_recv(r1) < 0);
	TALLOC_FREE(r1);
	close(sv[0]);
	close(sv[1]);
done:
	close(p1[0]);
	if (p1[1] != -1) {
		close(p1[1]);
	}
	close(p2[0]);
	close(p2[1]);
	close(fd);
	talloc_free(data);
	talloc_free(hdr);
	talloc_free(buf);
	talloc_free(ev);
}

/*
 * A pipe counts slots (one per page a splice touches), not bytes: a
 * splice continued mid-page, as after a short splice when the file grows
 * again, takes that page's slot twice, and the pipe fills before the
 * bytes it was sized for.  splice_in must then stop short, not block
 * forever on a pipe nobody reads (the splice read mode's stall).
 */
static void splice_full_pipe_body(TALLOC_CTX *ctx, enum mode m)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(ctx, m, &ring);
	const size_t flen = 1 << 20, cap = 65536, off = 100, first = 5000;
	const size_t rest = cap - 4096 - first;   /* fits in bytes, not slots */
	uint8_t *data = pattern(ctx, flen, 23);
	uint8_t *back = talloc_zero_size(ctx, cap);
	struct tevent_req *req = NULL;
	int fd = tmpfile_with(data, flen);
	int p[2];
	size_t n1 = 0, n2 = 0;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(fcntl(p[1], F_SETPIPE_SZ, (int)cap), (int)cap);
	req = uring_splice_in_send(ctx, ev, ring, fd, off, p[1], first, NULL);
	wait_req(ev, req);
	if (m != MODE_RING) {
		assert_int_equal(uring_splice_in_recv(req, &n1), -ENOSYS);
		TALLOC_FREE(req);
		goto done;
	}
	RING_OR_SKIP(ev, ring);
	assert_int_equal(uring_splice_in_recv(req, &n1), 0);
	assert_int_equal(n1, first);
	TALLOC_FREE(req);
	req = uring_splice_in_send(ctx, ev, ring, fd, off + first, p[1], rest,
				   NULL);
	wait_req(ev, req);              /* bounded: fails on a hang */
	assert_int_equal(uring_splice_in_recv(req, &n2), 0);
	TALLOC_FREE(req);
	/* one page short: the slot the continued page took a second time */
	assert_true(n2 < rest);
	assert_true(n2 + 4096 >= rest);
	assert_int_equal(read(p[0], back, cap), (ssize_t)(n1 + n2));
	assert_memory_equal(back, data + off, n1 + n2);
done:
	close(p[0]);
	close(p[1]);
	close(fd);
	talloc_free(data);
	talloc_free(back);
	talloc_free(ev);
}

/*
 * socket -> pipe: a pipe takes a slot per socket buffer, however small.
 * 100-byte messages on a unix socket fill a 16-slot pipe after 1600
 * bytes: the receive stops with -ENOBUFS and the bytes moved are the
 * stream's first ones, in the pipe (it used to block in the kernel).
 */
static void splice_recv_full_pipe_body(TALLOC_CTX *ctx, enum mode m)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(ctx, m, &ring);
	const size_t msg = 100, nmsg = 100, cap = 65536;
	uint8_t *data = pattern(ctx, msg * nmsg, 24);
	uint8_t *back = talloc_zero_size(ctx, msg * nmsg);
	struct uring_splice_src dst[1];
	struct tevent_req *req = NULL;
	int p[2], sv[2];
	size_t i, moved = 0;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(fcntl(p[1], F_SETPIPE_SZ, (int)cap), (int)cap);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				    sv), 0);
	for (i = 0; i < nmsg; i++) {
		assert_int_equal(write(sv[1], data + i * msg, msg),
				 (ssize_t)msg);
	}
	dst[0] = (struct uring_splice_src){ p[1], msg * nmsg };
	req = uring_splice_recv_send(ctx, ev, ring, sv[0], dst, 1, NULL);
	wait_req(ev, req);              /* bounded: fails on a hang */
	if (m != MODE_RING) {
		assert_int_equal(uring_splice_sp_recv(req, &moved), -ENOSYS);
		TALLOC_FREE(req);
		goto done;
	}
	RING_OR_SKIP(ev, ring);
	assert_int_equal(uring_splice_sp_recv(req, &moved), -ENOBUFS);
	TALLOC_FREE(req);
	assert_true(moved > 0 && moved < msg * nmsg);
	assert_int_equal(read(p[0], back, msg * nmsg), (ssize_t)moved);
	assert_memory_equal(back, data, moved);
done:
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
	talloc_free(data);
	talloc_free(back);
	talloc_free(ev);
}

static void splice_block_body(TALLOC_CTX *ctx, enum mode m)
{
	splice_body(ctx, m, false);
}

static void splice_nonblock_body(TALLOC_CTX *ctx, enum mode m)
{
	splice_body(ctx, m, true);
}

ALL_MODES(recv_full_block)
ALL_MODES(recv_full_nonblock)
ALL_MODES(sendmsg_full_block)
ALL_MODES(sendmsg_full_nonblock)
ALL_MODES(recv_timeout)
ALL_MODES(splice_block)
ALL_MODES(splice_nonblock)
ALL_MODES(splice_full_pipe)
ALL_MODES(splice_recv_full_pipe)

#define T(name) cmocka_unit_test_setup_teardown(test_uring__##name, \
						unit_setup, unit_teardown)
#define TM(name) T(name##__ring), T(name##__disabled), T(name##__env)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TM(recv_full_block),
		TM(recv_full_nonblock),
		TM(sendmsg_full_block),
		TM(sendmsg_full_nonblock),
		TM(recv_timeout),
		TM(splice_block),
		TM(splice_nonblock),
		TM(splice_full_pipe),
		TM(splice_recv_full_pipe),
	};

	/* SIGPIPE stays fatal: sendmsg_full must use MSG_NOSIGNAL */
	if (getenv("TEST_FILTER") != NULL) {
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
