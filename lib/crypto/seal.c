/*
 * SMB3 encryption (MS-SMB2 3.1.4.3) and decryption (3.3.5.2.1):
 * AES-128/256 in CCM or GCM mode over the whole SMB2 message, the
 * TRANSFORM_HEADER from Nonce to the end as authenticated data, the
 * tag in the header's Signature.
 *
 * gnutls_aead_cipher_encryptv2/decryptv2 (gnutls >= 3.6.10) work in
 * place on the iovecs: the response is encrypted in the buffer it was
 * built in and goes to SENDMSG as it is.  For GCM gnutls streams over
 * the iovecs in one pass; CCM needs the length up front, and gnutls may
 * gather the iovecs into a temporary buffer and scatter the result back
 * (a copy inside gnutls, invisible to us).  Older gnutls without the
 * v2 calls would need gnutls_aead_cipher_encrypt on a gathered copy;
 * Debian 12 ships 3.7.9, so there is no such fallback here.
 */
#include <errno.h>
#include <string.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include "lib/crypto/crypto.h"
#include "lib/crypto/crypto_private.h"
#include "lib/smb2/smb2.h"
#include "lib/smb2/transform.h"
#include "lib/util/byteorder.h"

static gnutls_cipher_algorithm_t aead_alg(uint16_t cipher_id)
{
	switch (cipher_id) {
	case SMB2_ENCRYPTION_AES128_CCM:
		return GNUTLS_CIPHER_AES_128_CCM;
	case SMB2_ENCRYPTION_AES128_GCM:
		return GNUTLS_CIPHER_AES_128_GCM;
	case SMB2_ENCRYPTION_AES256_CCM:
		return GNUTLS_CIPHER_AES_256_CCM;
	case SMB2_ENCRYPTION_AES256_GCM:
		return GNUTLS_CIPHER_AES_256_GCM;
	default:
		return GNUTLS_CIPHER_UNKNOWN;
	}
}

static int aead_open(uint16_t cipher_id, const uint8_t *key, size_t key_len,
		     gnutls_aead_cipher_hd_t *h, bool *owned)
{
	if (key == NULL || key_len == 0 ||
	    key_len != smb2_cipher_key_len(cipher_id)) {
		return -EINVAL;
	}
	return aead_cached(aead_alg(cipher_id), key, key_len, h, owned);
}

/* Total length of a message: 1 .. UINT32_MAX bytes (OriginalMessageSize). */
static int msg_len(const struct iovec *iov, int iovcnt, uint32_t *len)
{
	size_t total = 0;
	int i = 0;

	if (iovcnt < 1) {
		return -EINVAL;
	}
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > UINT32_MAX - total) {
			return -EINVAL;
		}
		total += iov[i].iov_len;
	}
	if (total == 0) {
		return -EINVAL;
	}
	*len = (uint32_t)total;
	return 0;
}

/* Everything but the Signature, which the AEAD fills in. */
static int tf_fill(uint8_t *hdr, uint16_t cipher_id, uint32_t len,
		   uint64_t session_id, struct smb2_nonce_gen *ng)
{
	int ret = nonce_next(ng, smb2_cipher_nonce_len(cipher_id),
			     hdr + SMB2_TF_OFS_NONCE);

	if (ret != 0) {
		return ret;
	}
	push_le32(hdr + SMB2_TF_OFS_PROTOCOL_ID, SMB2_TF_PROTOCOL_ID);
	memset(hdr + SMB2_TF_OFS_SIGNATURE, 0, SMB2_TF_SIGNATURE_SIZE);
	push_le32(hdr + SMB2_TF_OFS_MSG_SIZE, len);
	push_le16(hdr + SMB2_TF_OFS_RESERVED, 0);
	push_le16(hdr + SMB2_TF_OFS_FLAGS, SMB2_TRANSFORM_FLAG_ENCRYPTED);
	push_le64(hdr + SMB2_TF_OFS_SESSION_ID, session_id);
	return 0;
}

/* Encrypt iov under the nonce already in hdr; the tag goes to hdr. */
int seal_hdr(uint16_t cipher_id, const uint8_t *key, size_t key_len,
	     uint8_t *hdr, struct iovec *iov, int iovcnt)
{
	gnutls_aead_cipher_hd_t h = NULL;
	struct iovec aad = {
		.iov_base = hdr + SMB2_TF_AAD_OFS,
		.iov_len = SMB2_TF_AAD_SIZE,
	};
	size_t tag_len = SMB2_TF_SIGNATURE_SIZE;
	bool owned = false;
	int ret = aead_open(cipher_id, key, key_len, &h, &owned);

	if (ret != 0) {
		return ret;
	}
	if (gnutls_aead_cipher_encryptv2(h, hdr + SMB2_TF_OFS_NONCE,
			smb2_cipher_nonce_len(cipher_id), &aad, 1, iov, iovcnt,
			hdr + SMB2_TF_OFS_SIGNATURE, &tag_len) != 0) {
		ret = -EIO;
	}
	aead_release(h, owned);
	return ret;
}

