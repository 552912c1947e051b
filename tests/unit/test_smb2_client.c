/*
 * lib/smb2 client direction (client_codec.c, client_pull.c): each
 * request a client pushes is pulled back by the server's codec, each
 * response the server pushes is pulled back by the client's, and every
 * truncation of a response, placed against a guard page, fails cleanly
 * or yields fields inside what is left.
 */
#include <string.h>

#include "tests/unit/smb2_test_util.h"
#include "lib/smb2/smb2_client.h"

/* A response: header (server to client) + body, into out. */
static size_t mk_rsp(uint8_t *out, uint16_t cmd, uint32_t status,
		     const uint8_t *body, size_t body_len)
{
	struct smb2_hdr h = { .command = cmd, .status = status,
			      .flags = SMB2_FLAGS_SERVER_TO_REDIR,
			      .message_id = 9, .credit = 32,
			      .tree_id = 1, .session_id = 2 };

	smb2_hdr_push(&h, out);
	memcpy(out + SMB2_HDR_SIZE, body, body_len);
	return SMB2_HDR_SIZE + body_len;
}

static void test_smb2_client__requests_pull(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const uint16_t d[] = { SMB2_DIALECT_0210, SMB2_DIALECT_0311 };
	static const uint8_t salt[SMB2_PREAUTH_SALT_SIZE] = { 1, 2, 3 };
	static const uint8_t name[] = { 'a', 0, '\\', 0, 'b', 0 };
	struct smb2_file_id fid = { 0x1122, 0x3344 };
	struct smb2_negctx ctx[1];
	struct smb2_negprot_creq nr = { .dialects = d, .num_dialects = 2,
					.security_mode = 1, .negctx = ctx,
					.num_negctx = 1 };
	struct smb2_create_creq cr = { .desired_access = 3,
				       .create_disposition = 3,
				       .name = { name, sizeof(name) } };
	struct smb2_negprot_req np;
	struct smb2_create_req cq;
	struct smb2_read_req rq;
	struct smb2_write_req wq;
	uint8_t body[512], buf[1024];
	size_t blen, len = 0;

	ctx[0].type = SMB2_PREAUTH_INTEGRITY_CAPABILITIES;
	ctx[0].data = smb2_negctx_preauth_push(tmp, salt, &len);
	ctx[0].len = (uint16_t)len;
	blen = smb2_negprot_creq_push(&nr, body, sizeof(body));
	assert_int_not_equal(blen, 0);
	len = mk_pdu(buf, SMB2_OP_NEGPROT, 0, 0, body, blen);
	assert_true(IS_OK(smb2_negprot_req_pull(carve1(tmp, buf, len), &np)));
	assert_int_equal(np.dialect_count, 2);
	assert_int_equal(np.num_negctx, 1);
	assert_int_equal(np.negctx[0].len, ctx[0].len);
	blen = smb2_create_creq_push(&cr, body, sizeof(body));
	len = mk_pdu(buf, SMB2_OP_CREATE, 0, 0, body, blen);
	assert_true(IS_OK(smb2_create_req_pull(carve1(tmp, buf, len), &cq)));
	assert_bytes(cq.name.data, cq.name.len, name, sizeof(name));
	assert_int_equal(cq.create_disposition, 3);
	blen = smb2_read_creq_push(&fid, 4096, 65536, body, sizeof(body));
	assert_int_equal(blen, SMB2_READ_CREQ_LEN);
	len = mk_pdu(buf, SMB2_OP_READ, 0, 0, body, blen);
	assert_true(IS_OK(smb2_read_req_pull(carve1(tmp, buf, len), &rq)));
	assert_int_equal(rq.offset, 4096);
	assert_int_equal(rq.length, 65536);
	assert_int_equal(rq.file_id.volatile_id, 0x3344);
	blen = smb2_write_creq_push(&fid, 8192, 4, body, sizeof(body));
	memcpy(body + blen, "data", 4);
	len = mk_pdu(buf, SMB2_OP_WRITE, 0, 0, body, blen + 4);
	assert_true(IS_OK(smb2_write_req_pull(carve1(tmp, buf, len), &wq)));
	assert_bytes(wq.data.data, wq.data.len, (const uint8_t *)"data", 4);
	assert_int_equal(smb2_read_creq_push(&fid, 0, 1, body, 10), 0);
	talloc_free(tmp);
}

