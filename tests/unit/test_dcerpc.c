/*
 * DCE/RPC PDU codecs (lib/dcerpc/pdu_codec.c, bind_codec.c): each PDU
 * type built by hand from the MS-RPCE / C706 field layout, pulled to
 * its fields and pushed back to the same bytes; every truncation under
 * a guard page; each malformed field refused.  The NDR cursor is
 * test_dcerpc_ndr.c.  With SMB2_CORPUS_DIR set, test_dcerpc_corpus__write
 * writes the vectors as seeds for tests/fuzz/fuzz_dcerpc.c
 * (tests/fuzz/corpus/dcerpc/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tests/unit/unit.h"
#include "lib/dcerpc/dcerpc.h"

#define IS_OK(s) NT_STATUS_IS_OK(s)

/* The syntaxes as they appear on the wire (UUID fields little-endian). */
#define W_SRVSVC 0xc8, 0x4f, 0x32, 0x4b, 0x70, 0x16, 0xd3, 0x01, \
	0x12, 0x78, 0x5a, 0x47, 0xbf, 0x6e, 0xe1, 0x88, 0x03, 0x00, 0x00, 0x00
#define W_WKSSVC 0x98, 0xd0, 0xff, 0x6b, 0x12, 0xa1, 0x10, 0x36, \
	0x98, 0x33, 0x46, 0xc3, 0xf8, 0x7e, 0x34, 0x5a, 0x01, 0x00, 0x00, 0x00
#define W_NDR20 0x04, 0x5d, 0x88, 0x8a, 0xeb, 0x1c, 0xc9, 0x11, \
	0x9f, 0xe8, 0x08, 0x00, 0x2b, 0x10, 0x48, 0x60, 0x02, 0x00, 0x00, 0x00
#define W_NDR64 0x33, 0x05, 0x71, 0x71, 0xba, 0xbe, 0x37, 0x49, \
	0x83, 0x19, 0xb5, 0xdb, 0xef, 0x9c, 0xcc, 0x36, 0x01, 0x00, 0x00, 0x00
#define W_ZERO_SYNTAX 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
	0, 0, 0, 0

/* bind, call 1: srvsvc v3.0 over NDR20, max frags 4280 */
static const uint8_t v_bind[72] = {
	5, 0, DCERPC_PT_BIND, 0x03, 0x10, 0, 0, 0, 72, 0, 0, 0, 1, 0, 0, 0,
	0xb8, 0x10, 0xb8, 0x10, 0, 0, 0, 0,	/* max xmit/recv, assoc */
	1, 0, 0, 0,				/* n_context_elem */
	0, 0, 1, 0,				/* cont_id 0, 1 transfer */
	W_SRVSVC, W_NDR20,
};

/* alter_context, call 2: wkssvc v1.0 offered over NDR20 and NDR64 */
static const uint8_t v_alter[92] = {
	5, 0, DCERPC_PT_ALTER_CONTEXT, 0x03, 0x10, 0, 0, 0, 92, 0, 0, 0,
	2, 0, 0, 0,
	0xb8, 0x10, 0xb8, 0x10, 0x45, 0x23, 0x01, 0,
	1, 0, 0, 0,
	1, 0, 2, 0,
	W_WKSSVC, W_NDR20, W_NDR64,
};

/*
 * bind_ack: sec_addr "\PIPE\srvsvc" (13 with the NUL, after its u16
 * length: 23 bytes, one byte of padding), NDR20 accepted, a second
 * context refused (provider rejection, transfer syntaxes not supported)
 */
static const uint8_t v_bind_ack[92] = {
	5, 0, DCERPC_PT_BIND_ACK, 0x03, 0x10, 0, 0, 0, 92, 0, 0, 0,
	1, 0, 0, 0,
	0xb8, 0x10, 0xb8, 0x10, 0x45, 0x23, 0x01, 0,
	13, 0, '\\', 'P', 'I', 'P', 'E', '\\', 's', 'r', 'v', 's', 'v', 'c',
	0, 0,					/* NUL, pad to 4 */
	2, 0, 0, 0,				/* n_results */
	0, 0, 0, 0, W_NDR20,
	2, 0, 2, 0, W_ZERO_SYNTAX,
};

