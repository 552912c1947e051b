/*
 * lib/crypto key derivation (the SP800-108 KDF, the 3.1.1 preauth
 * hash, 128- and 256-bit keys) and the wiping of keys when they go.
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
/* Key derivation                                                      */

/* [ANATOMY] SMB 3.0, both channels (server view: encrypt is S2C) */
static void test_kdf__smb30_anatomy(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *sk = unhex(tmp, "7CD451825D0450D235424E44BA6E78CC", NULL);
	uint8_t *sk2 = unhex(tmp, "4E01A2B313BCF660CC250BEF021AEDE6", NULL);
	struct smb2_keys k;

	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0300,
			SMB2_ENCRYPTION_AES128_CCM, sk, 16, NULL, &k), 0);
	assert_hex(k.signing, "0B7E9C5CAC36C0F6EA9AB275298CEDCE");
	assert_hex(k.application, "BB23A4575AA26C721AF525AF15A87B4F");
	/* the blog names keys as the client uses them */
	assert_hex(k.encrypt, "B0F0427F7CEB416D1D9DCC0CD4F99447");
	assert_hex(k.decrypt, "FAD27796665B313EBB578F388632B4F7");
	assert_int_equal(k.cipher_key_len, 16);

	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0302, 0, sk2, 16, NULL,
					  &k), 0);
	assert_hex(k.signing, "BA1A17DBBFEC349BCA105563D598952F");
	smb2_keys_wipe(&k);
	talloc_free(tmp);
}

/* [ANATOMY] 3.1.1: the preauth hash over five PDUs, then the keys */
static void test_kdf__smb311_anatomy(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const char *const pdus[] = {
		anatomy_negprot_req, anatomy_negprot_rsp, anatomy_sess_req1,
		anatomy_sess_rsp1, anatomy_sess_req2,
	};
	static const char *const want[] = {
		"DD94EFC5321BB618A2E208BA8920D2F422992526947A409B5037DE1E0FE8"
		"C7362B8C47122594CDE0CE26AA9DFC8BCDBDE0621957672623351A7540F1"
		"E54A0426",
		"324BFA92A4F3A190E466EBEA08D9C110DC88BFED758D9846ECC6F541CC1D"
		"02AE3C94A79F36011E997E13F841B91B50957AD07B19C8E2539C0B23FDAE"
		"09D2C513",
		"AC0B0F2B9986257700365E416D142A6EDC96DF03594A19E52A15F6BD0D04"
		"1CD5D432F8ED42C55E33197A50C9EC00F1462B50C592211B1471A04B5608"
		"8FDFD5F9",
		"2729E3440DFDDD839E37193F6E8F20C20CEFB3469E453A70CD980EEC06B8"
		"835740A73760085633364C8989895ECE81BF102DEEB14D4B7D48AFA76901"
		"A7A38387",
		"0DD13628CC3ED218EF9DF9772D436D0887AB9814BFAE63A80AA845F36909"
		"DB7928622DDDAD522D9751640A459762C5A9D6BB084CBB3CE6BDADEF5D5B"
		"CE3C6C01",
	};
	uint8_t hash[SMB2_PREAUTH_HASH_SIZE] = { 0 };
	uint8_t *sk = unhex(tmp, "270E1BA896585EEB7AF3472D3B4C75A7", NULL);
	struct smb2_keys k;
	size_t i = 0;

	for (i = 0; i < 5; i++) {
		struct iovec iov;

		iov.iov_base = unhex(tmp, pdus[i], &iov.iov_len);
		assert_int_equal(smb2_preauth_update(hash, &iov, 1), 0);
		assert_hex(hash, want[i]);
	}
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0311,
			SMB2_ENCRYPTION_AES128_GCM, sk, 16, hash, &k), 0);
	assert_hex(k.signing, "73FE7A9A77BEF0BDE49C650D8CCB5F76");
	assert_hex(k.application, "6D7AD7954E9EC61E907B4D473DC178FF");
	assert_hex(k.encrypt, "E2AF0DCEFAC68DA71A0DFBD0D1350D74");
	assert_hex(k.decrypt, "629BCBC54422A0F572B97F45989B6073");
	assert_int_equal(k.cipher_key_len, 16);
	smb2_keys_wipe(&k);
	talloc_free(tmp);
}

