/*
 * libFuzzer harness for veto/hide name lists and the wildcard matcher
 * (lib/param/access.h).  The input is "spec\0name": the spec must parse
 * without crashing or leaking, and matching must agree with itself: a
 * case-sensitive match is also a case-insensitive one, and every entry
 * without wildcards matches its own text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/param/access.h"

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_namelist: %s\n", what);
		abort();
	}
}

static void check_literal_entries(const char *spec)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	char *copy = talloc_strdup(tmp, spec);
	char *save = NULL;
	char *e = NULL;

	for (e = strtok_r(copy, "/", &save); e != NULL;
	     e = strtok_r(NULL, "/", &save)) {
		if (strpbrk(e, "*?") == NULL) {
			check(access_wild_match(e, e, true),
			      "a literal entry does not match itself");
		}
	}
	talloc_free(tmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *buf = talloc_strndup(ctx, (const char *)data, size);
	const char *spec = buf;
	const char *name = "";
	struct access_namelist *l = NULL;
	size_t speclen = strnlen((const char *)data, size);

	if (speclen + 1 < size) {
		name = talloc_strndup(ctx, (const char *)data + speclen + 1,
				      size - speclen - 1);
	}
	l = access_namelist_parse(ctx, spec);
	check(l != NULL, "parse failed");
	if (access_namelist_match(l, name, true)) {
		check(access_namelist_match(l, name, false),
		      "case-sensitive match but not case-insensitive");
	}
	check_literal_entries(spec);
	(void)access_wild_match(name, spec, false);
	talloc_free(ctx);
	return 0;
}
