/*
 * Sessions, their channels and tree connects: creation, lookup and
 * teardown.  Freeing a session frees its channels and tree connects, and
 * those their opens (talloc tree).
 *
 * Multichannel (MS-SMB2 3.3.5.5.2): a session lives below its primary
 * connection and has one channel per connection it is bound to.  The server is
 * one event loop (docs/architecture.md, "Threads and rings"), so a request on
 * any channel finds the session, its tcons and opens directly.
 */
#include <time.h>
#include "lib/util/dlist.h"
#include "source3/smbd/files/handles.h"
#include "source3/smbd/session/budget.h"
#include "source3/smbd/files/durable.h"
#include "source3/smbd/session/session.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/open_files.h"

static int session_destructor(struct smbd_session *s)
{
	struct smbd_tcon *t = NULL;

	/* LOGOFF, a dropped connection, a PreviousSessionId (durable.h) */
	for (t = s->tcons; t != NULL; t = t->next) {
		t->keep_durable = true;
	}
	while (s->tcons != NULL) {
		talloc_free(s->tcons);
	}
	if (s->dying) {
		s->conn->server->num_dying_sessions--;
	}
	DLIST_REMOVE_SIMPLE(s->conn->sessions, s);
	s->conn->num_sessions--;
	/* a user logged off: the connection may be untrusted again */
	smbd_budget_conn_update(s->conn);
	return 0;
}

static int channel_destructor(struct smbd_channel *ch)
{
	DLIST_REMOVE_SIMPLE(ch->session->channels, ch);
	ch->session->num_channels--;
	if (ch->bound) {
		smb2_signing_key_wipe(ch->signing_key);
	}
	return 0;
}

struct smbd_channel *smbd_channel_new(struct smbd_session *s,
				      struct smbd_conn *conn)
{
	struct smbd_channel *ch = NULL;

	if (s->num_channels >= SMBD_MAX_CHANNELS_PER_SESSION) {
		return NULL;
	}
	ch = talloc_zero(s, struct smbd_channel);
	if (ch == NULL) {
		return NULL;
	}
	ch->session = s;
	ch->conn = conn;
	DLIST_ADD_END_SIMPLE(s->channels, ch);
	s->num_channels++;
	talloc_set_destructor(ch, channel_destructor);
	return ch;
}

struct smbd_channel *smbd_channel_find(const struct smbd_session *s,
				       const struct smbd_conn *conn)
{
	struct smbd_channel *ch = NULL;

	for (ch = s->channels; ch != NULL; ch = ch->next) {
		if (ch->conn == conn) {
			return ch;
		}
	}
	return NULL;
}

/*
 * Session ids fit in 32 bits, as Samba's do: clients keep them in 32
 * bits (smbtorture smb2.session-id truncates one and expects it to
 * still work).  A counter times a random odd number plus a random
 * offset, both chosen at start: unique for 2^32 sessions of the
 * server's life, not guessable across restarts, never 0 or
 * 0xFFFFFFFF.
 */
static uint64_t session_next_id(struct smbd_server *server)
{
	uint32_t mult = (uint32_t)(server->session_id_salt >> 32) | 1;
	uint32_t id = 0;

	while (id == 0 || id == UINT32_MAX) {
		id = (uint32_t)(server->next_session_id++) * mult +
			(uint32_t)server->session_id_salt;
	}
	return id;
}

struct smbd_session *smbd_session_new(struct smbd_conn *conn)
{
	struct smbd_server *server = conn->server;
	struct smbd_session *s = NULL;
	struct smbd_channel *ch = NULL;

	if (conn->num_sessions >= SMBD_MAX_SESSIONS_PER_CONN) {
		return NULL;
	}
	s = talloc_zero(conn, struct smbd_session);
	if (s == NULL) {
		return NULL;
	}
	s->conn = conn;
	s->id = session_next_id(server);
	s->next_tree_id = 1;
	s->started = time(NULL);
	s->dialect = conn->dialect;
	s->signing_alg = conn->signing_alg;
	s->cipher_id = conn->cipher_id;
	DLIST_ADD_SIMPLE(conn->sessions, s);
	conn->num_sessions++;
	talloc_set_destructor(s, session_destructor);
	ch = smbd_channel_new(s, conn);
	if (ch == NULL) {
		talloc_free(s);
		return NULL;
	}
	ch->bound = true;               /* its key comes with the session's */
	return s;
}

static struct smbd_session *session_find_primary(struct smbd_conn *conn,
						 uint64_t id)
{
	struct smbd_session *s = NULL;

	for (s = conn->sessions; s != NULL; s = s->next) {
		if (s->id == id && !s->dying) {
			return s;
		}
	}
	return NULL;
}

/* Any live session with this id, whichever connection is its primary. */
static struct smbd_session *session_find_any(struct smbd_server *server,
					     uint64_t id)
{
	struct smbd_conn *conn = NULL;
	struct smbd_session *s = NULL;

	for (conn = server->conns; conn != NULL && s == NULL;
	     conn = conn->next) {
		s = session_find_primary(conn, id);
	}
	return s;
}

