/*
 * SMB 3.1.1 preauth integrity hash chain (MS-SMB2 3.3.5.4, 3.3.5.5).
 */
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include "lib/crypto/crypto.h"

int smb2_preauth_update(uint8_t hash[SMB2_PREAUTH_HASH_SIZE],
			const struct iovec *iov, int iovcnt)
{
	gnutls_hash_hd_t h = NULL;
	int i;

	if (gnutls_hash_init(&h, GNUTLS_DIG_SHA512) != 0) {
		return -ENOMEM;
	}
	gnutls_hash(h, hash, SMB2_PREAUTH_HASH_SIZE);
	for (i = 0; i < iovcnt; i++) {
		gnutls_hash(h, iov[i].iov_base, iov[i].iov_len);
	}
	gnutls_hash_deinit(h, hash);
	return 0;
}

int crypto_random(void *buf, size_t len)
{
	if (gnutls_rnd(GNUTLS_RND_RANDOM, buf, len) != 0) {
		return -EIO;
	}
	return 0;
}
