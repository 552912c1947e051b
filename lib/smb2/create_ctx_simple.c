/*
 * The small fixed-size create contexts, one exact length each:
 * SMB2_CREATE_ALLOCATION_SIZE "AlSi" in requests
 * (MS-SMB2 2.2.13.2.6), the SMB2_CREATE_QUERY_MAXIMAL_ACCESS_RESPONSE
 * "MxAc" (2.2.14.2.5) and the SMB2_CREATE_QUERY_ON_DISK_ID "QFid"
 * response (2.2.14.2.9).  What goes into the responses (which access,
 * which identifiers) is the server's business.
 */
#include "lib/smb2/smb2_private.h"

NTSTATUS smb2_alsi_pull(const struct smb2_create_ctx *ctx, uint64_t *size)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->data_len);

	*size = 0;
	if (ctx->data_len != SMB2_ALSI_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*size = smb2_cur_u64(&c);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

uint8_t *smb2_mxac_rsp_push(TALLOC_CTX *mem_ctx,
			    const struct smb2_mxac_rsp *in, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, SMB2_MXAC_RSP_SIZE, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u32(&w, in->query_status);
	smb2_wr_u32(&w, in->maximal_access);
	return smb2_rsp_finish(buf, &w, len);
}

uint8_t *smb2_qfid_rsp_push(TALLOC_CTX *mem_ctx,
			    const struct smb2_qfid_rsp *in, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, SMB2_QFID_RSP_SIZE, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u64(&w, in->disk_file_id);
	smb2_wr_u64(&w, in->volume_id);
	smb2_wr_zero(&w, 16);			/* Reserved */
	return smb2_rsp_finish(buf, &w, len);
}
