/*
 * CREATE context chains (MS-SMB2 2.2.13.2 request, 2.2.14.2 response).
 * Each context: Next(4) NameOffset(2) NameLength(2) Reserved(2)
 * DataOffset(2) DataLength(4), then name and data; offsets are from the
 * start of the context.  Every field is checked against the context's
 * own extent: a bad Next, name or data offset fails the whole list.
 */
#include <string.h>
#include "lib/smb2/smb2_private.h"

#define CCTX_HDR_SIZE		16
#define CCTX_OFS_NEXT		0
#define CCTX_OFS_NAME_OFFSET	4
#define CCTX_OFS_NAME_LENGTH	6
#define CCTX_OFS_DATA_OFFSET	10
#define CCTX_OFS_DATA_LENGTH	12
#define CCTX_MIN_NAME		4

/* One context of extent bytes at p (its Next, or the rest of the list). */
static NTSTATUS cctx_one(const uint8_t *p, size_t extent,
			 struct smb2_create_ctx *out)
{
	size_t name_ofs = pull_le16(p + CCTX_OFS_NAME_OFFSET);
	size_t name_len = pull_le16(p + CCTX_OFS_NAME_LENGTH);
	size_t data_ofs = pull_le16(p + CCTX_OFS_DATA_OFFSET);
	size_t data_len = pull_le32(p + CCTX_OFS_DATA_LENGTH);

	if (name_len < CCTX_MIN_NAME || name_ofs < CCTX_HDR_SIZE ||
	    name_ofs > extent || name_len > extent - name_ofs) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->name = p + name_ofs;
	out->name_len = (uint16_t)name_len;
	out->data = NULL;
	out->data_len = 0;
	if (data_len == 0) {
		return NT_STATUS_OK;
	}
	/* data_ofs 0, misaligned, inside the header or the name: all bad */
	if ((data_ofs & 7) != 0 || data_ofs < name_ofs + name_len ||
	    data_ofs > extent || data_len > extent - data_ofs) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->data = p + data_ofs;
	out->data_len = (uint32_t)data_len;
	return NT_STATUS_OK;
}

/* Bytes this context covers: Next (checked) or, if last, all that is left. */
static NTSTATUS cctx_extent(const uint8_t *p, size_t left, size_t *extent,
			    bool *last)
{
	uint32_t next = 0;

	if (left < CCTX_HDR_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	next = pull_le32(p + CCTX_OFS_NEXT);
	*last = next == 0;
	if (*last) {
		*extent = left;
		return NT_STATUS_OK;
	}
	if ((next & 7) != 0 || next < CCTX_HDR_SIZE || next >= left) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*extent = next;
	return NT_STATUS_OK;
}

NTSTATUS smb2_create_ctx_parse(const uint8_t *buf, size_t len,
			       struct smb2_create_ctx_list *out)
{
	size_t pos = 0;
	size_t extent = 0;
	bool last = false;
	NTSTATUS status;

	out->num = 0;
	while (len > 0 && !last) {
		if (out->num == SMB2_CREATE_CTX_MAX) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		status = cctx_extent(buf + pos, len - pos, &extent, &last);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		status = cctx_one(buf + pos, extent, &out->ctx[out->num]);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		out->num++;
		pos += extent;	/* extent < len - pos unless last */
	}
	return NT_STATUS_OK;
}

const struct smb2_create_ctx *smb2_create_ctx_find(
	const struct smb2_create_ctx_list *l, const char *tag, size_t *n)
{
	const struct smb2_create_ctx *first = NULL;
	size_t tlen = strlen(tag);
	size_t i = 0;

	*n = 0;
	for (i = 0; i < l->num; i++) {
		const struct smb2_create_ctx *c = &l->ctx[i];

		if (c->name_len != tlen || memcmp(c->name, tag, tlen) != 0) {
			continue;
		}
		if (first == NULL) {
			first = c;
		}
		(*n)++;
	}
	return first;
}

/* Data offset within a response context: 8-aligned after the name. */
static size_t cctx_data_ofs(const struct smb2_create_ctx *c)
{
	return smb2_align8(CCTX_HDR_SIZE + (size_t)c->name_len);
}

/* Unpadded size of one response context. */
static size_t cctx_size(const struct smb2_create_ctx *c)
{
	if (c->data_len == 0) {
		return CCTX_HDR_SIZE + c->name_len;
	}
	return cctx_data_ofs(c) + c->data_len;
}

static bool cctx_list_size(const struct smb2_create_ctx *ctx, size_t count,
			   size_t *total)
{
	size_t i = 0;
	size_t sum = 0;

	for (i = 0; i < count; i++) {
		if (cctx_data_ofs(&ctx[i]) > UINT16_MAX ||
		    smb2_align8(cctx_size(&ctx[i])) > UINT32_MAX) {
			return false;
		}
		sum = smb2_align8(sum) + cctx_size(&ctx[i]);
	}
	*total = sum;
	return true;
}

static void cctx_push_one(struct smb2_wr *w, const struct smb2_create_ctx *c,
			  bool last)
{
	size_t start = w->ofs;
	size_t size = cctx_size(c);

	smb2_wr_u32(w, last ? 0 : (uint32_t)smb2_align8(size));
	smb2_wr_u16(w, CCTX_HDR_SIZE);
	smb2_wr_u16(w, c->name_len);
	smb2_wr_u16(w, 0);			/* Reserved */
	smb2_wr_u16(w, c->data_len ? (uint16_t)cctx_data_ofs(c) : 0);
	smb2_wr_u32(w, c->data_len);
	smb2_wr_bytes(w, c->name, c->name_len);
	if (c->data_len > 0) {
		smb2_wr_zero(w, start + cctx_data_ofs(c) - w->ofs);
		smb2_wr_bytes(w, c->data, c->data_len);
	}
	if (!last) {
		smb2_wr_align(w, 8);
	}
}

uint8_t *smb2_create_ctx_push(TALLOC_CTX *mem_ctx,
			      const struct smb2_create_ctx *ctx, size_t count,
			      size_t *len)
{
	struct smb2_wr w;
	size_t total = 0;
	size_t i = 0;
	uint8_t *buf = NULL;

	if (!cctx_list_size(ctx, count, &total)) {
		return NULL;
	}
	buf = smb2_rsp_alloc(mem_ctx, total, &w);
	if (buf == NULL) {
		return NULL;
	}
	for (i = 0; i < count; i++) {
		cctx_push_one(&w, &ctx[i], i + 1 == count);
	}
	return smb2_rsp_finish(buf, &w, len);
}
