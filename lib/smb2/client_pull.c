/*
 * Client side response pulls (MS-SMB2 2.2.2, 2.2.4, 2.2.6, 2.2.10,
 * 2.2.14, 2.2.20, 2.2.22).  A server's bytes are as untrusted as a
 * client's: every offset goes through smb2_pdu_dyn(), as on the server
 * side.  See smb2_client.h; tests/fuzz/fuzz_client_rsp.c.
 */
#include <string.h>

#include "lib/smb2/smb2_private.h"
#include "lib/smb2/smb2_client.h"

static const uint16_t rsp_sizes[SMB2_OP_COUNT] = {
	[SMB2_OP_NEGPROT] = SMB2_NEGPROT_RSP_SIZE,
	[SMB2_OP_SESSSETUP] = SMB2_SESSSETUP_RSP_SIZE,
	[SMB2_OP_LOGOFF] = SMB2_LOGOFF_RSP_SIZE,
	[SMB2_OP_TCON] = SMB2_TCON_RSP_SIZE,
	[SMB2_OP_TDIS] = SMB2_TDIS_RSP_SIZE,
	[SMB2_OP_CREATE] = SMB2_CREATE_RSP_SIZE,
	[SMB2_OP_CLOSE] = SMB2_CLOSE_RSP_SIZE,
	[SMB2_OP_FLUSH] = SMB2_FLUSH_RSP_SIZE,
	[SMB2_OP_READ] = SMB2_READ_RSP_SIZE,
	[SMB2_OP_WRITE] = SMB2_WRITE_RSP_SIZE,
	[SMB2_OP_LOCK] = SMB2_LOCK_RSP_SIZE,
	[SMB2_OP_IOCTL] = SMB2_IOCTL_RSP_SIZE,
	[SMB2_OP_ECHO] = SMB2_ECHO_RSP_SIZE,
	[SMB2_OP_QUERY_DIRECTORY] = SMB2_QUERY_DIRECTORY_RSP_SIZE,
	[SMB2_OP_CHANGE_NOTIFY] = SMB2_CHANGE_NOTIFY_RSP_SIZE,
	[SMB2_OP_QUERY_INFO] = SMB2_QUERY_INFO_RSP_SIZE,
	[SMB2_OP_SET_INFO] = SMB2_SET_INFO_RSP_SIZE,
	[SMB2_OP_OPLOCK_BREAK] = SMB2_OPLOCK_BREAK_SIZE,
};

uint16_t smb2_rsp_struct_size(uint16_t command)
{
	return command < SMB2_OP_COUNT ? rsp_sizes[command] : 0;
}

NTSTATUS smb2_rsp_carve(const uint8_t *buf, size_t len, uint16_t rsp_size,
			struct smb2_pdu *pdu, bool *is_error)
{
	uint16_t ssize = 0;
	size_t fixed = 0;
	NTSTATUS status;

	*pdu = (struct smb2_pdu){ .status = NT_STATUS_INVALID_PARAMETER };
	*is_error = false;
	status = smb2_hdr_pull(buf, len, &pdu->hdr);
	if (!NT_STATUS_IS_OK(status) || len - SMB2_HDR_SIZE < 2 ||
	    (pdu->hdr.flags & SMB2_FLAGS_SERVER_TO_REDIR) == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	ssize = pull_le16(buf + SMB2_HDR_SIZE);
	if (ssize == SMB2_ERROR_RSP_SIZE && rsp_size != SMB2_ERROR_RSP_SIZE) {
		*is_error = true;
	} else if (ssize != rsp_size) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	fixed = ssize & ~1;
	if (fixed > len - SMB2_HDR_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	pdu->buf = buf;
	pdu->len = len;
	pdu->body = buf + SMB2_HDR_SIZE;
	pdu->body_len = fixed;
	pdu->dyn_ofs = SMB2_HDR_SIZE + fixed;
	pdu->dyn_len = len - pdu->dyn_ofs;
	pdu->status = NT_STATUS_OK;
	return NT_STATUS_OK;
}

NTSTATUS smb2_negprot_crsp_pull(const struct smb2_pdu *pdu,
				struct smb2_negprot_crsp *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_NEGPROT);
	uint16_t ctx_count = 0, sec_ofs = 0, sec_len = 0;
	uint32_t ctx_ofs = 0;
	NTSTATUS status;

	out->security_mode = smb2_cur_u16(&c);
	out->dialect = smb2_cur_u16(&c);
	ctx_count = smb2_cur_u16(&c);
	smb2_cur_copy(&c, out->server_guid, sizeof(out->server_guid));
	out->capabilities = smb2_cur_u32(&c);
	out->max_transact = smb2_cur_u32(&c);
	out->max_read = smb2_cur_u32(&c);
	out->max_write = smb2_cur_u32(&c);
	smb2_cur_skip(&c, 16);			/* SystemTime, StartTime */
	sec_ofs = smb2_cur_u16(&c);
	sec_len = smb2_cur_u16(&c);
	ctx_ofs = smb2_cur_u32(&c);
	out->num_negctx = 0;
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_pdu_blob(pdu, sec_ofs, sec_len, &out->security);
	if (!NT_STATUS_IS_OK(status) || out->dialect != SMB2_DIALECT_0311) {
		return status;
	}
	return smb2_negctx_list_pull(pdu, ctx_ofs, ctx_count, pdu->dyn_ofs,
				     out->negctx, &out->num_negctx);
}

uint16_t smb2_negprot_crsp_chosen(const struct smb2_negprot_crsp *r,
				  uint16_t type, uint16_t dflt)
{
	size_t i;

	for (i = 0; i < r->num_negctx; i++) {
		const struct smb2_negctx *x = &r->negctx[i];

		if (x->type == type && x->len >= 4 &&
		    pull_le16(x->data) == 1) {
			return pull_le16(x->data + 2);
		}
	}
	return dflt;
}

NTSTATUS smb2_sesssetup_crsp_pull(const struct smb2_pdu *pdu,
				  struct smb2_sesssetup_crsp *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_SESSSETUP);
	uint16_t sec_ofs = 0, sec_len = 0;

