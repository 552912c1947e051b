/*
 * Unit tests for the daemon's self-contained pieces: the credit window.
 * The .c is included (h2o's t/00unit style) because smbd is a program,
 * not a library.
 */
#include "source3/smbd/credits.c"
#include "tests/unit/unit.h"

/* NEGOTIATE uses id 0 and gets its credits; the window moves on. */
static void test_credits__initial_window(void **state)
{
	struct smbd_credits *c = smbd_credits_new(*state);

	assert_int_equal(smbd_credits_range(c), 1);
	assert_false(smbd_credits_consume(c, 1, 1));
	assert_true(smbd_credits_consume(c, 0, 1));
	assert_int_equal(smbd_credits_range(c), 0);
	assert_int_equal(smbd_credits_grant(c, 10), 10);
	assert_true(smbd_credits_consume(c, 1, 1));
	assert_true(smbd_credits_consume(c, 10, 1));
	assert_false(smbd_credits_consume(c, 11, 1));   /* past the window */
	talloc_free(c);
}

static void test_credits__reuse_refused(void **state)
{
	struct smbd_credits *c = smbd_credits_new(*state);

	assert_true(smbd_credits_consume(c, 0, 1));
	smbd_credits_grant(c, 4);
	assert_true(smbd_credits_consume(c, 3, 1));     /* out of order ok */
	assert_false(smbd_credits_consume(c, 3, 1));    /* used twice */
	assert_false(smbd_credits_consume(c, 0, 1));    /* below the window */
	talloc_free(c);
}

/* A multi-credit request uses CreditCharge consecutive ids. */
static void test_credits__charge(void **state)
{
	struct smbd_credits *c = smbd_credits_new(*state);

	assert_true(smbd_credits_consume(c, 0, 1));
	smbd_credits_grant(c, 8);
	assert_false(smbd_credits_consume(c, 1, 9));    /* more than granted */
	assert_true(smbd_credits_consume(c, 1, 8));
	assert_int_equal(smbd_credits_range(c), 0);
	assert_false(smbd_credits_consume(c, 9, 1));
	talloc_free(c);
}

/* Ids near 2^64 must not wrap into the window (RELIABILITY item 7). */
static void test_credits__huge_ids(void **state)
{
	struct smbd_credits *c = smbd_credits_new(*state);

	assert_false(smbd_credits_consume(c, UINT64_MAX, 1));
	assert_false(smbd_credits_consume(c, UINT64_MAX - 1, 4));
	assert_true(smbd_credits_consume(c, 0, 1));
	smbd_credits_grant(c, 2);
	assert_false(smbd_credits_consume(c, 1, UINT16_MAX));
	talloc_free(c);
}

/* The window never exceeds SMBD_MAX_CREDITS, however much is asked. */
static void test_credits__cap(void **state)
{
	struct smbd_credits *c = smbd_credits_new(*state);
	uint32_t total = 0;
	int i;

	for (i = 0; i < 10; i++) {
		total += smbd_credits_grant(c, 65535);
	}
	assert_int_equal(smbd_credits_range(c), SMBD_MAX_CREDITS);
	assert_int_equal(total, SMBD_MAX_CREDITS - 1);
	assert_int_equal(smbd_credits_grant(c, 1), 0);
	talloc_free(c);
}

/* Retiring ids in any order keeps the window exact over many rounds. */
static void test_credits__many_rounds(void **state)
{
	struct smbd_credits *c = smbd_credits_new(*state);
	uint64_t mid = 1;
	int round, i;

	assert_true(smbd_credits_consume(c, 0, 1));
	smbd_credits_grant(c, 64);
	for (round = 0; round < 1000; round++) {
		for (i = 63; i >= 0; i--) {
			assert_true(smbd_credits_consume(c, mid + i, 1));
		}
		mid += 64;
		assert_int_equal(smbd_credits_range(c), 0);
		assert_int_equal(smbd_credits_grant(c, 64), 64);
	}
	talloc_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, unit_setup, unit_teardown)
		T(test_credits__initial_window),
		T(test_credits__reuse_refused),
		T(test_credits__charge),
		T(test_credits__huge_ids),
		T(test_credits__cap),
		T(test_credits__many_rounds),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
