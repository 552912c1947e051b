/*
 * Unit tests for the TRANSFORM_HEADER codec (lib/smb2/transform.c,
 * MS-SMB2 2.2.41; RELIABILITY.md §1 item 39).
 *
 * The vector is the AES-128-CCM server response of Microsoft's "Encryption
 * in SMB 3.0: a protocol perspective" (see test_crypto.c).
 * With SMB2_CORPUS_DIR set, test_corpus__write also writes fuzz seeds
 * (tests/fuzz/corpus/transform/), encrypted with fuzz_transform's keys.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tests/unit/unit.h"
#include "lib/crypto/crypto.h"
#include "lib/smb2/smb2.h"
#include "lib/smb2/transform.h"
#include "lib/util/byteorder.h"

#define IS_OK(s) NT_STATUS_IS_OK(s)
#define IS_IP(s) NT_STATUS_EQUAL(s, NT_STATUS_INVALID_PARAMETER)

static const uint8_t dec30[] = {
	0xFD, 0x53, 0x4D, 0x42, 0xA6, 0x01, 0x55, 0x30, 0xA1, 0x8F, 0x6D, 0x9A,
	0xFF, 0xE2, 0x2A, 0xFA, 0xE8, 0xE6, 0x64, 0x84, 0x86, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x14, 0x00, 0xE4, 0x08, 0x00,
	0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x11, 0x00, 0x00, 0x14,
	0x00, 0xE4, 0x08, 0x00, 0xDB, 0xF4, 0x64, 0x35, 0xC5, 0xF1, 0x41, 0x69,
	0x29, 0x3C, 0xE0, 0x79, 0xE3, 0x44, 0x47, 0x9B, 0xF6, 0x70, 0x22, 0x7E,
	0x49, 0x87, 0x3F, 0x45, 0x86, 0x72, 0xC3, 0x09, 0x8D, 0xAC, 0x46, 0x7D,
	0xD5, 0x80, 0x9F, 0x36, 0x9D, 0x67, 0x40, 0x91, 0x66, 0x51, 0x57, 0x87,
	0x14, 0x83, 0xE0, 0x1F, 0x7B, 0xEC, 0xD0, 0x20, 0x64, 0xEA, 0xC3, 0xE2,
	0x35, 0xF9, 0x13, 0x66, 0x8B, 0xBC, 0x2F, 0x09, 0x79, 0x80, 0xD4, 0xB3,
	0x78, 0xF1, 0x99, 0x3E, 0xFF, 0x6E, 0x60, 0xD1, 0x77, 0x30, 0x9E, 0x5B,
};

static NTSTATUS pull_guarded(const uint8_t *buf, size_t len,
			     struct smb2_transform_hdr *t, size_t *consumed)
{
	uint8_t *g = guard_dup(buf, len);
	NTSTATUS status = smb2_transform_pull(g, len, t, consumed);

	/* t->msg points into g: compare before it goes */
	if (IS_OK(status)) {
		assert_memory_equal(t->msg, buf + SMB2_TRANSFORM_HDR_SIZE,
				    t->msg_size);
	}
	guard_free(g);
	return status;
}

static void test_transform__vector(void **state)
{
	struct smb2_transform_hdr t;
	size_t consumed = 0;

	(void)state;
	assert_true(IS_OK(pull_guarded(dec30, sizeof(dec30), &t, &consumed)));
	assert_int_equal(t.msg_size, 0x50);
	assert_int_equal(t.flags, SMB2_TRANSFORM_FLAG_ENCRYPTED);
	assert_true(t.session_id == 0x0008E40014000011ULL);
	assert_memory_equal(t.signature, dec30 + 4, 16);
	assert_memory_equal(t.nonce, dec30 + 20, 16);
	assert_int_equal(consumed, sizeof(dec30));
}

/* (a) every truncation, each against a guard page */
static void test_transform__truncations(void **state)
{
	struct smb2_transform_hdr t;
	size_t len = 0;

	(void)state;
	for (len = 0; len < sizeof(dec30); len++) {
		assert_true(IS_IP(pull_guarded(dec30, len, &t, NULL)));
	}
}

