/*
 * The DCE/RPC pipe layer of source3/rpc_server (rpc_pipe.c), driven only
 * through rpc_server.h: bind and alter_context negotiation, requests
 * and the faults they can end in.  Every write is a guard-page copy;
 * answers are pulled back with lib/dcerpc and compared byte for byte or
 * field by field.  Fragmentation is test_rpc_server_frag.c, input that
 * lies test_rpc_server_badinput.c, the srvsvc and wkssvc calls
 * test_rpc_server_srvsvc.c.  With SMB2_CORPUS_DIR set,
 * test_rpc_corpus__write writes sessions as seeds for
 * tests/fuzz/fuzz_rpc_pipe.c (tests/fuzz/corpus/rpc_pipe/).
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/rpc_server_test_util.h"

static void test_open__names(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct rt_client f;
	struct rpc_pipe *p = (struct rpc_pipe *)&f;

	rt_client_init(&f, false);
	assert_true(rpc_pipe_known("srvsvc"));
	/* the name as given: Samba refuses "\\srvsvc" too */
	assert_false(rpc_pipe_known("\\srvsvc"));
	assert_true(rpc_pipe_known("SRVSVC"));
	assert_true(rpc_pipe_known("WksSvc"));
	assert_false(rpc_pipe_known("lsarpc"));
	assert_false(rpc_pipe_known(""));
	assert_false(rpc_pipe_known("srvsvc2"));
	assert_false(rpc_pipe_known("srv"));
	assert_true(NT_STATUS_EQUAL(rpc_pipe_open(ctx, "samr", &f.c, &p),
				    NT_STATUS_OBJECT_NAME_NOT_FOUND));
	/* *out untouched on failure */
	assert_ptr_equal(p, (struct rpc_pipe *)&f);
	p = rt_open(ctx, "SRVSVC", &f);
	TALLOC_FREE(p);
	/* the client's strings were copied: a NULL one becomes "" */
	f.c.server_comment = NULL;
	p = rt_open(ctx, "wkssvc", &f);
	TALLOC_FREE(p);
}

/* The hand-laid bind gets the hand-laid bind_ack, byte for byte. */
static void test_bind__srvsvc_ndr20(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	uint8_t *out = NULL;
	size_t len = 0;
	uint32_t assoc = 0;

	rt_client_init(&f, false);
	p = rt_open(ctx, "srvsvc", &f);
	rt_write_ok(p, v_bind_srvsvc, sizeof(v_bind_srvsvc));
	assert_false(rpc_pipe_disconnected(p));
	out = rt_read_all(ctx, p, &len);
	assert_int_equal(len, sizeof(v_bind_ack_srvsvc));
	assoc = (uint32_t)out[20] | (uint32_t)out[21] << 8 |
		(uint32_t)out[22] << 16 | (uint32_t)out[23] << 24;
	/* a group of its own, never 0 (MS-RPCE 3.3.1.5.3) */
	assert_int_not_equal(assoc, 0);
	memset(out + 20, 0, 4);
	assert_memory_equal(out, v_bind_ack_srvsvc, len);
	TALLOC_FREE(out);
	TALLOC_FREE(p);
}

/* max frags: the smaller of the client's and 4280, each way. */
static void test_bind__frag_sizes(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct rt_client f;
	struct dcerpc_syntax ndr = dcerpc_syntax_ndr20;
	struct dcerpc_ctx_elem e = rt_elem(0, &dcerpc_syntax_srvsvc, &ndr, 1);
	static const uint16_t in[][2] = {
		{ 4280, 4280 }, { 5840, 5840 }, { 1024, 2048 },
		{ 0xffff, 64 }, { 64, 0xffff },
	};
	size_t i;

	rt_client_init(&f, false);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct rpc_pipe *p = rt_open(ctx, "srvsvc", &f);
		struct dcerpc_pdu ack;
		size_t len = 0;
		uint8_t *b = rt_bind(ctx, DCERPC_PT_BIND, 9, in[i][0],
				     in[i][1], &e, 1, &len);
		uint16_t xmit = in[i][1] < 4280 ? in[i][1] : 4280;
		uint16_t recv = in[i][0] < 4280 ? in[i][0] : 4280;

		rt_write_ok(p, b, len);
		rt_one(b, p, DCERPC_PT_BIND_ACK, &ack);
		assert_int_equal(ack.hdr.call_id, 9);
		/* we send what the client can receive, and vice versa */
		assert_int_equal(ack.u.ack.max_xmit_frag, xmit);
		assert_int_equal(ack.u.ack.max_recv_frag, recv);
		assert_true(ack.u.ack.max_xmit_frag <= 4280);
		assert_true(ack.u.ack.max_recv_frag <= 4280);
		assert_string_equal(ack.u.ack.sec_addr, "\\PIPE\\srvsvc");
		assert_int_equal(ack.u.ack.sec_addr_len, 13);
		TALLOC_FREE(b);		/* and ack with it */
		TALLOC_FREE(p);
	}
}

