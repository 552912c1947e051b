/*
 * Input that lies, to source3/rpc_server's pipe layer: frag_length and
 * auth_length against what is sent, request fragments without end,
 * stubs over the 256 KiB cap, NDR counts and strings that do not hold,
 * random stubs, and a client that never reads.  Each ends in a fault
 * or a clean disconnect with the pipe's memory bounded (measured with
 * talloc_total_size), never a crash (the ASan build runs these too).
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/rpc_server_test_util.h"

/*
 * frag_length larger than what comes: the pipe waits, holding no more
 * than the fragment; freeing it mid-fragment leaks nothing (teardown).
 * When the rest does come, it is judged as a whole fragment.
 */
static void test_bad__frag_length_longer_than_sent(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	uint8_t b[sizeof(v_bind_srvsvc)];
	uint8_t zeros[4280] = {};
	size_t base = 0;

	rt_client_init(&f, false);
	memcpy(b, v_bind_srvsvc, sizeof(b));
	b[8] = 0xff;				/* frag_length 65535 */
	b[9] = 0xff;
	p = rt_open(t, "srvsvc", &f);
	base = talloc_total_size(p);
	rt_write_ok(p, b, sizeof(b));
	rt_nothing(p);
	assert_false(rpc_pipe_disconnected(p));
	/* the fragment buffer, and nothing per byte beyond it */
	assert_true(talloc_total_size(p) <= base + 65535);
	TALLOC_FREE(p);
	/* after bind the limit is max_recv_frag: 4280 here */
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	b[8] = 4280 & 0xff;
	b[9] = 4280 >> 8;
	b[2] = DCERPC_PT_REQUEST;
	rt_write_ok(p, b, 24);
	rt_nothing(p);
	rt_write_ok(p, zeros, 4280 - 24 - 1);
	rt_nothing(p);
	assert_false(rpc_pipe_disconnected(p));
	/* the last byte: a whole request, opnum 0 (none in srvsvc) */
	rt_write_ok(p, zeros, 1);
	{
		struct rt_reply r;
		size_t len = 0;
		uint8_t *out = rt_read_all(t, p, &len);

		rt_reassemble(t, out, len, 0x1234, 4280, &r);
		assert_true(r.fault);
		assert_int_equal(r.status, DCERPC_NCA_S_OP_RNG_ERROR);
	}
	TALLOC_FREE(t);
}

/* frag_length under the header, 0 up to 15: bind_nak 4, never a wait. */
static void test_bad__frag_length_under_header(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	uint16_t fl;

	rt_client_init(&f, false);
	for (fl = 0; fl < DCERPC_HDR_SIZE; fl++) {
		struct rpc_pipe *p = rt_open(t, "srvsvc", &f);
		uint8_t b[sizeof(v_bind_srvsvc)];

		memcpy(b, v_bind_srvsvc, sizeof(b));
		b[8] = (uint8_t)fl;
		rt_write_ok(p, b, sizeof(b));
		rt_assert_nak(t, p, 0x1234,
			      DCERPC_NAK_PROTOCOL_VERSION_NOT_SUPPORTED);
		TALLOC_FREE(p);
		/* after bind, in a request header: the same clean end */
		p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
		memcpy(b, v_enum_all_1, 16);
		b[8] = (uint8_t)fl;
		rt_write_ok(p, b, 16);
		assert_true(rpc_pipe_disconnected(p));
		assert_int_equal(rpc_pipe_readable(p), 21);
		rt_assert_ended(p);
		TALLOC_FREE(p);
	}
	TALLOC_FREE(t);
}

