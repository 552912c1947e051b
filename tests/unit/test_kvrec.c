/*
 * Unit tests for lib/util/kvrec.c: the records smbd's control socket
 * answers in.  Values with TABs, newlines, backslashes and control
 * bytes come back unchanged; malformed lines are refused with their
 * line number.
 */
#include <string.h>
#include "lib/util/kvrec.h"
#include "tests/unit/unit.h"

static void test_kvrec__round_trip(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct kvrec_buf b = { 0 };
	struct kvrec *r = NULL;
	const char *nasty = "a\tb\nc\\d\x01" "e\x7f";
	size_t n = 0;
	char *err = NULL;

	kvrec_raw(&b, ctx, "ok\n");
	kvrec_begin(&b, ctx, "open");
	kvrec_add(&b, "name", "%s", nasty);
	kvrec_add(&b, "fid", "%d", 42);
	kvrec_add(&b, "empty", "%s", "");
	kvrec_begin(&b, ctx, "lock");
	kvrec_add(&b, "start", "%llu", 18446744073709551615ULL);
	kvrec_end(&b, ctx);
	assert_false(b.failed);
	assert_int_equal(b.len, strlen(b.s));
	assert_string_equal(b.s, "ok\nopen\tname=a\\tb\\nc\\\\d\\x01e\\x7f"
			    "\tfid=42\tempty=\nlock\tstart="
			    "18446744073709551615\n");
	assert_int_equal(kvrec_parse(ctx, b.s + 3, b.len - 3, &r, &n, &err),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].type, "open");
	assert_int_equal(r[0].num_fields, 3);
	assert_string_equal(kvrec_get(&r[0], "name"), nasty);
	assert_string_equal(kvrec_get(&r[0], "fid"), "42");
	assert_string_equal(kvrec_get(&r[0], "empty"), "");
	assert_null(kvrec_get(&r[0], "start"));
	assert_string_equal(r[1].type, "lock");
	assert_string_equal(kvrec_get(&r[1], "start"),
			    "18446744073709551615");
	talloc_free(r);
	talloc_free(b.s);
}

static void test_kvrec__malformed(void **state)
{
	TALLOC_CTX *ctx = *state;
	static const char *const bad[] = {
		"open\tname",                   /* no '=' */
		"open\t=v",                     /* empty key */
		"Open\tk=v",                    /* upper-case type */
		"open\tk=\\q",                  /* unknown escape */
		"open\tk=\\x0",                 /* short hex escape */
		"open\tk=\\x00",                /* NUL */
		"open\tk=\\",                   /* dangling backslash */
		"\tk=v",                        /* no type */
	};
	struct kvrec *r = NULL;
	size_t i, n = 0;
	char *err = NULL;
	char text[64];

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "ok\n%s\n", bad[i]);
		assert_int_equal(kvrec_parse(ctx, text, strlen(text), &r, &n,
					     &err), -1);
		assert_null(r);
		assert_string_equal(err, "line 2: not a record");
		talloc_free(err);
	}
	/* a NUL byte inside a line */
	assert_int_equal(kvrec_parse(ctx, "a\tk=v\0w", 7, &r, &n, &err), -1);
	talloc_free(err);
}

static void test_kvrec__empty_and_unterminated(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct kvrec *r = NULL;
	size_t n = 7;
	char *err = NULL;

	assert_int_equal(kvrec_parse(ctx, "", 0, &r, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(kvrec_parse(ctx, "\n\nx\n\ny\tk=v", 10, &r, &n,
				     &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(r[1].type, "y");
	assert_string_equal(kvrec_get(&r[1], "k"), "v");
	talloc_free(r);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_kvrec__round_trip),
		T(test_kvrec__malformed),
		T(test_kvrec__empty_and_unterminated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