/* Binds and one result per context, in the order offered. */
static void bind_results(TALLOC_CTX *ctx, const char *pipe,
			 struct dcerpc_ctx_elem *e, uint8_t n,
			 const uint16_t (*want)[2])
{
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct dcerpc_pdu ack;
	size_t len = 0;
	uint8_t *b = NULL;
	uint8_t i;

	rt_client_init(&f, false);
	p = rt_open(ctx, pipe, &f);
	b = rt_bind(ctx, DCERPC_PT_BIND, 5, 4280, 4280, e, n, &len);
	rt_write_ok(p, b, len);
	TALLOC_FREE(b);
	rt_one(p, p, DCERPC_PT_BIND_ACK, &ack);	/* freed with p */
	assert_int_equal(ack.u.ack.num_results, n);
	for (i = 0; i < n; i++) {
		const struct dcerpc_ctx_result *r = &ack.u.ack.results[i];

		assert_int_equal(r->result, want[i][0]);
		assert_int_equal(r->reason, want[i][1]);
		if (r->result == DCERPC_RESULT_ACCEPTANCE) {
			assert_true(dcerpc_syntax_equal(&r->transfer,
							&dcerpc_syntax_ndr20));
		} else {
			struct dcerpc_syntax zero = {};

			assert_true(dcerpc_syntax_equal(&r->transfer, &zero));
		}
	}
	assert_false(rpc_pipe_disconnected(p));
	TALLOC_FREE(p);
}

static void test_bind__wrong_interface(void **state)
{
	struct dcerpc_syntax ndr = dcerpc_syntax_ndr20;
	struct dcerpc_ctx_elem e[3] = {
		rt_elem(0, &dcerpc_syntax_wkssvc, &ndr, 1),
		rt_elem(1, &dcerpc_syntax_srvsvc, &ndr, 1),
		rt_elem(2, &dcerpc_syntax_srvsvc, &ndr, 1),
	};
	static const uint16_t want[3][2] = {
		{ DCERPC_RESULT_PROVIDER_REJECTION, 1 },
		{ DCERPC_RESULT_PROVIDER_REJECTION, 1 },
		{ DCERPC_RESULT_PROVIDER_REJECTION, 1 },
	};

	/* wkssvc on the srvsvc pipe; srvsvc 3.1 and 2.0: not ours */
	e[1].abstract.minor = 1;
	e[2].abstract.major = 2;
	bind_results(*state, "srvsvc", e, 3, want);
	/* and srvsvc on the wkssvc pipe */
	e[0] = rt_elem(0, &dcerpc_syntax_srvsvc, &ndr, 1);
	bind_results(*state, "wkssvc", e, 1, want);
}

static void test_bind__transfer_syntaxes(void **state)
{
	struct dcerpc_syntax ndr64 = dcerpc_syntax_ndr64;
	struct dcerpc_syntax ndr20 = dcerpc_syntax_ndr20;
	struct dcerpc_syntax both[2] = { dcerpc_syntax_ndr64,
					 dcerpc_syntax_ndr20 };
	/* bind time feature negotiation (MS-RPCE 3.3.1.5.3) */
	struct dcerpc_syntax btfn = {
		.uuid = { 0x6cb71c2c, 0x9812, 0x4540, { 0x03, 0x00 },
			  { 0, 0, 0, 0, 0, 0 } },
		.major = 1,
	};
	struct dcerpc_ctx_elem e[3] = {
		rt_elem(0, &dcerpc_syntax_srvsvc, &ndr64, 1),
		rt_elem(1, &dcerpc_syntax_srvsvc, &ndr20, 1),
		rt_elem(2, &dcerpc_syntax_srvsvc, both, 2),
	};
	static const uint16_t want[3][2] = {
		{ DCERPC_RESULT_PROVIDER_REJECTION, 2 },
		{ DCERPC_RESULT_ACCEPTANCE, 0 },
		{ DCERPC_RESULT_ACCEPTANCE, 0 },
	};

	/* NDR64 alone: reason 2 */
	bind_results(*state, "srvsvc", e, 1, want);
	/* NDR64 context then NDR20 context: one rejected, one accepted */
	bind_results(*state, "srvsvc", e, 2, want);
	/* NDR64 and NDR20 in one context: NDR20 chosen */
	bind_results(*state, "srvsvc", e, 3, want);
	/* the bind time feature negotiation syntax alone: reason 2 */
	e[0] = rt_elem(0, &dcerpc_syntax_srvsvc, &btfn, 1);
	bind_results(*state, "srvsvc", e, 2, want);
}


