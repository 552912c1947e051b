/*
 * Unit tests for the byte-range lock table (source3/smbd/files/brlock.c):
 * the conflict matrix, range edges, zero-length locks, wrap-around,
 * all-or-nothing arrays, release when an owner goes, and waiters.
 * The .c is included because smbd is a program, not a library.
 */
#include "source3/smbd/files/brlock.c"
#include "tests/unit/unit.h"

/* Owners are compared, never dereferenced: any distinct addresses. */
static const int own_a, own_b, own_c;
#define A (&own_a)
#define B (&own_b)
#define C (&own_c)

static struct brl_range rng(uint64_t offset, uint64_t length, bool excl)
{
	return (struct brl_range) { offset, length, excl };
}

static NTSTATUS lock1(struct brl_table *t, const void *owner,
		      uint64_t offset, uint64_t length, bool excl)
{
	struct brl_range r = rng(offset, length, excl);

	return brl_lock(t, owner, &r, 1, NULL);
}

#define assert_status(x, s) \
	assert_string_equal(nt_errstr(x), nt_errstr(NT_STATUS_##s))

/* shared/shared never conflict; anything with exclusive does */
static void test_brlock__matrix_other_owner(void **state)
{
	struct brl_table *t = brl_table_new(*state);

	assert_status(lock1(t, A, 0, 10, false), OK);
	assert_status(lock1(t, B, 5, 10, false), OK);
	assert_status(lock1(t, B, 5, 10, true), LOCK_NOT_GRANTED);
	assert_status(lock1(t, C, 100, 10, true), OK);
	assert_status(lock1(t, A, 105, 1, false), LOCK_NOT_GRANTED);
	assert_status(lock1(t, A, 105, 1, true), LOCK_NOT_GRANTED);
	assert_int_equal(brl_num_locks(t), 3);
	talloc_free(t);
}

/* An owner stacks shared on its exclusive lock, nothing else. */
static void test_brlock__matrix_same_owner(void **state)
{
	struct brl_table *t = brl_table_new(*state);

	assert_status(lock1(t, A, 0, 10, true), OK);
	assert_status(lock1(t, A, 0, 10, false), OK);
	assert_status(lock1(t, A, 0, 10, true), LOCK_NOT_GRANTED);
	assert_status(lock1(t, A, 20, 10, false), OK);
	assert_status(lock1(t, A, 25, 1, true), LOCK_NOT_GRANTED);
	assert_status(lock1(t, B, 0, 10, false), LOCK_NOT_GRANTED);
	talloc_free(t);
}

/* [0,10) and [10,20) touch but do not overlap; one byte more does */
static void test_brlock__edges(void **state)
{
	struct brl_table *t = brl_table_new(*state);

	assert_status(lock1(t, A, 10, 10, true), OK);
	assert_status(lock1(t, B, 0, 10, true), OK);
	assert_status(lock1(t, B, 20, 5, true), OK);
	assert_status(lock1(t, B, 19, 1, true), LOCK_NOT_GRANTED);
	assert_status(lock1(t, B, 9, 2, false), LOCK_NOT_GRANTED);
	assert_status(lock1(t, C, 0, UINT64_MAX, false), LOCK_NOT_GRANTED);
	talloc_free(t);
}

/*
 * Zero length: held, unlockable, never in conflict with each other; it
 * conflicts with a lock strictly containing its offset (Samba's rule).
 */
static void test_brlock__zero_length(void **state)
{
	struct brl_table *t = brl_table_new(*state);

	assert_status(lock1(t, A, 5, 0, true), OK);
	assert_status(lock1(t, B, 5, 0, true), OK);
	assert_status(lock1(t, A, 5, 0, true), OK);
	assert_status(lock1(t, B, 0, 5, true), OK);     /* ends at 5 */
	assert_int_equal(brl_num_locks(t), 4);
	assert_status(brl_unlock(t, A, 5, 0), OK);
	assert_status(brl_unlock(t, A, 5, 0), OK);
	assert_status(brl_unlock(t, A, 5, 0), RANGE_NOT_LOCKED);
	assert_status(lock1(t, C, 100, 10, true), OK);
	assert_status(lock1(t, A, 105, 0, false), LOCK_NOT_GRANTED);
	assert_status(lock1(t, A, 100, 0, false), OK);  /* its start */
	assert_status(lock1(t, A, 110, 0, false), OK);  /* its end */
	assert_false(brl_io_conflict(t, C, 5, 95, true));    /* B's at 5 */
	talloc_free(t);
}

/* A range may end at 2^64 but not past it (MS-FSA 2.1.5.7). */
static void test_brlock__wrap(void **state)
{
	struct brl_table *t = brl_table_new(*state);

	assert_status(lock1(t, A, UINT64_MAX, 1, true), OK);
	assert_status(lock1(t, A, UINT64_MAX, 2, true), INVALID_LOCK_RANGE);
	assert_status(lock1(t, A, 2, UINT64_MAX, true), INVALID_LOCK_RANGE);
	assert_status(lock1(t, B, 1, UINT64_MAX, false), LOCK_NOT_GRANTED);
	assert_status(lock1(t, A, 0, UINT64_MAX, true), OK);
	assert_status(lock1(t, B, UINT64_MAX - 1, 1, true), LOCK_NOT_GRANTED);
	assert_status(lock1(t, A, UINT64_MAX, 0, true), OK);
	assert_int_equal(brl_num_locks(t), 3);
	talloc_free(t);
}

/* Element k fails: 0..k-1 are undone; k's own status is returned. */
static void test_brlock__array_rollback(void **state)
{
	struct brl_table *t = brl_table_new(*state);
	struct brl_range r[3] = { rng(0, 10, true), rng(20, 10, false),
				  rng(50, 10, true) };
	struct brl_range w[2] = { rng(200, 1, true), rng(2, UINT64_MAX, true) };
	size_t failed = 99;

	assert_status(lock1(t, B, 55, 1, false), OK);
	assert_status(brl_lock(t, A, r, 3, &failed), LOCK_NOT_GRANTED);
	assert_int_equal(failed, 2);
	assert_int_equal(brl_num_locks(t), 1);
	assert_status(brl_lock(t, A, w, 2, &failed), INVALID_LOCK_RANGE);
	assert_int_equal(failed, 1);
	assert_int_equal(brl_num_locks(t), 1);
	/* an array that conflicts with itself fails as a whole too */
	r[2] = rng(5, 1, true);
	assert_status(brl_lock(t, A, r, 3, &failed), LOCK_NOT_GRANTED);
	assert_int_equal(brl_num_locks(t), 1);
	r[2] = rng(60, 1, true);
	assert_status(brl_lock(t, A, r, 3, NULL), OK);
	assert_int_equal(brl_num_locks(t), 4);
	talloc_free(t);
}

/* Unlock needs the exact range; exclusive goes before stacked shared. */
static void test_brlock__unlock_exact(void **state)
{
	struct brl_table *t = brl_table_new(*state);

	assert_status(lock1(t, A, 0, 10, true), OK);
	assert_status(lock1(t, A, 0, 10, false), OK);
	assert_status(brl_unlock(t, A, 0, 5), RANGE_NOT_LOCKED);
	assert_status(brl_unlock(t, A, 0, 11), RANGE_NOT_LOCKED);
	assert_status(brl_unlock(t, B, 0, 10), RANGE_NOT_LOCKED);
	assert_status(brl_unlock(t, A, 0, 10), OK);
	/* the shared one stays: B may share, not take it */
	assert_status(lock1(t, B, 0, 10, false), OK);
	assert_status(lock1(t, B, 0, 10, true), LOCK_NOT_GRANTED);
	assert_status(brl_unlock(t, A, 0, 10), OK);
	assert_status(brl_unlock(t, A, 0, 10), RANGE_NOT_LOCKED);
	talloc_free(t);
}

/* Reads: others' exclusive; writes: others' any, own shared. */
static void test_brlock__io(void **state)
{
	struct brl_table *t = brl_table_new(*state);

	assert_status(lock1(t, A, 0, 10, true), OK);
	assert_status(lock1(t, A, 100, 10, false), OK);
	assert_false(brl_io_conflict(t, A, 0, 10, false));
	assert_false(brl_io_conflict(t, A, 0, 10, true));
	assert_true(brl_io_conflict(t, B, 9, 1, false));
	assert_true(brl_io_conflict(t, B, 5, 100, true));
	assert_false(brl_io_conflict(t, B, 10, 90, true));
	assert_false(brl_io_conflict(t, B, 100, 10, false));
	assert_true(brl_io_conflict(t, B, 100, 10, true));
	assert_false(brl_io_conflict(t, A, 105, 1, false));
	assert_true(brl_io_conflict(t, A, 105, 1, true));
	assert_false(brl_io_conflict(t, B, 5, 0, true));
	assert_false(brl_io_conflict(NULL, B, 5, 1, true));
	talloc_free(t);
}

struct wake_log {
	int order[8];
	NTSTATUS status[8];
	int n;
};

struct wake_rec {
	struct wake_log *log;
	int id;
};

static void wake(void *private_data, NTSTATUS status)
{
	struct wake_rec *w = private_data;

	w->log->order[w->log->n] = w->id;
	w->log->status[w->log->n++] = status;
}

static struct brl_waiter *wait1(struct brl_table *t, const void *owner,
				struct brl_range r, struct wake_rec *rec)
{
	struct brl_waiter *w = brl_wait(t, t, owner, &r, 1, wake, rec);

	assert_non_null(w);
	return w;
}

/* Waiters are granted oldest first, each as soon as its range frees. */
static void test_brlock__waiters_order(void **state)
{
	struct brl_table *t = brl_table_new(*state);
	struct wake_log log = { .n = 0 };
	struct wake_rec r1 = { &log, 1 }, r2 = { &log, 2 }, r3 = { &log, 3 };

	assert_status(lock1(t, A, 0, 10, true), OK);
	wait1(t, B, rng(0, 10, true), &r1);
	wait1(t, C, rng(0, 10, true), &r2);
	wait1(t, C, rng(50, 1, true), &r3);     /* free: granted next time */
	assert_int_equal(brl_num_waiters(t), 3);
	assert_status(brl_unlock(t, A, 0, 10), OK);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.order[0], 1);
	assert_int_equal(log.order[1], 3);
	assert_status(log.status[0], OK);
	assert_int_equal(brl_num_waiters(t), 1);
	assert_true(brl_io_conflict(t, A, 0, 1, false));        /* B has it */
	assert_status(brl_unlock(t, B, 0, 10), OK);
	assert_int_equal(log.n, 3);
	assert_int_equal(log.order[2], 2);
	assert_int_equal(brl_num_waiters(t), 0);
	talloc_free(t);
}

/*
 * An owner goes: its locks are dropped, its waits answered
 * RANGE_NOT_LOCKED, and others' waits retried.
 */
static void test_brlock__owner_gone(void **state)
{
	struct brl_table *t = brl_table_new(*state);
	struct wake_log log = { .n = 0 };
	struct wake_rec r1 = { &log, 1 }, r2 = { &log, 2 };

	assert_status(lock1(t, A, 0, 10, true), OK);
	assert_status(lock1(t, A, 20, 10, false), OK);
	assert_status(lock1(t, B, 40, 10, true), OK);
	wait1(t, B, rng(0, 1, true), &r1);
	wait1(t, A, rng(40, 1, true), &r2);
	brl_owner_gone(t, A);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.order[0], 2);
	assert_status(log.status[0], RANGE_NOT_LOCKED);
	assert_int_equal(log.order[1], 1);
	assert_status(log.status[1], OK);
	assert_int_equal(brl_num_locks(t), 2);          /* B's two */
	assert_int_equal(brl_num_waiters(t), 0);
	brl_owner_gone(t, B);
	assert_int_equal(brl_num_locks(t), 0);
	brl_owner_gone(NULL, B);
	talloc_free(t);
}

