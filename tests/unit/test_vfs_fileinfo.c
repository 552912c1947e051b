/*
 * The information classes the VFS answers with (lib/smb2/fileinfo.c):
 * QUERY_INFO and QUERY_DIRECTORY encoders, the name matcher and the
 * SET_INFO buffer decoder.
 */
#include <string.h>
#include "tests/unit/unit.h"
#include "lib/util/byteorder.h"
/*
 * The encoders are pure and depend on nothing but headers; test them
 * from source (h2o's t/00unit style) so this binary needs no ringsmb-smb2.
 */
#include "lib/smb2/fileinfo.c"

/* ---- information classes ---- */

static const struct smb2_file_meta sample_meta = {
	.create_time = 0x0102030405060708ULL,
	.access_time = 0x1112131415161718ULL,
	.write_time = 0x2122232425262728ULL,
	.change_time = 0x3132333435363738ULL,
	.attributes = SMB2_FILE_ATTRIBUTE_ARCHIVE,
	.allocation_size = 4096,
	.end_of_file = 1234,
	.nlink = 1,
	.file_id = 0xAABBCCDDEEFF0011ULL,
	.access_mask = 0x00120089,
	.mode = 0x20,
};

static const uint8_t name_x[] = { '\\', 0, 'x', 0 };

static void test_fileinfo__basic_exact(void **state)
{
	static const uint8_t want[40] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,
		0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,
		0x38, 0x37, 0x36, 0x35, 0x34, 0x33, 0x32, 0x31,
		0x20, 0, 0, 0, 0, 0, 0, 0,
	};
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_BASIC_INFORMATION, &sample_meta, NULL,
		65536, &out, &len)));
	assert_int_equal(len, 40);
	assert_memory_equal(out, want, 40);
	talloc_free(out);
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, SMB2_FILE_BASIC_INFORMATION, &sample_meta, NULL,
		39, &out, &len), NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, SMB2_FILE_BASIC_INFORMATION, &sample_meta, NULL,
		0, &out, &len), NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, 200, &sample_meta, NULL, 65536, &out, &len),
		NT_STATUS_INVALID_INFO_CLASS));
}

static void test_fileinfo__standard_and_small(void **state)
{
	static const uint8_t want[24] = {
		0x00, 0x10, 0, 0, 0, 0, 0, 0,
		0xD2, 0x04, 0, 0, 0, 0, 0, 0,
		1, 0, 0, 0, 0, 0, 0, 0,
	};
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_STANDARD_INFORMATION, &sample_meta, NULL,
		24, &out, &len)));
	assert_int_equal(len, 24);
	assert_memory_equal(out, want, 24);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_INTERNAL_INFORMATION, &sample_meta, NULL,
		8, &out, &len)));
	assert_int_equal(len, 8);
	assert_int_equal(pull_le64(out), 0xAABBCCDDEEFF0011ULL);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_ACCESS_INFORMATION, &sample_meta, NULL,
		4, &out, &len)));
	assert_int_equal(pull_le32(out), 0x00120089);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_ATTRIBUTE_TAG_INFORMATION, &sample_meta,
		NULL, 8, &out, &len)));
	assert_int_equal(len, 8);
	assert_int_equal(pull_le32(out), SMB2_FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(pull_le32(out + 4), 0);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_NETWORK_OPEN_INFORMATION, &sample_meta,
		NULL, 100, &out, &len)));
	assert_int_equal(len, 56);
	assert_int_equal(pull_le64(out + 32), 4096);
	assert_int_equal(pull_le64(out + 40), 1234);
	assert_int_equal(pull_le32(out + 48), SMB2_FILE_ATTRIBUTE_ARCHIVE);
	talloc_free(out);
}

