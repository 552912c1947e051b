/*
 * Unit tests for SESSION_SETUP (session_codec.c), TREE_CONNECT
 * (tree_codec.c), the bodies with nothing but a StructureSize
 * (LOGOFF, TREE_DISCONNECT, ECHO, CANCEL) and the ERROR response
 * (simple_codec.c) in lib/smb2.
 */
#include <string.h>
#include "tests/unit/smb2_test_util.h"
#include "lib/util/byteorder.h"

/* Samba's answer to cap_tcon, captured with it. */
static const uint8_t cap_tcon_rsp[80] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x01, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xa7, 0x63, 0x40, 0x97, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xa9, 0x00, 0x1f, 0x00
};

/* ------------------------------------------------------------------ */
/* SESSION_SETUP                                                       */

static void test_sesssetup__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_sesssetup,
				    sizeof(cap_sesssetup));
	struct smb2_sesssetup_req r;

	assert_true(IS_OK(smb2_sesssetup_req_pull(p, &r)));
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.security_mode, SMB2_NEGOTIATE_SIGNING_ENABLED);
	assert_int_equal(r.capabilities, SMB2_GLOBAL_CAP_DFS);
	assert_int_equal(r.security.len, 74);
	assert_ptr_equal(r.security.data, p->buf + 0x58);
	assert_int_equal(r.security.data[0], 0x60);	/* GSS-API [APPLICATION 0] */
	check_truncations(cap_sesssetup, sizeof(cap_sesssetup),
			  sizeof(cap_sesssetup));
	talloc_free(p);
}

static void test_sesssetup__bad_buffer(void **state)
{
	uint8_t *b = talloc_memdup(*state, cap_sesssetup,
				   sizeof(cap_sesssetup));

	push_le16(b + SMB2_HDR_SIZE + 12, 0x57);	/* into the fixed part */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_sesssetup))));
	push_le16(b + SMB2_HDR_SIZE + 12, 0x59);	/* one past */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_sesssetup))));
	push_le16(b + SMB2_HDR_SIZE + 12, 0xFFFF);
	push_le16(b + SMB2_HDR_SIZE + 14, 0xFFFF);
	assert_true(IS_IP(carve_pull(b, sizeof(cap_sesssetup))));
	/* empty buffer: the pull succeeds, the daemon decides */
	push_le16(b + SMB2_HDR_SIZE + 14, 0);
	assert_true(IS_OK(carve_pull(b, sizeof(cap_sesssetup))));
	talloc_free(b);
}

static void test_sesssetup__rsp(void **state)
{
	static const uint8_t want[] = { 0x09, 0x00, 0x01, 0x00, 0x48, 0x00,
					0x02, 0x00, 0xa1, 0x07 };
	static const uint8_t want_empty[] = { 0x09, 0x00, 0x00, 0x00, 0x48,
					      0x00, 0x00, 0x00, 0x00 };
	static const uint8_t tok[] = { 0xa1, 0x07 };
	struct smb2_sesssetup_rsp r = {
		.session_flags = SMB2_SESSION_FLAG_IS_GUEST,
		.security = { tok, sizeof(tok) } };
	size_t len = 0;
	uint8_t *out = smb2_sesssetup_rsp_push(*state, &r, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
	r = (struct smb2_sesssetup_rsp){};
	out = smb2_sesssetup_rsp_push(*state, &r, &len);
	assert_bytes(out, len, want_empty, sizeof(want_empty));
	talloc_free(out);
	r.security.len = 65536;
	assert_null(smb2_sesssetup_rsp_push(*state, &r, &len));
}

/* ------------------------------------------------------------------ */
/* TREE_CONNECT, TREE_DISCONNECT, LOGOFF, ECHO                         */

static void test_tcon__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_tcon, sizeof(cap_tcon));
	struct smb2_tcon_req r;
	char *path = NULL;

	assert_true(IS_OK(smb2_tcon_req_pull(p, &r)));
	assert_int_equal(r.flags, 0);
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, r.path.data, r.path.len,
					     &path)));
	assert_string_equal(path, "\\\\127.0.0.1\\IPC$");
	check_truncations(cap_tcon, sizeof(cap_tcon), sizeof(cap_tcon));
	talloc_free(path);
	talloc_free(p);
}

