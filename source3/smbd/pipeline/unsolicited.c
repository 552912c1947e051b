/*
 * Messages the server sends unasked: the Oplock Break Notification
 * (MS-SMB2 2.2.23.1, 3.3.4.6), raised by the file layer through its
 * hook (smbd.h, struct smbd_state_hooks).  Built with the lib/smb2
 * codecs, encrypted here, queued on the transport like any response.
 */
#include "lib/util/debug.h"
#include "source3/smbd/pipeline/encryption.h"
#include "source3/smbd/pipeline/pipeline.h"
#include "source3/smbd/transport/transport.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

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

void smbd_pipeline_send_oplock_break(struct smbd_open *open, uint8_t level)
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