static void test_transform__lying_size(void **state)
{
	uint8_t buf[sizeof(dec30) + 5];
	struct smb2_transform_hdr t;
	size_t consumed = 0;
	static const uint32_t bad[] = { 0, sizeof(dec30) - 51, 0xFFFFFFFF,
					0x80000000 };
	size_t i = 0;

	(void)state;
	memcpy(buf, dec30, sizeof(dec30));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		push_le32(buf + SMB2_TF_OFS_MSG_SIZE, bad[i]);
		assert_true(IS_IP(pull_guarded(buf, sizeof(dec30), &t, NULL)));
	}
	/* trailing bytes are not part of the message: the caller decides */
	memcpy(buf, dec30, sizeof(dec30));
	assert_true(IS_OK(pull_guarded(buf, sizeof(buf), &t, &consumed)));
	assert_int_equal(consumed, sizeof(dec30));
	push_le32(buf + SMB2_TF_OFS_MSG_SIZE, 1);
	assert_true(IS_OK(pull_guarded(buf, sizeof(buf), &t, &consumed)));
	assert_int_equal(consumed, SMB2_TRANSFORM_HDR_SIZE + 1);
}

static void test_transform__wrong_fields(void **state)
{
	static const uint16_t flags[] = { 0, 2, 0x0101, 0x8001, 0xFFFF };
	static const uint8_t ids[][4] = { { 0xFE, 'S', 'M', 'B' },
					  { 0xFC, 'S', 'M', 'B' },
					  { 0xFD, 's', 'M', 'B' } };
	uint8_t buf[sizeof(dec30)];
	struct smb2_transform_hdr t;
	size_t i = 0;

	(void)state;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		memcpy(buf, dec30, sizeof(buf));
		push_le16(buf + SMB2_TF_OFS_FLAGS, flags[i]);
		assert_true(IS_IP(pull_guarded(buf, sizeof(buf), &t, NULL)));
	}
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		memcpy(buf, dec30, sizeof(buf));
		memcpy(buf, ids[i], 4);
		assert_true(IS_IP(pull_guarded(buf, sizeof(buf), &t, NULL)));
	}
	/* Reserved is not checked (MS-SMB2: ignored on receipt) */
	memcpy(buf, dec30, sizeof(buf));
	push_le16(buf + SMB2_TF_OFS_RESERVED, 0xABCD);
	assert_true(IS_OK(pull_guarded(buf, sizeof(buf), &t, NULL)));
}

static void test_transform__push_roundtrip(void **state)
{
	struct smb2_transform_hdr t;
	struct smb2_transform_hdr u;
	uint8_t buf[SMB2_TRANSFORM_HDR_SIZE + 3] = { 0 };

	(void)state;
	assert_true(IS_OK(smb2_transform_pull(dec30, sizeof(dec30), &t,
					      NULL)));
	smb2_transform_push(&t, buf);
	assert_memory_equal(buf, dec30, SMB2_TRANSFORM_HDR_SIZE);
	t.msg_size = 3;
	t.session_id = 0x1122334455667788ULL;
	smb2_transform_push(&t, buf);
	assert_true(IS_OK(smb2_transform_pull(buf, sizeof(buf), &u, NULL)));
	assert_int_equal(u.msg_size, 3);
	assert_true(u.session_id == 0x1122334455667788ULL);
	assert_ptr_equal(u.msg, buf + SMB2_TRANSFORM_HDR_SIZE);
}