/* alter_context_resp: empty sec_addr (u16 0, 2 bytes of padding) */
static const uint8_t v_alter_resp[56] = {
	5, 0, DCERPC_PT_ALTER_CONTEXT_RESP, 0x03, 0x10, 0, 0, 0, 56, 0, 0, 0,
	2, 0, 0, 0,
	0xb8, 0x10, 0xb8, 0x10, 0x45, 0x23, 0x01, 0,
	0, 0, 0, 0,
	1, 0, 0, 0,
	0, 0, 0, 0, W_NDR20,
};

/* bind_nak: protocol version not supported, offering 5.0 */
static const uint8_t v_bind_nak[21] = {
	5, 0, DCERPC_PT_BIND_NAK, 0x03, 0x10, 0, 0, 0, 21, 0, 0, 0,
	1, 0, 0, 0,
	4, 0, 1, 5, 0,
};

/* request, call 3, NetShareEnumAll (opnum 15), a 4-byte stub */
static const uint8_t v_request[28] = {
	5, 0, DCERPC_PT_REQUEST, 0x03, 0x10, 0, 0, 0, 28, 0, 0, 0,
	3, 0, 0, 0,
	4, 0, 0, 0, 0, 0, 15, 0,
	0xde, 0xad, 0xbe, 0xef,
};

/* request with PFC_OBJECT_UUID: the object UUID comes before the stub */
static const uint8_t v_request_obj[44] = {
	5, 0, DCERPC_PT_REQUEST, 0x83, 0x10, 0, 0, 0, 44, 0, 0, 0,
	4, 0, 0, 0,
	4, 0, 0, 0, 1, 0, 2, 0,
	W_WKSSVC,				/* first 16 bytes: a UUID */
};

/*
 * request with an auth trailer: stub 4, auth pad 4, sec_trailer
 * (NTLMSSP 10, packet integrity 5, pad 4, context 7), 16-byte value
 */
static const uint8_t v_request_auth[56] = {
	5, 0, DCERPC_PT_REQUEST, 0x03, 0x10, 0, 0, 0, 56, 0, 16, 0,
	5, 0, 0, 0,
	4, 0, 0, 0, 0, 0, 15, 0,
	1, 2, 3, 4, 0, 0, 0, 0,
	10, 5, 4, 0, 7, 0, 0, 0,
	0x01, 0, 0, 0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,
	0, 0, 0, 0,
};

/* response, call 3: 8 bytes of stub */
static const uint8_t v_response[32] = {
	5, 0, DCERPC_PT_RESPONSE, 0x03, 0x10, 0, 0, 0, 32, 0, 0, 0,
	3, 0, 0, 0,
	8, 0, 0, 0, 0, 0, 0, 0,
	1, 0, 0, 0, 0, 0, 0, 0,
};

/* fault, call 3: nca_s_op_rng_error, the DID_NOT_EXECUTE flag */
static const uint8_t v_fault[32] = {
	5, 0, DCERPC_PT_FAULT, 0x23, 0x10, 0, 0, 0, 32, 0, 0, 0,
	3, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0x02, 0x00, 0x01, 0x1c, 0, 0, 0, 0,
};

/* shutdown: a header and nothing else */
static const uint8_t v_shutdown[16] = {
	5, 0, DCERPC_PT_SHUTDOWN, 0x03, 0x10, 0, 0, 0, 16, 0, 0, 0,
	9, 0, 0, 0,
};

/* Pull buf (a copy that stays valid), check it pushes to the same. */
static void round_trip(TALLOC_CTX *ctx, const uint8_t *buf, size_t len,
		       struct dcerpc_pdu *pdu)
{
	uint8_t *out = NULL;
	size_t out_len = 0;

