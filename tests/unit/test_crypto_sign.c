/*
 * lib/crypto signing: HMAC-SHA256, AES-CMAC and AES-GMAC over PDUs
 * held in pieces, the CANCEL nonce, bad keys and signatures.
 * Vector sources ([ANATOMY], [ENC30], [ENC311], [XCHECK]):
 * tests/unit/crypto_test_util.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include "tests/unit/crypto_test_util.h"
#include "lib/crypto/crypto.h"
#include "lib/crypto/crypto_private.h"
#include "lib/smb2/smb2.h"
#include "lib/smb2/transform.h"
#include "lib/util/byteorder.h"

/* ------------------------------------------------------------------ */
/* Signing                                                             */

#define SIGN_KEY_311 "73FE7A9A77BEF0BDE49C650D8CCB5F76"

/* A PDU as the daemon holds it: header | body | payload, in 3 pieces. */
static uint8_t *pdu_iov(TALLOC_CTX *ctx, const char *hex,
			struct iovec iov[3])
{
	size_t len = 0;
	uint8_t *p = unhex(ctx, hex, &len);

	assert_true(len > SMB2_HDR_SIZE + 16);
	iov[0] = (struct iovec){ p, SMB2_HDR_SIZE };
	iov[1] = (struct iovec){ p + SMB2_HDR_SIZE, 16 };
	iov[2] = (struct iovec){ p + SMB2_HDR_SIZE + 16,
				 len - SMB2_HDR_SIZE - 16 };
	return p;
}

/* [ANATOMY] the signed final SESSION_SETUP response (AES-CMAC) */
static void test_sign__cmac_anatomy(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *key = unhex(tmp, SIGN_KEY_311, NULL);
	struct iovec iov[3];
	uint8_t *p = pdu_iov(tmp, anatomy_sess_rsp2, iov);
	uint8_t *copy = talloc_memdup(tmp, p, iov[0].iov_len +
				      iov[1].iov_len + iov[2].iov_len);

	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311,
			SMB2_SIGNING_AES_CMAC, key, iov, 3, true), 0);
	/* checking does not touch the message */
	assert_memory_equal(p, copy, talloc_get_size(copy));
	/* 3.0.x always uses AES-CMAC, whatever alg is passed */
	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0300,
			SMB2_SIGNING_AES_GMAC, key, iov, 3, true), 0);

	memset(p + SMB2_HDR_OFS_SIGNATURE, 0, SMB2_SIGNATURE_SIZE);
	push_le32(p + SMB2_HDR_OFS_FLAGS, SMB2_FLAGS_SERVER_TO_REDIR);
	assert_int_equal(smb2_sign_pdu(SMB2_DIALECT_0311,
			SMB2_SIGNING_AES_CMAC, key, iov, 3, true), 0);
	assert_memory_equal(p, copy, talloc_get_size(copy));
	talloc_free(tmp);
}

/* [XCHECK] 2.x HMAC-SHA256 truncated to 16 bytes, same message */
static void test_sign__hmac_sha256(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *key = unhex(tmp, SIGN_KEY_311, NULL);
	struct iovec iov[3];
	uint8_t *p = pdu_iov(tmp, anatomy_sess_rsp2, iov);

	assert_int_equal(smb2_sign_pdu(SMB2_DIALECT_0210,
			SMB2_SIGNING_AES_CMAC, key, iov, 3, true), 0);
	assert_hex(p + SMB2_HDR_OFS_SIGNATURE,
		   "373D8B4AE191DC8C15BE375C5BDAEFCB");
	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0202, 0, key, iov, 3,
					 true), 0);
	/* 3.1.1 may negotiate HMAC-SHA256 in the signing context */
	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311,
			SMB2_SIGNING_HMAC_SHA256, key, iov, 3, true), 0);
	talloc_free(tmp);
}

/* [XCHECK] 3.1.1 AES-GMAC, nonce MessageId 3 | server bit */
static void test_sign__gmac(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *key = unhex(tmp, SIGN_KEY_311, NULL);
	struct iovec iov[3];
	uint8_t *p = pdu_iov(tmp, anatomy_sess_rsp2, iov);

	assert_int_equal(smb2_sign_pdu(SMB2_DIALECT_0311,
			SMB2_SIGNING_AES_GMAC, key, iov, 3, true), 0);
	assert_hex(p + SMB2_HDR_OFS_SIGNATURE,
		   "75D05BAC99FF7FCC52A44C354381D559");
	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311,
			SMB2_SIGNING_AES_GMAC, key, iov, 3, true), 0);
	/* the role bit is in the nonce: the same bytes from a client fail */
	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311,
			SMB2_SIGNING_AES_GMAC, key, iov, 3, false), -EACCES);
	talloc_free(tmp);
}

