/*
 * Sessions and tree connects: creation, lookup and teardown.  Freeing a
 * session frees its tree connects, and those their opens (talloc tree).
 */
#include "lib/util/dlist.h"
#include "source3/smbd/session.h"
#include "source3/smbd/server.h"
#include "source3/smbd/pipeline.h"

static int session_destructor(struct smbd_session *s)
{
	while (s->tcons != NULL) {
		talloc_free(s->tcons);
	}
	DLIST_REMOVE_SIMPLE(s->conn->sessions, s);
	s->conn->num_sessions--;
	return 0;
}

struct smbd_session *smbd_session_new(struct smbd_conn *conn)
{
	struct smbd_server *server = conn->server;
	struct smbd_session *s = NULL;

	if (conn->num_sessions >= SMBD_MAX_SESSIONS_PER_CONN) {
		return NULL;
	}
	s = talloc_zero(conn, struct smbd_session);
	if (s == NULL) {
		return NULL;
	}
	s->conn = conn;
	/*
	 * Unique for the server's life.  The low bits count; the high bits
	 * are random so ids are not guessable across restarts.
	 */
	s->id = (server->next_session_id++ & 0xFFFFFFFFFFULL) |
		((uint64_t)(server->session_id_salt & 0xFFFF) << 40);
	s->next_tree_id = 1;
	DLIST_ADD_SIMPLE(conn->sessions, s);
	conn->num_sessions++;
	talloc_set_destructor(s, session_destructor);
	return s;
}

struct smbd_session *smbd_session_find(struct smbd_conn *conn, uint64_t id)
{
	struct smbd_session *s = NULL;

	if (id == 0) {
		return NULL;
	}
	for (s = conn->sessions; s != NULL; s = s->next) {
		if (s->id == id && !s->dying) {
			return s;
		}
	}
	return NULL;
}

struct smbd_session *smbd_session_find_global(struct smbd_server *server,
					      uint64_t id)
{
	struct smbd_conn *conn = NULL;
	struct smbd_session *s = NULL;

	for (conn = server->conns; conn != NULL && s == NULL;
	     conn = conn->next) {
		if (!conn->terminating) {
			s = smbd_session_find(conn, id);
		}
	}
	return s;
}

void smbd_session_teardown(struct smbd_session *s)
{
	s->dying = true;
	if (!smbd_pipeline_busy(s->conn)) {
		talloc_free(s);
	}
}

void smbd_sessions_reap(struct smbd_conn *conn)
{
	struct smbd_session *s = conn->sessions, *next = NULL;

	for (; s != NULL; s = next) {
		next = s->next;
		if (s->dying) {
			talloc_free(s);
		}
	}
}

static int tcon_destructor(struct smbd_tcon *t)
{
	/* opens before the VFS handle whose root they hang below */
	while (t->opens != NULL) {
		talloc_free(t->opens);
	}
	DLIST_REMOVE_SIMPLE(t->session->tcons, t);
	t->session->num_tcons--;
	t->session->conn->num_handles--;
	return 0;
}

struct smbd_tcon *smbd_tcon_new(struct smbd_session *s)
{
	struct smbd_tcon *t = NULL;

	if (s->num_tcons >= SMBD_MAX_TCONS_PER_SESSION ||
	    s->conn->num_handles >= s->conn->server->max_handles_per_conn) {
		return NULL;
	}
	t = talloc_zero(s, struct smbd_tcon);
	if (t == NULL) {
		return NULL;
	}
	t->session = s;
	t->id = s->next_tree_id++;
	if (s->next_tree_id == 0 || s->next_tree_id == UINT32_MAX) {
		s->next_tree_id = 1;
	}
	DLIST_ADD_SIMPLE(s->tcons, t);
	s->num_tcons++;
	s->conn->num_handles++;
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