	assert_true(IS_OK(dcerpc_pdu_pull(ctx, buf, len, pdu)));
	assert_true(IS_OK(dcerpc_pdu_push(ctx, pdu, &out, &out_len)));
	assert_int_equal(out_len, len);
	assert_memory_equal(out, buf, len);
	TALLOC_FREE(out);
}

/* Push a hand-built struct, compare with the hand-laid bytes. */
static void push_equals(TALLOC_CTX *ctx, const struct dcerpc_pdu *pdu,
			const uint8_t *want, size_t want_len)
{
	uint8_t *out = NULL;
	size_t out_len = 0;

	assert_true(IS_OK(dcerpc_pdu_push(ctx, pdu, &out, &out_len)));
	assert_int_equal(out_len, want_len);
	assert_memory_equal(out, want, want_len);
	TALLOC_FREE(out);
}

static struct dcerpc_hdr hdr(uint8_t ptype, uint8_t flags, uint32_t call)
{
	return (struct dcerpc_hdr){ .ptype = ptype, .pfc_flags = flags,
				    .call_id = call };
}

static void test_pdu__bind(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_syntax ndr = dcerpc_syntax_ndr20;
	struct dcerpc_ctx_elem e = {
		.cont_id = 0, .num_transfer = 1,
		.abstract = dcerpc_syntax_srvsvc, .transfer = &ndr,
	};
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_BIND, 3, 1),
		.u.bind = { .max_xmit_frag = 4280, .max_recv_frag = 4280,
			    .num_contexts = 1, .ctx = &e },
	};
	struct dcerpc_pdu got;

	push_equals(ctx, &pdu, v_bind, sizeof(v_bind));
	round_trip(ctx, v_bind, sizeof(v_bind), &got);
	assert_int_equal(got.hdr.ptype, DCERPC_PT_BIND);
	assert_int_equal(got.hdr.frag_length, 72);
	assert_int_equal(got.hdr.call_id, 1);
	assert_int_equal(got.u.bind.max_recv_frag, 4280);
	assert_int_equal(got.u.bind.num_contexts, 1);
	assert_true(dcerpc_syntax_equal(&got.u.bind.ctx[0].abstract,
					&dcerpc_syntax_srvsvc));
	assert_true(dcerpc_syntax_equal(&got.u.bind.ctx[0].transfer[0],
					&dcerpc_syntax_ndr20));
	TALLOC_FREE(got.u.bind.ctx);
}

static void test_pdu__alter_context(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_syntax ts[2] = { dcerpc_syntax_ndr20,
				       dcerpc_syntax_ndr64 };
	struct dcerpc_ctx_elem e = {
		.cont_id = 1, .num_transfer = 2,
		.abstract = dcerpc_syntax_wkssvc, .transfer = ts,
	};
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_ALTER_CONTEXT, 3, 2),
		.u.bind = { .max_xmit_frag = 4280, .max_recv_frag = 4280,
			    .assoc_group_id = 0x12345,
			    .num_contexts = 1, .ctx = &e },
	};
	struct dcerpc_pdu got;

	push_equals(ctx, &pdu, v_alter, sizeof(v_alter));
	round_trip(ctx, v_alter, sizeof(v_alter), &got);
	assert_int_equal(got.u.bind.assoc_group_id, 0x12345);
	assert_int_equal(got.u.bind.ctx[0].cont_id, 1);
	assert_int_equal(got.u.bind.ctx[0].num_transfer, 2);
	assert_true(dcerpc_syntax_equal(&got.u.bind.ctx[0].transfer[1],
					&dcerpc_syntax_ndr64));
	TALLOC_FREE(got.u.bind.ctx);
}