/* GMAC via the AEAD API: AES-GCM, empty plaintext, message as AAD */
static void gcm_tag(const uint8_t *key, const uint8_t nonce[12],
		    uint8_t *msg, size_t len, uint8_t tag[16])
{
	gnutls_datum_t k = { .data = (uint8_t *)key, .size = 16 };
	gnutls_aead_cipher_hd_t h = NULL;
	struct iovec aad = { msg, len };
	size_t tag_len = 16;

	assert_int_equal(gnutls_aead_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM,
						 &k), 0);
	assert_int_equal(gnutls_aead_cipher_encryptv2(h, nonce, 12, &aad, 1,
						      NULL, 0, tag, &tag_len), 0);
	gnutls_aead_cipher_deinit(h);
}

/* A client's CANCEL sets bit 1 of the nonce's last word (3.1.4.1). */
static void test_sign__gmac_cancel_nonce(void **state)
{
	uint8_t key[16] = { 0x42 };
	uint8_t msg[SMB2_HDR_SIZE + 4] = { 0xFE, 'S', 'M', 'B', 64 };
	uint8_t nonce[12] = { 0 };
	uint8_t tag[16];
	uint8_t want[16];
	struct iovec iov = { msg, sizeof(msg) };

	(void)state;
	push_le16(msg + SMB2_HDR_OFS_COMMAND, SMB2_OP_CANCEL);
	push_le64(msg + SMB2_HDR_OFS_MESSAGE_ID, 0x0102030405060708ULL);
	assert_int_equal(smb2_sign_pdu(SMB2_DIALECT_0311,
			SMB2_SIGNING_AES_GMAC, key, &iov, 1, false), 0);

	push_le64(nonce, 0x0102030405060708ULL);
	push_le32(nonce + 8, 0x00000002);
	memcpy(tag, msg + SMB2_HDR_OFS_SIGNATURE, 16);
	memset(msg + SMB2_HDR_OFS_SIGNATURE, 0, 16);
	gcm_tag(key, nonce, msg, sizeof(msg), want);
	assert_memory_equal(tag, want, 16);
}

static void test_sign__negative(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *key = unhex(tmp, SIGN_KEY_311, NULL);
	uint8_t bad_key[16] = { 0 };
	struct iovec iov[3];
	uint8_t *p = pdu_iov(tmp, anatomy_sess_rsp2, iov);
	static const size_t flip[] = { 0, SMB2_HDR_OFS_FLAGS,
				       SMB2_HDR_OFS_SIGNATURE + 15,
				       SMB2_HDR_SIZE + 3, 100 };
	size_t i = 0;

	for (i = 0; i < sizeof(flip) / sizeof(flip[0]); i++) {
		p[flip[i]] ^= 0x01;
		assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311,
				SMB2_SIGNING_AES_CMAC, key, iov, 3, true),
				-EACCES);
		p[flip[i]] ^= 0x01;
	}
	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311,
			SMB2_SIGNING_AES_CMAC, bad_key, iov, 3, true), -EACCES);
	/* a dropped trailing byte (compound padding) matters too */
	iov[2].iov_len--;
	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311,
			SMB2_SIGNING_AES_CMAC, key, iov, 3, true), -EACCES);
	iov[2].iov_len++;
	/* bad arguments */
	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311, 3, key, iov, 3,
					 true), -EINVAL);
	assert_int_equal(smb2_sign_check(0x0201, 1, key, iov, 3, true),
			 -EINVAL);
	assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311, 1, key, iov, 0,
					 true), -EINVAL);
	iov[0].iov_len = SMB2_HDR_SIZE - 1;
	assert_int_equal(smb2_sign_pdu(SMB2_DIALECT_0311, 1, key, iov, 3,
				       true), -EINVAL);
	talloc_free(tmp);
}

/* The same bytes give the same signature however they are split, and
 * signing sets SMB2_FLAGS_SIGNED. */
