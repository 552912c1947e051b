/*
 * Message signing in the pipeline.  The algorithms are lib/crypto's; this
 * file decides when (MS-SMB2 3.3.5.2.4 for requests, 3.3.4.1.1 for
 * responses).
 */
#include <string.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "source3/smbd/session/signing.h"
#include "source3/smbd/session/session.h"

/*
 * 'server signing' (docs/security.md).
 * mandatory requires signing.  default requires it on SMB 3.x, as
 * Windows Server 2025 and Windows 11 24H2 do: every user session signs;
 * guest and anonymous sessions have no key, are never signed and stay
 * allowed (as Samba lets them: clients decide whether to use them; Samba's
 * smbclient does, smbprotocol and Windows 24H2 refuse a guest logon once
 * signing is required).  On 2.x default requires it unless a share admits
 * guests (older clients refuse guests then).  auto (Samba's default) and
 * desired/disabled only offer it: a session signs if the client requires.
 */
static bool any_guest_share(const struct loadparm *lp)
{
	size_t i;

	for (i = 0; i < lp->num_shares; i++) {
		if (lp->shares[i]->guest_ok && lp->shares[i]->available) {
			return true;
		}
	}
	return false;
}

uint16_t smbd_signing_security_mode(const struct smbd_server *server,
				    uint16_t dialect)
{
	int s = server->lp->g.server_signing;

	if (s == LP_SMB_REQUIRED ||
	    (s == LP_SMB_DEFAULT && dialect >= SMB2_DIALECT_0300) ||
	    (s == LP_SMB_DEFAULT && !any_guest_share(server->lp))) {
		return SMB2_NEGOTIATE_SIGNING_ENABLED |
		       SMB2_NEGOTIATE_SIGNING_REQUIRED;
	}
	return SMB2_NEGOTIATE_SIGNING_ENABLED;
}

bool smbd_signing_required(const struct smbd_conn *conn)
{
	return (smbd_signing_security_mode(conn->server, conn->dialect) &
		SMB2_NEGOTIATE_SIGNING_REQUIRED) ||
	       (conn->client_security_mode & SMB2_NEGOTIATE_SIGNING_REQUIRED);
}

/*
 * Whether a user session (neither guest nor anonymous: those have no key
 * and never sign) must sign: decided per session, from the connection's
 * dialect and what each side said in NEGOTIATE.  Under 'default' every
 * user session on SMB 3.x must; 'auto' and the others keep Samba's rule.
 */
bool smbd_signing_user_required(const struct smbd_conn *conn)
{
	if (smbd_signing_required(conn)) {
		return true;
	}
	return conn->server->lp->g.server_signing == LP_SMB_DEFAULT &&
	       conn->dialect >= SMB2_DIALECT_0300;
}

/*
 * Commands a client may send unsigned even on a signing session.  Not a
 * SESSION_SETUP naming an established user session (a re-authentication,
 * or a binding on a connection that is already a channel): the client
 * has the key and signs it, as smbtorture's bind_negative tests expect.
 */
static bool exempt(uint16_t command, const struct smbd_session *s)
{
	if (command == SMB2_OP_SESSSETUP) {
		return s == NULL || !s->valid || s->keys == NULL;
	}
	return command == SMB2_OP_NEGPROT || command == SMB2_OP_CANCEL;
}

/* pre's result if it was made as this check would be made. */
static int sign_check(uint16_t dialect, uint16_t alg,
		      const struct smb2_pdu *pdu, const uint8_t key[16],
		      const struct smbd_sig_pre *pre)
{
	struct iovec iov = { (void *)pdu->buf, pdu->len };

	if (pre != NULL && pre->done && pre->dialect == dialect &&
	    pre->alg == alg && memcmp(pre->key, key, 16) == 0) {
		return pre->result;
	}
	return smb2_sign_check(dialect, alg, key, &iov, 1, false);
}

static NTSTATUS check_with_key(const struct smbd_conn *conn,
			       uint16_t dialect, uint16_t alg,
			       const struct smb2_pdu *pdu,
			       const uint8_t check_key[16],
			       const struct smbd_sig_pre *pre, bool *sign_rsp,
			       uint8_t key[16])
{
	*sign_rsp = false;
	if (sign_check(dialect, alg, pdu, check_key, pre) != 0) {
		DBG_INFO("%s: bad signature on %s\n", conn->peer,
			 smb2_op_name(pdu->hdr.command));
		return NT_STATUS_ACCESS_DENIED;
	}
	*sign_rsp = true;
	memcpy(key, check_key, 16);
	return NT_STATUS_OK;
}

NTSTATUS smbd_signing_check_key(const struct smbd_conn *conn,
				uint16_t dialect, uint16_t alg,
				const struct smb2_pdu *pdu,
				const uint8_t check_key[16], bool *sign_rsp,
				uint8_t key[16])
{
	return check_with_key(conn, dialect, alg, pdu, check_key, NULL,
			      sign_rsp, key);
}

const uint8_t *smbd_signing_channel_key(const struct smbd_conn *conn,
					const struct smbd_session *s)
{
	const struct smbd_channel *ch = NULL;

	if (s == NULL || s->keys == NULL) {
		return NULL;
	}
	/* each channel has its own key (MS-SMB2 3.3.5.2.4) */
	ch = smbd_channel_find(s, conn);
	return ch != NULL && ch->bound ? ch->signing_key : NULL;
}

NTSTATUS smbd_signing_check_pre(const struct smbd_conn *conn,
				const struct smb2_pdu *pdu,
				const struct smbd_session *s,
				const struct smbd_sig_pre *pre,
				bool *sign_rsp, uint8_t key[16])
{
	bool is_signed = pdu->hdr.flags & SMB2_FLAGS_SIGNED;
	const uint8_t *ch_key = NULL;

	*sign_rsp = false;
	if (s == NULL || s->keys == NULL) {
		/* no key: a signed request cannot be checked (3.3.5.2.4) */
		if (is_signed && !exempt(pdu->hdr.command, NULL) &&
		    (s == NULL || s->valid)) {
			return NT_STATUS_ACCESS_DENIED;
		}
		return NT_STATUS_OK;
	}
	if (!is_signed) {
		if (s->signing_required && !exempt(pdu->hdr.command, s)) {
			DBG_INFO("%s: unsigned %s on a signed session\n",
				 conn->peer, smb2_op_name(pdu->hdr.command));
			return NT_STATUS_ACCESS_DENIED;
		}
		return NT_STATUS_OK;
	}
	ch_key = smbd_signing_channel_key(conn, s);
	if (ch_key == NULL) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return check_with_key(conn, conn->dialect, conn->signing_alg, pdu,
			      ch_key, pre, sign_rsp, key);
}

NTSTATUS smbd_signing_check(const struct smbd_conn *conn,
			    const struct smb2_pdu *pdu,
			    const struct smbd_session *s, bool *sign_rsp,
			    uint8_t key[16])
{
	return smbd_signing_check_pre(conn, pdu, s, NULL, sign_rsp, key);
}

void smbd_signing_sign_as(const struct smbd_conn *conn, uint16_t dialect,
			  uint16_t alg, const uint8_t key[16],
			  struct iovec *iov, int iovcnt)
{
	if (smb2_sign_pdu(dialect, alg, key, iov, iovcnt, true) != 0) {
		DBG_ERR("%s: signing a response failed\n", conn->peer);
	}
}

void smbd_signing_sign(const struct smbd_conn *conn, const uint8_t key[16],
		       struct iovec *iov, int iovcnt)
{
	smbd_signing_sign_as(conn, conn->dialect, conn->signing_alg, key, iov,
			     iovcnt);
}
