/*
 * SESSION_SETUP (MS-SMB2 3.3.5.5) and LOGOFF (3.3.5.6).
 *
 * Authentication itself is lib/auth's (SPNEGO + NTLMSSP); this file keeps
 * the session table and the 3.1.1 preauth hash in step with the legs.
 */
#include <string.h>
#include <strings.h>
#include "lib/auth/auth.h"
#include "lib/auth/passdb.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/session/budget.h"
#include "source3/smbd/session/logon_throttle.h"
#include "source3/smbd/session/identity.h"
#include "source3/smbd/session/session.h"
#include "source3/smbd/session/signing.h"
#include "source3/smbd/transport/transport.h"

static enum auth_map_to_guest map_to_guest(const struct lp_global *g)
{
	switch (g->map_to_guest) {
	case LP_MAP_TO_GUEST_BAD_USER:
	case LP_MAP_TO_GUEST_BAD_UID:
		return AUTH_MAP_BAD_USER;
	case LP_MAP_TO_GUEST_BAD_PASSWORD:
		return AUTH_MAP_BAD_PASSWORD;
	default:
		return AUTH_MAP_NEVER;
	}
}

static struct auth_ctx *auth_start(TALLOC_CTX *mem_ctx,
				   struct smbd_server *server)
{
	const struct lp_global *g = &server->lp->g;
	struct auth_settings settings = {
		.netbios_name = g->netbios_name,
		.workgroup = g->workgroup,
		.dns_domain = "",
		.map_to_guest = map_to_guest(g),
		.allow_anonymous = g->restrict_anonymous < 2,
		.users = smbd_logon_users(server),
	};

	return auth_ctx_new(mem_ctx, &settings);
}

static struct auth_ctx *session_auth_start(struct smbd_session *s)
{
	TALLOC_FREE(s->auth);
	s->auth = auth_start(s, s->conn->server);
	return s->auth;
}

/*
 * Whether this connection may be bound to session s (MS-SMB2 3.3.5.5.2).
 * The checks and their order follow what Windows and Samba answer
 * (smbtorture smb2.session.bind_negative_*): the signing algorithms (a
 * GMAC session or channel must match), the channel's dialect and
 * multichannel support, the session's dialect and cipher, guest and
 * anonymous sessions (no key to bind with).  The client GUID is not
 * compared: one process serves every connection.
 */
static NTSTATUS bind_check(const struct smbd_conn *conn,
			   const struct smbd_session *s)
{
	if (s->signing_alg >= SMB2_SIGNING_AES_GMAC &&
	    conn->signing_alg != s->signing_alg) {
		return NT_STATUS_REQUEST_OUT_OF_SEQUENCE;
	}
	if (conn->signing_alg >= SMB2_SIGNING_AES_GMAC &&
	    conn->signing_alg != s->signing_alg) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if (conn->dialect < SMB2_DIALECT_0300 ||
	    !(conn->server_caps & SMB2_GLOBAL_CAP_MULTI_CHANNEL)) {
		return NT_STATUS_REQUEST_NOT_ACCEPTED;
	}
	if (s->dialect != conn->dialect || s->cipher_id != conn->cipher_id) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (s->keys == NULL) {
		return NT_STATUS_NOT_SUPPORTED;         /* guest, anonymous */
	}
	return NT_STATUS_OK;
}

/* The channel a binding leg belongs to: new or in progress. */
static NTSTATUS find_binding(struct smbd_request *req,
			     struct smbd_channel **out)
{
	struct smbd_conn *conn = req->conn;
	uint64_t id = req->pdu->hdr.session_id;
	struct smbd_session *s = NULL;
	struct smbd_channel *ch = NULL;
	NTSTATUS status;

