/*
 * NEGOTIATE request and response bodies (MS-SMB2 2.2.3, 2.2.4).
 */
#include "lib/smb2/smb2_private.h"

/* Response: SecurityBufferOffset from the header (64 + 64). */
#define NEGPROT_RSP_SECBUF_OFFSET (SMB2_HDR_SIZE + (SMB2_NEGPROT_RSP_SIZE & ~1))

NTSTATUS smb2_negprot_req_pull(const struct smb2_pdu *pdu,
			       struct smb2_negprot_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_NEGPROT);
	const uint8_t *ctx_fields = NULL;
	uint32_t dialects_len = 0;
	NTSTATUS status;

	out->num_negctx = 0;
	out->dialect_count = smb2_cur_u16(&c);
	out->security_mode = smb2_cur_u16(&c);
	smb2_cur_skip(&c, 2);			/* Reserved */
	out->capabilities = smb2_cur_u32(&c);
	smb2_cur_copy(&c, out->client_guid, sizeof(out->client_guid));
	ctx_fields = smb2_cur_bytes(&c, 8);
	if (c.bad || out->dialect_count == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->client_start_time = pull_le64(ctx_fields);
	out->negctx_offset = pull_le32(ctx_fields);
	out->negctx_count = pull_le16(ctx_fields + 4);

	dialects_len = 2 * (uint32_t)out->dialect_count;
	status = smb2_pdu_dyn(pdu, pdu->dyn_ofs, dialects_len, &out->dialects);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!smb2_u16_array_has(out->dialects, out->dialect_count,
				SMB2_DIALECT_0311)) {
		return NT_STATUS_OK;
	}
	return smb2_negctx_list_pull(pdu, out->negctx_offset,
				     out->negctx_count,
				     pdu->dyn_ofs + dialects_len,
				     out->negctx, &out->num_negctx);
}

/* Body-relative end of the context list, starting at start. */
static size_t negctx_list_end(const struct smb2_negprot_rsp *in, size_t start)
{
	size_t pos = start;
	size_t i = 0;

	for (i = 0; i < in->num_negctx; i++) {
		pos = smb2_align8(pos) + 8 + in->negctx[i].len;
	}
	return pos;
}

static void negctx_list_push(struct smb2_wr *w,
			     const struct smb2_negprot_rsp *in)
{
	size_t i = 0;

	for (i = 0; i < in->num_negctx; i++) {
		smb2_wr_align(w, 8);
		smb2_wr_u16(w, in->negctx[i].type);
		smb2_wr_u16(w, in->negctx[i].len);
		smb2_wr_u32(w, 0);		/* Reserved */
		smb2_wr_bytes(w, in->negctx[i].data, in->negctx[i].len);
	}
}

uint8_t *smb2_negprot_rsp_push(TALLOC_CTX *mem_ctx,
			       const struct smb2_negprot_rsp *in,
			       size_t *len)
{
	const size_t fixed = SMB2_NEGPROT_RSP_SIZE & ~1;
	bool with_ctx = in->dialect == SMB2_DIALECT_0311;
	size_t ctx_start = 0;
	size_t end = 0;
	struct smb2_wr w;
	uint8_t *buf = NULL;

	if (in->security.len > UINT16_MAX ||
	    in->num_negctx > (with_ctx ? UINT16_MAX : 0)) {
		return NULL;
	}
	ctx_start = smb2_align8(fixed + in->security.len);
	end = with_ctx ? negctx_list_end(in, fixed + in->security.len) :
			 fixed + in->security.len;
	buf = smb2_rsp_alloc(mem_ctx,
			     smb2_rsp_body_size(SMB2_NEGPROT_RSP_SIZE,
						end - fixed), &w);
	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_NEGPROT_RSP_SIZE);
	smb2_wr_u16(&w, in->security_mode);
	smb2_wr_u16(&w, in->dialect);
	smb2_wr_u16(&w, (uint16_t)in->num_negctx);
	smb2_wr_bytes(&w, in->server_guid, sizeof(in->server_guid));
	smb2_wr_u32(&w, in->capabilities);
	smb2_wr_u32(&w, in->max_transact);
	smb2_wr_u32(&w, in->max_read);
	smb2_wr_u32(&w, in->max_write);
	smb2_wr_u64(&w, in->system_time);
	smb2_wr_u64(&w, in->server_start_time);
	smb2_wr_u16(&w, NEGPROT_RSP_SECBUF_OFFSET);
	smb2_wr_u16(&w, (uint16_t)in->security.len);
	smb2_wr_u32(&w, with_ctx ? SMB2_HDR_SIZE + ctx_start : 0);
	smb2_wr_bytes(&w, in->security.data, in->security.len);
	if (with_ctx) {
		negctx_list_push(&w, in);
	}
	smb2_wr_zero(&w, w.len - w.ofs);
	return smb2_rsp_finish(buf, &w, len);
}
