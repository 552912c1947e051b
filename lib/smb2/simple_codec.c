/*
 * Bodies that are only StructureSize + Reserved: LOGOFF, TREE_DISCONNECT,
 * ECHO, CANCEL requests (MS-SMB2 2.2.7, 2.2.11, 2.2.28, 2.2.30) and
 * their responses, plus the FLUSH, LOCK and SET_INFO responses; and the
 * ERROR response (2.2.2).
 */
#include "lib/smb2/smb2_private.h"

static NTSTATUS simple_req_pull(const struct smb2_pdu *pdu, uint16_t op)
{
	struct smb2_cur c = smb2_body_cur(pdu, op);

	(void)smb2_cur_u16(&c);		/* Reserved */
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

NTSTATUS smb2_logoff_req_pull(const struct smb2_pdu *pdu)
{
	return simple_req_pull(pdu, SMB2_OP_LOGOFF);
}

NTSTATUS smb2_tdis_req_pull(const struct smb2_pdu *pdu)
{
	return simple_req_pull(pdu, SMB2_OP_TDIS);
}

NTSTATUS smb2_echo_req_pull(const struct smb2_pdu *pdu)
{
	return simple_req_pull(pdu, SMB2_OP_ECHO);
}

NTSTATUS smb2_cancel_req_pull(const struct smb2_pdu *pdu)
{
	return simple_req_pull(pdu, SMB2_OP_CANCEL);
}

uint8_t *smb2_logoff_rsp_push(TALLOC_CTX *mem_ctx, size_t *len)
{
	return smb2_fixed_rsp_push(mem_ctx, SMB2_LOGOFF_RSP_SIZE, len);
}

uint8_t *smb2_tdis_rsp_push(TALLOC_CTX *mem_ctx, size_t *len)
{
	return smb2_fixed_rsp_push(mem_ctx, SMB2_TDIS_RSP_SIZE, len);
}

uint8_t *smb2_echo_rsp_push(TALLOC_CTX *mem_ctx, size_t *len)
{
	return smb2_fixed_rsp_push(mem_ctx, SMB2_ECHO_RSP_SIZE, len);
}

uint8_t *smb2_flush_rsp_push(TALLOC_CTX *mem_ctx, size_t *len)
{
	return smb2_fixed_rsp_push(mem_ctx, SMB2_FLUSH_RSP_SIZE, len);
}

uint8_t *smb2_lock_rsp_push(TALLOC_CTX *mem_ctx, size_t *len)
{
	return smb2_fixed_rsp_push(mem_ctx, SMB2_LOCK_RSP_SIZE, len);
}

uint8_t *smb2_set_info_rsp_push(TALLOC_CTX *mem_ctx, size_t *len)
{
	return smb2_fixed_rsp_push(mem_ctx, SMB2_SET_INFO_RSP_SIZE, len);
}

uint8_t *smb2_error_rsp_push(TALLOC_CTX *mem_ctx, const uint8_t *data,
			     size_t data_len, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = NULL;
	size_t size = 0;

	if (data_len > UINT32_MAX) {
		return NULL;
	}
	size = smb2_rsp_body_size(SMB2_ERROR_RSP_SIZE, data_len);
	buf = smb2_rsp_alloc(mem_ctx, size, &w);
	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_ERROR_RSP_SIZE);
	smb2_wr_u8(&w, 0);		/* ErrorContextCount */
	smb2_wr_u8(&w, 0);		/* Reserved */
	smb2_wr_u32(&w, (uint32_t)data_len);	/* ByteCount */
	smb2_wr_bytes(&w, data, data_len);
	smb2_wr_zero(&w, size - w.ofs);
	return smb2_rsp_finish(buf, &w, len);
}

size_t smb2_error_buffer_size_push(uint32_t needed, uint8_t *buf,
				   size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u32(&w, needed);
	return w.overflow ? 0 : w.ofs;
}