	if (id == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	s = smbd_session_find_global(conn->server, id);
	if (s == NULL || !s->valid) {
		return NT_STATUS_USER_SESSION_DELETED;
	}
	status = bind_check(conn, s);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!(req->pdu->hdr.flags & SMB2_FLAGS_SIGNED)) {
		return NT_STATUS_INVALID_PARAMETER;     /* 3.3.5.5 */
	}
	if (!req->bind_signed) {
		/* not the session's key (3.3.5.2.4): not its client */
		return NT_STATUS_ACCESS_DENIED;
	}
	ch = smbd_channel_find(s, conn);
	if (ch != NULL && ch->bound) {
		return NT_STATUS_REQUEST_NOT_ACCEPTED;  /* bound already */
	}
	if (ch == NULL) {
		ch = smbd_channel_new(s, conn);
		if (ch == NULL) {
			return NT_STATUS_INSUFFICIENT_RESOURCES;
		}
		/* 3.1.1: this connection's hash goes on with the legs */
		memcpy(ch->preauth_hash, conn->preauth_hash,
		       sizeof(ch->preauth_hash));
	}
	if (ch->auth == NULL) {
		ch->auth = auth_start(ch, conn->server);
		if (ch->auth == NULL) {
			talloc_free(ch);
			return NT_STATUS_NO_MEMORY;
		}
	}
	*out = ch;
	return NT_STATUS_OK;
}

/* The session a leg belongs to: new, in progress, or re-authenticating */
static NTSTATUS find_or_new_session(struct smbd_request *req,
				    const struct smb2_sesssetup_req *r,
				    struct smbd_session **out)
{
	struct smbd_conn *conn = req->conn;
	uint64_t id = req->pdu->hdr.session_id;
	struct smbd_session *s = NULL;

