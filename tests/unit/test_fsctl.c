/*
 * FSCTL payload codecs (lib/smb2/fsctl_codec.c): every truncation of a
 * valid input under a guard page, lying counts, round trips; among them
 * VALIDATE_NEGOTIATE_INFO and the ResumeKey's FileId (issue 12).  With
 * SMB2_CORPUS_DIR set, test_fsctl_corpus__write writes the vectors out
 * as seeds for tests/fuzz/fuzz_fsctl.c (tests/fuzz/corpus/fsctl/): the
 * first byte of a seed selects the decoder, as in the harness.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tests/unit/unit.h"
#include "lib/smb2/fsctl.h"

#define IS_OK(s) NT_STATUS_IS_OK(s)
#define IS_IP(s) NT_STATUS_EQUAL(s, NT_STATUS_INVALID_PARAMETER)

static const uint8_t key[SMB2_RESUME_KEY_LEN] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
	13, 14, 15, 16, 0, 0, 0, 0, 0, 0, 0, 0,
};

/*
 * VALIDATE_NEGOTIATE_INFO as Windows 8 sends it after a 3.0.2
 * NEGOTIATE: Capabilities 0x7F, its ClientGuid, signing enabled,
 * dialects 2.0.2, 2.1, 3.0, 3.0.2.
 */
static const uint8_t vneg_req[32] = {
	0x7f, 0x00, 0x00, 0x00,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x01, 0x00, 0x04, 0x00,
	0x02, 0x02, 0x10, 0x02, 0x00, 0x03, 0x02, 0x03,
};

static void test_validate_negotiate__pull(void **state)
{
	struct smb2_validate_negotiate_req v;
	uint8_t *g = guard_dup(vneg_req, sizeof(vneg_req));
	uint8_t back[sizeof(vneg_req)];

	assert_true(IS_OK(smb2_validate_negotiate_req_pull(
		g, sizeof(vneg_req), &v)));
	assert_int_equal(v.capabilities, 0x7f);
	assert_memory_equal(v.guid, vneg_req + 4, 16);
	assert_int_equal(v.security_mode, 1);
	assert_int_equal(v.dialect_count, 4);
	assert_int_equal(smb2_validate_negotiate_dialect(&v, 0), 0x0202);
	assert_int_equal(smb2_validate_negotiate_dialect(&v, 3), 0x0302);
	/* the push gives the same bytes back, and refuses a short buffer */
	assert_int_equal(smb2_validate_negotiate_req_push(&v, back, 31), 0);
	assert_int_equal(smb2_validate_negotiate_req_push(&v, back, 32), 32);
	assert_memory_equal(back, vneg_req, 32);
	guard_free(g);
}

static void test_validate_negotiate__every_truncation(void **state)
{
	struct smb2_validate_negotiate_req v;
	size_t i;

	for (i = 0; i < sizeof(vneg_req); i++) {
		uint8_t *g = guard_dup(vneg_req, i);

		assert_true(IS_IP(smb2_validate_negotiate_req_pull(g, i, &v)));
		guard_free(g);
	}
	assert_true(IS_IP(smb2_validate_negotiate_req_pull(NULL, 0, &v)));
}

static void test_validate_negotiate__counts(void **state)
{
	struct smb2_validate_negotiate_req v;
	uint8_t buf[sizeof(vneg_req) + 6];
	uint8_t *g = NULL;

	/* DialectCount 0: nothing to validate, not a request */
	memcpy(buf, vneg_req, 24);
	buf[22] = 0;
	g = guard_dup(buf, 24);
	assert_true(IS_IP(smb2_validate_negotiate_req_pull(g, 24, &v)));
	guard_free(g);
	/* a count past the end, up to the largest */
	memcpy(buf, vneg_req, sizeof(vneg_req));
	buf[22] = 5;
	g = guard_dup(buf, sizeof(vneg_req));
	assert_true(IS_IP(smb2_validate_negotiate_req_pull(
		g, sizeof(vneg_req), &v)));
	guard_free(g);
	buf[22] = 0xff;
	buf[23] = 0xff;
	g = guard_dup(buf, sizeof(vneg_req));
	assert_true(IS_IP(smb2_validate_negotiate_req_pull(
		g, sizeof(vneg_req), &v)));
	guard_free(g);
	/* bytes after the dialects are ignored */
	memcpy(buf, vneg_req, sizeof(vneg_req));
	memset(buf + sizeof(vneg_req), 0xEE, 6);
	g = guard_dup(buf, sizeof(buf));
	assert_true(IS_OK(smb2_validate_negotiate_req_pull(
		g, sizeof(buf), &v)));
	assert_int_equal(v.dialect_count, 4);
	guard_free(g);
}

