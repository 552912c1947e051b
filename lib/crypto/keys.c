/*
 * A session's keys per dialect (MS-SMB2 3.2.5.3.1, 3.3.5.5.3).
 *
 *	dialect	  signing		 encrypt (S2C) / decrypt (C2S)
 *	2.0.2/2.1 SessionKey		 none
 *	3.0/3.0.2 "SMB2AESCMAC" SmbSign	 "SMB2AESCCM" ServerOut / ServerIn
 *	3.1.1	  "SMBSigningKey" H	 "SMBS2CCipherKey" / "SMBC2SCipherKey" H
 *
 * H is the session's preauth integrity hash.  Labels and contexts
 * include their NUL terminators; "ServerIn " has a trailing space.
 */
#include <errno.h>
#include <string.h>
#include "lib/crypto/crypto_private.h"
#include "lib/smb2/smb2.h"

#define S(x) (const uint8_t *)(x), sizeof(x)	/* with the NUL */

struct kdf_input {
	const uint8_t *key;
	size_t key_len;
	const uint8_t *ctx;	/* NULL: use the fixed 3.0 contexts */
};

static int derive_30(const struct kdf_input *in, struct smb2_keys *out)
{
	const uint8_t *k = in->key;
	size_t kl = in->key_len;

	if (smb2_kdf(k, kl, S("SMB2AESCMAC"), S("SmbSign"), out->signing,
		     SMB2_SIGNING_KEY_SIZE) != 0 ||
	    smb2_kdf(k, kl, S("SMB2APP"), S("SmbRpc"), out->application,
		     SMB2_SIGNING_KEY_SIZE) != 0 ||
	    smb2_kdf(k, kl, S("SMB2AESCCM"), S("ServerOut"), out->encrypt,
		     16) != 0 ||
	    smb2_kdf(k, kl, S("SMB2AESCCM"), S("ServerIn "), out->decrypt,
		     16) != 0) {
		return -EIO;
	}
	out->cipher_key_len = 16;
	return 0;
}

/* full: FullSessionKey for the AES-256 ciphers (3.3.5.5.3 step 11) */
static int derive_311(const struct kdf_input *in,
		      const struct kdf_input *full, size_t cipher_len,
		      struct smb2_keys *out)
{
	const uint8_t *h = in->ctx;
	size_t hl = SMB2_PREAUTH_HASH_SIZE;

	if (smb2_kdf(in->key, in->key_len, S("SMBSigningKey"), h, hl,
		     out->signing, SMB2_SIGNING_KEY_SIZE) != 0 ||
	    smb2_kdf(in->key, in->key_len, S("SMBAppKey"), h, hl,
		     out->application, SMB2_SIGNING_KEY_SIZE) != 0 ||
	    smb2_kdf(full->key, full->key_len, S("SMBS2CCipherKey"), h, hl,
		     out->encrypt, cipher_len) != 0 ||
	    smb2_kdf(full->key, full->key_len, S("SMBC2SCipherKey"), h, hl,
		     out->decrypt, cipher_len) != 0) {
		return -EIO;
	}
	out->cipher_key_len = cipher_len;
	return 0;
}

/* 3.1.1 without negotiated encryption still gets 128-bit keys. */
static size_t cipher_len_311(uint16_t cipher_id)
{
	return cipher_id == 0 ? 16 : smb2_cipher_key_len(cipher_id);
}

static int derive(uint16_t dialect, uint16_t cipher_id,
		  const struct kdf_input *sk, const struct kdf_input *full,
		  struct smb2_keys *out)
{
	size_t clen = 0;

	switch (dialect) {
	case SMB2_DIALECT_0202:
	case SMB2_DIALECT_0210:
		memcpy(out->signing, sk->key, SMB2_SIGNING_KEY_SIZE);
		return 0;
	case SMB2_DIALECT_0300:
	case SMB2_DIALECT_0302:
		/* 3.0.x knows only AES-128-CCM */
		if (cipher_id != 0 && cipher_id != SMB2_ENCRYPTION_AES128_CCM) {
			return -EINVAL;
		}
		return derive_30(sk, out);
	case SMB2_DIALECT_0311:
		clen = cipher_len_311(cipher_id);
		if (clen == 0 || sk->ctx == NULL) {
			return -EINVAL;
		}
		return derive_311(sk, clen == 32 ? full : sk, clen, out);
	default:
		return -EINVAL;
	}
}

int smb2_derive_keys(uint16_t dialect, uint16_t cipher_id,
		     const uint8_t *session_key, size_t session_key_len,
		     const uint8_t *preauth_hash, struct smb2_keys *out)
{
	/* Session.SessionKey: first 16 bytes, right-padded with zeros */
	uint8_t key16[SMB2_SIGNING_KEY_SIZE] = { 0 };
	struct kdf_input sk = { key16, sizeof(key16), preauth_hash };
	struct kdf_input full = { session_key, session_key_len, preauth_hash };
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (session_key == NULL || session_key_len == 0) {
		return -EINVAL;
	}
	memcpy(key16, session_key, session_key_len < sizeof(key16) ?
	       session_key_len : sizeof(key16));
	ret = derive(dialect, cipher_id, &sk, &full, out);
	crypto_wipe(key16, sizeof(key16));
	if (ret != 0) {
		smb2_keys_wipe(out);
	}
	return ret;
}

void smb2_keys_wipe(struct smb2_keys *keys)
{
	crypto_wipe(keys, sizeof(*keys));
	aead_cache_keys_retired();
}

void smb2_signing_key_wipe(uint8_t key[SMB2_SIGNING_KEY_SIZE])
{
	crypto_wipe(key, SMB2_SIGNING_KEY_SIZE);
	aead_cache_keys_retired();
}