	out->session_flags = smb2_cur_u16(&c);
	sec_ofs = smb2_cur_u16(&c);
	sec_len = smb2_cur_u16(&c);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, sec_ofs, sec_len, &out->security);
}

NTSTATUS smb2_tcon_crsp_pull(const struct smb2_pdu *pdu,
			     struct smb2_tcon_crsp *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_TCON);

	out->share_type = smb2_cur_u8(&c);
	smb2_cur_skip(&c, 1);			/* Reserved */
	out->share_flags = smb2_cur_u32(&c);
	out->capabilities = smb2_cur_u32(&c);
	out->maximal_access = smb2_cur_u32(&c);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

NTSTATUS smb2_create_crsp_pull(const struct smb2_pdu *pdu,
			       struct smb2_create_crsp *out)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_CREATE);

	smb2_cur_skip(&c, 2);			/* OplockLevel, Flags */
	out->create_action = smb2_cur_u32(&c);
	smb2_cur_skip(&c, 5 * 8);		/* four times, allocation */
	out->end_of_file = smb2_cur_u64(&c);
	smb2_cur_skip(&c, 8);			/* attributes, Reserved2 */
	smb2_cur_file_id(&c, &out->file_id);
	/* create contexts are not asked for and not read */
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

NTSTATUS smb2_read_crsp_pull(const struct smb2_pdu *pdu,
			     struct smb2_blob *data)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_READ);
	uint8_t ofs = 0;
	uint32_t len = 0;

	ofs = smb2_cur_u8(&c);
	smb2_cur_skip(&c, 1);			/* Reserved */
	len = smb2_cur_u32(&c);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, ofs, len, data);
}

NTSTATUS smb2_outbuf_crsp_pull(const struct smb2_pdu *pdu,
			       struct smb2_blob *output)
{
	uint16_t cmd = pdu->hdr.command == SMB2_OP_QUERY_DIRECTORY ?
			       SMB2_OP_QUERY_DIRECTORY : SMB2_OP_QUERY_INFO;
	struct smb2_cur c = smb2_body_cur(pdu, cmd);
	uint16_t ofs = 0;
	uint32_t len = 0;

	ofs = smb2_cur_u16(&c);
	len = smb2_cur_u32(&c);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, ofs, len, output);
}

NTSTATUS smb2_ioctl_crsp_pull(const struct smb2_pdu *pdu,
			      struct smb2_blob *output)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_IOCTL);
	uint32_t ofs = 0, len = 0;

	smb2_cur_skip(&c, 2 + 4 + 16 + 8);	/* to OutputOffset */
	ofs = smb2_cur_u32(&c);
	len = smb2_cur_u32(&c);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return smb2_pdu_blob(pdu, ofs, len, output);
}

NTSTATUS smb2_write_crsp_pull(const struct smb2_pdu *pdu, uint32_t *count)
{
	struct smb2_cur c = smb2_body_cur(pdu, SMB2_OP_WRITE);

	smb2_cur_skip(&c, 2);			/* Reserved */
	*count = smb2_cur_u32(&c);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}
