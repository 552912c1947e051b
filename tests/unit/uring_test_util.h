/*
 * Helpers shared by the test_uring_* programs (SHARED in
 * tests/unit/wscript links uring_test_util.c into each): a context in
 * each of the three modes, loop helpers with a time limit, temporary
 * files, and buffers that report their free.
 */
#ifndef RINGSMB_TESTS_UNIT_URING_TEST_UTIL_H
#define RINGSMB_TESTS_UNIT_URING_TEST_UTIL_H

#include <stdbool.h>
#include "tests/unit/unit.h"
#include "lib/uring/uring.h"

#define RING_OR_SKIP(ev, ring) do { \
	if ((ring) == NULL) { \
		talloc_free(ev); \
		print_message("io_uring unavailable: skipping\n"); \
		skip(); \
	} \
} while (0)

/* Sets *(bool *)private_data. */
void timeout_handler(struct tevent_context *ev, struct tevent_timer *te,
		     struct timeval now, void *private_data);

/* Runs the loop until cond holds; fails after 5 seconds. */
#define WAIT_UNTIL(ev, cond) do { \
	bool timed_out_ = false; \
	struct tevent_timer *te_ = tevent_add_timer( \
		(ev), (ev), tevent_timeval_current_ofs(5, 0), \
		timeout_handler, &timed_out_); \
	while (!(cond) && !timed_out_) { \
		assert_int_equal(tevent_loop_once(ev), 0); \
	} \
	assert_false(timed_out_); /* a fired timer is freed by tevent */ \
	talloc_free(te_); \
} while (0)

/* One loop pass that does not block (a due timer), to flush SQEs. */
void loop_pass(struct tevent_context *ev);
/* An unlinked temporary file holding data. */
int tmpfile_with(const uint8_t *data, size_t len);
/* len bytes of a pattern that depends on seed. */
uint8_t *pattern(TALLOC_CTX *ctx, size_t len, unsigned seed);
/* Runs the loop until req is done. */
void wait_req(struct tevent_context *ev, struct tevent_req *req);

/*
 * The same test body runs with the ring, with uring_ev_disable() and
 * with RINGSMB_NO_IO_URING=1.
 */
enum mode { MODE_RING, MODE_DISABLE, MODE_ENV };

/* A context and its ring (or NULL in the fallback modes). */
struct tevent_context *test_ev(TALLOC_CTX *ctx, enum mode m,
			       struct uring **ring);

/*
 * test_uring__<name>__ring, __disabled and __env, each running
 * <name>_body(*state, mode).
 */
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

/* SQEs in flight or queued. */
uint64_t ring_inflight(struct uring *ring);

/* A buffer that records when talloc frees it. */
struct tbuf {
	bool *freed;
	uint8_t data[64];
};

struct tbuf *tbuf_new(TALLOC_CTX *ctx, bool *freed);
/* A callback counting completions in *(int *)callback data. */
void count_done(struct tevent_req *req);

#endif