/* A context that was not accepted cannot be called; the other can. */
static void test_bind__rejected_context_unusable(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct dcerpc_syntax ndr64 = dcerpc_syntax_ndr64;
	struct dcerpc_syntax ndr20 = dcerpc_syntax_ndr20;
	struct dcerpc_ctx_elem e[2] = {
		rt_elem(0, &dcerpc_syntax_srvsvc, &ndr64, 1),
		rt_elem(1, &dcerpc_syntax_srvsvc, &ndr20, 1),
	};
	struct rt_reply r;
	size_t len = 0;
	uint8_t *b = rt_bind(t, DCERPC_PT_BIND, 1, 4280, 4280, e, 2, &len);
	uint8_t *stub = NULL;

	rt_client_init(&f, false);
	p = rt_open(t, "srvsvc", &f);
	rt_write_ok(p, b, len);
	(void)rt_read_all(t, p, &len);
	stub = rt_stub_level(t, 100, &len);
	rt_call(t, p, 2, 0, OP_SERVER_GET_INFO, stub, len, &r);
	assert_true(r.fault);
	assert_int_equal(r.status, DCERPC_NCA_S_UNK_IF);
	assert_int_equal(r.flags, 0x23);
	assert_int_equal(r.cont_id, 0);
	rt_call(t, p, 3, 1, OP_SERVER_GET_INFO, stub, len, &r);
	assert_false(r.fault);
	assert_int_equal(r.cont_id, 1);
	assert_false(rpc_pipe_disconnected(p));
	TALLOC_FREE(t);
}

static void test_bind__with_auth_trailer(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct dcerpc_syntax ndr = dcerpc_syntax_ndr20;
	struct dcerpc_ctx_elem e = rt_elem(0, &dcerpc_syntax_srvsvc, &ndr, 1);
	static const uint8_t ntlm[16] = "NTLMSSP\0\1\0\0\0\0\0\0";
	struct dcerpc_pdu pdu = {
		.hdr = { .ptype = DCERPC_PT_BIND, .pfc_flags = 3,
			 .call_id = 4, .auth_length = sizeof(ntlm) },
		.has_auth = true,
		.auth = { .auth_type = 10, .auth_level = 6,
			  .auth_context_id = 1, .value = ntlm },
		.u.bind = { .max_xmit_frag = 4280, .max_recv_frag = 4280,
			    .num_contexts = 1, .ctx = &e },
	};
	uint8_t *b = NULL;
	size_t len = 0;

	assert_true(IS_OK(dcerpc_pdu_push(t, &pdu, &b, &len)));
	rt_client_init(&f, false);
	p = rt_open(t, "srvsvc", &f);
	rt_write_ok(p, b, len);
	rt_assert_nak(t, p, 4, DCERPC_NAK_AUTHENTICATION_TYPE_NOT_RECOGNIZED);
	TALLOC_FREE(t);
}

static void test_bind__second_bind(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	uint8_t again[sizeof(v_bind_srvsvc)];

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	memcpy(again, v_bind_srvsvc, sizeof(again));
	again[12] = 0x77;			/* call_id 0x1277 */
	rt_write_ok(p, again, sizeof(again));
	rt_assert_proto_error(t, p, 0x1277);
	TALLOC_FREE(t);
}

/*
 * A common header we cannot read (version, drep, frag_length): a
 * bind_nak naming 5.0, with the call_id from where version 5 has it, as
 * Samba answers.
 */
static void test_bind__bad_common_header(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint8_t nak[21] = {
		5, 0, DCERPC_PT_BIND_NAK, 0x03, 0x10, 0, 0, 0, 21, 0, 0, 0,
		0x34, 0x12, 0, 0,
		4, 0, 1, 5, 0,
	};
	/* byte offset, value: rpc_vers, rpc_vers_minor, drep[0] x2 */
	static const uint8_t bad[][2] = {
		{ 0, 4 }, { 0, 6 }, { 1, 1 }, { 4, 0x00 }, { 4, 0x11 },
	};
	struct rt_client f;
	size_t i;

	rt_client_init(&f, false);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rpc_pipe *p = rt_open(t, "srvsvc", &f);
		uint8_t b[sizeof(v_bind_srvsvc)];
		uint8_t *out = NULL;
		size_t len = 0;

		memcpy(b, v_bind_srvsvc, sizeof(b));
		b[bad[i][0]] = bad[i][1];
		rt_write_ok(p, b, sizeof(b));
		assert_true(rpc_pipe_disconnected(p));
		out = rt_read_all(t, p, &len);
		assert_int_equal(len, sizeof(nak));
		assert_memory_equal(out, nak, sizeof(nak));
		rt_assert_ended(p);
		TALLOC_FREE(p);
	}
	TALLOC_FREE(t);
}

