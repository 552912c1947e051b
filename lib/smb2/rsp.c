/*
 * Helpers for building response bodies: sizing, allocation, FileIds.
 */
#include "lib/smb2/smb2_private.h"

void smb2_cur_file_id(struct smb2_cur *c, struct smb2_file_id *out)
{
	out->persistent = smb2_cur_u64(c);
	out->volatile_id = smb2_cur_u64(c);
}

void smb2_wr_file_id(struct smb2_wr *w, const struct smb2_file_id *in)
{
	smb2_wr_u64(w, in->persistent);
	smb2_wr_u64(w, in->volatile_id);
}

size_t smb2_rsp_body_size(uint16_t ssize, size_t dyn)
{
	size_t fixed = ssize & ~1u;

	if ((ssize & 1) && dyn == 0) {
		return fixed + 1;
	}
	return fixed + dyn;
}

uint8_t *smb2_rsp_alloc(TALLOC_CTX *mem_ctx, size_t size, struct smb2_wr *w)
{
	uint8_t *p = talloc_zero_array(mem_ctx, uint8_t, size);

	if (p == NULL) {
		return NULL;
	}
	*w = smb2_wr_init(p, size);
	return p;
}

uint8_t *smb2_rsp_finish(uint8_t *buf, struct smb2_wr *w, size_t *len)
{
	if (w->overflow || w->ofs != w->len) {
		talloc_free(buf);
		return NULL;
	}
	*len = w->ofs;
	return buf;
}

uint8_t *smb2_fixed_rsp_push(TALLOC_CTX *mem_ctx, uint16_t ssize,
			     size_t *len)
{
	struct smb2_wr w;
	size_t size = smb2_rsp_body_size(ssize, 0);
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, size, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, ssize);
	smb2_wr_zero(&w, size - 2);
	return smb2_rsp_finish(buf, &w, len);
}

uint8_t *smb2_outbuf_rsp_push(TALLOC_CTX *mem_ctx,
			      const struct smb2_blob *output, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = NULL;
	size_t size = 0;

	if (output->len > UINT32_MAX) {
		return NULL;
	}
	size = smb2_rsp_body_size(SMB2_QUERY_INFO_RSP_SIZE, output->len);
	buf = smb2_rsp_alloc(mem_ctx, size, &w);
	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, SMB2_QUERY_INFO_RSP_SIZE);
	smb2_wr_u16(&w, SMB2_OUTBUF_RSP_OFFSET);
	smb2_wr_u32(&w, (uint32_t)output->len);
	smb2_wr_bytes(&w, output->data, output->len);
	smb2_wr_zero(&w, size - w.ofs);
	return smb2_rsp_finish(buf, &w, len);
}
