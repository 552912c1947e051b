/*
 * Unit tests for the oplock decision table (source3/smbd/files/oplock.c,
 * smbd_oplock_decide), and the file waiters' wake-up order and
 * withdrawal.  The .c is included because smbd is a program, not a
 * library; the smbd functions it calls are stubbed here.
 */
#include "source3/smbd/files/oplock.c"
#include "tests/unit/unit.h"

static struct smbd_file *stub_file;
static unsigned stub_breaks_sent;

struct smbd_file *smbd_file_find(struct smbd_server *server,
				 const struct statx *st)
{
	return stub_file;
}

void smbd_oplock_send_break(struct smbd_open *open, uint8_t level)
{
	stub_breaks_sent++;
}

bool smbd_kernel_oplocks(const struct lp_share *share)
{
	return false;
}

void smbd_kernel_oplock_release(struct smbd_open *open)
{
}

/* lease.c: not linked here (test_smbd_files_lease covers it) */
void smbd_lease_detach(struct smbd_open *open)
{
}

void smbd_lease_contend_level2(struct smbd_open *open)
{
}

#define N SMB2_OPLOCK_LEVEL_NONE
#define L2 SMB2_OPLOCK_LEVEL_II
#define X SMB2_OPLOCK_LEVEL_EXCLUSIVE
#define B SMB2_OPLOCK_LEVEL_BATCH
#define LEASE SMB2_OPLOCK_LEVEL_LEASE

/* an open request on a share with oplocks and level II on */
static struct smbd_oplock_in req(uint8_t requested, size_t others,
				 uint8_t held)
{
	return (struct smbd_oplock_in) {
		.requested = requested, .oplocks = true, .level2 = true,
		.others = others, .held = held,
	};
}

static struct smbd_oplock_out decide(struct smbd_oplock_in in)
{
	struct smbd_oplock_out out;

	smbd_oplock_decide(&in, &out);
	return out;
}

static void test_oplock__lone_opener(void **state)
{
	assert_int_equal(decide(req(B, 0, N)).grant, B);
	assert_int_equal(decide(req(X, 0, N)).grant, X);
	assert_int_equal(decide(req(L2, 0, N)).grant, L2);
	assert_int_equal(decide(req(N, 0, N)).grant, N);
	/* leases are not granted, unknown levels get nothing */
	assert_int_equal(decide(req(LEASE, 0, N)).grant, N);
	assert_int_equal(decide(req(0x05, 0, N)).grant, N);
	assert_false(decide(req(B, 0, N)).break_exclusive);
}

static void test_oplock__others_without_exclusive(void **state)
{
	struct smbd_oplock_out o = decide(req(B, 1, N));

	assert_int_equal(o.grant, L2);
	assert_false(o.break_exclusive);
	assert_false(o.break_level2);
	assert_int_equal(decide(req(X, 3, L2)).grant, L2);
	assert_int_equal(decide(req(L2, 1, L2)).grant, L2);
	assert_int_equal(decide(req(N, 1, L2)).grant, N);
	/* only stat opens, one of them holding level II (it created) */
	assert_int_equal(decide(req(B, 0, L2)).grant, L2);
}

static void test_oplock__exclusive_holder_is_broken(void **state)
{
	uint8_t held[] = { X, B };
	size_t i;

	for (i = 0; i < 2; i++) {
		struct smbd_oplock_out o = decide(req(B, 1, held[i]));

		assert_true(o.break_exclusive);
		assert_int_equal(o.break_to, L2);
		assert_int_equal(o.grant, N);  /* decided after the wait */
	}
}

static void test_oplock__truncation_breaks_to_none(void **state)
{
	struct smbd_oplock_in in = req(L2, 1, B);
	struct smbd_oplock_out o;

	in.truncates = true;
	o = decide(in);
	assert_true(o.break_exclusive);
	assert_int_equal(o.break_to, N);
	/* level II holders go to none without a wait */
	in.held = L2;
	o = decide(in);
	assert_false(o.break_exclusive);
	assert_true(o.break_level2);
	assert_int_equal(o.grant, L2);
	/* a plain open leaves level II alone */
	assert_false(decide(req(L2, 1, L2)).break_level2);
}

