/*
 * Helpers shared by the test_rpc_server* programs (the header says what
 * each does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tests/unit/rpc_server_test_util.h"

/* bind, call 0x1234: srvsvc v3.0 over NDR20, max frags 4280/4280 */
const uint8_t v_bind_srvsvc[72] = {
	5, 0, DCERPC_PT_BIND, 0x03, 0x10, 0, 0, 0, 72, 0, 0, 0,
	0x34, 0x12, 0, 0,
	0xb8, 0x10, 0xb8, 0x10, 0, 0, 0, 0,	/* max xmit/recv, assoc */
	1, 0, 0, 0,				/* n_context_elem */
	0, 0, 1, 0,				/* cont_id 0, 1 transfer */
	W_SRVSVC, W_NDR20,
};

/*
 * Its bind_ack: frags 4280/4280, assoc_group_id (bytes 20-23, chosen
 * by the server) zeroed here, sec_addr "\PIPE\srvsvc" (13 with the NUL
 * after a u16 length, then one byte of padding to 4), one result:
 * acceptance, NDR20.
 */
const uint8_t v_bind_ack_srvsvc[68] = {
	5, 0, DCERPC_PT_BIND_ACK, 0x03, 0x10, 0, 0, 0, 68, 0, 0, 0,
	0x34, 0x12, 0, 0,
	0xb8, 0x10, 0xb8, 0x10, 0, 0, 0, 0,
	13, 0, '\\', 'P', 'I', 'P', 'E', '\\', 's', 'r', 'v', 's', 'v', 'c',
	0, 0,
	1, 0, 0, 0,
	0, 0, 0, 0, W_NDR20,
};

/* bind, call 1: wkssvc v1.0 over NDR20 */
const uint8_t v_bind_wkssvc[72] = {
	5, 0, DCERPC_PT_BIND, 0x03, 0x10, 0, 0, 0, 72, 0, 0, 0,
	1, 0, 0, 0,
	0xb8, 0x10, 0xb8, 0x10, 0, 0, 0, 0,
	1, 0, 0, 0,
	0, 0, 1, 0,
	W_WKSSVC, W_NDR20,
};

/*
 * request, call 2, context 0, NetShareEnumAll (opnum 15), 60 stub
 * bytes (MS-SRVS 3.1.4.8):
 *   ServerName   [unique, string]: ref id, max 6, offset 0, actual 6,
 *                "\\srv" and the NUL in UTF-16LE
 *   InfoStruct   [ref]: Level 1, the union's switch 1, a unique pointer
 *                to SHARE_INFO_1_CONTAINER {EntriesRead 0, Buffer NULL}
 *   PreferedMaximumLength 0xFFFFFFFF
 *   ResumeHandle [unique]: ref id, 0
 */
const uint8_t v_enum_all_1[84] = {
	5, 0, DCERPC_PT_REQUEST, 0x03, 0x10, 0, 0, 0, 84, 0, 0, 0,
	2, 0, 0, 0,
	60, 0, 0, 0, 0, 0, 15, 0,		/* alloc_hint, ctx, opnum */
	0x00, 0x00, 0x02, 0x00,
	6, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0,
	'\\', 0, '\\', 0, 's', 0, 'r', 0, 'v', 0, 0, 0,
	1, 0, 0, 0, 1, 0, 0, 0, 0x04, 0x00, 0x02, 0x00,
	0, 0, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff,
	0x08, 0x00, 0x02, 0x00, 0, 0, 0, 0,
};

/* request, call 3, NetSrvGetInfo (21): ServerName NULL, Level 100 */
const uint8_t v_srv_info_100[32] = {
	5, 0, DCERPC_PT_REQUEST, 0x03, 0x10, 0, 0, 0, 32, 0, 0, 0,
	3, 0, 0, 0,
	8, 0, 0, 0, 0, 0, 21, 0,
	0, 0, 0, 0, 100, 0, 0, 0,
};

