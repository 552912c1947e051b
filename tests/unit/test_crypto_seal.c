/*
 * lib/crypto encryption: AES-128/256 CCM and GCM against published
 * and cross-checked vectors, tampering, wrong keys, nonce uniqueness.
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
/* Vectors (hex as published; see the header comment for sources)     */

static const char enc30_plain[] =
	"FE534D4240000100000000000900400008000000000000000400000000000000"
	"FFFE0000010000001100001400E4080000000000000000000000000000000000"
	"3100700017000000000000000000000015010000390000020100000039020000"
	"00000000000000007000000000000000536D623320656E6372797074696F6E20"
	"74657374696E67";

static const char enc30_transformed[] =
	"FD534D4281A286535415445DAE393921E44FA42E66E69A111892584FB5ED524A"
	"744DA3EE87000000000001001100001400E4080025C8FEE16605A437832D1CD5"
	"2DA9F4645333482A175FE5384563F45FCDAFAEF38BC62BA4D5C62897996625A4"
	"4C29BE5658DE2E6117585779E7B59FFD971278D08580D7FA899E410E910EABF5"
	"AA1DB43050B33B49182637759AC15D84BFCDF5B6B238993C0F4CF4D6012023F6"
	"C627297075D84B7803912D0A9639634453595EF3E33FFE4E7AC2AB";

static const char dec30_transformed[] =
	"FD534D42A6015530A18F6D9AFFE22AFAE8E66484860000000000000011000014"
	"00E4080050000000000001001100001400E40800DBF46435C5F14169293CE079"
	"E344479BF670227E49873F458672C3098DAC467DD5809F369D67409166515787"
	"1483E01F7BECD02064EAC3E235F913668BBC2F097980D4B378F1993EFF6E60D1"
	"77309E5B";

static const char dec30_plain[] =
	"FE534D4240000100000000000900210009000000000000000400000000000000"
	"FFFE0000010000001100001400E4080000000000000000000000000000000000"
	"11000000170000000000000000000000";

static const char enc311_plain[] =
	"FE534D4240000100000000000900010008000000000000000500000000000000"
	"FFFE000001000000250000000010000000000000000000000000000000000000"
	"3100700017000000000000000000000006000000040000000100000004000000"
	"00000000000000007000000000000000536D623320656E6372797074696F6E20"
	"74657374696E67";

static const char enc311_transformed[] =
	"FD534D42BD73D97D2BC9001BCAFAC0FDFF5FEEBCC7D6822D269CAF48904C664C"
	"00000000870000000000010025000000001000006ECDD2A7AFC7B47763057A04"
	"1B8FD4DAFFE990B70C9E09D36C084E02D14EF247F8BDE38ACF6256F8B1D3B56F"
	"77FBDEB312FEA5E92CBCC1ED8FB2EBBFAA75E49A4A394BB44576545567C24D4C"
	"014D47C9FBDFDAFD2C4F9B72F8D256452620A299F48E29E53D6B61D1C13A19E9"
	"1AF013F00D17E3ABC2FC3D36C8C1B6B93973253852DBD442E46EE8";

static const char dec311_transformed[] =
	"FD534D42ACBE1CB7ED343ADF1725EF144D90D4B0E06831DD2E8EB7B400000000"
	"000000005000000000000100250000000010000026BBBF949983A6C1C796559D"
	"0F2C510CB651D1F7B6AC8DED32A2A0B8F2D793A815C6F6B848D69767A215841A"
	"42D400AE6DDB5F0B44173A014973321FDD7950DA6179159B82E03C9E18A050FF"
	"0EA1C967";

static const char dec311_plain[] =
	"FE534D4240000100000000000900010001000000000000000500000000000000"
	"FFFE000001000000250000000010000000000000000000000000000000000000"
	"11000000170000000000000000000000";