static void test_validate_negotiate__rsp(void **state)
{
	static const uint8_t want[SMB2_VNEG_RSP_SIZE] = {
		0x47, 0x00, 0x00, 0x00,
		0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
		0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
		0x03, 0x00, 0x02, 0x03,
	};
	struct smb2_validate_negotiate_rsp r = {
		.capabilities = 0x47, .security_mode = 3, .dialect = 0x0302,
	}, back;
	uint8_t buf[SMB2_VNEG_RSP_SIZE + 1];
	size_t i;

	memcpy(r.guid, want + 4, 16);
	memset(buf, 0x55, sizeof(buf));
	assert_int_equal(smb2_validate_negotiate_rsp_push(&r, buf, 23), 0);
	assert_int_equal(smb2_validate_negotiate_rsp_push(&r, buf, 25), 24);
	assert_memory_equal(buf, want, 24);
	assert_int_equal(buf[24], 0x55);
	assert_true(IS_OK(smb2_validate_negotiate_rsp_pull(buf, 24, &back)));
	assert_memory_equal(&back, &r, sizeof(r));
	for (i = 0; i < 24; i++) {
		uint8_t *g = guard_dup(want, i);

		assert_true(IS_IP(smb2_validate_negotiate_rsp_pull(g, i,
								   &back)));
		guard_free(g);
	}
}

/* Two chunks, as a Windows client sends them */
static size_t two_chunks(uint8_t *buf, size_t len)
{
	static const struct smb2_copychunk ch[2] = {
		{ 0, 4096, 1048576 }, { 1048576, 0x100000000ULL, 17 },
	};

	return smb2_copychunk_copy_push(key, ch, 2, buf, len);
}

static void test_copychunk__pull(void **state)
{
	uint8_t buf[128];
	size_t len = two_chunks(buf, sizeof(buf));
	struct smb2_copychunk_copy cc;
	struct smb2_copychunk ch;
	uint8_t *g = guard_dup(buf, len);

	assert_int_equal(len, 32 + 2 * 24);
	assert_true(IS_OK(smb2_copychunk_copy_pull(g, len, &cc)));
	assert_int_equal(cc.chunk_count, 2);
	assert_memory_equal(cc.source_key, key, 24);
	smb2_copychunk_get(&cc, 1, &ch);
	assert_int_equal(ch.source_offset, 1048576);
	assert_int_equal(ch.target_offset, 0x100000000ULL);
	assert_int_equal(ch.length, 17);
	guard_free(g);
}

static void test_copychunk__every_truncation(void **state)
{
	uint8_t buf[128];
	size_t len = two_chunks(buf, sizeof(buf));
	struct smb2_copychunk_copy cc;
	size_t i;

	for (i = 0; i < len; i++) {
		uint8_t *g = guard_dup(buf, i);

		assert_true(IS_IP(smb2_copychunk_copy_pull(g, i, &cc)));
		guard_free(g);
	}
}

static void test_copychunk__lying_counts(void **state)
{
	uint8_t buf[128];
	size_t len = two_chunks(buf, sizeof(buf));
	struct smb2_copychunk_copy cc;
	static const uint32_t counts[] = { 3, 65535, 0x0AAAAAAB, UINT32_MAX };
	size_t i;

	assert_int_equal(len, 56 + 24);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		uint8_t *g = NULL;

		memcpy(buf + 24, &counts[i], 4);	/* little-endian host */
		g = guard_dup(buf, len);
		assert_true(IS_IP(smb2_copychunk_copy_pull(g, len, &cc)));
		guard_free(g);
	}
}

static void test_copychunk__zero_chunks_and_trailing(void **state)
{
	uint8_t buf[64] = {};
	struct smb2_copychunk_copy cc;
	size_t len = smb2_copychunk_copy_push(key, NULL, 0, buf, sizeof(buf));
	uint8_t *g = guard_dup(buf, len);

	assert_int_equal(len, 32);
	assert_true(IS_OK(smb2_copychunk_copy_pull(g, len, &cc)));
	assert_int_equal(cc.chunk_count, 0);
	guard_free(g);
	/* bytes after the chunks are ignored, as Samba's NDR does */
	g = guard_dup(buf, len + 7);
	assert_true(IS_OK(smb2_copychunk_copy_pull(g, len + 7, &cc)));
	guard_free(g);
}