static void test_fileinfo__all_and_overflow(void **state)
{
	struct smb2_name16 name = { .data = name_x, .len = sizeof(name_x) };
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_ALL_INFORMATION, &sample_meta, &name,
		4096, &out, &len)));
	assert_int_equal(len, 104);
	assert_int_equal(pull_le64(out + 0), sample_meta.create_time);
	assert_int_equal(pull_le32(out + 32), SMB2_FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(pull_le64(out + 40), 4096);    /* Standard */
	assert_int_equal(pull_le64(out + 48), 1234);
	assert_int_equal(pull_le32(out + 56), 1);
	assert_int_equal(pull_le64(out + 64), sample_meta.file_id);
	assert_int_equal(pull_le32(out + 72), 0);       /* EaSize */
	assert_int_equal(pull_le32(out + 76), 0x00120089);
	assert_int_equal(pull_le64(out + 80), 0);       /* Position */
	assert_int_equal(pull_le32(out + 88), 0x20);    /* Mode */
	assert_int_equal(pull_le32(out + 92), 0);       /* Alignment */
	assert_int_equal(pull_le32(out + 96), 4);       /* FileNameLength */
	assert_memory_equal(out + 100, name_x, 4);
	talloc_free(out);

	/*
	 * Windows' least buffer is sizeof(FILE_ALL_INFORMATION), 104 with
	 * the name's first WCHAR and padding (smbtorture qfile_buffercheck):
	 * below it INFO_LENGTH_MISMATCH even where the name would be cut.
	 */
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, SMB2_FILE_ALL_INFORMATION, &sample_meta, &name,
		103, &out, &len), NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, SMB2_FILE_ALL_INFORMATION, &sample_meta, &name,
		99, &out, &len), NT_STATUS_INFO_LENGTH_MISMATCH));
}

static void test_fileinfo__stream(void **state)
{
	struct smb2_file_meta dir = sample_meta;
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_STREAM_INFORMATION, &sample_meta, NULL,
		4096, &out, &len)));
	assert_int_equal(len, 38);
	assert_int_equal(pull_le32(out), 0);
	assert_int_equal(pull_le32(out + 4), 14);
	assert_int_equal(pull_le64(out + 8), 1234);
	assert_int_equal(pull_le64(out + 16), 4096);
	assert_memory_equal(out + 24, ":\0:\0$\0D\0A\0T\0A\0", 14);
	talloc_free(out);

	dir.is_dir = true;
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_STREAM_INFORMATION, &dir, NULL, 4096, &out,
		&len)));
	assert_int_equal(len, 0);
	talloc_free(out);
}

static void test_fileinfo__fs_classes(void **state)
{
	static const uint8_t label[] = { 's', 0, 'h', 0 };
	struct smb2_fs_meta fs = {
		.volume_create_time = 0x0102030405060708ULL,
		.serial_number = 0xDEADBEEF,
		.label = { .data = label, .len = sizeof(label) },
		.total_units = 1000, .caller_avail_units = 400,
		.actual_avail_units = 500, .sectors_per_unit = 8,
		.bytes_per_sector = 512, .read_only = true,
	};
	static const uint8_t want_vol[22] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0xEF, 0xBE, 0xAD, 0xDE, 4, 0, 0, 0, 0, 0, 's', 0, 'h', 0,
	};
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_VOLUME_INFORMATION, &fs, 4096, &out, &len)));
	assert_int_equal(len, 22);
	assert_memory_equal(out, want_vol, 22);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_FULL_SIZE_INFORMATION, &fs, 32, &out, &len)));
	assert_int_equal(len, 32);
	assert_int_equal(pull_le64(out), 1000);
	assert_int_equal(pull_le64(out + 8), 400);
	assert_int_equal(pull_le64(out + 16), 500);
	assert_int_equal(pull_le32(out + 24), 8);
	assert_int_equal(pull_le32(out + 28), 512);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_ATTRIBUTE_INFORMATION, &fs, 100, &out, &len)));
	assert_int_equal(len, 20);
	assert_int_equal(pull_le32(out + 4), 255);
	assert_int_equal(pull_le32(out + 8), 8);
	assert_memory_equal(out + 12, "N\0T\0F\0S\0", 8);
	assert_true((pull_le32(out) & 0x00080000) != 0);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_DEVICE_INFORMATION, &fs, 8, &out, &len)));
	assert_int_equal(pull_le32(out), 7);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_SECTOR_SIZE_INFORMATION, &fs, 28, &out,
		&len)));
	assert_int_equal(len, 28);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_SIZE_INFORMATION, &fs, 24, &out, &len)));
	assert_int_equal(pull_le64(out + 8), 400);
	talloc_free(out);
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_VOLUME_INFORMATION, &fs, 17, &out, &len),
		NT_STATUS_INFO_LENGTH_MISMATCH));
	/* below sizeof() with the first WCHAR (24, 16): INFO_LENGTH_MISMATCH */
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_VOLUME_INFORMATION, &fs, 23, &out, &len),
		NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_ATTRIBUTE_INFORMATION, &fs, 15, &out, &len),
		NT_STATUS_INFO_LENGTH_MISMATCH));
	/* above it a cut name: BUFFER_OVERFLOW with what fits */
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_ATTRIBUTE_INFORMATION, &fs, 18, &out, &len),
		NT_STATUS_BUFFER_OVERFLOW));
	assert_int_equal(len, 18);
	talloc_free(out);
	/* no quotas: thresholds 0, defaults "no limit", flags 0 */
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_CONTROL_INFORMATION, &fs, 48, &out, &len)));
	assert_int_equal(len, 48);
	assert_int_equal(pull_le64(out + 16), 0);
	assert_true(pull_le64(out + 24) == UINT64_MAX);
	assert_true(pull_le64(out + 32) == UINT64_MAX);
	assert_int_equal(pull_le32(out + 40), 0);
	talloc_free(out);
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_OBJECT_ID_INFORMATION, &fs, 63, &out, &len),
		NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, 99, &fs, 100, &out, &len),
		NT_STATUS_INVALID_INFO_CLASS));
}