/*
 * Its response stub (MS-SRVS 2.2.4.40 SERVER_INFO_100): the union's
 * switch 100, a pointer to the info, PLATFORM_ID_NT (500), a pointer to
 * sv100_name, then "RINGSMB" (8 units with the NUL), WERROR 0.
 */
const uint8_t v_srv_info_100_stub[48] = {
	100, 0, 0, 0, 0x00, 0x00, 0x02, 0x00,
	0xf4, 0x01, 0, 0, 0x04, 0x00, 0x02, 0x00,
	8, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0,
	'R', 0, 'I', 0, 'N', 0, 'G', 0, 'S', 0, 'M', 0, 'B', 0, 0, 0,
	0, 0, 0, 0,
};

static NTSTATUS fake_list_shares(void *priv, TALLOC_CTX *mem_ctx,
				 struct rpc_share **shares, size_t *num)
{
	struct rt_client *f = priv;
	struct rpc_share *s = NULL;
	size_t i;

	f->calls++;
	if (f->fail) {
		return NT_STATUS_NO_MEMORY;
	}
	s = talloc_zero_array(mem_ctx, struct rpc_share, f->num + 1);
	assert_non_null(s);
	for (i = 0; i < f->num; i++) {
		s[i] = f->shares[i];
		s[i].name = talloc_strdup(s, f->shares[i].name);
		if (f->shares[i].comment != NULL) {
			s[i].comment = talloc_strdup(s, f->shares[i].comment);
		}
		if (f->shares[i].path != NULL) {
			s[i].path = talloc_strdup(s, f->shares[i].path);
		}
	}
	*shares = s;
	*num = f->num;
	return NT_STATUS_OK;
}

static struct rpc_share share(const char *name, const char *comment,
			      const char *path, uint32_t type)
{
	return (struct rpc_share){
		.name = name, .comment = comment, .path = path, .type = type,
		.browseable = true, .enumerable = true,
	};
}

void rt_client_init(struct rt_client *f, bool admin)
{
	*f = (struct rt_client){
		.c = {
			.server_name = "RINGSMB",
			.server_comment = "ringsmb server",
			.domain = "WORKGROUP",
			.user = "alice",
			.admin = admin,
			.deadtime = 15,
			.list_shares = fake_list_shares,
		},
	};
	f->c.priv = f;
	f->shares[0] = share("data", "Data", "/srv/data", RPC_STYPE_DISKTREE);
	f->shares[0].current_uses = 2;
	f->shares[1] = share("hidden$", "Hidden", "/srv/hidden",
			     RPC_STYPE_DISKTREE);
	f->shares[2] = share("nobrowse", "Not listed", "/srv/nb",
			     RPC_STYPE_DISKTREE);
	f->shares[2].browseable = false;
	f->shares[3] = share("secret", "No access", "/srv/secret",
			     RPC_STYPE_DISKTREE);
	f->shares[3].enumerable = false;
	f->shares[4] = share("IPC$", "IPC Service", "/tmp",
			     RPC_STYPE_IPC | RPC_STYPE_SPECIAL);
	f->num = 5;
}

void rt_client_many(struct rt_client *f, size_t n)
{
	static char names[128][16];
	static char comments[128][32];
	size_t i;

	assert_true(n <= 128);
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "share%03zu", i);
		snprintf(comments[i], sizeof(comments[i]),
			 "Share number %03zu", i);
		f->shares[i] = share(names[i], comments[i], "/srv/x",
				     RPC_STYPE_DISKTREE);
	}
	f->num = n;
}

struct rpc_pipe *rt_open(TALLOC_CTX *ctx, const char *name,
			 const struct rt_client *f)
{
	struct rpc_pipe *p = NULL;

	assert_true(IS_OK(rpc_pipe_open(ctx, name, &f->c, &p)));
	assert_non_null(p);
	assert_int_equal(rpc_pipe_readable(p), 0);
	assert_false(rpc_pipe_disconnected(p));
	return p;
}