static const char xcheck_ccm256_transformed[] =
	"FD534D428B5E371CCF83101E8FF92974D713CA3E0102030405060708090A0B00"
	"0000000087000000000001002500000000100000BC26DA1FF4EF65755F7DCA14"
	"0DB8A707E24DBB31C114C911BB8DBAF250554C3667CB745EC4E675C4E849683B"
	"558F0114ED3945A5B83CC295544B8652DF417872DA5D73B2E55FBCA136BF3500"
	"EC6BDC4CC9D6BDE7111DC807ECBE1D9A5E992DF5C3400E2CF71BC6BF8504B603"
	"E77CB68C5D6DD95DF1228A576D6CAF03FCF46C6A1CC6844C2F02E9";

static const char xcheck_gcm256_transformed[] =
	"FD534D4240FD6292E4D1B906CB6EE651F8EF826B0102030405060708090A0B0C"
	"0000000087000000000001002500000000100000FB791F899321C8ED75BEC833"
	"AD8D997FE47DC5570EACD8CDA76A44D1957CC78D80F2A939A0B0934CBC0CFC84"
	"6AE5E4BCEF1893269E2B28F073FE4C17E2320812EF1BF1227FFD176A309056B2"
	"22D845F6D6C8D37762B23CA051DA8DE0B21E1C6DDEE7195D8A2CBDA3D23E552C"
	"DD59109D538A581CAC0A4976294B435835BC18BC34D1775048D105";

/* ------------------------------------------------------------------ */
/* Encryption                                                          */

/* Compare a transform header + message held apart with a flat vector. */
static void assert_transformed(const uint8_t *tf, const uint8_t *msg,
			       size_t msg_len, const char *hex)
{
	size_t n = 0;
	uint8_t *want = unhex(NULL, hex, &n);

	assert_int_equal(n, SMB2_TRANSFORM_HDR_SIZE + msg_len);
	assert_memory_equal(tf, want, SMB2_TRANSFORM_HDR_SIZE);
	assert_memory_equal(msg, want + SMB2_TRANSFORM_HDR_SIZE, msg_len);
	talloc_free(want);
}

/* Split a flat transform message into header and message iovecs. */
static uint8_t *tf_split(TALLOC_CTX *ctx, const char *hex, struct iovec *msg)
{
	size_t n = 0;
	uint8_t *p = unhex(ctx, hex, &n);

	assert_true(n > SMB2_TRANSFORM_HDR_SIZE);
	msg->iov_base = p + SMB2_TRANSFORM_HDR_SIZE;
	msg->iov_len = n - SMB2_TRANSFORM_HDR_SIZE;
	return p;
}

/* [ENC30] AES-128-CCM, a client's WRITE: the nonce field as Windows sent
 * it (all 16 bytes are AAD), so through seal_hdr. */
static void test_seal__ccm30_encrypt(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *key = unhex(tmp, "261B72350558F2E9DCF613070383EDBF", NULL);
	struct iovec want;
	uint8_t *tf = tf_split(tmp, enc30_transformed, &want);
	struct iovec msg;
	uint8_t *plain = unhex(tmp, enc30_plain, &msg.iov_len);
	struct iovec iov[2] = { { plain, SMB2_HDR_SIZE },
				{ plain + SMB2_HDR_SIZE,
				  msg.iov_len - SMB2_HDR_SIZE } };

	memset(tf + SMB2_TF_OFS_SIGNATURE, 0, 16);
	assert_int_equal(seal_hdr(SMB2_ENCRYPTION_AES128_CCM, key, 16, tf,
				  iov, 2), 0);
	assert_transformed(tf, plain, msg.iov_len, enc30_transformed);
	assert_int_equal(smb2_decrypt(SMB2_ENCRYPTION_AES128_CCM, key, 16, tf,
				      iov, 2), 0);
	assert_hex(plain, enc30_plain);
	talloc_free(tmp);
}