/* [ENC30] and [ENC311]: the keys of the encryption examples */
static void test_kdf__encryption_blogs(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *sk30 = unhex(tmp, "B4546771B515F766A86735532DD6C4F0", NULL);
	uint8_t *sk311 = unhex(tmp, "419FDDF34C1E001909D362AE7FB6AF79",
			       NULL);
	uint8_t *h = unhex(tmp,
		"B23F3CBFD69487D9832B79B1594A367CDD950909B774C3A4C412B4FCEA9E"
		"DDDBA7DB256BA2EA30E977F11F9B113247578E0E915C6D2A513B8F2FCA57"
		"07DC8770", NULL);
	struct smb2_keys k;

	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0300, 0, sk30, 16,
					  NULL, &k), 0);
	assert_hex(k.decrypt, "261B72350558F2E9DCF613070383EDBF");
	assert_hex(k.encrypt, "8FE2B57EC34D2DB5B1A9727F526BBDB5");
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0311,
			SMB2_ENCRYPTION_AES128_GCM, sk311, 16, h, &k), 0);
	assert_hex(k.decrypt, "A2F5E80E5D59103034F32E52F698E5EC");
	assert_hex(k.encrypt, "748C50868C90F302962A5C35F5F9A8BF");
	smb2_keys_wipe(&k);
	talloc_free(tmp);
}

/* [XCHECK] L = 256 for the AES-256 ciphers; signing stays 128-bit */
static void test_kdf__aes256(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *sk = unhex(tmp, "270E1BA896585EEB7AF3472D3B4C75A7", NULL);
	uint8_t *h = unhex(tmp,
		"0DD13628CC3ED218EF9DF9772D436D0887AB9814BFAE63A80AA845F36909"
		"DB7928622DDDAD522D9751640A459762C5A9D6BB084CBB3CE6BDADEF5D5B"
		"CE3C6C01", NULL);
	static const uint16_t ciphers[] = { SMB2_ENCRYPTION_AES256_CCM,
					    SMB2_ENCRYPTION_AES256_GCM };
	struct smb2_keys k;
	size_t i = 0;

	for (i = 0; i < 2; i++) {
		assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0311,
				ciphers[i], sk, 16, h, &k), 0);
		assert_int_equal(k.cipher_key_len, 32);
		assert_hex(k.signing, "73FE7A9A77BEF0BDE49C650D8CCB5F76");
		assert_hex(k.encrypt, "35952FED051BF2471AF5F7ACC63674B8"
				      "87A54B47AF46959F7CAFF1CE537D7419");
		assert_hex(k.decrypt, "049C27FD8A340262E32C643DEA2BA507"
				      "AF7A4C085FD2505AEFFCBDEAE6D6D8AB");
	}
	smb2_keys_wipe(&k);
	talloc_free(tmp);
}

/* A 32-byte (Kerberos AES-256) key: only the AES-256 cipher keys see
 * all of it; everything else uses its first 16 bytes. */
static void test_kdf__full_session_key(void **state)
{
	uint8_t sk[32];
	uint8_t h[SMB2_PREAUTH_HASH_SIZE] = { 1 };
	struct smb2_keys k16, k32, k256;
	size_t i = 0;

	(void)state;
	for (i = 0; i < sizeof(sk); i++) {
		sk[i] = (uint8_t)i;
	}
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0311,
			SMB2_ENCRYPTION_AES128_GCM, sk, 16, h, &k16), 0);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0311,
			SMB2_ENCRYPTION_AES128_GCM, sk, 32, h, &k32), 0);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0311,
			SMB2_ENCRYPTION_AES256_GCM, sk, 32, h, &k256), 0);
	assert_memory_equal(&k16, &k32, sizeof(k16));
	assert_memory_equal(k256.signing, k16.signing, 16);
	assert_memory_not_equal(k256.encrypt, k16.encrypt, 16);
	/* the whole 32-byte key, with L = 256 */
	assert_int_equal(smb2_kdf(sk, 32, (const uint8_t *)"SMBS2CCipherKey",
				  16, h, sizeof(h), k16.encrypt, 32), 0);
	assert_memory_equal(k256.encrypt, k16.encrypt, 32);
}

