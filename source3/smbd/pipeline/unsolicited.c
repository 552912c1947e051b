/*
 * Messages the server sends unasked: the Oplock Break Notification
 * (MS-SMB2 2.2.23.1, 3.3.4.6) and the Lease Break Notification
 * (2.2.23.2, 3.3.4.7), raised by the file layer through its hooks
 * (smbd.h, struct smbd_state_hooks).  Built with the lib/smb2 codecs,
 * encrypted here, queued on the transport like any response.
 */
#include <string.h>
#include "lib/util/debug.h"
#include "source3/smbd/pipeline/encryption.h"
#include "source3/smbd/pipeline/pipeline.h"
#include "source3/smbd/transport/transport.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/lease.h"
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

/*
 * Any live channel of the holder's session: the primary connection,
 * else the first bound channel whose connection is not going away.
 */
static struct smbd_conn *break_conn(const struct smbd_session *s)
{
	const struct smbd_channel *ch = NULL;

	if (!s->conn->terminating) {
		return s->conn;
	}
	for (ch = s->channels; ch != NULL; ch = ch->next) {
		if (ch->bound && ch->conn != NULL && !ch->conn->terminating) {
			return ch->conn;
		}
	}
	return NULL;
}

static void break_queue(struct smbd_open *open, struct smbd_conn *conn,
			TALLOC_CTX *owner, struct iovec *iov, int n)
{
	struct smbd_session *s = open->tcon->session;
	struct iovec *enc = NULL;
	int encn = 0;

	if (!break_encrypted(open)) {
		smbd_transport_send(conn, iov, n, owner);
		return;
	}
	if (smbd_encrypt_message(owner, s->crypto, s->id, iov, n, &enc,
				 &encn) != 0) {
		DBG_ERR("%s: cannot encrypt a break notification\n",
			conn->peer);
		talloc_free(owner);
		return;
	}
	smbd_transport_send(conn, enc, encn, owner);
}

/* Header and body: MessageId -1, SessionId 0, no credits (3.3.4.6). */
static void break_send(struct smbd_open *open, struct smbd_conn *conn,
		       TALLOC_CTX *owner, uint8_t *body, size_t body_len)
{
	struct smb2_hdr h = {
		.command = SMB2_OP_OPLOCK_BREAK,
		.flags = SMB2_FLAGS_SERVER_TO_REDIR,
		.message_id = UINT64_MAX,       /* unsolicited */
	};
	uint8_t *hdr = talloc_zero_size(owner, SMB2_HDR_SIZE);
	struct iovec iov[2];

	if (hdr == NULL || body == NULL) {
		DBG_ERR("%s: out of memory sending a break\n", conn->peer);
		talloc_free(owner);
		return;
	}
	smb2_hdr_push(&h, hdr);
	iov[0] = (struct iovec){ hdr, SMB2_HDR_SIZE };
	iov[1] = (struct iovec){ body, body_len };
	break_queue(open, conn, owner, iov, 2);
}

void smbd_pipeline_send_oplock_break(struct smbd_open *open, uint8_t level)
{
	struct smb2_file_id id = { open->persistent_id, open->volatile_id };
	struct smbd_conn *conn = NULL;
	TALLOC_CTX *owner = NULL;
	uint8_t *body = NULL;
	size_t body_len = 0;

	if (open->tcon == NULL) {
		return;         /* disconnected (durable.c): nobody to tell */
	}
	conn = break_conn(open->tcon->session);
	if (conn == NULL) {
		return;
	}
	owner = talloc_new(conn);
	if (owner == NULL) {
		DBG_ERR("%s: out of memory sending an oplock break\n",
			conn->peer);
		return;
	}
	body = smb2_oplock_break_push(owner, level, &id, &body_len);
	DBG_DEBUG("%s: oplock break of %s to %u\n", conn->peer, open->name,
		  level);
	break_send(open, conn, owner, body, body_len);
}

/*
 * A lease is the client's, not a session's (3.3.4.7): its break goes to
 * the client's oldest live connection, as Samba sends it (smbtorture
 * smb2.lease.v2_complex1 expects it there), unless it must be encrypted
 * with the keys of the holder's session.
 */
static struct smbd_conn *lease_conn(const struct smbd_open *open)
{
	struct smbd_server *server = open->server;
	struct smbd_conn *c = NULL, *oldest = NULL;

	if (open->lease == NULL || break_encrypted(open)) {
		return break_conn(open->tcon->session);
	}
	for (c = server->conns; c != NULL; c = c->next) {
		if (!c->terminating && c->dialect >= SMB2_DIALECT_0210 &&
		    memcmp(c->client_guid, open->lease->client_guid,
			   sizeof(c->client_guid)) == 0) {
			oldest = c;     /* the list is newest first */
		}
	}
	return oldest != NULL ? oldest : break_conn(open->tcon->session);
}

void smbd_pipeline_send_lease_break(struct smbd_open *open,
				    const struct smb2_lease_break *lb)
{
	struct smbd_conn *conn = NULL;
	TALLOC_CTX *owner = NULL;
	uint8_t *body = NULL;
	size_t body_len = 0;

	if (open->tcon == NULL) {
		return;
	}
	conn = lease_conn(open);
	if (conn == NULL) {
		return;
	}
	owner = talloc_new(conn);
	if (owner == NULL) {
		DBG_ERR("%s: out of memory sending a lease break\n",
			conn->peer);
		return;
	}
	body = smb2_lease_break_push(owner, lb, &body_len);
	DBG_DEBUG("%s: lease break of %s from %u to %u\n", conn->peer,
		  open->name, (unsigned)lb->current_state,
		  (unsigned)lb->new_state);
	break_send(open, conn, owner, body, body_len);
}
