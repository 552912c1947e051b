/*
 * Unit tests for lib/crypto: key derivation, signing,
 * encryption.
 *
 * Published vectors, from Microsoft's Open Specifications blog (the
 * section 4 examples MS-SMB2 points to):
 *  [ANATOMY] "SMB 2 and SMB 3 security in Windows 10: the anatomy of
 *	signing and cryptographic keys" (2017), appendix: 3.0 keys of two
 *	channels; 3.1.1 preauth hash chain, keys and a signed (AES-CMAC)
 *	SESSION_SETUP response.
 *  [ENC30] "Encryption in SMB 3.0: a protocol perspective" (2012):
 *	AES-128-CCM encryption and decryption examples.
 *  [ENC311] "SMB 3.1.1 Encryption in Windows 10" (2015): AES-128-GCM
 *	encryption and decryption examples.
 * Microsoft publishes no vector for HMAC-SHA256 signing, AES-GMAC signing,
 * the AES-256 ciphers or 256-bit key derivation.  Those expected values
 * [XCHECK] were computed with Python's "cryptography" package (OpenSSL),
 * an implementation independent of gnutls, from the published inputs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include "tests/unit/unit.h"
#include "lib/crypto/crypto.h"
#include "lib/crypto/crypto_private.h"
#include "lib/smb2/smb2.h"
#include "lib/smb2/transform.h"
#include "lib/util/byteorder.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static uint8_t *unhex(TALLOC_CTX *ctx, const char *hex, size_t *len)
{
	size_t n = strlen(hex) / 2;
	uint8_t *out = talloc_size(ctx, n == 0 ? 1 : n);
	size_t i = 0;

	assert_non_null(out);
	assert_int_equal(strlen(hex) % 2, 0);
	for (i = 0; i < n; i++) {
		char b[3] = { hex[2 * i], hex[2 * i + 1], 0 };

		out[i] = (uint8_t)strtoul(b, NULL, 16);
	}
	if (len != NULL) {
		*len = n;
	}
	return out;
}

static void assert_hex(const uint8_t *got, const char *hex)
{
	uint8_t *want = NULL;
	size_t n = 0;

	want = unhex(NULL, hex, &n);
	assert_memory_equal(got, want, n);
	talloc_free(want);
}

/* ------------------------------------------------------------------ */
/* Vectors (hex as published; see the header comment for sources)     */

static const char anatomy_negprot_req[] =
	"FE534D4240000100000000000000800000000000000000000100000000000000"
	"FFFE000000000000000000000000000000000000000000000000000000000000"
	"24000500000000003F000000ECD86F326276024F9F7752B89BB33F3A70000000"
	"020000000202100200030203110300000100260000000000010020000100FA49"
	"E6578F1F3A9F4CD3E9CC14A67AA884B3D05844E0E5A118225C15887F32FF0000"
	"0200060000000000020002000100";

static const char anatomy_negprot_rsp[] =
	"FE534D4240000100000000000000010001000000000000000100000000000000"
	"FFFE000000000000000000000000000000000000000000000000000000000000"
	"410001001103020039CBCAF329714942BDCE5D60F09AB3FB2F00000000008000"
	"0000800000008000D8DAE5ADCBAED00109094AB095AED00180004001C0010000"
	"6082013C06062B0601050502A08201303082012CA01A3018060A2B0601040182"
	"3702021E060A2B06010401823702020AA282010C048201084E45474F45585453"
	"010000000000000060000000700000007C7CC0FD06D6362D02DDE1CF343BFE29"
	"2900F49750B4AA97934D9C4296B26E51FD370471B235E15A50DAE15BD5489C87"
	"0000000000000000600000000100000000000000000000005C33530DEAF90D4D"
	"B2EC4AE3786EC3084E45474F4558545303000000010000004000000098000000"
	"7C7CC0FD06D6362D02DDE1CF343BFE295C33530DEAF90D4DB2EC4AE3786EC308"
	"40000000580000003056A05430523027802530233121301F0603550403131854"
	"6F6B656E205369676E696E67205075626C6963204B6579302780253023312130"
	"1F06035504031318546F6B656E205369676E696E67205075626C6963204B6579"
	"010026000000000001002000010060A3C3B95C3C7CCD51EC536648D9B3AC74C4"
	"83CA5B65385A251117BEB30712E50000020004000000000001000200";

