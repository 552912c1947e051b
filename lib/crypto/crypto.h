/*
 * SMB2/3 cryptography: preauth integrity hash (and, in the next issue,
 * signing, encryption and the SP800-108 KDF).  Built on gnutls.
 */
#ifndef RINGSMB_CRYPTO_H
#define RINGSMB_CRYPTO_H

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

#endif
