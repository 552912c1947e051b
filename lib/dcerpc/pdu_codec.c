/*
 * The connection-oriented PDU frame (MS-RPCE 2.2.2.1, C706 12.6): the
 * 16-byte common header, the auth trailer at the end of the fragment
 * (MS-RPCE 2.2.2.11), and the request, response and fault bodies (C706
 * 12.6.4.7, 12.6.4.9, 12.6.4.10); bind_codec.c has the bind family.
 */
#include "lib/dcerpc/dcerpc_private.h"

/* alloc_hint, p_cont_id, opnum */
#define REQUEST_FIXED_SIZE	8
/* alloc_hint, p_cont_id, cancel_count, reserved */
#define RESPONSE_FIXED_SIZE	8
/* ... and status, reserved2 */
#define FAULT_FIXED_SIZE	16

NTSTATUS dcerpc_hdr_pull(const uint8_t *buf, size_t len,
			 struct dcerpc_hdr *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);
	uint8_t vers = smb2_cur_u8(&c);
	uint8_t minor = smb2_cur_u8(&c);
	uint8_t drep0 = 0;

	out->ptype = smb2_cur_u8(&c);
	out->pfc_flags = smb2_cur_u8(&c);
	drep0 = smb2_cur_u8(&c);
	smb2_cur_skip(&c, 3);	/* float representation and reserved */
	out->frag_length = smb2_cur_u16(&c);
	out->auth_length = smb2_cur_u16(&c);
	out->call_id = smb2_cur_u32(&c);
	if (c.bad || vers != DCERPC_RPC_VERS ||
	    minor != DCERPC_RPC_VERS_MINOR || drep0 != DCERPC_DREP_LE_ASCII) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (out->frag_length < DCERPC_HDR_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (out->auth_length != 0 &&
	    (size_t)out->auth_length + DCERPC_AUTH_TRAILER_SIZE >
	    (size_t)out->frag_length - DCERPC_HDR_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/*
 * Cuts the sec_trailer and auth value (and the auth padding before
 * them) off the end of the body.
 */
static NTSTATUS auth_pull(const struct dcerpc_hdr *hdr,
			  const uint8_t *body, size_t *body_len,
			  struct dcerpc_auth *out)
{
	size_t tail = (size_t)hdr->auth_length + DCERPC_AUTH_TRAILER_SIZE;
	struct smb2_cur c;

	/* dcerpc_hdr_pull checked tail <= *body_len */
	*body_len -= tail;
	c = smb2_cur_init(body + *body_len, tail);
	out->auth_type = smb2_cur_u8(&c);
	out->auth_level = smb2_cur_u8(&c);
	out->auth_pad_length = smb2_cur_u8(&c);
	smb2_cur_skip(&c, 1);
	out->auth_context_id = smb2_cur_u32(&c);
	out->value = smb2_cur_bytes(&c, hdr->auth_length);
	if (c.bad || out->auth_pad_length > *body_len) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*body_len -= out->auth_pad_length;
	return NT_STATUS_OK;
}

static NTSTATUS request_pull(uint8_t pfc_flags, const uint8_t *body,
			     size_t len, struct dcerpc_request *out)
{
	struct smb2_cur c = smb2_cur_init(body, len);

	out->alloc_hint = smb2_cur_u32(&c);
	out->cont_id = smb2_cur_u16(&c);
	out->opnum = smb2_cur_u16(&c);
	memset(&out->object, 0, sizeof(out->object));
	if (pfc_flags & DCERPC_PFC_OBJECT_UUID) {
		dcerpc_cur_uuid(&c, &out->object);
	}
	out->stub_len = smb2_cur_left(&c);
	out->stub = smb2_cur_bytes(&c, out->stub_len);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

static NTSTATUS response_pull(const uint8_t *body, size_t len,
			      struct dcerpc_response *out)
{
	struct smb2_cur c = smb2_cur_init(body, len);

	out->alloc_hint = smb2_cur_u32(&c);
	out->cont_id = smb2_cur_u16(&c);
	out->cancel_count = smb2_cur_u8(&c);
	smb2_cur_skip(&c, 1);
	out->stub_len = smb2_cur_left(&c);
	out->stub = smb2_cur_bytes(&c, out->stub_len);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

static NTSTATUS fault_pull(const uint8_t *body, size_t len,
			   struct dcerpc_fault *out)
{
	struct smb2_cur c = smb2_cur_init(body, len);

	out->alloc_hint = smb2_cur_u32(&c);
	out->cont_id = smb2_cur_u16(&c);
	out->cancel_count = smb2_cur_u8(&c);
	out->flags = smb2_cur_u8(&c);
	out->status = smb2_cur_u32(&c);
	smb2_cur_skip(&c, 4);
	out->stub_len = smb2_cur_left(&c);
	out->stub = smb2_cur_bytes(&c, out->stub_len);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

static NTSTATUS body_pull(TALLOC_CTX *mem_ctx, struct dcerpc_pdu *out,
			  const uint8_t *body, size_t len)
{
	switch (out->hdr.ptype) {
	case DCERPC_PT_REQUEST:
		return request_pull(out->hdr.pfc_flags, body, len,
				    &out->u.req);
	case DCERPC_PT_RESPONSE:
		return response_pull(body, len, &out->u.rsp);
	case DCERPC_PT_FAULT:
		return fault_pull(body, len, &out->u.fault);
	case DCERPC_PT_BIND:
	case DCERPC_PT_ALTER_CONTEXT:
		return dcerpc_bind_pull(mem_ctx, body, len, &out->u.bind);
	case DCERPC_PT_BIND_ACK:
	case DCERPC_PT_ALTER_CONTEXT_RESP:
		return dcerpc_bind_ack_pull(mem_ctx, body, len, &out->u.ack);
	case DCERPC_PT_BIND_NAK:
		return dcerpc_bind_nak_pull(body, len, &out->u.nak);
	case DCERPC_PT_AUTH3:
	case DCERPC_PT_SHUTDOWN:
	case DCERPC_PT_CO_CANCEL:
	case DCERPC_PT_ORPHANED:
		return NT_STATUS_OK;
	default:
		return NT_STATUS_INVALID_PARAMETER;
	}
}

NTSTATUS dcerpc_pdu_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			 size_t len, struct dcerpc_pdu *out)
{
	size_t body_len = 0;
	NTSTATUS status;

	*out = (struct dcerpc_pdu){};
	status = dcerpc_hdr_pull(buf, len, &out->hdr);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (out->hdr.frag_length != len) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	body_len = len - DCERPC_HDR_SIZE;
	if (out->hdr.auth_length != 0) {
		out->has_auth = true;
		status = auth_pull(&out->hdr, buf + DCERPC_HDR_SIZE,
				   &body_len, &out->auth);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	return body_pull(mem_ctx, out, buf + DCERPC_HDR_SIZE, body_len);
}

/* The body's size, SIZE_MAX when in cannot be pushed. */
static size_t body_size(const struct dcerpc_pdu *in)
{
	const struct dcerpc_request *req = &in->u.req;

	switch (in->hdr.ptype) {
	case DCERPC_PT_REQUEST:
		return REQUEST_FIXED_SIZE + req->stub_len +
		       ((in->hdr.pfc_flags & DCERPC_PFC_OBJECT_UUID) ?
			DCERPC_UUID_SIZE : 0);
	case DCERPC_PT_RESPONSE:
		return RESPONSE_FIXED_SIZE + in->u.rsp.stub_len;
	case DCERPC_PT_FAULT:
		return FAULT_FIXED_SIZE + in->u.fault.stub_len;
	case DCERPC_PT_BIND:
	case DCERPC_PT_ALTER_CONTEXT:
		return dcerpc_bind_size(&in->u.bind);
	case DCERPC_PT_BIND_ACK:
	case DCERPC_PT_ALTER_CONTEXT_RESP:
		return dcerpc_bind_ack_size(&in->u.ack);
	case DCERPC_PT_BIND_NAK:
		return dcerpc_bind_nak_size(&in->u.nak);
	case DCERPC_PT_AUTH3:
	case DCERPC_PT_SHUTDOWN:
	case DCERPC_PT_CO_CANCEL:
	case DCERPC_PT_ORPHANED:
		return 0;
	default:
		return SIZE_MAX;
	}
}

static void body_push(struct smb2_wr *w, const struct dcerpc_pdu *in)
{
	const struct dcerpc_request *req = &in->u.req;
	const struct dcerpc_response *rsp = &in->u.rsp;
	const struct dcerpc_fault *f = &in->u.fault;

	switch (in->hdr.ptype) {
	case DCERPC_PT_REQUEST:
		smb2_wr_u32(w, req->alloc_hint);
		smb2_wr_u16(w, req->cont_id);
		smb2_wr_u16(w, req->opnum);
		if (in->hdr.pfc_flags & DCERPC_PFC_OBJECT_UUID) {
			dcerpc_wr_uuid(w, &req->object);
		}
		smb2_wr_bytes(w, req->stub, req->stub_len);
		break;
	case DCERPC_PT_RESPONSE:
		smb2_wr_u32(w, rsp->alloc_hint);
		smb2_wr_u16(w, rsp->cont_id);
		smb2_wr_u8(w, rsp->cancel_count);
		smb2_wr_zero(w, 1);
		smb2_wr_bytes(w, rsp->stub, rsp->stub_len);
		break;
	case DCERPC_PT_FAULT:
		smb2_wr_u32(w, f->alloc_hint);
		smb2_wr_u16(w, f->cont_id);
		smb2_wr_u8(w, f->cancel_count);
		smb2_wr_u8(w, f->flags);
		smb2_wr_u32(w, f->status);
		smb2_wr_zero(w, 4);
		smb2_wr_bytes(w, f->stub, f->stub_len);
		break;
	case DCERPC_PT_BIND:
	case DCERPC_PT_ALTER_CONTEXT:
		dcerpc_bind_push(w, &in->u.bind);
		break;
	case DCERPC_PT_BIND_ACK:
	case DCERPC_PT_ALTER_CONTEXT_RESP:
		dcerpc_bind_ack_push(w, &in->u.ack);
		break;
	case DCERPC_PT_BIND_NAK:
		dcerpc_bind_nak_push(w, &in->u.nak);
		break;
	default:
		break;
	}
}

static void hdr_push(struct smb2_wr *w, const struct dcerpc_hdr *hdr,
		     uint16_t frag_length, uint16_t auth_length)
{
	smb2_wr_u8(w, DCERPC_RPC_VERS);
	smb2_wr_u8(w, DCERPC_RPC_VERS_MINOR);
	smb2_wr_u8(w, hdr->ptype);
	smb2_wr_u8(w, hdr->pfc_flags);
	smb2_wr_u8(w, DCERPC_DREP_LE_ASCII);
	smb2_wr_zero(w, 3);
	smb2_wr_u16(w, frag_length);
	smb2_wr_u16(w, auth_length);
	smb2_wr_u32(w, hdr->call_id);
}

static void auth_push(struct smb2_wr *w, const struct dcerpc_auth *a,
		      uint16_t auth_length)
{
	smb2_wr_zero(w, a->auth_pad_length);
	smb2_wr_u8(w, a->auth_type);
	smb2_wr_u8(w, a->auth_level);
	smb2_wr_u8(w, a->auth_pad_length);
	smb2_wr_zero(w, 1);
	smb2_wr_u32(w, a->auth_context_id);
	smb2_wr_bytes(w, a->value, auth_length);
}

NTSTATUS dcerpc_pdu_push(TALLOC_CTX *mem_ctx, const struct dcerpc_pdu *in,
			 uint8_t **out, size_t *out_len)
{
	uint16_t auth_length = in->has_auth ? in->hdr.auth_length : 0;
	size_t body = body_size(in);
	size_t total = 0;
	struct smb2_wr w;
	uint8_t *buf = NULL;

	if (body > UINT16_MAX) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	total = DCERPC_HDR_SIZE + body;
	if (in->has_auth) {
		total += in->auth.auth_pad_length + DCERPC_AUTH_TRAILER_SIZE +
			 auth_length;
	}
	if (total > UINT16_MAX || (in->has_auth && auth_length == 0)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	buf = talloc_array(mem_ctx, uint8_t, total);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	w = smb2_wr_init(buf, total);
	hdr_push(&w, &in->hdr, (uint16_t)total, auth_length);
	body_push(&w, in);
	if (in->has_auth) {
		auth_push(&w, &in->auth, auth_length);
	}
	if (w.overflow || w.ofs != total) {
		/* a size function and its push disagree: a bug here */
		TALLOC_FREE(buf);
		return NT_STATUS_INTERNAL_ERROR;
	}
	*out = buf;
	*out_len = total;
	return NT_STATUS_OK;
}
