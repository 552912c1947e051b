/*
 * Client requests (MS-SMB2 2.2.3, 2.2.5, 2.2.9, 2.2.13, 2.2.15, 2.2.19,
 * 2.2.21): the bodies a client sends, written into caller memory so a
 * load generator can build each request in its own slot without an
 * allocation.  See smb2_client.h.
 */
#include "lib/smb2/smb2_private.h"
#include "lib/smb2/smb2_client.h"

#define NEGPROT_CREQ_FIXED	36
#define SESSSETUP_CREQ_FIXED	24
#define TCON_CREQ_FIXED		8
#define CREATE_CREQ_FIXED	56
#define CLOSE_CREQ_FIXED	24
#define QUERY_DIRECTORY_CREQ_FIXED 32
#define NEGCTX_HDR_SIZE		8

/* A finished body, or 0 if it overran w. */
static size_t wr_done(const struct smb2_wr *w)
{
	return w->overflow ? 0 : w->ofs;
}

static void negctx_push(struct smb2_wr *w, const struct smb2_negctx *ctx,
			size_t n)
{
	size_t i = 0;

	for (i = 0; i < n; i++) {
		/* body offset + 64 keeps the 8-alignment of the header */
		smb2_wr_align(w, 8);
		smb2_wr_u16(w, ctx[i].type);
		smb2_wr_u16(w, ctx[i].len);
		smb2_wr_u32(w, 0);		/* Reserved */
		smb2_wr_bytes(w, ctx[i].data, ctx[i].len);
	}
}

size_t smb2_negprot_creq_push(const struct smb2_negprot_creq *in,
			      uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);
	size_t ctx_body_ofs = 0;
	size_t i = 0;
	bool with_ctx = false;

	for (i = 0; i < in->num_dialects; i++) {
		with_ctx |= in->dialects[i] == SMB2_DIALECT_0311;
	}
	with_ctx = with_ctx && in->num_negctx > 0;
	ctx_body_ofs = smb2_align8(NEGPROT_CREQ_FIXED +
				   2 * in->num_dialects);
	smb2_wr_u16(&w, SMB2_NEGPROT_REQ_SIZE);
	smb2_wr_u16(&w, (uint16_t)in->num_dialects);
	smb2_wr_u16(&w, in->security_mode);
	smb2_wr_u16(&w, 0);			/* Reserved */
	smb2_wr_u32(&w, in->capabilities);
	smb2_wr_bytes(&w, in->client_guid, sizeof(in->client_guid));
	smb2_wr_u32(&w, with_ctx ? SMB2_HDR_SIZE + ctx_body_ofs : 0);
	smb2_wr_u16(&w, with_ctx ? (uint16_t)in->num_negctx : 0);
	smb2_wr_u16(&w, 0);			/* Reserved2 */
	for (i = 0; i < in->num_dialects; i++) {
		smb2_wr_u16(&w, in->dialects[i]);
	}
	if (with_ctx) {
		negctx_push(&w, in->negctx, in->num_negctx);
	}
	return wr_done(&w);
}

size_t smb2_sesssetup_creq_push(const struct smb2_sesssetup_creq *in,
				uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	if (in->security.len > UINT16_MAX) {
		return 0;
	}
	smb2_wr_u16(&w, SMB2_SESSSETUP_REQ_SIZE);
	smb2_wr_u8(&w, in->flags);
	smb2_wr_u8(&w, in->security_mode);
	smb2_wr_u32(&w, in->capabilities);
	smb2_wr_u32(&w, 0);			/* Channel */
	smb2_wr_u16(&w, SMB2_HDR_SIZE + SESSSETUP_CREQ_FIXED);
	smb2_wr_u16(&w, (uint16_t)in->security.len);
	smb2_wr_u64(&w, 0);			/* PreviousSessionId */
	smb2_wr_bytes(&w, in->security.data, in->security.len);
	if (in->security.len == 0) {
		smb2_wr_u8(&w, 0);		/* Buffer: at least one byte */
	}
	return wr_done(&w);
}

size_t smb2_tcon_creq_push(struct smb2_blob path, uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	if (path.len > UINT16_MAX) {
		return 0;
	}
	smb2_wr_u16(&w, SMB2_TCON_REQ_SIZE);
	smb2_wr_u16(&w, 0);			/* Flags */
	smb2_wr_u16(&w, SMB2_HDR_SIZE + TCON_CREQ_FIXED);
	smb2_wr_u16(&w, (uint16_t)path.len);
	smb2_wr_bytes(&w, path.data, path.len);
	return wr_done(&w);
}

size_t smb2_create_creq_push(const struct smb2_create_creq *in,
			     uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	if (in->name.len > UINT16_MAX) {
		return 0;
	}
	smb2_wr_u16(&w, SMB2_CREATE_REQ_SIZE);
	smb2_wr_u8(&w, 0);			/* SecurityFlags */
	smb2_wr_u8(&w, 0);			/* RequestedOplockLevel: none */
	smb2_wr_u32(&w, 2);			/* Impersonation */
	smb2_wr_u64(&w, 0);			/* SmbCreateFlags */
	smb2_wr_u64(&w, 0);			/* Reserved */
	smb2_wr_u32(&w, in->desired_access);
	smb2_wr_u32(&w, in->file_attributes);
	smb2_wr_u32(&w, in->share_access);
	smb2_wr_u32(&w, in->create_disposition);
	smb2_wr_u32(&w, in->create_options);
	smb2_wr_u16(&w, SMB2_HDR_SIZE + CREATE_CREQ_FIXED);
	smb2_wr_u16(&w, (uint16_t)in->name.len);
	smb2_wr_u32(&w, 0);			/* no create contexts */
	smb2_wr_u32(&w, 0);
	smb2_wr_bytes(&w, in->name.data, in->name.len);
	if (in->name.len == 0) {
		smb2_wr_u8(&w, 0);
	}
	return wr_done(&w);
}

