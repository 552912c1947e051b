/*
 * NDR20 stub cursor (lib/dcerpc/ndr.c): aligned primitives counted from
 * the stub start, [string] wchar_t* conformant varying strings as
 * srvsvc sends them, unique pointers, and the growing writer.  The
 * vectors are laid out by hand from C706 chapter 14.
 */
#include <string.h>
#include "tests/unit/unit.h"
#include "lib/dcerpc/dcerpc.h"

/*
 * A NetShareEnumAll-like stub: [unique] "\\s" (ref id 0x20000,
 * max 4, offset 0, actual 4, UTF-16 with NUL), u32 1, u16 0x1234,
 * 2 pad, u64 at 32, u8 7, 3 pad, a NULL unique pointer.
 */
static const uint8_t stub[48] = {
	0x00, 0x00, 0x02, 0x00,
	0x04, 0, 0, 0, 0, 0, 0, 0, 0x04, 0, 0, 0,
	'\\', 0, '\\', 0, 's', 0, 0, 0,
	0x01, 0, 0, 0,
	0x34, 0x12, 0, 0,
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	0x07, 0, 0, 0,
	0, 0, 0, 0,
};

static const uint8_t name_units[6] = { '\\', 0, '\\', 0, 's', 0 };

/* Reads stub's fields; true if all of them were there. */
static bool pull_stub(const uint8_t *buf, size_t len)
{
	struct ndr_pull c = ndr_pull_init(buf, len);
	const uint8_t *units = NULL;
	size_t n = 0;
	uint32_t ref = 0;
	bool present = ndr_pull_unique_ptr(&c, &ref);

	if (present) {
		ndr_pull_string(&c, &units, &n);
	}
	(void)ndr_pull_u32(&c);
	(void)ndr_pull_u16(&c);
	(void)ndr_pull_u64(&c);
	(void)ndr_pull_u8(&c);
	(void)ndr_pull_unique_ptr(&c, &ref);
	return !c.bad;
}

