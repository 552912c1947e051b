/*
 * lib/crypto internals shared between its files.
 */
#ifndef RINGSMB_CRYPTO_PRIVATE_H
#define RINGSMB_CRYPTO_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gnutls/crypto.h>
#include "lib/crypto/crypto.h"

/* The next nonce of ng, zero-padded to 16 bytes; -EOVERFLOW when spent. */
int nonce_next(struct smb2_nonce_gen *ng, size_t nonce_len,
	       uint8_t nonce[16]);

/*
 * smb2_encrypt without the header fill: the nonce and the other fields
 * are taken from hdr as they are.  Only for the published test vectors,
 * whose nonces we must reproduce; anything else uses smb2_encrypt.
 */
int seal_hdr(uint16_t cipher_id, const uint8_t *key, size_t key_len,
	     uint8_t *hdr, struct iovec *iov, int iovcnt);

/*
 * An AEAD context for alg and key from this thread's cache
 * (aead_cache.c), made if missing; hand it back with aead_release.  It
 * stays valid until this thread's next aead_cached.  *owned: the cache
 * could not keep it (aead_release frees it).  0 or -ENOMEM.
 */
int aead_cached(gnutls_cipher_algorithm_t alg, const uint8_t *key,
		size_t key_len, gnutls_aead_cipher_hd_t *h, bool *owned);
void aead_release(gnutls_aead_cipher_hd_t h, bool owned);

/* Some session's keys were wiped: every thread empties its cache. */
void aead_cache_keys_retired(void);

#endif