struct rpc_pipe *rt_open_bound(TALLOC_CTX *ctx, const char *name,
			       const struct rt_client *f, uint16_t max_xmit,
			       uint16_t max_recv)
{
	struct rpc_pipe *p = rt_open(ctx, name, f);
	struct dcerpc_syntax ndr = dcerpc_syntax_ndr20;
	const struct dcerpc_syntax *a = strcasestr(name, "wkssvc") != NULL ?
		&dcerpc_syntax_wkssvc : &dcerpc_syntax_srvsvc;
	struct dcerpc_ctx_elem e = rt_elem(0, a, &ndr, 1);
	struct dcerpc_pdu ack;
	size_t len = 0;
	uint8_t *b = rt_bind(ctx, DCERPC_PT_BIND, 1, max_xmit, max_recv, &e,
			     1, &len);

	rt_write_ok(p, b, len);
	TALLOC_FREE(b);
	rt_one(ctx, p, DCERPC_PT_BIND_ACK, &ack);
	assert_int_equal(ack.u.ack.num_results, 1);
	assert_int_equal(ack.u.ack.results[0].result,
			 DCERPC_RESULT_ACCEPTANCE);
	return p;
}

NTSTATUS rt_write(struct rpc_pipe *p, const void *buf, size_t len)
{
	uint8_t *g = guard_dup(buf, len);
	NTSTATUS status = rpc_pipe_write(p, g, len);

	guard_free(g);
	return status;
}

void rt_write_ok(struct rpc_pipe *p, const void *buf, size_t len)
{
	NTSTATUS status = rt_write(p, buf, len);

	if (!IS_OK(status)) {
		fail_msg("rpc_pipe_write: %s", nt_errstr(status));
	}
}

uint8_t *rt_read_all(TALLOC_CTX *ctx, struct rpc_pipe *p, size_t *len)
{
	size_t n = rpc_pipe_readable(p);
	uint8_t *buf = NULL;

	*len = 0;
	if (n == 0) {
		return NULL;
	}
	buf = talloc_array(ctx, uint8_t, n);
	assert_non_null(buf);
	assert_int_equal(rpc_pipe_read(p, buf, n), n);
	assert_int_equal(rpc_pipe_readable(p), 0);
	*len = n;
	return buf;
}

size_t rt_split(TALLOC_CTX *ctx, const uint8_t *buf, size_t len,
		struct dcerpc_pdu **out)
{
	struct dcerpc_pdu *pdus = NULL;
	size_t n = 0;
	size_t ofs = 0;

	while (ofs < len) {
		struct dcerpc_hdr h;

		assert_true(IS_OK(dcerpc_hdr_pull(buf + ofs, len - ofs, &h)));
		assert_true(h.frag_length <= len - ofs);
		pdus = talloc_realloc(ctx, pdus, struct dcerpc_pdu, n + 1);
		assert_non_null(pdus);
		assert_true(IS_OK(dcerpc_pdu_pull(pdus, buf + ofs,
						  h.frag_length, &pdus[n])));
		n++;
		ofs += h.frag_length;
	}
	*out = pdus;
	return n;
}

void rt_one(TALLOC_CTX *ctx, struct rpc_pipe *p, uint8_t ptype,
	    struct dcerpc_pdu *out)
{
	struct dcerpc_pdu *pdus = NULL;
	size_t len = 0;
	uint8_t *buf = rt_read_all(ctx, p, &len);

	assert_non_null(buf);
	assert_int_equal(rt_split(buf, buf, len, &pdus), 1);
	assert_int_equal(pdus[0].hdr.ptype, ptype);
	assert_int_equal(pdus[0].hdr.pfc_flags & 3,
			 DCERPC_PFC_FIRST_FRAG | DCERPC_PFC_LAST_FRAG);
	*out = pdus[0];
	/* the slices in *out point into buf, which stays on ctx */
}

