/*
 * Unit tests for lib/util/unix_token.c: the per-thread switch and the
 * hold a request's synchronous part runs under (pipeline.c).  The
 * thread's effective ids are read back from the kernel (geteuid,
 * getegid) after each step; a hold must never leave the thread with
 * more rights than asked for: root where a user was meant.  Needs root
 * to switch; skipped otherwise.
 */
#include <string.h>
#include <unistd.h>
#include "lib/util/unix_token.h"
#include "tests/unit/unit.h"

static struct unix_token alice = { .uid = 4001, .gid = 4001, .serial = 1 };
static struct unix_token bob = { .uid = 4002, .gid = 4002, .serial = 2 };

#define SKIP_UNLESS_ROOT()                      \
	do {                                    \
		if (!unix_token_can_switch()) { \
			skip();                 \
		}                               \
	} while (0)

static void assert_ids(uid_t uid, gid_t gid)
{
	assert_int_equal(geteuid(), uid);
	assert_int_equal(getegid(), gid);
}

static void test_token__pairs(void **state)
{
	SKIP_UNLESS_ROOT();
	assert_int_equal(unix_token_become(&alice), 0);
	assert_ids(4001, 4001);
	/* the same token again: no switch needed, still alice */
	assert_int_equal(unix_token_become(&alice), 0);
	assert_ids(4001, 4001);
	unix_token_unbecome();
	assert_int_equal(geteuid(), 0);
	/* straight from one user to another, groups included */
	assert_int_equal(unix_token_become(&alice), 0);
	assert_int_equal(unix_token_become(&bob), 0);
	assert_ids(4002, 4002);
	unix_token_unbecome_full();
	assert_ids(0, 0);
}

static void test_token__hold(void **state)
{
	bool held;

	SKIP_UNLESS_ROOT();
	held = unix_token_hold(&alice);
	assert_true(held);
	/* taken lazily: a stretch without a call for alice stays root */
	assert_int_equal(geteuid(), 0);
	assert_int_equal(unix_token_become(&alice), 0);
	assert_ids(4001, 4001);
	unix_token_unbecome();
	/* pairs for the held token: nothing changes in between */
	assert_ids(4001, 4001);
	assert_int_equal(unix_token_become(&alice), 0);
	unix_token_unbecome();
	assert_ids(4001, 4001);
	/* not nested */
	assert_false(unix_token_hold(&bob));
	/* another user for one call; after it root, never alice's rights
	 * kept for bob or bob's for alice */
	assert_int_equal(unix_token_become(&bob), 0);
	assert_ids(4002, 4002);
	unix_token_unbecome();
	assert_int_equal(geteuid(), 0);
	assert_int_equal(unix_token_become(&alice), 0);
	assert_ids(4001, 4001);
	/* the daemon's own call: root, for the call and after */
	assert_int_equal(unix_token_become_root(), 0);
	assert_int_equal(geteuid(), 0);
	unix_token_unbecome();
	assert_int_equal(geteuid(), 0);
	assert_int_equal(unix_token_become(&alice), 0);
	unix_token_release(held);
	assert_int_equal(geteuid(), 0);
	/* after the hold an unbecome goes to root, not to alice */
	assert_int_equal(unix_token_become(&alice), 0);
	unix_token_unbecome();
	assert_int_equal(geteuid(), 0);
	unix_token_unbecome_full();
}

static void test_token__hold_dropped(void **state)
{
	struct unix_token unnamed = { .uid = 4003, .gid = 4003 };
	bool held;

	SKIP_UNLESS_ROOT();
	/* no serial, no hold: each pair switches as before */
	assert_false(unix_token_hold(&unnamed));
	assert_false(unix_token_hold(NULL));
	assert_int_equal(geteuid(), 0);
	assert_int_equal(unix_token_become(&unnamed), 0);
	assert_ids(4003, 4003);
	unix_token_unbecome();
	assert_int_equal(geteuid(), 0);
	/* unbecome_full inside a hold ends it: root from then on */
	held = unix_token_hold(&alice);
	assert_true(held);
	unix_token_unbecome_full();
	assert_ids(0, 0);
	assert_int_equal(unix_token_become(&bob), 0);
	unix_token_unbecome();
	assert_int_equal(geteuid(), 0);
	unix_token_release(held);
	assert_int_equal(geteuid(), 0);
	unix_token_unbecome_full();
	assert_ids(0, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_token__pairs),
		T(test_token__hold),
		T(test_token__hold_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