static void test_pdu__bind_ack(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_ctx_result r[2] = {
		{ .result = DCERPC_RESULT_ACCEPTANCE,
		  .transfer = dcerpc_syntax_ndr20 },
		{ .result = DCERPC_RESULT_PROVIDER_REJECTION,
		  .reason = DCERPC_REASON_TRANSFER_SYNTAXES_NOT_SUPPORTED },
	};
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_BIND_ACK, 3, 1),
		.u.ack = { .max_xmit_frag = 4280, .max_recv_frag = 4280,
			   .assoc_group_id = 0x12345,
			   .sec_addr = "\\PIPE\\srvsvc", .sec_addr_len = 13,
			   .num_results = 2, .results = r },
	};
	struct dcerpc_pdu got;

	push_equals(ctx, &pdu, v_bind_ack, sizeof(v_bind_ack));
	round_trip(ctx, v_bind_ack, sizeof(v_bind_ack), &got);
	assert_string_equal(got.u.ack.sec_addr, "\\PIPE\\srvsvc");
	assert_int_equal(got.u.ack.num_results, 2);
	assert_int_equal(got.u.ack.results[1].result,
			 DCERPC_RESULT_PROVIDER_REJECTION);
	assert_int_equal(got.u.ack.results[1].reason,
			 DCERPC_REASON_TRANSFER_SYNTAXES_NOT_SUPPORTED);
	TALLOC_FREE(got.u.ack.results);
}

static void test_pdu__alter_context_resp(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_ctx_result r = { .transfer = dcerpc_syntax_ndr20 };
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_ALTER_CONTEXT_RESP, 3, 2),
		.u.ack = { .max_xmit_frag = 4280, .max_recv_frag = 4280,
			   .assoc_group_id = 0x12345,
			   .num_results = 1, .results = &r },
	};
	struct dcerpc_pdu got;

	push_equals(ctx, &pdu, v_alter_resp, sizeof(v_alter_resp));
	round_trip(ctx, v_alter_resp, sizeof(v_alter_resp), &got);
	assert_null(got.u.ack.sec_addr);
	assert_int_equal(got.u.ack.sec_addr_len, 0);
	TALLOC_FREE(got.u.ack.results);
}

static void test_pdu__bind_nak(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_BIND_NAK, 3, 1),
		.u.nak = { .reject_reason =
			   DCERPC_NAK_PROTOCOL_VERSION_NOT_SUPPORTED,
			   .num_versions = 1, .versions = { { 5, 0 } } },
	};
	struct dcerpc_pdu got;

	push_equals(ctx, &pdu, v_bind_nak, sizeof(v_bind_nak));
	round_trip(ctx, v_bind_nak, sizeof(v_bind_nak), &got);
	assert_int_equal(got.u.nak.reject_reason, 4);
	assert_int_equal(got.u.nak.versions[0].major, 5);
}

static void test_pdu__request(void **state)
{
	TALLOC_CTX *ctx = *state;
	static const uint8_t stub[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_REQUEST, 3, 3),
		.u.req = { .alloc_hint = 4, .opnum = 15, .stub = stub,
			   .stub_len = 4 },
	};
	struct dcerpc_pdu got;

	push_equals(ctx, &pdu, v_request, sizeof(v_request));
	round_trip(ctx, v_request, sizeof(v_request), &got);
	assert_int_equal(got.u.req.opnum, 15);
	assert_int_equal(got.u.req.stub_len, 4);
	assert_ptr_equal(got.u.req.stub, v_request + 24);
	assert_false(got.has_auth);
}

static void test_pdu__request_object_uuid(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_REQUEST, 0x83, 4),
		.u.req = { .alloc_hint = 4, .cont_id = 1, .opnum = 2,
			   .object = dcerpc_syntax_wkssvc.uuid,
			   .stub = v_request_obj + 40, .stub_len = 4 },
	};
	struct dcerpc_pdu got;

	push_equals(ctx, &pdu, v_request_obj, sizeof(v_request_obj));
	round_trip(ctx, v_request_obj, sizeof(v_request_obj), &got);
	assert_true(dcerpc_uuid_equal(&got.u.req.object,
				      &dcerpc_syntax_wkssvc.uuid));
	assert_int_equal(got.u.req.stub_len, 4);
	assert_ptr_equal(got.u.req.stub, v_request_obj + 40);
}

