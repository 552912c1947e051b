/*
 * lib/uring registered buffers (uring_buf.c): lending and return,
 * exhaustion, READ_FIXED/WRITE_FIXED and SEND_ZC from a fixed buffer with
 * the right bytes, and a buffer never lent again while a request that
 * used it waits for a CQE (its owner freed meanwhile, or the ring).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tests/unit/uring_test_util.h"

#define BUF_SIZE (256 * 1024)

static struct tevent_context *ring_ev(TALLOC_CTX *ctx, struct uring **ring)
{
	struct tevent_context *ev = tevent_context_init_byname(ctx, "epoll");

	assert_non_null(ev);
	*ring = uring_ev_get(ev);
	return ev;
}

static unsigned idle_bufs(struct uring *ring)
{
	unsigned count = 0;
	unsigned idle = 0;

	uring_bufs_stats(ring, &count, &idle);
	return idle;
}

static uint64_t reaped(struct uring *ring)
{
	struct uring_stats st;

	uring_get_stats(ring, &st);
	return st.cqes_reaped;
}

/* Registration needs pinned memory: no CAP_IPC_LOCK and a low limit skip. */
#define POOL_OR_SKIP(mem, ring, n) do { \
	int ret_ = uring_bufs_setup((ring), (n), BUF_SIZE); \
	if (ret_ == -ENOMEM || ret_ == -EPERM) { \
		talloc_free(mem); \
		print_message("cannot register buffers: skipping\n"); \
		skip(); \
	} \
	assert_int_equal(ret_, 0); \
} while (0)

static void test_uring__bufs_take_return(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct uring *ring = NULL;
	struct tevent_context *ev = ring_ev(ctx, &ring);
	struct uring_buf *a = NULL, *b = NULL, *c = NULL;
	uint8_t *a_data = NULL;

	RING_OR_SKIP(ev, ring);
	assert_null(uring_buf_get(ctx, ring, 1));       /* no pool yet */
	POOL_OR_SKIP(ev, ring, 2);
	assert_int_equal(uring_bufs_setup(ring, 2, BUF_SIZE), 0);
	assert_int_equal(uring_bufs_setup(ring, 8, BUF_SIZE / 2), 0);
	assert_int_equal(uring_bufs_setup(ring, 2, BUF_SIZE + 1), -EEXIST);
	assert_null(uring_buf_get(ctx, ring, BUF_SIZE + 1));

	a = uring_buf_get(ctx, ring, BUF_SIZE);
	b = uring_buf_get(ctx, ring, 1);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a->data, b->data);
	assert_int_equal(a->size, BUF_SIZE);
	/* exhausted: the caller falls back to ordinary memory */
	assert_null(uring_buf_get(ctx, ring, 1));
	assert_int_equal(idle_bufs(ring), 0);

	a_data = a->data;
	talloc_free(a);
	assert_int_equal(idle_bufs(ring), 1);
	c = uring_buf_get(ctx, ring, 10);
	assert_non_null(c);
	assert_ptr_equal(c->data, a_data);
	talloc_free(b);
	talloc_free(c);
	assert_int_equal(idle_bufs(ring), 2);
	talloc_free(ev);
}

static void test_uring__bufs_no_ring(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init_byname(ctx, "epoll");
	unsigned count = 1, idle = 1;

	assert_non_null(ev);
	uring_ev_disable(ev);
	assert_null(uring_ev_get(ev));
	assert_int_equal(uring_bufs_setup(NULL, 2, BUF_SIZE), -ENOSYS);
	assert_null(uring_buf_get(ctx, NULL, 1));
	uring_bufs_stats(NULL, &count, &idle);
	assert_int_equal(count, 0);
	assert_int_equal(idle, 0);
	talloc_free(ev);
}