/* auth_length past the end of the fragment: refused from the header. */
static void test_bad__auth_length_past_end(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	/* 72-byte fragments: body 56, so at most 48 with the trailer */
	static const uint16_t lens[] = { 49, 56, 57, 200, 0xffff };
	struct rt_client f;
	size_t i;

	rt_client_init(&f, false);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct rpc_pipe *p = rt_open(t, "srvsvc", &f);
		uint8_t b[sizeof(v_bind_srvsvc)];

		memcpy(b, v_bind_srvsvc, sizeof(b));
		b[10] = lens[i] & 0xff;
		b[11] = lens[i] >> 8;
		rt_write_ok(p, b, sizeof(b));
		rt_assert_nak(t, p, 0x1234,
			      DCERPC_NAK_PROTOCOL_VERSION_NOT_SUPPORTED);
		TALLOC_FREE(p);
		p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
		memcpy(b, v_enum_all_1, sizeof(b));
		b[8] = sizeof(b);
		b[10] = lens[i] & 0xff;
		b[11] = lens[i] >> 8;
		rt_write_ok(p, b, sizeof(b));
		assert_true(rpc_pipe_disconnected(p));
		rt_assert_ended(p);
		TALLOC_FREE(p);
	}
	/* one that fits but whose auth padding does not: a proto error */
	{
		struct rpc_pipe *p = rt_open_bound(t, "srvsvc", &f, 4280,
						   4280);
		uint8_t b[sizeof(v_enum_all_1)];

		memcpy(b, v_enum_all_1, sizeof(b));
		b[10] = 8;			/* auth_length 8 */
		b[sizeof(b) - 16 + 2] = 200;	/* auth_pad_length */
		rt_write_ok(p, b, sizeof(b));
		rt_assert_proto_error(t, p, 2);
	}
	TALLOC_FREE(t);
}

/* count request fragments of n stub bytes each (zeros), then LAST. */
static uint8_t *many_fragments(TALLOC_CTX *t, uint32_t count, size_t n,
			       size_t *len)
{
	uint8_t *stub = talloc_zero_array(t, uint8_t, n);
	size_t one = 0;
	uint8_t *mid = rt_request(t, 3, 0, OP_SHARE_ENUM_ALL, 0, stub, n,
				  &one);
	uint8_t *all = talloc_array(t, uint8_t, one * count);
	uint32_t i;

	assert_non_null(all);
	for (i = 0; i < count; i++) {
		memcpy(all + i * one, mid, one);
	}
	all[3] = DCERPC_PFC_FIRST_FRAG;
	all[(count - 1) * one + 3] = DCERPC_PFC_LAST_FRAG;
	*len = one * count;
	return all;
}

/*
 * 10,000 fragments of 8 stub bytes (80,000 bytes, under the 256 KiB
 * cap): one response at the end, the pipe never holding much more than
 * the stub so far.
 */
static void test_bad__ten_thousand_fragments(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t len = 0, ofs = 0, base = 0;
	uint8_t *all = many_fragments(t, 10000, 8, &len);
	struct rt_reply r;
	uint8_t *out = NULL;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	base = talloc_total_size(p);
	for (ofs = 0; ofs + 32 * 1000 < len; ofs += 32 * 1000) {
		rt_write_ok(p, all + ofs, 32 * 1000);
		rt_nothing(p);
		/* 8 of each 32 bytes are stub */
		assert_true(talloc_total_size(p) <=
			    base + (ofs + 32 * 1000) / 4 + 4096);
	}
	rt_write_ok(p, all + ofs, len - ofs);
	out = rt_read_all(t, p, &len);
	rt_reassemble(t, out, len, 3, 4280, &r);
	/* zeros decode as NetShareEnumAll level 0 with no resume handle */
	assert_false(r.fault);
	assert_int_equal(r.stub[0], 0);
	assert_false(rpc_pipe_disconnected(p));
	/* the gathered stub is gone again */
	assert_int_equal(talloc_total_size(p), base);
	TALLOC_FREE(t);
}

/*
 * More than 256 KiB of stub in one call: a fault and the end when the
 * fragment that crosses the cap comes, not before; memory stays near
 * the cap.  Also 40,000 fragments of 8 bytes (the cap in small steps).
 */
static void test_bad__stub_over_cap(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	/* stub bytes per fragment, fragments that fit in the cap */
	static const size_t n[][2] = { { 4256, 61 }, { 8, 32768 },
				       { 4000, 65 } };
	struct rt_client f;
	size_t i;

	rt_client_init(&f, false);
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		struct rpc_pipe *p = rt_open_bound(t, "srvsvc", &f, 4280,
						   4280);
		size_t len = 0;
		size_t one = 24 + n[i][0];
		uint8_t *all = many_fragments(t, (uint32_t)n[i][1] + 2,
					      n[i][0], &len);
		size_t base = talloc_total_size(p);

		assert_true(n[i][0] * n[i][1] <= RPC_MAX_REQUEST_STUB);
		assert_true(n[i][0] * (n[i][1] + 1) > RPC_MAX_REQUEST_STUB);
		rt_write_ok(p, all, one * n[i][1]);
		rt_nothing(p);
		assert_false(rpc_pipe_disconnected(p));
		assert_true(talloc_total_size(p) <=
			    base + RPC_MAX_REQUEST_STUB + 4096);
		/* the one over the cap: the fault comes with it */
		rt_write_ok(p, all + one * n[i][1], one);
		rt_assert_proto_error(t, p, 3);
		assert_true(talloc_total_size(p) <= base + 4096);
		TALLOC_FREE(all);
		TALLOC_FREE(p);
	}
	TALLOC_FREE(t);
}