static void test_pdu__request_auth(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_pdu got;

	round_trip(ctx, v_request_auth, sizeof(v_request_auth), &got);
	assert_true(got.has_auth);
	assert_int_equal(got.hdr.auth_length, 16);
	assert_int_equal(got.auth.auth_type, 10);
	assert_int_equal(got.auth.auth_level, 5);
	assert_int_equal(got.auth.auth_pad_length, 4);
	assert_int_equal(got.auth.auth_context_id, 7);
	assert_ptr_equal(got.auth.value, v_request_auth + 40);
	/* the stub ends where the auth padding starts */
	assert_int_equal(got.u.req.stub_len, 4);
}

static void test_pdu__response(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_RESPONSE, 3, 3),
		.u.rsp = { .alloc_hint = 8, .stub = v_response + 24,
			   .stub_len = 8 },
	};
	struct dcerpc_pdu got;

	push_equals(ctx, &pdu, v_response, sizeof(v_response));
	round_trip(ctx, v_response, sizeof(v_response), &got);
	assert_int_equal(got.u.rsp.alloc_hint, 8);
	assert_int_equal(got.u.rsp.stub_len, 8);
}

static void test_pdu__fault(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_FAULT, 0x23, 3),
		.u.fault = { .status = DCERPC_NCA_S_OP_RNG_ERROR },
	};
	struct dcerpc_pdu got;

	push_equals(ctx, &pdu, v_fault, sizeof(v_fault));
	round_trip(ctx, v_fault, sizeof(v_fault), &got);
	assert_int_equal(got.u.fault.status, DCERPC_NCA_S_OP_RNG_ERROR);
	assert_int_equal(got.u.fault.stub_len, 0);
	assert_int_equal(got.hdr.pfc_flags & DCERPC_PFC_DID_NOT_EXECUTE,
			 DCERPC_PFC_DID_NOT_EXECUTE);
}

static void test_pdu__shutdown_header_only(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_pdu got;
	struct dcerpc_hdr h;

	round_trip(ctx, v_shutdown, sizeof(v_shutdown), &got);
	assert_int_equal(got.hdr.call_id, 9);
	assert_true(IS_OK(dcerpc_hdr_pull(v_bind, DCERPC_HDR_SIZE, &h)));
	assert_int_equal(h.frag_length, 72);
}

/*
 * Every prefix of a valid PDU under a guard page: (a) with frag_length
 * as it was, all refused (frag_length disagrees with the buffer);
 * (b) with frag_length set to the prefix, those shorter than min_ok
 * refused and the rest pulled (a request's stub may be shorter).
 */
static void check_truncations(TALLOC_CTX *ctx, const uint8_t *buf,
			      size_t len, size_t min_ok)
{
	uint8_t copy[128];
	size_t n;

	assert_true(len <= sizeof(copy));
	for (n = 0; n < len; n++) {
		struct dcerpc_pdu pdu;
		TALLOC_CTX *t = talloc_new(ctx);
		uint8_t *g = guard_dup(buf, n);

		assert_false(IS_OK(dcerpc_pdu_pull(t, g, n, &pdu)));
		guard_free(g);
		memcpy(copy, buf, n);
		if (n >= 10) {
			copy[8] = (uint8_t)n;
			copy[9] = 0;
		}
		g = guard_dup(copy, n);
		assert_int_equal(IS_OK(dcerpc_pdu_pull(t, g, n, &pdu)),
				 n >= min_ok);
		guard_free(g);
		talloc_free(t);
	}
}