/* READ_FIXED into the middle of a buffer, WRITE_FIXED from it. */
static void test_uring__bufs_pread_fixed(void **state)
{
	TALLOC_CTX *ctx = talloc_new(*state);
	struct uring *ring = NULL;
	struct tevent_context *ev = ring_ev(ctx, &ring);
	uint8_t *data = pattern(ctx, BUF_SIZE, 3);
	uint8_t *back = talloc_zero_size(ctx, BUF_SIZE);
	int fd = tmpfile_with(data, BUF_SIZE);
	struct uring_buf *b = NULL;
	struct tevent_req *req = NULL;
	size_t n = 0;

	RING_OR_SKIP(ctx, ring);
	POOL_OR_SKIP(ctx, ring, 2);
	b = uring_buf_get(ctx, ring, BUF_SIZE);
	assert_non_null(b);
	memset(b->data, 0, b->size);
	req = uring_pread_send(ctx, ev, ring, fd, b->data + 5,
			       BUF_SIZE - 200, 100, b->data);
	wait_req(ev, req);
	assert_int_equal(uring_pread_recv(req, &n), 0);
	talloc_free(req);
	assert_int_equal(n, BUF_SIZE - 200);
	assert_memory_equal(b->data + 5, data + 100, BUF_SIZE - 200);
	assert_int_equal(b->data[4], 0);

	/* the buffer's last byte: the range check is inclusive of the end */
	req = uring_pwrite_send(ctx, ev, ring, fd, b->data + BUF_SIZE - 1, 1,
				0, b->data);
	wait_req(ev, req);
	assert_int_equal(uring_pwrite_recv(req, &n), 0);
	talloc_free(req);
	assert_int_equal(pread(fd, back, BUF_SIZE, 0), BUF_SIZE);
	assert_int_equal(back[0], b->data[BUF_SIZE - 1]);
	assert_memory_equal(back + 1, data + 1, BUF_SIZE - 1);
	close(fd);
	talloc_free(ctx);
}

/* A connected TCP pair on 127.0.0.1 (zero-copy sends need TCP). */
static void tcp_pair(int sv[2], int rcvbuf)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(lfd >= 0);
	if (rcvbuf > 0) {
		/* before listen: the accepted socket inherits it */
		setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	}
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	sv[0] = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(sv[0] >= 0);
	assert_int_equal(connect(sv[0], (struct sockaddr *)&sa, sizeof(sa)),
			 0);
	sv[1] = accept(lfd, NULL, NULL);
	assert_true(sv[1] >= 0);
	close(lfd);
}

struct drain {
	int fd;
	uint8_t *buf;
	size_t have, want;
};

static void drain_readable(struct tevent_context *ev, struct tevent_fd *fde,
			   uint16_t flags, void *private_data)
{
	struct drain *d = private_data;
	ssize_t n = recv(d->fd, d->buf + d->have,
			 d->want - d->have, MSG_DONTWAIT);

	d->have += n > 0 ? (size_t)n : 0;
	if (d->have == d->want) {
		tevent_fd_set_flags(fde, 0);
	}
}

/*
 * Runs the loop, reading what arrives on fd from a tevent_fd (the loop
 * wakes for it: a send with MSG_WAITALL needs the reader), until req is
 * done and want bytes are in.  Bounded by WAIT_UNTIL's 5 seconds.
 */
static void drain_until(struct tevent_context *ev, struct tevent_req *req,
			int fd, uint8_t *got, size_t want)
{
	struct drain d = { .fd = fd, .buf = got, .want = want };
	struct tevent_fd *fde = tevent_add_fd(ev, ev, fd, TEVENT_FD_READ,
					      drain_readable, &d);

	assert_non_null(fde);
	WAIT_UNTIL(ev, !tevent_req_is_in_progress(req) && d.have == want);
	talloc_free(fde);
}

/* Sends iov zero-copy over a TCP pair; the peer must read exactly want. */
static void send_zc_check(TALLOC_CTX *ctx, struct tevent_context *ev,
			  struct uring *ring, struct iovec *iov, int iovcnt,
			  const uint8_t *want, size_t total)
{
	uint8_t *got = talloc_zero_size(ctx, total);
	struct tevent_req *req = NULL;
	int sv[2];

	tcp_pair(sv, 0);
	req = uring_sendmsg_full_zc_send(ctx, ev, ring, sv[0], iov, iovcnt,
					 ctx);
	assert_non_null(req);
	drain_until(ev, req, sv[1], got, total);
	assert_int_equal(uring_sendmsg_full_recv(req), 0);
	talloc_free(req);
	assert_memory_equal(got, want, total);
	close(sv[0]);
	close(sv[1]);
	talloc_free(got);
}

/* Blocking reads until EOF or len bytes; a receive timeout bounds it. */
static size_t read_to_eof(int fd, uint8_t *buf, size_t len)
{
	struct timeval tv = { .tv_sec = 5 };
	size_t have = 0;
	ssize_t n = 1;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (n > 0 && have < len) {
		n = recv(fd, buf + have, len - have, 0);
		have += n > 0 ? (size_t)n : 0;
	}
	return have;
}

