/*
 * Unit tests for what every lib/smb2 codec stands on: the cursor and writer
 * (cursor.h), the SMB2 header (hdr.c), the per-opcode table (ops.c), compound
 * carving (compound.c) and UTF-16 (utf16.c).
 *
 * With SMB2_CORPUS_DIR set, test_corpus__write also writes the vectors
 * of every test_smb2_* program out as fuzz seeds
 * (tests/fuzz/corpus/<harness>/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "tests/unit/smb2_test_util.h"
#include "lib/smb2/cursor.h"

/* ------------------------------------------------------------------ */
/* cursor.h                                                            */

static void test_cursor__reads(void **state)
{
	static const uint8_t b[] = { 1, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12,
				     8, 7, 6, 5, 4, 3, 2, 1, 0xAA };
	struct smb2_cur c = smb2_cur_init(b, sizeof(b));

	assert_int_equal(smb2_cur_u8(&c), 1);
	assert_int_equal(smb2_cur_u16(&c), 0x1234);
	assert_int_equal(smb2_cur_u32(&c), 0x12345678);
	assert_true(smb2_cur_u64(&c) == 0x0102030405060708ULL);
	assert_int_equal(smb2_cur_left(&c), 1);
	assert_ptr_equal(smb2_cur_bytes(&c, 1), b + 15);
	assert_false(c.bad);
	assert_int_equal(smb2_cur_left(&c), 0);
}

static void test_cursor__sticky(void **state)
{
	static const uint8_t b[3] = { 1, 2, 3 };
	struct smb2_cur c = smb2_cur_init(b, sizeof(b));

	assert_int_equal(smb2_cur_u32(&c), 0);
	assert_true(c.bad);
	/* once bad, even a read that would fit returns 0 */
	assert_int_equal(smb2_cur_u8(&c), 0);
	assert_null(smb2_cur_bytes(&c, 0));
	assert_int_equal(smb2_cur_left(&c), 0);

	c = smb2_cur_init(b, sizeof(b));
	smb2_cur_skip(&c, SIZE_MAX);
	assert_true(c.bad);

	c = smb2_cur_init(b, sizeof(b));
	smb2_cur_seek(&c, 3);
	assert_false(c.bad);
	smb2_cur_seek(&c, 4);
	assert_true(c.bad);

	c = smb2_cur_init(NULL, 0);
	(void)smb2_cur_bytes(&c, 0);
	assert_false(c.bad);
	(void)smb2_cur_u8(&c);
	assert_true(c.bad);
}

static void test_writer__basic(void **state)
{
	static const uint8_t want[] = { 0xAB, 0x34, 0x12, 0x78, 0x56, 0x34,
					0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF,
					0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99,
					0x88 };
	uint8_t buf[sizeof(want)];
	struct smb2_wr w = smb2_wr_init(buf, sizeof(buf));

	smb2_wr_u8(&w, 0xAB);
	smb2_wr_u16(&w, 0x1234);
	smb2_wr_u32(&w, 0x12345678);
	smb2_wr_align(&w, 8);
	assert_int_equal(w.ofs, 8);
	smb2_wr_align(&w, 8);
	assert_int_equal(w.ofs, 8);
	smb2_wr_zero(&w, 7);
	smb2_wr_u64(&w, 0x8899AABBCCDDEEFFULL);
	assert_false(w.overflow);
	assert_memory_equal(buf, want, sizeof(want));
	smb2_wr_u8(&w, 1);
	assert_true(w.overflow);
	assert_int_equal(w.ofs, sizeof(want));
}

static void test_writer__overflow_writes_nothing(void **state)
{
	uint8_t buf[4] = { 9, 9, 9, 9 };
	struct smb2_wr w = smb2_wr_init(buf, 3);

	smb2_wr_u32(&w, 0);
	assert_true(w.overflow);
	assert_int_equal(buf[0], 9);
	smb2_wr_u8(&w, 0);	/* sticky: even a fitting write is refused */
	assert_int_equal(buf[0], 9);
}

/* ------------------------------------------------------------------ */
/* Header                                                              */