/* A request of exactly 256 KiB of stub is still answered. */
static void test_bad__stub_at_cap(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t len = 0;
	uint8_t *all = many_fragments(t, 64, 4096, &len);
	uint8_t *out = NULL;
	struct rt_reply r;

	assert_int_equal(64 * 4096, RPC_MAX_REQUEST_STUB);
	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	rt_write_ok(p, all, len);
	out = rt_read_all(t, p, &len);
	rt_reassemble(t, out, len, 3, 4280, &r);
	assert_false(r.fault);
	assert_false(rpc_pipe_disconnected(p));
	TALLOC_FREE(t);
}

/* A stub laid out by fn, answered with what check says. */
static struct rt_reply call_stub(TALLOC_CTX *t, struct rpc_pipe *p,
				 uint16_t opnum, struct ndr_push *w)
{
	struct rt_reply r;

	assert_false(w->bad);
	rt_call(t, p, 50, 0, opnum, w->buf, w->len, &r);
	assert_false(rpc_pipe_disconnected(p));
	return r;
}

static void expect_bad_stub(TALLOC_CTX *t, struct rpc_pipe *p,
			    uint16_t opnum, struct ndr_push *w)
{
	struct rt_reply r = call_stub(t, p, opnum, w);

	assert_true(r.fault);
	assert_int_equal(r.status, DCERPC_FAULT_BAD_STUB_DATA);
}

/* The enumeration's InfoStruct with a Buffer of count entries. */
static void push_enum_with_buffer(struct ndr_push *w, uint32_t read,
				  bool buffer, uint32_t count)
{
	rt_push_server_name(w, "\\\\srv");
	ndr_push_u32(w, 1);
	ndr_push_u32(w, 1);
	ndr_push_unique_ptr(w, true);
	ndr_push_u32(w, read);			/* EntriesRead */
	ndr_push_unique_ptr(w, buffer);
	if (buffer) {
		ndr_push_u32(w, count);		/* conformance */
	}
	ndr_push_u32(w, 0xFFFFFFFF);
	ndr_push_unique_ptr(w, false);
}

/* Conformant counts that lie: a bad stub fault, nothing allocated. */
static void test_bad__huge_counts(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct ndr_push w;
	struct rt_reply r;
	size_t base = 0;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	base = talloc_total_size(p);
	w = ndr_push_init(t);
	push_enum_with_buffer(&w, 0xFFFFFFFF, true, 0xFFFFFFFF);
	expect_bad_stub(t, p, OP_SHARE_ENUM_ALL, &w);
	w = ndr_push_init(t);
	push_enum_with_buffer(&w, 0, true, 1);
	expect_bad_stub(t, p, OP_SHARE_ENUM, &w);
	/* EntriesRead is not a count of anything sent: ignored */
	w = ndr_push_init(t);
	push_enum_with_buffer(&w, 0xFFFFFFFF, false, 0);
	r = call_stub(t, p, OP_SHARE_ENUM_ALL, &w);
	assert_false(r.fault);
	assert_int_equal(rt_enum_count(r.stub, r.len), 3);
	/* an empty array sent in is fine too */
	w = ndr_push_init(t);
	push_enum_with_buffer(&w, 0, true, 0);
	r = call_stub(t, p, OP_SHARE_ENUM_ALL, &w);
	assert_false(r.fault);
	/* level and switch disagree */
	w = ndr_push_init(t);
	rt_push_server_name(&w, NULL);
	ndr_push_u32(&w, 1);
	ndr_push_u32(&w, 2);
	ndr_push_unique_ptr(&w, false);
	ndr_push_u32(&w, 0);
	ndr_push_unique_ptr(&w, false);
	expect_bad_stub(t, p, OP_SHARE_ENUM_ALL, &w);
	assert_int_equal(talloc_total_size(p), base);
	TALLOC_FREE(t);
}

