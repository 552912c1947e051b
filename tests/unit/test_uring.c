/*
 * lib/uring: ring per tevent context, loop glue, requests, lifetime of
 * in-flight buffers, and the high-level I/O in ring and fallback modes
 * (the same test body runs with the ring, with uring_ev_disable() and
 * with RINGSMB_NO_IO_URING=1).  A kernel without io_uring skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lib/util/unix_token.h"
#include "tests/unit/test_uring.h"

enum mode { MODE_RING, MODE_DISABLE, MODE_ENV };

static const char *mode_name(enum mode m)
{
	return m == MODE_RING ? "ring" : m == MODE_DISABLE ? "disable" : "env";
}

/* A context and its ring (or NULL in the fallback modes). */
static struct tevent_context *test_ev(TALLOC_CTX *ctx, enum mode m,
				      struct uring **ring)
{
	struct tevent_context *ev = tevent_context_init_byname(ctx, "epoll");

	assert_non_null(ev);
	if (m == MODE_DISABLE) {
		uring_ev_disable(ev);
	}
	if (m == MODE_ENV) {
		setenv("RINGSMB_NO_IO_URING", "1", 1);
	}
	*ring = uring_ev_get(ev);
	unsetenv("RINGSMB_NO_IO_URING");
	if (m != MODE_RING) {
		assert_null(*ring);
	}
	return ev;
}

void timeout_handler(struct tevent_context *ev, struct tevent_timer *te,
		     struct timeval now, void *private_data)
{
	*(bool *)private_data = true;
}

void loop_pass(struct tevent_context *ev)
{
	bool fired = false;

	assert_non_null(tevent_add_timer(ev, ev, tevent_timeval_zero(),
					 timeout_handler, &fired));
	assert_int_equal(tevent_loop_once(ev), 0);
}

static uint64_t ring_inflight(struct uring *ring)
{
	struct uring_stats st;

	uring_get_stats(ring, &st);
	return st.inflight + st.queued;
}

int tmpfile_with(const uint8_t *data, size_t len)
{
	char path[] = "/tmp/test_uring.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(pwrite(fd, data, len, 0), (ssize_t)len);
	return fd;
}

uint8_t *pattern(TALLOC_CTX *ctx, size_t len, unsigned seed)
{
	uint8_t *p = talloc_size(ctx, len);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++) {
		p[i] = (uint8_t)(i * 31 + seed + i / 251);
	}
	return p;
}

/* A buffer that records when talloc frees it. */
struct tbuf {
	bool *freed;
	uint8_t data[64];
};

static int tbuf_destructor(struct tbuf *b)
{
	*b->freed = true;
	return 0;
}

static struct tbuf *tbuf_new(TALLOC_CTX *ctx, bool *freed)
{
	struct tbuf *b = talloc_zero(ctx, struct tbuf);

	assert_non_null(b);
	*freed = false;
	b->freed = freed;
	talloc_set_destructor(b, tbuf_destructor);
	return b;
}

static void count_done(struct tevent_req *req)
{
	(*(int *)tevent_req_callback_data_void(req))++;
}

/* ---- the ring per context ---- */

struct outer_trace_state {
	tevent_trace_callback_t prev;
	void *prev_private;
	int calls;
};

static void outer_trace(enum tevent_trace_point tp, void *private_data)
{
	struct outer_trace_state *o = private_data;

	o->calls++;
	o->prev(tp, o->prev_private);
}

static void nop_prep(struct io_uring_sqe *sqe, void *private_data);

