/*
 * Durable handle create contexts (MS-SMB2 2.2.13.2.3 DHnQ, 2.2.13.2.4
 * DHnC, 2.2.13.2.11 DH2Q, 2.2.13.2.12 DH2C; responses 2.2.14.2.3 and
 * 2.2.14.2.12) and the AppInstanceId that comes with DH2Q (2.2.13.2.13).
 * Each has one exact length; which combinations a
 * CREATE may carry is decided here too, so smbd sees one consistent
 * request.
 */
#include <string.h>
#include "lib/smb2/smb2_private.h"

static const struct smb2_create_ctx *durable_find(
	const struct smb2_create_ctx_list *l, const char *tag, size_t size,
	bool *bad)
{
	size_t n = 0;
	const struct smb2_create_ctx *c = smb2_create_ctx_find(l, tag, &n);

	if (c != NULL && (n > 1 || c->data_len != size)) {
		*bad = true;
	}
	return c;
}

static void pull_file_id(struct smb2_cur *c, struct smb2_file_id *id)
{
	id->persistent = smb2_cur_u64(c);
	id->volatile_id = smb2_cur_u64(c);
}

static void pull_dh2q(const struct smb2_create_ctx *ctx,
		      struct smb2_durable_req *out)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->data_len);

	out->timeout = smb2_cur_u32(&c);
	out->flags = smb2_cur_u32(&c);
	smb2_cur_skip(&c, 8);			/* Reserved */
	smb2_cur_copy(&c, out->create_guid, sizeof(out->create_guid));
}

static void pull_dh2c(const struct smb2_create_ctx *ctx,
		      struct smb2_durable_req *out)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->data_len);

	pull_file_id(&c, &out->file_id);
	smb2_cur_copy(&c, out->create_guid, sizeof(out->create_guid));
	out->flags = smb2_cur_u32(&c);
}

static void pull_dhnc(const struct smb2_create_ctx *ctx,
		      struct smb2_durable_req *out)
{
	struct smb2_cur c = smb2_cur_init(ctx->data, ctx->data_len);

	pull_file_id(&c, &out->file_id);
}

/* 3.3.5.9.7 and 3.3.5.9.12: which contexts may come together */
static bool durable_combination_ok(struct smb2_durable_req *r)
{
	if (r->v1_request && r->v2_request) {
		return false;
	}
	if (r->v2_reconnect &&
	    (r->v1_reconnect || r->v1_request || r->v2_request)) {
		return false;
	}
	if (r->v1_reconnect && r->v2_request) {
		return false;
	}
	if (r->v1_reconnect) {
		r->v1_request = false;	/* ignored next to a reconnect */
	}
	return true;
}

NTSTATUS smb2_durable_req_pull(const struct smb2_create_ctx_list *l,
			       struct smb2_durable_req *out)
{
	bool bad = false;
	const struct smb2_create_ctx *dhnq = durable_find(
		l, SMB2_CREATE_TAG_DHNQ, SMB2_DHNQ_SIZE, &bad);
	const struct smb2_create_ctx *dhnc = durable_find(
		l, SMB2_CREATE_TAG_DHNC, SMB2_DHNC_SIZE, &bad);
	const struct smb2_create_ctx *dh2q = durable_find(
		l, SMB2_CREATE_TAG_DH2Q, SMB2_DH2Q_SIZE, &bad);
	const struct smb2_create_ctx *dh2c = durable_find(
		l, SMB2_CREATE_TAG_DH2C, SMB2_DH2C_SIZE, &bad);

	*out = (struct smb2_durable_req){};
	if (bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->v1_request = dhnq != NULL;
	out->v2_request = dh2q != NULL;
	out->v1_reconnect = dhnc != NULL;
	out->v2_reconnect = dh2c != NULL;
	if (!durable_combination_ok(out)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (dh2q != NULL) {
		pull_dh2q(dh2q, out);
	}
	if (dh2c != NULL) {
		pull_dh2c(dh2c, out);
	}
	if (dhnc != NULL) {
		pull_dhnc(dhnc, out);
	}
	return NT_STATUS_OK;
}

uint8_t *smb2_durable_rsp_push(TALLOC_CTX *mem_ctx, bool v2,
			       uint32_t timeout, uint32_t flags, size_t *len)
{
	struct smb2_wr w;
	uint8_t *buf = smb2_rsp_alloc(mem_ctx, 8, &w);

	if (buf == NULL) {
		return NULL;
	}
	if (v2) {
		smb2_wr_u32(&w, timeout);
		smb2_wr_u32(&w, flags);
	} else {
		smb2_wr_u64(&w, 0);		/* Reserved */
	}
	return smb2_rsp_finish(buf, &w, len);
}

NTSTATUS smb2_app_instance_pull(const struct smb2_create_ctx_list *l,
				bool *present, uint8_t id[16])
{
	bool bad = false;
	const struct smb2_create_ctx *c = durable_find(
		l, SMB2_CREATE_TAG_APP_INSTANCE_ID, SMB2_APP_INSTANCE_ID_SIZE,
		&bad);
	struct smb2_cur cur;

	*present = false;
	memset(id, 0, 16);
	if (c == NULL) {
		return NT_STATUS_OK;
	}
	if (bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	cur = smb2_cur_init(c->data, c->data_len);
	if (smb2_cur_u16(&cur) != SMB2_APP_INSTANCE_ID_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	smb2_cur_skip(&cur, 2);			/* Reserved */
	smb2_cur_copy(&cur, id, 16);
	*present = true;
	return cur.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}