/* Fragment sizes under 64 (no room for a fault with a stub): nak 2. */
static void test_bind__tiny_frag_sizes(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct dcerpc_syntax ndr = dcerpc_syntax_ndr20;
	struct dcerpc_ctx_elem e = rt_elem(0, &dcerpc_syntax_srvsvc, &ndr, 1);
	static const uint16_t in[][2] = { { 63, 4280 }, { 4280, 63 },
					  { 0, 0 } };
	struct rt_client f;
	size_t i;

	rt_client_init(&f, false);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct rpc_pipe *p = rt_open(t, "srvsvc", &f);
		size_t len = 0;
		uint8_t *b = rt_bind(t, DCERPC_PT_BIND, 3, in[i][0], in[i][1],
				     &e, 1, &len);

		rt_write_ok(p, b, len);
		rt_assert_nak(t, p, 3, DCERPC_NAK_LOCAL_LIMIT_EXCEEDED);
		TALLOC_FREE(p);
	}
	TALLOC_FREE(t);
}

/* A bind whose body does not decode: nak 0, its call_id echoed. */
static void test_bind__malformed_body(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	size_t cut;

	rt_client_init(&f, false);
	/* every shorter body (frag_length fixed up), and n_context 0 */
	for (cut = 16; cut <= sizeof(v_bind_srvsvc); cut++) {
		struct rpc_pipe *p = rt_open(t, "srvsvc", &f);
		uint8_t b[sizeof(v_bind_srvsvc)];

		memcpy(b, v_bind_srvsvc, sizeof(b));
		if (cut == sizeof(b)) {
			b[24] = 0;
		}
		b[8] = (uint8_t)cut;
		rt_write_ok(p, b, cut);
		rt_assert_nak(t, p, 0x1234, DCERPC_NAK_REASON_NOT_SPECIFIED);
		TALLOC_FREE(p);
	}
	TALLOC_FREE(t);
}

static void test_alter_context__adds_context(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct dcerpc_syntax ndr = dcerpc_syntax_ndr20;
	struct dcerpc_ctx_elem e[2] = {
		rt_elem(1, &dcerpc_syntax_srvsvc, &ndr, 1),
		rt_elem(2, &dcerpc_syntax_wkssvc, &ndr, 1),
	};
	struct dcerpc_pdu ack, resp;
	struct rt_reply r;
	size_t len = 0;
	uint8_t *b = NULL;
	uint8_t *stub = rt_stub_level(t, 100, &len);
	size_t stub_len = len;

	rt_client_init(&f, false);
	p = rt_open(t, "srvsvc", &f);
	e[0].cont_id = 0;
	b = rt_bind(t, DCERPC_PT_BIND, 1, 2048, 1024, e, 1, &len);
	rt_write_ok(p, b, len);
	rt_one(t, p, DCERPC_PT_BIND_ACK, &ack);
	/* context 1 is not there yet */
	rt_call(t, p, 2, 1, OP_SERVER_GET_INFO, stub, stub_len, &r);
	assert_true(r.fault);
	assert_int_equal(r.status, DCERPC_NCA_S_UNK_IF);
	e[0].cont_id = 1;
	b = rt_bind(t, DCERPC_PT_ALTER_CONTEXT, 3, 4280, 4280, e, 2, &len);
	rt_write_ok(p, b, len);
	rt_one(t, p, DCERPC_PT_ALTER_CONTEXT_RESP, &resp);
	assert_int_equal(resp.hdr.call_id, 3);
	/* no secondary address; sizes and group as the bind set them */
	assert_int_equal(resp.u.ack.sec_addr_len, 0);
	assert_null(resp.u.ack.sec_addr);
	assert_int_equal(resp.u.ack.max_xmit_frag, 1024);
	assert_int_equal(resp.u.ack.max_recv_frag, 2048);
	assert_int_equal(resp.u.ack.assoc_group_id, ack.u.ack.assoc_group_id);
	assert_int_equal(resp.u.ack.num_results, 2);
	assert_int_equal(resp.u.ack.results[0].result,
			 DCERPC_RESULT_ACCEPTANCE);
	assert_int_equal(resp.u.ack.results[1].result,
			 DCERPC_RESULT_PROVIDER_REJECTION);
	assert_int_equal(resp.u.ack.results[1].reason, 1);
	rt_call(t, p, 4, 1, OP_SERVER_GET_INFO, stub, stub_len, &r);
	assert_false(r.fault);
	assert_int_equal(r.cont_id, 1);
	rt_call(t, p, 5, 2, OP_SERVER_GET_INFO, stub, stub_len, &r);
	assert_true(r.fault);
	assert_int_equal(r.status, DCERPC_NCA_S_UNK_IF);
	assert_false(rpc_pipe_disconnected(p));
	TALLOC_FREE(t);
}

static void test_alter_context__before_bind(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct dcerpc_syntax ndr = dcerpc_syntax_ndr20;
	struct dcerpc_ctx_elem e = rt_elem(0, &dcerpc_syntax_srvsvc, &ndr, 1);
	size_t len = 0;
	uint8_t *b = rt_bind(t, DCERPC_PT_ALTER_CONTEXT, 6, 4280, 4280, &e, 1,
			     &len);

	rt_client_init(&f, false);
	p = rt_open(t, "srvsvc", &f);
	rt_write_ok(p, b, len);
	rt_assert_proto_error(t, p, 6);
	TALLOC_FREE(t);
}

