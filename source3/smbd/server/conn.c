/*
 * Connection life cycle.
 */
#include <time.h>
#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/session/budget.h"
#include "source3/smbd/pipeline/pipeline.h"
#include "source3/smbd/server/server.h"
#include "source3/smbd/server/worker.h"
#include "source3/smbd/session/session.h"
#include "source3/smbd/transport/transport.h"
#include "source3/smbd/server/conn.h"

struct smbd_conn_free {
	struct smbd_conn *conn;
};

/*
 * The server stops while a peer has not taken what was sent to it: a
 * zero-copy send keeps its buffer until the kernel drops the pages from
 * the socket queue, which a peer that reads nothing never lets happen, so
 * the ring's teardown would wait 10 s and leak the record.  An abortive
 * close (RST) empties the queue at once; the answers were not going to
 * arrive anyway.
 */
static void close_with_reset(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) != 0) {
		DBG_INFO("SO_LINGER: %s\n", strerror(errno));
	}
}

static int conn_destructor(struct smbd_conn *conn)
{
	struct smbd_server *server = conn->server;
	struct debug_scope scope;
	bool reset;

	conn->terminating = true;       /* no limits to update any more */
	debug_client_enter(conn->log_client, &scope);
	/*
	 * sessions (and tcons, opens) go first, the socket last; a session
	 * bound to other connections stays with them (multichannel)
	 */
	smbd_sessions_conn_gone(conn);
	reset = server->shutting_down && smbd_transport_sending(conn);
	TALLOC_FREE(conn->transport);
	if (conn->fd != -1) {
		if (reset) {
			close_with_reset(conn->fd);
		}
		close(conn->fd);
	}
	DLIST_REMOVE_SIMPLE(server->conns, conn);
	server->num_conns--;
	if (conn->worker != NULL) {
		conn->worker->num_conns--;
	}
	DBG_INFO("%s: connection closed\n", conn->peer);
	debug_scope_leave(&scope);
	return 0;
}

/* The pipeline is what the transport hands PDUs to. */
static const struct smbd_transport_ops pipeline_ops = {
	.got_pdu = smbd_pipeline_got_pdu,
	.got_spliced_write = smbd_pipeline_got_spliced_write,
	.drained = smbd_pipeline_kick,
};

/*
 * Started as the client: its first receive carries the client's log
 * file on to every completion that follows (lib/uring, debug.h).
 */
static int conn_start(struct smbd_conn *conn)
{
	struct debug_scope scope;
	int ret = -1;

	debug_client_enter(conn->log_client, &scope);
	if (smbd_budget_conn_start(conn) == 0 &&
	    smbd_pipeline_init(conn) == 0 &&
	    smbd_transport_start(conn, &pipeline_ops) == 0) {
		DBG_NOTICE("%s: new connection on worker %u\n", conn->peer,
			   conn->worker->id);
		ret = 0;
	}
	debug_scope_leave(&scope);
	return ret;
}

struct smbd_conn *smbd_conn_new(struct smbd_server *server, int fd,
				const char *peer)
{
	struct smbd_conn *conn = talloc_zero(server, struct smbd_conn);

	if (conn == NULL) {
		return NULL;
	}
	conn->server = server;
	snprintf(conn->peer, sizeof(conn->peer), "%s", peer);
	smbd_peer_addr(peer, conn->addr, sizeof(conn->addr));
	conn->worker = smbd_worker_pick(server, conn->addr);
	if (conn->worker == NULL) {
		talloc_free(conn);
		return NULL;
	}
	conn->worker->num_conns++;
	conn->ev = conn->worker->ev;
	conn->ring = conn->worker->ring;
	conn->crypto_pool = conn->worker->crypto_pool;
	conn->fd = fd;
	conn->id = ++server->next_conn_id;
	conn->connected = time(NULL);
	server->stats.conns_accepted++;
	conn->last_activity = tevent_timeval_current();
	DLIST_ADD_SIMPLE(server->conns, conn);
	server->num_conns++;
	talloc_set_destructor(conn, conn_destructor);
	/* ENOMEM: its lines go to the daemon's file */
	conn->log_client = debug_client_new(conn, conn->addr);
	if (conn_start(conn) != 0) {
		conn->fd = -1;          /* the caller closes it */
		talloc_free(conn);
		return NULL;
	}
	return conn;
}

/* "addr:port" or "v6addr:port" -> "addr" */
void smbd_peer_addr(const char *peer, char *addr, size_t len)
{
	const char *colon = strrchr(peer, ':');
	size_t n = colon != NULL ? (size_t)(colon - peer) : strlen(peer);

	if (n >= len) {
		n = len - 1;
	}
	memcpy(addr, peer, n);
	addr[n] = '\0';
}