static void test_pdu__every_truncation(void **state)
{
	TALLOC_CTX *ctx = *state;

	check_truncations(ctx, v_bind, sizeof(v_bind), sizeof(v_bind));
	check_truncations(ctx, v_alter, sizeof(v_alter), sizeof(v_alter));
	check_truncations(ctx, v_bind_ack, sizeof(v_bind_ack),
			  sizeof(v_bind_ack));
	check_truncations(ctx, v_alter_resp, sizeof(v_alter_resp),
			  sizeof(v_alter_resp));
	check_truncations(ctx, v_bind_nak, sizeof(v_bind_nak),
			  sizeof(v_bind_nak));
	check_truncations(ctx, v_request, sizeof(v_request), 24);
	check_truncations(ctx, v_request_obj, sizeof(v_request_obj), 40);
	check_truncations(ctx, v_response, sizeof(v_response), 24);
	check_truncations(ctx, v_fault, sizeof(v_fault), sizeof(v_fault));
	check_truncations(ctx, v_shutdown, sizeof(v_shutdown), 16);
}

/* The auth trailer sits at the end: cut prefixes only (a above). */
static void test_pdu__auth_truncation(void **state)
{
	TALLOC_CTX *ctx = *state;
	size_t n;

	for (n = 0; n < sizeof(v_request_auth); n++) {
		struct dcerpc_pdu pdu;
		uint8_t *g = guard_dup(v_request_auth, n);

		assert_false(IS_OK(dcerpc_pdu_pull(ctx, g, n, &pdu)));
		guard_free(g);
	}
}

/* buf with byte ofs set to v must be refused. */
static void refused(TALLOC_CTX *ctx, const uint8_t *buf, size_t len,
		    size_t ofs, uint8_t v)
{
	uint8_t copy[128];
	struct dcerpc_pdu pdu;
	TALLOC_CTX *t = talloc_new(ctx);
	uint8_t *g = NULL;

	assert_true(len <= sizeof(copy) && ofs < len);
	memcpy(copy, buf, len);
	copy[ofs] = v;
	g = guard_dup(copy, len);
	assert_false(IS_OK(dcerpc_pdu_pull(t, g, len, &pdu)));
	guard_free(g);
	talloc_free(t);
}

static void test_hdr__malformed(void **state)
{
	TALLOC_CTX *ctx = *state;

	refused(ctx, v_request, sizeof(v_request), 0, 4);	/* rpc_vers */
	refused(ctx, v_request, sizeof(v_request), 1, 1);	/* minor */
	refused(ctx, v_request, sizeof(v_request), 2, 1);	/* CL ping */
	refused(ctx, v_request, sizeof(v_request), 2, 20);	/* unknown */
	refused(ctx, v_request, sizeof(v_request), 2, 0xff);
	refused(ctx, v_request, sizeof(v_request), 4, 0x00);	/* BE */
	refused(ctx, v_request, sizeof(v_request), 4, 0x11);	/* EBCDIC */
	refused(ctx, v_request, sizeof(v_request), 8, 15);	/* < header */
	refused(ctx, v_request, sizeof(v_request), 8, 29);	/* > buffer */
	refused(ctx, v_request, sizeof(v_request), 8, 27);	/* < buffer */
	refused(ctx, v_request, sizeof(v_request), 9, 1);	/* 284 */
	/* auth_length: 12 bytes of body cannot hold 8 + 4 + 1 */
	refused(ctx, v_request, sizeof(v_request), 10, 5);
	refused(ctx, v_request, sizeof(v_request), 11, 0xff);
	/* auth_length 4 fits (8 + 4 = 12) but takes the whole request
	 * body: the 8 fixed bytes are then missing */
	refused(ctx, v_request, sizeof(v_request), 10, 4);
}

