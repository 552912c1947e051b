/*
 * Samba's user.DOSATTRIB codec (lib/dcerpc/xattr_dosattrib.c).
 *
 * Every vector comes from Samba 4.17 (Debian 12): "smbd" ones were
 * written by smbd through SMB2 (CREATE, SET_INFO FileBasicInformation)
 * and dumped with getxattr; the older versions, which 4.17's smbd reads
 * but no longer writes, were packed by Samba's own NDR library
 * (python3-samba, ndr_pack(xattr.DOSATTRIB)).  The expected meanings
 * (attributes, creation time) are what 4.17's smbd answered for a file
 * carrying each value (QUERY_INFO FileBasicInformation).
 */
#include <string.h>
#include "tests/unit/unit.h"
#include "lib/dcerpc/xattr_dosattrib.h"

/* 2001-09-09 01:46:40.0000007 UTC, the creation time the tests set */
#define CT	0x01c138d144ff8007ULL

struct vec {
	const char *name;
	const char *hex;
	uint16_t version;
	uint32_t valid_flags;
	uint32_t attrib;
	uint64_t create_time;           /* as stored */
	uint64_t meant_time;            /* what Samba 4.17 reports from it */
};

static const struct vec vecs[] = {
	/* smbd 4.17: a new file created with FILE_ATTRIBUTE_NORMAL */
	{ "smbd_new_file",
	  "00000500050000001100000020000000c3a8c8124f7ddd01",
	  5, 0x11, 0x20, 0x01dd7d4f12c8a8c3ULL, 0x01dd7d4f12c8a8c3ULL },
	/* smbd: SET_INFO HIDDEN|SYSTEM|READONLY|ARCHIVE and CreationTime */
	{ "smbd_hsra", "000005000500000011000000270000000780ff44d138c101",
	  5, 0x11, 0x27, CT, CT },
	/* smbd: SET_INFO NORMAL stores no attribute at all */
	{ "smbd_normal",
	  "000005000500000011000000000000009da6ca124f7ddd01",
	  5, 0x11, 0, 0x01dd7d4f12caa69dULL, 0x01dd7d4f12caa69dULL },
	/* smbd: a new directory stores DIRECTORY */
	{ "smbd_new_dir",
	  "00000500050000001100000010000000a858cb124f7ddd01",
	  5, 0x11, 0x10, 0x01dd7d4f12cb58a8ULL, 0x01dd7d4f12cb58a8ULL },
	{ "smbd_dir_hidden",
	  "000005000500000011000000120000000780ff44d138c101",
	  5, 0x11, 0x12, CT, CT },
	/* ndr_pack, older versions */
	{ "v1", "307832330000010001000000230000000000000064000000000000"
		"0000100000000000000780ff44d138c1010c80ff44d138c101",
	  1, 0, 0x23, CT, CT },
	{ "v2", "307832330000020002000000000000002300000000000000070000"
		"000000000000000000000000000780ff44d138c1010000000000000000"
		"1080ff44d138c1016e616d652e74787400",
	  2, 0, 0x23, CT, 0 },
	{ "v3", "307832370000030003000000110000002700000000000000640000"
		"000000000000100000000000000780ff44d138c1010c80ff44d138c101",
	  3, 0x11, 0x27, CT, CT },
	/* without XATTR_DOSINFO_ATTRIB: no hex string, attrib still read */
	{ "v3_noattrflag", "00000300030000001000000022000000000000006400"
		"00000000000000100000000000000780ff44d138c1010c80ff44d138c101",
	  3, 0x10, 0x22, CT, CT },
	{ "v3_noctflag", "3078323100000300030000000100000021000000000000006400"
		"00000000000000100000000000000780ff44d138c1010c80ff44d138c101",
	  3, 0x01, 0x21, CT, 0 },
	/* 4.11..4.16 wrote version 4 with an itime; 4.17 ignores it */
	{ "v4_itime", "00000400040000005100000022000000ef83ff44d138c101"
		      "0780ff44d138c101",
	  4, 0x51, 0x22, CT, CT },
	{ "v5_noctflag", "000005000500000001000000260000000780ff44d138c101",
	  5, 0x01, 0x26, CT, 0 },
	{ "v5_ct0", "000005000500000011000000210000000000000000000000",
	  5, 0x11, 0x21, 0, 0 },
	/* before NDR (Samba 3.x): the hex string alone */
	{ "hex_only", "3078323200", XATTR_DOSATTRIB_HEX_ONLY, 0, 0x22, 0, 0 },
};

static size_t unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex) / 2;
	size_t i;

	assert_true(n <= max);
	for (i = 0; i < n; i++) {
		unsigned int b = 0;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &b), 1);
		out[i] = (uint8_t)b;
	}
	return n;
}