static void test_uring__ev_get_same_ring(void **state)
{
	struct outer_trace_state outer = {};
	struct tevent_req *req = NULL;
	int done = 0;
	struct uring *r1 = NULL, *r2 = NULL;
	struct tevent_context *ev1 = test_ev(*state, MODE_RING, &r1);
	struct tevent_context *ev2 = NULL;

	RING_OR_SKIP(ev1, r1);
	ev2 = test_ev(*state, MODE_RING, &r2);
	assert_ptr_equal(uring_ev_get(ev1), r1);
	assert_ptr_equal(uring_ev_get(ev2), r2);
	assert_ptr_not_equal(r1, r2);
	/* another component chains its trace callback on top of ours */
	tevent_get_trace_callback(ev1, &outer.prev, &outer.prev_private);
	tevent_set_trace_callback(ev1, outer_trace, &outer);
	assert_ptr_equal(uring_ev_get(ev1), r1);
	req = uring_req_send(ev1, ev1, r1, nop_prep, NULL, NULL);
	tevent_req_set_callback(req, count_done, &done);
	WAIT_UNTIL(ev1, done == 1);
	assert_true(outer.calls > 0);
	talloc_free(ev1);
	talloc_free(ev2);
}

static void test_uring__disabled(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_DISABLE, &ring);

	assert_null(uring_ev_get(ev));
	assert_false(uring_op_supported(NULL, IORING_OP_NOP));
	talloc_free(ev);
	ev = test_ev(*state, MODE_ENV, &ring);
	talloc_free(ev);
	setenv("RINGSMB_NO_IO_URING", "0", 1);      /* "0" does not disable */
	ev = test_ev(*state, MODE_RING, &ring);
	unsetenv("RINGSMB_NO_IO_URING");
	RING_OR_SKIP(ev, ring);
	talloc_free(ev);
}

static void test_uring__probe(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);

	RING_OR_SKIP(ev, ring);
	assert_true(uring_op_supported(ring, IORING_OP_READ));
	assert_true(uring_op_supported(ring, IORING_OP_ASYNC_CANCEL));
	assert_false(uring_op_supported(ring, 255));
	talloc_free(ev);
}

static void other_trace(enum tevent_trace_point tp, void *private_data)
{
	if (tp == TEVENT_TRACE_AFTER_LOOP_ONCE) {
		(*(int *)private_data)++;
	}
}

static void nop_prep(struct io_uring_sqe *sqe, void *private_data)
{
	io_uring_prep_nop(sqe);
}

static void test_uring__trace_chains_previous(void **state)
{
	struct tevent_context *ev = tevent_context_init_byname(*state,
							       "epoll");
	struct uring *ring = NULL;
	struct tevent_req *req = NULL;
	int calls = 0, done = 0;
	int32_t res = -1;

	tevent_set_trace_callback(ev, other_trace, &calls);
	ring = uring_ev_get(ev);
	RING_OR_SKIP(ev, ring);
	req = uring_req_send(ev, ev, ring, nop_prep, NULL, NULL);
	tevent_req_set_callback(req, count_done, &done);
	WAIT_UNTIL(ev, done == 1);
	assert_int_equal(uring_req_recv(req, &res), 0);
	assert_int_equal(res, 0);
	assert_true(calls > 0);
	talloc_free(ev);
}

/* ---- generic requests and chains ---- */

static void test_uring__no_ring_generic_enosys(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_DISABLE, &ring);
	struct tevent_req *req = uring_req_send(ev, ev, NULL, nop_prep,
						NULL, NULL);
	int done = 0;
	int32_t res = 0;

	tevent_req_set_callback(req, count_done, &done);
	assert_int_equal(done, 0);              /* posted, not re-entrant */
	WAIT_UNTIL(ev, done == 1);
	assert_int_equal(uring_req_recv(req, &res), -ENOSYS);
	talloc_free(ev);
}

struct rw_args {
	int fd;
	void *buf;
	unsigned len;
	uint64_t off;
};

static void write_prep(struct io_uring_sqe *sqe, void *private_data)
{
	struct rw_args *a = private_data;

	io_uring_prep_write(sqe, a->fd, a->buf, a->len, a->off);
}

static void read_prep(struct io_uring_sqe *sqe, void *private_data)
{
	struct rw_args *a = private_data;

	io_uring_prep_read(sqe, a->fd, a->buf, a->len, a->off);
}