static void test_sign__iov_split(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t key[16] = { 9 };
	uint8_t *a = talloc_zero_size(tmp, 4096 + SMB2_HDR_SIZE);
	uint8_t *b = NULL;
	struct iovec one = { a, 4096 + SMB2_HDR_SIZE };
	struct iovec many[4];
	size_t i = 0;

	for (i = SMB2_HDR_SIZE; i < one.iov_len; i++) {
		a[i] = (uint8_t)(i * 7);
	}
	b = talloc_memdup(tmp, a, one.iov_len);
	many[0] = (struct iovec){ b, SMB2_HDR_SIZE + 1 };
	many[1] = (struct iovec){ b + SMB2_HDR_SIZE + 1, 0 };
	many[2] = (struct iovec){ b + SMB2_HDR_SIZE + 1, 1000 };
	many[3] = (struct iovec){ b + SMB2_HDR_SIZE + 1001, 3095 };
	for (i = 0; i < 3; i++) {
		uint16_t alg = (uint16_t)i;

		assert_int_equal(smb2_sign_pdu(SMB2_DIALECT_0311, alg, key,
					       &one, 1, true), 0);
		assert_int_equal(smb2_sign_pdu(SMB2_DIALECT_0311, alg, key,
					       many, 4, true), 0);
		assert_memory_equal(a, b, one.iov_len);
		assert_true(pull_le32(a + SMB2_HDR_OFS_FLAGS) &
			    SMB2_FLAGS_SIGNED);
		assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311, alg, key,
						 many, 4, true), 0);
	}
	talloc_free(tmp);
}

/*
 * Each thread caches the cipher contexts of its last 8 keys
 * (lib/crypto/aead_cache.c): twelve keys in turn, twice, and a wipe in
 * between must give every key its own signature each time, and the
 * published one for the vector's key after all that eviction.
 */
static void test_sign__gmac_key_cache(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *key = unhex(tmp, SIGN_KEY_311, NULL);
	uint8_t keys[12][SMB2_SIGNING_KEY_SIZE];
	uint8_t first[12][SMB2_SIGNATURE_SIZE];
	struct smb2_keys wiped = {};
	struct iovec iov[3];
	uint8_t *p = pdu_iov(tmp, anatomy_sess_rsp2, iov);
	int i, j, pass;

	for (i = 0; i < 12; i++) {
		memcpy(keys[i], key, SMB2_SIGNING_KEY_SIZE);
		keys[i][0] ^= (uint8_t)(i + 1);
	}
	for (pass = 0; pass < 3; pass++) {
		for (j = 0; j < 12; j++) {
			/* the second pass backwards: hits, then evictions */
			i = pass == 1 ? 11 - j : j;
			assert_int_equal(smb2_sign_pdu(SMB2_DIALECT_0311,
					SMB2_SIGNING_AES_GMAC, keys[i], iov, 3,
					true), 0);
			if (pass == 0) {
				memcpy(first[i], p + SMB2_HDR_OFS_SIGNATURE,
				       SMB2_SIGNATURE_SIZE);
				if (i > 0) {
					assert_memory_not_equal(first[i],
						first[i - 1],
						SMB2_SIGNATURE_SIZE);
				}
			} else {
				assert_memory_equal(first[i],
					p + SMB2_HDR_OFS_SIGNATURE,
					SMB2_SIGNATURE_SIZE);
			}
			assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311,
					SMB2_SIGNING_AES_GMAC, keys[i], iov, 3,
					true), 0);
			assert_int_equal(smb2_sign_check(SMB2_DIALECT_0311,
					SMB2_SIGNING_AES_GMAC,
					keys[(i + 1) % 12], iov, 3, true),
					-EACCES);
		}
		smb2_keys_wipe(&wiped);  /* every cached context goes */
	}
	assert_int_equal(smb2_sign_pdu(SMB2_DIALECT_0311,
			SMB2_SIGNING_AES_GMAC, key, iov, 3, true), 0);
	assert_hex(p + SMB2_HDR_OFS_SIGNATURE,
		   "75D05BAC99FF7FCC52A44C354381D559");
	talloc_free(tmp);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_sign__cmac_anatomy),
		T(test_sign__hmac_sha256),
		T(test_sign__gmac),
		T(test_sign__gmac_cancel_nonce),
		T(test_sign__negative),
		T(test_sign__iov_split),
		T(test_sign__gmac_key_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