/* ---- directory entries ---- */

static void check_chain(const struct smb2_dirlist *l, size_t fixed,
			size_t name_ofs_len)
{
	size_t ofs = 0, n = 0;

	for (;;) {
		uint32_t next = pull_le32(l->buf + ofs);

		n++;
		assert_int_equal(ofs % 8, 0);
		if (next == 0) {
			break;
		}
		assert_true(next >= fixed);
		ofs += next;
	}
	assert_int_equal(n, l->count);
	assert_int_equal(ofs, l->last);
	assert_int_equal(l->len, ofs + fixed +
			 pull_le32(l->buf + ofs + name_ofs_len));
}

static void test_dirlist__alignment(void **state)
{
	static const uint8_t classes[] = {
		SMB2_FILE_DIRECTORY_INFORMATION,
		SMB2_FILE_FULL_DIRECTORY_INFORMATION,
		SMB2_FILE_BOTH_DIRECTORY_INFORMATION,
		SMB2_FILE_NAMES_INFORMATION,
		SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION,
		SMB2_FILE_ID_FULL_DIRECTORY_INFORMATION,
	};
	static const uint8_t fixed[] = { 64, 68, 94, 12, 104, 80 };
	static const uint8_t name[] = { 'a', 0, 'b', 0, 'c', 0 };
	uint8_t *buf = talloc_size(*state, 4096);
	size_t c;

	for (c = 0; c < sizeof(classes); c++) {
		struct smb2_dirlist l;
		struct smb2_name16 n = { .data = name };
		size_t k;

		assert_int_equal(smb2_dirent_fixed_size(classes[c]),
				 fixed[c]);
		smb2_dirlist_init(&l, classes[c], buf, 4096);
		for (k = 1; k <= 3; k++) {
			n.len = 2 * k;
			assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
		}
		check_chain(&l, fixed[c],
			    classes[c] == SMB2_FILE_NAMES_INFORMATION ? 8 : 60);
		/* the name is last in every entry */
		assert_memory_equal(l.buf + l.last + fixed[c], name, 6);
	}
	talloc_free(buf);
}

