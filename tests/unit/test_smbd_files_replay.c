/*
 * Channel sequence numbers (MS-SMB2 3.3.5.2.10, files/channel_seq.c):
 * the pure rule on an open's counters, and the references requests hold
 * until they are answered.
 */
#include <string.h>
#include "tests/unit/unit.h"
#include "source3/smbd/files/channel_seq.h"

#define OK NT_STATUS_OK
#define NA NT_STATUS_FILE_NOT_AVAILABLE

static void assert_nt(NTSTATUS got, NTSTATUS want)
{
	if (!NT_STATUS_EQUAL(got, want)) {
		fail_msg("%s, expected %s", nt_errstr(got), nt_errstr(want));
	}
}

/* One request, answered at once: only the refusal matters. */
static NTSTATUS one(struct smbd_csn *csn, uint16_t seq, bool replay)
{
	bool counted = false;
	uint32_t gen = 0;
	NTSTATUS status = smbd_csn_check(csn, seq, replay, true, &counted,
					 &gen);

	assert_true(counted == NT_STATUS_IS_OK(status));
	if (counted) {
		smbd_csn_release(csn, gen);
	}
	assert_int_equal(csn->outstanding, 0);
	assert_int_equal(csn->pre, 0);
	return status;
}

/* One request answered at once, beside others still in flight. */
static NTSTATUS one_beside(struct smbd_csn *csn, uint16_t seq)
{
	bool counted = false;
	uint32_t gen = 0;
	NTSTATUS status = smbd_csn_check(csn, seq, false, true, &counted,
					 &gen);

	if (counted) {
		smbd_csn_release(csn, gen);
	}
	return status;
}

/*
 * The sequence smbtorture smb2.replay.channel-sequence walks, with and
 * without the replay flag: newer is 1..0x7FFF ahead in 16-bit
 * arithmetic, equal is fine, anything else is stale.
 */
static void test_csn__table(void **state)
{
	static const struct {
		uint16_t seq;
		bool ok;
	} t[] = {
		{ 0, true }, { 0x8000, false }, { 0x8001, false },
		{ 0xC000, false }, { 0xFFFF, false }, { 0x7FFF, true },
		{ 0x7FFE, false }, { 0, false }, { 0x1234, false },
		{ 0x8000, true }, { 0xFFFF, true }, { 0, true }, { 1, true },
		{ 0, false }, { 1, true }, { 0xFFFF, false },
	};
	int replay;
	size_t i;

	(void)state;
	for (replay = 0; replay < 2; replay++) {
		struct smbd_csn csn = {};

		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			assert_nt(one(&csn, t[i].seq, replay),
				  t[i].ok ? OK : NA);
		}
		assert_int_equal(csn.seq, 1);
	}
}

/* Commands that do not modify run on a stale sequence, uncounted. */
static void test_csn__stale_read_runs(void **state)
{
	struct smbd_csn csn = { .seq = 5 };
	bool counted = true;
	uint32_t gen = 0;

	(void)state;
	assert_nt(smbd_csn_check(&csn, 4, false, false, &counted, &gen), OK);
	assert_false(counted);
	assert_int_equal(csn.seq, 5);
	assert_int_equal(csn.outstanding, 0);
	/* a READ at a newer sequence moves it (smb2.replay.replay4) */
	assert_nt(smbd_csn_check(&csn, 6, false, false, &counted, &gen), OK);
	assert_true(counted);
	assert_int_equal(csn.seq, 6);
	smbd_csn_release(&csn, gen);
	assert_nt(one(&csn, 5, false), NA);
}

/*
 * A replay may not overtake requests still in flight: at the current
 * sequence while older ones are outstanding, or moving the sequence
 * while any are.
 */