static void test_auth__malformed(void **state)
{
	TALLOC_CTX *ctx = *state;

	/* auth_pad_length past the start of the body (body is 12) */
	refused(ctx, v_request_auth, sizeof(v_request_auth), 34, 13);
	/* pad eats into the 8 fixed request bytes */
	refused(ctx, v_request_auth, sizeof(v_request_auth), 34, 9);
	/* auth_length grows past the fragment */
	refused(ctx, v_request_auth, sizeof(v_request_auth), 10, 33);
}

static void test_bind__malformed(void **state)
{
	TALLOC_CTX *ctx = *state;

	refused(ctx, v_bind, sizeof(v_bind), 24, 0);	/* no contexts */
	refused(ctx, v_bind, sizeof(v_bind), 24, 2);	/* lying count */
	refused(ctx, v_bind, sizeof(v_bind), 24, 17);	/* > 16 contexts */
	refused(ctx, v_bind, sizeof(v_bind), 24, 0xff);
	refused(ctx, v_bind, sizeof(v_bind), 30, 0);	/* no transfer */
	refused(ctx, v_bind, sizeof(v_bind), 30, 2);	/* lying count */
	refused(ctx, v_bind, sizeof(v_bind), 30, 33);	/* > 32 syntaxes */
	refused(ctx, v_alter, sizeof(v_alter), 30, 3);
}