/* A [string] referent with the counts given and units as bytes. */
static void push_raw_str(struct ndr_push *w, uint32_t max, uint32_t ofs,
			 uint32_t actual, const char *units, size_t n)
{
	ndr_push_u32(w, max);
	ndr_push_u32(w, ofs);
	ndr_push_u32(w, actual);
	ndr_push_bytes(w, units, n);
}

/* ServerName strings that do not decode, in each call that reads one. */
static void test_bad__strings(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const struct {
		uint32_t max, ofs, actual;
		const char *units;
		size_t n;
	} bad[] = {
		{ 2, 0, 3, "a\0b\0\0\0", 6 },		/* actual > max */
		{ 0xFFFFFFFF, 0, 0xFFFFFFFF, "a\0\0\0", 4 },
		{ 65537, 0, 65537, "a\0\0\0", 4 },	/* over the limit */
		{ 3, 1, 2, "a\0\0\0", 4 },		/* offset 1 */
		{ 1, 0, 0, "", 0 },			/* no units */
		{ 2, 0, 2, "ab\0c", 4 },		/* no NUL */
		{ 3, 0, 3, "a\0\0\0\0\0", 6 },		/* two NULs */
		{ 3, 0, 3, "a\0\0\0", 4 },		/* short */
	};
	static const uint16_t srv_ops[] = { OP_SHARE_ENUM_ALL,
					    OP_SHARE_GET_INFO,
					    OP_SERVER_GET_INFO,
					    OP_SHARE_ENUM };
	struct rt_client f;
	struct rpc_pipe *srv = NULL, *wks = NULL;
	size_t i, j;

	rt_client_init(&f, false);
	srv = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	wks = rt_open_bound(t, "wkssvc", &f, 4280, 4280);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (j = 0; j < 5; j++) {
			struct ndr_push w = ndr_push_init(t);

			ndr_push_unique_ptr(&w, true);
			push_raw_str(&w, bad[i].max, bad[i].ofs,
				     bad[i].actual, bad[i].units, bad[i].n);
			/* then enough zeros for any call's other fields */
			ndr_push_bytes(&w, (const uint8_t[64]){}, 64);
			expect_bad_stub(t, j < 4 ? srv : wks,
					j < 4 ? srv_ops[j] : OP_WKSTA_GET_INFO,
					&w);
		}
		/* and as NetShareGetInfo's NetName */
		{
			struct ndr_push w = ndr_push_init(t);

			rt_push_server_name(&w, NULL);
			push_raw_str(&w, bad[i].max, bad[i].ofs,
				     bad[i].actual, bad[i].units, bad[i].n);
			ndr_push_bytes(&w, (const uint8_t[8]){ 1 }, 8);
			expect_bad_stub(t, srv, OP_SHARE_GET_INFO, &w);
		}
	}
	TALLOC_FREE(t);
}

/* Stubs of random bytes, and a few short ones, in every call. */
static void test_bad__garbage_stubs(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint16_t srv_ops[] = { OP_SHARE_ENUM_ALL,
					    OP_SHARE_GET_INFO,
					    OP_SERVER_GET_INFO,
					    OP_SHARE_ENUM };
	struct rt_client f;
	struct rpc_pipe *srv = NULL, *wks = NULL;
	uint8_t buf[256];
	uint32_t seed = 12345;
	size_t i, j, base = 0;

	rt_client_init(&f, true);
	srv = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	wks = rt_open_bound(t, "wkssvc", &f, 4280, 4280);
	base = talloc_total_size(srv);
	for (i = 0; i < 2000; i++) {
		size_t len = i < 16 ? i : 1 + i % sizeof(buf);
		struct rt_reply r;

		for (j = 0; j < len; j++) {
			seed = seed * 1103515245 + 12345;
			/* small values, so pointers and counts vary */
			buf[j] = (uint8_t)((seed >> 16) % (i % 2 ? 256 : 3));
		}
		rt_call(t, i % 5 == 4 ? wks : srv, (uint32_t)i, 0,
			i % 5 == 4 ? OP_WKSTA_GET_INFO : srv_ops[i % 4],
			buf, len, &r);
		/* a response, or the bad stub fault: nothing else */
		assert_true(!r.fault ||
			    r.status == DCERPC_FAULT_BAD_STUB_DATA);
		assert_false(rpc_pipe_disconnected(srv));
		assert_false(rpc_pipe_disconnected(wks));
		TALLOC_FREE(r.stub);
	}
	/* nothing accumulates on the pipe from call to call */
	assert_int_equal(talloc_total_size(srv), base);
	TALLOC_FREE(t);
}

