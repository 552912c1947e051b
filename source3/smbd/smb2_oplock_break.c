/*
 * OPLOCK_BREAK: the server's Oplock Break Notification (MS-SMB2 2.2.23.1,
 * 3.3.4.6) and the client's Acknowledgment (2.2.24.1, 3.3.5.22.1).
 * Lease acknowledgments (2.2.24.2) find no lease: none is granted.
 */
#include "lib/util/debug.h"
#include "source3/smbd/encryption.h"
#include "source3/smbd/oplock.h"
#include "source3/smbd/transport.h"

/*
 * Encrypted when the session or the share asks for it (3.3.4.1.4);
 * never signed: the notification belongs to no request, and carries
 * SessionId 0, which names no signing key (3.3.4.6, as Samba sends it).
 */
static bool break_encrypted(const struct smbd_open *open)
{
	const struct smbd_session *s = open->tcon->session;

	return s->crypto != NULL && (s->encrypt_data ||
				     open->tcon->encrypt_data);
}

static void break_queue(struct smbd_open *open, TALLOC_CTX *owner,
			struct iovec *iov, int n)
{
	struct smbd_session *s = open->tcon->session;
	struct iovec *enc = NULL;
	int encn = 0;

	if (!break_encrypted(open)) {
		smbd_transport_send(s->conn, iov, n, owner);
		return;
	}
	if (smbd_encrypt_message(owner, s->crypto, s->id, iov, n, &enc,
				 &encn) != 0) {
		DBG_ERR("%s: cannot encrypt an oplock break\n",
			s->conn->peer);
		talloc_free(owner);
		return;
	}
	smbd_transport_send(s->conn, enc, encn, owner);
}

void smbd_oplock_send_break(struct smbd_open *open, uint8_t level)
{
	struct smbd_conn *conn = NULL;
	struct smb2_file_id id = { open->persistent_id, open->volatile_id };
	struct smb2_hdr h = {
		.command = SMB2_OP_OPLOCK_BREAK,
		.flags = SMB2_FLAGS_SERVER_TO_REDIR,
		.message_id = UINT64_MAX,       /* unsolicited */
	};
	TALLOC_CTX *owner = NULL;
	struct iovec iov[2];
	uint8_t *hdr = NULL;
	uint8_t *body = NULL;
	size_t body_len = 0;

	if (open->tcon == NULL) {
		return;         /* disconnected (durable.c): nobody to tell */
	}
	conn = open->tcon->session->conn;
	if (conn->terminating) {
		return;
	}
	owner = talloc_new(conn);
	if (owner != NULL) {
		hdr = talloc_zero_size(owner, SMB2_HDR_SIZE);
		body = smb2_oplock_break_push(owner, level, &id, &body_len);
	}
	if (hdr == NULL || body == NULL) {
		DBG_ERR("%s: out of memory sending an oplock break\n",
			conn->peer);
		talloc_free(owner);
		return;
	}
	DBG_DEBUG("%s: oplock break of %s to %u\n", conn->peer, open->name,
		  level);
	smb2_hdr_push(&h, hdr);
	iov[0] = (struct iovec){ hdr, SMB2_HDR_SIZE };
	iov[1] = (struct iovec){ body, body_len };
	break_queue(open, owner, iov, 2);
}

/* The acknowledgment; the pipeline found the open (oplock form only). */
static NTSTATUS break_ack(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			  struct smbd_response *rsp)
{
	struct smb2_oplock_break_req r;
	NTSTATUS status = smb2_oplock_break_req_pull(req->pdu, &r);
	uint8_t level = SMB2_OPLOCK_LEVEL_NONE;

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (r.is_lease) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;  /* no such lease */
	}
	status = smbd_oplock_ack(req->open, r.oplock_level, &level);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: oplock break acknowledgment (level %u) of %s "
			 "refused: %s\n", req->conn->peer, r.oplock_level,
			 req->open->name, nt_errstr(status));
		return status;
	}
	rsp->body = smb2_oplock_break_push(mem_ctx, level, &r.file_id,
					   &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

struct tevent_req *smb2_oplock_break_send(TALLOC_CTX *mem_ctx,
					  struct tevent_context *ev,
					  struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status = break_ack(mem_ctx, req, &rsp);

	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

NTSTATUS smb2_oplock_break_recv(struct tevent_req *subreq,
				TALLOC_CTX *mem_ctx,
				struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