/*
 * A request on a pipe not bound: nca_s_proto_error (byte for byte),
 * and the association ends once the fault is read.
 */
static void test_request__before_bind(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint8_t fault[FAULT_LEN] = {
		5, 0, DCERPC_PT_FAULT, 0x03, 0x10, 0, 0, 0, 32, 0, 0, 0,
		2, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0x0b, 0x00, 0x01, 0x1c, 0, 0, 0, 0,
	};
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	uint8_t *out = NULL;
	size_t len = 0;

	rt_client_init(&f, false);
	p = rt_open(t, "srvsvc", &f);
	rt_write_ok(p, v_enum_all_1, sizeof(v_enum_all_1));
	assert_true(rpc_pipe_disconnected(p));
	rt_assert_ended(p);
	out = rt_read_all(t, p, &len);
	assert_int_equal(len, sizeof(fault));
	assert_memory_equal(out, fault, sizeof(fault));
	assert_true(rpc_pipe_disconnected(p));
	assert_true(NT_STATUS_EQUAL(rt_write(p, v_enum_all_1,
					     sizeof(v_enum_all_1)),
				    NT_STATUS_PIPE_DISCONNECTED));
	rt_nothing(p);
	/* the list was never asked for */
	assert_int_equal(f.calls, 0);
	TALLOC_FREE(t);
}

/* NetSrvGetInfo 100 from hand-laid bytes, the response byte for byte. */
static void test_request__hand_laid(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	uint8_t want[24 + sizeof(v_srv_info_100_stub)] = {
		5, 0, DCERPC_PT_RESPONSE, 0x03, 0x10, 0, 0, 0, 72, 0, 0, 0,
		3, 0, 0, 0,
		48, 0, 0, 0, 0, 0, 0, 0,	/* alloc_hint, ctx, cancel */
	};
	uint8_t *out = NULL;
	size_t len = 0;

	memcpy(want + 24, v_srv_info_100_stub, sizeof(v_srv_info_100_stub));
	rt_client_init(&f, false);
	p = rt_open(t, "srvsvc", &f);
	rt_write_ok(p, v_bind_srvsvc, sizeof(v_bind_srvsvc));
	(void)rt_read_all(t, p, &len);
	rt_write_ok(p, v_srv_info_100, sizeof(v_srv_info_100));
	out = rt_read_all(t, p, &len);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
	/* and the enumeration from hand-laid bytes is a response too */
	rt_write_ok(p, v_enum_all_1, sizeof(v_enum_all_1));
	out = rt_read_all(t, p, &len);
	assert_true(len > 24);
	assert_int_equal(out[2], DCERPC_PT_RESPONSE);
	assert_int_equal(out[12], 2);
	TALLOC_FREE(t);
}

/* The stub builder lays out what the hand-laid vector has. */
static void test_request__stub_builder(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	size_t len = 0;
	uint8_t *stub = rt_stub_enum(t, 1, true, 0, &len);
	uint8_t *req = NULL;

	assert_int_equal(len, sizeof(v_enum_all_1) - 24);
	assert_memory_equal(stub, v_enum_all_1 + 24, len);
	req = rt_request(t, 2, 0, 15, 3, stub, len, &len);
	assert_int_equal(len, sizeof(v_enum_all_1));
	assert_memory_equal(req, v_enum_all_1, len);
	TALLOC_FREE(t);
}

/* Unknown opnums: nca_s_op_rng_error, did not execute; the pipe lives. */
static void test_request__unknown_opnum(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint16_t srv_ops[] = { 0, 1, 14, 17, 20, 22, 35, 37,
					    0xffff };
	static const uint8_t fault[FAULT_LEN] = {
		5, 0, DCERPC_PT_FAULT, 0x23, 0x10, 0, 0, 0, 32, 0, 0, 0,
		0x42, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0x02, 0x00, 0x01, 0x1c, 0, 0, 0, 0,
	};
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t stub_len = 0;
	uint8_t *stub = rt_stub_level(t, 100, &stub_len);
	size_t i;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	for (i = 0; i < sizeof(srv_ops) / sizeof(srv_ops[0]); i++) {
		size_t len = 0;
		uint8_t *req = rt_request(t, 0x42, 0, srv_ops[i], 3, stub,
					  stub_len, &len);
		uint8_t *out = NULL;

		rt_write_ok(p, req, len);
		out = rt_read_all(t, p, &len);
		assert_int_equal(len, sizeof(fault));
		assert_memory_equal(out, fault, sizeof(fault));
		assert_false(rpc_pipe_disconnected(p));
	}
	(void)rt_ok(t, p, OP_SERVER_GET_INFO, stub, stub_len, &stub_len);
	p = rt_open_bound(t, "wkssvc", &f, 4280, 4280);
	stub = rt_stub_level(t, 100, &stub_len);
	for (i = 1; i < 4; i++) {
		size_t len = 0;
		uint8_t *req = rt_request(t, 8, 0, (uint16_t)i, 3, stub,
					  stub_len, &len);

		rt_write_ok(p, req, len);
		rt_assert_fault(t, p, 8, 0, DCERPC_NCA_S_OP_RNG_ERROR, 0x23);
	}
	(void)rt_ok(t, p, OP_WKSTA_GET_INFO, stub, stub_len, &stub_len);
	TALLOC_FREE(t);
}