static void test_hdr__sync_roundtrip(void **state)
{
	struct smb2_hdr h = { .credit_charge = 1, .status = 0xC000000D,
			      .command = SMB2_OP_READ, .credit = 31,
			      .flags = SMB2_FLAGS_SERVER_TO_REDIR,
			      .next_command = 0, .message_id = 0x1122334455,
			      .process_id = 0xFEFF, .tree_id = 5,
			      .session_id = 0x99, .signature = { 1, 2 } };
	struct smb2_hdr o;
	uint8_t buf[SMB2_HDR_SIZE];

	smb2_hdr_push(&h, buf);
	assert_int_equal(buf[0], 0xFE);
	assert_memory_equal(buf + 1, "SMB", 3);
	assert_int_equal(buf[4], 64);
	assert_int_equal(pull_le32(buf + 0x24), 5);
	assert_true(IS_OK(smb2_hdr_pull(buf, sizeof(buf), &o)));
	assert_memory_equal(&o, &h, sizeof(h));
}

static void test_hdr__async_roundtrip(void **state)
{
	struct smb2_hdr h = { .command = SMB2_OP_CHANGE_NOTIFY,
			      .flags = SMB2_FLAGS_SERVER_TO_REDIR |
				       SMB2_FLAGS_ASYNC_COMMAND,
			      .status = 0x103, .message_id = 3,
			      .async_id = 0xAABBCCDDEEFF0011ULL };
	struct smb2_hdr o;
	uint8_t buf[SMB2_HDR_SIZE];

	smb2_hdr_push(&h, buf);
	assert_true(pull_le64(buf + 0x20) == 0xAABBCCDDEEFF0011ULL);
	assert_true(IS_OK(smb2_hdr_pull(buf, sizeof(buf), &o)));
	assert_memory_equal(&o, &h, sizeof(h));
}

static void test_hdr__rejects(void **state)
{
	struct smb2_hdr h = {};
	struct smb2_hdr o;
	uint8_t buf[SMB2_HDR_SIZE];

	smb2_hdr_push(&h, buf);
	assert_true(IS_IP(smb2_hdr_pull(buf, SMB2_HDR_SIZE - 1, &o)));
	buf[4] = 63;
	assert_true(IS_IP(smb2_hdr_pull(buf, sizeof(buf), &o)));
	buf[4] = 64;
	buf[0] = 0xFD;
	assert_true(IS_IP(smb2_hdr_pull(buf, sizeof(buf), &o)));
	buf[0] = 0xFF;
	assert_true(IS_IP(smb2_hdr_pull(buf, sizeof(buf), &o)));
}

static void test_hdr__channel_sequence(void **state)
{
	struct smb2_hdr h = { .status = 0x00000007 };

	assert_int_equal(smb2_hdr_channel_sequence(&h), 7);
	h.status = 0xBEEF0102;
	assert_int_equal(smb2_hdr_channel_sequence(&h), 0x0102);
}

static void test_hdr__set_next_command(void **state)
{
	struct smb2_hdr h = { .command = SMB2_OP_ECHO, .message_id = 5 };
	struct smb2_hdr back;
	uint8_t buf[SMB2_HDR_SIZE];

	smb2_hdr_push(&h, buf);
	smb2_hdr_set_next_command(buf, 0x68);
	assert_int_equal(pull_le32(buf + 0x14), 0x68);
	assert_true(IS_OK(smb2_hdr_pull(buf, sizeof(buf), &back)));
	assert_int_equal(back.next_command, 0x68);
	assert_int_equal(back.message_id, 5);
	assert_int_equal(back.command, SMB2_OP_ECHO);
}

static void test_ops__table(void **state)
{
	assert_int_equal(smb2_req_struct_size(SMB2_OP_NEGPROT), 36);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_SESSSETUP), 25);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_TCON), 9);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_CREATE), 57);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_READ), 49);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_LOCK), 48);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_QUERY_INFO), 41);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_OPLOCK_BREAK), 24);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_COUNT), 0);
	assert_string_equal(smb2_op_name(SMB2_OP_READ), "READ");
	assert_string_equal(smb2_op_name(0xFFFF), "UNKNOWN");
}

/* ------------------------------------------------------------------ */
/* Compound carving                                                    */