int smb2_encrypt_prepare(uint16_t cipher_id, size_t key_len,
			 uint8_t transform_hdr[52], const struct iovec *iov,
			 int iovcnt, uint64_t session_id,
			 struct smb2_nonce_gen *ng)
{
	uint32_t len = 0;
	int ret = msg_len(iov, iovcnt, &len);

	if (ret != 0) {
		return ret;
	}
	/* check before a nonce is spent */
	if (key_len == 0 || key_len != smb2_cipher_key_len(cipher_id)) {
		return -EINVAL;
	}
	return tf_fill(transform_hdr, cipher_id, len, session_id, ng);
}

int smb2_encrypt_seal(uint16_t cipher_id, const uint8_t *key, size_t key_len,
		      uint8_t transform_hdr[52], struct iovec *iov, int iovcnt)
{
	return seal_hdr(cipher_id, key, key_len, transform_hdr, iov, iovcnt);
}

int smb2_encrypt_seal_to(uint16_t cipher_id, const uint8_t *key,
			 size_t key_len, uint8_t transform_hdr[52],
			 const struct iovec *iov, int iovcnt, uint8_t *out)
{
	uint8_t *hdr = transform_hdr;
	gnutls_aead_cipher_hd_t h = NULL;
	giovec_t aad = {
		.iov_base = hdr + SMB2_TF_AAD_OFS,
		.iov_len = SMB2_TF_AAD_SIZE,
	};
	uint32_t len = 0;
	size_t out_len = 0;
	bool owned = false;
	int ret = msg_len(iov, iovcnt, &len);

	if (ret == 0) {
		ret = aead_open(cipher_id, key, key_len, &h, &owned);
	}
	if (ret != 0) {
		return ret;
	}
	out_len = (size_t)len + SMB2_TF_SIGNATURE_SIZE;
	/* giovec_t is struct iovec (gnutls.h) */
	if (gnutls_aead_cipher_encryptv(h, hdr + SMB2_TF_OFS_NONCE,
			smb2_cipher_nonce_len(cipher_id), &aad, 1,
			SMB2_TF_SIGNATURE_SIZE, (const giovec_t *)iov, iovcnt,
			out, &out_len) != 0 ||
	    out_len != (size_t)len + SMB2_TF_SIGNATURE_SIZE) {
		ret = -EIO;
	} else {
		memcpy(hdr + SMB2_TF_OFS_SIGNATURE, out + len,
		       SMB2_TF_SIGNATURE_SIZE);
	}
	aead_release(h, owned);
	return ret;
}

int smb2_encrypt(uint16_t cipher_id, const uint8_t *key, size_t key_len,
		 uint8_t transform_hdr[52], struct iovec *iov, int iovcnt,
		 uint64_t session_id, struct smb2_nonce_gen *ng)
{
	int ret = 0;

	if (key == NULL) {
		return -EINVAL;
	}
	ret = smb2_encrypt_prepare(cipher_id, key_len, transform_hdr, iov,
				   iovcnt, session_id, ng);
	if (ret != 0) {
		return ret;
	}
	return seal_hdr(cipher_id, key, key_len, transform_hdr, iov, iovcnt);
}

static void wipe_iov(struct iovec *iov, int iovcnt)
{
	int i = 0;

	for (i = 0; i < iovcnt; i++) {
		crypto_wipe(iov[i].iov_base, iov[i].iov_len);
	}
}

int smb2_decrypt(uint16_t cipher_id, const uint8_t *key, size_t key_len,
		 const uint8_t transform_hdr[52], struct iovec *iov,
		 int iovcnt)
{
	uint8_t *hdr = (uint8_t *)transform_hdr;	/* gnutls: no const */
	gnutls_aead_cipher_hd_t h = NULL;
	struct iovec aad = {
		.iov_base = hdr + SMB2_TF_AAD_OFS,
		.iov_len = SMB2_TF_AAD_SIZE,
	};
	uint32_t len = 0;
	bool owned = false;
	int ret = msg_len(iov, iovcnt, &len);

	if (ret != 0 || len != pull_le32(hdr + SMB2_TF_OFS_MSG_SIZE)) {
		return -EINVAL;
	}
	ret = aead_open(cipher_id, key, key_len, &h, &owned);
	if (ret != 0) {
		return ret;
	}
	ret = gnutls_aead_cipher_decryptv2(h, hdr + SMB2_TF_OFS_NONCE,
			smb2_cipher_nonce_len(cipher_id), &aad, 1, iov, iovcnt,
			hdr + SMB2_TF_OFS_SIGNATURE, SMB2_TF_SIGNATURE_SIZE);
	aead_release(h, owned);
	if (ret == 0) {
		return 0;
	}
	/* GCM decrypts before it checks: drop what was decrypted */
	wipe_iov(iov, iovcnt);
	return ret == GNUTLS_E_DECRYPTION_FAILED ? -EBADMSG : -EIO;
}