static void fsync_prep(struct io_uring_sqe *sqe, void *private_data)
{
	io_uring_prep_fsync(sqe, ((struct rw_args *)private_data)->fd, 0);
}

static void test_uring__chain_in_order(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	char in[6] = "hello", out[6] = "";
	int fd = tmpfile_with((const uint8_t *)"xxxxx", 5);
	struct rw_args w = { .fd = fd, .buf = in, .len = 5 };
	struct rw_args r = { .fd = fd, .buf = out, .len = 5 };
	struct uring_link links[] = {
		{ write_prep, &w }, { fsync_prep, &w }, { read_prep, &r },
	};
	struct tevent_req *req = NULL;
	int32_t res[3] = { -1, -1, -1 };
	int done = 0;

	RING_OR_SKIP(ev, ring);
	/* preps run inside _send: the link args may be on the stack */
	req = uring_chain_send(ev, ev, ring, links, 3, NULL);
	tevent_req_set_callback(req, count_done, &done);
	WAIT_UNTIL(ev, done == 1);
	assert_int_equal(uring_chain_recv(req, res, 3), 0);
	assert_int_equal(res[0], 5);
	assert_int_equal(res[1], 0);
	assert_int_equal(res[2], 5);
	assert_string_equal(out, "hello");
	close(fd);
	talloc_free(ev);
}

static void test_uring__chain_failure_cancels_rest(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	char buf[4];
	struct rw_args bad = { .fd = -1, .buf = buf, .len = 4 };
	struct uring_link links[] = {
		{ read_prep, &bad }, { nop_prep, NULL },
	};
	struct tevent_req *req = NULL;
	int32_t res[2] = { 0, 0 };
	int done = 0;

	RING_OR_SKIP(ev, ring);
	req = uring_chain_send(ev, ev, ring, links, 2, NULL);
	tevent_req_set_callback(req, count_done, &done);
	WAIT_UNTIL(ev, done == 1);
	assert_int_equal(uring_chain_recv(req, res, 2), 0);
	assert_int_equal(res[0], -EBADF);
	assert_int_equal(res[1], -ECANCELED);
	talloc_free(ev);
}

struct recv_args {
	int fd;
	void *buf;
	unsigned len;
};

static void recv_prep(struct io_uring_sqe *sqe, void *private_data)
{
	struct recv_args *a = private_data;

	io_uring_prep_recv(sqe, a->fd, a->buf, a->len, 0);
}

static void test_uring__cancel_in_flight(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	int sv[2];
	struct tbuf *b = NULL;
	bool freed = false;
	struct recv_args a = { .len = 64 };
	struct tevent_req *req = NULL;
	int32_t res = 0;
	int done = 0;

	RING_OR_SKIP(ev, ring);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	b = tbuf_new(*state, &freed);
	a.fd = sv[0];
	a.buf = b->data;
	req = uring_req_send(ev, ev, ring, recv_prep, &a, b);
	tevent_req_set_callback(req, count_done, &done);
	loop_pass(ev);
	assert_int_equal(ring_inflight(ring), 1);
	assert_true(tevent_req_cancel(req));
	WAIT_UNTIL(ev, done == 1);
	assert_int_equal(uring_req_recv(req, &res), 0);
	assert_int_equal(res, -ECANCELED);
	talloc_free(req);
	assert_false(freed);
	talloc_free(b);
	assert_true(freed);
	close(sv[0]);
	close(sv[1]);
	talloc_free(ev);
}

/*
 * The buffer is a child of the request; freeing the request in flight
 * must keep the buffer until the kernel's CQE (the cancel), then free it.
 */
