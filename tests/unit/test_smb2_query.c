/*
 * Unit tests for IOCTL (ioctl_codec.c) and for QUERY_DIRECTORY,
 * QUERY_INFO, SET_INFO and CHANGE_NOTIFY (query_codec.c) in lib/smb2.
 */
#include "tests/unit/smb2_test_util.h"
#include "lib/util/byteorder.h"

/* ------------------------------------------------------------------ */
/* IOCTL                                                               */

static void test_ioctl__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_ioctl, sizeof(cap_ioctl));
	struct smb2_ioctl_req r;

	assert_true(IS_OK(smb2_ioctl_req_pull(p, &r)));
	assert_int_equal(r.ctl_code, FSCTL_DFS_GET_REFERRALS);
	assert_true(r.file_id.persistent == SMB2_FILE_ID_RELATED);
	assert_int_equal(r.input.len, 0x1c);
	assert_ptr_equal(r.input.data, p->buf + 0x78);
	assert_int_equal(r.output.len, 0);
	assert_int_equal(r.max_output_response, 0xffff);
	assert_int_equal(r.flags, SMB2_0_IOCTL_IS_FSCTL);
	check_truncations(cap_ioctl, sizeof(cap_ioctl), sizeof(cap_ioctl));
	talloc_free(p);
}

static void test_ioctl__rsp(void **state)
{
	static const uint8_t outb[3] = { 0xA, 0xB, 0xC };
	static const uint8_t inb[2] = { 0x1, 0x2 };
	struct smb2_ioctl_rsp r = { .ctl_code = FSCTL_VALIDATE_NEGOTIATE_INFO,
				    .file_id = { 1, 2 },
				    .output = { outb, 3 },
				    .flags = 0 };
	size_t len = 0;
	uint8_t *out = smb2_ioctl_rsp_push(*state, &r, &len);

	assert_int_equal(len, 48 + 3);
	assert_int_equal(pull_le16(out), 49);
	assert_int_equal(pull_le32(out + 4), FSCTL_VALIDATE_NEGOTIATE_INFO);
	assert_int_equal(pull_le64(out + 8), 1);
	assert_int_equal(pull_le32(out + 24), 0x70);
	assert_int_equal(pull_le32(out + 28), 0);
	assert_int_equal(pull_le32(out + 32), 0x70);
	assert_int_equal(pull_le32(out + 36), 3);
	assert_memory_equal(out + 48, outb, 3);
	talloc_free(out);
	/* input echoed: output 8-aligned after it */
	r.input = (struct smb2_blob){ inb, 2 };
	out = smb2_ioctl_rsp_push(*state, &r, &len);
	assert_int_equal(len, 56 + 3);
	assert_int_equal(pull_le32(out + 32), 0x78);
	assert_memory_equal(out + 48, inb, 2);
	assert_memory_equal(out + 56, outb, 3);
	talloc_free(out);
	r = (struct smb2_ioctl_rsp){};
	out = smb2_ioctl_rsp_push(*state, &r, &len);
	assert_int_equal(len, 49);
	talloc_free(out);
}

/* ------------------------------------------------------------------ */
/* QUERY_DIRECTORY, QUERY_INFO, SET_INFO, CHANGE_NOTIFY                */

static void test_query_directory__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_querydir,
				    sizeof(cap_querydir));
	struct smb2_query_directory_req r;
	char *pat = NULL;

	assert_true(IS_OK(smb2_query_directory_req_pull(p, &r)));
	assert_int_equal(r.file_information_class,
			 SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION);
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.output_buffer_length, 0x800000);
	assert_int_equal(r.file_id.persistent, 0x60fe9278);
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, r.name.data, r.name.len,
					     &pat)));
	assert_string_equal(pat, "*");
	check_truncations(cap_querydir, sizeof(cap_querydir),
			  sizeof(cap_querydir));
	talloc_free(pat);
	talloc_free(p);
}