size_t smb2_close_creq_push(const struct smb2_file_id *fid, uint8_t *buf,
			    size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u16(&w, SMB2_CLOSE_REQ_SIZE);
	smb2_wr_u16(&w, 0);			/* Flags */
	smb2_wr_u32(&w, 0);			/* Reserved */
	smb2_wr_file_id(&w, fid);
	return wr_done(&w);
}

size_t smb2_read_creq_push(const struct smb2_file_id *fid, uint64_t offset,
			   uint32_t length, uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u16(&w, SMB2_READ_REQ_SIZE);
	smb2_wr_u8(&w, SMB2_READ_RSP_DATA_OFFSET);	/* Padding */
	smb2_wr_u8(&w, 0);			/* Flags */
	smb2_wr_u32(&w, length);
	smb2_wr_u64(&w, offset);
	smb2_wr_file_id(&w, fid);
	smb2_wr_u32(&w, 0);			/* MinimumCount */
	smb2_wr_u32(&w, SMB2_CHANNEL_NONE);
	smb2_wr_u32(&w, 0);			/* RemainingBytes */
	smb2_wr_u16(&w, 0);			/* ReadChannelInfo */
	smb2_wr_u16(&w, 0);
	smb2_wr_u8(&w, 0);			/* Buffer */
	return wr_done(&w);
}

size_t smb2_write_creq_push(const struct smb2_file_id *fid, uint64_t offset,
			    uint32_t length, uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u16(&w, SMB2_WRITE_REQ_SIZE);
	smb2_wr_u16(&w, SMB2_WRITE_CREQ_DATA_OFFSET);
	smb2_wr_u32(&w, length);
	smb2_wr_u64(&w, offset);
	smb2_wr_file_id(&w, fid);
	smb2_wr_u32(&w, SMB2_CHANNEL_NONE);
	smb2_wr_u32(&w, 0);			/* RemainingBytes */
	smb2_wr_u16(&w, 0);			/* WriteChannelInfo */
	smb2_wr_u16(&w, 0);
	smb2_wr_u32(&w, 0);			/* Flags */
	return wr_done(&w);
}

size_t smb2_fsctl_creq_push(uint32_t ctl_code, uint32_t max_output,
			    uint8_t *buf, size_t len)
{
	static const struct smb2_file_id none = { UINT64_MAX, UINT64_MAX };
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u16(&w, SMB2_IOCTL_REQ_SIZE);
	smb2_wr_u16(&w, 0);			/* Reserved */
	smb2_wr_u32(&w, ctl_code);
	smb2_wr_file_id(&w, &none);
	smb2_wr_u32(&w, 0);			/* InputOffset */
	smb2_wr_u32(&w, 0);			/* InputCount */
	smb2_wr_u32(&w, 0);			/* MaxInputResponse */
	smb2_wr_u32(&w, 0);			/* OutputOffset */
	smb2_wr_u32(&w, 0);			/* OutputCount */
	smb2_wr_u32(&w, max_output);
	smb2_wr_u32(&w, SMB2_0_IOCTL_IS_FSCTL);
	smb2_wr_u32(&w, 0);			/* Reserved2 */
	smb2_wr_u8(&w, 0);			/* Buffer */
	return wr_done(&w);
}

size_t smb2_query_info_creq_push(const struct smb2_file_id *fid,
				 uint8_t info_type, uint8_t info_class,
				 uint32_t max_output, uint8_t *buf,
				 size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u16(&w, SMB2_QUERY_INFO_REQ_SIZE);
	smb2_wr_u8(&w, info_type);
	smb2_wr_u8(&w, info_class);
	smb2_wr_u32(&w, max_output);
	smb2_wr_u16(&w, 0);			/* InputBufferOffset */
	smb2_wr_u16(&w, 0);			/* Reserved */
	smb2_wr_u32(&w, 0);			/* InputBufferLength */
	smb2_wr_u32(&w, 0);			/* AdditionalInformation */
	smb2_wr_u32(&w, 0);			/* Flags */
	smb2_wr_file_id(&w, fid);
	smb2_wr_u8(&w, 0);			/* Buffer */
	return wr_done(&w);
}

size_t smb2_query_directory_creq_push(const struct smb2_file_id *fid,
				      uint8_t info_class, uint8_t flags,
				      struct smb2_blob pattern,
				      uint32_t max_output, uint8_t *buf,
				      size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	if (pattern.len == 0 || pattern.len > UINT16_MAX) {
		return 0;
	}
	smb2_wr_u16(&w, SMB2_QUERY_DIRECTORY_REQ_SIZE);
	smb2_wr_u8(&w, info_class);
	smb2_wr_u8(&w, flags);
	smb2_wr_u32(&w, 0);			/* FileIndex */
	smb2_wr_file_id(&w, fid);
	smb2_wr_u16(&w, SMB2_HDR_SIZE + QUERY_DIRECTORY_CREQ_FIXED);
	smb2_wr_u16(&w, (uint16_t)pattern.len);
	smb2_wr_u32(&w, max_output);
	smb2_wr_bytes(&w, pattern.data, pattern.len);
	return wr_done(&w);
}

size_t smb2_simple_creq_push(uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u16(&w, 4);
	smb2_wr_u16(&w, 0);
	return wr_done(&w);
}
