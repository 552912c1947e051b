/*
 * OPLOCK_BREAK: notifications (MS-SMB2 2.2.23), acknowledgments (2.2.24)
 * and responses (2.2.25).  The oplock forms are 24 bytes, the lease ack
 * and response 36, the lease notification 44.
 */
#include <string.h>
#include "lib/smb2/smb2_private.h"

static void oplock_ack_pull(struct smb2_cur *c,
			    struct smb2_oplock_break_req *out)
{
	out->oplock_level = smb2_cur_u8(c);
	smb2_cur_skip(c, 5);			/* Reserved, Reserved2 */
	smb2_cur_file_id(c, &out->file_id);
}

static void lease_ack_pull(struct smb2_cur *c,
			   struct smb2_oplock_break_req *out)
{
	smb2_cur_skip(c, 2);			/* Reserved */
	out->flags = smb2_cur_u32(c);
	smb2_cur_copy(c, out->lease_key, SMB2_LEASE_KEY_SIZE);
	out->lease_state = smb2_cur_u32(c);
	out->lease_duration = smb2_cur_u64(c);
}

NTSTATUS smb2_oplock_break_req_pull(const struct smb2_pdu *pdu,
				    struct smb2_oplock_break_req *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_OPLOCK_BREAK);

	*out = (struct smb2_oplock_break_req){};
	out->is_lease = pdu->body_len == SMB2_LEASE_BREAK_ACK_SIZE;
	if (out->is_lease) {
		lease_ack_pull(&c, out);
	} else {
		oplock_ack_pull(&c, out);
	}
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

uint8_t *smb2_oplock_break_push(TALLOC_CTX *mem_ctx, uint8_t oplock_level,
				const struct smb2_file_id *file_id,
				size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, SMB2_OPLOCK_BREAK_SIZE, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_OPLOCK_BREAK_SIZE);
	smb2_wr_u8(&w, oplock_level);
	smb2_wr_zero(&w, 5);			/* Reserved, Reserved2 */
	smb2_wr_file_id(&w, file_id);
	return smb2_rsp_finish(buf, &w, len);
}

uint8_t *smb2_lease_break_push(TALLOC_CTX *mem_ctx,
			       const struct smb2_lease_break *in,
			       size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, SMB2_LEASE_BREAK_NOTIFY_SIZE,
				      &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_LEASE_BREAK_NOTIFY_SIZE);
	smb2_wr_u16(&w, in->new_epoch);
	smb2_wr_u32(&w, in->flags);
	smb2_wr_bytes(&w, in->lease_key, SMB2_LEASE_KEY_SIZE);
	smb2_wr_u32(&w, in->current_state);
	smb2_wr_u32(&w, in->new_state);
	smb2_wr_zero(&w, 12);	/* BreakReason, AccessMaskHint, ShareMaskHint */
	return smb2_rsp_finish(buf, &w, len);
}

uint8_t *smb2_lease_break_rsp_push(TALLOC_CTX *mem_ctx,
				   const uint8_t key[SMB2_LEASE_KEY_SIZE],
				   uint32_t lease_state, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, SMB2_LEASE_BREAK_ACK_SIZE, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_LEASE_BREAK_ACK_SIZE);
	smb2_wr_u16(&w, 0);			/* Reserved */
	smb2_wr_u32(&w, 0);			/* Flags */
	smb2_wr_bytes(&w, key, SMB2_LEASE_KEY_SIZE);
	smb2_wr_u32(&w, lease_state);
	smb2_wr_u64(&w, 0);			/* LeaseDuration */
	return smb2_rsp_finish(buf, &w, len);
}