static void test_tcon__bad_path(void **state)
{
	uint8_t *b = talloc_memdup(*state, cap_tcon, sizeof(cap_tcon));

	push_le16(b + SMB2_HDR_SIZE + 6, 0x1F);		/* odd */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_tcon))));
	push_le16(b + SMB2_HDR_SIZE + 6, 0x22);		/* past the end */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_tcon))));
	push_le16(b + SMB2_HDR_SIZE + 6, 0x20);
	push_le16(b + SMB2_HDR_SIZE + 4, 0x46);		/* before Buffer */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_tcon))));
	talloc_free(b);
}

/* Byte-exact against Samba's answer to the captured TREE_CONNECT. */
static void test_tcon__rsp_matches_samba(void **state)
{
	struct smb2_tcon_rsp r = { .share_type = SMB2_SHARE_TYPE_PIPE,
				   .maximal_access = 0x001f00a9 };
	size_t len = 0;
	uint8_t *out = smb2_tcon_rsp_push(*state, &r, &len);

	assert_bytes(out, len, cap_tcon_rsp + SMB2_HDR_SIZE,
		     sizeof(cap_tcon_rsp) - SMB2_HDR_SIZE);
	talloc_free(out);
}

static void test_simple__pulls_and_rsps(void **state)
{
	static const uint8_t want4[] = { 4, 0, 0, 0 };
	static const uint8_t want2[] = { 2, 0 };
	uint8_t buf[SMB2_HDR_SIZE + 4];
	struct smb2_pdu *p = carve1(*state, cap_tdis, sizeof(cap_tdis));
	size_t len = 0;
	uint8_t *out = NULL;

	assert_true(IS_OK(smb2_tdis_req_pull(p)));
	assert_true(IS_IP(smb2_logoff_req_pull(p)));
	check_truncations(cap_tdis, sizeof(cap_tdis), sizeof(cap_tdis));
	mk_pdu(buf, SMB2_OP_LOGOFF, 0, 0, echo_body, 4);
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_logoff_req_pull(p)));
	mk_pdu(buf, SMB2_OP_CANCEL, 0, 0, echo_body, 4);
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_cancel_req_pull(p)));

	out = smb2_echo_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_logoff_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_tdis_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_flush_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_lock_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_set_info_rsp_push(*state, &len);
	assert_bytes(out, len, want2, 2);
	talloc_free_children(*state);
}

static void test_error__rsp(void **state)
{
	static const uint8_t want[] = { 9, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t want_data[] = { 9, 0, 0, 0, 2, 0, 0, 0, 7, 8 };
	static const uint8_t data[] = { 7, 8 };
	size_t len = 0;
	uint8_t *out = smb2_error_rsp_push(*state, NULL, 0, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
	out = smb2_error_rsp_push(*state, data, sizeof(data), &len);
	assert_bytes(out, len, want_data, sizeof(want_data));
	talloc_free(out);
}

/* BUFFER_TOO_SMALL: ErrorData is the 4-byte size the client must offer */
static void test_error__buffer_size(void **state)
{
	static const uint8_t want[] = {
		9, 0, 0, 0, 4, 0, 0, 0, 0x34, 0x12, 0, 0,
	};
	uint8_t data[SMB2_ERROR_BUFFER_SIZE_LEN + 1];
	size_t len = 0;
	uint8_t *out = NULL;

	memset(data, 0xAA, sizeof(data));
	assert_int_equal(smb2_error_buffer_size_push(0x1234, data, 3), 0);
	assert_int_equal(data[0], 0xAA);
	assert_int_equal(smb2_error_buffer_size_push(0x1234, data,
						     sizeof(data)), 4);
	assert_int_equal(data[4], 0xAA);
	out = smb2_error_rsp_push(*state, data, 4, &len);
	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
}

/* ------------------------------------------------------------------ */

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_sesssetup__capture),
		T(test_sesssetup__bad_buffer),
		T(test_sesssetup__rsp),
		T(test_tcon__capture),
		T(test_tcon__bad_path),
		T(test_tcon__rsp_matches_samba),
		T(test_simple__pulls_and_rsps),
		T(test_error__rsp),
		T(test_error__buffer_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