static const char anatomy_sess_req1[] =
	"FE534D4240000100000000000100800000000000000000000200000000000000"
	"FFFE000000000000000000000000000000000000000000000000000000000000"
	"19000001010000000000000058004A000000000000000000604806062B060105"
	"0502A03E303CA00E300C060A2B06010401823702020AA22A04284E544C4D5353"
	"500001000000978208E200000000000000000000000000000000060380250000"
	"000F";

static const char anatomy_sess_rsp1[] =
	"FE534D4240000100160000C00100010001000000000000000200000000000000"
	"FFFE000000000000190000000010000000000000000000000000000000000000"
	"090000004800B300A181B03081ADA0030A0101A10C060A2B0601040182370202"
	"0AA281970481944E544C4D53535000020000000C000C003800000015828AE20D"
	"1D8BA31179D008000000000000000050005000440000000A0092270000000F53"
	"005500540033003100310002000C0053005500540033003100310001000C0053"
	"005500540033003100310004000C0053005500540033003100310003000C0053"
	"005500540033003100310007000800A1A1F5ADCBAED00100000000";

static const char anatomy_sess_req2[] =
	"FE534D4240000100000000000100800000000000000000000300000000000000"
	"FFFE000000000000190000000010000000000000000000000000000000000000"
	"1900000101000000000000005800CF010000000000000000A18201CB308201C7"
	"A0030A0101A28201AA048201A64E544C4D535350000300000018001800900000"
	"00EE00EE00A80000000C000C00580000001A001A0064000000120012007E0000"
	"001000100096010000158288E2060380250000000FECAC77A5F385A8BF9C38C7"
	"06EEEDDCD3530055005400330031003100610064006D0069006E006900730074"
	"007200610074006F007200440052004900560045005200330031003100000000"
	"00000000000000000000000000000000000000000063078EB639FE03E20A231C"
	"3AE3BF23080101000000000000A1A1F5ADCBAED001BC4AD05F223CC90F000000"
	"0002000C0053005500540033003100310001000C005300550054003300310031"
	"0004000C0053005500540033003100310003000C005300550054003300310031"
	"0007000800A1A1F5ADCBAED00106000400020000000800300030000000000000"
	"000000000000300000B61FEFCAA857EA57BF1EDCEBF8974B8E0EBA5A6DFD9D07"
	"A31D11B548F8C9D0CC0A00100000000000000000000000000000000000090016"
	"0063006900660073002F00530055005400330031003100000000000000000000"
	"0000003B9BDFF38F5EE8F9663F11A0F4C03A78A31204100100000063775A9A5F"
	"D97F0600000000";

static const char anatomy_sess_rsp2[] =
	"FE534D4240000100000000000100800009000000000000000300000000000000"
	"FFFE0000000000001900000000100000EBE146DA120BA25FC3376A49DFE31BC1"
	"0900000048001D00A11B3019A0030A0100A3120410010000003B453CDC352416"
	"4200000000";

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
 * so that its next nonce is the published one.  two_steps: prepare (the
 * loop thread's half) and seal (a pool thread's) on their own. */
static void gcm311_encrypt(TALLOC_CTX *mem_ctx, bool two_steps)
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

	msg.iov_base = plain;
	if (!two_steps) {
		assert_int_equal(smb2_encrypt(gcm, key, 16, tf, &msg, 1,
					      0x100000000025ULL, &ng), 0);
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
	gcm311_encrypt(*state, false);
}

static void test_seal__gcm311_two_steps(void **state)
{
	gcm311_encrypt(*state, true);
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

/* ------------------------------------------------------------------ */

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
		T(test_sign__cmac_anatomy),
		T(test_sign__hmac_sha256),
		T(test_sign__gmac),
		T(test_sign__gmac_cancel_nonce),
		T(test_sign__negative),
		T(test_sign__iov_split),
		T(test_seal__ccm30_encrypt),
		T(test_seal__ccm30_decrypt),
		T(test_seal__gcm311_encrypt),
		T(test_seal__gcm311_two_steps),
		T(test_seal__gcm311_decrypt),
		T(test_seal__aes256),
		T(test_seal__bad_tag),
		T(test_seal__wrong_key),
		T(test_seal__rejects),
		T(test_seal__nonce_unique),
		T(test_seal__roundtrip_large),
		T(test_secret__keys_wipe),
		T(test_secret__talloc_destructor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
