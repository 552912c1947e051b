/*
 * Limits for untrusted clients (issue 11, docs/architecture.md, "Limits").
 *
 * A guest or anonymous logon proves nothing about the client, so its
 * connection goes after 'smb2 untrusted timeout' seconds without a
 * request, as an unauthenticated one does.  Its PDUs may be as large as
 * NEGOTIATE promised (a guest share is written to, and the size was
 * told to the client before it logged on); the server-wide receive
 * budget bounds their memory (docs/security.md, "Untrusted sessions").
 * Before any session the PDU size stays at 'smb2 untrusted max pdu'.  A connection is
 * trusted once it has a valid session of a real user (or is a channel
 * of one), and becomes untrusted again when that user logs off.
 *
 * The descriptor quotas that guest and anonymous handles are held to
 * are the file layer's: files/handles.c.
 */
#include <stdio.h>
#include <string.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/files/handles.h"
#include "source3/smbd/session/budget.h"
#include "source3/smbd/transport/transport.h"

int smbd_budget_conn_start(struct smbd_conn *conn)
{
	if (smbd_handles_conn_start(conn) != 0) {
		return -1;
	}
	smbd_budget_conn_update(conn);
	return conn->unauth_timer != NULL ? 0 : -1;
}

bool smbd_session_trusted(const struct smbd_session *s)
{
	return s->valid && !s->dying && !s->guest && !s->anonymous;
}

static bool conn_trusted(const struct smbd_conn *conn)
{
	const struct smbd_session *s = NULL;

	if (conn->bound_user) {
		return true;
	}
	for (s = conn->sessions; s != NULL; s = s->next) {
		if (smbd_session_trusted(s)) {
			return true;
		}
	}
	return false;
}

/*
 * A guest or anonymous session may write to a guest share, with WRITEs
 * as large as NEGOTIATE promised (the limit is decided before anyone
 * logs on): its connection reads full-size PDUs, whose buffers the
 * server-wide receive budget bounds.  Before a session, the pre-auth
 * size holds.
 */
static bool conn_has_guest(const struct smbd_conn *conn)
{
	const struct smbd_session *s = NULL;

	for (s = conn->sessions; s != NULL; s = s->next) {
		if (s->valid && !s->dying && (s->guest || s->anonymous)) {
			return true;
		}
	}
	return false;
}

static bool conn_has_session(const struct smbd_conn *conn)
{
	const struct smbd_session *s = NULL;

	for (s = conn->sessions; s != NULL; s = s->next) {
		if (s->valid && !s->dying) {
			return true;
		}
	}
	return false;
}

static void untrusted_timeout(struct tevent_context *ev,
			      struct tevent_timer *te, struct timeval now,
			      void *private_data);

static bool arm_untrusted_timer(struct smbd_conn *conn, struct timeval at)
{
	TALLOC_FREE(conn->unauth_timer);
	conn->unauth_timer = tevent_add_timer(conn->ev, conn, at,
					      untrusted_timeout, conn);
	return conn->unauth_timer != NULL;
}

/*
 * Without any session the connection had its time to authenticate;
 * with a guest or anonymous one it may stay while it keeps sending
 * requests (a partial PDU has its own, shorter timeout).
 */
static void untrusted_timeout(struct tevent_context *ev,
			      struct tevent_timer *te, struct timeval now,
			      void *private_data)
{
	struct smbd_conn *conn = private_data;
	int secs = conn->server->lp->g.untrusted_timeout;
	struct timeval until = tevent_timeval_add(&conn->last_activity,
						  secs, 0);

	conn->unauth_timer = NULL;
	if (conn_trusted(conn)) {
		return;
	}
	if (!conn_has_session(conn)) {
		smbd_conn_terminate(conn, "no authenticated session in time");
		return;
	}
	if (tevent_timeval_compare(&until, &now) > 0) {
		if (!arm_untrusted_timer(conn, until)) {
			smbd_conn_terminate(conn, "out of memory");
		}
		return;
	}
	smbd_conn_terminate(conn, "guest/anonymous connection idle for "
			    "'smb2 untrusted timeout'");
}

/* The largest PDU a trusted connection may send: its negotiated sizes */
static size_t trusted_max_pdu(const struct smbd_conn *conn)
{
	size_t max = conn->max_write > conn->max_read ? conn->max_write :
		conn->max_read;

	if (max < conn->max_transact) {
		max = conn->max_transact;
	}
	return max + 64 * 1024;
}

void smbd_budget_conn_update(struct smbd_conn *conn)
{
	const struct lp_global *g = &conn->server->lp->g;
	struct smbd_session *s = NULL;
	bool trusted = false;

	if (conn->terminating) {
		return;
	}
	for (s = conn->sessions; s != NULL; s = s->next) {
		smbd_handles_reclass(s, !smbd_session_trusted(s));
	}
	trusted = conn_trusted(conn);
	if (conn->transport != NULL) {
		smbd_transport_set_max_pdu(conn, trusted ||
					   conn_has_guest(conn) ?
					   trusted_max_pdu(conn) :
					   (size_t)g->untrusted_max_pdu);
	}
	if (trusted) {
		TALLOC_FREE(conn->unauth_timer);
	} else if (conn->unauth_timer == NULL &&
		   !arm_untrusted_timer(conn, tevent_timeval_current_ofs(
						g->untrusted_timeout, 0))) {
		smbd_conn_terminate(conn, "out of memory");
	}
	if (trusted != conn->trusted) {
		DBG_INFO("%s: %s\n", conn->peer, trusted ? "trusted" :
			 "untrusted (no user session): pre-auth limits");
	}
	conn->trusted = trusted;
}