/* [ENC30] the server's response, decrypted by the client */
static void test_seal__ccm30_decrypt(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *key = unhex(tmp, "8FE2B57EC34D2DB5B1A9727F526BBDB5", NULL);
	struct iovec msg;
	uint8_t *tf = tf_split(tmp, dec30_transformed, &msg);

	assert_int_equal(smb2_decrypt(SMB2_ENCRYPTION_AES128_CCM, key, 16, tf,
				      &msg, 1), 0);
	assert_hex(msg.iov_base, dec30_plain);
	talloc_free(tmp);
}

/* [ENC311] AES-128-GCM through the public API: the generator is set up
 * so that its next nonce is the published one.  GCM311_TWO_STEPS: prepare
 * (the loop thread's half) and seal (a pool thread's) on their own;
 * GCM311_TO: sealed out of place, the plaintext left as it was (a
 * read-only mapping) and the published ciphertext in a buffer of its
 * own. */
enum gcm311_how { GCM311_ONE_CALL, GCM311_TWO_STEPS, GCM311_TO };

static void gcm311_encrypt(TALLOC_CTX *mem_ctx, enum gcm311_how how)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	uint8_t *key = unhex(tmp, "A2F5E80E5D59103034F32E52F698E5EC", NULL);
	struct smb2_nonce_gen ng = { .ready = true,
				     .counter = 0x48AF9C262D82D6C7ULL,
				     .fixed = { 0x90, 0x4C, 0x66, 0x4C } };
	uint8_t tf[SMB2_TRANSFORM_HDR_SIZE];
	struct iovec msg;
	uint8_t *plain = unhex(tmp, enc311_plain, &msg.iov_len);
	uint16_t gcm = SMB2_ENCRYPTION_AES128_GCM;
	uint8_t *keep = talloc_memdup(tmp, plain, msg.iov_len);
	uint8_t *out = talloc_size(tmp, msg.iov_len + 16);

	msg.iov_base = plain;
	if (how == GCM311_ONE_CALL) {
		assert_int_equal(smb2_encrypt(gcm, key, 16, tf, &msg, 1,
					      0x100000000025ULL, &ng), 0);
	} else if (how == GCM311_TO) {
		assert_int_equal(smb2_encrypt_prepare(gcm, 16, tf, &msg, 1,
						      0x100000000025ULL, &ng),
				 0);
		assert_int_equal(smb2_encrypt_seal_to(gcm, key, 15, tf, &msg,
						      1, out), -EINVAL);
		assert_int_equal(smb2_encrypt_seal_to(gcm, key, 16, tf, &msg,
						      1, out), 0);
		assert_memory_equal(plain, keep, msg.iov_len);
		plain = out;
	} else {
		/* a bad key length spends no nonce */
		assert_int_equal(smb2_encrypt_prepare(gcm, 32, tf, &msg, 1, 1,
						      &ng), -EINVAL);
		assert_true(ng.counter == 0x48AF9C262D82D6C7ULL);
		assert_int_equal(smb2_encrypt_prepare(gcm, 16, tf, &msg, 1,
						      0x100000000025ULL, &ng),
				 0);
		assert_int_equal(smb2_encrypt_seal(gcm, key, 16, tf, &msg, 1),
				 0);
	}
	assert_transformed(tf, plain, msg.iov_len, enc311_transformed);
	assert_true(ng.counter == 0x48AF9C262D82D6C8ULL);
	talloc_free(tmp);
}

static void test_seal__gcm311_encrypt(void **state)
{
	gcm311_encrypt(*state, GCM311_ONE_CALL);
}

static void test_seal__gcm311_two_steps(void **state)
{
	gcm311_encrypt(*state, GCM311_TWO_STEPS);
}

static void test_seal__gcm311_to(void **state)
{
	gcm311_encrypt(*state, GCM311_TO);
}