/* Headers from ordinary memory around payloads in registered buffers. */
static void test_uring__bufs_send_zc_fixed(void **state)
{
	TALLOC_CTX *ctx = talloc_new(*state);
	struct uring *ring = NULL;
	struct tevent_context *ev = ring_ev(ctx, &ring);
	uint8_t *hdr = pattern(ctx, 100, 1);
	uint8_t *trailer = pattern(ctx, 50, 2);
	uint8_t *want = NULL;
	struct uring_buf *b1 = NULL, *b2 = NULL;
	struct iovec iov[4];
	size_t total = 0;
	int i;

	RING_OR_SKIP(ctx, ring);
	POOL_OR_SKIP(ctx, ring, 2);
	b1 = uring_buf_get(ctx, ring, BUF_SIZE);
	b2 = uring_buf_get(ctx, ring, BUF_SIZE);
	memcpy(b1->data, pattern(ctx, BUF_SIZE, 4), BUF_SIZE);
	memcpy(b2->data, pattern(ctx, BUF_SIZE, 5), BUF_SIZE);
	iov[0] = (struct iovec){ hdr, 100 };
	iov[1] = (struct iovec){ b1->data + 7, 200000 };
	iov[2] = (struct iovec){ trailer, 50 };
	iov[3] = (struct iovec){ b2->data, BUF_SIZE };
	want = talloc_size(ctx, 100 + 200000 + 50 + BUF_SIZE);
	for (i = 0; i < 4; i++) {
		memcpy(want + total, iov[i].iov_base, iov[i].iov_len);
		total += iov[i].iov_len;
	}
	send_zc_check(ctx, ev, ring, iov, 4, want, total);
	talloc_free(b1);
	talloc_free(b2);
	assert_int_equal(idle_bufs(ring), 2);
	talloc_free(ctx);
}

/*
 * More segments than one chain holds (URING_CHAIN_MAX): 24 headers each
 * followed by a slice of a registered buffer go out as several chains,
 * in order.
 */
static void test_uring__bufs_send_zc_many(void **state)
{
	TALLOC_CTX *ctx = talloc_new(*state);
	struct uring *ring = NULL;
	struct tevent_context *ev = ring_ev(ctx, &ring);
	uint8_t *hdr = pattern(ctx, 24 * 10, 7);
	uint8_t *want = NULL;
	struct uring_buf *b = NULL;
	struct iovec iov[48];
	size_t total = 0;
	int i;

	RING_OR_SKIP(ctx, ring);
	POOL_OR_SKIP(ctx, ring, 1);
	b = uring_buf_get(ctx, ring, BUF_SIZE);
	memcpy(b->data, pattern(ctx, BUF_SIZE, 8), BUF_SIZE);
	want = talloc_size(ctx, 24 * 10 + BUF_SIZE);
	for (i = 0; i < 24; i++) {
		iov[2 * i] = (struct iovec){ hdr + 10 * i, 10 };
		iov[2 * i + 1] = (struct iovec){ b->data + 10000 * i, 9000 };
		memcpy(want + total, hdr + 10 * i, 10);
		memcpy(want + total + 10, b->data + 10000 * i, 9000);
		total += 9010;
	}
	send_zc_check(ctx, ev, ring, iov, 48, want, total);
	talloc_free(ctx);
}

/*
 * A zero-copy send from a registered buffer whose bytes are all queued
 * (first CQE in) but still in the socket's send queue behind bytes the
 * reader has not taken: the buffer is not lent again, even with the
 * request freed (as when a connection drops), until the notification
 * CQE, which comes once the reader took the bytes.
 */
