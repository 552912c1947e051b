/*
 * vfs_error (source3/modules/vfs_error.c): its options, its decision of
 * which calls fail, and the module in a stack: a fault reaches the caller
 * as the mapped NTSTATUS, the log line is written before the completion,
 * and a request freed while its completion is held back leaves nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tevent.h>
#include "lib/param/param.h"
#include "lib/uring/uring.h"
#include "source3/modules/vfs_error.h"
#include "tests/unit/vfs_test_util.h"

static bool set(struct vfs_error_config *c, const char *opt, const char *v)
{
	const char *why = NULL;

	return vfs_error_config_set(NULL, c, opt, v, &why);
}

static void test_vfs_error__config_defaults(void **state)
{
	struct vfs_error_config c;
	struct vfs_error_counter k;
	unsigned i;

	vfs_error_config_init(&c);
	assert_int_equal(c.ops, 0);
	assert_int_equal(c.err, EIO);
	assert_int_equal(c.nth, 1);
	vfs_error_counter_init(&k, &c);
	for (i = 0; i < VFS_ERROR_NUM_OPS; i++) {
		assert_false(vfs_error_fires(&c, &k, i));
	}
	assert_int_equal(k.calls, 0);
}

static void test_vfs_error__config_parses(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct vfs_error_config c;
	const char *why = NULL;

	vfs_error_config_init(&c);
	assert_true(set(&c, "ops", "pwrite, FSYNC  openat"));
	assert_int_equal(c.ops, (1u << VFS_ERROR_PWRITE) |
			 (1u << VFS_ERROR_FSYNC) | (1u << VFS_ERROR_OPENAT));
	assert_true(set(&c, "ops", "all"));
	assert_int_equal(c.ops, (1u << VFS_ERROR_NUM_OPS) - 1);
	assert_true(set(&c, "ops", ""));
	assert_int_equal(c.ops, 0);
	assert_true(set(&c, "errno", "enospc"));
	assert_int_equal(c.err, ENOSPC);
	assert_true(set(&c, "errno", "EDQUOT"));
	assert_int_equal(c.err, EDQUOT);
	assert_true(set(&c, "errno", "5"));
	assert_int_equal(c.err, EIO);
	assert_true(set(&c, "short", "yes"));
	assert_true(c.short_io);
	assert_true(set(&c, "nth", "18446744073709551615"));
	assert_true(c.nth == UINT64_MAX);
	assert_true(set(&c, "times", "0"));
	assert_true(set(&c, "probability", "0.25"));
	assert_true(c.random);
	assert_true(c.probability == 0.25);
	assert_true(set(&c, "seed", "42"));
	assert_int_equal(c.seed, 42);
	assert_true(set(&c, "delay", "60000"));
	assert_int_equal(c.delay_ms, 60000);
	assert_true(set(&c, "ring", "EAGAIN"));
	assert_int_equal(c.ring, URING_FAULT_EAGAIN);
	assert_true(set(&c, "ring", "hang"));
	assert_int_equal(c.ring, URING_FAULT_HANG);
	assert_true(set(&c, "ring", "no"));
	assert_int_equal(c.ring, URING_FAULT_NONE);
	assert_true(vfs_error_config_set(ctx, &c, "log", "/tmp/x.log", &why));
	assert_string_equal(c.log, "/tmp/x.log");
	talloc_free((char *)c.log);
	assert_string_equal(vfs_error_op_name(VFS_ERROR_FSYNC), "fsync");
}

static void test_vfs_error__config_refuses(void **state)
{
	static const char *const bad[][2] = {
		{ "ops", "pwrite frobnicate" }, { "ops", "pwritex" },
		{ "errno", "ENOTANERRNO" }, { "errno", "0" },
		{ "errno", "4096" }, { "errno", "" }, { "short", "maybe" },
		{ "nth", "0" }, { "nth", "-1" }, { "nth", "1x" },
		{ "nth", "18446744073709551616" }, { "times", "" },
		{ "probability", "1.5" }, { "probability", "-0.1" },
		{ "probability", "nan" }, { "probability", " 0.5" },
		{ "probability", "0.5x" }, { "delay", "60001" },
		{ "ring", "EIO" }, { "ring", "" }, { "ring", "yes" },
		{ "log", "relative.log" }, { "log", "" }, { "count", "yes" },
	};
	struct vfs_error_config c;
	const char *why = NULL;
	size_t i;

	vfs_error_config_init(&c);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (vfs_error_config_set(NULL, &c, bad[i][0], bad[i][1],
					 &why)) {
			fail_msg("accepted %s = \"%s\"", bad[i][0], bad[i][1]);
		}
	}
	assert_string_equal(why, "unknown option");
	/* nothing half-applied */
	assert_int_equal(c.nth, 1);
	assert_int_equal(c.err, EIO);
	assert_false(c.random);
	assert_int_equal(c.ring, URING_FAULT_NONE);
}