/* Freeing a waiter withdraws it; freeing the table orphans waiters. */
static void test_brlock__waiter_freed(void **state)
{
	struct brl_table *t = brl_table_new(*state);
	struct wake_log log = { .n = 0 };
	struct wake_rec r1 = { &log, 1 };
	struct brl_waiter *w = NULL;

	assert_status(lock1(t, A, 0, 10, true), OK);
	w = wait1(t, B, rng(0, 10, true), &r1);
	talloc_free(w);
	assert_int_equal(brl_num_waiters(t), 0);
	assert_status(brl_unlock(t, A, 0, 10), OK);
	assert_int_equal(log.n, 0);
	w = brl_wait(*state, t, B, &(struct brl_range){ 0, 1, true }, 1,
		     wake, &r1);
	talloc_free(t);
	talloc_free(w);                 /* must not touch the freed table */
	assert_int_equal(log.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, unit_setup, unit_teardown)
		T(test_brlock__matrix_other_owner),
		T(test_brlock__matrix_same_owner),
		T(test_brlock__edges),
		T(test_brlock__zero_length),
		T(test_brlock__wrap),
		T(test_brlock__array_rollback),
		T(test_brlock__unlock_exact),
		T(test_brlock__io),
		T(test_brlock__waiters_order),
		T(test_brlock__owner_gone),
		T(test_brlock__waiter_freed),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
