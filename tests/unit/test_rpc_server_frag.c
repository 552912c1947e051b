/*
 * Fragments in source3/rpc_server's pipe layer (rpc_pipe.c, C706
 * 12.6.4.9-10): requests gathered from FIRST/middle/LAST fragments
 * whatever the write boundaries, responses cut to the client's
 * max_recv_frag with FIRST/LAST and alloc_hint right, reads in any
 * piece size, and a pipe that holds nothing more after each call.
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/rpc_server_test_util.h"

/*
 * A request in three fragments: nothing until LAST, then one response
 * equal to the one for the same stub in one fragment; one write or
 * three, and fragments cut at odd places in the stub.
 */
static void test_frag__three_request_fragments(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t stub_len = 0;
	uint8_t *stub = rt_stub_enum(t, 1, true, 0, &stub_len);
	size_t cuts[][2] = { { 8, 32 }, { 1, 2 }, { 0, 0 },
			     { stub_len, stub_len }, { 13, 47 } };
	uint8_t *want = NULL;
	size_t want_len = 0;
	size_t i;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	want = rt_request(t, 2, 0, OP_SHARE_ENUM_ALL, 3, stub, stub_len,
			  &want_len);
	rt_write_ok(p, want, want_len);
	want = rt_read_all(t, p, &want_len);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t len = 0;
		uint8_t *all = rt_three_fragments(t, 2, stub, stub_len,
						  &len, cuts[i]);
		size_t a = 24 + cuts[i][0];
		size_t b = 24 + cuts[i][1] - cuts[i][0];
		uint8_t *out = NULL;

		/* one write */
		rt_write_ok(p, all, len);
		out = rt_read_all(t, p, &len);
		assert_int_equal(len, want_len);
		assert_memory_equal(out, want, want_len);
		/* three writes: nothing queued before the LAST fragment */
		rt_write_ok(p, all, a);
		rt_nothing(p);
		rt_write_ok(p, all + a, b);
		rt_nothing(p);
		rt_write_ok(p, all + a + b, 24 + stub_len - cuts[i][1]);
		out = rt_read_all(t, p, &len);
		assert_int_equal(len, want_len);
		assert_memory_equal(out, want, want_len);
	}
	assert_false(rpc_pipe_disconnected(p));
	TALLOC_FREE(t);
}

/* Output of a session written in chunks of the sizes next() gives. */
static uint8_t *run_chunked(TALLOC_CTX *t, const uint8_t *in, size_t len,
			    size_t (*next)(size_t i), size_t *out_len)
{
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t ofs = 0, i = 0;
	uint8_t *out = NULL;

	rt_client_init(&f, false);
	p = rt_open(t, "srvsvc", &f);
	while (ofs < len) {
		size_t n = next(i++);

		n = n < len - ofs ? n : len - ofs;
		rt_write_ok(p, in + ofs, n);
		ofs += n;
	}
	assert_false(rpc_pipe_disconnected(p));
	out = rt_read_all(t, p, out_len);
	TALLOC_FREE(p);
	return out;
}

static size_t chunk_all(size_t i)
{
	return SIZE_MAX;
}

static size_t chunk_one(size_t i)
{
	return 1;
}

static size_t chunk_odd(size_t i)
{
	static const size_t sizes[] = { 3, 17, 1, 16, 15, 100, 7, 2, 64 };

	return sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
}

static void test_frag__bytes_one_at_a_time(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	size_t len = 0, a_len = 0, b_len = 0, c_len = 0;
	uint8_t *in = rt_session(t, &len);
	uint8_t *a = run_chunked(t, in, len, chunk_all, &a_len);
	uint8_t *b = run_chunked(t, in, len, chunk_one, &b_len);
	uint8_t *c = run_chunked(t, in, len, chunk_odd, &c_len);
	struct dcerpc_pdu *pdus = NULL;

	/* bind_ack, two responses, a fault, a response */
	assert_int_equal(rt_split(t, a, a_len, &pdus), 5);
	assert_int_equal(pdus[0].hdr.ptype, DCERPC_PT_BIND_ACK);
	assert_int_equal(pdus[1].hdr.ptype, DCERPC_PT_RESPONSE);
	assert_int_equal(pdus[2].hdr.ptype, DCERPC_PT_RESPONSE);
	assert_int_equal(pdus[3].hdr.ptype, DCERPC_PT_FAULT);
	assert_int_equal(pdus[4].hdr.ptype, DCERPC_PT_RESPONSE);
	assert_int_equal(pdus[4].hdr.call_id, 5);
	/* the group id is per pipe: compare all but it */
	assert_int_equal(b_len, a_len);
	assert_int_equal(c_len, a_len);
	memset(a + 20, 0, 4);
	memset(b + 20, 0, 4);
	memset(c + 20, 0, 4);
	assert_memory_equal(a, b, a_len);
	assert_memory_equal(a, c, a_len);
	TALLOC_FREE(t);
}