static void check_vec(const struct vec *v, const struct xattr_dosattrib *x)
{
	uint32_t attrib = 0;
	uint64_t ct = 0;

	assert_int_equal(x->version, v->version);
	assert_int_equal(x->valid_flags, v->valid_flags);
	assert_int_equal(x->attrib, v->attrib);
	assert_int_equal(x->create_time, v->create_time);
	xattr_dosattrib_meaning(x, &attrib, &ct);
	assert_int_equal(attrib, v->attrib);
	assert_int_equal(ct, v->meant_time);
}

static void test_dosattrib__samba_vectors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		uint8_t b[XATTR_DOSATTRIB_SIZE_MAX];
		size_t n = unhex(vecs[i].hex, b, sizeof(b));
		struct xattr_dosattrib x;
		uint8_t *g = guard_dup(b, n);

		print_message("%s\n", vecs[i].name);
		assert_true(NT_STATUS_IS_OK(xattr_dosattrib_pull(g, n, &x)));
		check_vec(&vecs[i], &x);
		guard_free(g);
	}
}

/* Samba's older fields: sizes, change time, itime, v2's flags and name. */
static void test_dosattrib__old_fields(void **state)
{
	uint8_t b[XATTR_DOSATTRIB_SIZE_MAX];
	struct xattr_dosattrib x;
	size_t n = unhex(vecs[5].hex, b, sizeof(b));

	(void)state;
	assert_true(NT_STATUS_IS_OK(xattr_dosattrib_pull(b, n, &x)));
	assert_int_equal(x.size, 100);
	assert_int_equal(x.alloc_size, 4096);
	assert_int_equal(x.change_time, CT + 5);
	n = unhex(vecs[6].hex, b, sizeof(b));
	assert_true(NT_STATUS_IS_OK(xattr_dosattrib_pull(b, n, &x)));
	assert_int_equal(x.size, 7);
	assert_int_equal(x.write_time, CT + 9);
	assert_int_equal(x.name_len, 8);
	assert_memory_equal(x.name, "name.txt", 8);
	n = unhex(vecs[10].hex, b, sizeof(b));
	assert_true(NT_STATUS_IS_OK(xattr_dosattrib_pull(b, n, &x)));
	assert_int_equal(x.itime, CT + 1000);
}

/* Encoding a decoded Samba value gives Samba's bytes back, exactly. */
static void test_dosattrib__push_is_samba_bytes(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		uint8_t b[XATTR_DOSATTRIB_SIZE_MAX];
		uint8_t out[XATTR_DOSATTRIB_SIZE_MAX];
		size_t n = unhex(vecs[i].hex, b, sizeof(b));
		struct xattr_dosattrib x;

		print_message("%s\n", vecs[i].name);
		assert_true(NT_STATUS_IS_OK(xattr_dosattrib_pull(b, n, &x)));
		assert_int_equal(xattr_dosattrib_push(&x, out, sizeof(out)), n);
		assert_memory_equal(out, b, n);
	}
}

/* What ringsmb writes is what smbd 4.17 writes for the same values. */
static void test_dosattrib__push_v5(void **state)
{
	struct xattr_dosattrib x = {
		.version = 5,
		.valid_flags = XATTR_DOSINFO_ATTRIB | XATTR_DOSINFO_CREATE_TIME,
		.attrib = 0x27,
		.create_time = CT,
	};
	uint8_t want[XATTR_DOSATTRIB_V5_SIZE];
	uint8_t out[XATTR_DOSATTRIB_V5_SIZE];
	size_t i;

	(void)state;
	unhex(vecs[1].hex, want, sizeof(want));
	assert_int_equal(xattr_dosattrib_push(&x, out, sizeof(out)),
			 XATTR_DOSATTRIB_V5_SIZE);
	assert_memory_equal(out, want, sizeof(want));
	/* every shorter buffer: nothing */
	for (i = 0; i < sizeof(out); i++) {
		assert_int_equal(xattr_dosattrib_push(&x, out, i), 0);
	}
	x.version = 0;
	assert_int_equal(xattr_dosattrib_push(&x, out, sizeof(out)), 0);
	x.version = 6;
	assert_int_equal(xattr_dosattrib_push(&x, out, sizeof(out)), 0);
}

/* The hex string of the versions that carry one is "0x%x". */
static void test_dosattrib__push_hex(void **state)
{
	struct xattr_dosattrib x = { .version = XATTR_DOSATTRIB_HEX_ONLY };
	uint8_t out[16];

	(void)state;
	assert_int_equal(xattr_dosattrib_push(&x, out, sizeof(out)), 4);
	assert_memory_equal(out, "0x0", 4);
	x.attrib = 0xfedcba98;
	assert_int_equal(xattr_dosattrib_push(&x, out, sizeof(out)), 11);
	assert_memory_equal(out, "0xfedcba98", 11);
	x.attrib = 0x1000;
	assert_int_equal(xattr_dosattrib_push(&x, out, sizeof(out)), 7);
	assert_memory_equal(out, "0x1000", 7);
}

/*
 * Every prefix of a value: the hex-only form while it ends within the
 * hex string (Samba reads those too), v2's name without its NUL, else
 * refused; never a read past the end.
 */
