/*
 * SP800-108 key derivation, counter mode, HMAC-SHA256 (MS-SMB2 3.1.4.2).
 */
#include <errno.h>
#include <string.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include "lib/crypto/crypto.h"
#include "lib/util/byteorder.h"

#define KDF_PRF_SIZE 32		/* HMAC-SHA256 output, SP800-108 "h" */

/* One PRF block: HMAC(key, i || label || 0x00 || context || L). */
static int kdf_block(gnutls_hmac_hd_t h, uint32_t i,
		     const uint8_t *label, size_t label_len,
		     const uint8_t *context, size_t context_len,
		     uint32_t l_bits, uint8_t out[KDF_PRF_SIZE])
{
	uint8_t be[4];
	const uint8_t zero = 0;

	push_be32(be, i);
	if (gnutls_hmac(h, be, sizeof(be)) != 0 ||
	    gnutls_hmac(h, label, label_len) != 0 ||
	    gnutls_hmac(h, &zero, 1) != 0 ||
	    gnutls_hmac(h, context, context_len) != 0) {
		return -EIO;
	}
	push_be32(be, l_bits);
	if (gnutls_hmac(h, be, sizeof(be)) != 0) {
		return -EIO;
	}
	gnutls_hmac_output(h, out);	/* also resets h for the next i */
	return 0;
}

int smb2_kdf(const uint8_t *key, size_t key_len,
	     const uint8_t *label, size_t label_len,
	     const uint8_t *context, size_t context_len,
	     uint8_t *out, size_t out_len)
{
	gnutls_hmac_hd_t h = NULL;
	uint8_t block[KDF_PRF_SIZE];
	size_t done = 0;
	uint32_t i = 0;
	int ret = 0;

	if (key_len == 0 || out_len == 0 || out_len > 1024) {
		return -EINVAL;
	}
	if (gnutls_hmac_init(&h, GNUTLS_MAC_SHA256, key, key_len) != 0) {
		return -ENOMEM;
	}
	for (i = 1; done < out_len && ret == 0; i++) {
		size_t n = out_len - done < KDF_PRF_SIZE ?
			   out_len - done : KDF_PRF_SIZE;

		ret = kdf_block(h, i, label, label_len, context, context_len,
				(uint32_t)(out_len * 8), block);
		memcpy(out + done, block, n);
		done += n;
	}
	gnutls_hmac_deinit(h, NULL);
	crypto_wipe(block, sizeof(block));
	if (ret != 0) {
		crypto_wipe(out, out_len);
	}
	return ret;
}