static void test_csn__replay_waits_for_older(void **state)
{
	struct smbd_csn csn = {};
	bool counted = false;
	uint32_t g0 = 0, g1 = 0, g2 = 0;

	(void)state;
	/* a WRITE at 0 in flight */
	assert_nt(smbd_csn_check(&csn, 0, false, true, &counted, &g0), OK);
	/* the client fails over: a new request at 1 */
	assert_nt(smbd_csn_check(&csn, 1, false, true, &counted, &g1), OK);
	assert_int_equal(csn.pre, 1);
	assert_int_equal(csn.outstanding, 1);
	/* its replay at 1 while the one at 0 is out: refused */
	assert_nt(smbd_csn_check(&csn, 1, true, true, &counted, &g2), NA);
	assert_false(counted);
	/* a replay moving on to 2: refused too, the counts move along */
	assert_nt(smbd_csn_check(&csn, 2, true, true, &counted, &g2), NA);
	assert_int_equal(csn.seq, 2);
	assert_int_equal(csn.pre, 2);
	assert_int_equal(csn.outstanding, 0);
	/* the old ones are answered: each leaves the pre count */
	smbd_csn_release(&csn, g0);
	smbd_csn_release(&csn, g1);
	assert_int_equal(csn.pre, 0);
	assert_nt(smbd_csn_check(&csn, 2, true, true, &counted, &g2), OK);
	assert_true(counted);
	smbd_csn_release(&csn, g2);
	assert_int_equal(csn.outstanding, 0);
}

/*
 * smb2.replay.replay7: a CHANGE_NOTIFY counted at 0 stays out while
 * the sequence goes 0 -> 30000 -> 60000 -> 0; answered then, it leaves
 * the pre count (its epoch is gone), never driving a count below 0.
 */
static void test_csn__epoch_not_value(void **state)
{
	struct smbd_csn csn = {};
	bool counted = false;
	uint32_t notify = 0;

	(void)state;
	assert_nt(smbd_csn_check(&csn, 0, false, false, &counted, &notify),
		  OK);
	assert_nt(one_beside(&csn, 30000), OK);
	assert_nt(one_beside(&csn, 60000), OK);
	assert_nt(one_beside(&csn, 0), OK);
	assert_int_equal(csn.pre, 1);
	smbd_csn_release(&csn, notify);
	assert_int_equal(csn.pre, 0);
	assert_int_equal(csn.outstanding, 0);
	/* releasing what was never there changes nothing */
	smbd_csn_release(&csn, notify);
	assert_int_equal(csn.pre, 0);
}

/* A request's reference: released when answered, or when freed. */
static void test_csn__request_refs(void **state)
{
	struct smbd_conn conn = { .dialect = SMB2_DIALECT_0311 };
	struct smb2_pdu pdu = {};
	struct smbd_open *open = talloc_zero(*state, struct smbd_open);
	struct smbd_request *r1 = talloc_zero(*state, struct smbd_request);
	struct smbd_request *r2 = talloc_zero(*state, struct smbd_request);

	r1->conn = r2->conn = &conn;
	r1->pdu = r2->pdu = &pdu;
	smbd_csn_init(open, 7);
	pdu.hdr.status = 7;
	assert_nt(smbd_csn_request(r1, open, true), OK);
	assert_nt(smbd_csn_request(r2, open, true), OK);
	assert_int_equal(open->csn.outstanding, 2);
	smbd_csn_answered(r1);
	assert_null(r1->csn_ref);
	assert_int_equal(open->csn.outstanding, 1);
	/* stale: refused, nothing held */
	pdu.hdr.status = 6;
	assert_nt(smbd_csn_request(r1, open, true), NA);
	assert_null(r1->csn_ref);
	/* the open goes first: the request's reference lets go */
	smbd_csn_open_gone(open);
	talloc_free(open);
	talloc_free(r2);
	/* 2.x has no channel sequence */
	conn.dialect = SMB2_DIALECT_0210;
	open = talloc_zero(*state, struct smbd_open);
	assert_nt(smbd_csn_request(r1, open, true), OK);
	assert_null(r1->csn_ref);
	talloc_free(open);
	talloc_free(r1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_csn__table, unit_setup,
						unit_teardown),
		cmocka_unit_test_setup_teardown(test_csn__stale_read_runs,
						unit_setup, unit_teardown),
		cmocka_unit_test_setup_teardown(
			test_csn__replay_waits_for_older, unit_setup,
			unit_teardown),
		cmocka_unit_test_setup_teardown(test_csn__epoch_not_value,
						unit_setup, unit_teardown),
		cmocka_unit_test_setup_teardown(test_csn__request_refs,
						unit_setup, unit_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
