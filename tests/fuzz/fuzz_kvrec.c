/*
 * libFuzzer harness: key-value records (lib/util/kvrec.c), what
 * smbstatus and smbcontrol parse from smbd's control socket.  Whatever
 * parses, written back with the writer, parses again to the same
 * records.  The input taken as one value is written and read back
 * unchanged (up to its first NUL).
 * Seed corpus: tests/fuzz/corpus/kvrec/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "lib/util/kvrec.h"

static void check_parse(const char *text, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct kvrec *r = NULL, *again = NULL;
	struct kvrec_buf b = { 0 };
	size_t n = 0, m = 0, i, j;
	char *err = NULL;

	if (kvrec_parse(ctx, text, size, &r, &n, &err) != 0) {
		if (err == NULL || r != NULL) {
			abort();
		}
		talloc_free(ctx);
		return;
	}
	for (i = 0; i < n; i++) {
		kvrec_begin(&b, ctx, r[i].type);
		for (j = 0; j < r[i].num_fields; j++) {
			kvrec_add(&b, r[i].fields[j].key, "%s",
				  r[i].fields[j].value);
		}
	}
	kvrec_end(&b, ctx);
	if (n > 0 && (b.failed ||
		      kvrec_parse(ctx, b.s, b.len, &again, &m, &err) != 0 ||
		      m != n)) {
		abort();
	}
	for (i = 0; i < m; i++) {
		if (strcmp(again[i].type, r[i].type) != 0 ||
		    again[i].num_fields != r[i].num_fields) {
			abort();
		}
		for (j = 0; j < r[i].num_fields; j++) {
			if (strcmp(again[i].fields[j].key,
				   r[i].fields[j].key) != 0 ||
			    strcmp(again[i].fields[j].value,
				   r[i].fields[j].value) != 0) {
				abort();
			}
		}
	}
	talloc_free(ctx);
}

static void check_value(const char *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *v = talloc_strndup(ctx, data, size);
	struct kvrec_buf b = { 0 };
	struct kvrec *r = NULL;
	size_t n = 0;
	char *err = NULL;

	kvrec_begin(&b, ctx, "t");
	kvrec_add(&b, "v", "%s", v);
	kvrec_end(&b, ctx);
	if (b.failed || kvrec_parse(ctx, b.s, b.len, &r, &n, &err) != 0 ||
	    n != 1 || strcmp(kvrec_get(&r[0], "v"), v) != 0) {
		abort();
	}
	talloc_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_parse((const char *)data, size);
	check_value((const char *)data, size);
	return 0;
}