static void test_kdf__smb2x(void **state)
{
	uint8_t sk[16] = { 0xAA, 0xBB, 0xCC };
	uint8_t want[16] = { 0xAA, 0xBB, 0xCC };	/* zero-padded */
	struct smb2_keys k;

	(void)state;
	memset(sk + 3, 0x11, sizeof(sk) - 3);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0210, 0, sk, 16, NULL,
					  &k), 0);
	assert_memory_equal(k.signing, sk, 16);
	assert_int_equal(k.cipher_key_len, 0);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0202, 0, sk, 3, NULL,
					  &k), 0);
	assert_memory_equal(k.signing, want, 16);
}

static void test_kdf__rejects(void **state)
{
	static const uint8_t zero[sizeof(struct smb2_keys)];
	uint8_t sk[16] = { 1 };
	uint8_t h[SMB2_PREAUTH_HASH_SIZE] = { 2 };
	struct smb2_keys k;
	uint8_t out[16];

	(void)state;
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_WILDCARD, 0, sk, 16, h,
					  &k), -EINVAL);
	assert_memory_equal(&k, zero, sizeof(k));
	assert_int_equal(smb2_derive_keys(0x0312, 0, sk, 16, h, &k), -EINVAL);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0311, 0, sk, 16, NULL,
					  &k), -EINVAL);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0311, 9, sk, 16, h,
					  &k), -EINVAL);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0300,
			SMB2_ENCRYPTION_AES128_GCM, sk, 16, NULL, &k), -EINVAL);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0300, 0, sk, 0, NULL,
					  &k), -EINVAL);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0300, 0, NULL, 16,
					  NULL, &k), -EINVAL);
	assert_memory_equal(&k, zero, sizeof(k));
	assert_int_equal(smb2_kdf(sk, 0, sk, 1, sk, 1, out, 16), -EINVAL);
	assert_int_equal(smb2_kdf(sk, 16, sk, 1, sk, 1, out, 0), -EINVAL);
}

/* Longer than one PRF block: blocks 1 and 2 differ, block 1 is the
 * same as for a 32-byte output except for L. */
static void test_kdf__multi_block(void **state)
{
	uint8_t key[16] = { 7 };
	uint8_t a[48];
	uint8_t b[48];

	(void)state;
	assert_int_equal(smb2_kdf(key, 16, key, 1, key, 1, a, 48), 0);
	assert_int_equal(smb2_kdf(key, 16, key, 1, key, 1, b, 48), 0);
	assert_memory_equal(a, b, 48);
	assert_memory_not_equal(a, a + 16, 16);
}

/* ------------------------------------------------------------------ */
/* Secrets                                                             */

static void test_secret__keys_wipe(void **state)
{
	static const uint8_t zero[sizeof(struct smb2_keys)];
	uint8_t sk[16] = { 1, 2, 3 };
	struct smb2_keys k;

	(void)state;
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0300, 0, sk, 16, NULL,
					  &k), 0);
	assert_memory_not_equal(&k, zero, sizeof(k));
	smb2_keys_wipe(&k);
	assert_memory_equal(&k, zero, sizeof(k));
}

/* A freed secret leaves zeros behind.  The keys live in a talloc pool so
 * that their memory stays ours (and ASan's view valid) after the free. */
static void test_secret__talloc_destructor(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const uint8_t zero[sizeof(struct smb2_keys)];
	void *pool = talloc_pool(tmp, 4096);
	struct smb2_keys *k = talloc(pool, struct smb2_keys);
	uint8_t *keep = talloc(pool, uint8_t);	/* keeps the pool in use */
	uint8_t sk[16] = { 1, 2, 3 };
	uint8_t *mem = (uint8_t *)k;

	assert_non_null(k);
	assert_non_null(keep);
	crypto_keep_secret(k);
	assert_int_equal(smb2_derive_keys(SMB2_DIALECT_0300, 0, sk, 16, NULL,
					  k), 0);
	talloc_free(k);
	assert_memory_equal(mem, zero, sizeof(zero));
	talloc_free(pool);
	talloc_free(tmp);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_kdf__smb30_anatomy),
		T(test_kdf__smb311_anatomy),
		T(test_kdf__encryption_blogs),
		T(test_kdf__aes256),
		T(test_kdf__full_session_key),
		T(test_kdf__smb2x),
		T(test_kdf__rejects),
		T(test_kdf__multi_block),
		T(test_secret__keys_wipe),
		T(test_secret__talloc_destructor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
