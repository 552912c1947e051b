/*
 * Encryption nonces (MS-SMB2 2.2.41: "MUST NOT be reused for all
 * encrypted messages within a session").
 *
 * A nonce is the 64-bit message counter (little-endian) followed by the
 * generator's random fixed part: 4 bytes for GCM (12-byte nonce), 3 for
 * CCM (11 bytes).  A counter cannot repeat within a generator, and the
 * random part separates generators that share a key by accident.  We use
 * a counter for CCM too: MS-SMB2 leaves the value to the implementation,
 * and random 88-bit nonces would only make reuse unlikely.
 */
#include <errno.h>
#include <string.h>
#include "lib/crypto/crypto.h"
#include "lib/crypto/crypto_private.h"
#include "lib/smb2/smb2.h"
#include "lib/util/byteorder.h"

int smb2_nonce_gen_init(struct smb2_nonce_gen *ng)
{
	memset(ng, 0, sizeof(*ng));
	if (crypto_random(ng->fixed, sizeof(ng->fixed)) != 0) {
		return -EIO;
	}
	ng->ready = true;
	return 0;
}

size_t smb2_cipher_nonce_len(uint16_t cipher_id)
{
	switch (cipher_id) {
	case SMB2_ENCRYPTION_AES128_CCM:
	case SMB2_ENCRYPTION_AES256_CCM:
		return 11;
	case SMB2_ENCRYPTION_AES128_GCM:
	case SMB2_ENCRYPTION_AES256_GCM:
		return 12;
	default:
		return 0;
	}
}

size_t smb2_cipher_key_len(uint16_t cipher_id)
{
	switch (cipher_id) {
	case SMB2_ENCRYPTION_AES128_CCM:
	case SMB2_ENCRYPTION_AES128_GCM:
		return 16;
	case SMB2_ENCRYPTION_AES256_CCM:
	case SMB2_ENCRYPTION_AES256_GCM:
		return 32;
	default:
		return 0;
	}
}

/* nonce: 16 bytes, the Nonce field; bytes past nonce_len stay zero. */
int nonce_next(struct smb2_nonce_gen *ng, size_t nonce_len,
	       uint8_t nonce[16])
{
	if (!ng->ready || nonce_len < 11 || nonce_len > 12) {
		return -EINVAL;
	}
	if (ng->counter == UINT64_MAX) {
		return -EOVERFLOW;
	}
	memset(nonce, 0, 16);
	push_le64(nonce, ng->counter);
	memcpy(nonce + 8, ng->fixed, nonce_len - 8);
	ng->counter++;
	return 0;
}