static void test_dirlist__exact_fields_and_truncation(void **state)
{
	static const uint8_t name[] = { 'a', 0 };
	struct smb2_name16 n = { .data = name, .len = 2 };
	uint8_t *buf = talloc_size(*state, 256);
	struct smb2_dirlist l;

	/* IdBoth: one entry fits exactly in 106 bytes, a second does not */
	smb2_dirlist_init(&l, SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION, buf,
			  106);
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_int_equal(l.len, 106);
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_int_equal(l.count, 1);
	assert_int_equal(pull_le32(buf), 0);
	assert_int_equal(pull_le64(buf + 40), 1234);    /* EndOfFile */
	assert_int_equal(pull_le64(buf + 48), 4096);    /* Allocation */
	assert_int_equal(pull_le32(buf + 56), SMB2_FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(pull_le32(buf + 60), 2);
	assert_int_equal(buf[68], 0);                   /* ShortNameLength */
	assert_int_equal(pull_le64(buf + 96), sample_meta.file_id);
	assert_memory_equal(buf + 104, name, 2);

	/* IdExtd (MS-FSCC 2.4.21): 88 fixed bytes, a 128-bit FileId */
	memset(buf, 0xAA, 256);
	smb2_dirlist_init(&l, SMB2_FILE_ID_EXTD_DIRECTORY_INFORMATION, buf,
			  90);
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_int_equal(l.len, 90);
	assert_int_equal(pull_le32(buf + 60), 2);       /* FileNameLength */
	assert_int_equal(pull_le32(buf + 68), 0);       /* ReparsePointTag */
	assert_int_equal(pull_le64(buf + 72), sample_meta.file_id);
	assert_int_equal(pull_le64(buf + 80), 0);
	assert_memory_equal(buf + 88, name, 2);
	smb2_dirlist_init(&l, SMB2_FILE_ID_EXTD_DIRECTORY_INFORMATION, buf,
			  89);
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));

	/* too small for one entry */
	smb2_dirlist_init(&l, SMB2_FILE_DIRECTORY_INFORMATION, buf, 65);
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));
	smb2_dirlist_init(&l, SMB2_FILE_DIRECTORY_INFORMATION, buf, 8);
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));
	/* the second entry needs the padding too: 66 -> 72 + 66 */
	smb2_dirlist_init(&l, SMB2_FILE_DIRECTORY_INFORMATION, buf, 137);
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));
	smb2_dirlist_init(&l, SMB2_FILE_DIRECTORY_INFORMATION, buf, 138);
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_int_equal(pull_le32(buf), 72);
	assert_int_equal(l.len, 138);
	talloc_free(buf);
}

/* ---- name matching ---- */

static void test_match__wildcards(void **state)
{
	struct { const char *p, *n; bool m; } cases[] = {
		{ "*", "anything", true },
		{ "", "anything", true },
		{ "*", ".", true },
		{ "a*", "abc", true },
		{ "a*", "bac", false },
		{ "*.txt", "x.txt", true },
		{ "*.txt", "x.TXT", true },
		{ "*.TXT", "x.txt", true },
		{ "*.txt", "x.txt.bak", false },
		{ "?", "a", true },
		{ "?", "ab", false },
		{ "a?c", "abc", true },
		{ "a?c", "ac", false },
		{ "***a", "ba", true },
		{ "*a*b*c*", "xaybzc", true },
		{ "*a*b*c*", "xaycz", false },
		{ "File.TXT", "file.txt", true },
		{ "file", "file.txt", false },
		{ "<.txt", "a.b.txt", true },
		{ "<", "abc.def", false },
		{ "<.", "abc.", true },
		{ "<", "noext", true },
		{ "a>", "a", true },
		{ "a>", "ab", true },
		{ "a>>>", "ab", true },
		{ "a>.c", "a.c", true },
		{ "a>.c", "ab.c", true },
		{ "a>.c", "abc.c", false },
		{ "a\"", "a", true },
		{ "a\"", "a.", true },
		{ "a\"", "ab", false },
		{ "<\"*", "x.y", true },
		{ "\xc3\xa9*", "\xc3\xa9t\xc3\xa9", true },
		{ "?t?", "\xc3\xa9t\xc3\xa9", true },
		{ "??", "\xc3\xa9", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (smb2_name_match(cases[i].p, cases[i].n) != cases[i].m) {
			fail_msg("pattern \"%s\" name \"%s\": want %d",
				 cases[i].p, cases[i].n, cases[i].m);
		}
	}
	assert_true(smb2_name_has_wildcard("a*"));
	assert_true(smb2_name_has_wildcard("a<"));
	assert_false(smb2_name_has_wildcard("plain.txt"));
}

static void test_match__pathological_is_bounded(void **state)
{
	char *pat = talloc_zero_size(*state, 40001);
	char *name = talloc_zero_size(*state, 256);

	memset(name, 'a', 255);
	memset(pat, '*', 40000);
	assert_true(smb2_name_match(pat, name));
	memset(pat, '>', 40000);        /* too long: matches nothing */
	assert_false(smb2_name_match(pat, name));
	memset(pat, 0, 40001);
	memset(pat, 'a', 255);
	assert_true(smb2_name_match(pat, name));
	talloc_free(pat);
	talloc_free(name);
}

/* ---- SET_INFO buffers (smb2_setinfo_pull) ---- */

static NTSTATUS setinfo_guarded(uint8_t cls, const uint8_t *buf, size_t len,
				struct smb2_setinfo *out)
{
	uint8_t *g = guard_dup(buf, len);
	NTSTATUS status = smb2_setinfo_pull(cls, g, len, out);

	/* out may point into g: callers copy what they check first */
	guard_free(g);
	return status;
}

/* Every prefix shorter than min fails with INFO_LENGTH_MISMATCH. */
static void setinfo_truncations(uint8_t cls, const uint8_t *buf, size_t min)
{
	struct smb2_setinfo in;
	size_t n;

	for (n = 0; n < min; n++) {
		assert_true(NT_STATUS_EQUAL(setinfo_guarded(cls, buf, n, &in),
					    NT_STATUS_INFO_LENGTH_MISMATCH));
	}
}

static void test_setinfo__basic(void **state)
{
	static const uint8_t b[40] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,
		0, 0, 0, 0, 0, 0, 0, 0,
		0x03, 0, 0, 0, 0xAA, 0xAA, 0xAA, 0xAA,
	};
	struct smb2_setinfo in;

	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_BASIC_INFORMATION, b, sizeof(b), &in)));
	assert_int_equal(in.info_class, SMB2_FILE_BASIC_INFORMATION);
	assert_int_equal(in.basic.create_time, 0x0102030405060708ULL);
	assert_int_equal(in.basic.access_time, SMB2_SETINFO_TIME_STOP);
	assert_int_equal(in.basic.write_time, 0x2122232425262728ULL);
	assert_int_equal(in.basic.change_time, 0);
	assert_int_equal(in.basic.attributes, 3);
	/* Windows' structure is 40 bytes: 36 (Samba's minimum) is short */
	setinfo_truncations(SMB2_FILE_BASIC_INFORMATION, b, sizeof(b));
}

