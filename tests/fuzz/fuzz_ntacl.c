/*
 * libFuzzer harness: Samba's security.NTACL value (xattr_ntacl_pull)
 * and the Linux POSIX ACL xattr its sys_acl_hash covers
 * (xattr_posix_acl_pull).  A decoded value's SD must pass the SD check
 * by itself and its description lie inside the input; pushed again it
 * must decode to the same fields and SD bytes; both hashes must be
 * computable from what was decoded.
 * Seed corpus: tests/fuzz/corpus/ntacl/ (test_dcerpc_ntacl's vectors,
 * written by Samba 4.17).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/dcerpc/xattr_ntacl.h"

static bool same(const struct xattr_ntacl *a, const struct xattr_ntacl *b)
{
	return a->version == b->version && a->sd_len == b->sd_len &&
	       memcmp(a->sd, b->sd, a->sd_len) == 0 &&
	       a->hash_type == b->hash_type &&
	       memcmp(a->hash, b->hash, sizeof(a->hash)) == 0 &&
	       a->description_len == b->description_len &&
	       (a->description_len == 0 ||
		memcmp(a->description, b->description,
		       a->description_len) == 0) &&
	       a->time == b->time &&
	       memcmp(a->sys_acl_hash, b->sys_acl_hash,
		      sizeof(a->sys_acl_hash)) == 0;
}

static void ntacl(TALLOC_CTX *ctx, const uint8_t *data, size_t size)
{
	uint8_t hash[XATTR_NTACL_HASH_SIZE];
	struct xattr_ntacl x, again;
	size_t extent = 0, n = 0;
	uint8_t *out = NULL;
	bool match = false;

	if (!NT_STATUS_IS_OK(xattr_ntacl_pull(ctx, data, size, &x))) {
		return;
	}
	if (x.sd_len > size ||
	    !NT_STATUS_IS_OK(xattr_ntacl_sd_check(x.sd, x.sd_len, &extent)) ||
	    extent != x.sd_len) {
		abort();
	}
	if (x.description_len > 0 &&
	    (x.description < data || x.description > data + size ||
	     x.description_len > (size_t)(data + size - x.description))) {
		abort();
	}
	/* pushed again it is at most as long: padding and SD are exact */
	if (!NT_STATUS_IS_OK(xattr_ntacl_push(ctx, &x, &out, &n)) ||
	    n > size || !NT_STATUS_IS_OK(xattr_ntacl_pull(ctx, out, n,
							     &again)) ||
	    !same(&x, &again)) {
		abort();
	}
	if (!NT_STATUS_IS_OK(xattr_ntacl_sd_hash(x.sd, x.sd_len, hash)) ||
	    !NT_STATUS_IS_OK(xattr_ntacl_sd_hash_verify(&x, x.sd, x.sd_len,
							 &match))) {
		abort();
	}
	(void)xattr_ntacl_verdict(&x, false, hash);
}

static void posix_acl(TALLOC_CTX *ctx, const uint8_t *data, size_t size)
{
	uint8_t hash[XATTR_NTACL_HASH_SIZE];
	struct xattr_posix_acl a;

	if (!NT_STATUS_IS_OK(xattr_posix_acl_pull(ctx, data, size, &a))) {
		return;
	}
	if (a.count != (size - 4) / 8 ||
	    !NT_STATUS_IS_OK(xattr_ntacl_sys_acl_hash(&a, &a, 1, 2, 040755,
						      hash))) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);

	if (ctx == NULL) {
		return 0;
	}
	ntacl(ctx, data, size);
	posix_acl(ctx, data, size);
	talloc_free(ctx);
	return 0;
}