/*
 * A client that writes requests and never reads: the output stops at
 * RPC_PIPE_MAX_OUTPUT and the pipe ends; what was queued is whole PDUs.
 */
static void test_bad__never_reads(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t len = 0, i;
	uint8_t *stub = rt_stub_enum(t, 1, false, 0, &len);
	uint8_t *req = rt_request(t, 8, 0, OP_SHARE_ENUM_ALL, 3, stub, len,
				  &len);
	struct dcerpc_pdu *pdus = NULL;
	uint8_t *out = NULL;
	size_t n = 0;

	rt_client_init(&f, false);
	rt_client_many(&f, 30);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	for (i = 0; i < 100000 && !rpc_pipe_disconnected(p); i++) {
		assert_true(IS_OK(rpc_pipe_write(p, req, len)));
		assert_true(rpc_pipe_readable(p) <= RPC_PIPE_MAX_OUTPUT);
	}
	assert_true(rpc_pipe_disconnected(p));
	assert_true(i < 100000);
	assert_true(rpc_pipe_readable(p) > RPC_PIPE_MAX_OUTPUT - 4280);
	rt_assert_ended(p);
	out = rt_read_all(t, p, &len);
	n = rt_split(t, out, len, &pdus);
	assert_true(n > 1);
	for (i = 0; i < n; i++) {
		assert_int_equal(pdus[i].hdr.ptype, DCERPC_PT_RESPONSE);
	}
	TALLOC_FREE(t);
}

/*
 * A client that reads all but the last byte of each answer before it
 * writes the next request (SMB2 READ lengths are the client's): the
 * pipe must not keep what was already read.  Only the unread bytes
 * count against RPC_PIPE_MAX_OUTPUT, so memory must stay near them.
 */
static void test_bad__reads_all_but_one_byte(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t len = 0, i, base = 0;
	uint8_t *stub = rt_stub_enum(t, 1, false, 0, &len);
	uint8_t *req = rt_request(t, 8, 0, OP_SHARE_ENUM_ALL, 3, stub, len,
				  &len);
	uint8_t buf[8192];

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	base = talloc_total_size(p);
	for (i = 0; i < 20000; i++) {
		size_t n = 0;

		assert_true(IS_OK(rpc_pipe_write(p, req, len)));
		n = rpc_pipe_readable(p);
		assert_true(n > 1 && n < sizeof(buf));
		assert_int_equal(rpc_pipe_read(p, buf, n - 1), n - 1);
		assert_int_equal(rpc_pipe_readable(p), 1);
		/* what is held: about one answer, not every one so far */
		if (talloc_total_size(p) > base + 64 * 1024) {
			fail_msg("after %zu calls the pipe holds %zu bytes "
				 "for 1 unread", i + 1,
				 talloc_total_size(p) - base);
		}
	}
	assert_false(rpc_pipe_disconnected(p));
	TALLOC_FREE(t);
}

/* After bind, a fragment longer than the client's max_xmit_frag. */
static void test_bad__frag_over_max_recv(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	uint8_t stub[1024 - 24 + 1] = {};
	size_t len = 0;
	uint8_t *req = NULL;
	struct rt_reply r;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 1024, 4280);
	/* exactly 1024: taken (zeros: NetShareEnumAll level 0) */
	rt_call(t, p, 1, 0, OP_SHARE_ENUM_ALL, stub, sizeof(stub) - 1, &r);
	assert_false(r.fault);
	req = rt_request(t, 2, 0, OP_SHARE_ENUM_ALL, 3, stub, sizeof(stub),
			 &len);
	assert_int_equal(len, 1025);
	/* refused from the header alone */
	rt_write_ok(p, req, DCERPC_HDR_SIZE);
	rt_assert_proto_error(t, p, 2);
	/* a client that never bound may send up to 65535 */
	TALLOC_FREE(t);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_bad__frag_length_longer_than_sent),
		T(test_bad__frag_length_under_header),
		T(test_bad__auth_length_past_end),
		T(test_bad__ten_thousand_fragments),
		T(test_bad__stub_over_cap),
		T(test_bad__stub_at_cap),
		T(test_bad__huge_counts),
		T(test_bad__strings),
		T(test_bad__garbage_stubs),
		T(test_bad__never_reads),
		T(test_bad__reads_all_but_one_byte),
		T(test_bad__frag_over_max_recv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