static void test_dosattrib__truncations(void **state)
{
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		uint8_t b[XATTR_DOSATTRIB_SIZE_MAX];
		size_t n = unhex(vecs[i].hex, b, sizeof(b));
		size_t hex_end = strlen((const char *)b) + 1;

		for (k = 0; k < n; k++) {
			struct xattr_dosattrib x;
			uint8_t *g = guard_dup(b, k);
			NTSTATUS st = xattr_dosattrib_pull(g, k, &x);

			if (k <= hex_end && k > 0 && b[0] == '0') {
				assert_true(NT_STATUS_IS_OK(st));
				assert_int_equal(x.version,
						 XATTR_DOSATTRIB_HEX_ONLY);
			} else if (vecs[i].version == 2 && k > n - 9) {
				assert_true(NT_STATUS_IS_OK(st));
				assert_int_equal(x.name_len, k - (n - 9));
			} else {
				assert_true(NT_STATUS_EQUAL(
					st, NT_STATUS_INVALID_PARAMETER));
			}
			guard_free(g);
		}
	}
}

struct odd {
	const char *name;
	const uint8_t *b;
	size_t len;
	bool ok;
	uint32_t attrib;        /* what Samba 4.17 reported */
};

#define ODD(n, s, ok, a) { n, (const uint8_t *)(s), sizeof(s) - 1, ok, a }

/*
 * Values smbd 4.17 was given by hand: the attributes it reported, or
 * refused (it then reports NORMAL; ringsmb falls back to statx).
 */
static void test_dosattrib__odd_values(void **state)
{
	static const struct odd odds[] = {
		/* the NDR attributes win over the hex string */
		ODD("hex_disagrees", "0x20\0\0\5\0\5\0\0\0\x11\0\0\0\x22\0\0\0"
		    "\x07\x80\xff\x44\xd1\x38\xc1\x01", true, 0x22),
		ODD("hex_no_nul", "0x22", true, 0x22),
		ODD("hex_upper", "0X22\0", true, 0x22),
		ODD("hex_no_prefix", "22\0", true, 0x22),
		ODD("hex_junk", "0x2zz\0", true, 0x2),
		ODD("hex_long", "0x100000022\0", true, 0x22),
		ODD("hex_no_digits", "0x\0", true, 0),
		ODD("level_mismatch", "\0\0\5\0\4\0\0\0\x11\0\0\0\x22\0\0\0"
		    "\x07\x80\xff\x44\xd1\x38\xc1\x01", false, 0),
		ODD("v6", "\0\0\6\0\6\0\0\0\x11\0\0\0\x22\0\0\0"
		    "\x07\x80\xff\x44\xd1\x38\xc1\x01", false, 0),
		ODD("v0xffff", "\0\0\xff\xff\xff\xff\0\0\x22\0\0\0", false, 0),
		ODD("trailing", "\0\0\5\0\5\0\0\0\x11\0\0\0\x22\0\0\0"
		    "\x07\x80\xff\x44\xd1\x38\xc1\x01\xff\xff", true, 0x22),
		ODD("only_version", "\0\0\5\0", false, 0),
		ODD("nul", "\0", false, 0),
		ODD("empty", "", false, 0),
		ODD("ringsmb_rsda", "RSDA\1\0\1\0\x22\0\0\0\0\0\0\0"
		    "\x07\x80\xff\x44\xd1\x38\xc1\x01", false, 0),
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(odds) / sizeof(odds[0]); i++) {
		struct xattr_dosattrib x;
		uint8_t *g = guard_dup(odds[i].b, odds[i].len);
		NTSTATUS st = xattr_dosattrib_pull(g, odds[i].len, &x);

		print_message("%s\n", odds[i].name);
		assert_int_equal(NT_STATUS_IS_OK(st), odds[i].ok);
		if (odds[i].ok) {
			assert_int_equal(x.attrib, odds[i].attrib);
		}
		guard_free(g);
	}
}

/* A creation time past INT64_MAX is none (Samba 4.17 reports 0). */
static void test_dosattrib__meaning_bad_time(void **state)
{
	struct xattr_dosattrib x = {
		.version = 5,
		.valid_flags = XATTR_DOSINFO_CREATE_TIME,
		.attrib = 0x22,
		.create_time = UINT64_MAX,
	};
	uint32_t a = 0;
	uint64_t ct = 1;

	(void)state;
	xattr_dosattrib_meaning(&x, &a, &ct);
	assert_int_equal(a, 0x22);
	assert_int_equal(ct, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_dosattrib__samba_vectors),
		T(test_dosattrib__old_fields),
		T(test_dosattrib__push_is_samba_bytes),
		T(test_dosattrib__push_v5),
		T(test_dosattrib__push_hex),
		T(test_dosattrib__truncations),
		T(test_dosattrib__odd_values),
		T(test_dosattrib__meaning_bad_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