void rt_nothing(struct rpc_pipe *p)
{
	assert_int_equal(rpc_pipe_readable(p), 0);
}

struct dcerpc_ctx_elem rt_elem(uint16_t id, const struct dcerpc_syntax *a,
			       struct dcerpc_syntax *ts, uint8_t n)
{
	return (struct dcerpc_ctx_elem){ .cont_id = id, .num_transfer = n,
					 .abstract = *a, .transfer = ts };
}

static uint8_t *push(TALLOC_CTX *ctx, const struct dcerpc_pdu *pdu,
		     size_t *len)
{
	uint8_t *out = NULL;

	assert_true(IS_OK(dcerpc_pdu_push(ctx, pdu, &out, len)));
	return out;
}

uint8_t *rt_bind(TALLOC_CTX *ctx, uint8_t ptype, uint32_t call_id,
		 uint16_t max_xmit, uint16_t max_recv,
		 struct dcerpc_ctx_elem *e, uint8_t n, size_t *len)
{
	struct dcerpc_pdu pdu = {
		.hdr = { .ptype = ptype, .pfc_flags = 3, .call_id = call_id },
		.u.bind = { .max_xmit_frag = max_xmit,
			    .max_recv_frag = max_recv,
			    .num_contexts = n, .ctx = e },
	};

	return push(ctx, &pdu, len);
}

uint8_t *rt_request(TALLOC_CTX *ctx, uint32_t call_id, uint16_t cont_id,
		    uint16_t opnum, uint8_t flags, const uint8_t *stub,
		    size_t stub_len, size_t *len)
{
	struct dcerpc_pdu pdu = {
		.hdr = { .ptype = DCERPC_PT_REQUEST, .pfc_flags = flags,
			 .call_id = call_id },
		.u.req = { .alloc_hint = (uint32_t)stub_len,
			   .cont_id = cont_id, .opnum = opnum,
			   .stub = stub, .stub_len = stub_len },
	};

	return push(ctx, &pdu, len);
}

void rt_reassemble(TALLOC_CTX *ctx, const uint8_t *out, size_t out_len,
		   uint32_t call_id, uint16_t max_frag, struct rt_reply *r)
{
	struct dcerpc_pdu *pdus = NULL;
	size_t n = rt_split(ctx, out, out_len, &pdus);
	size_t total = 0;
	size_t i;

	*r = (struct rt_reply){ .frags = n };
	assert_true(n > 0);
	if (pdus[0].hdr.ptype == DCERPC_PT_FAULT) {
		assert_int_equal(n, 1);
		assert_int_equal(pdus[0].hdr.call_id, call_id);
		assert_int_equal(pdus[0].hdr.pfc_flags & 3, 3);
		r->fault = true;
		r->status = pdus[0].u.fault.status;
		r->flags = pdus[0].hdr.pfc_flags;
		r->cont_id = pdus[0].u.fault.cont_id;
		TALLOC_FREE(pdus);
		return;
	}
	for (i = 0; i < n; i++) {
		total += pdus[i].u.rsp.stub_len;
	}
	r->stub = talloc_array(ctx, uint8_t, total > 0 ? total : 1);
	assert_non_null(r->stub);
	r->cont_id = pdus[0].u.rsp.cont_id;
	for (i = 0; i < n; i++) {
		const struct dcerpc_pdu *f = &pdus[i];
		uint8_t want = (i == 0 ? DCERPC_PFC_FIRST_FRAG : 0) |
			(i == n - 1 ? DCERPC_PFC_LAST_FRAG : 0);

		assert_int_equal(f->hdr.ptype, DCERPC_PT_RESPONSE);
		assert_int_equal(f->hdr.pfc_flags, want);
		assert_int_equal(f->hdr.call_id, call_id);
		assert_int_equal(f->hdr.auth_length, 0);
		assert_true(f->hdr.frag_length <= max_frag);
		assert_int_equal(f->u.rsp.cont_id, r->cont_id);
		assert_int_equal(f->u.rsp.cancel_count, 0);
		/* alloc_hint: what is left, so it falls fragment by fragment */
		assert_int_equal(f->u.rsp.alloc_hint, total - r->len);
		/* all but the last carry whole 8-byte units of stub */
		if (i < n - 1) {
			assert_int_equal(f->u.rsp.stub_len % 8, 0);
			assert_true(f->u.rsp.stub_len > 0);
		}
		memcpy(r->stub + r->len, f->u.rsp.stub, f->u.rsp.stub_len);
		r->len += f->u.rsp.stub_len;
	}
	TALLOC_FREE(pdus);
}

