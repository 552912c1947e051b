/*
 * The metrics endpoint: 'metrics listen = ADDR:PORT' (off by default)
 * serves the server's counters in the Prometheus text format at
 * GET /metrics (docs/admin.md lists them).  It holds no user names,
 * paths or addresses of clients: counts only.  There is no
 * authentication, so it belongs on a loopback or management address.
 *
 * Bounded as metrics_ops says (oneshot.h): 8 clients, a request head of
 * 4 KiB, 10 s each.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
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
#include "source3/smbd/server/oneshot.h"
#include "source3/smbd/server/worker.h"

struct smbd_metrics {
	struct smbd_server *server;
	struct smbd_oneshot *svc;
};

/* Where the page is written (oneshot.h's answer arguments). */
struct metrics_client {
	struct smbd_metrics *m;
	struct kvrec_buf *out;          /* used as a plain text buffer */
	TALLOC_CTX *mem_ctx;
};

static void put(struct metrics_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct metrics_client *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	kvrec_raw(c->out, c->mem_ctx, line);
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

/* The plain counters of struct smbd_stats, in the page's order. */
static const struct {
	const char *name;
	const char *help;
	size_t offset;
} counters[] = {
#define C(name, field, help) \
	{ name, help, offsetof(struct smbd_stats, field) }
	C("ringsmb_read_bytes_total", bytes_read,
	  "File data returned by READ."),
	C("ringsmb_written_bytes_total", bytes_written,
	  "File data received in WRITE."),
	C("ringsmb_received_bytes_total", bytes_in,
	  "Bytes of SMB frames received, NetBIOS headers included."),
	C("ringsmb_sent_bytes_total", bytes_out,
	  "Bytes of SMB frames queued to send, NetBIOS headers included."),
	C("ringsmb_credits_granted_total", credits_granted,
	  "Credits granted in responses."),
	C("ringsmb_connections_accepted_total", conns_accepted,
	  "Client connections accepted."),
	C("ringsmb_logons_total", logons,
	  "Completed logons (SESSION_SETUP), successful or not."),
	C("ringsmb_logon_failures_total", logons_failed,
	  "Logons that failed."),
	C("ringsmb_spliced_reads_total", reads_spliced,
	  "READs answered from a pipe (smb2 read mode = splice)."),
	C("ringsmb_mapped_reads_total", reads_mapped,
	  "READs answered from a mapping of the file (files/read_map.c)."),
	C("ringsmb_zerocopy_sends_total", sends_zerocopy,
	  "Responses sent with SENDMSG_ZC (smb2 read mode = zerocopy)."),
#undef C
};

static void render(struct metrics_client *c)
{
	struct smbd_server *server = c->m->server;
	const struct smbd_stats *st = &server->stats;
	const struct smbd_lease *l = NULL;
	struct uring_stats ring;
	unsigned crypto_queued;
	struct gauges g;
	size_t leases = 0, i;

	count_gauges(server, &g);
	for (l = server->leases; l != NULL; l = l->next) {
		leases++;
	}
	smbd_workers_stats(server, &ring, &crypto_queued);
	requests(c, st);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		one(c, counters[i].name, "counter", counters[i].help,
		    *(const uint64_t *)((const char *)st +
					counters[i].offset));
	}
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
	one(c, "ringsmb_uring_faults_total", "counter",
	    "Ring operations faulted on purpose (vfs_error's error:ring).",
	    ring.faults);
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

static bool metrics_complete(const char *req, size_t len)
{
	return strstr(req, "\r\n\r\n") != NULL || strstr(req, "\n\n") != NULL;
}

/* The answer to an HTTP request head: the page, 404 or 405. */
static void metrics_answer(void *private_data, char *req,
			   struct kvrec_buf *out, TALLOC_CTX *mem_ctx,
			   bool *after)
{
	struct kvrec_buf body = { 0 };
	struct metrics_client c = { private_data, &body, mem_ctx };
	const char *status = "200 OK";

	if (strncmp(req, "GET /metrics ", 13) == 0 ||
	    strncmp(req, "GET /metrics?", 13) == 0) {
		render(&c);
	} else if (strncmp(req, "GET ", 4) == 0) {
		status = "404 Not Found";
		kvrec_raw(&body, mem_ctx, "only /metrics is served here\n");
	} else {
		status = "405 Method Not Allowed";
		kvrec_raw(&body, mem_ctx, "GET /metrics\n");
	}
	c.out = out;
	put(&c, "HTTP/1.0 %s\r\nContent-Type: text/plain; version=0.0.4; "
	    "charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n"
	    "\r\n", status, body.len);
	if (body.s != NULL) {
		kvrec_raw(out, mem_ctx, body.s);
	}
	out->failed = out->failed || body.failed;
	talloc_free(body.s);
}

static const struct smbd_oneshot_ops metrics_ops = {
	.name = "metrics",
	.max_clients = 8,
	.max_request = 4096,
	.timeout_secs = 10,
	.complete = metrics_complete,
	.answer = metrics_answer,
};

int smbd_metrics_start(struct smbd_server *server)
{
	const char *where = server->lp->g.metrics_listen;
	struct sockaddr_storage ss;
	struct smbd_metrics *m = NULL;
	socklen_t len = 0;
	int fd, one = 1;

	if (where == NULL || where[0] == '\0') {
		return 0;
	}
	if (!lp_parse_listen_addr(where, &ss, &len)) {
		DBG_ERR("metrics listen = %s: not ADDRESS:PORT\n", where);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		DBG_ERR("metrics: socket: %s\n", strerror(errno));
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) != 0 ||
	    listen(fd, (int)metrics_ops.max_clients) != 0) {
		DBG_ERR("metrics listen = %s: %s\n", where, strerror(errno));
		close(fd);
		return -1;
	}
	m = talloc_zero(server, struct smbd_metrics);
	if (m == NULL) {
		close(fd);
		return -1;
	}
	m->server = server;
	m->svc = smbd_oneshot_new(m, server->ev, fd, &metrics_ops, m);
	if (m->svc == NULL) {
		talloc_free(m);
		return -1;
	}
	server->metrics = m;
	DBG_NOTICE("metrics on http://%s/metrics\n", where);
	return 0;
}