static void test_ndr__pull_fields(void **state)
{
	struct ndr_pull c = ndr_pull_init(stub, sizeof(stub));
	const uint8_t *units = NULL;
	size_t n = 0;
	uint32_t ref = 0;

	assert_true(ndr_pull_unique_ptr(&c, &ref));
	assert_int_equal(ref, 0x00020000);
	ndr_pull_string(&c, &units, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(units, name_units, 6);
	assert_int_equal(ndr_pull_u32(&c), 1);
	assert_int_equal(ndr_pull_u16(&c), 0x1234);
	assert_int_equal(c.ofs, 30);
	assert_true(ndr_pull_u64(&c) == 0x1122334455667788ULL);
	assert_int_equal(c.ofs, 40);
	assert_int_equal(ndr_pull_u8(&c), 7);
	assert_false(ndr_pull_unique_ptr(&c, &ref));
	assert_int_equal(ref, 0);
	assert_false(c.bad);
	assert_int_equal(c.ofs, sizeof(stub));
	/* nothing left: the next read fails and stays failed */
	assert_int_equal(ndr_pull_u8(&c), 0);
	assert_true(c.bad);
	assert_int_equal(ndr_pull_u32(&c), 0);
}

static void test_ndr__push_fields(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct ndr_push w = ndr_push_init(ctx);

	ndr_push_unique_ptr(&w, true);
	ndr_push_string(&w, name_units, 3);
	ndr_push_u32(&w, 1);
	ndr_push_u16(&w, 0x1234);
	ndr_push_u64(&w, 0x1122334455667788ULL);
	ndr_push_u8(&w, 7);
	ndr_push_unique_ptr(&w, false);
	assert_false(w.bad);
	assert_int_equal(w.len, sizeof(stub));
	assert_memory_equal(w.buf, stub, sizeof(stub));
	TALLOC_FREE(w.buf);
}

static void test_ndr__every_truncation(void **state)
{
	size_t n;

	for (n = 0; n <= sizeof(stub); n++) {
		uint8_t *g = guard_dup(stub, n);

		assert_int_equal(pull_stub(g, n), n == sizeof(stub));
		guard_free(g);
	}
}

/*
 * The padding before an aligned read is part of what must be there:
 * 4 bytes left at offset 1 hold a u16 but not a u32 (3 pad + 4).
 */
static void test_ndr__alignment_padding(void **state)
{
	static const uint8_t b[12] = { 0 };
	struct ndr_pull c = ndr_pull_init(b, 5);

	(void)ndr_pull_u8(&c);
	(void)ndr_pull_u32(&c);
	assert_true(c.bad);
	c = ndr_pull_init(b, 5);
	(void)ndr_pull_u8(&c);
	(void)ndr_pull_u16(&c);
	assert_false(c.bad);
	assert_int_equal(c.ofs, 4);
	/* u64 at 4 needs 4 bytes of pad, then 8: 12 is not enough at 4+4 */
	c = ndr_pull_init(b, 12);
	(void)ndr_pull_u32(&c);
	(void)ndr_pull_u64(&c);
	assert_true(c.bad);
	c = ndr_pull_init(b, 8);
	ndr_pull_align(&c, 8);
	assert_false(c.bad);
	assert_int_equal(c.ofs, 0);
	c = ndr_pull_init(NULL, 0);
	(void)ndr_pull_u8(&c);
	assert_true(c.bad);
}

static bool string_ok(const uint8_t *buf, size_t len)
{
	struct ndr_pull c;
	const uint8_t *units = NULL;
	size_t n = 0;
	uint8_t *g = guard_dup(buf, len);

	c = ndr_pull_init(g, len);
	ndr_pull_string(&c, &units, &n);
	guard_free(g);
	return !c.bad;
}

/* "ab" as max, offset, actual and units; callers patch one field. */
static size_t mk_string(uint8_t *b, uint32_t max, uint32_t ofs,
			uint32_t actual, uint16_t u0, uint16_t u1, uint16_t u2)
{
	uint32_t f[3] = { max, ofs, actual };
	uint16_t u[3] = { u0, u1, u2 };
	size_t i;

	for (i = 0; i < 3; i++) {
		b[4 * i] = (uint8_t)f[i];
		b[4 * i + 1] = (uint8_t)(f[i] >> 8);
		b[4 * i + 2] = (uint8_t)(f[i] >> 16);
		b[4 * i + 3] = (uint8_t)(f[i] >> 24);
	}
	for (i = 0; i < 3; i++) {
		b[12 + 2 * i] = (uint8_t)u[i];
		b[12 + 2 * i + 1] = (uint8_t)(u[i] >> 8);
	}
	return 18;
}

static void test_ndr__string_malformed(void **state)
{
	uint8_t b[18];
	size_t n;

	assert_true(string_ok(b, mk_string(b, 3, 0, 3, 'a', 'b', 0)));
	/* max_count above actual is fine (a buffer larger than the text) */
	assert_true(string_ok(b, mk_string(b, 100, 0, 3, 'a', 'b', 0)));
	assert_false(string_ok(b, mk_string(b, 3, 1, 3, 'a', 'b', 0)));
	assert_false(string_ok(b, mk_string(b, 2, 0, 3, 'a', 'b', 0)));
	assert_false(string_ok(b, mk_string(b, 3, 0, 0, 'a', 'b', 0)));
	assert_false(string_ok(b, mk_string(b, 3, 0, 3, 'a', 'b', 'c')));
	assert_false(string_ok(b, mk_string(b, 3, 0, 3, 'a', 0, 0)));
	assert_false(string_ok(b, mk_string(b, 3, 0, 3, 0, 'b', 0)));
	/* actual_count past the buffer, and past the sanity limit */
	assert_false(string_ok(b, mk_string(b, 4, 0, 4, 'a', 'b', 0)));
	assert_false(string_ok(b, mk_string(b, 0xffffffff, 0, 0x80000000,
					    'a', 'b', 0)));
	assert_false(string_ok(b, mk_string(b, 0xffffffff, 0,
					    NDR_MAX_STRING_UNITS + 1,
					    'a', 'b', 0)));
	/* every truncation of the valid one */
	mk_string(b, 3, 0, 3, 'a', 'b', 0);
	for (n = 0; n < sizeof(b); n++) {
		assert_false(string_ok(b, n));
	}
}

static void test_ndr__string_empty(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct ndr_push w = ndr_push_init(ctx);
	static const uint8_t want[14] = { 1, 0, 0, 0, 0, 0, 0, 0,
					  1, 0, 0, 0, 0, 0 };
	struct ndr_pull c;
	const uint8_t *units = NULL;
	size_t n = 99;

	ndr_push_string(&w, NULL, 0);
	assert_false(w.bad);
	assert_int_equal(w.len, sizeof(want));
	assert_memory_equal(w.buf, want, sizeof(want));
	c = ndr_pull_init(w.buf, w.len);
	ndr_pull_string(&c, &units, &n);
	assert_false(c.bad);
	assert_int_equal(n, 0);
	TALLOC_FREE(w.buf);
}

static void test_ndr__pointers(void **state)
{
	TALLOC_CTX *ctx = *state;
	static const uint8_t b[6] = { 4, 0, 2, 0, 0, 0 };
	struct ndr_push w = ndr_push_init(ctx);
	struct ndr_pull c = ndr_pull_init(b, 4);
	uint32_t ref = 0;

	assert_true(ndr_pull_unique_ptr(&c, &ref));
	assert_int_equal(ref, 0x00020004);
	/* a pointer cut short is neither NULL nor present: bad */
	c = ndr_pull_init(b, 3);
	assert_false(ndr_pull_unique_ptr(&c, &ref));
	assert_true(c.bad);
	/* referent ids are non-zero and distinct, 4 apart */
	ndr_push_unique_ptr(&w, true);
	ndr_push_unique_ptr(&w, false);
	ndr_push_unique_ptr(&w, true);
	assert_int_equal(w.len, 12);
	c = ndr_pull_init(w.buf, w.len);
	assert_true(ndr_pull_unique_ptr(&c, &ref));
	assert_int_equal(ref, 0x00020000);
	assert_false(ndr_pull_unique_ptr(&c, &ref));
	assert_true(ndr_pull_unique_ptr(&c, &ref));
	assert_int_equal(ref, 0x00020004);
	TALLOC_FREE(w.buf);
}

static void test_ndr__uuid(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct ndr_push w = ndr_push_init(ctx);
	struct dcerpc_uuid u;
	struct ndr_pull c;

	ndr_push_u8(&w, 1);
	ndr_push_uuid(&w, &dcerpc_syntax_srvsvc.uuid);
	assert_int_equal(w.len, 20);	/* aligned to 4 first */
	assert_int_equal(w.buf[4], 0xc8);
	c = ndr_pull_init(w.buf, w.len);
	(void)ndr_pull_u8(&c);
	ndr_pull_uuid(&c, &u);
	assert_false(c.bad);
	assert_true(dcerpc_uuid_equal(&u, &dcerpc_syntax_srvsvc.uuid));
	c = ndr_pull_init(w.buf, w.len - 1);
	(void)ndr_pull_u8(&c);
	ndr_pull_uuid(&c, &u);
	assert_true(c.bad);
	TALLOC_FREE(w.buf);
}

static void test_ndr__push_grows(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct ndr_push w = ndr_push_init(ctx);
	struct ndr_pull c;
	uint32_t i;

	for (i = 0; i < 1000; i++) {
		ndr_push_u32(&w, i);
	}
	assert_false(w.bad);
	assert_int_equal(w.len, 4000);
	assert_true(w.cap >= 4000);
	c = ndr_pull_init(w.buf, w.len);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(ndr_pull_u32(&c), i);
	}
	TALLOC_FREE(w.buf);
}

static void test_ndr__push_limits(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct ndr_push w = ndr_push_init(ctx);

	ndr_push_u8(&w, 1);
	/* more than NDR_PUSH_MAX in all: refused, sticky, nothing grows */
	ndr_push_bytes(&w, NULL, NDR_PUSH_MAX);
	assert_true(w.bad);
	ndr_push_u32(&w, 5);
	assert_int_equal(w.len, 1);
	TALLOC_FREE(w.buf);
	w = ndr_push_init(ctx);
	ndr_push_string(&w, name_units, NDR_MAX_STRING_UNITS);
	assert_true(w.bad);
	assert_int_equal(w.len, 0);
	TALLOC_FREE(w.buf);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ndr__pull_fields),
		T(test_ndr__push_fields),
		T(test_ndr__every_truncation),
		T(test_ndr__alignment_padding),
		T(test_ndr__string_malformed),
		T(test_ndr__string_empty),
		T(test_ndr__pointers),
		T(test_ndr__uuid),
		T(test_ndr__push_grows),
		T(test_ndr__push_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