/* Three ECHOs: 72 + 72 + 68 bytes (the last one unpadded). */
static size_t mk_three_echoes(uint8_t *buf)
{
	size_t len = 0;

	memset(buf, 0, 212);
	len = mk_pdu(buf, SMB2_OP_ECHO, 72, 0, echo_body, 4);
	len = 72 + mk_pdu(buf + 72, SMB2_OP_ECHO, 72,
			  SMB2_FLAGS_RELATED_OPERATIONS, echo_body, 4);
	len = 144 + mk_pdu(buf + 144, SMB2_OP_ECHO, 0,
			   SMB2_FLAGS_RELATED_OPERATIONS, echo_body, 4);
	assert_int_equal(len, 212);
	return len;
}

static NTSTATUS carve_guarded(TALLOC_CTX *ctx, const uint8_t *buf,
			      size_t len, struct smb2_pdu **pdus, size_t *n)
{
	uint8_t *g = guard_dup(buf, len);
	NTSTATUS status = smb2_compound_carve(ctx, g, len, pdus, n);

	/* the pdus point into g: only the status is used after this */
	guard_free(g);
	return status;
}

static void test_compound__three(void **state)
{
	uint8_t buf[212];
	size_t len = mk_three_echoes(buf);
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;
	size_t i = 0;

	assert_true(IS_OK(smb2_compound_carve(*state, buf, len, &pdus, &n)));
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		assert_true(IS_OK(pdus[i].status));
		assert_ptr_equal(pdus[i].buf, buf + 72 * i);
		assert_int_equal(pdus[i].body_len, 4);
		assert_int_equal(pdus[i].dyn_ofs, 68);
		assert_true(IS_OK(smb2_echo_req_pull(&pdus[i])));
		assert_int_equal(pdus[i].hdr.message_id, 7);
	}
	assert_int_equal(pdus[0].len, 72);
	assert_int_equal(pdus[0].dyn_len, 4);	/* the padding */
	assert_int_equal(pdus[2].len, 68);
	assert_int_equal(pdus[2].dyn_len, 0);
	assert_true(pdus[1].hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS);
	talloc_free(pdus);
}

static void set_next(uint8_t *elem, uint32_t next)
{
	push_le32(elem + SMB2_HDR_OFS_NEXT_COMMAND, next);
}

static void test_compound__bad_next_command(void **state)
{
	static const uint32_t bad[] = { 68, 76, 65, 64, 8, 1, 212, 213,
					0xFFFFFFF8, 0x80000000 };
	uint8_t buf[212];
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;
	size_t i = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = mk_three_echoes(buf);

		set_next(buf, bad[i]);
		assert_true(IS_IP(carve_guarded(*state, buf, len, &pdus, &n)));
	}
	/* second element pointing past the end, or wrapping */
	mk_three_echoes(buf);
	set_next(buf + 72, 144);
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	set_next(buf + 72, 0xFFFFFFF8);
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	/* a compound cut short after a NextCommand */
	mk_three_echoes(buf);
	assert_true(IS_IP(carve_guarded(*state, buf, 72 + 63, &pdus, &n)));
	assert_true(IS_IP(carve_guarded(*state, buf, 72, &pdus, &n)));
}

static void test_compound__bad_framing(void **state)
{
	uint8_t buf[212];
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;

	mk_three_echoes(buf);
	buf[72] = 0xFD;			/* transform id inside a compound */
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	mk_three_echoes(buf);
	push_le16(buf + 72 + SMB2_HDR_OFS_COMMAND, SMB2_OP_COUNT);
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	push_le16(buf + 72 + SMB2_HDR_OFS_COMMAND, 0xFFFF);
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	assert_true(IS_IP(carve_guarded(*state, buf, 0, &pdus, &n)));
	assert_true(IS_IP(carve_guarded(*state, buf, 63, &pdus, &n)));
}

/* A per-element problem fails only that element (RELIABILITY item 6). */
static void test_compound__element_status(void **state)
{
	uint8_t buf[212];
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;

	mk_three_echoes(buf);
	buf[72 + SMB2_HDR_SIZE] = 5;		/* body StructureSize */
	buf[144 + SMB2_HDR_OFS_STRUCTURE_SIZE] = 63;
	assert_true(IS_OK(smb2_compound_carve(*state, buf, 212, &pdus, &n)));
	assert_int_equal(n, 3);
	assert_true(IS_OK(pdus[0].status));
	assert_true(IS_IP(pdus[1].status));
	assert_true(IS_IP(pdus[2].status));
	assert_int_equal(pdus[1].body_len, 0);
	assert_null(pdus[1].body);
	assert_true(IS_IP(smb2_echo_req_pull(&pdus[1])));
	assert_true(IS_IP(smb2_echo_req_pull(&pdus[2])));
	/* the pull of another opcode on a good element fails too */
	assert_true(IS_IP(smb2_logoff_req_pull(&pdus[0])));
	talloc_free(pdus);
}

