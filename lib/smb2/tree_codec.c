/*
 * TREE_CONNECT request and response bodies (MS-SMB2 2.2.9, 2.2.10).
 * The 3.1.1 tree connect extension (Flags EXTENSION_PRESENT) is not
 * parsed; the path is read as PathOffset/PathLength in both cases.
 */
#include "lib/smb2/smb2_private.h"

NTSTATUS smb2_tcon_req_pull(const struct smb2_pdu *pdu,
			    struct smb2_tcon_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_TCON);
	uint16_t path_ofs = 0;
	uint16_t path_len = 0;

	out->flags = smb2_cur_u16(&c);
	path_ofs = smb2_cur_u16(&c);
	path_len = smb2_cur_u16(&c);
	if (c.bad || (path_len & 1) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, path_ofs, path_len, &out->path);
}

uint8_t *smb2_tcon_rsp_push(TALLOC_CTX *mem_ctx,
			    const struct smb2_tcon_rsp *in, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, SMB2_TCON_RSP_SIZE, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_TCON_RSP_SIZE);
	smb2_wr_u8(&w, in->share_type);
	smb2_wr_u8(&w, 0);			/* Reserved */
	smb2_wr_u32(&w, in->share_flags);
	smb2_wr_u32(&w, in->capabilities);
	smb2_wr_u32(&w, in->maximal_access);
	return smb2_rsp_finish(buf, &w, len);
}
