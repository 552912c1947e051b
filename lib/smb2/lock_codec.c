/*
 * LOCK request body (MS-SMB2 2.2.26): a fixed part whose StructureSize
 * (48) already counts the first of LockCount 24-byte elements.
 */
#include "lib/smb2/smb2_private.h"

/* Offset of Locks[] in the body. */
#define LOCK_REQ_OFS_LOCKS	24

NTSTATUS smb2_lock_req_pull(const struct smb2_pdu *pdu,
			    struct smb2_lock_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_LOCK);
	uint32_t seq = 0;
	size_t body_all = 0;

	out->locks = NULL;
	out->lock_count = smb2_cur_u16(&c);
	seq = smb2_cur_u32(&c);
	out->lock_sequence_number = seq & 0x0F;
	out->lock_sequence_index = seq >> 4;
	smb2_cur_file_id(&c, &out->file_id);
	if (c.bad || out->lock_count == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* the array runs from the fixed part on into the dynamic part */
	body_all = pdu->len - SMB2_HDR_SIZE;
	if ((size_t)out->lock_count * SMB2_LOCK_ELEMENT_SIZE >
	    body_all - LOCK_REQ_OFS_LOCKS) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->locks = pdu->body + LOCK_REQ_OFS_LOCKS;
	return NT_STATUS_OK;
}

void smb2_lock_element_at(const struct smb2_lock_req *r, size_t i,
			  struct smb2_lock_element *out)
{
	struct smb2_cur c = smb2_cur_init(r->locks + i * SMB2_LOCK_ELEMENT_SIZE,
					  SMB2_LOCK_ELEMENT_SIZE);

	out->offset = smb2_cur_u64(&c);
	out->length = smb2_cur_u64(&c);
	out->flags = smb2_cur_u32(&c);
}
