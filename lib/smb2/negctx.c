/*
 * SMB 3.1.1 negotiate contexts (MS-SMB2 2.2.3.1, 2.2.4.1): the list walk
 * (counts, offsets, padding and duplicates checked), one typed pull per
 * context, and the
 * response data the server sends back.
 */
#include "lib/smb2/smb2_private.h"

/* ContextType(2) DataLength(2) Reserved(4) */
#define NEGCTX_HDR_SIZE 8

static NTSTATUS negctx_one(struct smb2_cur *c, struct smb2_negctx *out)
{
	out->type = smb2_cur_u16(c);
	out->len = smb2_cur_u16(c);
	smb2_cur_skip(c, 4);			/* Reserved */
	out->data = smb2_cur_bytes(c, out->len);
	return c->bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

NTSTATUS smb2_negctx_list_pull(const struct smb2_pdu *pdu, uint32_t ofs,
			       uint16_t count, size_t min_ofs,
			       struct smb2_negctx *arr, size_t *num)
{
	const uint8_t *p = NULL;
	size_t len = 0;
	struct smb2_cur c;
	size_t i = 0;
	NTSTATUS status;

	*num = 0;
	if (count == 0) {
		return NT_STATUS_OK;
	}
	if (count > SMB2_NEGCTX_MAX || (ofs & 7) != 0 || ofs < min_ofs) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_pdu_dyn_tail(pdu, ofs, &p, &len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* ofs is 8-aligned, so alignment within p is alignment overall */
	c = smb2_cur_init(p, len);
	for (i = 0; i < count; i++) {
		smb2_cur_seek(&c, smb2_align8(c.ofs));
		status = negctx_one(&c, &arr[i]);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	*num = count;
	return NT_STATUS_OK;
}

const struct smb2_negctx *smb2_negctx_find(const struct smb2_negprot_req *r,
					   uint16_t type, size_t *n)
{
	const struct smb2_negctx *first = NULL;
	size_t i = 0;

	*n = 0;
	for (i = 0; i < r->num_negctx; i++) {
		if (r->negctx[i].type != type) {
			continue;
		}
		if (first == NULL) {
			first = &r->negctx[i];
		}
		(*n)++;
	}
	return first;
}

/* A count and then count uint16s; count 0 is INVALID_PARAMETER. */
static const uint8_t *u16_array(struct smb2_cur *c, uint16_t count)
{
	if (count == 0) {
		c->bad = true;
		return NULL;
	}
	return smb2_cur_bytes(c, 2 * (size_t)count);
}

static NTSTATUS cur_status(const struct smb2_cur *c)
{
	return c->bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

NTSTATUS smb2_negctx_preauth_pull(const struct smb2_negctx *ctx,
				  struct smb2_negctx_preauth *out)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->len);

	out->hash_count = smb2_cur_u16(&c);
	out->salt_len = smb2_cur_u16(&c);
	out->hash_algs = u16_array(&c, out->hash_count);
	out->salt = smb2_cur_bytes(&c, out->salt_len);
	return cur_status(&c);
}

NTSTATUS smb2_negctx_encryption_pull(const struct smb2_negctx *ctx,
				     struct smb2_negctx_encryption *out)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->len);

	out->cipher_count = smb2_cur_u16(&c);
	out->ciphers = u16_array(&c, out->cipher_count);
	return cur_status(&c);
}

NTSTATUS smb2_negctx_signing_pull(const struct smb2_negctx *ctx,
				  struct smb2_negctx_signing *out)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->len);

	out->alg_count = smb2_cur_u16(&c);
	out->algs = u16_array(&c, out->alg_count);
	return cur_status(&c);
}

NTSTATUS smb2_negctx_compression_pull(const struct smb2_negctx *ctx,
				      struct smb2_negctx_compression *out)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->len);

	out->alg_count = smb2_cur_u16(&c);
	smb2_cur_skip(&c, 2);			/* Padding */
	out->flags = smb2_cur_u32(&c);
	out->algs = u16_array(&c, out->alg_count);
	return cur_status(&c);
}

NTSTATUS smb2_negctx_rdma_pull(const struct smb2_negctx *ctx,
			       struct smb2_negctx_rdma *out)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->len);

	out->transform_count = smb2_cur_u16(&c);
	smb2_cur_skip(&c, 6);			/* Reserved1, Reserved2 */
	out->transforms = u16_array(&c, out->transform_count);
	return cur_status(&c);
}

NTSTATUS smb2_negctx_netname_pull(const struct smb2_negctx *ctx,
				  struct smb2_blob *out)
{
	if (ctx->len & 1) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->data = ctx->data;
	out->len = ctx->len;
	return NT_STATUS_OK;
}

NTSTATUS smb2_negctx_transport_pull(const struct smb2_negctx *ctx,
				    uint32_t *flags)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->len);

	*flags = smb2_cur_u32(&c);
	return cur_status(&c);
}

uint8_t *smb2_negctx_preauth_push(TALLOC_CTX *mem_ctx,
				  const uint8_t salt[SMB2_PREAUTH_SALT_SIZE],
				  size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, 6 + SMB2_PREAUTH_SALT_SIZE, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, 1);			/* HashAlgorithmCount */
	smb2_wr_u16(&w, SMB2_PREAUTH_SALT_SIZE);
	smb2_wr_u16(&w, SMB2_PREAUTH_INTEGRITY_SHA512);
	smb2_wr_bytes(&w, salt, SMB2_PREAUTH_SALT_SIZE);
	return smb2_rsp_finish(buf, &w, len);
}

/* Count 1 and one algorithm: the encryption and signing replies. */
static uint8_t *one_alg_push(TALLOC_CTX *mem_ctx, uint16_t alg, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, 4, &w);

	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, 1);
	smb2_wr_u16(&w, alg);
	return smb2_rsp_finish(buf, &w, len);
}

uint8_t *smb2_negctx_encryption_push(TALLOC_CTX *mem_ctx, uint16_t cipher,
				     size_t *len)
{
	return one_alg_push(mem_ctx, cipher, len);
}

uint8_t *smb2_negctx_signing_push(TALLOC_CTX *mem_ctx, uint16_t alg,
				  size_t *len)
{
	return one_alg_push(mem_ctx, alg, len);
}

uint8_t *smb2_negctx_compression_push(TALLOC_CTX *mem_ctx, uint32_t flags,
				      const uint16_t *algs, size_t count,
				      size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = NULL;
	size_t i = 0;

	if (count == 0 || count > UINT16_MAX / 2 - 8) {
		return NULL;
	}
	buf = smb2_rsp_alloc(mem_ctx, 8 + 2 * count, &w);
	if (buf == NULL) {
		return NULL;
	}
	smb2_wr_u16(&w, (uint16_t)count);
	smb2_wr_u16(&w, 0);			/* Padding */
	smb2_wr_u32(&w, flags);
	for (i = 0; i < count; i++) {
		smb2_wr_u16(&w, algs[i]);
	}
	return smb2_rsp_finish(buf, &w, len);
}
