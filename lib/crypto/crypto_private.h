/*
 * lib/crypto internals shared between its files.
 */
#ifndef RINGSMB_CRYPTO_PRIVATE_H
#define RINGSMB_CRYPTO_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
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

#endif
