/*
 * libFuzzer harness: a CREATE context chain (MS-SMB2 2.2.13.2) into
 * smb2_create_ctx_parse(), the lease, durable handle and AlSi pulls,
 * a lease pushed back as the response and pulled again, then a round
 * trip: what parses, pushed as a response chain, must
 * parse again to the same names and data.
 * Seed corpus: tests/fuzz/corpus/create_ctx/ (from test_smb2_frame).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/smb2/smb2.h"

static bool same_ctx(const struct smb2_create_ctx *a,
		     const struct smb2_create_ctx *b)
{
	return a->name_len == b->name_len && a->data_len == b->data_len &&
	       memcmp(a->name, b->name, a->name_len) == 0 &&
	       (a->data_len == 0 ||
		memcmp(a->data, b->data, a->data_len) == 0);
}

static void roundtrip(TALLOC_CTX *ctx, const struct smb2_create_ctx_list *l)
{
	struct smb2_create_ctx_list *l2 = talloc(ctx,
						 struct smb2_create_ctx_list);
	size_t len = 0;
	size_t i = 0;
	uint8_t *chain = smb2_create_ctx_push(ctx, l->ctx, l->num, &len);

	if (chain == NULL || l2 == NULL) {
		return;		/* e.g. a name too long for a 16-bit offset */
	}
	if (!NT_STATUS_IS_OK(smb2_create_ctx_parse(chain, len, l2)) ||
	    l2->num != l->num) {
		abort();
	}
	for (i = 0; i < l->num; i++) {
		if (!same_ctx(&l->ctx[i], &l2->ctx[i])) {
			abort();
		}
	}
}

/*
 * A lease that parses, pushed as the server answers it, parses again to
 * the same key, state, flags and (v2) parent key and epoch; the length
 * decides the version and nothing else.
 */
static void lease_roundtrip(TALLOC_CTX *ctx, const struct smb2_create_ctx *c)
{
	struct smb2_lease a, b;
	struct smb2_create_ctx c2 = { .name = c->name,
				      .name_len = c->name_len };
	size_t len = 0;
	bool ok = NT_STATUS_IS_OK(smb2_lease_pull(c, &a));

	if (ok != (c->data_len == SMB2_LEASE_V1_SIZE ||
		   c->data_len == SMB2_LEASE_V2_SIZE)) {
		abort();
	}
	if (!ok) {
		return;
	}
	c2.data = smb2_lease_push(ctx, &a, &len);
	if (c2.data == NULL) {
		return;
	}
	c2.data_len = len;
	if (!NT_STATUS_IS_OK(smb2_lease_pull(&c2, &b)) ||
	    b.version != a.version || b.state != a.state ||
	    b.flags != a.flags || b.epoch != a.epoch ||
	    memcmp(b.key, a.key, sizeof(a.key)) != 0 ||
	    memcmp(b.parent_key, a.parent_key, sizeof(a.key)) != 0) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct smb2_create_ctx_list *l = talloc(ctx,
						struct smb2_create_ctx_list);
	const struct smb2_create_ctx *rqls = NULL;
	const struct smb2_create_ctx *alsi = NULL;
	uint64_t alloc_size = 0;
	struct smb2_lease lease;
	struct smb2_durable_req dh;
	uint8_t app_id[16];
	bool present = false;
	size_t n = 0;

	if (l != NULL && NT_STATUS_IS_OK(smb2_create_ctx_parse(data, size,
							       l))) {
		rqls = smb2_create_ctx_find(l, SMB2_CREATE_TAG_RQLS, &n);
		if (rqls != NULL) {
			(void)smb2_lease_pull(rqls, &lease);
			lease_roundtrip(ctx, rqls);
		}
		alsi = smb2_create_ctx_find(l, SMB2_CREATE_TAG_ALSI, &n);
		if (alsi != NULL &&
		    NT_STATUS_IS_OK(smb2_alsi_pull(alsi, &alloc_size)) !=
		    (alsi->data_len == SMB2_ALSI_SIZE)) {
			abort();	/* exactly 8 bytes, nothing else */
		}
		(void)smb2_durable_req_pull(l, &dh);
		(void)smb2_app_instance_pull(l, &present, app_id);
		roundtrip(ctx, l);
	}
	talloc_free(ctx);
	return 0;
}