static void test_uring__freed_in_flight(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	int sv[2];
	bool freed = false;
	struct tbuf *b = NULL;
	struct tevent_req *req = NULL;

	RING_OR_SKIP(ev, ring);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	b = tbuf_new(*state, &freed);
	req = uring_recv_full_send(*state, ev, ring, sv[0], b->data,
				   sizeof(b->data), b);
	talloc_steal(req, b);
	loop_pass(ev);
	assert_int_equal(ring_inflight(ring), 1);
	talloc_free(req);
	assert_false(freed);                    /* the kernel may write */
	WAIT_UNTIL(ev, ring_inflight(ring) == 0);
	assert_true(freed);
	assert_int_equal(write(sv[1], "late", 4), 4);
	close(sv[0]);
	close(sv[1]);
	talloc_free(ev);
}

/* Freed before its SQE was submitted: dropped without a cancel. */
static void test_uring__freed_before_submit(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	struct uring_stats st;
	struct tevent_req *req = NULL;

	RING_OR_SKIP(ev, ring);
	req = uring_req_send(ev, ev, ring, nop_prep, NULL, NULL);
	assert_int_equal(ring_inflight(ring), 1);
	talloc_free(req);
	assert_int_equal(ring_inflight(ring), 0);
	loop_pass(ev);
	uring_get_stats(ring, &st);
	assert_int_equal(st.sqes_submitted, 0);
	talloc_free(ev);
}

/*
 * The data arrives after the request was freed: either the cancel wins
 * or the kernel writes into the buffer, which must still exist (ASan).
 */
static void test_uring__freed_chain_then_data(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	int sv[2];
	bool freed = false;
	struct tbuf *b = NULL;
	struct recv_args a = { .len = 64 };
	struct uring_link links[] = {
		{ recv_prep, &a }, { nop_prep, NULL },
	};
	struct tevent_req *req = NULL;

	RING_OR_SKIP(ev, ring);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	req = uring_chain_send(*state, ev, ring, links, 0, NULL);
	talloc_free(req);                       /* n == 0: -EINVAL, freed */
	b = tbuf_new(*state, &freed);
	a.fd = sv[0];
	a.buf = b->data;
	req = uring_chain_send(*state, ev, ring, links, 2, b);
	talloc_steal(req, b);
	loop_pass(ev);
	talloc_free(req);
	assert_int_equal(write(sv[1], "data", 4), 4);
	assert_false(freed);
	WAIT_UNTIL(ev, ring_inflight(ring) == 0);
	assert_true(freed);
	close(sv[0]);
	close(sv[1]);
	talloc_free(ev);
}

static void free_self(struct tevent_req *req)
{
	int *done = tevent_req_callback_data_void(req);

	(*done)++;
	talloc_free(req);
}

static void test_uring__freed_in_own_callback(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	struct tevent_req *req = NULL;
	int done = 0, i;

	RING_OR_SKIP(ev, ring);
	for (i = 0; i < 8; i++) {
		req = uring_req_send(*state, ev, ring, nop_prep, NULL, NULL);
		tevent_req_set_callback(req, free_self, &done);
	}
	WAIT_UNTIL(ev, done == 8);
	assert_int_equal(ring_inflight(ring), 0);
	talloc_free(ev);
}

/* Freeing the context with operations in flight and queued. */
static void test_uring__ev_freed_in_flight(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	int sv[2];
	bool freed = false;
	struct tbuf *b = NULL;
	struct tevent_req *req = NULL, *queued = NULL;

	RING_OR_SKIP(ev, ring);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	b = tbuf_new(*state, &freed);
	req = uring_recv_full_send(*state, ev, ring, sv[0], b->data,
				   sizeof(b->data), b);
	talloc_steal(req, b);
	loop_pass(ev);
	queued = uring_req_send(*state, ev, ring, nop_prep, NULL, NULL);
	talloc_free(ev);                        /* cancels and waits */
	assert_false(freed);
	assert_true(tevent_req_is_in_progress(req));
	talloc_free(queued);
	talloc_free(req);
	assert_true(freed);
	close(sv[0]);
	close(sv[1]);
}

