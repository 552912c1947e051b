/*
 * SESSION_SETUP request and response bodies (MS-SMB2 2.2.5, 2.2.6).
 */
#include "lib/smb2/smb2_private.h"

/* Response: SecurityBufferOffset from the header (64 + 8). */
#define SESSSETUP_RSP_SECBUF_OFFSET \
	(SMB2_HDR_SIZE + (SMB2_SESSSETUP_RSP_SIZE & ~1))

NTSTATUS smb2_sesssetup_req_pull(const struct smb2_pdu *pdu,
				 struct smb2_sesssetup_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_SESSSETUP);
	uint16_t sec_ofs = 0;
	uint16_t sec_len = 0;

	out->flags = smb2_cur_u8(&c);
	out->security_mode = smb2_cur_u8(&c);
	out->capabilities = smb2_cur_u32(&c);
	out->channel = smb2_cur_u32(&c);
	sec_ofs = smb2_cur_u16(&c);
	sec_len = smb2_cur_u16(&c);
	out->previous_session_id = smb2_cur_u64(&c);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, sec_ofs, sec_len, &out->security);
}

uint8_t *smb2_sesssetup_rsp_push(TALLOC_CTX *mem_ctx,
				 const struct smb2_sesssetup_rsp *in,
				 size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = NULL;

	if (in->security.len > UINT16_MAX) {
		return NULL;
	}
	buf = smb2_rsp_alloc(mem_ctx,
			     smb2_rsp_body_size(SMB2_SESSSETUP_RSP_SIZE,
						in->security.len), &w);
	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_SESSSETUP_RSP_SIZE);
	smb2_wr_u16(&w, in->session_flags);
	smb2_wr_u16(&w, SESSSETUP_RSP_SECBUF_OFFSET);
	smb2_wr_u16(&w, (uint16_t)in->security.len);
	smb2_wr_bytes(&w, in->security.data, in->security.len);
	smb2_wr_zero(&w, w.len - w.ofs);
	return smb2_rsp_finish(buf, &w, len);
}
