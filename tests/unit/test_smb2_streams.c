/*
 * Unit tests for named-stream syntax and FileStreamInformation
 * (lib/smb2/streams.c).  Every name is parsed against a guard page, so a
 * read past its end faults.
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"
#include "lib/smb2/streams.h"
#include "lib/util/byteorder.h"

/* parse s (no terminator in the buffer) under a guard page */
static NTSTATUS parse(const char *s, struct smb2_stream_name *out)
{
	size_t len = strlen(s);
	uint8_t *g = guard_dup(s, len);
	NTSTATUS status = smb2_stream_name_parse((const char *)g, len, out);

	if (NT_STATUS_IS_OK(status)) {
		/* the name points into the input */
		assert_true(out->name == (const char *)g);
		assert_true(out->len <= len);
	}
	guard_free(g);
	return status;
}

static void expect_name(const char *s, const char *name, bool has_type)
{
	struct smb2_stream_name sn;

	assert_true(NT_STATUS_IS_OK(parse(s, &sn)));
	assert_int_equal(sn.len, strlen(name));
	assert_int_equal(sn.has_type, has_type);
}

static void expect_invalid(const char *s)
{
	struct smb2_stream_name sn;

	assert_true(NT_STATUS_EQUAL(parse(s, &sn),
				    NT_STATUS_OBJECT_NAME_INVALID));
}

static void test_stream_name__valid(void **state)
{
	expect_name("s", "s", false);
	expect_name("Stream One", "Stream One", false);
	expect_name("Stream One:$DATA", "Stream One", true);
	expect_name("MStream Two:$DaTa", "MStream Two", true);
	expect_name(":$DATA", "", true);        /* the default stream */
	/* Windows allows controls and wildcards (smb2.streams.names2) */
	expect_name("\x05Stream\n One", "\x05Stream\n One", false);
	expect_name("?Stream*:$DATA", "?Stream*", true);
	expect_name("\"<>|", "\"<>|", false);
	expect_name("\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9", false);
}

static void test_stream_name__invalid(void **state)
{
	expect_invalid("");             /* "x:" */
	expect_invalid(":");            /* "x::" */
	expect_invalid("s:");
	expect_invalid("s:$FOO");
	expect_invalid("s:?D*a");
	expect_invalid("s:$DATA:");
	expect_invalid("a:b:$DATA");
	expect_invalid("::$DATA");
	expect_invalid("a/b");
	expect_invalid("a\\b");
	expect_invalid("s:$DAT");
	expect_invalid("s:$DATAX");
	expect_invalid("\xc3");         /* cut sequence */
	expect_invalid("\x80");         /* lone continuation */
	expect_invalid("\xc0\xaf");     /* overlong lead */
	expect_invalid("\xf5\x80\x80\x80");
	expect_invalid("\xf0\x80\x98\x9fx");  /* overlong (fuzz_stream_name) */
	expect_invalid("\xe0\x80\xaf");        /* overlong */
	expect_invalid("\xed\xa0\x80");        /* a surrogate */
	expect_invalid("\xf4\x90\x80\x80");   /* past U+10FFFF */
}

static void test_stream_name__nul(void **state)
{
	struct smb2_stream_name sn;

	assert_true(NT_STATUS_EQUAL(
		smb2_stream_name_parse("a\0b", 3, &sn),
		NT_STATUS_OBJECT_NAME_INVALID));
	/* len 0 never reads the pointer */
	assert_true(NT_STATUS_EQUAL(smb2_stream_name_parse(NULL, 0, &sn),
				    NT_STATUS_OBJECT_NAME_INVALID));
}

/* 255 UTF-16 units is the limit; a 4-byte character counts two */
static void test_stream_name__length(void **state)
{
	char buf[1100];
	struct smb2_stream_name sn;
	size_t i;

	memset(buf, 'a', 255);
	buf[255] = '\0';
	assert_true(NT_STATUS_IS_OK(parse(buf, &sn)));
	buf[255] = 'a';
	buf[256] = '\0';
	assert_true(NT_STATUS_EQUAL(parse(buf, &sn),
				    NT_STATUS_OBJECT_NAME_INVALID));
	strcpy(buf + 255, ":$DATA");            /* the type does not count */
	assert_true(NT_STATUS_IS_OK(parse(buf, &sn)));
	for (i = 0; i < 127; i++) {
		memcpy(buf + 4 * i, "\xf0\x9f\x98\x80", 4);     /* U+1F600 */
	}
	buf[4 * 127] = 'a';                     /* 254 + 1 units */
	buf[4 * 127 + 1] = '\0';
	assert_true(NT_STATUS_IS_OK(parse(buf, &sn)));
	memcpy(buf + 4 * 127, "\xf0\x9f\x98\x80", 5);   /* 256 units */
	assert_true(NT_STATUS_EQUAL(parse(buf, &sn),
				    NT_STATUS_OBJECT_NAME_INVALID));
}

static void test_stream_info__push(void **state)
{
	const struct smb2_stream_entry e[] = {
		{ .name = "", .size = 100, .allocation_size = 4096 },
		{ .name = "s", .size = 3, .allocation_size = 3 },
	};
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_stream_info_push(*state, e, 2, 4096,
							  &out, &len)));
	/* "::$DATA" is 7 units: 24 + 14 = 38, next entry at 40 */
	assert_int_equal(pull_le32(out), 40);
	assert_int_equal(pull_le32(out + 4), 14);
	assert_int_equal(pull_le64(out + 8), 100);
	assert_int_equal(pull_le64(out + 16), 4096);
	assert_int_equal(pull_le16(out + 24), ':');
	assert_int_equal(pull_le32(out + 40), 0);
	assert_int_equal(pull_le32(out + 44), 16);    /* ":s:$DATA" */
	assert_int_equal(pull_le64(out + 48), 3);
	assert_int_equal(len, 40 + 24 + 16);
	talloc_free(out);

	/* cut to the buffer, whatever the entries: BUFFER_OVERFLOW */
	assert_true(NT_STATUS_EQUAL(smb2_stream_info_push(*state, e, 2, 60,
							  &out, &len),
				    NT_STATUS_BUFFER_OVERFLOW));
	assert_int_equal(len, 60);
	assert_int_equal(pull_le32(out), 40);
	talloc_free(out);
	assert_true(NT_STATUS_EQUAL(smb2_stream_info_push(*state, e, 2, 32,
							  &out, &len),
				    NT_STATUS_BUFFER_OVERFLOW));
	assert_int_equal(len, 32);
	talloc_free(out);
	assert_true(NT_STATUS_EQUAL(smb2_stream_info_push(*state, e, 2, 38,
							  &out, &len),
				    NT_STATUS_BUFFER_OVERFLOW));
	assert_int_equal(len, 38);
	talloc_free(out);
	/* a directory without streams: nothing */
	assert_true(NT_STATUS_IS_OK(smb2_stream_info_push(*state, e, 0, 32,
							  &out, &len)));
	assert_int_equal(len, 0);
	talloc_free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, unit_setup, unit_teardown)
		T(test_stream_name__valid),
		T(test_stream_name__invalid),
		T(test_stream_name__nul),
		T(test_stream_name__length),
		T(test_stream_info__push),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