/* ---- batching: one submit per loop iteration ---- */

struct chain_reader {
	struct tevent_context *ev;
	struct uring *ring;
	int fd;
	uint8_t *buf;
	int left;
	int *active;
};

static void reader_next(struct chain_reader *cr);

static void reader_done(struct tevent_req *req)
{
	struct chain_reader *cr = tevent_req_callback_data_void(req);
	size_t n = 0;

	assert_int_equal(uring_pread_recv(req, &n), 0);
	assert_int_equal(n, 512);
	talloc_free(req);
	reader_next(cr);
}

static void reader_next(struct chain_reader *cr)
{
	struct tevent_req *req = NULL;

	if (cr->left-- == 0) {
		(*cr->active)--;
		return;
	}
	req = uring_pread_send(cr->ev, cr->ev, cr->ring, cr->fd, cr->buf, 512,
			       (off_t)(cr->left % 8) * 512, NULL);
	assert_non_null(req);
	tevent_req_set_callback(req, reader_done, cr);
}

static void test_uring__one_enter_per_iteration(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	uint8_t *data = pattern(*state, 4096, 1);
	int fd = tmpfile_with(data, 4096);
	struct chain_reader cr[200];
	struct uring_stats st;
	int i, active = 200;

	RING_OR_SKIP(ev, ring);
	/* 200 readers, each issuing its next read from its callback */
	for (i = 0; i < 200; i++) {
		cr[i] = (struct chain_reader) {
			.ev = ev, .ring = ring, .fd = fd, .left = 15,
			.buf = talloc_size(ev, 512), .active = &active,
		};
		reader_next(&cr[i]);
	}
	WAIT_UNTIL(ev, active == 0);
	uring_get_stats(ring, &st);
	print_message("enter %llu, iterations %llu, sqes %llu, cqes %llu\n",
		      (unsigned long long)st.enter_calls,
		      (unsigned long long)st.loop_iterations,
		      (unsigned long long)st.sqes_submitted,
		      (unsigned long long)st.cqes_reaped);
	assert_true(st.enter_calls <= st.loop_iterations);
	assert_int_equal(st.sqes_submitted, 3000);
	assert_int_equal(st.cqes_reaped, 3000);
	assert_true(st.enter_calls > 0);
	assert_true(st.enter_calls * 10 <= st.sqes_submitted);
	assert_int_equal(st.inflight + st.queued, 0);
	close(fd);
	talloc_free(data);
	talloc_free(ev);
}

/* More SQEs than the SQ holds: the user-space queue takes the rest. */
static void test_uring__overflow_queue(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	struct uring_stats st;
	int i, done = 0;

	RING_OR_SKIP(ev, ring);
	for (i = 0; i < 1000; i++) {
		struct tevent_req *req = uring_req_send(ev, ev, ring, nop_prep,
							NULL, NULL);
		tevent_req_set_callback(req, free_self, &done);
	}
	uring_get_stats(ring, &st);
	assert_int_equal(st.queued, 1000);
	WAIT_UNTIL(ev, done == 1000);
	uring_get_stats(ring, &st);
	assert_int_equal(st.sqes_submitted, 1000);
	assert_int_equal(st.cqes_reaped, 1000);
	assert_int_equal(st.inflight + st.queued, 0);
	talloc_free(ev);
}

/* ---- high-level file I/O, every mode ---- */

struct pread_slot {
	int done;
	int ret;
	size_t n;
};

static void pread_slot_done(struct tevent_req *req)
{
	struct pread_slot *s = tevent_req_callback_data_void(req);

	s->ret = uring_pread_recv(req, &s->n);
	s->done = 1;
	talloc_free(req);
}

static size_t slots_done(const struct pread_slot *slots, size_t n)
{
	size_t i, done = 0;

	for (i = 0; i < n; i++) {
		done += (size_t)slots[i].done;
	}
	return done;
}