static void test_seal__gcm311_decrypt(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *key = unhex(tmp, "748C50868C90F302962A5C35F5F9A8BF", NULL);
	struct iovec msg;
	uint8_t *tf = tf_split(tmp, dec311_transformed, &msg);

	assert_int_equal(smb2_decrypt(SMB2_ENCRYPTION_AES128_GCM, key, 16, tf,
				      &msg, 1), 0);
	assert_hex(msg.iov_base, dec311_plain);
	talloc_free(tmp);
}

#define KEY_256 "35952FED051BF2471AF5F7ACC63674B8" \
		"87A54B47AF46959F7CAFF1CE537D7419"

/* [XCHECK] AES-256-CCM and -GCM: the [ENC311] WRITE under the 256-bit
 * S2C key of [ANATOMY], nonce 01 02 03 ... */
static void test_seal__aes256(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const struct {
		uint16_t cipher;
		const char *vec;
	} v[] = {
		{ SMB2_ENCRYPTION_AES256_CCM, xcheck_ccm256_transformed },
		{ SMB2_ENCRYPTION_AES256_GCM, xcheck_gcm256_transformed },
	};
	uint8_t *key = unhex(tmp, KEY_256, NULL);
	size_t i = 0;

	for (i = 0; i < 2; i++) {
		struct iovec msg;
		uint8_t *plain = unhex(tmp, enc311_plain, &msg.iov_len);
		struct smb2_nonce_gen ng = { .ready = true,
			.counter = 0x0807060504030201ULL,
			.fixed = { 9, 10, 11, 12 } };
		uint8_t tf[SMB2_TRANSFORM_HDR_SIZE];

		msg.iov_base = plain;
		assert_int_equal(smb2_encrypt(v[i].cipher, key, 32, tf, &msg, 1,
					      0x100000000025ULL, &ng), 0);
		assert_transformed(tf, plain, msg.iov_len, v[i].vec);
		assert_int_equal(smb2_decrypt(v[i].cipher, key, 32, tf, &msg,
					      1), 0);
		assert_hex(plain, enc311_plain);
	}
	talloc_free(tmp);
}

static const uint16_t all_ciphers[] = {
	SMB2_ENCRYPTION_AES128_CCM, SMB2_ENCRYPTION_AES128_GCM,
	SMB2_ENCRYPTION_AES256_CCM, SMB2_ENCRYPTION_AES256_GCM,
};

static void is_zero(const uint8_t *p, size_t len)
{
	size_t i = 0;

	for (i = 0; i < len; i++) {
		assert_int_equal(p[i], 0);
	}
}

/* Tamper with one byte of the transform message; -EBADMSG and the
 * decrypted bytes wiped. */
static void tamper_one(uint16_t cipher, const uint8_t *key, size_t ofs)
{
	uint8_t *p = unhex(NULL, dec311_transformed, NULL);
	struct iovec msg = { p + SMB2_TRANSFORM_HDR_SIZE, 80 };
	struct smb2_nonce_gen ng;

	assert_int_equal(smb2_nonce_gen_init(&ng), 0);
	assert_int_equal(smb2_encrypt(cipher, key, smb2_cipher_key_len(cipher),
				      p, &msg, 1, 77, &ng), 0);
	p[ofs] ^= 0x80;
	assert_int_equal(smb2_decrypt(cipher, key, smb2_cipher_key_len(cipher),
				      p, &msg, 1), -EBADMSG);
	is_zero(msg.iov_base, msg.iov_len);
	talloc_free(p);
}

static void test_seal__bad_tag(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const size_t ofs[] = {
		SMB2_TF_OFS_SIGNATURE, SMB2_TF_OFS_SIGNATURE + 15,
		SMB2_TF_OFS_NONCE, SMB2_TF_OFS_NONCE + 15, /* unused, but AAD */
		SMB2_TF_OFS_RESERVED, SMB2_TF_OFS_FLAGS + 1,
		SMB2_TF_OFS_SESSION_ID + 7,
		SMB2_TRANSFORM_HDR_SIZE, SMB2_TRANSFORM_HDR_SIZE + 79,
	};
	uint8_t *key = unhex(tmp, KEY_256, NULL);
	size_t c = 0;
	size_t i = 0;

	for (c = 0; c < 4; c++) {
		for (i = 0; i < sizeof(ofs) / sizeof(ofs[0]); i++) {
			tamper_one(all_ciphers[c], key, ofs[i]);
		}
	}
	talloc_free(tmp);
}