static void test_compound__body_short(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 64] = {};
	struct smb2_pdu *p = NULL;
	uint8_t lock_body[48] = { 48, 0, 1, 0 };

	mk_pdu(buf, SMB2_OP_ECHO, 0, 0, echo_body, 4);
	p = carve1(*state, buf, SMB2_HDR_SIZE + 3);
	assert_true(IS_IP(p->status));
	p = carve1(*state, buf, SMB2_HDR_SIZE + 1);
	assert_true(IS_IP(p->status));
	p = carve1(*state, buf, SMB2_HDR_SIZE);
	assert_true(IS_IP(p->status));
	/* LOCK: 48 counts one element; 47 bytes of body is short */
	mk_pdu(buf, SMB2_OP_LOCK, 0, 0, lock_body, 48);
	p = carve1(*state, buf, SMB2_HDR_SIZE + 47);
	assert_true(IS_IP(p->status));
	p = carve1(*state, buf, SMB2_HDR_SIZE + 48);
	assert_true(IS_OK(p->status));
	talloc_free_children(*state);
}

static void test_compound__wrong_struct_size_all_ops(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 128] = {};
	uint16_t op = 0;

	for (op = 0; op < SMB2_OP_COUNT; op++) {
		uint16_t want = smb2_req_struct_size(op);
		struct smb2_pdu *p = NULL;

		memset(buf, 0, sizeof(buf));
		mk_pdu(buf, op, 0, 0, echo_body, 0);
		push_le16(buf + SMB2_HDR_SIZE, want);
		p = carve1(*state, buf, sizeof(buf));
		assert_true(IS_OK(p->status));
		push_le16(buf + SMB2_HDR_SIZE, want + 1);
		p = carve1(*state, buf, sizeof(buf));
		assert_true(IS_IP(p->status));
		/* body one byte short of the fixed part */
		push_le16(buf + SMB2_HDR_SIZE, want);
		p = carve1(*state, buf, SMB2_HDR_SIZE + (want & ~1) - 1);
		assert_true(IS_IP(p->status));
	}
	talloc_free_children(*state);
}

static void test_compound__oplock_break_sizes(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 36] = {};
	struct smb2_pdu *p = NULL;
	struct smb2_oplock_break_req r;

	mk_pdu(buf, SMB2_OP_OPLOCK_BREAK, 0, 0, echo_body, 0);
	push_le16(buf + SMB2_HDR_SIZE, 36);
	buf[SMB2_HDR_SIZE + 8] = 0x5A;		/* LeaseKey[0] */
	push_le32(buf + SMB2_HDR_SIZE + 24, SMB2_LEASE_READ_CACHING);
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_oplock_break_req_pull(p, &r)));
	assert_true(r.is_lease);
	assert_int_equal(r.lease_key[0], 0x5A);
	assert_int_equal(r.lease_state, SMB2_LEASE_READ_CACHING);

	push_le16(buf + SMB2_HDR_SIZE, 24);
	buf[SMB2_HDR_SIZE + 2] = SMB2_OPLOCK_LEVEL_II;
	push_le64(buf + SMB2_HDR_SIZE + 8, 77);
	p = carve1(*state, buf, SMB2_HDR_SIZE + 24);
	assert_true(IS_OK(smb2_oplock_break_req_pull(p, &r)));
	assert_false(r.is_lease);
	assert_int_equal(r.oplock_level, SMB2_OPLOCK_LEVEL_II);
	assert_int_equal(r.file_id.persistent, 77);

	push_le16(buf + SMB2_HDR_SIZE, 44);
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_IP(p->status));
	talloc_free_children(*state);
}