static void pread_many_body(TALLOC_CTX *ctx, enum mode m)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(ctx, m, &ring);
	const size_t chunk = 4096, n = 64;
	uint8_t *data = pattern(ctx, chunk * n, 7);
	uint8_t *buf = talloc_zero_size(ctx, chunk * n + 100);
	int fd = tmpfile_with(data, chunk * n);
	struct pread_slot slots[65] = {};
	size_t i;

	if (m == MODE_RING) {
		RING_OR_SKIP(ev, ring);
	}
	print_message("mode %s\n", mode_name(m));
	for (i = 0; i < n; i++) {
		struct tevent_req *req = uring_pread_send(
			ctx, ev, ring, fd, buf + i * chunk, chunk,
			(off_t)(i * chunk), buf);
		tevent_req_set_callback(req, pread_slot_done, &slots[i]);
	}
	/* past EOF: a short read, not an error */
	tevent_req_set_callback(uring_pread_send(ctx, ev, ring, fd,
						 buf + n * chunk, 100,
						 (off_t)(n * chunk - 40), buf),
				pread_slot_done, &slots[n]);
	assert_int_equal(slots[0].done, 0);     /* never inside _send */
	WAIT_UNTIL(ev, slots_done(slots, n + 1) == n + 1);
	for (i = 0; i < n; i++) {
		assert_int_equal(slots[i].ret, 0);
		assert_int_equal(slots[i].n, chunk);
	}
	assert_memory_equal(buf, data, chunk * n);
	assert_int_equal(slots[n].ret, 0);
	assert_int_equal(slots[n].n, 40);
	assert_memory_equal(buf + n * chunk, data + n * chunk - 40, 40);
	close(fd);
	talloc_free(data);
	talloc_free(buf);
	talloc_free(ev);
}

void wait_req(struct tevent_context *ev, struct tevent_req *req)
{
	assert_non_null(req);
	WAIT_UNTIL(ev, !tevent_req_is_in_progress(req));
}

static void pwrite_fsync_body(TALLOC_CTX *ctx, enum mode m)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(ctx, m, &ring);
	const size_t len = 1 << 20;
	uint8_t *data = pattern(ctx, len, 3);
	uint8_t *back = talloc_zero_size(ctx, len);
	int fd = tmpfile_with((const uint8_t *)"", 0);
	struct tevent_req *req = NULL;
	size_t n = 0;

	if (m == MODE_RING) {
		RING_OR_SKIP(ev, ring);
	}
	req = uring_pwrite_send(ctx, ev, ring, fd, data, len, 4096, data);
	wait_req(ev, req);
	assert_int_equal(uring_pwrite_recv(req, &n), 0);
	assert_int_equal(n, len);
	talloc_free(req);
	req = uring_fsync_send(ctx, ev, ring, fd, true);
	wait_req(ev, req);
	assert_int_equal(uring_fsync_recv(req), 0);
	talloc_free(req);
	req = uring_fsync_send(ctx, ev, ring, -1, false);
	wait_req(ev, req);
	assert_int_equal(uring_fsync_recv(req), -EBADF);
	talloc_free(req);
	req = uring_pread_send(ctx, ev, ring, fd, back, len, 4096, back);
	wait_req(ev, req);
	assert_int_equal(uring_pread_recv(req, &n), 0);
	assert_int_equal(n, len);
	assert_memory_equal(back, data, len);
	talloc_free(req);
	close(fd);
	talloc_free(data);
	talloc_free(back);
	talloc_free(ev);
}

