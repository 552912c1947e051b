/*
 * Unit tests for the daemon's self-contained pieces: the credit window,
 * the failed-logon back-off and the shared receive buffers.
 * The .c is included (h2o's t/00unit style) because smbd is a program,
 * not a library.
 */
#include "source3/smbd/pipeline/credits.c"
#include "source3/smbd/session/logon_throttle.c"
#include "source3/smbd/transport/rbuf.c"
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

static struct timeval tv(long sec, long usec)
{
	return (struct timeval){ .tv_sec = sec, .tv_usec = usec };
}

/* The first failures cost nothing; then attempts are spaced out. */
static void test_throttle__backoff(void **state)
{
	struct smbd_throttle *t = smbd_throttle_new(*state);
	struct timeval now = tv(1000, 0), slot;
	int i;

	for (i = 0; i < SMBD_THROTTLE_FREE_FAILURES; i++) {
		slot = smbd_throttle_slot(t, "192.0.2.1", now);
		assert_int_equal(tevent_timeval_compare(&slot, &now), 0);
		smbd_throttle_failed(t, "192.0.2.1", now);
	}
	smbd_throttle_failed(t, "192.0.2.1", now);
	/* two attempts at once: the second waits for the first's slot */
	slot = smbd_throttle_slot(t, "192.0.2.1", now);
	assert_int_equal(slot.tv_sec, 1000);
	slot = smbd_throttle_slot(t, "192.0.2.1", now);
	assert_true(slot.tv_sec * 1000000 + slot.tv_usec ==
		    1000 * 1000000L + SMBD_THROTTLE_BASE_MS * 1000);
	/* another address is not affected */
	slot = smbd_throttle_slot(t, "192.0.2.2", now);
	assert_int_equal(tevent_timeval_compare(&slot, &now), 0);
	talloc_free(t);
}

static void test_throttle__cap_and_reset(void **state)
{
	struct smbd_throttle *t = smbd_throttle_new(*state);
	struct timeval now = tv(5000, 0), a, b;
	int i;

	for (i = 0; i < 100; i++) {
		smbd_throttle_failed(t, "::1", now);
	}
	assert_int_equal(smbd_throttle_failures(t, "::1"), 100);
	a = smbd_throttle_slot(t, "::1", now);
	b = smbd_throttle_slot(t, "::1", now);
	assert_int_equal(b.tv_sec - a.tv_sec, SMBD_THROTTLE_MAX_MS / 1000);
	smbd_throttle_succeeded(t, "::1");
	a = smbd_throttle_slot(t, "::1", now);
	assert_int_equal(tevent_timeval_compare(&a, &now), 0);
	talloc_free(t);
}

/* Old addresses are forgotten; the table never grows past its size. */
static void test_throttle__bounded(void **state)
{
	struct smbd_throttle *t = smbd_throttle_new(*state);
	char addr[32];
	int i;

	for (i = 0; i < 3 * SMBD_THROTTLE_MAX_ADDRS; i++) {
		snprintf(addr, sizeof(addr), "10.0.%d.%d", i / 256, i % 256);
		smbd_throttle_failed(t, addr, tv(100 + i, 0));
	}
	assert_true(t->n <= SMBD_THROTTLE_MAX_ADDRS);
	assert_int_equal(smbd_throttle_failures(t, "10.0.0.0"), 0);
	smbd_throttle_failed(t, "10.0.0.0",
			     tv(100 + SMBD_THROTTLE_FORGET_SECS * 10, 0));
	assert_int_equal(smbd_throttle_failures(t, "10.0.0.0"), 1);
	talloc_free(t);
}

/*
 * A shared receive buffer outlives the transport while PDUs hold it, and
 * goes with the last of them, in any order; the accounting follows.
 */
static void test_rbuf__last_reference_frees(void **state)
{
	struct smbd_rbufs *set = smbd_rbufs_new(*state);
	struct smbd_rbuf *rb = NULL, *rb2 = NULL;
	void *hold = smbd_rbuf_new(*state, set, 4096, &rb);
	void *pdu1 = NULL, *pdu2 = NULL, *hold2 = NULL;

	assert_non_null(hold);
	assert_int_equal((uintptr_t)rb->data % 16, 0);
	memset(rb->data, 0xAB, rb->size);       /* all of it is ours */
	pdu1 = smbd_rbuf_ref(*state, rb);
	pdu2 = smbd_rbuf_ref(*state, rb);
	assert_int_equal(rb->refs, 3);
	hold2 = smbd_rbuf_new(*state, set, 8192, &rb2);
	assert_int_equal(set->bytes, 4096 + 8192);
	assert_int_equal(set->peak, 4096 + 8192);
	talloc_free(hold);                      /* the transport moves on */
	assert_int_equal(rb->refs, 2);
	assert_int_equal(set->bytes, 4096 + 8192);
	talloc_free(pdu2);
	talloc_free(hold2);                     /* rb2 had no PDU: gone */
	assert_int_equal(set->bytes, 4096);
	assert_int_equal(rb->data[4095], 0xAB);
	talloc_free(pdu1);                      /* the last one */
	assert_int_equal(set->bytes, 0);
	assert_int_equal(set->peak, 4096 + 8192);
	talloc_free(set);
}

/* The connection goes first: PDUs still in flight keep their bytes. */
static void test_rbuf__outlives_its_set(void **state)
{
	struct smbd_rbufs *set = smbd_rbufs_new(*state);
	struct smbd_rbuf *rb = NULL;
	void *hold = smbd_rbuf_new(set, set, 100, &rb);
	void *pdu = NULL;

	assert_non_null(hold);
	pdu = smbd_rbuf_ref(*state, rb);
	rb->data[99] = 7;
	talloc_free(set);                       /* and hold with it */
	assert_null(rb->set);
	assert_int_equal(rb->refs, 1);
	assert_int_equal(rb->data[99], 7);
	talloc_free(pdu);                       /* ASan: freed, not leaked */
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
		T(test_throttle__backoff),
		T(test_throttle__cap_and_reset),
		T(test_throttle__bounded),
		T(test_rbuf__last_reference_frees),
		T(test_rbuf__outlives_its_set),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
