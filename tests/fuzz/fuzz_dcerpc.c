/*
 * libFuzzer harness: DCE/RPC connection-oriented PDUs and the NDR stub
 * cursor (lib/dcerpc).  The input is one fragment.  Whatever pulls must
 * push back and pull again to the same struct (abort otherwise), and
 * every slice it returned must lie inside the input.  Then the NDR
 * cursor walks the stub of a request or response (or the whole input
 * when it did not pull), reading the primitive each next byte picks.
 * Seed corpus: tests/fuzz/corpus/dcerpc/ (from test_dcerpc's vectors).
 */
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "lib/dcerpc/dcerpc.h"

static void inside(const void *p, size_t n, const uint8_t *buf, size_t len)
{
	const uint8_t *q = p;

	if (n > 0 && (q == NULL || q < buf || q > buf + len ||
		      n > (size_t)(buf + len - q))) {
		abort();
	}
}

static void same_bind(const struct dcerpc_bind *a,
		      const struct dcerpc_bind *b)
{
	uint8_t i, j;

	if (a->max_xmit_frag != b->max_xmit_frag ||
	    a->max_recv_frag != b->max_recv_frag ||
	    a->assoc_group_id != b->assoc_group_id ||
	    a->num_contexts != b->num_contexts) {
		abort();
	}
	for (i = 0; i < a->num_contexts; i++) {
		const struct dcerpc_ctx_elem *x = &a->ctx[i], *y = &b->ctx[i];

		if (x->cont_id != y->cont_id ||
		    x->num_transfer != y->num_transfer ||
		    !dcerpc_syntax_equal(&x->abstract, &y->abstract)) {
			abort();
		}
		for (j = 0; j < x->num_transfer; j++) {
			if (!dcerpc_syntax_equal(&x->transfer[j],
						 &y->transfer[j])) {
				abort();
			}
		}
	}
}

static void same_ack(const struct dcerpc_bind_ack *a,
		     const struct dcerpc_bind_ack *b)
{
	uint8_t i;

	if (a->max_xmit_frag != b->max_xmit_frag ||
	    a->max_recv_frag != b->max_recv_frag ||
	    a->assoc_group_id != b->assoc_group_id ||
	    a->sec_addr_len != b->sec_addr_len ||
	    (a->sec_addr_len > 0 &&
	     memcmp(a->sec_addr, b->sec_addr, a->sec_addr_len) != 0) ||
	    a->num_results != b->num_results) {
		abort();
	}
	for (i = 0; i < a->num_results; i++) {
		if (a->results[i].result != b->results[i].result ||
		    a->results[i].reason != b->results[i].reason ||
		    !dcerpc_syntax_equal(&a->results[i].transfer,
					 &b->results[i].transfer)) {
			abort();
		}
	}
}

static void same_stub(const uint8_t *a, size_t alen, const uint8_t *b,
		      size_t blen)
{
	if (alen != blen || (alen > 0 && memcmp(a, b, alen) != 0)) {
		abort();
	}
}

static void same_body(const struct dcerpc_pdu *a,
		      const struct dcerpc_pdu *b)
{
	switch (a->hdr.ptype) {
	case DCERPC_PT_BIND:
	case DCERPC_PT_ALTER_CONTEXT:
		same_bind(&a->u.bind, &b->u.bind);
		break;
	case DCERPC_PT_BIND_ACK:
	case DCERPC_PT_ALTER_CONTEXT_RESP:
		same_ack(&a->u.ack, &b->u.ack);
		break;
	case DCERPC_PT_BIND_NAK:
		if (a->u.nak.reject_reason != b->u.nak.reject_reason ||
		    a->u.nak.num_versions != b->u.nak.num_versions ||
		    memcmp(a->u.nak.versions, b->u.nak.versions,
			   a->u.nak.num_versions *
			   sizeof(a->u.nak.versions[0])) != 0) {
			abort();
		}
		break;
	case DCERPC_PT_REQUEST:
		if (a->u.req.alloc_hint != b->u.req.alloc_hint ||
		    a->u.req.cont_id != b->u.req.cont_id ||
		    a->u.req.opnum != b->u.req.opnum ||
		    !dcerpc_uuid_equal(&a->u.req.object, &b->u.req.object)) {
			abort();
		}
		same_stub(a->u.req.stub, a->u.req.stub_len, b->u.req.stub,
			  b->u.req.stub_len);
		break;
	case DCERPC_PT_RESPONSE:
		if (a->u.rsp.alloc_hint != b->u.rsp.alloc_hint ||
		    a->u.rsp.cont_id != b->u.rsp.cont_id ||
		    a->u.rsp.cancel_count != b->u.rsp.cancel_count) {
			abort();
		}
		same_stub(a->u.rsp.stub, a->u.rsp.stub_len, b->u.rsp.stub,
			  b->u.rsp.stub_len);
		break;
	case DCERPC_PT_FAULT:
		if (a->u.fault.status != b->u.fault.status ||
		    a->u.fault.flags != b->u.fault.flags ||
		    a->u.fault.cancel_count != b->u.fault.cancel_count ||
		    a->u.fault.alloc_hint != b->u.fault.alloc_hint ||
		    a->u.fault.cont_id != b->u.fault.cont_id) {
			abort();
		}
		same_stub(a->u.fault.stub, a->u.fault.stub_len,
			  b->u.fault.stub, b->u.fault.stub_len);
		break;
	default:
		break;
	}
}