static void bad_range_body(TALLOC_CTX *ctx, enum mode m)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(ctx, m, &ring);
	char buf[8];
	int fd = tmpfile_with((const uint8_t *)"abc", 3);
	struct tevent_req *req = NULL;
	size_t n = 1;
	int done = 0;

	if (m == MODE_RING) {
		RING_OR_SKIP(ev, ring);
	}
	req = uring_pread_send(ctx, ev, ring, fd, buf, 2, INT64_MAX, NULL);
	tevent_req_set_callback(req, count_done, &done);
	assert_int_equal(done, 0);
	WAIT_UNTIL(ev, done == 1);
	assert_int_equal(uring_pread_recv(req, &n), -EINVAL);
	assert_int_equal(n, 0);
	talloc_free(req);
	req = uring_pwrite_send(ctx, ev, ring, fd, buf, 1, -1, NULL);
	wait_req(ev, req);
	assert_int_equal(uring_pwrite_recv(req, &n), -EINVAL);
	talloc_free(req);
	req = uring_pread_send(ctx, ev, ring, fd, buf, 0, 0, NULL);
	wait_req(ev, req);
	assert_int_equal(uring_pread_recv(req, &n), 0);
	assert_int_equal(n, 0);
	talloc_free(req);
	close(fd);
	talloc_free(ev);
}

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

#define ALL_MODES(name) \
static void test_uring__##name##__ring(void **state) \
{ \
	name##_body(*state, MODE_RING); \
} \
static void test_uring__##name##__disabled(void **state) \
{ \
	name##_body(*state, MODE_DISABLE); \
} \
static void test_uring__##name##__env(void **state) \
{ \
	name##_body(*state, MODE_ENV); \
}

ALL_MODES(pread_many)
ALL_MODES(pwrite_fsync)
ALL_MODES(bad_range)
ALL_MODES(recv_full_block)
ALL_MODES(recv_full_nonblock)
ALL_MODES(sendmsg_full_block)
ALL_MODES(sendmsg_full_nonblock)
ALL_MODES(recv_timeout)
ALL_MODES(splice_block)
ALL_MODES(splice_nonblock)
ALL_MODES(splice_full_pipe)
ALL_MODES(splice_recv_full_pipe)


/* ---- personalities: SQEs run with the credentials registered ---- */

struct open_args {
	const char *path;
};

static void openat_prep(struct io_uring_sqe *sqe, void *private_data)
{
	const struct open_args *a = private_data;

	io_uring_prep_openat(sqe, AT_FDCWD, a->path, O_RDONLY | O_CLOEXEC, 0);
}

static int32_t open_via_ring(struct tevent_context *ev, struct uring *ring,
			     const char *path)
{
	struct open_args a = { .path = path };
	struct tevent_req *req = uring_req_send(ev, ev, ring, openat_prep, &a,
						NULL);
	int32_t res = -1;
	int done = 0;

	tevent_req_set_callback(req, count_done, &done);
	WAIT_UNTIL(ev, done == 1);
	assert_int_equal(uring_req_recv(req, &res), 0);
	talloc_free(req);
	if (res >= 0) {
		close(res);
	}
	return res;
}

/*
 * A root-only file: the ring opens it as the daemon, refuses it under the
 * personality of nobody, and opens it again once the personality is
 * reset; the thread stays root throughout.
 */
static void test_uring__personality(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	struct unix_token nobody = { .uid = 65534, .gid = 65534 };
	char path[] = "/tmp/test_uring_pers.XXXXXX";
	int fd = -1;
	int id;

	RING_OR_SKIP(ev, ring);
	if (!unix_token_can_switch()) {
		talloc_free(ev);
		skip();
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0600), 0);
	close(fd);
	assert_int_equal(unix_token_become(&nobody), 0);
	id = uring_personality_register(ring);
	unix_token_unbecome_full();
	assert_true(id > 0);
	assert_int_equal(geteuid(), 0);

	assert_true(open_via_ring(ev, ring, path) >= 0);
	assert_int_equal(uring_set_personality(ring, (uint16_t)id), 0);
	assert_int_equal(open_via_ring(ev, ring, path), -EACCES);
	assert_int_equal(geteuid(), 0);
	assert_int_equal(uring_set_personality(ring, 0), id);
	assert_true(open_via_ring(ev, ring, path) >= 0);
	assert_int_equal(uring_personality_unregister(ring, (uint16_t)id), 0);
	unlink(path);
	talloc_free(ev);
}

