/*
 * QUERY_DIRECTORY (MS-SMB2 2.2.33, 2.2.34), CHANGE_NOTIFY (2.2.35,
 * 2.2.36), QUERY_INFO (2.2.37, 2.2.38) and SET_INFO (2.2.39): the
 * requests that name a file and an information buffer.  The three
 * responses share the 9-byte output-buffer layout (rsp.c).
 */
#include "lib/smb2/smb2_private.h"

NTSTATUS smb2_query_directory_req_pull(const struct smb2_pdu *pdu,
				       struct smb2_query_directory_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_QUERY_DIRECTORY);
	uint16_t name_ofs = 0;
	uint16_t name_len = 0;

	out->file_information_class = smb2_cur_u8(&c);
	out->flags = smb2_cur_u8(&c);
	out->file_index = smb2_cur_u32(&c);
	smb2_cur_file_id(&c, &out->file_id);
	name_ofs = smb2_cur_u16(&c);
	name_len = smb2_cur_u16(&c);
	out->output_buffer_length = smb2_cur_u32(&c);
	if (c.bad || (name_len & 1) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, name_ofs, name_len, &out->name);
}

NTSTATUS smb2_change_notify_req_pull(const struct smb2_pdu *pdu,
				     struct smb2_change_notify_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_CHANGE_NOTIFY);

	out->flags = smb2_cur_u16(&c);
	out->output_buffer_length = smb2_cur_u32(&c);
	smb2_cur_file_id(&c, &out->file_id);
	out->completion_filter = smb2_cur_u32(&c);
	smb2_cur_skip(&c, 4);			/* Reserved */
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

NTSTATUS smb2_query_info_req_pull(const struct smb2_pdu *pdu,
				  struct smb2_query_info_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_QUERY_INFO);
	uint16_t in_ofs = 0;
	uint32_t in_len = 0;

	out->info_type = smb2_cur_u8(&c);
	out->file_info_class = smb2_cur_u8(&c);
	out->output_buffer_length = smb2_cur_u32(&c);
	in_ofs = smb2_cur_u16(&c);
	smb2_cur_skip(&c, 2);			/* Reserved */
	in_len = smb2_cur_u32(&c);
	out->additional_information = smb2_cur_u32(&c);
	out->flags = smb2_cur_u32(&c);
	smb2_cur_file_id(&c, &out->file_id);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, in_ofs, in_len, &out->input);
}

NTSTATUS smb2_set_info_req_pull(const struct smb2_pdu *pdu,
				struct smb2_set_info_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_SET_INFO);
	uint32_t buf_len = 0;
	uint16_t buf_ofs = 0;

	out->info_type = smb2_cur_u8(&c);
	out->file_info_class = smb2_cur_u8(&c);
	buf_len = smb2_cur_u32(&c);
	buf_ofs = smb2_cur_u16(&c);
	smb2_cur_skip(&c, 2);			/* Reserved */
	out->additional_information = smb2_cur_u32(&c);
	smb2_cur_file_id(&c, &out->file_id);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, buf_ofs, buf_len, &out->buffer);
}

uint8_t *smb2_query_directory_rsp_push(TALLOC_CTX *mem_ctx,
				       const struct smb2_blob *output,
				       size_t *len)
{
	return smb2_outbuf_rsp_push(mem_ctx, output, len);
}

uint8_t *smb2_change_notify_rsp_push(TALLOC_CTX *mem_ctx,
				     const struct smb2_blob *output,
				     size_t *len)
{
	return smb2_outbuf_rsp_push(mem_ctx, output, len);
}

uint8_t *smb2_query_info_rsp_push(TALLOC_CTX *mem_ctx,
				  const struct smb2_blob *output,
				  size_t *len)
{
	return smb2_outbuf_rsp_push(mem_ctx, output, len);
}
