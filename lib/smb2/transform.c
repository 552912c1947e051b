/*
 * SMB2 TRANSFORM_HEADER codec (MS-SMB2 2.2.41, 3.3.5.2.1).
 */
#include <string.h>
#include "lib/smb2/transform.h"
#include "lib/smb2/cursor.h"

NTSTATUS smb2_transform_pull(const uint8_t *buf, size_t len,
			     struct smb2_transform_hdr *out,
			     size_t *consumed)
{
	struct smb2_cur c = smb2_cur_init(buf, len);
	uint32_t protocol_id = 0;

	protocol_id = smb2_cur_u32(&c);
	smb2_cur_copy(&c, out->signature, SMB2_TF_SIGNATURE_SIZE);
	smb2_cur_copy(&c, out->nonce, SMB2_TF_NONCE_SIZE);
	out->msg_size = smb2_cur_u32(&c);
	smb2_cur_skip(&c, 2);			/* Reserved */
	out->flags = smb2_cur_u16(&c);
	out->session_id = smb2_cur_u64(&c);
	if (c.bad || protocol_id != SMB2_TF_PROTOCOL_ID ||
	    out->flags != SMB2_TRANSFORM_FLAG_ENCRYPTED ||
	    out->msg_size == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->msg = smb2_cur_bytes(&c, out->msg_size);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (consumed != NULL) {
		*consumed = SMB2_TRANSFORM_HDR_SIZE + (size_t)out->msg_size;
	}
	return NT_STATUS_OK;
}

void smb2_transform_push(const struct smb2_transform_hdr *in,
			 uint8_t out[SMB2_TRANSFORM_HDR_SIZE])
{
	push_le32(out + SMB2_TF_OFS_PROTOCOL_ID, SMB2_TF_PROTOCOL_ID);
	memcpy(out + SMB2_TF_OFS_SIGNATURE, in->signature,
	       SMB2_TF_SIGNATURE_SIZE);
	memcpy(out + SMB2_TF_OFS_NONCE, in->nonce, SMB2_TF_NONCE_SIZE);
	push_le32(out + SMB2_TF_OFS_MSG_SIZE, in->msg_size);
	push_le16(out + SMB2_TF_OFS_RESERVED, 0);
	push_le16(out + SMB2_TF_OFS_FLAGS, in->flags);
	push_le64(out + SMB2_TF_OFS_SESSION_ID, in->session_id);
}