static void test_seal__wrong_key(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *key = unhex(tmp, "748C50868C90F302962A5C35F5F9A8BF", NULL);
	struct iovec msg;
	uint8_t *tf = tf_split(tmp, dec311_transformed, &msg);

	key[0] ^= 1;
	assert_int_equal(smb2_decrypt(SMB2_ENCRYPTION_AES128_GCM, key, 16, tf,
				      &msg, 1), -EBADMSG);
	is_zero(msg.iov_base, msg.iov_len);
	/* right key, wrong cipher */
	key[0] ^= 1;
	tf = tf_split(tmp, dec311_transformed, &msg);
	assert_int_equal(smb2_decrypt(SMB2_ENCRYPTION_AES128_CCM, key, 16, tf,
				      &msg, 1), -EBADMSG);
	talloc_free(tmp);
}

static void test_seal__rejects(void **state)
{
	uint8_t key[32] = { 0 };
	uint8_t tf[SMB2_TRANSFORM_HDR_SIZE] = { 0 };
	uint8_t buf[100] = { 0 };
	struct iovec msg = { buf, sizeof(buf) };
	struct iovec empty = { buf, 0 };
	struct smb2_nonce_gen ng = { 0 };
	struct smb2_nonce_gen fresh;

	(void)state;
	/* an uninitialised generator is refused */
	assert_int_equal(smb2_encrypt(SMB2_ENCRYPTION_AES128_GCM, key, 16, tf,
				      &msg, 1, 1, &ng), -EINVAL);
	assert_int_equal(smb2_nonce_gen_init(&ng), 0);
	fresh = ng;
	assert_int_equal(smb2_encrypt(0, key, 16, tf, &msg, 1, 1, &ng),
			 -EINVAL);
	assert_int_equal(smb2_encrypt(5, key, 16, tf, &msg, 1, 1, &ng),
			 -EINVAL);
	assert_int_equal(smb2_encrypt(SMB2_ENCRYPTION_AES128_GCM, key, 32, tf,
				      &msg, 1, 1, &ng), -EINVAL);
	assert_int_equal(smb2_encrypt(SMB2_ENCRYPTION_AES256_GCM, key, 16, tf,
				      &msg, 1, 1, &ng), -EINVAL);
	assert_int_equal(smb2_encrypt(SMB2_ENCRYPTION_AES256_GCM, key, 32, tf,
				      &empty, 1, 1, &ng), -EINVAL);
	assert_int_equal(smb2_encrypt(SMB2_ENCRYPTION_AES256_GCM, key, 32, tf,
				      &msg, 0, 1, &ng), -EINVAL);
	/* refusals spend no nonce */
	assert_memory_equal(&ng, &fresh, sizeof(ng));
	/* OriginalMessageSize must match what is decrypted */
	assert_int_equal(smb2_encrypt(SMB2_ENCRYPTION_AES256_GCM, key, 32, tf,
				      &msg, 1, 1, &ng), 0);
	msg.iov_len--;
	assert_int_equal(smb2_decrypt(SMB2_ENCRYPTION_AES256_GCM, key, 32, tf,
				      &msg, 1), -EINVAL);
	msg.iov_len++;
	assert_int_equal(smb2_decrypt(SMB2_ENCRYPTION_AES256_GCM, key, 16, tf,
				      &msg, 1), -EINVAL);
	assert_int_equal(smb2_decrypt(SMB2_ENCRYPTION_AES256_GCM, key, 32, tf,
				      &msg, 1), 0);
}