struct smbd_session *smbd_session_find(struct smbd_conn *conn, uint64_t id)
{
	struct smbd_session *s = NULL;
	const struct smbd_channel *ch = NULL;

	if (id == 0) {
		return NULL;
	}
	s = session_find_primary(conn, id);
	if (s != NULL) {
		return s;
	}
	/* a channel bound to another connection's session */
	s = session_find_any(conn->server, id);
	if (s != NULL) {
		ch = smbd_channel_find(s, conn);
	}
	return ch != NULL && ch->bound ? s : NULL;
}

struct smbd_session *smbd_session_find_global(struct smbd_server *server,
					      uint64_t id)
{
	struct smbd_session *s = NULL;

	if (id == 0) {
		return NULL;
	}
	s = session_find_any(server, id);
	if (s == NULL || s->conn->terminating) {
		return NULL;
	}
	return s;
}

/* The next bound channel takes over as primary: the session moves. */
static void session_move(struct smbd_session *s, struct smbd_conn *to)
{
	struct smbd_conn *from = s->conn;

	DLIST_REMOVE_SIMPLE(from->sessions, s);
	from->num_sessions--;
	smbd_handles_move(s, from, to);
	talloc_steal(to, s);
	s->conn = to;
	DLIST_ADD_SIMPLE(to->sessions, s);
	to->num_sessions++;
}

void smbd_sessions_conn_gone(struct smbd_conn *conn)
{
	struct smbd_conn *other = NULL;
	struct smbd_session *s = NULL, *next = NULL;
	struct smbd_channel *ch = NULL;

	/* channels of this connection in other connections' sessions */
	for (other = conn->server->conns; other != NULL;
	     other = other->next) {
		for (s = other->sessions; s != NULL && other != conn;
		     s = s->next) {
			ch = smbd_channel_find(s, conn);
			TALLOC_FREE(ch);
		}
	}
	/* its own sessions: move on to another channel, or end */
	for (s = conn->sessions; s != NULL; s = next) {
		next = s->next;
		ch = smbd_channel_find(s, conn);
		TALLOC_FREE(ch);
		for (ch = s->channels; ch != NULL &&
		     (!ch->bound || ch->conn->terminating); ch = ch->next) {
		}
		if (ch != NULL) {
			session_move(s, ch->conn);
		} else {
			talloc_free(s);
		}
	}
	/* what its running request held is free: waiters may go on */
	if (conn->server->hooks.channels_idle != NULL) {
		conn->server->hooks.channels_idle(conn->server);
	}
}

bool smbd_session_running(const struct smbd_session *s,
			  const struct smbd_conn *except)
{
	const struct smbd_channel *ch = NULL;

	for (ch = s->channels; ch != NULL; ch = ch->next) {
		if (ch->conn != except && ch->conn->requests_running > 0) {
			return true;
		}
	}
	return false;
}

void smbd_session_teardown(struct smbd_session *s)
{
	if (!s->dying) {
		s->dying = true;
		s->conn->server->num_dying_sessions++;
	}
	if (!smbd_session_running(s, NULL)) {
		talloc_free(s);
	}
}

void smbd_sessions_reap(struct smbd_conn *conn)
{
	struct smbd_server *server = conn->server;
	struct smbd_conn *c = NULL;
	struct smbd_session *s = NULL, *next = NULL;

	for (c = server->conns; c != NULL && server->num_dying_sessions > 0;
	     c = c->next) {
		for (s = c->sessions; s != NULL; s = next) {
			next = s->next;
			if (s->dying && !smbd_session_running(s, NULL)) {
				talloc_free(s);
			}
		}
	}
}

static int tcon_destructor(struct smbd_tcon *t)
{
	/* opens before the VFS handle whose root they hang below */
	while (t->opens != NULL) {
		if (!t->keep_durable || !smbd_durable_disconnect(t->opens)) {
			talloc_free(t->opens);
		}
	}
	DLIST_REMOVE_SIMPLE(t->session->tcons, t);
	t->session->num_tcons--;
	smbd_handles_add(t->session, -1);
	return 0;
}

struct smbd_tcon *smbd_tcon_new(struct smbd_session *s)
{
	struct smbd_tcon *t = NULL;

	if (s->num_tcons >= SMBD_MAX_TCONS_PER_SESSION ||
	    smbd_handles_full(s)) {
		return NULL;
	}
	t = talloc_zero(s, struct smbd_tcon);
	if (t == NULL) {
		return NULL;
	}
	t->session = s;
	t->connected = time(NULL);
	t->id = s->next_tree_id++;
	if (s->next_tree_id == 0 || s->next_tree_id == UINT32_MAX) {
		s->next_tree_id = 1;
	}
	DLIST_ADD_SIMPLE(s->tcons, t);
	s->num_tcons++;
	smbd_handles_add(s, 1);
	talloc_set_destructor(t, tcon_destructor);
	return t;
}

struct smbd_tcon *smbd_tcon_find(struct smbd_session *s, uint32_t id)
{
	struct smbd_tcon *t = NULL;

	if (s == NULL) {
		return NULL;
	}
	for (t = s->tcons; t != NULL; t = t->next) {
		if (t->id == id) {
			return t;
		}
	}
	return NULL;
}
