/*
 * Handles and the descriptors they hold (issue 11, docs/architecture.md,
 * "Limits").
 *
 * Every handle (tree connect or open) holds a descriptor.  The process
 * has RLIMIT_NOFILE of them; 'smb2 fd reserve' are never given to
 * handles, so that listening, accepting and authenticating go on when
 * the handles are exhausted.  Guest and anonymous handles have a quota
 * per session, per client address and in total (by default a quarter
 * of the budget): however many guests come, the rest of the budget
 * stays for authenticated users.  Which sessions are guest or anonymous
 * is the session layer's to say (session/budget.c reclassifies).
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/files/handles.h"

/* A client address and the guest/anonymous handles its sessions hold */
struct smbd_addr_handles {
	struct smbd_addr_handles *prev, *next;
	struct smbd_server *server;
	char addr[48];
	size_t conns;
	size_t untrusted;
};

void smbd_handles_init(struct smbd_server *server)
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

/*
 * Freed before its connections (the server going down, its newer
 * children first): they forget it, so their markers find nothing.
 */
static int addr_handles_destructor(struct smbd_addr_handles *a)
{
	struct smbd_conn *conn = NULL;

	for (conn = a->server->conns; conn != NULL; conn = conn->next) {
		if (conn->addr_handles == a) {
			conn->addr_handles = NULL;
		}
	}
	DLIST_REMOVE_SIMPLE(a->server->addr_handles, a);
	return 0;
}

static int conn_addr_destructor(struct smbd_conn **pconn)
{
	struct smbd_addr_handles *a = (*pconn)->addr_handles;

	(*pconn)->addr_handles = NULL;
	if (a != NULL && --a->conns == 0) {
		talloc_free(a);
	}
	return 0;
}

/*
 * The count of conn's address, shared by its connections.  It lives
 * below the server; a marker below the connection drops the
 * connection's reference when it goes, in whichever order the two are
 * freed.
 */
int smbd_handles_conn_start(struct smbd_conn *conn)
{
	struct smbd_server *server = conn->server;
	struct smbd_addr_handles *a = NULL;
	struct smbd_conn **ref = NULL;

	for (a = server->addr_handles; a != NULL; a = a->next) {
		if (strcmp(a->addr, conn->addr) == 0) {
			break;
		}
	}
	ref = talloc(conn, struct smbd_conn *);
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
	*ref = conn;
	talloc_set_destructor(ref, conn_addr_destructor);
	conn->addr_handles = a;
	return 0;
}

void smbd_handles_reclass(struct smbd_session *s, bool untrusted)
{
	struct smbd_server *server = s->conn->server;
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

NTSTATUS smbd_handles_check(const struct smbd_session *s)
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

void smbd_handles_add(struct smbd_session *s, int delta)
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

void smbd_handles_move(struct smbd_session *s, struct smbd_conn *from,
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

bool smbd_handles_full(const struct smbd_session *s)
{
	return !NT_STATUS_IS_OK(smbd_handles_check(s));
}
