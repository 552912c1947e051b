/*
 * SMB2/3 cryptography (MS-SMB2 3.1.4): preauth integrity hash, the
 * SP800-108 key derivation, signing and encryption.  Built on gnutls.
 * docs/crypto.md has the key table and the nonce policy.
 *
 * Conventions: functions return 0 or -errno (like lib/uring); the
 * caller turns a failure into its NTSTATUS where it decides (a bad
 * signature is STATUS_ACCESS_DENIED, a bad transform tag a disconnect).
 * Messages are iovecs and are MACed or en/decrypted in place, so a READ
 * payload in a registered buffer is never copied.
 */
#ifndef RINGSMB_CRYPTO_H
#define RINGSMB_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define SMB2_PREAUTH_HASH_SIZE 64

/*
 * MS-SMB2 3.2.5.2 / 3.3.5.4: hash = SHA-512(hash || message), message
 * being the whole SMB2 PDU (header and body) given as an iovec.
 * Returns 0 or -errno.
 */
int smb2_preauth_update(uint8_t hash[SMB2_PREAUTH_HASH_SIZE],
			const struct iovec *iov, int iovcnt);

/* Cryptographically random bytes (gnutls_rnd, GNUTLS_RND_RANDOM). */
int crypto_random(void *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Secrets                                                             */

/* Make talloc wipe ptr's whole allocation when it is freed. */
void crypto_keep_secret(const void *ptr);

/* explicit_bzero: a memset the compiler may not drop. */
void crypto_wipe(void *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Key derivation (MS-SMB2 3.1.4.2, 3.3.5.5.3)                         */

#define SMB2_SIGNING_KEY_SIZE	16
#define SMB2_CIPHER_KEY_MAX	32

/*
 * SP800-108 KDF in counter mode, PRF HMAC-SHA256, r = 32, L = out_len *
 * 8: out = HMAC(key, i || label || 0x00 || context || L) for i = 1...
 * label and context are passed with their NUL terminators as MS-SMB2
 * writes them ("SMB2AESCMAC\0").  out_len is 16 or 32 for SMB.
 */
int smb2_kdf(const uint8_t *key, size_t key_len,
	     const uint8_t *label, size_t label_len,
	     const uint8_t *context, size_t context_len,
	     uint8_t *out, size_t out_len);

/*
 * A session's keys, as the server uses them.  encrypt is the
 * server-to-client key (responses), decrypt the client-to-server key
 * (requests); a client would swap them.  cipher_key_len is 16 or 32
 * (0 for 2.x, which has no encryption).  Wipe with smb2_keys_wipe() or
 * allocate with talloc and crypto_keep_secret().
 */
struct smb2_keys {
	uint8_t signing[SMB2_SIGNING_KEY_SIZE];
	uint8_t application[SMB2_SIGNING_KEY_SIZE];
	uint8_t encrypt[SMB2_CIPHER_KEY_MAX];
	uint8_t decrypt[SMB2_CIPHER_KEY_MAX];
	size_t cipher_key_len;
};

/*
 * Derive every key of a session for dialect (SMB2_DIALECT_*).
 * session_key is the whole GSS key; MS-SMB2's Session.SessionKey is its
 * first 16 bytes (zero-padded) and is used for everything except the
 * AES-256 cipher keys, which use all of it (FullSessionKey).
 * preauth_hash is the session's final hash for 3.1.1, ignored (may be
 * NULL) otherwise.  cipher_id is Connection.CipherId (0 if none).
 * Returns 0, or -EINVAL for an unknown dialect or cipher, an empty key
 * or a missing preauth hash.
 */
int smb2_derive_keys(uint16_t dialect, uint16_t cipher_id,
		     const uint8_t *session_key, size_t session_key_len,
		     const uint8_t *preauth_hash, struct smb2_keys *out);

/*
 * Wipe a session's keys, or one channel's signing key; every thread's
 * cached cipher contexts (lib/crypto/aead_cache.c) go with them.
 */
void smb2_keys_wipe(struct smb2_keys *keys);
void smb2_signing_key_wipe(uint8_t key[SMB2_SIGNING_KEY_SIZE]);

/* ------------------------------------------------------------------ */
/* Signing (MS-SMB2 3.1.4.1, 3.1.5.1)                                  */

/*
 * iov[0] starts with the 64-byte SMB2 header (it may hold more); the
 * rest is the body, dynamic part, payload and any compound padding.
 * signing_alg is Connection.SigningAlgorithmId for 3.1.1 (pass
 * SMB2_SIGNING_AES_CMAC when the client sent no signing context); 2.x
 * always uses HMAC-SHA256 and 3.0/3.0.2 AES-CMAC.  from_server says who
 * sent the message: it is part of the AES-GMAC nonce.
 *
 * smb2_sign_pdu sets SMB2_FLAGS_SIGNED and writes the signature into
 * the header.  Returns 0 or -EINVAL (bad algorithm or iovec).
 */
int smb2_sign_pdu(uint16_t dialect, uint16_t signing_alg,
		  const uint8_t key[SMB2_SIGNING_KEY_SIZE],
		  struct iovec *iov, int iovcnt, bool from_server);

/*
 * Verify a received message without modifying it.  Returns 0, -EACCES
 * for a wrong signature (compared in constant time) or -EINVAL.
 */
int smb2_sign_check(uint16_t dialect, uint16_t signing_alg,
		    const uint8_t key[SMB2_SIGNING_KEY_SIZE],
		    const struct iovec *iov, int iovcnt, bool from_server);

/* ------------------------------------------------------------------ */
/* Encryption (MS-SMB2 3.1.4.3, 3.3.5.2.1)                             */

/*
 * Per-session nonce source: a random fixed part drawn once and a 64-bit
 * message counter, so no two messages of the session share a nonce.
 * One generator per session key; never copy it.
 */
struct smb2_nonce_gen {
	uint64_t counter;
	uint8_t fixed[4];
	bool ready;
};

int smb2_nonce_gen_init(struct smb2_nonce_gen *ng);

/* 11 for the CCM ciphers, 12 for GCM, 0 for an unknown cipher. */
size_t smb2_cipher_nonce_len(uint16_t cipher_id);
/* 16 or 32, 0 for an unknown cipher. */
size_t smb2_cipher_key_len(uint16_t cipher_id);

/*
 * Encrypt the message in iov (header | body | payload ...) in place and
 * fill the 52-byte TRANSFORM_HEADER in front of it: protocol id, a fresh
 * nonce from ng, OriginalMessageSize, Flags = 1, session_id, and the AEAD
 * tag as Signature.  Send transform_hdr then iov.
 * Returns 0, -EINVAL (cipher, key length, empty or > 4 GiB message),
 * -EOVERFLOW (nonce counter exhausted: the session must end) or -EIO.
 */
int smb2_encrypt(uint16_t cipher_id, const uint8_t *key, size_t key_len,
		 uint8_t transform_hdr[52], struct iovec *iov, int iovcnt,
		 uint64_t session_id, struct smb2_nonce_gen *ng);

/*
 * smb2_encrypt in two steps, so the AEAD may run on another thread while
 * nonces are still drawn in the one thread that owns ng (no two messages
 * of a session may share one): _prepare fills the TRANSFORM_HEADER with
 * a fresh nonce (same errors as smb2_encrypt, nothing spent on -EINVAL),
 * _seal encrypts under it and writes the tag.  The iovecs must not change
 * in between: OriginalMessageSize is already in the header.
 */
int smb2_encrypt_prepare(uint16_t cipher_id, size_t key_len,
			 uint8_t transform_hdr[52], const struct iovec *iov,
			 int iovcnt, uint64_t session_id,
			 struct smb2_nonce_gen *ng);
int smb2_encrypt_seal(uint16_t cipher_id, const uint8_t *key, size_t key_len,
		      uint8_t transform_hdr[52], struct iovec *iov, int iovcnt);

/*
 * _seal, but the plaintext stays as it is (read-only memory: a READ's
 * payload in a mapping of the file) and the ciphertext goes to out,
 * which must hold OriginalMessageSize bytes plus 16 (the tag's room; the
 * tag itself goes to the header).  One pass over the plaintext for GCM;
 * CCM gathers it first inside gnutls.
 */
int smb2_encrypt_seal_to(uint16_t cipher_id, const uint8_t *key,
			 size_t key_len, uint8_t transform_hdr[52],
			 const struct iovec *iov, int iovcnt, uint8_t *out);

/*
 * Verify and decrypt in place a received message whose TRANSFORM_HEADER
 * was already checked (smb2_transform_pull).  The iovecs must hold
 * exactly OriginalMessageSize bytes.  Returns 0, -EINVAL, or -EBADMSG
 * for a wrong tag, in which case the iovecs are zeroed: no
 * unauthenticated plaintext survives.
 */
int smb2_decrypt(uint16_t cipher_id, const uint8_t *key, size_t key_len,
		 const uint8_t transform_hdr[52], struct iovec *iov,
		 int iovcnt);

#endif
