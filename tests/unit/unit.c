/*
 * Shared helpers for the cmocka unit tests: guard-page buffers, hex
 * vectors and a talloc leak check.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tests/unit/unit.h"

struct guard_hdr {
	void *base;
	size_t maplen;
};

uint8_t *guard_dup(const void *buf, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t data_pages = (len + sizeof(struct guard_hdr) + pg - 1) / pg;
	size_t maplen = (data_pages + 1) * pg;
	uint8_t *base = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *guard = NULL;
	uint8_t *p = NULL;
	struct guard_hdr hdr = { .base = base, .maplen = maplen };

	assert_true(base != MAP_FAILED);
	guard = base + data_pages * pg;
	assert_int_equal(mprotect(guard, pg, PROT_NONE), 0);
	p = guard - len;
	memcpy(p - sizeof(hdr), &hdr, sizeof(hdr));
	if (len > 0) {
		memcpy(p, buf, len);
	}
	return p;
}

void guard_free(uint8_t *p)
{
	struct guard_hdr hdr;

	memcpy(&hdr, p - sizeof(hdr), sizeof(hdr));
	munmap(hdr.base, hdr.maplen);
}

uint8_t *unhex(TALLOC_CTX *ctx, const char *hex, size_t *len)
{
	size_t n = strlen(hex) / 2;
	uint8_t *out = talloc_size(ctx, n == 0 ? 1 : n);
	size_t i = 0;

	assert_non_null(out);
	assert_int_equal(strlen(hex) % 2, 0);
	for (i = 0; i < n; i++) {
		char b[3] = { hex[2 * i], hex[2 * i + 1], 0 };

		out[i] = (uint8_t)strtoul(b, NULL, 16);
	}
	if (len != NULL) {
		*len = n;
	}
	return out;
}

int unit_setup(void **state)
{
	void *ctx = talloc_new(NULL);

	if (ctx == NULL) {
		return -1;
	}
	*state = ctx;
	return 0;
}

int unit_teardown(void **state)
{
	void *ctx = *state;
	size_t left = talloc_total_blocks(ctx);

	/* only ctx itself may remain; children are leaks of the test */
	talloc_free(ctx);
	if (left != 1) {
		print_error("talloc leak: %zu blocks left under test ctx\n",
			    left - 1);
		return -1;
	}
	return 0;
}