static void test_request__unknown_context(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t len = 0;
	uint8_t *stub = rt_stub_level(t, 100, &len);
	struct rt_reply r;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	rt_call(t, p, 11, 5, OP_SERVER_GET_INFO, stub, len, &r);
	assert_true(r.fault);
	assert_int_equal(r.status, DCERPC_NCA_S_UNK_IF);
	assert_int_equal(r.flags, 0x23);
	assert_int_equal(r.cont_id, 5);
	/* an unknown context wins over an unknown opnum */
	rt_call(t, p, 12, 0xffff, 0xffff, stub, len, &r);
	assert_int_equal(r.status, DCERPC_NCA_S_UNK_IF);
	assert_false(rpc_pipe_disconnected(p));
	TALLOC_FREE(t);
}

/* Every prefix of each call's stub: a bad stub fault, the pipe lives. */
static void truncations(TALLOC_CTX *t, struct rpc_pipe *p, uint16_t opnum,
			const uint8_t *stub, size_t len)
{
	size_t cut;
	size_t n = 0;
	uint8_t *out = NULL;

	for (cut = 0; cut < len; cut++) {
		struct rt_reply r;

		rt_call(t, p, (uint32_t)cut, 0, opnum, stub, cut, &r);
		assert_true(r.fault);
		assert_int_equal(r.status, DCERPC_FAULT_BAD_STUB_DATA);
		/* it ran (and failed to decode): no DID_NOT_EXECUTE */
		assert_int_equal(r.flags, 0x03);
		assert_false(rpc_pipe_disconnected(p));
		TALLOC_FREE(r.stub);
	}
	out = rt_ok(t, p, opnum, stub, len, &n);
	assert_true(n > 0);
	TALLOC_FREE(out);
}

static void test_request__truncated_stubs(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint32_t enum_levels[] = { 0, 1, 2, 501, 502 };
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	uint8_t *stub = NULL;
	size_t len = 0;
	size_t i;

	rt_client_init(&f, true);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	for (i = 0; i < sizeof(enum_levels) / sizeof(enum_levels[0]); i++) {
		stub = rt_stub_enum(t, enum_levels[i], true, 0, &len);
		truncations(t, p, OP_SHARE_ENUM_ALL, stub, len);
		truncations(t, p, OP_SHARE_ENUM, stub, len);
		stub = rt_stub_enum(t, enum_levels[i], false, 0, &len);
		truncations(t, p, OP_SHARE_ENUM, stub, len);
	}
	stub = rt_stub_get_info(t, "data", 1, &len);
	truncations(t, p, OP_SHARE_GET_INFO, stub, len);
	stub = rt_stub_level(t, 102, &len);
	truncations(t, p, OP_SERVER_GET_INFO, stub, len);
	p = rt_open_bound(t, "wkssvc", &f, 4280, 4280);
	truncations(t, p, OP_WKSTA_GET_INFO, stub, len);
	TALLOC_FREE(t);
}

static void test_request__with_auth_trailer(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	static const uint8_t sig[16] = { 1 };
	struct dcerpc_pdu pdu = {
		.hdr = { .ptype = DCERPC_PT_REQUEST, .pfc_flags = 3,
			 .call_id = 21, .auth_length = sizeof(sig) },
		.has_auth = true,
		.auth = { .auth_type = 10, .auth_level = 5, .value = sig },
		.u.req = { .opnum = OP_SERVER_GET_INFO,
			   .stub = v_srv_info_100 + 24, .stub_len = 8 },
	};
	uint8_t *b = NULL;
	size_t len = 0;

	assert_true(IS_OK(dcerpc_pdu_push(t, &pdu, &b, &len)));
	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	rt_write_ok(p, b, len);
	rt_assert_proto_error(t, p, 21);
	TALLOC_FREE(t);
}

/* Types only a server sends, or no one: a protocol error. */
static void test_request__unexpected_types(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint8_t types[] = {
		DCERPC_PT_RESPONSE, DCERPC_PT_FAULT, DCERPC_PT_BIND_ACK,
		DCERPC_PT_BIND_NAK, DCERPC_PT_ALTER_CONTEXT_RESP,
		DCERPC_PT_AUTH3, DCERPC_PT_SHUTDOWN, 1, 4, 20, 0xff,
	};
	struct rt_client f;
	size_t i;

	rt_client_init(&f, false);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct rpc_pipe *p = rt_open_bound(t, "srvsvc", &f, 4280,
						   4280);
		/* a header and 40 zero bytes: each known type's body pulls */
		uint8_t b[56] = {
			5, 0, types[i], 0x03, 0x10, 0, 0, 0, 56, 0, 0, 0,
			0x30, 0, 0, 0,
		};

		if (types[i] == DCERPC_PT_BIND_ACK ||
		    types[i] == DCERPC_PT_ALTER_CONTEXT_RESP) {
			b[24] = 0;	/* sec_addr_len 0, 0 results */
		}
		rt_write_ok(p, b, sizeof(b));
		rt_assert_proto_error(t, p, 0x30);
		TALLOC_FREE(p);
	}
	TALLOC_FREE(t);
}