static void test_vfs_error__nth_and_times(void **state)
{
	struct vfs_error_config c;
	struct vfs_error_counter k;
	bool got[8];
	static const bool want[8] = { false, false, true, true, false, false,
				      false, false };
	unsigned i;

	vfs_error_config_init(&c);
	assert_true(set(&c, "ops", "pwrite"));
	assert_true(set(&c, "nth", "3"));
	assert_true(set(&c, "times", "2"));
	vfs_error_counter_init(&k, &c);
	for (i = 0; i < 8; i++) {
		/* other ops neither fail nor count */
		assert_false(vfs_error_fires(&c, &k, VFS_ERROR_PREAD));
		got[i] = vfs_error_fires(&c, &k, VFS_ERROR_PWRITE);
	}
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(k.calls, 8);
	assert_int_equal(k.fired, 2);
}

static unsigned count_fired(double p, uint64_t seed, unsigned n,
			    uint64_t *pattern)
{
	struct vfs_error_config c;
	struct vfs_error_counter k;
	char v[32];
	unsigned i, fired = 0;

	vfs_error_config_init(&c);
	assert_true(set(&c, "ops", "fsync"));
	snprintf(v, sizeof(v), "%g", p);
	assert_true(set(&c, "probability", v));
	snprintf(v, sizeof(v), "%llu", (unsigned long long)seed);
	assert_true(set(&c, "seed", v));
	vfs_error_counter_init(&k, &c);
	*pattern = 0;
	for (i = 0; i < n; i++) {
		bool f = vfs_error_fires(&c, &k, VFS_ERROR_FSYNC);

		fired += f;
		if (i < 64 && f) {
			*pattern |= 1ULL << i;
		}
	}
	return fired;
}

static void test_vfs_error__probability_seeded(void **state)
{
	uint64_t a = 0, b = 0, c = 0;
	unsigned n;

	assert_int_equal(count_fired(0.0, 1, 1000, &a), 0);
	assert_int_equal(count_fired(1.0, 1, 1000, &a), 1000);
	n = count_fired(0.5, 7, 10000, &a);
	assert_true(n > 4700 && n < 5300);
	assert_int_equal(count_fired(0.5, 7, 10000, &b), n);
	assert_true(a == b);
	count_fired(0.5, 8, 10000, &c);
	assert_true(a != c);
	/* seed 0 is a seed like any other */
	n = count_fired(0.5, 0, 10000, &c);
	assert_true(n > 4700 && n < 5300);
}

/* ---- the module in a stack ---- */

static struct vfs_handle *connect_error(TALLOC_CTX *ctx,
					struct tevent_context *ev,
					const char *share,
					const struct lp_parametric *p,
					size_t n)
{
	static const char *const objects[] = { "error", NULL };
	struct vfs_handle *vfs = NULL;

	assert_true(NT_STATUS_IS_OK(vfs_connect_params(ctx, ev, "t", share,
						       objects, p, n, false,
						       &vfs)));
	return vfs;
}

static void note_done(struct tevent_req *req)
{
	*(bool *)tevent_req_callback_data_void(req) = true;
}

static NTSTATUS do_pwrite(TALLOC_CTX *ctx, struct tevent_context *ev,
			  struct vfs_fh *fh, const char *s, uint64_t off,
			  size_t *n)
{
	struct tevent_req *req = vfs_pwrite_send(ctx, ev, fh, s, strlen(s),
						 off);
	NTSTATUS status;
	bool done = false;

	assert_non_null(req);
	tevent_req_set_callback(req, note_done, &done);
	/* never completed inside _send: the callback runs from the loop */
	while (!done) {
		assert_int_equal(tevent_loop_once(ev), 0);
	}
	status = vfs_pwrite_recv(req, n);
	talloc_free(req);
	return status;
}

