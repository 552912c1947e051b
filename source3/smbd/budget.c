/*
 * Limits for untrusted clients (issue 11, RELIABILITY.md G4, G5).
 *
 * A guest or anonymous logon proves nothing about the client, so it
 * must not lift what an unauthenticated connection may cost: the PDU
 * size stays at 'smb2 untrusted max pdu' and the connection goes after
 * 'smb2 untrusted timeout' seconds without a request.  A connection is
 * trusted once it has a valid session of a real user (or is a channel
 * of one), and becomes untrusted again when that user logs off.
 *
 * Every handle (tree connect or open) holds a descriptor.  The process
 * has RLIMIT_NOFILE of them; 'smb2 fd reserve' are never given to
 * handles, so that listening, accepting and authenticating go on when
 * the handles are exhausted.  Guest and anonymous handles have a quota
 * per session, per client address and in total (by default a quarter
 * of the budget): however many guests come, the rest of the budget
 * stays for authenticated users.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/budget.h"
#include "source3/smbd/server.h"
#include "source3/smbd/transport.h"

/* A client address and the guest/anonymous handles its sessions hold */
struct smbd_addr_handles {
	struct smbd_addr_handles *prev, *next;
	struct smbd_server *server;
	char addr[48];
	size_t conns;
	size_t untrusted;
};

void smbd_budget_init(struct smbd_server *server)
{
	const struct lp_global *g = &server->lp->g;
	struct rlimit rl = { .rlim_cur = 1024, .rlim_max = 1024 };
	size_t nofile = 0, reserve = (size_t)g->fd_reserve;
	size_t budget = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		rl.rlim_cur = rl.rlim_max = 1024;
	}
	nofile = rl.rlim_cur > (1 << 24) ? (1 << 24) : (size_t)rl.rlim_cur;
	if (reserve > nofile / 2) {
		reserve = nofile / 2;   /* a small limit: half for handles */
	}
	budget = nofile - reserve;
	if (g->max_open_files > 0 && (size_t)g->max_open_files < budget) {
		budget = (size_t)g->max_open_files;
	}
	server->handle_budget = budget;
	server->untrusted_budget = g->untrusted_max_open_files_total > 0 ?
		(size_t)g->untrusted_max_open_files_total : budget / 4;
	if (server->untrusted_budget > budget) {
		server->untrusted_budget = budget;
	}
	DBG_NOTICE("descriptors: RLIMIT_NOFILE %llu (hard %llu), reserve "
		   "%zu, handles %zu, of them guest/anonymous %zu (%d per "
		   "session, %d per client)\n",
		   (unsigned long long)rl.rlim_cur,
		   (unsigned long long)rl.rlim_max, reserve, budget,
		   server->untrusted_budget, g->untrusted_max_open_files,
		   g->untrusted_max_open_files_per_client);
}

static int addr_handles_destructor(struct smbd_addr_handles *a)
{
	DLIST_REMOVE_SIMPLE(a->server->addr_handles, a);
	return 0;
}

static int conn_addr_destructor(struct smbd_addr_handles **pa)
{
	struct smbd_addr_handles *a = *pa;

	if (a != NULL && --a->conns == 0) {
		talloc_free(a);
	}
	return 0;
}

/*
 * The count of conn's address, shared by its connections.  It lives
 * below the server; a marker below the connection drops the
 * connection's reference when it goes.
 */
int smbd_budget_conn_start(struct smbd_conn *conn)
{
	struct smbd_server *server = conn->server;
	struct smbd_addr_handles *a = NULL;
	struct smbd_addr_handles **ref = NULL;

	for (a = server->addr_handles; a != NULL; a = a->next) {
		if (strcmp(a->addr, conn->addr) == 0) {
			break;
		}
	}
	ref = talloc(conn, struct smbd_addr_handles *);
	if (ref == NULL) {
		return -1;
	}
	if (a == NULL) {
		a = talloc_zero(server, struct smbd_addr_handles);
		if (a == NULL) {
			talloc_free(ref);
			return -1;
		}
		a->server = server;
		snprintf(a->addr, sizeof(a->addr), "%s", conn->addr);
		DLIST_ADD_SIMPLE(server->addr_handles, a);
		talloc_set_destructor(a, addr_handles_destructor);
	}
	a->conns++;
	*ref = a;
	talloc_set_destructor(ref, conn_addr_destructor);
	conn->addr_handles = a;
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
	conn->unauth_timer = tevent_add_timer(conn->server->ev, conn, at,
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

/* A session's handles move to the class of what it is now. */
static void session_reclass(struct smbd_session *s)
{
	struct smbd_server *server = s->conn->server;
	bool untrusted = !smbd_session_trusted(s);
	struct smbd_addr_handles *a = s->conn->addr_handles;

	if (untrusted == s->handles_untrusted) {
		return;
	}
	if (untrusted) {
		server->handles_untrusted += s->num_handles;
		if (a != NULL) {
			a->untrusted += s->num_handles;
		}
	} else {
		server->handles_untrusted -= s->num_handles;
		if (a != NULL) {
			a->untrusted -= s->num_handles;
		}
	}
	s->handles_untrusted = untrusted;
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
		session_reclass(s);
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

NTSTATUS smbd_budget_handle_check(const struct smbd_session *s)
{
	const struct smbd_conn *conn = s->conn;
	const struct smbd_server *server = conn->server;
	const struct lp_global *g = &server->lp->g;
	const struct smbd_addr_handles *a = conn->addr_handles;
	const char *what = NULL;

	if (conn->num_handles >= server->max_handles_per_conn) {
		what = "connection";
	} else if (server->handles_total >= server->handle_budget) {
		what = "server ('max open files', RLIMIT_NOFILE)";
	} else if (!s->handles_untrusted) {
		if (s->num_handles >= (size_t)g->max_open_files_per_session) {
			what = "session";
		}
	} else if (s->num_handles >= (size_t)g->untrusted_max_open_files) {
		what = "guest/anonymous session";
	} else if (a != NULL && a->untrusted >=
		   (size_t)g->untrusted_max_open_files_per_client) {
		what = "guest/anonymous handles of the client address";
	} else if (server->handles_untrusted >= server->untrusted_budget) {
		what = "guest/anonymous handles in total";
	}
	if (what == NULL) {
		return NT_STATUS_OK;
	}
	DBG_INFO("%s: handle quota of the %s reached\n", conn->peer, what);
	return NT_STATUS_TOO_MANY_OPENED_FILES;
}

void smbd_budget_handles_add(struct smbd_session *s, int delta)
{
	struct smbd_server *server = s->conn->server;

	s->num_handles += delta;
	s->conn->num_handles += delta;
	server->handles_total += delta;
	if (s->handles_untrusted) {
		server->handles_untrusted += delta;
		if (s->conn->addr_handles != NULL) {
			s->conn->addr_handles->untrusted += delta;
		}
	}
}

void smbd_budget_session_move(struct smbd_session *s, struct smbd_conn *from,
			      struct smbd_conn *to)
{
	from->num_handles -= s->num_handles;
	to->num_handles += s->num_handles;
	if (!s->handles_untrusted) {
		return;
	}
	if (from->addr_handles != NULL) {
		from->addr_handles->untrusted -= s->num_handles;
	}
	if (to->addr_handles != NULL) {
		to->addr_handles->untrusted += s->num_handles;
	}
}
