/*
 * Unit tests for CLOSE and FLUSH (close_codec.c), READ (read_codec.c),
 * WRITE (write_codec.c) and LOCK (lock_codec.c) in lib/smb2.
 */
#include "tests/unit/smb2_test_util.h"
#include "lib/util/byteorder.h"

/* Samba's answer to cap_close, captured with it. */
static const uint8_t cap_close_rsp[124] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x06, 0x00, 0x01, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7c, 0x3a, 0xbd, 0xe3, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00
};

/* ------------------------------------------------------------------ */
/* CLOSE, FLUSH                                                        */

static void test_close__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_close, sizeof(cap_close));
	struct smb2_close_req r;

	assert_true(IS_OK(smb2_close_req_pull(p, &r)));
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.file_id.persistent, 0x60fe9278);
	assert_int_equal(r.file_id.volatile_id, 0x0a71693c);
	check_truncations(cap_close, sizeof(cap_close), sizeof(cap_close));
	talloc_free(p);
}

static void test_close__rsp(void **state)
{
	struct smb2_close_rsp r = {};
	size_t len = 0;
	uint8_t *out = smb2_close_rsp_push(*state, &r, &len);

	assert_bytes(out, len, cap_close_rsp + SMB2_HDR_SIZE,
		     sizeof(cap_close_rsp) - SMB2_HDR_SIZE);
	talloc_free(out);
	r = (struct smb2_close_rsp){ .flags = SMB2_CLOSE_FLAGS_POSTQUERY_ATTRIB,
				     .end_of_file = 12,
				     .file_attributes = 0x20 };
	out = smb2_close_rsp_push(*state, &r, &len);
	assert_int_equal(len, 60);
	assert_int_equal(pull_le16(out + 2), 1);
	assert_int_equal(pull_le64(out + 48), 12);
	assert_int_equal(pull_le32(out + 56), 0x20);
	talloc_free(out);
}

static void test_flush__pull(void **state)
{
	uint8_t body[24] = { 24 };
	uint8_t buf[SMB2_HDR_SIZE + 24];
	struct smb2_flush_req r;
	struct smb2_pdu *p = NULL;

	push_le64(body + 8, 5);
	push_le64(body + 16, 6);
	mk_pdu(buf, SMB2_OP_FLUSH, 0, 0, body, sizeof(body));
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_flush_req_pull(p, &r)));
	assert_int_equal(r.file_id.persistent, 5);
	assert_int_equal(r.file_id.volatile_id, 6);
	check_truncations(buf, sizeof(buf), sizeof(buf));
	talloc_free(p);
}

/* ------------------------------------------------------------------ */
/* READ, WRITE                                                         */

static void test_read__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_read, sizeof(cap_read));
	struct smb2_read_req r;

	assert_true(IS_OK(smb2_read_req_pull(p, &r)));
	assert_int_equal(r.length, 12);
	assert_int_equal(r.offset, 0);
	assert_int_equal(r.file_id.persistent, 0x6f819262);
	assert_int_equal(r.file_id.volatile_id, 0x391ae0be);
	assert_int_equal(r.channel, SMB2_CHANNEL_NONE);
	assert_int_equal(r.channel_info.len, 0);
	check_truncations(cap_read, sizeof(cap_read), SMB2_HDR_SIZE + 48);
	talloc_free(p);
}

static void test_read__rsp(void **state)
{
	static const uint8_t want[] = { 0x11, 0x00, 0x50, 0x00, 0x0c, 0, 0, 0,
					0, 0, 0, 0, 0, 0, 0, 0 };
	struct smb2_read_rsp r = { .data_len = 12 };
	size_t len = 0;
	uint8_t *out = smb2_read_rsp_push(*state, &r, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
	r.data_len = 0;
	out = smb2_read_rsp_push(*state, &r, &len);
	assert_int_equal(len, 17);
	assert_int_equal(pull_le32(out + 4), 0);
	talloc_free(out);
}

static void test_write__pull(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 64];
	size_t len = mk_write(buf);
	struct smb2_pdu *p = carve1(*state, buf, len);
	struct smb2_write_req r;

	assert_true(IS_OK(smb2_write_req_pull(p, &r)));
	assert_int_equal(r.length, 5);
	assert_int_equal(r.offset, 3);
	assert_int_equal(r.file_id.volatile_id, 0x22);
	assert_int_equal(r.flags, SMB2_WRITEFLAG_WRITE_THROUGH);
	assert_memory_equal(r.data.data, "hello", 5);
	check_truncations(buf, len, len);
	push_le32(buf + SMB2_HDR_SIZE + 4, 6);		/* Length too long */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le32(buf + SMB2_HDR_SIZE + 4, 5);
	push_le16(buf + SMB2_HDR_SIZE + 2, 0x6F);	/* DataOffset low */
	assert_true(IS_IP(carve_pull(buf, len)));
	talloc_free(p);
}

