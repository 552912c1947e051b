/*
 * WRITE request and response bodies (MS-SMB2 2.2.21, 2.2.22).
 */
#include "lib/smb2/smb2_private.h"

NTSTATUS smb2_write_req_pull(const struct smb2_pdu *pdu,
			     struct smb2_write_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_WRITE);
	uint16_t ci_ofs = 0;
	uint16_t ci_len = 0;
	NTSTATUS status;

	out->data = (struct smb2_blob){};
	out->data_offset = smb2_cur_u16(&c);
	out->length = smb2_cur_u32(&c);
	out->offset = smb2_cur_u64(&c);
	smb2_cur_file_id(&c, &out->file_id);
	out->channel = smb2_cur_u32(&c);
	out->remaining_bytes = smb2_cur_u32(&c);
	ci_ofs = smb2_cur_u16(&c);
	ci_len = smb2_cur_u16(&c);
	out->flags = smb2_cur_u32(&c);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_pdu_blob(pdu, ci_ofs, ci_len, &out->channel_info);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	out->data_external = false;
	if (pdu->ext_len != 0) {
		/* the data right after the fixed body, all of it outside */
		if (out->data_offset != pdu->len || out->length != pdu->ext_len) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		out->data = (struct smb2_blob){ .data = NULL,
						.len = out->length };
		out->data_external = true;
		return NT_STATUS_OK;
	}
	return smb2_pdu_blob(pdu, out->data_offset, out->length, &out->data);
}

NTSTATUS smb2_write_head_pull(const uint8_t *buf, size_t len,
			      struct smb2_write_head *out)
{
	struct smb2_cur c;

	if (len < SMB2_HDR_SIZE + (SMB2_WRITE_REQ_SIZE & ~1) ||
	    !NT_STATUS_IS_OK(smb2_hdr_pull(buf, len, &out->hdr)) ||
	    out->hdr.command != SMB2_OP_WRITE ||
	    (out->hdr.flags & SMB2_FLAGS_ASYNC_COMMAND) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	c = smb2_cur_init(buf + SMB2_HDR_SIZE, len - SMB2_HDR_SIZE);
	if (smb2_cur_u16(&c) != SMB2_WRITE_REQ_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->data_offset = smb2_cur_u16(&c);
	out->length = smb2_cur_u32(&c);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

uint8_t *smb2_write_rsp_push(TALLOC_CTX *mem_ctx,
			     const struct smb2_write_rsp *in, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, SMB2_WRITE_RSP_SIZE, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_WRITE_RSP_SIZE);
	smb2_wr_u16(&w, 0);			/* Reserved */
	smb2_wr_u32(&w, in->count);
	smb2_wr_u32(&w, in->remaining);
	smb2_wr_u16(&w, 0);			/* WriteChannelInfoOffset */
	smb2_wr_u16(&w, 0);			/* WriteChannelInfoLength */
	smb2_wr_u8(&w, 0);			/* Buffer: the pad byte */
	return smb2_rsp_finish(buf, &w, len);
}