static void test_bind__limits_pass(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct dcerpc_syntax ts[DCERPC_MAX_TRANSFER_SYNTAXES];
	struct dcerpc_ctx_elem e[DCERPC_MAX_CONTEXTS];
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_BIND, 3, 1),
		.u.bind = { .num_contexts = DCERPC_MAX_CONTEXTS, .ctx = e },
	};
	struct dcerpc_pdu got;
	uint8_t *out = NULL;
	size_t out_len = 0, i;

	for (i = 0; i < DCERPC_MAX_TRANSFER_SYNTAXES; i++) {
		ts[i] = dcerpc_syntax_ndr20;
	}
	for (i = 0; i < DCERPC_MAX_CONTEXTS; i++) {
		e[i] = (struct dcerpc_ctx_elem){
			.cont_id = i, .num_transfer = i == 0 ? 32 : 1,
			.abstract = dcerpc_syntax_srvsvc, .transfer = ts };
	}
	assert_true(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	assert_true(IS_OK(dcerpc_pdu_pull(ctx, out, out_len, &got)));
	assert_int_equal(got.u.bind.num_contexts, 16);
	assert_int_equal(got.u.bind.ctx[0].num_transfer, 32);
	TALLOC_FREE(got.u.bind.ctx);
	/* one more of either is refused when pushing, as when pulling */
	e[0].num_transfer = 33;
	assert_false(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	e[0].num_transfer = 0;
	assert_false(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	e[0].num_transfer = 1;
	pdu.u.bind.num_contexts = 17;
	assert_false(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	pdu.u.bind.num_contexts = 0;
	assert_false(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	TALLOC_FREE(out);
}

static void test_bind_ack__malformed(void **state)
{
	TALLOC_CTX *ctx = *state;
	const size_t n = sizeof(v_bind_ack);

	refused(ctx, v_bind_ack, n, 24, 0xff);	/* sec_addr past end */
	refused(ctx, v_bind_ack, n, 24, 12);	/* no NUL at its end */
	refused(ctx, v_bind_ack, n, 24, 14);	/* NUL before its end */
	refused(ctx, v_bind_ack, n, 30, 0);	/* a NUL inside it */
	refused(ctx, v_bind_ack, n, 40, 17);	/* > 16 results */
	refused(ctx, v_bind_ack, n, 40, 3);	/* lying count */
	refused(ctx, v_bind_ack, n, 44, 4);	/* unknown result */
	refused(ctx, v_alter_resp, sizeof(v_alter_resp), 28, 2);
}

static void test_bind_nak__malformed(void **state)
{
	TALLOC_CTX *ctx = *state;

	refused(ctx, v_bind_nak, sizeof(v_bind_nak), 18, 2);
	refused(ctx, v_bind_nak, sizeof(v_bind_nak), 18, 9);
}

static void test_push__limits(void **state)
{
	TALLOC_CTX *ctx = *state;
	static uint8_t big[70000];
	struct dcerpc_pdu pdu = {
		.hdr = hdr(DCERPC_PT_RESPONSE, 3, 3),
		.u.rsp = { .stub = big, .stub_len = sizeof(big) },
	};
	char bad_addr[4] = { 'a', 0, 'b', 0 };
	uint8_t *out = NULL;
	size_t out_len = 0;

	/* a fragment never passes 64 KiB: the caller fragments */
	assert_false(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	pdu.u.rsp.stub_len = UINT16_MAX - 24 + 1;
	assert_false(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	pdu.u.rsp.stub_len = UINT16_MAX - 24;
	assert_true(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	assert_int_equal(out_len, UINT16_MAX);
	TALLOC_FREE(out);
	/* auth present with an empty value would not pull as auth */
	pdu.u.rsp.stub_len = 0;
	pdu.has_auth = true;
	assert_false(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	/* a sec_addr the pull would refuse is refused by the push */
	pdu = (struct dcerpc_pdu){
		.hdr = hdr(DCERPC_PT_BIND_ACK, 3, 1),
		.u.ack = { .sec_addr = bad_addr, .sec_addr_len = 4 },
	};
	assert_false(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
	pdu.hdr.ptype = 1;
	assert_false(IS_OK(dcerpc_pdu_push(ctx, &pdu, &out, &out_len)));
}

static void write_seed(const char *dir, const char *name,
		       const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f = NULL;

	snprintf(path, sizeof(path), "%s/dcerpc", dir);
	if (mkdir(path, 0755) != 0) {
		assert_int_equal(errno, EEXIST);
	}
	snprintf(path, sizeof(path), "%s/dcerpc/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* SMB2_CORPUS_DIR=tests/fuzz/corpus build/tests/unit/test_dcerpc */
static void test_dcerpc_corpus__write(void **state)
{
	const char *dir = getenv("SMB2_CORPUS_DIR");

	if (dir == NULL) {
		skip();
	}
	write_seed(dir, "bind", v_bind, sizeof(v_bind));
	write_seed(dir, "alter_context", v_alter, sizeof(v_alter));
	write_seed(dir, "bind_ack", v_bind_ack, sizeof(v_bind_ack));
	write_seed(dir, "alter_context_resp", v_alter_resp,
		   sizeof(v_alter_resp));
	write_seed(dir, "bind_nak", v_bind_nak, sizeof(v_bind_nak));
	write_seed(dir, "request", v_request, sizeof(v_request));
	write_seed(dir, "request_object", v_request_obj,
		   sizeof(v_request_obj));
	write_seed(dir, "request_auth", v_request_auth,
		   sizeof(v_request_auth));
	write_seed(dir, "response", v_response, sizeof(v_response));
	write_seed(dir, "fault", v_fault, sizeof(v_fault));
	write_seed(dir, "shutdown", v_shutdown, sizeof(v_shutdown));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_pdu__bind),
		T(test_pdu__alter_context),
		T(test_pdu__bind_ack),
		T(test_pdu__alter_context_resp),
		T(test_pdu__bind_nak),
		T(test_pdu__request),
		T(test_pdu__request_object_uuid),
		T(test_pdu__request_auth),
		T(test_pdu__response),
		T(test_pdu__fault),
		T(test_pdu__shutdown_header_only),
		T(test_pdu__every_truncation),
		T(test_pdu__auth_truncation),
		T(test_hdr__malformed),
		T(test_auth__malformed),
		T(test_bind__malformed),
		T(test_bind__limits_pass),
		T(test_bind_ack__malformed),
		T(test_bind_nak__malformed),
		T(test_push__limits),
		T(test_dcerpc_corpus__write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
