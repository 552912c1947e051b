/*
 * CREATE request and response bodies (MS-SMB2 2.2.13, 2.2.14); the
 * context chains are in create_ctx.c.
 */
#include "lib/smb2/smb2_private.h"

/* Response: CreateContexts offset from the header (64 + 88). */
#define CREATE_RSP_CTX_OFFSET (SMB2_HDR_SIZE + (SMB2_CREATE_RSP_SIZE & ~1))

static bool ranges_overlap(size_t a_ofs, size_t a_len, size_t b_ofs,
			   size_t b_len)
{
	if (a_len == 0 || b_len == 0) {
		return false;
	}
	return a_ofs < b_ofs + b_len && b_ofs < a_ofs + a_len;
}

NTSTATUS smb2_create_req_pull(const struct smb2_pdu *pdu,
			      struct smb2_create_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_CREATE);
	uint16_t name_ofs = 0, name_len = 0;
	uint32_t ctx_ofs = 0, ctx_len = 0;
	struct smb2_blob ctx = {};
	NTSTATUS status;

	out->contexts.num = 0;
	out->security_flags = smb2_cur_u8(&c);
	out->requested_oplock_level = smb2_cur_u8(&c);
	out->impersonation_level = smb2_cur_u32(&c);
	out->smb_create_flags = smb2_cur_u64(&c);
	smb2_cur_skip(&c, 8);			/* Reserved */
	out->desired_access = smb2_cur_u32(&c);
	out->file_attributes = smb2_cur_u32(&c);
	out->share_access = smb2_cur_u32(&c);
	out->create_disposition = smb2_cur_u32(&c);
	out->create_options = smb2_cur_u32(&c);
	name_ofs = smb2_cur_u16(&c);
	name_len = smb2_cur_u16(&c);
	ctx_ofs = smb2_cur_u32(&c);
	ctx_len = smb2_cur_u32(&c);
	if (c.bad || (name_len & 1) != 0 ||
	    ranges_overlap(name_ofs, name_len, ctx_ofs, ctx_len)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_pdu_blob(pdu, name_ofs, name_len, &out->name);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = smb2_pdu_blob(pdu, ctx_ofs, ctx_len, &ctx);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return smb2_create_ctx_parse(ctx.data, ctx.len, &out->contexts);
}

uint8_t *smb2_create_rsp_push(TALLOC_CTX *mem_ctx,
			      const struct smb2_create_rsp *in, size_t *len)
{
	struct smb2_wr w;
	size_t ctx_len = 0;
	uint8_t *ctx = NULL;
	uint8_t *buf = NULL;

	ctx = smb2_create_ctx_push(mem_ctx, in->contexts, in->num_contexts,
				   &ctx_len);
	if (ctx == NULL || ctx_len > UINT32_MAX) {
		talloc_free(ctx);
		return NULL;
	}
	buf = smb2_rsp_alloc(mem_ctx,
			     smb2_rsp_body_size(SMB2_CREATE_RSP_SIZE, ctx_len),
			     &w);
	if (buf == NULL) {
		talloc_free(ctx);
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_CREATE_RSP_SIZE);
	smb2_wr_u8(&w, in->oplock_level);
	smb2_wr_u8(&w, in->flags);
	smb2_wr_u32(&w, in->create_action);
	smb2_wr_u64(&w, in->creation_time);
	smb2_wr_u64(&w, in->last_access_time);
	smb2_wr_u64(&w, in->last_write_time);
	smb2_wr_u64(&w, in->change_time);
	smb2_wr_u64(&w, in->allocation_size);
	smb2_wr_u64(&w, in->end_of_file);
	smb2_wr_u32(&w, in->file_attributes);
	smb2_wr_u32(&w, 0);			/* Reserved2 */
	smb2_wr_file_id(&w, &in->file_id);
	smb2_wr_u32(&w, ctx_len ? CREATE_RSP_CTX_OFFSET : 0);
	smb2_wr_u32(&w, (uint32_t)ctx_len);
	smb2_wr_bytes(&w, ctx, ctx_len);
	smb2_wr_zero(&w, w.len - w.ofs);
	talloc_free(ctx);
	return smb2_rsp_finish(buf, &w, len);
}