void rt_call(TALLOC_CTX *ctx, struct rpc_pipe *p, uint32_t call_id,
	     uint16_t cont_id, uint16_t opnum, const uint8_t *stub,
	     size_t len, struct rt_reply *r)
{
	size_t req_len = 0;
	size_t out_len = 0;
	uint8_t *req = rt_request(ctx, call_id, cont_id, opnum, 3, stub, len,
				  &req_len);
	uint8_t *out = NULL;

	rt_write_ok(p, req, req_len);
	TALLOC_FREE(req);
	out = rt_read_all(ctx, p, &out_len);
	assert_non_null(out);
	rt_reassemble(ctx, out, out_len, call_id, 4280, r);
	TALLOC_FREE(out);
}

uint8_t *rt_ok(TALLOC_CTX *ctx, struct rpc_pipe *p, uint16_t opnum,
	       const uint8_t *stub, size_t len, size_t *out_len)
{
	struct rt_reply r;

	rt_call(ctx, p, 7, 0, opnum, stub, len, &r);
	if (r.fault) {
		fail_msg("opnum %u: fault 0x%08x", opnum, r.status);
	}
	assert_int_equal(r.cont_id, 0);
	*out_len = r.len;
	return r.stub;
}

void rt_push_wstr(struct ndr_push *w, const char *s)
{
	size_t n = strlen(s);
	uint8_t *u = talloc_array(w->mem_ctx, uint8_t, 2 * n + 1);
	size_t i;

	assert_non_null(u);
	for (i = 0; i < n; i++) {
		u[2 * i] = (uint8_t)s[i];
		u[2 * i + 1] = 0;
	}
	ndr_push_string(w, u, n);
	talloc_free(u);
}

void rt_push_server_name(struct ndr_push *w, const char *s)
{
	ndr_push_unique_ptr(w, s != NULL);
	if (s != NULL) {
		rt_push_wstr(w, s);
	}
}

static bool level_has_container(uint32_t level)
{
	return level == 0 || level == 1 || level == 2 || level == 501 ||
	       level == 502;
}

uint8_t *rt_stub_enum(TALLOC_CTX *ctx, uint32_t level, bool have_resume,
		      uint32_t resume, size_t *len)
{
	struct ndr_push w = ndr_push_init(ctx);

	rt_push_server_name(&w, "\\\\srv");
	ndr_push_u32(&w, level);
	ndr_push_u32(&w, level);
	/* Samba's IDL has no arm for other levels: nothing follows then */
	if (level_has_container(level)) {
		ndr_push_unique_ptr(&w, true);
		ndr_push_u32(&w, 0);		/* EntriesRead */
		ndr_push_unique_ptr(&w, false);	/* Buffer */
	}
	ndr_push_u32(&w, 0xFFFFFFFF);
	ndr_push_unique_ptr(&w, have_resume);
	if (have_resume) {
		ndr_push_u32(&w, resume);
	}
	assert_false(w.bad);
	*len = w.len;
	return w.buf;
}

uint8_t *rt_stub_get_info(TALLOC_CTX *ctx, const char *name,
			  uint32_t level, size_t *len)
{
	struct ndr_push w = ndr_push_init(ctx);

	rt_push_server_name(&w, "\\\\srv");
	rt_push_wstr(&w, name);			/* [in, string] NetName */
	ndr_push_u32(&w, level);
	assert_false(w.bad);
	*len = w.len;
	return w.buf;
}