	if (id == 0) {
		s = smbd_session_new(conn);
		if (s == NULL) {
			return NT_STATUS_INSUFFICIENT_RESOURCES;
		}
		memcpy(s->preauth_hash, conn->preauth_hash,
		       sizeof(s->preauth_hash));
	} else {
		s = smbd_session_find(conn, id);
		if (s == NULL) {
			return NT_STATUS_USER_SESSION_DELETED;
		}
	}
	if (s->auth == NULL && session_auth_start(s) == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*out = s;
	return NT_STATUS_OK;
}

static int crypto_destructor(struct smbd_crypto *c)
{
	smb2_keys_wipe(&c->keys);
	return 0;
}

/*
 * 'server smb encrypt' (global): required and desired encrypt every user
 * session whose connection negotiated a cipher; required refuses one that
 * did not (MS-SMB2 3.3.5.5.3).
 */
static NTSTATUS session_encryption(struct smbd_session *s)
{
	struct smbd_conn *conn = s->conn;
	int enc = conn->server->lp->g.smb_encrypt;

	if (enc != LP_SMB_REQUIRED && enc != LP_SMB_DESIRED) {
		return NT_STATUS_OK;
	}
	if (conn->cipher_id == 0) {
		return enc == LP_SMB_REQUIRED ? NT_STATUS_ACCESS_DENIED :
			NT_STATUS_OK;
	}
	s->encrypt_data = true;
	return NT_STATUS_OK;
}

/*
 * User sessions get signing and encryption keys from the session key
 * (MS-SMB2 3.3.5.5.3); guest and anonymous sessions have none, are never
 * signed and cannot encrypt.
 */
static NTSTATUS session_keys(struct smbd_session *s,
			     const struct auth_session_info *info)
{
	struct smbd_conn *conn = s->conn;
	int enc = conn->server->lp->g.smb_encrypt;
	struct smbd_channel *ch = NULL;

	TALLOC_FREE(s->crypto);
	s->keys = NULL;
	s->signing_required = false;
	s->encrypt_data = false;
	if (!info->have_session_key || info->guest || info->anonymous) {
		return enc == LP_SMB_REQUIRED ? NT_STATUS_ACCESS_DENIED :
			NT_STATUS_OK;
	}
	s->crypto = talloc_zero(s, struct smbd_crypto);
	if (s->crypto == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	talloc_set_destructor(s->crypto, crypto_destructor);
	s->crypto->cipher_id = conn->cipher_id;
	if (smb2_derive_keys(conn->dialect, conn->cipher_id,
			     info->session_key, sizeof(info->session_key),
			     s->preauth_hash, &s->crypto->keys) != 0 ||
	    smb2_nonce_gen_init(&s->crypto->nonce) != 0) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	s->keys = &s->crypto->keys;
	s->signing_required = smbd_signing_user_required(conn);
	ch = smbd_channel_find(s, conn);
	if (ch != NULL) {
		/* the first channel signs with the session's key */
		memcpy(ch->signing_key, s->keys->signing,
		       sizeof(ch->signing_key));
	}
	return session_encryption(s);
}

/*
 * Re-authentication of a live session (MS-SMB2 3.3.5.5.3) keeps its keys,
 * signing and encryption: the client goes on signing with them.  The user
 * must be the same; anonymous is allowed (Samba and Windows let a client
 * drop to anonymous and come back), a guest or another user is not.
 */
static NTSTATUS session_reauth(struct smbd_session *s,
			       const struct auth_session_info *info)
{
	const char *user = info->user != NULL ? info->user : "";

	if (s->keys == NULL) {
		return session_keys(s, info);   /* was guest or anonymous */
	}
	if (info->anonymous) {
		return NT_STATUS_OK;
	}
	if (info->guest || s->user == NULL || strcasecmp(user, s->user) != 0) {
		DBG_NOTICE("%s: re-authentication as another user (%s)\n",
			   s->conn->peer, user);
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

/*
 * Who the session is on disk from now on (identity.c); a re-authenticated
 * session's tree connects follow (an anonymous re-authentication acts as
 * the guest account until the user comes back).
 */
static NTSTATUS session_identity(struct smbd_session *s, bool reauth,
				 const struct auth_session_info *info)
{
	NTSTATUS status = smbd_session_identity(
		s, info->guest || info->anonymous, info->user);

	if (NT_STATUS_IS_OK(status) && reauth) {
		status = smbd_session_tcons_follow(s);
	}
	return status;
}

static NTSTATUS session_final(struct smbd_session *s, bool reauth,
			      const struct auth_session_info *info)
{
	NTSTATUS status = reauth ? session_reauth(s, info) :
		session_keys(s, info);

	if (NT_STATUS_IS_OK(status)) {
		status = session_identity(s, reauth, info);
	}
	return status;
}

/*
 * PreviousSessionId (MS-SMB2 3.3.5.5.3): a new session of the same user
 * replaces the one the client had before (on a lost connection); its tree
 * connects and opens go.  Another user's session stays.
 */
static void previous_session(struct smbd_session *s, uint64_t prev_id)
{
	const struct auth_session_info *info = auth_session_info(s->auth);
	struct smbd_session *prev = NULL;

	if (prev_id == 0 || prev_id == s->id || s->keys == NULL ||
	    info->user == NULL) {
		return;
	}
	prev = smbd_session_find_global(s->conn->server, prev_id);
	if (prev == NULL || !prev->valid || prev->keys == NULL ||
	    prev->user == NULL || strcasecmp(prev->user, info->user) != 0) {
		return;
	}
	DBG_INFO("%s: session 0x%llx replaces 0x%llx of %s\n", s->conn->peer,
		 (unsigned long long)s->id, (unsigned long long)prev_id,
		 prev->conn->peer);
	smbd_session_teardown(prev);
}

static void session_established(struct smbd_session *s)
{
	const struct auth_session_info *info = auth_session_info(s->auth);
	struct smbd_conn *conn = s->conn;

	s->valid = true;
	s->guest = info->guest;
	s->anonymous = info->anonymous;
	if (s->user == NULL || !info->anonymous) {
		/* an anonymous re-authentication keeps whose keys they are */
		TALLOC_FREE(s->user);
		s->user = talloc_strdup(s, info->user != NULL ? info->user :
					"");
	}
	TALLOC_FREE(s->auth);
	/* a guest or anonymous logon keeps the pre-auth limits */
	smbd_budget_conn_update(conn);
	DBG_INFO("%s: session 0x%llx established (%s%s)\n", conn->peer,
		 (unsigned long long)s->id,
		 s->anonymous ? "anonymous" : s->user,
		 s->guest ? ", guest" : "");
}

/*
 * One line per logon outcome at level 1, in the shape of Samba's
 * auth_audit line, so a fail2ban filter for either server matches both
 * (docs/logging.md, examples/fail2ban/):
 *   Auth: [SMB2,(null)] user [DOMAIN]\[user] with [NTLMv2] status
 *   [NT_STATUS_...] workstation [WS] remote host [ADDR:PORT] ...
 */
static void audit_logon(const struct smbd_session *s, struct smbd_conn *conn,
			NTSTATUS status)
{
	const char *domain = NULL, *wks = NULL;
	const char *user = s->auth != NULL ?
		auth_attempt(s->auth, &domain, &wks) : NULL;
	const struct auth_session_info *info = s->auth != NULL ?
		auth_session_info(s->auth) : NULL;

	if (user == NULL) {
		/* nothing parsed: a malformed or non-NTLM attempt */
		user = domain = wks = "";
	}
	/*
	 * %U in 'log file' is the name the client logged on with (Samba's
	 * session user name), from this line on.  Failed and guest logons
	 * take no name from the client, so a client without a password
	 * cannot name files in the log directory.
	 */
	if (NT_STATUS_IS_OK(status) && info != NULL) {
		debug_client_set_user(conn->log_client,
				      info->anonymous ? "" : info->guest ?
				      conn->server->lp->g.guest_account :
				      info->user);
	}
	DBGC_AT(DBGC_AUTH_AUDIT, 1, "Auth: [SMB2,(null)] user [%s]\\[%s] "
		"with [NTLMv2] status [%s] workstation [%s] remote host "
		"[%s]%s\n", domain != NULL ? domain : "", user,
		nt_errstr(status), wks != NULL ? wks : "", conn->peer,
		!NT_STATUS_IS_OK(status) || info == NULL ? "" :
		info->anonymous ? " mapped to anonymous" :
		info->guest ? " mapped to guest" : "");
}

static uint8_t *sesssetup_body(TALLOC_CTX *mem_ctx, struct smbd_session *s,
			       const uint8_t *blob, size_t blob_len,
			       size_t *len)
{
	struct smb2_sesssetup_rsp rsp = {
		.security = { blob, blob_len },
	};

	if (s->valid && s->anonymous) {
		rsp.session_flags = SMB2_SESSION_FLAG_IS_NULL;
	} else if (s->valid && s->guest) {
		rsp.session_flags = SMB2_SESSION_FLAG_IS_GUEST;
	} else if (s->valid && s->encrypt_data) {
		rsp.session_flags = SMB2_SESSION_FLAG_ENCRYPT_DATA;
	}
	return smb2_sesssetup_rsp_push(mem_ctx, &rsp, len);
}

/*
 * The binding is complete (MS-SMB2 3.3.5.5.3): the same user as the
 * session's (another one, a guest or anonymous is refused), and the
 * channel's signing key from the key of this authentication, for 3.1.1
 * with this connection's preauth hash.
 */
static NTSTATUS bind_final(struct smbd_channel *ch,
			   const struct auth_session_info *info)
{
	const struct smbd_session *s = ch->session;
	struct smbd_conn *conn = ch->conn;
	struct smb2_keys *k = NULL;
	int ret;

	if (!info->have_session_key || info->guest || info->anonymous ||
	    info->user == NULL || s->user == NULL ||
	    strcasecmp(info->user, s->user) != 0) {
		DBG_NOTICE("%s: binding session 0x%llx as another user "
			   "(%s)\n", conn->peer, (unsigned long long)s->id,
			   info->user != NULL ? info->user : "");
		return NT_STATUS_ACCESS_DENIED;
	}
	k = talloc_zero(ch, struct smb2_keys);
	if (k == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	ret = smb2_derive_keys(conn->dialect, conn->cipher_id,
			       info->session_key, sizeof(info->session_key),
			       ch->preauth_hash, k);
	memcpy(ch->signing_key, k->signing, sizeof(ch->signing_key));
	smb2_keys_wipe(k);
	TALLOC_FREE(k);
	if (ret != 0) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	ch->bound = true;
	TALLOC_FREE(ch->auth);
	conn->bound_user = true;        /* only user sessions bind */
	smbd_budget_conn_update(conn);
	DBG_INFO("%s: bound to session 0x%llx of %s (%zu channels)\n",
		 conn->peer, (unsigned long long)s->id, s->conn->peer,
		 s->num_channels);
	return NT_STATUS_OK;
}

/*
 * One leg of a binding (MS-SMB2 3.3.5.5.2): a failure ends the binding,
 * never the session.
 */
static NTSTATUS bind_step(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			  const struct smb2_sesssetup_req *r,
			  struct smbd_response *rsp)
{
	struct smbd_server *server = req->conn->server;
	struct smbd_channel *ch = NULL;
	uint8_t *out = NULL;
	size_t out_len = 0;
	NTSTATUS status;

	status = find_binding(req, &ch);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	req->session = ch->session;
	if (req->conn->dialect == SMB2_DIALECT_0311) {
		struct iovec in = { (void *)req->pdu->buf, req->pdu->len };
		smb2_preauth_update(ch->preauth_hash, &in, 1);
	}
	status = auth_update(ch->auth, mem_ctx, r->security.data,
			     r->security.len, &out, &out_len);
	if (NT_STATUS_IS_OK(status)) {
		status = bind_final(ch, auth_session_info(ch->auth));
	}
	if (NT_STATUS_IS_OK(status)) {
		smbd_throttle_succeeded(server->throttle, req->conn->addr);
	} else if (!NT_STATUS_EQUAL(status,
				    NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		DBG_INFO("%s: binding failed: %s\n", req->conn->peer,
			 nt_errstr(status));
		if (!NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED)) {
			smbd_throttle_failed(server->throttle,
					     req->conn->addr,
					     tevent_timeval_current());
		}
		req->session = NULL;
		talloc_free(ch);
		return status;
	}
	rsp->status = status;
	rsp->body = sesssetup_body(mem_ctx, ch->session, out, out_len,
				   &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/* One leg: an error, or OK with the response (MORE_PROCESSING or done) */
static NTSTATUS sesssetup_step(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			       struct smbd_response *rsp)
{
	struct smbd_server *server = req->conn->server;
	struct smb2_sesssetup_req r;
	struct smbd_session *s = NULL;
	uint8_t *out = NULL;
	size_t out_len = 0;
	bool reauth = false;
	NTSTATUS status;

	status = smb2_sesssetup_req_pull(req->pdu, &r);
	if (NT_STATUS_IS_OK(status) &&
	    (r.flags & SMB2_SESSION_FLAG_BINDING)) {
		return bind_step(mem_ctx, req, &r, rsp);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = find_or_new_session(req, &r, &s);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	req->session = s;
	if (req->conn->dialect == SMB2_DIALECT_0311) {
		struct iovec in = { (void *)req->pdu->buf, req->pdu->len };
		smb2_preauth_update(s->preauth_hash, &in, 1);
	}
	reauth = s->valid;
	status = auth_update(s->auth, mem_ctx, r.security.data,
			     r.security.len, &out, &out_len);
	if (NT_STATUS_IS_OK(status)) {
		status = session_final(s, reauth, auth_session_info(s->auth));
	}
	if (!NT_STATUS_EQUAL(status, NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		audit_logon(s, req->conn, status);
		server->stats.logons++;
		server->stats.logons_failed += NT_STATUS_IS_OK(status) ? 0 : 1;
	}
	if (NT_STATUS_IS_OK(status)) {
		if (!reauth) {
			previous_session(s, r.previous_session_id);
		}
		session_established(s);
		if (s->keys != NULL) {
			/* a guest or anonymous logon must not reset it */
			smbd_throttle_succeeded(server->throttle,
						req->conn->addr);
		}
	} else if (!NT_STATUS_EQUAL(status,
				    NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		DBG_INFO("%s: session setup failed: %s\n", req->conn->peer,
			 nt_errstr(status));
		smbd_throttle_failed(server->throttle, req->conn->addr,
				     tevent_timeval_current());
		/*
		 * A failed leg ends the session, also a failed
		 * re-authentication of a live one (MS-SMB2 3.3.5.5.3): its
		 * tree connects and opens go with it.
		 */
		req->session = NULL;
		talloc_free(s);
		return status;
	}
	rsp->status = status;
	rsp->body = sesssetup_body(mem_ctx, s, out, out_len, &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/*
 * After repeated failures from the client's address the leg waits for
 * its slot (logon_throttle.c); the connection's pipeline waits with it.
 */
struct sesssetup_state {
	struct smbd_request *req;
	struct smbd_response rsp;
};

static void sesssetup_slot(struct tevent_req *subreq);

struct tevent_req *smbd_sesssetup_send(TALLOC_CTX *mem_ctx,
				       struct tevent_context *ev,
				       struct smbd_request *req)
{
	struct smbd_conn *conn = req->conn;
	struct timeval now = tevent_timeval_current();
	struct timeval slot = now;
	struct tevent_req *result = NULL, *subreq = NULL;
	struct sesssetup_state *state = NULL;
	NTSTATUS status;

	result = tevent_req_create(mem_ctx, &state, struct sesssetup_state);
	if (result == NULL) {
		return NULL;
	}
	state->req = req;
	state->rsp.status = NT_STATUS_OK;
	if (conn->server->lp->g.logon_backoff) {
		slot = smbd_throttle_slot(conn->server->throttle, conn->addr,
					  now);
	}
	if (tevent_timeval_compare(&slot, &now) <= 0) {
		status = sesssetup_step(state, req, &state->rsp);
		if (!tevent_req_nterror(result, status)) {
			tevent_req_done(result);
		}
		return tevent_req_post(result, ev);
	}
	DBG_NOTICE("%s: logon delayed after %u failures\n", conn->peer,
		 smbd_throttle_failures(conn->server->throttle, conn->addr));
	subreq = tevent_wakeup_send(state, ev, slot);
	if (tevent_req_nomem(subreq, result)) {
		return tevent_req_post(result, ev);
	}
	tevent_req_set_callback(subreq, sesssetup_slot, result);
	return result;
}

static void sesssetup_slot(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct sesssetup_state *state = tevent_req_data(
		req, struct sesssetup_state);
	struct debug_scope scope;
	NTSTATUS status;

	tevent_wakeup_recv(subreq);
	TALLOC_FREE(subreq);
	/* a timer: nothing told the log whose logon this is */
	debug_client_enter(state->req->conn->log_client, &scope);
	status = sesssetup_step(state, state->req, &state->rsp);
	if (!tevent_req_nterror(req, status)) {
		tevent_req_done(req);
	}
	debug_scope_leave(&scope);
}

NTSTATUS smbd_sesssetup_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			     struct smbd_response *rsp)
{
	struct sesssetup_state *state = tevent_req_data(
		subreq, struct sesssetup_state);
	return smbd_response_recv(subreq, mem_ctx, &state->rsp, rsp);
}

/* 3.1.1: every leg but the final success goes into the session's hash */
void smbd_sesssetup_on_response(struct smbd_request *req, NTSTATUS status,
				const struct iovec *iov, int iovcnt)
{
	struct smbd_channel *ch = NULL;

	if (req->conn->dialect != SMB2_DIALECT_0311 ||
	    req->session == NULL ||
	    !NT_STATUS_EQUAL(status, NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		return;
	}
	ch = smbd_channel_find(req->session, req->conn);
	if (ch != NULL && !ch->bound) {
		/* a binding's legs: the channel's own hash */
		smb2_preauth_update(ch->preauth_hash, iov, iovcnt);
		return;
	}
	smb2_preauth_update(req->session->preauth_hash, iov, iovcnt);
}

struct tevent_req *smbd_logoff_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status = smb2_logoff_req_pull(req->pdu);

	if (!NT_STATUS_IS_OK(status)) {
		return smbd_done_send(mem_ctx, ev, status, NULL);
	}
	TALLOC_FREE(req->session);      /* its tcons and opens go with it */
	rsp.body = smb2_logoff_rsp_push(mem_ctx, &rsp.body_len);
	if (rsp.body == NULL) {
		return smbd_done_send(mem_ctx, ev, NT_STATUS_NO_MEMORY, NULL);
	}
	return smbd_done_send(mem_ctx, ev, NT_STATUS_OK, &rsp);
}

NTSTATUS smbd_logoff_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			  struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
