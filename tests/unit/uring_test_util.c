/*
 * Helpers shared by the test_uring_* programs (tests/unit/wscript).
 */
#include <stdlib.h>
#include <unistd.h>
#include "tests/unit/uring_test_util.h"

/* A context and its ring (or NULL in the fallback modes). */
struct tevent_context *test_ev(TALLOC_CTX *ctx, enum mode m,
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

uint64_t ring_inflight(struct uring *ring)
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

static int tbuf_destructor(struct tbuf *b)
{
	*b->freed = true;
	return 0;
}

struct tbuf *tbuf_new(TALLOC_CTX *ctx, bool *freed)
{
	struct tbuf *b = talloc_zero(ctx, struct tbuf);

	assert_non_null(b);
	*freed = false;
	b->freed = freed;
	talloc_set_destructor(b, tbuf_destructor);
	return b;
}

void count_done(struct tevent_req *req)
{
	(*(int *)tevent_req_callback_data_void(req))++;
}

void wait_req(struct tevent_context *ev, struct tevent_req *req)
{
	assert_non_null(req);
	WAIT_UNTIL(ev, !tevent_req_is_in_progress(req));
}