static void same_pdu(const struct dcerpc_pdu *a, const struct dcerpc_pdu *b)
{
	if (a->hdr.ptype != b->hdr.ptype ||
	    a->hdr.pfc_flags != b->hdr.pfc_flags ||
	    a->hdr.call_id != b->hdr.call_id ||
	    a->hdr.auth_length != b->hdr.auth_length ||
	    a->has_auth != b->has_auth) {
		abort();
	}
	if (a->has_auth &&
	    (a->auth.auth_type != b->auth.auth_type ||
	     a->auth.auth_level != b->auth.auth_level ||
	     a->auth.auth_pad_length != b->auth.auth_pad_length ||
	     a->auth.auth_context_id != b->auth.auth_context_id ||
	     memcmp(a->auth.value, b->auth.value, a->hdr.auth_length) != 0)) {
		abort();
	}
	same_body(a, b);
}

static void check_slices(const struct dcerpc_pdu *p, const uint8_t *buf,
			 size_t len)
{
	if (p->has_auth) {
		inside(p->auth.value, p->hdr.auth_length, buf, len);
	}
	switch (p->hdr.ptype) {
	case DCERPC_PT_REQUEST:
		inside(p->u.req.stub, p->u.req.stub_len, buf, len);
		break;
	case DCERPC_PT_RESPONSE:
		inside(p->u.rsp.stub, p->u.rsp.stub_len, buf, len);
		break;
	case DCERPC_PT_FAULT:
		inside(p->u.fault.stub, p->u.fault.stub_len, buf, len);
		break;
	case DCERPC_PT_BIND_ACK:
	case DCERPC_PT_ALTER_CONTEXT_RESP:
		inside(p->u.ack.sec_addr, p->u.ack.sec_addr_len, buf, len);
		break;
	default:
		break;
	}
}

/* Each step's kind comes from the next byte; stops at the first error. */
static void ndr_walk(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len)
{
	struct ndr_pull c = ndr_pull_init(buf, len);
	struct dcerpc_uuid u;
	const uint8_t *units = NULL;
	size_t n = 0;
	uint32_t ref = 0;

	while (!c.bad && c.ofs < c.len) {
		switch (ndr_pull_u8(&c) % 7) {
		case 0:
			(void)ndr_pull_u16(&c);
			break;
		case 1:
			(void)ndr_pull_u32(&c);
			break;
		case 2:
			(void)ndr_pull_u64(&c);
			break;
		case 3:
			if (ndr_pull_unique_ptr(&c, &ref) && ref == 0) {
				abort();
			}
			break;
		case 4:
			ndr_pull_uuid(&c, &u);
			break;
		case 5: {
			struct ndr_push w = ndr_push_init(mem_ctx);
			struct ndr_pull again;
			const uint8_t *u2 = NULL;
			size_t n2 = 0;

			ndr_pull_string(&c, &units, &n);
			if (c.bad) {
				break;
			}
			inside(units, 2 * n + 2, buf, len);
			/* a pulled string pushes back and pulls the same */
			ndr_push_string(&w, units, n);
			again = ndr_pull_init(w.buf, w.len);
			ndr_pull_string(&again, &u2, &n2);
			if (w.bad || again.bad || n2 != n ||
			    (n > 0 && memcmp(u2, units, 2 * n) != 0)) {
				abort();
			}
			TALLOC_FREE(w.buf);
			break;
		}
		default:
			ndr_pull_align(&c, 8);
		}
		if (c.ofs > c.len) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct dcerpc_pdu pdu, again;
	uint8_t *buf = malloc(size > 0 ? size : 1);
	uint8_t *out = NULL;
	size_t out_len = 0;

	if (buf == NULL || mem_ctx == NULL) {
		abort();
	}
	/* an exact-size copy, so ASan sees any read past the buffer */
	memcpy(buf, data, size);
	if (!NT_STATUS_IS_OK(dcerpc_pdu_pull(mem_ctx, buf, size, &pdu))) {
		ndr_walk(mem_ctx, buf, size);
		goto done;
	}
	check_slices(&pdu, buf, size);
	if (!NT_STATUS_IS_OK(dcerpc_pdu_push(mem_ctx, &pdu, &out,
					     &out_len)) ||
	    !NT_STATUS_IS_OK(dcerpc_pdu_pull(mem_ctx, out, out_len,
					     &again))) {
		abort();
	}
	same_pdu(&pdu, &again);
	if (pdu.hdr.ptype == DCERPC_PT_REQUEST) {
		ndr_walk(mem_ctx, pdu.u.req.stub, pdu.u.req.stub_len);
	} else if (pdu.hdr.ptype == DCERPC_PT_RESPONSE) {
		ndr_walk(mem_ctx, pdu.u.rsp.stub, pdu.u.rsp.stub_len);
	}
done:
	talloc_free(mem_ctx);
	free(buf);
	return 0;
}