/* A 3.1.1 NEGOTIATE response as ringsmb's server pushes it. */
static size_t negprot_rsp(TALLOC_CTX *tmp, uint8_t *buf)
{
	static const uint8_t salt[SMB2_PREAUTH_SALT_SIZE] = { 9 };
	static const uint8_t spnego[] = { 0x60, 0x03, 0x06, 0x01, 0x00 };
	struct smb2_negctx ctx[2];
	struct smb2_negprot_rsp r = {
		.security_mode = 3, .dialect = SMB2_DIALECT_0311,
		.capabilities = SMB2_GLOBAL_CAP_LARGE_MTU,
		.max_read = 1 << 20, .max_write = 1 << 21,
		.security = { spnego, sizeof(spnego) },
		.negctx = ctx, .num_negctx = 2,
	};
	size_t len = 0, blen = 0;
	uint8_t *body = NULL;

	ctx[0].type = SMB2_PREAUTH_INTEGRITY_CAPABILITIES;
	ctx[0].data = smb2_negctx_preauth_push(tmp, salt, &len);
	ctx[0].len = (uint16_t)len;
	ctx[1].type = SMB2_ENCRYPTION_CAPABILITIES;
	ctx[1].data = smb2_negctx_encryption_push(tmp,
						  SMB2_ENCRYPTION_AES128_GCM,
						  &len);
	ctx[1].len = (uint16_t)len;
	body = smb2_negprot_rsp_push(tmp, &r, &blen);
	return mk_rsp(buf, SMB2_OP_NEGPROT, 0, body, blen);
}

static void test_smb2_client__negprot_rsp(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct smb2_negprot_crsp r;
	struct smb2_pdu pdu;
	uint8_t buf[1024];
	size_t len = negprot_rsp(tmp, buf), n;
	bool err = false;

	assert_true(IS_OK(smb2_rsp_carve(buf, len, SMB2_NEGPROT_RSP_SIZE,
					 &pdu, &err)));
	assert_false(err);
	assert_true(IS_OK(smb2_negprot_crsp_pull(&pdu, &r)));
	assert_int_equal(r.dialect, SMB2_DIALECT_0311);
	assert_int_equal(r.max_read, 1 << 20);
	assert_int_equal(r.max_write, 1 << 21);
	assert_int_equal(r.security.len, 5);
	assert_int_equal(r.num_negctx, 2);
	assert_int_equal(r.negctx[1].type, SMB2_ENCRYPTION_CAPABILITIES);
	for (n = 0; n < len; n++) {
		uint8_t *g = guard_dup(buf, n);
		NTSTATUS st = smb2_rsp_carve(g, n, SMB2_NEGPROT_RSP_SIZE, &pdu,
					     &err);

		if (IS_OK(st)) {
			st = smb2_negprot_crsp_pull(&pdu, &r);
		}
		/* the padding after the last context may go, nothing else */
		if (IS_OK(st)) {
			assert_true(n >= len - 8);
			assert_true(r.negctx[1].data + r.negctx[1].len <= g + n);
		}
		guard_free(g);
	}
	talloc_free(tmp);
}

/* Every truncation of a response, against a guard page, is refused. */
static void truncations_fail(const uint8_t *buf, size_t len,
			     uint16_t rsp_size,
			     NTSTATUS (*pull)(const struct smb2_pdu *pdu,
					      struct smb2_blob *out))
{
	struct smb2_blob out;
	struct smb2_pdu pdu;
	bool err = false;
	size_t n;

	for (n = 0; n < len; n++) {
		uint8_t *g = guard_dup(buf, n);
		NTSTATUS st = smb2_rsp_carve(g, n, rsp_size, &pdu, &err);

		if (IS_OK(st)) {
			st = pull(&pdu, &out);
		}
		assert_false(IS_OK(st));
		guard_free(g);
	}
}

