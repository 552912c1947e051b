/*
 * lib/uring: the ring per tevent context and its loop glue, generic
 * requests and linked chains, the lifetime of in-flight buffers (freed
 * in flight, before submit, in their own callback, with the context),
 * and batching (one io_uring_enter per loop iteration, the overflow
 * queue).  A kernel without io_uring skips.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tests/unit/uring_test_util.h"

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

/* ---- faults on purpose (uring_fault_arm) ---- */

/*
 * EAGAIN: every SQE of the armed pwrite completes with -EAGAIN and writes
 * nothing; after two more tries the call returns -EAGAIN (no spinning).
 * The fault goes to that call only: the next pwrite writes.
 */
static void test_uring__fault_eagain(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	static const uint8_t zero[8];
	struct tevent_req *req = NULL;
	struct uring_stats st;
	uint8_t back[8] = { 1 };
	size_t n = 0;
	int fd;

	RING_OR_SKIP(ev, ring);
	fd = tmpfile_with(zero, sizeof(zero));
	uring_fault_arm(ring, URING_FAULT_EAGAIN);
	req = uring_pwrite_send(ev, ev, ring, fd, "faulted!", 8, 0, NULL);
	wait_req(ev, req);
	assert_int_equal(uring_pwrite_recv(req, &n), -EAGAIN);
	talloc_free(req);
	assert_int_equal(pread(fd, back, 8, 0), 8);
	assert_memory_equal(back, zero, 8);
	req = uring_pwrite_send(ev, ev, ring, fd, "written!", 8, 0, NULL);
	wait_req(ev, req);
	assert_int_equal(uring_pwrite_recv(req, &n), 0);
	assert_int_equal(n, 8);
	talloc_free(req);
	assert_int_equal(pread(fd, back, 8, 0), 8);
	assert_memory_equal(back, "written!", 8);
	uring_get_stats(ring, &st);
	assert_int_equal(st.faults, 3);      /* 1 + 2 retries */
	close(fd);
	talloc_free(ev);
}

/*
 * HANG: the CQE does not come however long the loop runs; cancelled, the
 * request ends with -ECANCELED and nothing is left in flight.  Freed
 * instead of cancelled, the same (the orphan's cancel).
 */
static void test_uring__fault_hang(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	static const uint8_t data[8] = "eightbyt";
	struct tevent_req *req = NULL;
	uint8_t *buf = NULL;
	size_t n = 0;
	int done = 0, i, fd;

	RING_OR_SKIP(ev, ring);
	fd = tmpfile_with(data, sizeof(data));
	buf = talloc_size(ev, 8);
	uring_fault_arm(ring, URING_FAULT_HANG);
	req = uring_pread_send(ev, ev, ring, fd, buf, 8, 0, buf);
	tevent_req_set_callback(req, count_done, &done);
	for (i = 0; i < 20; i++) {
		loop_pass(ev);
	}
	assert_int_equal(done, 0);
	assert_int_equal(ring_inflight(ring), 1);
	assert_true(tevent_req_cancel(req));
	WAIT_UNTIL(ev, done == 1);
	assert_int_equal(uring_pread_recv(req, &n), -ECANCELED);
	talloc_free(req);
	assert_int_equal(ring_inflight(ring), 0);

	uring_fault_arm(ring, URING_FAULT_HANG);
	req = uring_pread_send(ev, ev, ring, fd, buf, 8, 0, buf);
	loop_pass(ev);
	assert_int_equal(ring_inflight(ring), 1);
	talloc_free(req);
	WAIT_UNTIL(ev, ring_inflight(ring) == 0);
	close(fd);
	talloc_free(ev);
}

/* ---- the gate by hand (uring_gate_leave / uring_gate_enter) ---- */

struct gate_count {
	int leaves, enters;
};

static void gate_leave_cb(void *private_data)
{
	((struct gate_count *)private_data)->leaves++;
}

static void gate_enter_cb(void *private_data)
{
	((struct gate_count *)private_data)->enters++;
}

struct gate_thread {
	struct uring *ring;
	bool left;
};

static void *gate_other_thread(void *arg)
{
	struct gate_thread *g = arg;

	g->left = uring_gate_leave(g->ring);
	return NULL;
}

static void test_uring__gate_by_hand(void **state)
{
	struct gate_count n = {};
	struct gate_thread other = {};
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	pthread_t t;

	RING_OR_SKIP(ev, ring);
	/* no gate set: nothing to leave */
	assert_false(uring_gate_leave(ring));
	assert_false(uring_gate_leave(NULL));
	uring_ev_set_gate(ev, gate_leave_cb, gate_enter_cb, &n);
	assert_true(uring_gate_leave(ring));
	assert_int_equal(n.leaves, 1);
	assert_int_equal(n.enters, 0);
	uring_gate_enter(ring, true);
	assert_int_equal(n.enters, 1);
	/* not left: nothing to take back */
	uring_gate_enter(ring, false);
	assert_int_equal(n.enters, 1);
	/* only the ring's owner thread leaves */
	other.ring = ring;
	assert_int_equal(pthread_create(&t, NULL, gate_other_thread, &other),
			 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_false(other.left);
	assert_int_equal(n.leaves, 1);
	uring_ev_set_gate(ev, NULL, NULL, NULL);
	talloc_free(ev);
}

#define T(name) cmocka_unit_test_setup_teardown(test_uring__##name, \
						unit_setup, unit_teardown)

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
		T(fault_eagain),
		T(fault_hang),
		T(gate_by_hand),
	};

	if (getenv("TEST_FILTER") != NULL) {
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