/*
 * co_cancel is ignored; orphaned drops the call being gathered, so its
 * next fragment is a protocol error but a new call works.
 */
static void test_request__orphaned_and_cancel(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint8_t cancel[16] = {
		5, 0, DCERPC_PT_CO_CANCEL, 0x03, 0x10, 0, 0, 0, 16, 0, 0, 0,
		9, 0, 0, 0,
	};
	uint8_t orphaned[16];
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t stub_len = 0;
	uint8_t *stub = rt_stub_level(t, 101, &stub_len);
	size_t len = 0;
	uint8_t *first = rt_request(t, 9, 0, OP_SERVER_GET_INFO, 1, stub, 8,
				    &len);
	size_t first_len = len;
	uint8_t *last = rt_request(t, 9, 0, OP_SERVER_GET_INFO, 2, stub + 8,
				   stub_len - 8, &len);
	size_t last_len = len;

	memcpy(orphaned, cancel, sizeof(orphaned));
	orphaned[2] = DCERPC_PT_ORPHANED;
	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	rt_write_ok(p, first, first_len);
	rt_write_ok(p, cancel, sizeof(cancel));
	rt_nothing(p);
	rt_write_ok(p, last, last_len);
	/* the cancel did not stop the call: it is answered */
	{
		struct rt_reply r;
		uint8_t *out = rt_read_all(t, p, &len);

		rt_reassemble(t, out, len, 9, 4280, &r);
		assert_false(r.fault);
	}
	rt_write_ok(p, first, first_len);
	rt_write_ok(p, orphaned, sizeof(orphaned));
	rt_nothing(p);
	(void)rt_ok(t, p, OP_SERVER_GET_INFO, stub, stub_len, &len);
	rt_write_ok(p, first, first_len);
	rt_write_ok(p, orphaned, sizeof(orphaned));
	rt_write_ok(p, last, last_len);
	rt_assert_proto_error(t, p, 9);
	TALLOC_FREE(t);
}

/*
 * Seeds for what the sessions above do not reach: responses in many
 * fragments (100 shares, max_recv_frag 64), alter_context, an auth
 * trailer, a frag_length that lies, a fragment over max_recv_frag.
 */
static void corpus_more(TALLOC_CTX *t, const char *dir)
{
	struct dcerpc_syntax ndr = dcerpc_syntax_ndr20;
	struct dcerpc_ctx_elem e[2] = {
		rt_elem(0, &dcerpc_syntax_srvsvc, &ndr, 1),
		rt_elem(1, &dcerpc_syntax_wkssvc, &ndr, 1),
	};
	uint8_t buf[1024];
	size_t len = 0, n = 0;
	uint8_t *b = rt_bind(t, DCERPC_PT_BIND, 1, 1024, 64, e, 1, &len);
	uint8_t *stub = NULL;

	memcpy(buf, b, len);
	n = len;
	stub = rt_stub_enum(t, 1, true, 0, &len);
	b = rt_request(t, 2, 0, OP_SHARE_ENUM_ALL, 3, stub, len, &len);
	memcpy(buf + n, b, len);
	n += len;
	rt_write_seed(dir, "response_fragments", 8, buf, n, 255);
	e[0].cont_id = 1;
	b = rt_bind(t, DCERPC_PT_ALTER_CONTEXT, 3, 4280, 4280, e, 2, &len);
	memcpy(buf, v_bind_srvsvc, sizeof(v_bind_srvsvc));
	n = sizeof(v_bind_srvsvc);
	memcpy(buf + n, b, len);
	n += len;
	stub = rt_stub_get_info(t, "IPC$", 502, &len);
	b = rt_request(t, 4, 1, OP_SHARE_GET_INFO, 3, stub, len, &len);
	memcpy(buf + n, b, len);
	n += len;
	rt_write_seed(dir, "alter_context", 2, buf, n, 255);
	/* the request of v_enum_all_1 with an 8-byte auth value */
	memcpy(buf, v_bind_srvsvc, sizeof(v_bind_srvsvc));
	memcpy(buf + 72, v_enum_all_1, sizeof(v_enum_all_1));
	buf[72 + 10] = 8;
	rt_write_seed(dir, "request_auth", 0, buf, 72 + 84, 255);
	/* frag_length 4280, 100 bytes sent */
	buf[72 + 8] = 4280 & 0xff;
	buf[72 + 9] = 4280 >> 8;
	buf[72 + 10] = 0;
	rt_write_seed(dir, "frag_length_lies", 0, buf, 72 + 84, 255);
	/* a bind for max 64-byte fragments, then a 84-byte one */
	b = rt_bind(t, DCERPC_PT_BIND, 1, 64, 4280, e, 1, &len);
	memcpy(buf, b, len);
	memcpy(buf + len, v_enum_all_1, sizeof(v_enum_all_1));
	rt_write_seed(dir, "frag_over_max", 0, buf,
		      len + sizeof(v_enum_all_1), 255);
}