uint8_t *rt_stub_level(TALLOC_CTX *ctx, uint32_t level, size_t *len)
{
	struct ndr_push w = ndr_push_init(ctx);

	rt_push_server_name(&w, "\\\\srv");
	ndr_push_u32(&w, level);
	assert_false(w.bad);
	*len = w.len;
	return w.buf;
}

char *rt_pull_wstr(TALLOC_CTX *ctx, struct ndr_pull *c)
{
	const uint8_t *units = NULL;
	size_t n = 0;
	size_t i;
	char *s = NULL;

	ndr_pull_string(c, &units, &n);
	assert_false(c->bad);
	s = talloc_array(ctx, char, n + 1);
	assert_non_null(s);
	for (i = 0; i < n; i++) {
		assert_int_equal(units[2 * i + 1], 0);
		s[i] = (char)units[2 * i];
	}
	s[n] = '\0';
	return s;
}

void rt_pull_ptr(struct ndr_pull *c, bool present)
{
	uint32_t ref = 0;

	assert_int_equal(ndr_pull_unique_ptr(c, &ref), present);
	assert_false(c->bad);
}

/* The pipe ended: the queued PDUs can be read, then writes fail. */
void rt_assert_ended(struct rpc_pipe *p)
{
	size_t queued = rpc_pipe_readable(p);

	assert_true(rpc_pipe_disconnected(p));
	assert_true(NT_STATUS_EQUAL(rt_write(p, v_bind_srvsvc,
					     sizeof(v_bind_srvsvc)),
				    NT_STATUS_PIPE_DISCONNECTED));
	assert_true(NT_STATUS_EQUAL(rt_write(p, v_enum_all_1, 1),
				    NT_STATUS_PIPE_DISCONNECTED));
	/* nothing more was queued by the refused writes */
	assert_int_equal(rpc_pipe_readable(p), queued);
}

/* One bind_nak with reason, naming version 5.0 only, then the end. */
void rt_assert_nak(TALLOC_CTX *t, struct rpc_pipe *p, uint32_t call_id,
		   uint16_t reason)
{
	struct dcerpc_pdu nak;

	assert_true(rpc_pipe_disconnected(p));
	rt_one(t, p, DCERPC_PT_BIND_NAK, &nak);
	assert_int_equal(nak.hdr.call_id, call_id);
	assert_int_equal(nak.u.nak.reject_reason, reason);
	assert_int_equal(nak.u.nak.num_versions, 1);
	assert_int_equal(nak.u.nak.versions[0].major, 5);
	assert_int_equal(nak.u.nak.versions[0].minor, 0);
	rt_assert_ended(p);
}

/* One fault PDU, status and flags as given, call and context echoed. */
void rt_assert_fault(TALLOC_CTX *t, struct rpc_pipe *p, uint32_t call_id,
		     uint16_t cont_id, uint32_t status, uint8_t flags)
{
	struct dcerpc_pdu fault;

	rt_one(t, p, DCERPC_PT_FAULT, &fault);
	assert_int_equal(fault.hdr.frag_length, FAULT_LEN);
	assert_int_equal(fault.hdr.call_id, call_id);
	assert_int_equal(fault.hdr.pfc_flags, flags);
	assert_int_equal(fault.u.fault.cont_id, cont_id);
	assert_int_equal(fault.u.fault.status, status);
	assert_int_equal(fault.u.fault.alloc_hint, 0);
	assert_int_equal(fault.u.fault.stub_len, 0);
}

/* A protocol error: fault nca_s_proto_error for call_id, then the end. */
void rt_assert_proto_error(TALLOC_CTX *t, struct rpc_pipe *p,
			   uint32_t call_id)
{
	assert_true(rpc_pipe_disconnected(p));
	rt_assert_fault(t, p, call_id, 0, DCERPC_NCA_S_PROTO_ERROR, 0x03);
	rt_assert_ended(p);
}

