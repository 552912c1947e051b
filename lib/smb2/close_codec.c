/*
 * CLOSE (MS-SMB2 2.2.15, 2.2.16) and FLUSH (2.2.17) bodies.
 */
#include "lib/smb2/smb2_private.h"

NTSTATUS smb2_close_req_pull(const struct smb2_pdu *pdu,
			     struct smb2_close_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_CLOSE);

	out->flags = smb2_cur_u16(&c);
	smb2_cur_skip(&c, 4);			/* Reserved */
	smb2_cur_file_id(&c, &out->file_id);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

uint8_t *smb2_close_rsp_push(TALLOC_CTX *mem_ctx,
			     const struct smb2_close_rsp *in, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, SMB2_CLOSE_RSP_SIZE, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_CLOSE_RSP_SIZE);
	smb2_wr_u16(&w, in->flags);
	smb2_wr_u32(&w, 0);			/* Reserved */
	smb2_wr_u64(&w, in->creation_time);
	smb2_wr_u64(&w, in->last_access_time);
	smb2_wr_u64(&w, in->last_write_time);
	smb2_wr_u64(&w, in->change_time);
	smb2_wr_u64(&w, in->allocation_size);
	smb2_wr_u64(&w, in->end_of_file);
	smb2_wr_u32(&w, in->file_attributes);
	return smb2_rsp_finish(buf, &w, len);
}

NTSTATUS smb2_flush_req_pull(const struct smb2_pdu *pdu,
			     struct smb2_flush_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_FLUSH);

	smb2_cur_skip(&c, 6);			/* Reserved1, Reserved2 */
	smb2_cur_file_id(&c, &out->file_id);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}
