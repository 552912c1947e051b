/*
 * lib/uring high-level file I/O (pread, pwrite, fsync, range checks),
 * each body run with the ring, with uring_ev_disable() and with
 * RINGSMB_NO_IO_URING=1.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "tests/unit/uring_test_util.h"

static const char *mode_name(enum mode m)
{
	return m == MODE_RING ? "ring" : m == MODE_DISABLE ? "disable" : "env";
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

ALL_MODES(pread_many)
ALL_MODES(pwrite_fsync)
ALL_MODES(bad_range)

#define T(name) cmocka_unit_test_setup_teardown(test_uring__##name, \
						unit_setup, unit_teardown)
#define TM(name) T(name##__ring), T(name##__disabled), T(name##__env)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TM(pread_many),
		TM(pwrite_fsync),
		TM(bad_range),
	};

	if (getenv("TEST_FILTER") != NULL) {
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