/* Pull, then decrypt: the two layers agree on the header. */
static void test_transform__pull_then_decrypt(void **state)
{
	static const uint8_t key[16] = { 0x8F, 0xE2, 0xB5, 0x7E, 0xC3, 0x4D,
		0x2D, 0xB5, 0xB1, 0xA9, 0x72, 0x7F, 0x52, 0x6B, 0xBD, 0xB5 };
	uint8_t buf[sizeof(dec30)];
	struct smb2_transform_hdr t;
	struct iovec iov;

	(void)state;
	memcpy(buf, dec30, sizeof(buf));
	assert_true(IS_OK(smb2_transform_pull(buf, sizeof(buf), &t, NULL)));
	iov.iov_base = (uint8_t *)t.msg;
	iov.iov_len = t.msg_size;
	assert_int_equal(smb2_decrypt(SMB2_ENCRYPTION_AES128_CCM, key, 16, buf,
				      &iov, 1), 0);
	assert_int_equal(pull_le32(buf + SMB2_TRANSFORM_HDR_SIZE),
			 SMB2_PROTOCOL_ID);
}

/* ------------------------------------------------------------------ */
/* Fuzz seeds                                                          */

static void write_seed(const char *dir, const char *name,
		       const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f = NULL;

	snprintf(path, sizeof(path), "%s/transform", dir);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/transform/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* An ECHO response encrypted as fuzz_transform expects. */
static void seed_encrypted(const char *dir, const char *name,
			   uint16_t cipher, const uint8_t *key)
{
	uint8_t buf[SMB2_TRANSFORM_HDR_SIZE + SMB2_HDR_SIZE + 4] = { 0 };
	uint8_t *msg = buf + SMB2_TRANSFORM_HDR_SIZE;
	struct iovec iov = { msg, SMB2_HDR_SIZE + 4 };
	struct smb2_nonce_gen ng;

	push_le32(msg, SMB2_PROTOCOL_ID);
	push_le16(msg + SMB2_HDR_OFS_STRUCTURE_SIZE, SMB2_HDR_SIZE);
	push_le16(msg + SMB2_HDR_OFS_COMMAND, SMB2_OP_ECHO);
	push_le32(msg + SMB2_HDR_OFS_FLAGS, SMB2_FLAGS_SERVER_TO_REDIR);
	push_le16(msg + SMB2_HDR_SIZE, 4);
	assert_int_equal(smb2_nonce_gen_init(&ng), 0);
	assert_int_equal(smb2_encrypt(cipher, key, smb2_cipher_key_len(cipher),
				      buf, &iov, 1, 0x1234, &ng), 0);
	write_seed(dir, name, buf, sizeof(buf));
}

/* SMB2_CORPUS_DIR=tests/fuzz/corpus build-x/tests/unit/test_transform */
static void test_corpus__write(void **state)
{
	static const uint8_t k128gcm[16] = { 0x74, 0x8C, 0x50, 0x86, 0x8C,
		0x90, 0xF3, 0x02, 0x96, 0x2A, 0x5C, 0x35, 0xF5, 0xF9, 0xA8,
		0xBF };
	static const uint8_t k256[32] = { 0x35, 0x95, 0x2F, 0xED, 0x05, 0x1B,
		0xF2, 0x47, 0x1A, 0xF5, 0xF7, 0xAC, 0xC6, 0x36, 0x74, 0xB8,
		0x87, 0xA5, 0x4B, 0x47, 0xAF, 0x46, 0x95, 0x9F, 0x7C, 0xAF,
		0xF1, 0xCE, 0x53, 0x7D, 0x74, 0x19 };
	const char *dir = getenv("SMB2_CORPUS_DIR");

	(void)state;
	if (dir == NULL) {
		skip();
	}
	write_seed(dir, "ms_ccm128_rsp", dec30, sizeof(dec30));
	write_seed(dir, "header_only", dec30, SMB2_TRANSFORM_HDR_SIZE);
	seed_encrypted(dir, "echo_gcm128", SMB2_ENCRYPTION_AES128_GCM,
		       k128gcm);
	seed_encrypted(dir, "echo_ccm256", SMB2_ENCRYPTION_AES256_CCM, k256);
	seed_encrypted(dir, "echo_gcm256", SMB2_ENCRYPTION_AES256_GCM, k256);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_transform__vector),
		T(test_transform__truncations),
		T(test_transform__lying_size),
		T(test_transform__wrong_fields),
		T(test_transform__push_roundtrip),
		T(test_transform__pull_then_decrypt),
		T(test_corpus__write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
