/*
 * READ request and response bodies (MS-SMB2 2.2.19, 2.2.20).  The
 * response payload is never copied here: the body says where it is and
 * the daemon sends it as its own iovec.
 */
#include "lib/smb2/smb2_private.h"

NTSTATUS smb2_read_req_pull(const struct smb2_pdu *pdu,
			    struct smb2_read_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_READ);
	uint16_t ci_ofs = 0;
	uint16_t ci_len = 0;

	out->padding = smb2_cur_u8(&c);
	out->flags = smb2_cur_u8(&c);
	out->length = smb2_cur_u32(&c);
	out->offset = smb2_cur_u64(&c);
	smb2_cur_file_id(&c, &out->file_id);
	out->minimum_count = smb2_cur_u32(&c);
	out->channel = smb2_cur_u32(&c);
	out->remaining_bytes = smb2_cur_u32(&c);
	ci_ofs = smb2_cur_u16(&c);
	ci_len = smb2_cur_u16(&c);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, ci_ofs, ci_len, &out->channel_info);
}

uint8_t *smb2_read_rsp_push(TALLOC_CTX *mem_ctx,
			    const struct smb2_read_rsp *in, size_t *len)
{
	struct smb2_wr w;
	/* the payload is not in this buffer: only the fixed part (+pad) */
	size_t size = in->data_len > 0 ? (SMB2_READ_RSP_SIZE & ~1) :
					 SMB2_READ_RSP_SIZE;
	uint8_t *buf = NULL;

	buf = smb2_rsp_alloc(mem_ctx, size, &w);
	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_READ_RSP_SIZE);
	smb2_wr_u8(&w, SMB2_READ_RSP_DATA_OFFSET);
	smb2_wr_u8(&w, 0);			/* Reserved */
	smb2_wr_u32(&w, in->data_len);
	smb2_wr_u32(&w, in->data_remaining);
	smb2_wr_u32(&w, 0);			/* Flags / Reserved2 */
	smb2_wr_zero(&w, w.len - w.ofs);
	return smb2_rsp_finish(buf, &w, len);
}