static void test_query_info__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_queryinfo,
				    sizeof(cap_queryinfo));
	struct smb2_query_info_req r;

	assert_true(IS_OK(smb2_query_info_req_pull(p, &r)));
	assert_int_equal(r.info_type, SMB2_INFO_FILESYSTEM);
	assert_int_equal(r.file_info_class, SMB2_FS_SIZE_INFORMATION);
	assert_int_equal(r.output_buffer_length, 0xffff);
	assert_int_equal(r.input.len, 0);
	assert_int_equal(r.file_id.persistent, 0x4cd0c970);
	check_truncations(cap_queryinfo, sizeof(cap_queryinfo),
			  SMB2_HDR_SIZE + 40);
	talloc_free(p);
}

static void test_outbuf__rsps(void **state)
{
	static const uint8_t want[] = { 9, 0, 0x48, 0, 3, 0, 0, 0, 1, 2, 3 };
	static const uint8_t want_empty[] = { 9, 0, 0x48, 0, 0, 0, 0, 0, 0 };
	static const uint8_t data[] = { 1, 2, 3 };
	struct smb2_blob b = { data, 3 };
	size_t len = 0;
	uint8_t *out = smb2_query_directory_rsp_push(*state, &b, &len);

	assert_bytes(out, len, want, sizeof(want));
	out = smb2_query_info_rsp_push(*state, &b, &len);
	assert_bytes(out, len, want, sizeof(want));
	b = (struct smb2_blob){};
	out = smb2_change_notify_rsp_push(*state, &b, &len);
	assert_bytes(out, len, want_empty, sizeof(want_empty));
	talloc_free_children(*state);
}

static void test_set_info__pull(void **state)
{
	uint8_t body[32 + 8] = { 33, 0, SMB2_INFO_FILE,
				 SMB2_FILE_END_OF_FILE_INFORMATION };
	uint8_t buf[SMB2_HDR_SIZE + sizeof(body)];
	struct smb2_set_info_req r;
	struct smb2_pdu *p = NULL;

	push_le32(body + 4, 8);
	push_le16(body + 8, 0x60);
	push_le64(body + 16, 9);
	push_le64(body + 32, 4096);
	mk_pdu(buf, SMB2_OP_SET_INFO, 0, 0, body, sizeof(body));
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_set_info_req_pull(p, &r)));
	assert_int_equal(r.file_info_class, SMB2_FILE_END_OF_FILE_INFORMATION);
	assert_int_equal(r.buffer.len, 8);
	assert_int_equal(pull_le64(r.buffer.data), 4096);
	assert_int_equal(r.file_id.persistent, 9);
	check_truncations(buf, sizeof(buf), sizeof(buf));
	talloc_free(p);
}

static void test_change_notify__pull(void **state)
{
	uint8_t body[32] = { 32, 0, SMB2_WATCH_TREE };
	uint8_t buf[SMB2_HDR_SIZE + sizeof(body)];
	struct smb2_change_notify_req r;
	struct smb2_pdu *p = NULL;

	push_le32(body + 4, 4096);
	push_le32(body + 24, SMB2_FILE_NOTIFY_CHANGE_FILE_NAME);
	mk_pdu(buf, SMB2_OP_CHANGE_NOTIFY, 0, 0, body, sizeof(body));
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_change_notify_req_pull(p, &r)));
	assert_int_equal(r.flags, SMB2_WATCH_TREE);
	assert_int_equal(r.output_buffer_length, 4096);
	assert_int_equal(r.completion_filter,
			 SMB2_FILE_NOTIFY_CHANGE_FILE_NAME);
	check_truncations(buf, sizeof(buf), sizeof(buf));
	talloc_free(p);
}

/* ------------------------------------------------------------------ */

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ioctl__capture),
		T(test_ioctl__rsp),
		T(test_query_directory__capture),
		T(test_query_info__capture),
		T(test_outbuf__rsps),
		T(test_set_info__pull),
		T(test_change_notify__pull),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
