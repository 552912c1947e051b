/*
 * The lease create context "RqLs" (MS-SMB2 2.2.13.2.8 / 2.2.13.2.10 in
 * requests, 2.2.14.2.10 / 2.2.14.2.11 in responses): an exact-length
 * switch, 32 bytes for v1 and 52 for v2.
 */
#include <string.h>
#include "lib/smb2/smb2_private.h"

NTSTATUS smb2_lease_pull(const struct smb2_create_ctx *ctx,
			 struct smb2_lease *out)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->data_len);

	*out = (struct smb2_lease){};
	if (ctx->data_len == SMB2_LEASE_V1_SIZE) {
		out->version = 1;
	} else if (ctx->data_len == SMB2_LEASE_V2_SIZE) {
		out->version = 2;
	} else {
		return NT_STATUS_INVALID_PARAMETER;
	}
	smb2_cur_copy(&c, out->key, sizeof(out->key));
	out->state = smb2_cur_u32(&c);
	out->flags = smb2_cur_u32(&c);
	out->duration = smb2_cur_u64(&c);
	if (out->version == 2) {
		smb2_cur_copy(&c, out->parent_key, sizeof(out->parent_key));
		out->epoch = smb2_cur_u16(&c);
		smb2_cur_skip(&c, 2);		/* Reserved */
	}
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

uint8_t *smb2_lease_push(TALLOC_CTX *mem_ctx, const struct smb2_lease *in,
			 size_t *len)
{
	bool v2 = in->version == 2;
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, v2 ? SMB2_LEASE_V2_SIZE :
						    SMB2_LEASE_V1_SIZE, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_bytes(&w, in->key, sizeof(in->key));
	smb2_wr_u32(&w, in->state);
	smb2_wr_u32(&w, in->flags);
	smb2_wr_u64(&w, 0);			/* LeaseDuration */
	if (v2) {
		smb2_wr_bytes(&w, in->parent_key, sizeof(in->parent_key));
		smb2_wr_u16(&w, in->epoch);
		smb2_wr_u16(&w, 0);		/* Reserved */
	}
	return smb2_rsp_finish(buf, &w, len);
}