static void test_compound__max_elements(void **state)
{
	const size_t max = SMB2_COMPOUND_MAX;
	uint8_t *buf = talloc_zero_array(*state, uint8_t, (max + 1) * 72);
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;
	size_t i = 0;

	for (i = 0; i <= max; i++) {
		mk_pdu(buf + 72 * i, SMB2_OP_ECHO, i < max ? 72 : 0, 0,
		       echo_body, 4);
	}
	assert_true(IS_IP(smb2_compound_carve(*state, buf, (max + 1) * 72 - 4,
					      &pdus, &n)));
	set_next(buf + 72 * (max - 1), 0);
	assert_true(IS_OK(smb2_compound_carve(*state, buf, max * 72 - 4,
					      &pdus, &n)));
	assert_int_equal(n, max);
	talloc_free(pdus);
	talloc_free(buf);
}

static void test_compound__dyn_accessor(void **state)
{
	uint8_t buf[200] = {};
	struct smb2_pdu pdu = { .buf = buf, .len = 150, .dyn_ofs = 100,
				.dyn_len = 50 };
	const uint8_t *p = NULL;

	assert_true(IS_OK(smb2_pdu_dyn(&pdu, 0, 0, &p)));
	assert_null(p);
	assert_true(IS_OK(smb2_pdu_dyn(&pdu, 0xFFFFFFFF, 0, &p)));
	assert_null(p);
	assert_true(IS_OK(smb2_pdu_dyn(&pdu, 100, 50, &p)));
	assert_ptr_equal(p, buf + 100);
	assert_true(IS_OK(smb2_pdu_dyn(&pdu, 149, 1, &p)));
	assert_ptr_equal(p, buf + 149);
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 100, 51, &p)));
	assert_null(p);
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 150, 1, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 99, 1, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 0, 1, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 0xFFFFFFFF, 1, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 101, 0xFFFFFFFF, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 0xFFFFFFF0, 0x20, &p)));
}

/* ------------------------------------------------------------------ */
/* UTF-16                                                              */

static NTSTATUS u16(TALLOC_CTX *ctx, const uint8_t *p, size_t len,
		    char **out)
{
	uint8_t *g = guard_dup(p, len);
	NTSTATUS status = smb2_utf16_to_utf8(ctx, g, len, out);

	guard_free(g);
	return status;
}

static void test_utf16__to_utf8(void **state)
{
	/* "aé€😀" */
	static const uint8_t s[] = { 'a', 0, 0xe9, 0, 0xac, 0x20,
				     0x3d, 0xd8, 0x00, 0xde };
	static const uint8_t hi_end[] = { 'a', 0, 0x3d, 0xd8 };
	static const uint8_t hi_bmp[] = { 0x3d, 0xd8, 'a', 0 };
	static const uint8_t lo[] = { 0x00, 0xde, 'a', 0 };
	static const uint8_t nul[] = { 'a', 0, 0, 0, 'b', 0 };
	static const uint8_t hi_hi[] = { 0x3d, 0xd8, 0x3d, 0xd8 };
	char *out = NULL;

	assert_true(IS_OK(u16(*state, s, sizeof(s), &out)));
	assert_string_equal(out, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	talloc_free(out);
	assert_true(IS_OK(u16(*state, s, 0, &out)));
	assert_string_equal(out, "");
	talloc_free(out);
	assert_true(IS_IP(u16(*state, s, 3, &out)));
	assert_true(IS_IP(u16(*state, hi_end, sizeof(hi_end), &out)));
	assert_true(IS_IP(u16(*state, hi_bmp, sizeof(hi_bmp), &out)));
	assert_true(IS_IP(u16(*state, lo, sizeof(lo), &out)));
	assert_true(IS_IP(u16(*state, nul, sizeof(nul), &out)));
	assert_true(IS_IP(u16(*state, hi_hi, sizeof(hi_hi), &out)));
	/* a pair cut in half by truncation */
	assert_true(IS_IP(u16(*state, s, 8, &out)));
}

static NTSTATUS u8(TALLOC_CTX *ctx, const char *s, uint8_t **out,
		   size_t *len)
{
	return smb2_utf8_to_utf16(ctx, s, strlen(s), out, len);
}

static void test_utf16__from_utf8(void **state)
{
	static const char *const bad[] = {
		"\xc0\xaf",		/* overlong '/' */
		"\xe0\x80\xaf",		/* overlong, 3 bytes */
		"\xf0\x80\x80\xaf",	/* overlong, 4 bytes */
		"\xed\xa0\x80",		/* encoded surrogate */
		"\xf4\x90\x80\x80",	/* past U+10FFFF */
		"\xe2\x82",		/* truncated */
		"\x80",			/* bare continuation */
		"a\xff",
	};
	static const uint8_t want[] = { 'a', 0, 0xe9, 0, 0xac, 0x20,
					0x3d, 0xd8, 0x00, 0xde };
	uint8_t *out = NULL;
	char *back = NULL;
	size_t len = 0;
	size_t i = 0;

	assert_true(IS_OK(u8(*state, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
			     &out, &len)));
	assert_bytes(out, len, want, sizeof(want));
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, out, len, &back)));
	assert_string_equal(back, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	talloc_free(back);
	talloc_free(out);
	assert_true(IS_OK(u8(*state, "", &out, &len)));
	assert_int_equal(len, 0);
	talloc_free(out);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(IS_IP(u8(*state, bad[i], &out, &len)));
	}
	assert_true(IS_IP(smb2_utf8_to_utf16(*state, "a\0b", 3, &out, &len)));
}

