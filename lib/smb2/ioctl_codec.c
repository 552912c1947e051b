/*
 * IOCTL request and response bodies (MS-SMB2 2.2.31, 2.2.32).
 */
#include "lib/smb2/smb2_private.h"

NTSTATUS smb2_ioctl_req_pull(const struct smb2_pdu *pdu,
			     struct smb2_ioctl_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_IOCTL);
	uint32_t in_ofs = 0, in_len = 0, out_ofs = 0, out_len = 0;
	NTSTATUS status;

	smb2_cur_skip(&c, 2);			/* Reserved */
	out->ctl_code = smb2_cur_u32(&c);
	smb2_cur_file_id(&c, &out->file_id);
	in_ofs = smb2_cur_u32(&c);
	in_len = smb2_cur_u32(&c);
	out->max_input_response = smb2_cur_u32(&c);
	out_ofs = smb2_cur_u32(&c);
	out_len = smb2_cur_u32(&c);
	out->max_output_response = smb2_cur_u32(&c);
	out->flags = smb2_cur_u32(&c);
	smb2_cur_skip(&c, 4);			/* Reserved2 */
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_pdu_blob(pdu, in_ofs, in_len, &out->input);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return smb2_pdu_blob(pdu, out_ofs, out_len, &out->output);
}

uint8_t *smb2_ioctl_rsp_push(TALLOC_CTX *mem_ctx,
			     const struct smb2_ioctl_rsp *in, size_t *len)
{
	const size_t fixed = SMB2_IOCTL_RSP_SIZE & ~1;
	size_t out_pos = 0;
	struct smb2_wr w;
	uint8_t *buf = NULL;

	if (in->input.len > UINT32_MAX || in->output.len > UINT32_MAX ||
	    in->input.len > UINT32_MAX - SMB2_IOCTL_RSP_BUFFER_OFFSET - 7) {
		return NULL;
	}
	out_pos = in->output.len ? smb2_align8(fixed + in->input.len) :
				   fixed + in->input.len;
	buf = smb2_rsp_alloc(mem_ctx,
			     smb2_rsp_body_size(SMB2_IOCTL_RSP_SIZE,
						out_pos - fixed +
							in->output.len), &w);
	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_IOCTL_RSP_SIZE);
	smb2_wr_u16(&w, 0);			/* Reserved */
	smb2_wr_u32(&w, in->ctl_code);
	smb2_wr_file_id(&w, &in->file_id);
	smb2_wr_u32(&w, SMB2_IOCTL_RSP_BUFFER_OFFSET);
	smb2_wr_u32(&w, (uint32_t)in->input.len);
	smb2_wr_u32(&w, SMB2_HDR_SIZE + (uint32_t)out_pos);
	smb2_wr_u32(&w, (uint32_t)in->output.len);
	smb2_wr_u32(&w, in->flags);
	smb2_wr_u32(&w, 0);			/* Reserved2 */
	smb2_wr_bytes(&w, in->input.data, in->input.len);
	smb2_wr_zero(&w, out_pos - w.ofs);
	smb2_wr_bytes(&w, in->output.data, in->output.len);
	smb2_wr_zero(&w, w.len - w.ofs);
	return smb2_rsp_finish(buf, &w, len);
}