static int cmp_nonce(const void *a, const void *b)
{
	return memcmp(a, b, SMB2_TF_NONCE_SIZE);
}

/* Every message of a session gets a new nonce; a spent counter ends
 * the session rather than wrap. */
static void test_seal__nonce_unique(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	enum { N = 5000 };
	uint8_t (*nonces)[SMB2_TF_NONCE_SIZE] = talloc_size(tmp,
			2 * N * SMB2_TF_NONCE_SIZE);
	uint8_t key[16] = { 3 };
	uint8_t tf[SMB2_TRANSFORM_HDR_SIZE];
	uint8_t buf[64];
	struct iovec msg = { buf, sizeof(buf) };
	struct smb2_nonce_gen a, b;
	size_t i = 0;

	assert_int_equal(smb2_nonce_gen_init(&a), 0);
	assert_int_equal(smb2_nonce_gen_init(&b), 0);
	assert_memory_not_equal(a.fixed, b.fixed, sizeof(a.fixed));
	for (i = 0; i < 2 * N; i++) {
		uint16_t c = i < N ? SMB2_ENCRYPTION_AES128_GCM :
				     SMB2_ENCRYPTION_AES128_CCM;

		assert_int_equal(smb2_encrypt(c, key, 16, tf, &msg, 1, 1,
					      i % 2 ? &a : &b), 0);
		memcpy(nonces[i], tf + SMB2_TF_OFS_NONCE, SMB2_TF_NONCE_SIZE);
		/* CCM uses 11 bytes, GCM 12: the rest stays zero */
		is_zero(tf + SMB2_TF_OFS_NONCE + smb2_cipher_nonce_len(c),
			SMB2_TF_NONCE_SIZE - smb2_cipher_nonce_len(c));
	}
	qsort(nonces, 2 * N, SMB2_TF_NONCE_SIZE, cmp_nonce);
	for (i = 1; i < 2 * N; i++) {
		assert_memory_not_equal(nonces[i - 1], nonces[i],
					SMB2_TF_NONCE_SIZE);
	}
	a.counter = UINT64_MAX;
	assert_int_equal(smb2_encrypt(SMB2_ENCRYPTION_AES128_GCM, key, 16, tf,
				      &msg, 1, 1, &a), -EOVERFLOW);
	assert_true(a.counter == UINT64_MAX);
	talloc_free(tmp);
}

/* A READ response as the daemon builds it: header | body | 1 MiB + 3
 * payload in pieces of odd sizes; encrypted and decrypted in place,
 * with the same result as one flat buffer. */
static void roundtrip_large(TALLOC_CTX *ctx, uint16_t cipher)
{
	const size_t len = SMB2_HDR_SIZE + 16 + (1 << 20) + 3;
	uint8_t *a = talloc_size(ctx, len);
	uint8_t *b = NULL;
	uint8_t key[32] = { 0x5A, 0xA5 };
	uint8_t tfa[SMB2_TRANSFORM_HDR_SIZE];
	uint8_t tfb[SMB2_TRANSFORM_HDR_SIZE];
	struct iovec flat = { a, len };
	struct iovec many[5];
	struct smb2_nonce_gen nga, ngb;
	size_t klen = smb2_cipher_key_len(cipher);
	size_t i = 0;

	for (i = 0; i < len; i++) {
		a[i] = (uint8_t)(i ^ (i >> 8));
	}
	b = talloc_memdup(ctx, a, len);
	many[0] = (struct iovec){ b, SMB2_HDR_SIZE };
	many[1] = (struct iovec){ b + 64, 16 };
	many[2] = (struct iovec){ b + 80, 1 };
	many[3] = (struct iovec){ b + 81, 4097 };
	many[4] = (struct iovec){ b + 4178, len - 4178 };
	assert_int_equal(smb2_nonce_gen_init(&nga), 0);
	ngb = nga;
	assert_int_equal(smb2_encrypt(cipher, key, klen, tfa, &flat, 1, 9,
				      &nga), 0);
	assert_int_equal(smb2_encrypt(cipher, key, klen, tfb, many, 5, 9,
				      &ngb), 0);
	assert_memory_equal(tfa, tfb, sizeof(tfa));
	assert_memory_equal(a, b, len);
	assert_int_equal(pull_le32(tfa + SMB2_TF_OFS_MSG_SIZE), len);
	assert_int_equal(smb2_decrypt(cipher, key, klen, tfb, many, 5), 0);
	for (i = 0; i < len; i++) {
		assert_int_equal(b[i], (uint8_t)(i ^ (i >> 8)));
	}
	talloc_free(a);
	talloc_free(b);
}