/* ------------------------------------------------------------------ */
/* Fuzz seeds                                                          */

static void write_seed(const char *dir, const char *sub, const char *name,
		       const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* SMB2_CORPUS_DIR=tests/fuzz/corpus build/tests/unit/test_smb2_frame */
static void test_corpus__write(void **state)
{
	static const char *const win7[] = { "NT LM 0.12", "SMB 2.002",
					    "SMB 2.???" };
	const char *dir = getenv("SMB2_CORPUS_DIR");
	uint8_t buf[SMB2_HDR_SIZE + 1100];
	static const struct {
		const char *name;
		const uint8_t *buf;
		size_t len;
	} caps[] = {
#define CAP(x) { #x, x, sizeof(x) }
		CAP(cap_negprot), CAP(cap_sesssetup), CAP(cap_tcon),
		CAP(cap_ioctl), CAP(cap_create_root), CAP(cap_create_f),
		CAP(cap_querydir), CAP(cap_close), CAP(cap_queryinfo),
		CAP(cap_read), CAP(cap_tdis), CAP(cap_negprot_smb2),
#undef CAP
	};
	size_t i = 0;

	if (dir == NULL) {
		skip();
	}
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		write_seed(dir, "smb2_request", caps[i].name, caps[i].buf,
			   caps[i].len);
	}
	write_seed(dir, "smb2_request", "three_echoes", buf,
		   mk_three_echoes(buf));
	write_seed(dir, "smb2_request", "create_ctx", buf,
		   mk_create_with_ctx(buf));
	write_seed(dir, "smb2_request", "write", buf, mk_write(buf));
	write_seed(dir, "smb2_request", "lock", buf, mk_lock(buf, 3, 3));
	write_seed(dir, "negotiate", "smbclient_311", cap_negprot,
		   sizeof(cap_negprot));
	write_seed(dir, "negotiate", "smbclient_202", cap_negprot_smb2,
		   sizeof(cap_negprot_smb2));
	write_seed(dir, "negotiate", "smb1_win7", buf,
		   mk_smb1_negprot(buf, win7, 3));
	write_seed(dir, "create_ctx", "mxac_dh2q", ctx_chain,
		   sizeof(ctx_chain));
	write_seed(dir, "create_ctx", "alsi_qfid", ctx_alsi_qfid,
		   sizeof(ctx_alsi_qfid));
	write_seed(dir, "notify_info", "three", notify_three,
		   sizeof(notify_three));
}

/* ------------------------------------------------------------------ */

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_cursor__reads),
		T(test_cursor__sticky),
		T(test_writer__basic),
		T(test_writer__overflow_writes_nothing),
		T(test_hdr__sync_roundtrip),
		T(test_hdr__async_roundtrip),
		T(test_hdr__rejects),
		T(test_hdr__channel_sequence),
		T(test_hdr__set_next_command),
		T(test_ops__table),
		T(test_compound__three),
		T(test_compound__bad_next_command),
		T(test_compound__bad_framing),
		T(test_compound__element_status),
		T(test_compound__body_short),
		T(test_compound__wrong_struct_size_all_ops),
		T(test_compound__oplock_break_sizes),
		T(test_compound__max_elements),
		T(test_compound__dyn_accessor),
		T(test_utf16__to_utf8),
		T(test_utf16__from_utf8),
		T(test_corpus__write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