static void test_oplock__sharing_violation(void **state)
{
	struct smbd_oplock_in in = req(B, 1, B);
	struct smbd_oplock_out o;

	in.sharing_violation = true;
	o = decide(in);
	assert_true(o.break_exclusive);         /* batch: break first */
	assert_int_equal(o.grant, N);
	in.held = X;
	o = decide(in);
	assert_false(o.break_exclusive);        /* the violation stands */
	assert_int_equal(o.grant, N);
	in.held = L2;
	in.truncates = true;
	assert_false(decide(in).break_level2);
	in.others = 0;
	in.held = N;
	assert_int_equal(decide(in).grant, N);
}

static void test_oplock__stat_open(void **state)
{
	struct smbd_oplock_in in = req(B, 1, B);
	struct smbd_oplock_out o;

	in.stat_open = true;
	o = decide(in);
	assert_false(o.break_exclusive);
	assert_false(o.break_level2);
	assert_int_equal(o.grant, N);
	in.others = 0;
	assert_int_equal(decide(in).grant, N);
}

static void test_oplock__directory(void **state)
{
	struct smbd_oplock_in in = req(B, 0, N);

	in.is_dir = true;
	assert_int_equal(decide(in).grant, N);
}

static void test_oplock__share_parameters(void **state)
{
	struct smbd_oplock_in in = req(B, 0, N);

	in.level2 = false;
	assert_int_equal(decide(in).grant, B);
	in.requested = L2;
	assert_int_equal(decide(in).grant, N);
	in.requested = B;
	in.others = 1;
	assert_int_equal(decide(in).grant, N);
	/* no level II: an exclusive holder is broken to none */
	in.held = X;
	assert_int_equal(decide(in).break_to, N);
	in = req(B, 0, N);
	in.oplocks = false;
	assert_int_equal(decide(in).grant, N);
}

/* ---- waiters ---- */

static void wake_count(void *private_data)
{
	(*(unsigned *)private_data)++;
}

static void wake_free_self(void *private_data)
{
	struct smbd_oplock_waiter **w = private_data;

	TALLOC_FREE(*w);
}

static void test_oplock__waiters(void **state)
{
	struct smbd_file *f = talloc_zero(*state, struct smbd_file);
	struct smbd_server *server = talloc_zero(*state, struct smbd_server);
	struct smbd_open holder = {};
	struct smbd_oplock_break brk = {};
	struct statx st = {};
	unsigned woken = 0;
	struct smbd_oplock_waiter *w1 = NULL, *w2 = NULL, *w3 = NULL;

	server->ev = tevent_context_init(server);
	assert_non_null(server->ev);
	/* a break in progress: the waiters wait for it, nothing polls */
	holder.oplock_break = &brk;
	f->opens = &holder;
	stub_file = f;
	w1 = smbd_oplock_wait(*state, server, &st, wake_count, &woken);
	w2 = smbd_oplock_wait(*state, server, &st, wake_free_self, &w2);
	w3 = smbd_oplock_wait(*state, server, &st, wake_count, &woken);
	assert_non_null(w1);
	assert_non_null(w2);
	assert_non_null(w3);
	/* withdrawn before the change: not told */
	TALLOC_FREE(w3);
	wake_all(f);
	assert_int_equal(woken, 1);
	assert_null(w2);
	assert_null(f->oplock_waiters);
	/* woken once only */
	wake_all(f);
	assert_int_equal(woken, 1);
	TALLOC_FREE(w1);
	/*
	 * nothing of ours will end (a lease held outside smbd, or no open
	 * left): the waiter looks again after SMBD_OPLOCK_POLL_USECS
	 */
	stub_file = NULL;
	w1 = smbd_oplock_wait(*state, server, &st, wake_count, &woken);
	assert_non_null(w1);
	assert_int_equal(tevent_loop_once(server->ev), 0);
	assert_int_equal(woken, 2);
	TALLOC_FREE(w1);
	/* withdrawn before it polls: not told */
	w1 = smbd_oplock_wait(*state, server, &st, wake_count, &woken);
	TALLOC_FREE(w1);
	f->opens = NULL;
	TALLOC_FREE(f);
	TALLOC_FREE(server);
	assert_int_equal(woken, 2);
	assert_int_equal(stub_breaks_sent, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, unit_setup, unit_teardown)
		T(test_oplock__lone_opener),
		T(test_oplock__others_without_exclusive),
		T(test_oplock__exclusive_holder_is_broken),
		T(test_oplock__truncation_breaks_to_none),
		T(test_oplock__sharing_violation),
		T(test_oplock__stat_open),
		T(test_oplock__directory),
		T(test_oplock__share_parameters),
		T(test_oplock__waiters),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
