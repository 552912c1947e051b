/*
 * Unit tests for IOCTL (ioctl_codec.c) and for QUERY_DIRECTORY,
 * QUERY_INFO, SET_INFO and CHANGE_NOTIFY (query_codec.c) and for the
 * FILE_NOTIFY_INFORMATION entries of a CHANGE_NOTIFY response
 * (notify_codec.c) in lib/smb2.
 */
#include <string.h>
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
/* FILE_NOTIFY_INFORMATION (notify_codec.c)                            */

static const struct smb2_notify_info three[] = {
	{ SMB2_NOTIFY_ACTION_ADDED, (const uint8_t *)"a\0", 2 },
	{ SMB2_NOTIFY_ACTION_REMOVED, (const uint8_t *)"b\0c\0", 4 },
	{ SMB2_NOTIFY_ACTION_MODIFIED, (const uint8_t *)"d\0", 2 },
};

static void test_notify_info__push(void **state)
{
	uint8_t buf[sizeof(notify_three) + 8];
	size_t len = 0, ofs = 0, i;

	for (i = 0; i < 3; i++) {
		len = smb2_notify_info_list_add(len, three[i].name_len);
	}
	assert_int_equal(len, sizeof(notify_three));
	memset(buf, 0xAA, sizeof(buf));
	for (i = 0; i < 3; i++) {
		ofs += smb2_notify_info_push(&three[i], i == 2, buf + ofs,
					     sizeof(buf) - ofs);
	}
	assert_int_equal(ofs, sizeof(notify_three));
	assert_memory_equal(buf, notify_three, sizeof(notify_three));
	assert_int_equal(buf[ofs], 0xAA);	/* the last is not padded */
}

static void test_notify_info__push_does_not_fit(void **state)
{
	uint8_t buf[16];
	const struct smb2_notify_info big = { 1, buf, (size_t)UINT32_MAX };

	/* 14 bytes, 16 with padding: a non-last entry needs the padding */
	assert_int_equal(smb2_notify_info_push(&three[0], false, buf, 15), 0);
	assert_int_equal(smb2_notify_info_push(&three[0], false, buf, 16), 16);
	assert_int_equal(smb2_notify_info_push(&three[0], true, buf, 13), 0);
	assert_int_equal(smb2_notify_info_push(&three[0], true, buf, 14), 14);
	assert_int_equal(smb2_notify_info_push(&three[0], true, NULL, 0), 0);
	/* a name FileNameLength cannot describe */
	assert_int_equal(smb2_notify_info_push(&big, true, buf, SIZE_MAX), 0);
	assert_int_equal(smb2_notify_info_list_add(SIZE_MAX - 2, 0),
			 SIZE_MAX);
	assert_int_equal(smb2_notify_info_list_add(16, SIZE_MAX - 20),
			 SIZE_MAX);
	assert_int_equal(smb2_notify_info_list_add(14, 2), 16 + 14);
}

static void test_notify_info__pull(void **state)
{
	uint8_t *g = guard_dup(notify_three, sizeof(notify_three));
	struct smb2_notify_info e;
	size_t ofs = 0, i;

	for (i = 0; i < 3; i++) {
		assert_true(IS_OK(smb2_notify_info_pull(
			g, sizeof(notify_three), &ofs, &e)));
		assert_int_equal(e.action, three[i].action);
		assert_int_equal(e.name_len, three[i].name_len);
		assert_memory_equal(e.name, three[i].name, e.name_len);
	}
	assert_int_equal(ofs, sizeof(notify_three));
	/* past the end */
	assert_true(IS_IP(smb2_notify_info_pull(g, sizeof(notify_three),
						&ofs, &e)));
	ofs = sizeof(notify_three) + 1;
	assert_true(IS_IP(smb2_notify_info_pull(g, sizeof(notify_three),
						&ofs, &e)));
	guard_free(g);
}

/* Every prefix: the walk stops with an error, never reads past it. */
static void test_notify_info__every_truncation(void **state)
{
	struct smb2_notify_info e;
	size_t i;

	for (i = 0; i < sizeof(notify_three); i++) {
		uint8_t *g = guard_dup(notify_three, i);
		size_t ofs = 0;
		NTSTATUS st = NT_STATUS_OK;

		while (IS_OK(st) && ofs < i) {
			st = smb2_notify_info_pull(g, i, &ofs, &e);
		}
		assert_true(i == 0 || IS_IP(st));
		guard_free(g);
	}
}

static void test_notify_info__bad_entries(void **state)
{
	uint8_t buf[sizeof(notify_three)];
	struct smb2_notify_info e;
	static const struct {
		size_t at;
		uint32_t v;
	} bad[] = {
		{ 0, 2 },		/* NextEntryOffset not 4-aligned */
		{ 0, 12 },		/* into its own name */
		{ 0, 46 },		/* at the end: no next entry */
		{ 0, 0xFFFFFFFC },	/* far past it */
		{ 8, 3 },		/* odd FileNameLength */
		{ 8, 0xFFFFFFFE },	/* a name past the end */
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t ofs = 0;
		uint8_t *g = NULL;

		memcpy(buf, notify_three, sizeof(buf));
		push_le32(buf + bad[i].at, bad[i].v);
		g = guard_dup(buf, sizeof(buf));
		assert_true(IS_IP(smb2_notify_info_pull(g, sizeof(buf), &ofs,
							&e)));
		assert_int_equal(ofs, 0);
		guard_free(g);
	}
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
		T(test_notify_info__push),
		T(test_notify_info__push_does_not_fit),
		T(test_notify_info__pull),
		T(test_notify_info__every_truncation),
		T(test_notify_info__bad_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
