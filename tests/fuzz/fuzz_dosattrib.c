/*
 * libFuzzer harness: Samba's user.DOSATTRIB value
 * (xattr_dosattrib_pull).  A decoded v2 name must lie inside the input;
 * a decoded value pushed again must decode to the same fields, and
 * what Samba 4.17 would take from it must not change.
 * Seed corpus: tests/fuzz/corpus/dosattrib/ (test_dcerpc_xattr's
 * vectors, written by Samba 4.17).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/dcerpc/xattr_dosattrib.h"

static bool same(const struct xattr_dosattrib *a,
		 const struct xattr_dosattrib *b)
{
	return a->version == b->version &&
	       a->valid_flags == b->valid_flags &&
	       a->attrib == b->attrib && a->ea_size == b->ea_size &&
	       a->size == b->size && a->alloc_size == b->alloc_size &&
	       a->create_time == b->create_time &&
	       a->change_time == b->change_time && a->itime == b->itime &&
	       a->flags == b->flags && a->write_time == b->write_time &&
	       a->name_len == b->name_len &&
	       (a->name_len == 0 ||
		memcmp(a->name, b->name, a->name_len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xattr_dosattrib x, again;
	uint32_t a1 = 0, a2 = 0;
	uint64_t t1 = 0, t2 = 0;
	uint8_t *out = NULL;
	size_t n = 0;

	if (!NT_STATUS_IS_OK(xattr_dosattrib_pull(data, size, &x))) {
		return 0;
	}
	if (x.name_len > 0 && (x.name < data || x.name > data + size ||
			       x.name_len > (size_t)(data + size - x.name))) {
		abort();
	}
	/* hex string up to 11 bytes where the input may have had none */
	out = malloc(size + 64);
	if (out == NULL) {
		return 0;
	}
	n = xattr_dosattrib_push(&x, out, size + 64);
	if (n == 0 ||
	    !NT_STATUS_IS_OK(xattr_dosattrib_pull(out, n, &again)) ||
	    !same(&x, &again)) {
		abort();
	}
	xattr_dosattrib_meaning(&x, &a1, &t1);
	xattr_dosattrib_meaning(&again, &a2, &t2);
	if (a1 != a2 || t1 != t2) {
		abort();
	}
	free(out);
	return 0;
}
