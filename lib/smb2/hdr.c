/*
 * The 64-byte SMB2 packet header (MS-SMB2 2.2.1.1 async, 2.2.1.2 sync).
 */
#include <string.h>
#include "lib/smb2/smb2_private.h"

void smb2_hdr_parse(const uint8_t *buf, struct smb2_hdr *out)
{
	*out = (struct smb2_hdr){};
	out->credit_charge = pull_le16(buf + SMB2_HDR_OFS_CREDIT_CHARGE);
	out->status = pull_le32(buf + SMB2_HDR_OFS_STATUS);
	out->command = pull_le16(buf + SMB2_HDR_OFS_COMMAND);
	out->credit = pull_le16(buf + SMB2_HDR_OFS_CREDIT);
	out->flags = pull_le32(buf + SMB2_HDR_OFS_FLAGS);
	out->next_command = pull_le32(buf + SMB2_HDR_OFS_NEXT_COMMAND);
	out->message_id = pull_le64(buf + SMB2_HDR_OFS_MESSAGE_ID);
	if (out->flags & SMB2_FLAGS_ASYNC_COMMAND) {
		out->async_id = pull_le64(buf + SMB2_HDR_OFS_ASYNC_ID);
	} else {
		out->process_id = pull_le32(buf + SMB2_HDR_OFS_PROCESS_ID);
		out->tree_id = pull_le32(buf + SMB2_HDR_OFS_TREE_ID);
	}
	out->session_id = pull_le64(buf + SMB2_HDR_OFS_SESSION_ID);
	memcpy(out->signature, buf + SMB2_HDR_OFS_SIGNATURE,
	       SMB2_SIGNATURE_SIZE);
}

NTSTATUS smb2_hdr_pull(const uint8_t *buf, size_t len, struct smb2_hdr *out)
{
	if (len < SMB2_HDR_SIZE ||
	    pull_le32(buf + SMB2_HDR_OFS_PROTOCOL_ID) != SMB2_PROTOCOL_ID ||
	    pull_le16(buf + SMB2_HDR_OFS_STRUCTURE_SIZE) != SMB2_HDR_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	smb2_hdr_parse(buf, out);
	return NT_STATUS_OK;
}

void smb2_hdr_push(const struct smb2_hdr *in, uint8_t *buf)
{
	memset(buf, 0, SMB2_HDR_SIZE);
	push_le32(buf + SMB2_HDR_OFS_PROTOCOL_ID, SMB2_PROTOCOL_ID);
	push_le16(buf + SMB2_HDR_OFS_STRUCTURE_SIZE, SMB2_HDR_SIZE);
	push_le16(buf + SMB2_HDR_OFS_CREDIT_CHARGE, in->credit_charge);
	push_le32(buf + SMB2_HDR_OFS_STATUS, in->status);
	push_le16(buf + SMB2_HDR_OFS_COMMAND, in->command);
	push_le16(buf + SMB2_HDR_OFS_CREDIT, in->credit);
	push_le32(buf + SMB2_HDR_OFS_FLAGS, in->flags);
	push_le32(buf + SMB2_HDR_OFS_NEXT_COMMAND, in->next_command);
	push_le64(buf + SMB2_HDR_OFS_MESSAGE_ID, in->message_id);
	if (in->flags & SMB2_FLAGS_ASYNC_COMMAND) {
		push_le64(buf + SMB2_HDR_OFS_ASYNC_ID, in->async_id);
	} else {
		push_le32(buf + SMB2_HDR_OFS_PROCESS_ID, in->process_id);
		push_le32(buf + SMB2_HDR_OFS_TREE_ID, in->tree_id);
	}
	push_le64(buf + SMB2_HDR_OFS_SESSION_ID, in->session_id);
	memcpy(buf + SMB2_HDR_OFS_SIGNATURE, in->signature,
	       SMB2_SIGNATURE_SIZE);
}

void smb2_hdr_set_next_command(uint8_t *buf, uint32_t next_command)
{
	push_le32(buf + SMB2_HDR_OFS_NEXT_COMMAND, next_command);
}