static void test_seal__roundtrip_large(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	size_t c = 0;

	for (c = 0; c < 4; c++) {
		roundtrip_large(tmp, all_ciphers[c]);
	}
	talloc_free(tmp);
}

/*
 * Every cipher: out of place over scattered iovecs gives the bytes and
 * tag that in place gives, and decrypts back.
 */
static void test_seal__to_matches_in_place(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	const size_t len = SMB2_HDR_SIZE + 16 + (1 << 20) + 5;
	uint8_t *a = talloc_size(tmp, len);
	uint8_t *b = NULL;
	uint8_t *out = talloc_size(tmp, len + 16);
	uint8_t key[32] = { 0x11, 0x22, 0x33 };
	uint8_t tfa[SMB2_TRANSFORM_HDR_SIZE], tfb[SMB2_TRANSFORM_HDR_SIZE];
	struct iovec flat = { a, len };
	struct iovec many[4];
	struct smb2_nonce_gen ng;
	size_t c, i;

	for (c = 0; c < 4; c++) {
		uint16_t cipher = all_ciphers[c];
		size_t klen = smb2_cipher_key_len(cipher);

		for (i = 0; i < len; i++) {
			a[i] = (uint8_t)(i * 31 + (i >> 12));
		}
		b = talloc_memdup(tmp, a, len);
		many[0] = (struct iovec){ b, SMB2_HDR_SIZE };
		many[1] = (struct iovec){ b + 64, 16 };
		many[2] = (struct iovec){ b + 80, 4099 };
		many[3] = (struct iovec){ b + 4179, len - 4179 };
		assert_int_equal(smb2_nonce_gen_init(&ng), 0);
		assert_int_equal(smb2_encrypt_prepare(cipher, klen, tfa, &flat,
						      1, 7, &ng), 0);
		memcpy(tfb, tfa, sizeof(tfb));
		assert_int_equal(smb2_encrypt_seal_to(cipher, key, klen, tfb,
						      many, 4, out), 0);
		assert_int_equal(smb2_encrypt_seal(cipher, key, klen, tfa,
						   &flat, 1), 0);
		assert_memory_equal(tfa, tfb, sizeof(tfa));
		assert_memory_equal(out, a, len);
		/* b, the plaintext, untouched */
		for (i = 0; i < len; i++) {
			assert_int_equal(b[i], (uint8_t)(i * 31 + (i >> 12)));
		}
		flat.iov_base = out;
		assert_int_equal(smb2_decrypt(cipher, key, klen, tfb, &flat,
					      1), 0);
		assert_memory_equal(out, b, len);
		flat.iov_base = a;
		talloc_free(b);
	}
	talloc_free(tmp);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_seal__ccm30_encrypt),
		T(test_seal__ccm30_decrypt),
		T(test_seal__gcm311_encrypt),
		T(test_seal__gcm311_two_steps),
		T(test_seal__gcm311_to),
		T(test_seal__to_matches_in_place),
		T(test_seal__gcm311_decrypt),
		T(test_seal__aes256),
		T(test_seal__bad_tag),
		T(test_seal__wrong_key),
		T(test_seal__rejects),
		T(test_seal__nonce_unique),
		T(test_seal__roundtrip_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
