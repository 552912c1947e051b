/*
 * Helpers shared by the test_crypto_* programs (SHARED in
 * tests/unit/wscript links crypto_test_util.c into each), and the
 * vectors more than one of them checks.
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
#ifndef RINGSMB_TESTS_UNIT_CRYPTO_TEST_UTIL_H
#define RINGSMB_TESTS_UNIT_CRYPTO_TEST_UTIL_H

#include "tests/unit/unit.h"

/* got starts with the bytes of hex. */
void assert_hex(const uint8_t *got, const char *hex);

/*
 * [ANATOMY] the 3.1.1 exchange whose preauth hash and keys test_crypto_kdf
 * derives; test_crypto_sign signs the last one (SESSION_SETUP response).
 */
extern const char anatomy_negprot_req[];
extern const char anatomy_negprot_rsp[];
extern const char anatomy_sess_req1[];
extern const char anatomy_sess_rsp1[];
extern const char anatomy_sess_req2[];
extern const char anatomy_sess_rsp2[];

#endif