/* Lengths and offsets that point outside the PDU (RELIABILITY 33). */
static void test_write__lying_lengths(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 64];
	size_t len = mk_write(buf);
	uint8_t *body = buf + SMB2_HDR_SIZE;
	struct smb2_pdu *p = NULL;
	struct smb2_write_req r;

	push_le32(body + 4, UINT32_MAX);	/* Length wraps */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le32(body + 4, 5);
	push_le16(body + 2, UINT16_MAX);	/* DataOffset past end */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(body + 2, 0);		/* into the header */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(body + 2, 0x71);		/* one byte too far */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(body + 2, 0x70);
	push_le16(body + 40, 0x70);	/* channel info 6 B */
	push_le16(body + 42, 6);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(body + 42, 0);
	push_le32(body + 4, 0);		/* Length 0: no data */
	push_le16(body + 2, 0);
	p = carve1(*state, buf, len);
	assert_true(IS_OK(smb2_write_req_pull(p, &r)));
	assert_null(r.data.data);
	assert_int_equal(r.data.len, 0);
	talloc_free(p);
}

static void test_write__rsp(void **state)
{
	static const uint8_t want[] = { 0x11, 0, 0, 0, 5, 0, 0, 0,
					0, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct smb2_write_rsp r = { .count = 5 };
	size_t len = 0;
	uint8_t *out = smb2_write_rsp_push(*state, &r, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
}

/* ------------------------------------------------------------------ */
/* LOCK                                                                */

static void test_lock__pull(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 24 + 3 * SMB2_LOCK_ELEMENT_SIZE];
	size_t len = mk_lock(buf, 2, 2);
	struct smb2_pdu *p = carve1(*state, buf, len);
	struct smb2_lock_req r;
	struct smb2_lock_element e;

	assert_true(IS_OK(smb2_lock_req_pull(p, &r)));
	assert_int_equal(r.lock_count, 2);
	assert_int_equal(r.lock_sequence_number, 5);
	assert_int_equal(r.lock_sequence_index, 3);
	smb2_lock_element_at(&r, 1, &e);
	assert_int_equal(e.offset, 100);
	assert_int_equal(e.length, 10);
	assert_int_equal(e.flags, SMB2_LOCKFLAG_EXCLUSIVE_LOCK);
	check_truncations(buf, len, len);
	talloc_free(p);

	len = mk_lock(buf, 0, 1);
	assert_true(IS_IP(carve_pull(buf, len)));
	len = mk_lock(buf, 3, 2);
	assert_true(IS_IP(carve_pull(buf, len)));
	len = mk_lock(buf, 0xFFFF, 3);
	assert_true(IS_IP(carve_pull(buf, len)));
}

/* ------------------------------------------------------------------ */

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

/*
 * The transport's view of a WRITE before its payload: header and fixed
 * body only.  Every shorter prefix, another command, an async header or
 * a wrong StructureSize is refused.
 */
static void test_write__head(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 64];
	size_t len = mk_write(buf);
	size_t head = SMB2_HDR_SIZE + 48;
	struct smb2_write_head w;
	size_t n;

	assert_true(len >= head);
	assert_true(NT_STATUS_IS_OK(smb2_write_head_pull(buf, head, &w)));
	assert_int_equal(w.hdr.command, SMB2_OP_WRITE);
	assert_int_equal(w.data_offset, pull_le16(buf + SMB2_HDR_SIZE + 2));
	assert_int_equal(w.length, pull_le32(buf + SMB2_HDR_SIZE + 4));
	for (n = 0; n < head; n++) {
		assert_true(IS_IP(smb2_write_head_pull(buf, n, &w)));
	}
	push_le16(buf + SMB2_HDR_OFS_COMMAND, SMB2_OP_READ);
	assert_true(IS_IP(smb2_write_head_pull(buf, head, &w)));
	push_le16(buf + SMB2_HDR_OFS_COMMAND, SMB2_OP_WRITE);
	push_le32(buf + SMB2_HDR_OFS_FLAGS, SMB2_FLAGS_ASYNC_COMMAND);
	assert_true(IS_IP(smb2_write_head_pull(buf, head, &w)));
	push_le32(buf + SMB2_HDR_OFS_FLAGS, 0);
	push_le16(buf + SMB2_HDR_SIZE, SMB2_WRITE_REQ_SIZE - 1);
	assert_true(IS_IP(smb2_write_head_pull(buf, head, &w)));
	push_le16(buf + SMB2_HDR_SIZE, SMB2_WRITE_REQ_SIZE);
	push_le32(buf, 0x424D53FD);			/* not 0xFE 'SMB' */
	assert_true(IS_IP(smb2_write_head_pull(buf, head, &w)));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_close__capture),
		T(test_close__rsp),
		T(test_flush__pull),
		T(test_read__capture),
		T(test_read__rsp),
		T(test_write__pull),
		T(test_write__lying_lengths),
		T(test_write__head),
		T(test_write__rsp),
		T(test_lock__pull),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