static void test_copychunk__rsp(void **state)
{
	static const uint8_t want[12] = {
		0x00, 0x01, 0, 0, 0x00, 0x00, 0x10, 0, 0x00, 0x00, 0x00, 0x01,
	};
	struct smb2_copychunk_rsp r = { 256, 1048576, 16777216 }, back;
	uint8_t buf[12];

	assert_int_equal(smb2_copychunk_rsp_push(&r, buf, 11), 0);
	assert_int_equal(smb2_copychunk_rsp_push(&r, buf, 12), 12);
	assert_memory_equal(buf, want, 12);
	assert_true(IS_OK(smb2_copychunk_rsp_pull(buf, 12, &back)));
	assert_int_equal(back.total_bytes_written, 16777216);
	assert_true(IS_IP(smb2_copychunk_rsp_pull(buf, 11, &back)));
}

static void test_resume_key__rsp(void **state)
{
	uint8_t buf[40];

	memset(buf, 0xAA, sizeof(buf));
	assert_int_equal(smb2_resume_key_rsp_push(key, buf, 31), 0);
	assert_int_equal(smb2_resume_key_rsp_push(key, buf, 40), 32);
	assert_memory_equal(buf, key, 24);
	assert_int_equal(buf[24] | buf[25] | buf[26] | buf[27], 0);
	assert_int_equal(buf[32], 0xAA);
}

static void test_resume_key__file_id(void **state)
{
	uint8_t k[SMB2_RESUME_KEY_LEN];
	uint64_t p = 0, v = 0;
	size_t i;

	memset(k, 0xAA, sizeof(k));
	smb2_resume_key_push(0x0102030405060708ULL, 0x1112131415161718ULL,
			     k);
	assert_int_equal(k[0], 0x08);		/* Persistent, LE */
	assert_int_equal(k[8], 0x18);		/* then Volatile */
	for (i = 16; i < sizeof(k); i++) {
		assert_int_equal(k[i], 0);
	}
	smb2_resume_key_pull(k, &p, &v);
	assert_int_equal(p, 0x0102030405060708ULL);
	assert_int_equal(v, 0x1112131415161718ULL);
}

static void test_set_sparse__pull(void **state)
{
	static const uint8_t on = 1, off = 0;
	bool sparse = false;

	assert_true(IS_OK(smb2_set_sparse_pull(NULL, 0, &sparse)));
	assert_true(sparse);
	assert_true(IS_OK(smb2_set_sparse_pull(&off, 1, &sparse)));
	assert_false(sparse);
	assert_true(IS_OK(smb2_set_sparse_pull(&on, 1, &sparse)));
	assert_true(sparse);
}

static void test_ranges__pull_push(void **state)
{
	struct smb2_alloc_range in = { 0x1122334455667788ULL, 4096 }, out;
	struct smb2_zero_data z;
	uint8_t buf[16];
	size_t i;

	assert_int_equal(smb2_alloc_range_push(&in, buf, 15), 0);
	assert_int_equal(smb2_alloc_range_push(&in, buf, 16), 16);
	for (i = 0; i <= 16; i++) {
		uint8_t *g = guard_dup(buf, i);
		NTSTATUS a = smb2_alloc_range_pull(g, i, &out);
		NTSTATUS b = smb2_zero_data_pull(g, i, &z);
		bool full = i == 16;

		assert_true(full ? IS_OK(a) && IS_OK(b) : IS_IP(a) && IS_IP(b));
		guard_free(g);
	}
	assert_int_equal(out.file_offset, in.file_offset);
	assert_int_equal(out.length, 4096);
	assert_int_equal(z.beyond_final_zero, 4096);
}

static void test_compression__pull_push(void **state)
{
	uint8_t buf[2];
	uint16_t f = 7;

	assert_int_equal(smb2_compression_push(2, buf, 1), 0);
	assert_int_equal(smb2_compression_push(2, buf, 2), 2);
	assert_true(IS_OK(smb2_compression_pull(buf, 2, &f)));
	assert_int_equal(f, 2);
	assert_true(IS_IP(smb2_compression_pull(buf, 1, &f)));
	assert_true(IS_IP(smb2_compression_pull(NULL, 0, &f)));
}

static void test_object_id__push(void **state)
{
	struct smb2_object_id oid;
	uint8_t buf[64];

	memset(&oid, 0x5A, sizeof(oid));
	assert_int_equal(smb2_object_id_push(&oid, buf, 63), 0);
	assert_int_equal(smb2_object_id_push(&oid, buf, 64), 64);
	assert_int_equal(buf[63], 0x5A);
}

static size_t two_ifaces(uint8_t *buf, size_t len)
{
	struct smb2_net_iface e[2] = {
		{ .if_index = 1, .link_speed = 1000000000,
		  .family = SMB2_SOCKADDR_INET, .addr = { 127, 0, 0, 1 } },
		{ .if_index = 1, .link_speed = 1000000000,
		  .family = SMB2_SOCKADDR_INET6, .port = 445,
		  .addr = { [15] = 1 }, .scope_id = 3 },
	};

	return smb2_net_iface_push(e, 2, buf, len);
}