static void test_uring__bufs_held_until_notif(void **state)
{
	TALLOC_CTX *mem = talloc_new(*state);
	struct uring *ring = NULL;
	struct tevent_context *ev = ring_ev(mem, &ring);
	TALLOC_CTX *owner = talloc_new(mem);
	size_t plain = 64 * 1024, zc = 64 * 1024, have = 0;
	uint8_t *got = talloc_zero_size(mem, plain + zc);
	uint8_t *fill = talloc_zero_size(mem, plain);
	struct uring_buf *b = NULL, *other = NULL;
	struct tevent_req *req = NULL;
	struct uring_stats st;
	struct iovec iov;
	int sndbuf = 212992;
	int sv[2];

	RING_OR_SKIP(mem, ring);
	POOL_OR_SKIP(mem, ring, 2);
	b = uring_buf_get(owner, ring, BUF_SIZE);
	memset(b->data, 0x5a, zc);
	tcp_pair(sv, 4096);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	/* the reader's window fills: what follows stays queued */
	assert_int_equal(send(sv[0], fill, plain, MSG_DONTWAIT), plain);
	iov = (struct iovec){ b->data, zc };
	uring_get_stats(ring, &st);
	req = uring_sendmsg_full_zc_send(mem, ev, ring, sv[0], &iov, 1, owner);
	assert_non_null(req);
	talloc_steal(req, owner);       /* as the transport does */
	WAIT_UNTIL(ev, reaped(ring) >= st.cqes_reaped + 1);
	assert_true(tevent_req_is_in_progress(req));    /* no NOTIF yet */
	assert_int_equal(idle_bufs(ring), 1);
	other = uring_buf_get(mem, ring, 1);
	assert_non_null(other);
	assert_ptr_not_equal(other->data, iov.iov_base);
	assert_null(uring_buf_get(mem, ring, 1));
	talloc_free(other);

	talloc_free(req);
	WAIT_UNTIL(ev, reaped(ring) >= st.cqes_reaped + 2);   /* cancel */
	loop_pass(ev);
	assert_int_equal(idle_bufs(ring), 1);
	/*
	 * Read to EOF (the send was cancelled: maybe not every zc byte
	 * comes); the kernel sends as the window opens, no loop needed.
	 */
	close(sv[0]);
	have = read_to_eof(sv[1], got, plain + zc);
	close(sv[1]);
	WAIT_UNTIL(ev, idle_bufs(ring) == 2);
	assert_true(have > plain);
	assert_int_equal(got[plain], 0x5a);
	assert_int_equal(got[have - 1], 0x5a);
	talloc_free(mem);
}

/*
 * A READ_FIXED that waits (a socket without data) and is freed with its
 * buffer: cancelled, and the buffer stays unused until the CQE.
 */
static void test_uring__bufs_freed_in_flight(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct uring *ring = NULL;
	struct tevent_context *ev = ring_ev(ctx, &ring);
	TALLOC_CTX *owner = talloc_new(ctx);
	struct uring_buf *b = NULL;
	struct tevent_req *req = NULL;
	int sv[2];

	RING_OR_SKIP(ev, ring);
	POOL_OR_SKIP(ev, ring, 1);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	b = uring_buf_get(owner, ring, BUF_SIZE);
	assert_non_null(b);
	req = uring_pread_send(owner, ev, ring, sv[0], b->data, BUF_SIZE, 0,
			       b->data);
	assert_non_null(req);
	loop_pass(ev);
	assert_true(tevent_req_is_in_progress(req));
	talloc_free(owner);     /* request and handle: cancel queued */
	assert_int_equal(idle_bufs(ring), 0);
	assert_null(uring_buf_get(ctx, ring, 1));
	WAIT_UNTIL(ev, idle_bufs(ring) == 1);
	b = uring_buf_get(ctx, ring, 1);
	assert_non_null(b);
	talloc_free(b);
	close(sv[0]);
	close(sv[1]);
	talloc_free(ev);
}

/* The ring (and pool) freed while a buffer is lent: the memory stays. */
static void test_uring__bufs_ring_freed_first(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct uring *ring = NULL;
	struct tevent_context *ev = ring_ev(ctx, &ring);
	struct uring_buf *b = NULL;

	RING_OR_SKIP(ev, ring);
	POOL_OR_SKIP(ev, ring, 2);
	b = uring_buf_get(ctx, ring, BUF_SIZE);
	assert_non_null(b);
	memset(b->data, 0xab, b->size);
	talloc_free(ev);
	/* ASan would report a use after free here */
	assert_int_equal(b->data[BUF_SIZE - 1], 0xab);
	memset(b->data, 0xcd, b->size);
	talloc_free(b);
}


#define T(name) cmocka_unit_test_setup_teardown(test_uring__##name, \
						unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(bufs_take_return),
		T(bufs_no_ring),
		T(bufs_pread_fixed),
		T(bufs_send_zc_fixed),
		T(bufs_send_zc_many),
		T(bufs_held_until_notif),
		T(bufs_freed_in_flight),
		T(bufs_ring_freed_first),
	};

	/* SIGPIPE stays fatal: the zero-copy sends must use MSG_NOSIGNAL */
	if (getenv("TEST_FILTER") != NULL) {
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
