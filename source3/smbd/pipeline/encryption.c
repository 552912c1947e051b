/*
 * Encryption in the pipeline; the AEAD itself is lib/crypto's.
 */
#include <errno.h>
#include <string.h>
#include "lib/smb2/transform.h"
#include "lib/util/debug.h"
#include "source3/smbd/pipeline/encryption.h"
#include "source3/smbd/pipeline/pipeline.h"
#include "source3/smbd/session/session.h"

/* 3.3.5.2.1.1: what makes a TRANSFORM message unacceptable */
static NTSTATUS find_crypto(struct smbd_conn *conn, uint64_t session_id,
			    struct smbd_crypto **crypto)
{
	struct smbd_session *s = NULL;

	if (conn->dialect < SMB2_DIALECT_0300 || conn->cipher_id == 0) {
		return NT_STATUS_ACCESS_DENIED;
	}
	s = smbd_session_find(conn, session_id);
	if (s == NULL || !s->valid || s->crypto == NULL) {
		return NT_STATUS_USER_SESSION_DELETED;
	}
	*crypto = s->crypto;
	return NT_STATUS_OK;
}

NTSTATUS smbd_decrypt_check(struct smbd_conn *conn, const uint8_t *buf,
			    size_t len, struct smb2_transform_hdr *th,
			    struct smbd_crypto **crypto)
{
	size_t consumed = 0;
	NTSTATUS status;

	status = smb2_transform_pull(buf, len, th, &consumed);
	if (NT_STATUS_IS_OK(status) && consumed != len) {
		status = NT_STATUS_INVALID_PARAMETER;   /* trailing bytes */
	}
	if (NT_STATUS_IS_OK(status)) {
		status = find_crypto(conn, th->session_id, crypto);
	}
	return status;
}

NTSTATUS smbd_decrypt_message(struct smbd_conn *conn, TALLOC_CTX *ref_ctx,
			      uint8_t *buf, size_t len, uint8_t **msg,
			      size_t *msg_len, struct smbd_crypto **crypto,
			      uint64_t *session_id)
{
	struct smb2_transform_hdr th;
	struct iovec iov;
	NTSTATUS status;

	status = smbd_decrypt_check(conn, buf, len, &th, crypto);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	iov = (struct iovec){ buf + SMB2_TRANSFORM_HDR_SIZE, th.msg_size };
	if (smb2_decrypt((*crypto)->cipher_id, (*crypto)->keys.decrypt,
			 (*crypto)->keys.cipher_key_len, buf, &iov, 1) != 0) {
		DBG_INFO("%s: TRANSFORM message failed to decrypt\n",
			 conn->peer);
		return NT_STATUS_ACCESS_DENIED;
	}
	if (talloc_reference(ref_ctx, *crypto) == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*msg = buf + SMB2_TRANSFORM_HDR_SIZE;
	*msg_len = th.msg_size;
	*session_id = th.session_id;
	return NT_STATUS_OK;
}

int smbd_encrypt_prepare(TALLOC_CTX *mem_ctx, struct smbd_crypto *crypto,
			 uint64_t session_id, const struct iovec *iov,
			 int iovcnt, struct iovec **out, int *outcnt)
{
	struct iovec *o = talloc_array(mem_ctx, struct iovec, iovcnt + 1);
	uint8_t *hdr = talloc_zero_size(mem_ctx, SMB2_TRANSFORM_HDR_SIZE);
	int ret;

	if (o == NULL || hdr == NULL) {
		return -ENOMEM;
	}
	memcpy(o + 1, iov, sizeof(*iov) * iovcnt);
	ret = smb2_encrypt_prepare(crypto->cipher_id,
				   crypto->keys.cipher_key_len, hdr, o + 1,
				   iovcnt, session_id, &crypto->nonce);
	if (ret != 0) {
		return ret;
	}
	o[0] = (struct iovec){ hdr, SMB2_TRANSFORM_HDR_SIZE };
	*out = o;
	*outcnt = iovcnt + 1;
	return 0;
}

int smbd_encrypt_message(TALLOC_CTX *mem_ctx, struct smbd_crypto *crypto,
			 uint64_t session_id, const struct iovec *iov,
			 int iovcnt, struct iovec **out, int *outcnt)
{
	int ret = smbd_encrypt_prepare(mem_ctx, crypto, session_id, iov,
				       iovcnt, out, outcnt);

	if (ret != 0) {
		return ret;
	}
	return smb2_encrypt_seal(crypto->cipher_id, crypto->keys.encrypt,
				 crypto->keys.cipher_key_len,
				 (*out)[0].iov_base, *out + 1, *outcnt - 1);
}

NTSTATUS smbd_encryption_check(const struct smbd_request *req,
			       bool encrypted)
{
	if (encrypted) {
		return NT_STATUS_OK;
	}
	if ((req->session != NULL && req->session->encrypt_data) ||
	    (req->tcon != NULL && req->tcon->encrypt_data)) {
		DBG_INFO("%s: unencrypted %s where encryption is required\n",
			 req->conn->peer,
			 smb2_op_name(req->pdu->hdr.command));
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}