static void test_net_iface__push_layout(void **state)
{
	uint8_t buf[2 * SMB2_NET_IFACE_SIZE];
	size_t len = two_ifaces(buf, sizeof(buf));

	assert_int_equal(len, 304);
	assert_int_equal(two_ifaces(buf, 303), 0);
	assert_int_equal(buf[0], 152);				/* Next */
	assert_int_equal(buf[152], 0);
	assert_int_equal(buf[24], 0x02);			/* AF_INET */
	assert_memory_equal(buf + 28, "\x7f\0\0\x01", 4);
	assert_int_equal(buf[152 + 24], 0x17);		/* AF_INET6 */
	assert_int_equal(buf[152 + 26], 0x01);		/* port 445 */
	assert_int_equal(buf[152 + 27], 0xBD);
	assert_int_equal(buf[152 + 47], 1);			/* ::1 */
}

static void test_net_iface__pull_chain(void **state)
{
	uint8_t buf[2 * SMB2_NET_IFACE_SIZE];
	size_t len = two_ifaces(buf, sizeof(buf));
	struct smb2_net_iface e;
	size_t ofs = 0, i;
	uint8_t *g = guard_dup(buf, len);

	assert_true(IS_OK(smb2_net_iface_pull(g, len, &ofs, &e)));
	assert_int_equal(ofs, 152);
	assert_true(IS_OK(smb2_net_iface_pull(g, len, &ofs, &e)));
	assert_int_equal(ofs, len);
	assert_int_equal(e.port, 445);
	assert_int_equal(e.scope_id, 3);
	guard_free(g);
	for (i = 0; i < len; i++) {
		g = guard_dup(buf, i);
		ofs = 0;
		while (ofs < i && IS_OK(smb2_net_iface_pull(g, i, &ofs, &e))) {
		}
		assert_true(ofs < i || i == 0 || ofs == i);
		guard_free(g);
	}
	/* a Next that points back or past the end */
	buf[0] = 8;
	ofs = 0;
	assert_true(IS_IP(smb2_net_iface_pull(buf, len, &ofs, &e)));
	buf[0] = 0; buf[1] = 2;
	ofs = 0;
	assert_true(IS_IP(smb2_net_iface_pull(buf, len, &ofs, &e)));
}

static void write_seed(const char *dir, const char *name, uint8_t sel,
		       const uint8_t *buf, size_t len)
{
	char path[512];
	FILE *f = NULL;

	snprintf(path, sizeof(path), "%s/fsctl", dir);
	if (mkdir(path, 0755) != 0) {
		assert_int_equal(errno, EEXIST);
	}
	snprintf(path, sizeof(path), "%s/fsctl/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(&sel, 1, 1, f), 1);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* SMB2_CORPUS_DIR=tests/fuzz/corpus build/tests/unit/test_fsctl */
static void test_fsctl_corpus__write(void **state)
{
	const char *dir = getenv("SMB2_CORPUS_DIR");
	uint8_t buf[2 * SMB2_NET_IFACE_SIZE];
	size_t len = 0;

	if (dir == NULL) {
		skip();
	}
	len = two_chunks(buf, sizeof(buf));
	write_seed(dir, "copychunk_two", 0, buf, len);
	write_seed(dir, "copychunk_lying", 0, buf, len - 24);
	write_seed(dir, "zero_data", 1, buf + 32, 16);
	write_seed(dir, "alloc_range", 2, buf + 32, 16);
	write_seed(dir, "compression", 3, buf + 32, 2);
	write_seed(dir, "set_sparse", 4, buf, 1);
	len = two_ifaces(buf, sizeof(buf));
	write_seed(dir, "net_iface_two", 5, buf, len);
	write_seed(dir, "vneg_four", 6, vneg_req, sizeof(vneg_req));
	write_seed(dir, "vneg_lying", 6, vneg_req, sizeof(vneg_req) - 2);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_copychunk__pull),
		T(test_copychunk__every_truncation),
		T(test_copychunk__lying_counts),
		T(test_copychunk__zero_chunks_and_trailing),
		T(test_copychunk__rsp),
		T(test_resume_key__rsp),
		T(test_resume_key__file_id),
		T(test_validate_negotiate__pull),
		T(test_validate_negotiate__every_truncation),
		T(test_validate_negotiate__counts),
		T(test_validate_negotiate__rsp),
		T(test_set_sparse__pull),
		T(test_ranges__pull_push),
		T(test_compression__pull_push),
		T(test_object_id__push),
		T(test_net_iface__push_layout),
		T(test_net_iface__pull_chain),
		T(test_fsctl_corpus__write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