/*
 * SMB2_CORPUS_DIR=tests/fuzz/corpus build/tests/unit/test_rpc_server
 * writes these sessions as seeds for tests/fuzz/fuzz_rpc_pipe.c.
 */
static void test_rpc_corpus__write(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	const char *dir = getenv("SMB2_CORPUS_DIR");
	size_t len = 0, n = 0;
	uint8_t *in = NULL, *req = NULL, *stub = NULL;
	uint8_t buf[512];
	size_t cut[2] = { 8, 20 };

	if (dir == NULL) {
		TALLOC_FREE(t);
		skip();
	}
	in = rt_session(t, &len);
	rt_write_seed(dir, "session", 0, in, len, 255);
	rt_write_seed(dir, "session_bytewise", 2, in, len, 1);
	rt_write_seed(dir, "session_odd", 6, in, len, 17);
	rt_write_seed(dir, "request_before_bind", 0, v_enum_all_1,
		      sizeof(v_enum_all_1), 255);
	memcpy(buf, v_bind_srvsvc, sizeof(v_bind_srvsvc));
	memcpy(buf + 72, v_bind_srvsvc, sizeof(v_bind_srvsvc));
	rt_write_seed(dir, "second_bind", 0, buf, 144, 255);
	memcpy(buf, v_bind_wkssvc, sizeof(v_bind_wkssvc));
	n = sizeof(v_bind_wkssvc);
	stub = rt_stub_level(t, 102, &len);
	req = rt_request(t, 2, 0, OP_WKSTA_GET_INFO, 3, stub, len, &len);
	memcpy(buf + n, req, len);
	n += len;
	stub = rt_stub_level(t, 101, &len);
	req = rt_request(t, 3, 0, OP_WKSTA_GET_INFO, 3, stub, len, &len);
	memcpy(buf + n, req, len);
	n += len;
	rt_write_seed(dir, "wkssvc_admin", 3, buf, n, 255);
	rt_write_seed(dir, "wkssvc_anonymous", 5, buf, n, 255);
	/* srvsvc: every enumeration level, get info, a fragmented call */
	{
		static const uint32_t levels[] = { 0, 1, 2, 3, 501, 502 };
		uint8_t big[2048];
		size_t i;

		memcpy(big, v_bind_srvsvc, sizeof(v_bind_srvsvc));
		n = sizeof(v_bind_srvsvc);
		for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
			stub = rt_stub_enum(t, levels[i], i % 2, 1, &len);
			req = rt_request(t, (uint32_t)i, 0,
					 i % 2 ? OP_SHARE_ENUM :
					 OP_SHARE_ENUM_ALL, 3, stub, len,
					 &len);
			memcpy(big + n, req, len);
			n += len;
		}
		stub = rt_stub_get_info(t, "data", 1005, &len);
		req = rt_request(t, 9, 0, OP_SHARE_GET_INFO, 3, stub, len,
				 &len);
		memcpy(big + n, req, len);
		n += len;
		stub = rt_stub_enum(t, 502, true, 0, &len);
		req = rt_three_fragments(t, 10, stub, len, &len, cut);
		memcpy(big + n, req, len);
		n += len;
		assert_true(n <= sizeof(big));
		rt_write_seed(dir, "srvsvc_levels", 2, big, n, 200);
	}
	corpus_more(t, dir);
	TALLOC_FREE(t);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_open__names),
		T(test_bind__srvsvc_ndr20),
		T(test_bind__frag_sizes),
		T(test_bind__wrong_interface),
		T(test_bind__transfer_syntaxes),
		T(test_bind__rejected_context_unusable),
		T(test_bind__with_auth_trailer),
		T(test_bind__second_bind),
		T(test_bind__bad_common_header),
		T(test_bind__tiny_frag_sizes),
		T(test_bind__malformed_body),
		T(test_alter_context__adds_context),
		T(test_alter_context__before_bind),
		T(test_request__before_bind),
		T(test_request__hand_laid),
		T(test_request__stub_builder),
		T(test_request__unknown_opnum),
		T(test_request__unknown_context),
		T(test_request__truncated_stubs),
		T(test_request__with_auth_trailer),
		T(test_request__unexpected_types),
		T(test_request__orphaned_and_cancel),
		T(test_rpc_corpus__write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