static void test_vfs_error__module_faults_and_logs(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	char log[160], buf[64] = "";
	const struct lp_parametric p[] = {
		{ "error:ops", "pwrite" }, { "error:errno", "ENOSPC" },
		{ "error:nth", "2" }, { "error:log", log },
		{ "other:option", "ignored" },
	};
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	struct tevent_req *req = NULL;
	size_t n = 0;
	int fd;

	tree_make(&t);
	snprintf(log, sizeof(log), "%s/error.log", t.base);
	vfs = connect_error(ctx, ev, t.share, p, 5);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_RDWR, &fh,
					       NULL)));
	assert_true(NT_STATUS_IS_OK(do_pwrite(ctx, ev, fh, "HE", 0, &n)));
	assert_int_equal(n, 2);
	assert_true(NT_STATUS_EQUAL(do_pwrite(ctx, ev, fh, "LL", 2, &n),
				    NT_STATUS_DISK_FULL));
	req = vfs_fsync_send(ctx, ev, fh);
	assert_true(tevent_req_poll(req, ev));
	assert_true(NT_STATUS_IS_OK(vfs_fsync_recv(req)));
	talloc_free(req);
	fd = open(log, O_RDONLY);
	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	assert_string_equal(buf, "openat 0\npwrite 2\npwrite -28\nfsync 0\n");
	talloc_free(fh);
	talloc_free(vfs);
	unlink(log);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs_error__short_read(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	const struct lp_parametric p[] = {
		{ "error:ops", "pread" }, { "error:short", "yes" },
	};
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	struct tevent_req *req = NULL;
	uint8_t *buf = talloc_size(ctx, 16);
	size_t n = 0;

	tree_make(&t);
	vfs = connect_error(ctx, ev, t.share, p, 2);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_RDONLY, &fh,
					       NULL)));
	req = vfs_pread_send(ctx, ev, fh, buf, 5, 0);
	assert_true(tevent_req_poll(req, ev));
	assert_true(NT_STATUS_IS_OK(vfs_pread_recv(req, &n)));
	assert_int_equal(n, 2);
	assert_memory_equal(buf, "he", 2);
	talloc_free(req);
	talloc_free(buf);
	talloc_free(fh);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

/* error:delay holds the completion in a timer: freeing the request then */
static void test_vfs_error__freed_while_delayed(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	const struct lp_parametric p[] = {
		{ "error:ops", "fsync" }, { "error:delay", "1000" },
	};
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	struct tevent_req *req = NULL;

	tree_make(&t);
	vfs = connect_error(ctx, ev, t.share, p, 2);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_RDWR, &fh,
					       NULL)));
	req = vfs_fsync_send(ctx, ev, fh);      /* fails, after 1 s */
	assert_true(tevent_req_is_in_progress(req));    /* in its timer */
	talloc_free(req);
	req = vfs_fsync_send(ctx, ev, fh);      /* a second one fails too */
	assert_true(tevent_req_poll(req, ev));
	assert_true(NT_STATUS_EQUAL(vfs_fsync_recv(req),
				    NT_STATUS_IO_DEVICE_ERROR));
	talloc_free(req);
	talloc_free(fh);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs_error__bad_option_fails_connect(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	static const char *const objects[] = { "error", NULL };
	const struct lp_parametric p[] = { { "error:nth", "0" } };
	struct vfs_handle *vfs = NULL;
	struct tree t;

	tree_make(&t);
	assert_false(NT_STATUS_IS_OK(vfs_connect_params(ctx, ev, "t", t.share,
							objects, p, 1, false,
							&vfs)));
	assert_null(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_vfs_error__config_defaults),
		T(test_vfs_error__config_parses),
		T(test_vfs_error__config_refuses),
		T(test_vfs_error__nth_and_times),
		T(test_vfs_error__probability_seeded),
		T(test_vfs_error__module_faults_and_logs),
		T(test_vfs_error__short_read),
		T(test_vfs_error__freed_while_delayed),
		T(test_vfs_error__bad_option_fails_connect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