/* stub in three request fragments: FIRST, middle, LAST */
uint8_t *rt_three_fragments(TALLOC_CTX *t, uint32_t call_id,
			    const uint8_t *stub, size_t len,
			    size_t *out_len, size_t cut[2])
{
	size_t a = 0, b = 0, c = 0;
	uint8_t *f1 = rt_request(t, call_id, 0, OP_SHARE_ENUM_ALL, 1, stub,
				 cut[0], &a);
	uint8_t *f2 = rt_request(t, call_id, 0, OP_SHARE_ENUM_ALL, 0,
				 stub + cut[0], cut[1] - cut[0], &b);
	uint8_t *f3 = rt_request(t, call_id, 0, OP_SHARE_ENUM_ALL, 2,
				 stub + cut[1], len - cut[1], &c);
	uint8_t *all = talloc_array(t, uint8_t, a + b + c);

	assert_non_null(all);
	memcpy(all, f1, a);
	memcpy(all + a, f2, b);
	memcpy(all + a + b, f3, c);
	*out_len = a + b + c;
	return all;
}

/* A whole session: bind, calls, a fault, a fragmented request. */
uint8_t *rt_session(TALLOC_CTX *t, size_t *len)
{
	size_t stub_len = 0, n = 0, ofs = 0;
	uint8_t *stub = rt_stub_enum(t, 1, true, 0, &stub_len);
	size_t cut[2] = { 16, 40 };
	uint8_t *frags = rt_three_fragments(t, 5, stub, stub_len, &n, cut);
	uint8_t *bad = rt_request(t, 6, 0, 99, 3, stub, 4, &stub_len);
	size_t bad_len = stub_len;
	uint8_t *all = talloc_array(t, uint8_t, 1024);

	assert_non_null(all);
	memcpy(all, v_bind_srvsvc, sizeof(v_bind_srvsvc));
	ofs += sizeof(v_bind_srvsvc);
	memcpy(all + ofs, v_enum_all_1, sizeof(v_enum_all_1));
	ofs += sizeof(v_enum_all_1);
	memcpy(all + ofs, v_srv_info_100, sizeof(v_srv_info_100));
	ofs += sizeof(v_srv_info_100);
	memcpy(all + ofs, bad, bad_len);
	ofs += bad_len;
	assert_true(ofs + n <= 1024);
	memcpy(all + ofs, frags, n);
	ofs += n;
	*len = ofs;
	return all;
}

/* The level 1 enumeration's count (after level, switch, container). */
uint32_t rt_enum_count(const uint8_t *stub, size_t len)
{
	struct ndr_pull c = ndr_pull_init(stub, len);

	assert_int_equal(ndr_pull_u32(&c), 1);
	assert_int_equal(ndr_pull_u32(&c), 1);
	rt_pull_ptr(&c, true);
	return ndr_pull_u32(&c);
}

void rt_write_seed(const char *dir, const char *name, uint8_t cfg,
		   const uint8_t *stream, size_t len, size_t chunk)
{
	char path[4096];
	FILE *f = NULL;
	size_t ofs = 0;

	assert_true(chunk > 0 && chunk <= 255);
	snprintf(path, sizeof(path), "%s/rpc_pipe", dir);
	if (mkdir(path, 0755) != 0) {
		assert_int_equal(errno, EEXIST);
	}
	snprintf(path, sizeof(path), "%s/rpc_pipe/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fputc(cfg, f), cfg);
	while (ofs < len) {
		size_t n = len - ofs < chunk ? len - ofs : chunk;

		assert_int_equal(fputc((int)n, f), (int)n);
		assert_int_equal(fwrite(stream + ofs, 1, n, f), n);
		ofs += n;
	}
	assert_int_equal(fclose(f), 0);
}