/* Reading in small pieces gives the same bytes as one read. */
static void test_frag__read_in_pieces(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	size_t len = 0, got = 0, want_len = 0;
	uint8_t *in = rt_session(t, &len);
	uint8_t *want = run_chunked(t, in, len, chunk_all, &want_len);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	uint8_t *buf = talloc_zero_array(t, uint8_t, want_len + 8);

	rt_client_init(&f, false);
	p = rt_open(t, "srvsvc", &f);
	rt_write_ok(p, in, len);
	assert_int_equal(rpc_pipe_readable(p), want_len);
	assert_int_equal(rpc_pipe_read(p, buf, 0), 0);
	while (rpc_pipe_readable(p) > 0) {
		size_t before = rpc_pipe_readable(p);
		size_t n = rpc_pipe_read(p, buf + got, 1 + got % 5);

		assert_int_equal(n, before < 1 + got % 5 ? before :
				 1 + got % 5);
		assert_int_equal(rpc_pipe_readable(p), before - n);
		got += n;
	}
	assert_int_equal(got, want_len);
	assert_int_equal(rpc_pipe_read(p, buf + got, 8), 0);
	memset(buf + 20, 0, 4);
	memset(want + 20, 0, 4);
	assert_memory_equal(buf, want, want_len);
	TALLOC_FREE(t);
}

/*
 * A response longer than the client's max_recv_frag: several fragments
 * of at most that size, FIRST/LAST right, alloc_hint falling, stubs
 * joining to the stub a 4280-byte pipe sends (also fragmented).
 */
static void test_frag__response_fragments(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint16_t sizes[] = { 1024, 64, 65, 71, 72, 100, 4280 };
	struct rt_client f;
	size_t stub_len = 0;
	uint8_t *stub = rt_stub_enum(t, 1, false, 0, &stub_len);
	uint8_t *want = NULL;
	size_t want_len = 0;
	size_t i;

	rt_client_init(&f, false);
	rt_client_many(&f, 100);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct rpc_pipe *p = rt_open_bound(t, "srvsvc", &f, 4280,
						   sizes[i]);
		size_t len = 0;
		uint8_t *req = rt_request(t, 40, 0, OP_SHARE_ENUM_ALL, 3,
					  stub, stub_len, &len);
		uint8_t *out = NULL;
		struct rt_reply r;
		/* stub per fragment: what fits, in whole 8-byte units */
		size_t per = (sizes[i] - 24) & ~(size_t)7;

		rt_write_ok(p, req, len);
		out = rt_read_all(t, p, &len);
		rt_reassemble(t, out, len, 40, sizes[i], &r);
		assert_false(r.fault);
		assert_int_equal(r.frags, (r.len + per - 1) / per);
		assert_true(r.frags > 1);
		assert_int_equal(rt_enum_count(r.stub, r.len), 100);
		if (want == NULL) {
			want = r.stub;
			want_len = r.len;
		}
		assert_int_equal(r.len, want_len);
		assert_memory_equal(r.stub, want, want_len);
		TALLOC_FREE(p);
	}
	TALLOC_FREE(t);
}

/* Fragments that belong to no call, or to another: protocol errors. */
static void test_frag__out_of_sequence(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	size_t stub_len = 0;
	uint8_t *stub = rt_stub_level(t, 101, &stub_len);
	/* first, then the bad one: call_id, cont_id, opnum, flags */
	static const struct {
		uint32_t call;
		uint16_t ctx, op;
		uint8_t flags;
		bool first;
	} bad[] = {
		{ 9, 0, OP_SERVER_GET_INFO, 2, false },	/* LAST alone */
		{ 9, 0, OP_SERVER_GET_INFO, 0, false },	/* middle alone */
		{ 10, 0, OP_SERVER_GET_INFO, 2, true },	/* other call */
		{ 9, 1, OP_SERVER_GET_INFO, 2, true },	/* other context */
		{ 9, 0, OP_SHARE_ENUM, 2, true },	/* other opnum */
		{ 9, 0, OP_SERVER_GET_INFO, 3, true },	/* FIRST again */
		{ 11, 0, OP_SERVER_GET_INFO, 1, true },	/* new call */
	};
	size_t i;

	rt_client_init(&f, false);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rpc_pipe *p = rt_open_bound(t, "srvsvc", &f, 4280,
						   4280);
		size_t len = 0;
		uint8_t *b = NULL;

		if (bad[i].first) {
			b = rt_request(t, 9, 0, OP_SERVER_GET_INFO, 1, stub,
				       8, &len);
			rt_write_ok(p, b, len);
			rt_nothing(p);
		}
		b = rt_request(t, bad[i].call, bad[i].ctx, bad[i].op,
			       bad[i].flags, stub + 8, stub_len - 8, &len);
		rt_write_ok(p, b, len);
		rt_assert_proto_error(t, p, bad[i].call);
		TALLOC_FREE(p);
	}
	TALLOC_FREE(t);
}

/* Many calls on one pipe: what the pipe holds returns to its size. */
static void test_pipe__no_growth_per_call(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t len = 0, in_len = 0, base = 0, blocks = 0, i;
	uint8_t *in = rt_session(t, &in_len);
	/* the session after its bind */
	const uint8_t *calls = in + sizeof(v_bind_srvsvc);
	size_t calls_len = in_len - sizeof(v_bind_srvsvc);

	rt_client_init(&f, true);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	base = talloc_total_size(p);
	blocks = talloc_total_blocks(p);
	for (i = 0; i < 200; i++) {
		uint8_t *out = NULL;

		rt_write_ok(p, calls, calls_len);
		out = rt_read_all(t, p, &len);
		assert_true(len > 0);
		TALLOC_FREE(out);
		assert_int_equal(talloc_total_size(p), base);
		assert_int_equal(talloc_total_blocks(p), blocks);
	}
	TALLOC_FREE(t);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_frag__three_request_fragments),
		T(test_frag__bytes_one_at_a_time),
		T(test_frag__read_in_pieces),
		T(test_frag__response_fragments),
		T(test_frag__out_of_sequence),
		T(test_pipe__no_growth_per_call),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