static void test_setinfo__fixed_classes(void **state)
{
	static const uint8_t v[9] = { 1, 2, 3, 4, 5, 6, 7, 0x80, 0xEE };
	static const uint8_t classes64[] = {
		SMB2_FILE_END_OF_FILE_INFORMATION,
		SMB2_FILE_ALLOCATION_INFORMATION,
		SMB2_FILE_POSITION_INFORMATION,
	};
	struct smb2_setinfo in;
	size_t i;

	for (i = 0; i < sizeof(classes64); i++) {
		assert_true(NT_STATUS_IS_OK(setinfo_guarded(
			classes64[i], v, 8, &in)));
		assert_int_equal(in.value, 0x8007060504030201ULL);
		/* trailing bytes are ignored */
		assert_true(NT_STATUS_IS_OK(setinfo_guarded(
			classes64[i], v, 9, &in)));
		assert_int_equal(in.value, 0x8007060504030201ULL);
		setinfo_truncations(classes64[i], v, 8);
	}
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_MODE_INFORMATION, v, 4, &in)));
	assert_int_equal(in.flags, 0x04030201);
	setinfo_truncations(SMB2_FILE_MODE_INFORMATION, v, 4);
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_DISPOSITION_INFORMATION_EX, v, 4, &in)));
	assert_int_equal(in.flags, 0x04030201);
	setinfo_truncations(SMB2_FILE_DISPOSITION_INFORMATION_EX, v, 4);
}

static void test_setinfo__disposition(void **state)
{
	static const uint8_t on[1] = { 0x02 };
	static const uint8_t off[1] = { 0x00 };
	struct smb2_setinfo in;

	/* a BOOLEAN: any non-zero byte is TRUE */
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_DISPOSITION_INFORMATION, on, 1, &in)));
	assert_int_equal(in.flags, SMB2_FILE_DISPOSITION_DELETE);
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_DISPOSITION_INFORMATION, off, 1, &in)));
	assert_int_equal(in.flags, 0);
	setinfo_truncations(SMB2_FILE_DISPOSITION_INFORMATION, on, 1);
}