/* The switch is per thread and comes back to root. */
static void test_uring__token_become(void **state)
{
	gid_t groups[] = { 65534, 100, 100, 7 };
	struct unix_token t = { .uid = 65534, .gid = 65534,
				.groups = groups };
	struct unix_token nobody_only = { .uid = 65534, .gid = 100 };
	gid_t now[8];

	if (!unix_token_can_switch()) {
		skip();
	}
	t.ngroups = unix_token_normalize_groups(groups, 4);
	assert_int_equal(t.ngroups, 3);
	assert_int_equal(groups[0], 7);
	assert_int_equal(groups[2], 65534);
	assert_true(unix_token_in_group(&t, 100));
	assert_false(unix_token_in_group(&t, 0));
	assert_int_equal(unix_token_become(&t), 0);
	assert_int_equal(geteuid(), 65534);
	assert_int_equal(getegid(), 65534);
	assert_int_equal(getuid(), 0);         /* real id: the way back */
	assert_int_equal(getgroups(8, now), 3);
	assert_int_equal(faccessat(AT_FDCWD, "/root", W_OK, AT_EACCESS), -1);
	/* back to uid 0: root again; the groups stay for the next switch */
	unix_token_unbecome();
	assert_int_equal(geteuid(), 0);
	assert_int_equal(faccessat(AT_FDCWD, "/root", W_OK, AT_EACCESS), 0);
	assert_int_equal(getegid(), 65534);
	t.serial = 7;
	assert_int_equal(unix_token_become(&t), 0);
	assert_int_equal(geteuid(), 65534);
	unix_token_unbecome();
	/* same serial: only the uid changes; another token sets groups */
	assert_int_equal(unix_token_become(&t), 0);
	assert_int_equal(getgroups(8, now), 3);
	unix_token_unbecome();
	nobody_only.serial = 8;
	assert_int_equal(unix_token_become(&nobody_only), 0);
	assert_int_equal(getgroups(8, now), 0);
	assert_int_equal(getegid(), 100);
	unix_token_unbecome_full();
	assert_int_equal(geteuid(), 0);
	assert_int_equal(getegid(), 0);
	assert_int_equal(getgroups(8, now), 0);
}

#define T(name) cmocka_unit_test_setup_teardown(test_uring__##name, \
						unit_setup, unit_teardown)
#define TM(name) T(name##__ring), T(name##__disabled), T(name##__env)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(ev_get_same_ring),
		T(disabled),
		T(probe),
		T(trace_chains_previous),
		T(no_ring_generic_enosys),
		T(chain_in_order),
		T(chain_failure_cancels_rest),
		T(cancel_in_flight),
		T(freed_in_flight),
		T(freed_before_submit),
		T(freed_chain_then_data),
		T(freed_in_own_callback),
		T(ev_freed_in_flight),
		T(one_enter_per_iteration),
		T(overflow_queue),
		TM(pread_many),
		TM(pwrite_fsync),
		TM(bad_range),
		TM(recv_full_block),
		TM(recv_full_nonblock),
		TM(sendmsg_full_block),
		TM(sendmsg_full_nonblock),
		TM(recv_timeout),
		TM(splice_block),
		TM(splice_nonblock),
		TM(splice_full_pipe),
		TM(splice_recv_full_pipe),
		T(bufs_take_return),
		T(bufs_no_ring),
		T(bufs_pread_fixed),
		T(bufs_send_zc_fixed),
		T(bufs_send_zc_many),
		T(bufs_held_until_notif),
		T(bufs_freed_in_flight),
		T(bufs_ring_freed_first),
		T(personality),
		T(token_become),
	};

	/* SIGPIPE stays fatal: sendmsg_full must use MSG_NOSIGNAL */
	if (getenv("TEST_FILTER") != NULL) {
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
