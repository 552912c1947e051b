/*
 * Helpers shared by the parts of test_uring (test_uring.c,
 * test_uring_buf.c).
 */
#ifndef RINGSMB_TESTS_UNIT_TEST_URING_H
#define RINGSMB_TESTS_UNIT_TEST_URING_H

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

/* test_uring_buf.c */
void test_uring__bufs_take_return(void **state);
void test_uring__bufs_no_ring(void **state);
void test_uring__bufs_pread_fixed(void **state);
void test_uring__bufs_send_zc_fixed(void **state);
void test_uring__bufs_send_zc_many(void **state);
void test_uring__bufs_held_until_notif(void **state);
void test_uring__bufs_freed_in_flight(void **state);
void test_uring__bufs_ring_freed_first(void **state);

#endif
