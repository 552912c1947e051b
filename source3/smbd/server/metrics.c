/*
 * The metrics endpoint: 'metrics listen = ADDR:PORT' (off by default)
 * serves the server's counters in the Prometheus text format at
 * GET /metrics (docs/admin.md lists them).  It holds no user names,
 * paths or addresses of clients: counts only.  There is no
 * authentication, so it belongs on a loopback or management address.
 *
 * Bounded like the control socket: a few clients at a time, a request
 * head of at most METRICS_REQ bytes, each client gone after
 * METRICS_TIMEOUT seconds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "lib/param/param.h"
#include "lib/smb2/smb2_frame.h"
#include "lib/uring/uring.h"
#include "lib/util/debug.h"
#include "lib/util/kvrec.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/server/metrics.h"
#include "source3/smbd/server/worker.h"

#define METRICS_CLIENTS 8
#define METRICS_REQ 4096
#define METRICS_TIMEOUT 10

struct smbd_metrics {
	struct smbd_server *server;
	int fd;
	struct tevent_fd *fde;
	size_t num_clients;
};

struct metrics_client {
	struct smbd_metrics *m;
	int fd;
	struct tevent_fd *fde;
	struct tevent_timer *timer;
	char req[METRICS_REQ];
	size_t have;
	struct kvrec_buf out;           /* used as a plain text buffer */
	size_t sent;
};

static int metrics_destructor(struct smbd_metrics *m)
{
	close(m->fd);
	return 0;
}

static int client_destructor(struct metrics_client *c)
{
	close(c->fd);
	c->m->num_clients--;
	return 0;
}

static void put(struct metrics_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct metrics_client *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	kvrec_raw(&c->out, c, line);
}

