/*
 * Presentation-context negotiation bodies (C706 12.6.4.1-12.6.4.5,
 * MS-RPCE 2.2.2.4-2.2.2.5): bind and alter_context, bind_ack and
 * alter_context_resp, bind_nak.  Offsets here are from the end of the
 * 16-byte common header, which is 4-aligned, so 4-byte padding in the
 * body is 4-byte padding from the start of the PDU as C706 counts it.
 */
#include "lib/dcerpc/dcerpc_private.h"

/* max_xmit_frag, max_recv_frag, assoc_group_id */
#define BIND_FIXED_SIZE		8
/* n_context_elem, reserved, reserved2 (and the same for p_result_list) */
#define LIST_HDR_SIZE		4
/* p_cont_id, n_transfer_syn, reserved, abstract_syntax */
#define CTX_ELEM_FIXED_SIZE	(4 + DCERPC_SYNTAX_SIZE)
/* result, reason, transfer_syntax */
#define CTX_RESULT_SIZE		(4 + DCERPC_SYNTAX_SIZE)

static NTSTATUS ctx_elem_pull(TALLOC_CTX *mem_ctx, struct smb2_cur *c,
			      struct dcerpc_ctx_elem *e)
{
	uint8_t i;

	e->cont_id = smb2_cur_u16(c);
	e->num_transfer = smb2_cur_u8(c);
	smb2_cur_skip(c, 1);
	dcerpc_cur_syntax(c, &e->abstract);
	if (c->bad || e->num_transfer == 0 ||
	    e->num_transfer > DCERPC_MAX_TRANSFER_SYNTAXES) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* check the room first, so a lying count allocates nothing */
	if ((size_t)e->num_transfer * DCERPC_SYNTAX_SIZE > smb2_cur_left(c)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	e->transfer = talloc_array(mem_ctx, struct dcerpc_syntax,
				   e->num_transfer);
	if (e->transfer == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < e->num_transfer; i++) {
		dcerpc_cur_syntax(c, &e->transfer[i]);
	}
	return c->bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

NTSTATUS dcerpc_bind_pull(TALLOC_CTX *mem_ctx, const uint8_t *body,
			  size_t len, struct dcerpc_bind *out)
{
	struct smb2_cur c = smb2_cur_init(body, len);
	NTSTATUS status;
	uint8_t i;

	out->ctx = NULL;
	out->max_xmit_frag = smb2_cur_u16(&c);
	out->max_recv_frag = smb2_cur_u16(&c);
	out->assoc_group_id = smb2_cur_u32(&c);
	out->num_contexts = smb2_cur_u8(&c);
	smb2_cur_skip(&c, 3);
	if (c.bad || out->num_contexts == 0 ||
	    out->num_contexts > DCERPC_MAX_CONTEXTS ||
	    (size_t)out->num_contexts * CTX_ELEM_FIXED_SIZE >
	    smb2_cur_left(&c)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->ctx = talloc_zero_array(mem_ctx, struct dcerpc_ctx_elem,
				     out->num_contexts);
	if (out->ctx == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < out->num_contexts; i++) {
		status = ctx_elem_pull(out->ctx, &c, &out->ctx[i]);
		if (!NT_STATUS_IS_OK(status)) {
			TALLOC_FREE(out->ctx);
			return status;
		}
	}
	return NT_STATUS_OK;
}

size_t dcerpc_bind_size(const struct dcerpc_bind *b)
{
	size_t n = BIND_FIXED_SIZE + LIST_HDR_SIZE;
	uint8_t i;

	if (b->num_contexts == 0 || b->num_contexts > DCERPC_MAX_CONTEXTS) {
		return SIZE_MAX;
	}
	for (i = 0; i < b->num_contexts; i++) {
		uint8_t t = b->ctx[i].num_transfer;

		if (t == 0 || t > DCERPC_MAX_TRANSFER_SYNTAXES) {
			return SIZE_MAX;
		}
		n += CTX_ELEM_FIXED_SIZE + (size_t)t * DCERPC_SYNTAX_SIZE;
	}
	return n;
}

void dcerpc_bind_push(struct smb2_wr *w, const struct dcerpc_bind *b)
{
	uint8_t i, j;

	smb2_wr_u16(w, b->max_xmit_frag);
	smb2_wr_u16(w, b->max_recv_frag);
	smb2_wr_u32(w, b->assoc_group_id);
	smb2_wr_u8(w, b->num_contexts);
	smb2_wr_zero(w, 3);
	for (i = 0; i < b->num_contexts; i++) {
		const struct dcerpc_ctx_elem *e = &b->ctx[i];

		smb2_wr_u16(w, e->cont_id);
		smb2_wr_u8(w, e->num_transfer);
		smb2_wr_zero(w, 1);
		dcerpc_wr_syntax(w, &e->abstract);
		for (j = 0; j < e->num_transfer; j++) {
			dcerpc_wr_syntax(w, &e->transfer[j]);
		}
	}
}

/*
 * port_spec_t: a u16 length counting the NUL, the string, then padding
 * to 4 before the result list.
 */
static void sec_addr_pull(struct smb2_cur *c, struct dcerpc_bind_ack *out)
{
	const uint8_t *s = NULL;

	out->sec_addr_len = smb2_cur_u16(c);
	s = smb2_cur_bytes(c, out->sec_addr_len);
	if (c->bad) {
		return;
	}
	if (out->sec_addr_len > 0) {
		if (s[out->sec_addr_len - 1] != 0 ||
		    memchr(s, 0, out->sec_addr_len) !=
		    s + out->sec_addr_len - 1) {
			c->bad = true;
			return;
		}
		out->sec_addr = (const char *)s;
	}
	smb2_cur_skip(c, (4 - (c->ofs & 3)) & 3);
}

NTSTATUS dcerpc_bind_ack_pull(TALLOC_CTX *mem_ctx, const uint8_t *body,
			      size_t len, struct dcerpc_bind_ack *out)
{
	struct smb2_cur c = smb2_cur_init(body, len);
	uint8_t i;

	out->results = NULL;
	out->sec_addr = NULL;
	out->max_xmit_frag = smb2_cur_u16(&c);
	out->max_recv_frag = smb2_cur_u16(&c);
	out->assoc_group_id = smb2_cur_u32(&c);
	sec_addr_pull(&c, out);
	out->num_results = smb2_cur_u8(&c);
	smb2_cur_skip(&c, 3);
	if (c.bad || out->num_results > DCERPC_MAX_CONTEXTS ||
	    (size_t)out->num_results * CTX_RESULT_SIZE > smb2_cur_left(&c)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->results = talloc_zero_array(mem_ctx, struct dcerpc_ctx_result,
					 out->num_results ? out->num_results
							  : 1);
	if (out->results == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < out->num_results; i++) {
		out->results[i].result = smb2_cur_u16(&c);
		out->results[i].reason = smb2_cur_u16(&c);
		dcerpc_cur_syntax(&c, &out->results[i].transfer);
		if (out->results[i].result > DCERPC_RESULT_NEGOTIATE_ACK) {
			TALLOC_FREE(out->results);
			return NT_STATUS_INVALID_PARAMETER;
		}
	}
	return NT_STATUS_OK;
}

static bool sec_addr_valid(const struct dcerpc_bind_ack *a)
{
	if (a->sec_addr_len == 0) {
		return true;
	}
	return a->sec_addr != NULL &&
	       memchr(a->sec_addr, 0, a->sec_addr_len) ==
	       a->sec_addr + a->sec_addr_len - 1;
}

size_t dcerpc_bind_ack_size(const struct dcerpc_bind_ack *a)
{
	size_t n = BIND_FIXED_SIZE + 2 + a->sec_addr_len;
	uint8_t i;

	if (a->num_results > DCERPC_MAX_CONTEXTS || !sec_addr_valid(a)) {
		return SIZE_MAX;
	}
	for (i = 0; i < a->num_results; i++) {
		if (a->results[i].result > DCERPC_RESULT_NEGOTIATE_ACK) {
			return SIZE_MAX;
		}
	}
	n = (n + 3) & ~(size_t)3;
	return n + LIST_HDR_SIZE + (size_t)a->num_results * CTX_RESULT_SIZE;
}

void dcerpc_bind_ack_push(struct smb2_wr *w,
			  const struct dcerpc_bind_ack *a)
{
	size_t start = w->ofs;
	uint8_t i;

	smb2_wr_u16(w, a->max_xmit_frag);
	smb2_wr_u16(w, a->max_recv_frag);
	smb2_wr_u32(w, a->assoc_group_id);
	smb2_wr_u16(w, a->sec_addr_len);
	smb2_wr_bytes(w, a->sec_addr, a->sec_addr_len);
	smb2_wr_zero(w, (4 - ((w->ofs - start) & 3)) & 3);
	smb2_wr_u8(w, a->num_results);
	smb2_wr_zero(w, 3);
	for (i = 0; i < a->num_results; i++) {
		smb2_wr_u16(w, a->results[i].result);
		smb2_wr_u16(w, a->results[i].reason);
		dcerpc_wr_syntax(w, &a->results[i].transfer);
	}
}

NTSTATUS dcerpc_bind_nak_pull(const uint8_t *body, size_t len,
			      struct dcerpc_bind_nak *out)
{
	struct smb2_cur c = smb2_cur_init(body, len);
	uint8_t i;

	out->reject_reason = smb2_cur_u16(&c);
	out->num_versions = smb2_cur_u8(&c);
	if (c.bad || out->num_versions > DCERPC_MAX_NAK_VERSIONS) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < out->num_versions; i++) {
		out->versions[i].major = smb2_cur_u8(&c);
		out->versions[i].minor = smb2_cur_u8(&c);
	}
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

size_t dcerpc_bind_nak_size(const struct dcerpc_bind_nak *n)
{
	if (n->num_versions > DCERPC_MAX_NAK_VERSIONS) {
		return SIZE_MAX;
	}
	return 3 + 2 * (size_t)n->num_versions;
}

void dcerpc_bind_nak_push(struct smb2_wr *w,
			  const struct dcerpc_bind_nak *n)
{
	uint8_t i;

	smb2_wr_u16(w, n->reject_reason);
	smb2_wr_u8(w, n->num_versions);
	for (i = 0; i < n->num_versions; i++) {
		smb2_wr_u8(w, n->versions[i].major);
		smb2_wr_u8(w, n->versions[i].minor);
	}
}