/* ReplaceIfExists 1, RootDirectory 0, "a\b" */
static const uint8_t rename_ab[26] = {
	1, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	6, 0, 0, 0,
	'a', 0, '\\', 0, 'b', 0,
};

static void test_setinfo__rename(void **state)
{
	static const uint8_t classes[] = {
		SMB2_FILE_RENAME_INFORMATION, SMB2_FILE_LINK_INFORMATION,
	};
	struct smb2_setinfo in;
	size_t i, n;

	for (i = 0; i < sizeof(classes); i++) {
		uint8_t *g = guard_dup(rename_ab, sizeof(rename_ab));

		assert_true(NT_STATUS_IS_OK(smb2_setinfo_pull(
			classes[i], g, sizeof(rename_ab), &in)));
		assert_true(in.rename.replace_if_exists);
		assert_int_equal(in.rename.root_directory, 0);
		assert_int_equal(in.rename.name.len, 6);
		assert_ptr_equal(in.rename.name.data, g + 20);
		guard_free(g);
		setinfo_truncations(classes[i], rename_ab, 20);
		/* 20..25 bytes: the fixed part is there, the name is cut */
		for (n = 20; n < sizeof(rename_ab); n++) {
			assert_true(NT_STATUS_EQUAL(
				setinfo_guarded(classes[i], rename_ab, n, &in),
				NT_STATUS_INVALID_PARAMETER));
		}
	}
}

static void test_setinfo__rename_lying_lengths(void **state)
{
	static const uint32_t bad[] = { 0, 1, 5, 7, 8, 0x7FFFFFFF,
					0xFFFFFFFE, 0xFFFFFFFF };
	uint8_t b[sizeof(rename_ab)];
	struct smb2_setinfo in;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(b, rename_ab, sizeof(b));
		push_le32(b + 16, bad[i]);
		assert_true(NT_STATUS_EQUAL(
			setinfo_guarded(SMB2_FILE_RENAME_INFORMATION, b,
					sizeof(b), &in),
			NT_STATUS_INVALID_PARAMETER));
	}
	/* a shorter name than the buffer holds is fine (padding) */
	memcpy(b, rename_ab, sizeof(b));
	push_le32(b + 16, 2);
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_RENAME_INFORMATION, b, sizeof(b), &in)));
	/* RootDirectory is the caller's to refuse: parsed as sent */
	memcpy(b, rename_ab, sizeof(b));
	b[8] = 1;
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_RENAME_INFORMATION, b, sizeof(b), &in)));
	assert_int_equal(in.rename.root_directory, 1);
}

static void test_setinfo__unknown_classes(void **state)
{
	static const uint8_t b[64];
	static const uint8_t classes[] = {
		0, SMB2_FILE_STANDARD_INFORMATION, SMB2_FILE_ALL_INFORMATION,
		SMB2_FILE_FULL_EA_INFORMATION, SMB2_FILE_SHORT_NAME_INFORMATION,
		SMB2_FILE_VALID_DATA_LENGTH_INFORMATION, 0xEE, 0xFF,
	};
	struct smb2_setinfo in;
	size_t i;

	for (i = 0; i < sizeof(classes); i++) {
		assert_true(NT_STATUS_EQUAL(
			smb2_setinfo_pull(classes[i], b, sizeof(b), &in),
			NT_STATUS_INVALID_INFO_CLASS));
		assert_true(NT_STATUS_EQUAL(
			smb2_setinfo_pull(classes[i], NULL, 0, &in),
			NT_STATUS_INVALID_INFO_CLASS));
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fileinfo__basic_exact),
		T(test_fileinfo__standard_and_small),
		T(test_fileinfo__all_and_overflow),
		T(test_fileinfo__stream),
		T(test_fileinfo__fs_classes),
		T(test_dirlist__alignment),
		T(test_dirlist__exact_fields_and_truncation),
		T(test_match__wildcards),
		T(test_match__pathological_is_bounded),
		T(test_setinfo__basic),
		T(test_setinfo__fixed_classes),
		T(test_setinfo__disposition),
		T(test_setinfo__rename),
		T(test_setinfo__rename_lying_lengths),
		T(test_setinfo__unknown_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