static void head(struct metrics_client *c, const char *name,
		 const char *type, const char *help)
{
	put(c, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void one(struct metrics_client *c, const char *name,
		const char *type, const char *help, unsigned long long v)
{
	head(c, name, type, help);
	put(c, "%s %llu\n", name, v);
}

struct gauges {
	size_t sessions, tcons, opens;
};

static void count_gauges(const struct smbd_server *server, struct gauges *g)
{
	const struct smbd_conn *conn = NULL;
	const struct smbd_session *s = NULL;
	const struct smbd_tcon *t = NULL;

	*g = (struct gauges){ 0 };
	for (conn = server->conns; conn != NULL; conn = conn->next) {
		for (s = conn->sessions; s != NULL; s = s->next) {
			g->sessions += s->valid && !s->dying ? 1 : 0;
			for (t = s->tcons; t != NULL; t = t->next) {
				g->tcons++;
				g->opens += t->num_opens;
			}
		}
	}
}

static void requests(struct metrics_client *c, const struct smbd_stats *st)
{
	unsigned long long cum = 0;
	unsigned i;

	head(c, "ringsmb_requests_total", "counter",
	     "SMB2 requests answered, by command.");
	for (i = 0; i < SMB2_OP_COUNT; i++) {
		put(c, "ringsmb_requests_total{command=\"%s\"} %llu\n",
		    smb2_op_name(i), (unsigned long long)st->requests[i]);
	}
	head(c, "ringsmb_request_errors_total", "counter",
	     "SMB2 requests answered with an error status, by command.");
	for (i = 0; i < SMB2_OP_COUNT; i++) {
		put(c, "ringsmb_request_errors_total{command=\"%s\"} %llu\n",
		    smb2_op_name(i), (unsigned long long)st->failed[i]);
	}
	head(c, "ringsmb_request_duration_seconds", "histogram",
	     "Time from a request's start to its final response.");
	for (i = 0; i < SMBD_STATS_LATENCY_BUCKETS; i++) {
		cum += st->latency[i];
		put(c, "ringsmb_request_duration_seconds_bucket{le=\"%g\"} "
		    "%llu\n", smbd_stats_latency_usec[i] / 1e6, cum);
	}
	cum += st->latency[SMBD_STATS_LATENCY_BUCKETS];
	put(c, "ringsmb_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
	    cum);
	put(c, "ringsmb_request_duration_seconds_sum %.6f\n",
	    st->latency_usec / 1e6);
	put(c, "ringsmb_request_duration_seconds_count %llu\n", cum);
}

static void render(struct metrics_client *c)
{
	struct smbd_server *server = c->m->server;
	const struct smbd_stats *st = &server->stats;
	const struct smbd_lease *l = NULL;
	struct uring_stats ring;
	unsigned crypto_queued;
	struct gauges g;
	size_t leases = 0;

	count_gauges(server, &g);
	for (l = server->leases; l != NULL; l = l->next) {
		leases++;
	}
	smbd_workers_stats(server, &ring, &crypto_queued);
	requests(c, st);
	one(c, "ringsmb_read_bytes_total", "counter",
	    "File data returned by READ.", st->bytes_read);
	one(c, "ringsmb_written_bytes_total", "counter",
	    "File data received in WRITE.", st->bytes_written);
	one(c, "ringsmb_received_bytes_total", "counter",
	    "Bytes of SMB frames received, NetBIOS headers included.",
	    st->bytes_in);
	one(c, "ringsmb_sent_bytes_total", "counter",
	    "Bytes of SMB frames queued to send, NetBIOS headers included.",
	    st->bytes_out);
	one(c, "ringsmb_credits_granted_total", "counter",
	    "Credits granted in responses.", st->credits_granted);
	one(c, "ringsmb_connections_accepted_total", "counter",
	    "Client connections accepted.", st->conns_accepted);
	one(c, "ringsmb_logons_total", "counter",
	    "Completed logons (SESSION_SETUP), successful or not.",
	    st->logons);
	one(c, "ringsmb_logon_failures_total", "counter",
	    "Logons that failed.", st->logons_failed);
	one(c, "ringsmb_spliced_reads_total", "counter",
	    "READs answered from a pipe (smb2 read mode = splice).",
	    st->reads_spliced);
	one(c, "ringsmb_zerocopy_sends_total", "counter",
	    "Responses sent with SENDMSG_ZC (smb2 read mode = zerocopy).",
	    st->sends_zerocopy);
	one(c, "ringsmb_uring_enter_calls_total", "counter",
	    "io_uring_enter system calls that submitted, all workers.",
	    ring.enter_calls);
	one(c, "ringsmb_uring_submissions_total", "counter",
	    "SQEs the kernel accepted, all workers.", ring.sqes_submitted);
	one(c, "ringsmb_uring_completions_total", "counter",
	    "CQEs reaped, all workers.", ring.cqes_reaped);
	one(c, "ringsmb_uring_inflight", "gauge",
	    "SQEs submitted whose completion has not been seen.",
	    ring.inflight);
	one(c, "ringsmb_crypto_pool_queued", "gauge",
	    "Signing and encryption jobs waiting for a crypto pool thread.",
	    crypto_queued);
	one(c, "ringsmb_connections", "gauge", "Client connections now.",
	    server->num_conns);
	one(c, "ringsmb_sessions", "gauge", "Authenticated sessions now.",
	    g.sessions);
	one(c, "ringsmb_tree_connects", "gauge", "Tree connects now.",
	    g.tcons);
	one(c, "ringsmb_open_files", "gauge",
	    "Open files and directories now (durable ones whose client "
	    "went are counted apart).", g.opens);
	one(c, "ringsmb_durable_disconnected_opens", "gauge",
	    "Durable opens waiting for their client to reconnect.",
	    server->num_disconnected);
	one(c, "ringsmb_leases", "gauge", "Leases held now.", leases);
	one(c, "ringsmb_workers", "gauge", "Worker threads serving clients.",
	    server->num_workers);
	head(c, "ringsmb_start_time_seconds", "gauge",
	     "When smbd started, as Unix time.");
	put(c, "ringsmb_start_time_seconds %lld\n",
	    (long long)(server->start_time / 10000000 - 11644473600LL));
}

static void client_timeout(struct tevent_context *ev, struct tevent_timer *te,
			   struct timeval now, void *private_data)
{
	talloc_free(private_data);
}

/* The answer to the request head in c->req, into c->out. */
static void answer(struct metrics_client *c)
{
	struct kvrec_buf body = { 0 };
	const char *status = "200 OK";

	if (strncmp(c->req, "GET /metrics ", 13) == 0 ||
	    strncmp(c->req, "GET /metrics?", 13) == 0) {
		render(c);
	} else if (strncmp(c->req, "GET ", 4) == 0) {
		status = "404 Not Found";
		kvrec_raw(&c->out, c, "only /metrics is served here\n");
	} else {
		status = "405 Method Not Allowed";
		kvrec_raw(&c->out, c, "GET /metrics\n");
	}
	body = c->out;
	c->out = (struct kvrec_buf){ 0 };
	put(c, "HTTP/1.0 %s\r\nContent-Type: text/plain; version=0.0.4; "
	    "charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n"
	    "\r\n", status, body.len);
	if (body.s != NULL) {
		kvrec_raw(&c->out, c, body.s);
	}
	c->out.failed = c->out.failed || body.failed;
	talloc_free(body.s);
}

static void client_io(struct tevent_context *ev, struct tevent_fd *fde,
		      uint16_t flags, void *private_data)
{
	struct metrics_client *c = private_data;
	ssize_t n;

	if (flags & TEVENT_FD_WRITE) {
		n = send(c->fd, c->out.s + c->sent, c->out.len - c->sent,
			 MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			return;
		}
		c->sent += n > 0 ? (size_t)n : 0;
		if (n <= 0 || c->sent == c->out.len) {
			talloc_free(c);
		}
		return;
	}
	n = recv(c->fd, c->req + c->have, sizeof(c->req) - 1 - c->have, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return;
	}
	if (n <= 0) {
		talloc_free(c);
		return;
	}
	c->have += (size_t)n;
	c->req[c->have] = '\0';
	if (strstr(c->req, "\r\n\r\n") == NULL &&
	    strstr(c->req, "\n\n") == NULL) {
		if (c->have == sizeof(c->req) - 1) {
			talloc_free(c);         /* no head of that size */
		}
		return;
	}
	answer(c);
	if (c->out.failed) {
		talloc_free(c);
		return;
	}
	tevent_fd_set_flags(c->fde, TEVENT_FD_WRITE);
}

static void metrics_accept(struct tevent_context *ev, struct tevent_fd *fde,
			   uint16_t flags, void *private_data)
{
	struct smbd_metrics *m = private_data;
	struct metrics_client *c = NULL;
	int fd = accept4(m->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0) {
		return;
	}
	if (m->num_clients >= METRICS_CLIENTS) {
		close(fd);
		return;
	}
	c = talloc_zero(m, struct metrics_client);
	if (c == NULL) {
		close(fd);
		return;
	}
	c->m = m;
	c->fd = fd;
	m->num_clients++;
	talloc_set_destructor(c, client_destructor);
	c->fde = tevent_add_fd(ev, c, fd, TEVENT_FD_READ, client_io, c);
	c->timer = tevent_add_timer(ev, c, tevent_timeval_current_ofs(
					    METRICS_TIMEOUT, 0),
				    client_timeout, c);
	if (c->fde == NULL || c->timer == NULL) {
		talloc_free(c);
	}
}

int smbd_metrics_start(struct smbd_server *server)
{
	const char *where = server->lp->g.metrics_listen;
	struct sockaddr_storage ss;
	struct smbd_metrics *m = NULL;
	socklen_t len = 0;
	int one = 1;

	if (where == NULL || where[0] == '\0') {
		return 0;
	}
	if (!lp_parse_listen_addr(where, &ss, &len)) {
		DBG_ERR("metrics listen = %s: not ADDRESS:PORT\n", where);
		return -1;
	}
	m = talloc_zero(server, struct smbd_metrics);
	if (m == NULL) {
		return -1;
	}
	m->server = server;
	m->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		       SOCK_CLOEXEC, 0);
	if (m->fd < 0) {
		DBG_ERR("metrics: socket: %s\n", strerror(errno));
		talloc_free(m);
		return -1;
	}
	talloc_set_destructor(m, metrics_destructor);
	(void)setsockopt(m->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(m->fd, (struct sockaddr *)&ss, len) != 0 ||
	    listen(m->fd, METRICS_CLIENTS) != 0) {
		DBG_ERR("metrics listen = %s: %s\n", where, strerror(errno));
		talloc_free(m);
		return -1;
	}
	m->fde = tevent_add_fd(server->ev, m, m->fd, TEVENT_FD_READ,
			       metrics_accept, m);
	if (m->fde == NULL) {
		talloc_free(m);
		return -1;
	}
	server->metrics = m;
	DBG_NOTICE("metrics on http://%s/metrics\n", where);
	return 0;
}