static void test_smb2_client__io_rsp(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct smb2_read_rsp rr = { .data_len = 6 };
	struct smb2_write_rsp wr = { .count = 65536 };
	struct smb2_blob data;
	struct smb2_pdu pdu;
	uint8_t buf[256], *body = NULL;
	size_t blen = 0, len;
	uint32_t count = 0;
	bool err = false;

	body = smb2_read_rsp_push(tmp, &rr, &blen);
	len = mk_rsp(buf, SMB2_OP_READ, 0, body, blen);
	memcpy(buf + len, "abcdef", 6);
	len += 6;
	assert_true(IS_OK(smb2_rsp_carve(buf, len, SMB2_READ_RSP_SIZE, &pdu,
					 &err)));
	assert_true(IS_OK(smb2_read_crsp_pull(&pdu, &data)));
	assert_bytes(data.data, data.len, (const uint8_t *)"abcdef", 6);
	truncations_fail(buf, len, SMB2_READ_RSP_SIZE, smb2_read_crsp_pull);
	body = smb2_write_rsp_push(tmp, &wr, &blen);
	len = mk_rsp(buf, SMB2_OP_WRITE, 0, body, blen);
	assert_true(IS_OK(smb2_rsp_carve(buf, len, SMB2_WRITE_RSP_SIZE, &pdu,
					 &err)));
	assert_true(IS_OK(smb2_write_crsp_pull(&pdu, &count)));
	assert_int_equal(count, 65536);
	talloc_free(tmp);
}

/* FSCTL_QUERY_NETWORK_INTERFACE_INFO both ways: request, output. */
static void test_smb2_client__fsctl(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const uint8_t out[] = "interfaces";
	struct smb2_ioctl_rsp r = { .ctl_code = FSCTL_QUERY_NETWORK_INTERFACE_INFO,
				    .file_id = { UINT64_MAX, UINT64_MAX },
				    .output = { out, sizeof(out) } };
	struct smb2_ioctl_req q;
	struct smb2_blob got;
	struct smb2_pdu pdu;
	uint8_t buf[256], body[64], *rb = NULL;
	size_t blen, len;
	bool err = false;

	blen = smb2_fsctl_creq_push(FSCTL_QUERY_NETWORK_INTERFACE_INFO, 65536,
				    body, sizeof(body));
	assert_int_equal(blen, SMB2_IOCTL_CREQ_LEN);
	len = mk_pdu(buf, SMB2_OP_IOCTL, 0, 0, body, blen);
	assert_true(IS_OK(smb2_ioctl_req_pull(carve1(tmp, buf, len), &q)));
	assert_int_equal(q.ctl_code, FSCTL_QUERY_NETWORK_INTERFACE_INFO);
	assert_int_equal(q.flags, SMB2_0_IOCTL_IS_FSCTL);
	assert_int_equal(q.max_output_response, 65536);
	assert_int_equal(q.file_id.persistent, UINT64_MAX);
	assert_int_equal(q.input.len, 0);
	assert_int_equal(smb2_fsctl_creq_push(1, 1, body, 56), 0);
	rb = smb2_ioctl_rsp_push(tmp, &r, &blen);
	len = mk_rsp(buf, SMB2_OP_IOCTL, 0, rb, blen);
	assert_true(IS_OK(smb2_rsp_carve(buf, len, SMB2_IOCTL_RSP_SIZE, &pdu,
					 &err)));
	assert_true(IS_OK(smb2_ioctl_crsp_pull(&pdu, &got)));
	assert_bytes(got.data, got.len, out, sizeof(out));
	truncations_fail(buf, len, SMB2_IOCTL_RSP_SIZE, smb2_ioctl_crsp_pull);
	talloc_free(tmp);
}

/* An ERROR body is recognised; a wrong StructureSize or a request is not. */
static void test_smb2_client__error_and_bad(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct smb2_pdu pdu;
	uint8_t buf[256], *body = NULL;
	size_t blen = 0, len;
	bool err = false;

	body = smb2_error_rsp_push(tmp, NULL, 0, &blen);
	len = mk_rsp(buf, SMB2_OP_READ, 0xC0000011, body, blen);
	assert_true(IS_OK(smb2_rsp_carve(buf, len, SMB2_READ_RSP_SIZE, &pdu,
					 &err)));
	assert_true(err);
	assert_int_equal(pdu.hdr.status, 0xC0000011);
	buf[SMB2_HDR_SIZE] = 33;
	assert_false(IS_OK(smb2_rsp_carve(buf, len, SMB2_READ_RSP_SIZE, &pdu,
					  &err)));
	len = mk_pdu(buf, SMB2_OP_ECHO, 0, 0, echo_body, sizeof(echo_body));
	assert_false(IS_OK(smb2_rsp_carve(buf, len, SMB2_ECHO_RSP_SIZE, &pdu,
					  &err)));
	talloc_free(tmp);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_smb2_client__requests_pull),
		T(test_smb2_client__negprot_rsp),
		T(test_smb2_client__io_rsp),
		T(test_smb2_client__fsctl),
		T(test_smb2_client__error_and_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
