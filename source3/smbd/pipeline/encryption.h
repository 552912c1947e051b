/*
 * SMB 3.x encryption in the pipeline (MS-SMB2 3.3.4.1.4, 3.3.5.2.1.1):
 * TRANSFORM messages in, encrypted responses out, and the rules for
 * sessions and shares that require encryption.
 */
#ifndef RINGSMB_SMBD_ENCRYPTION_H
#define RINGSMB_SMBD_ENCRYPTION_H

#include "lib/smb2/transform.h"
#include "source3/smbd/smbd.h"

/*
 * The checks before decryption (3.3.5.2.1.1): a well-formed TRANSFORM
 * header filling the message, naming a session of conn that has keys.
 * *crypto is not referenced.
 */
NTSTATUS smbd_decrypt_check(struct smbd_conn *conn, const uint8_t *buf,
			    size_t len, struct smb2_transform_hdr *th,
			    struct smbd_crypto **crypto);

/*
 * Verifies and decrypts a TRANSFORM message in place.  On success *msg
 * points at the SMB2 message inside buf and *crypto is the session's
 * crypto state (referenced from ref_ctx); any failure means disconnect.
 */
NTSTATUS smbd_decrypt_message(struct smbd_conn *conn, TALLOC_CTX *ref_ctx,
			      uint8_t *buf, size_t len, uint8_t **msg,
			      size_t *msg_len, struct smbd_crypto **crypto,
			      uint64_t *session_id);

/*
 * Encrypts a response (iov, all writable memory) in place and returns
 * the iovec array to send, TRANSFORM header first, allocated on mem_ctx.
 */
int smbd_encrypt_message(TALLOC_CTX *mem_ctx, struct smbd_crypto *crypto,
			 uint64_t session_id, const struct iovec *iov,
			 int iovcnt, struct iovec **out, int *outcnt);
/*
 * Its first half, in the loop thread: the iovec array and the TRANSFORM
 * header with the session's next nonce.  smb2_encrypt_seal on
 * (*out)[0], *out + 1 finishes it, in any thread.
 */
int smbd_encrypt_prepare(TALLOC_CTX *mem_ctx, struct smbd_crypto *crypto,
			 uint64_t session_id, const struct iovec *iov,
			 int iovcnt, struct iovec **out, int *outcnt);

/* An unencrypted request where the session or share demands encryption */
NTSTATUS smbd_encryption_check(const struct smbd_request *req,
			       bool encrypted);

#endif
