/*
 * The control socket (control.h).  It lives on the main thread's event
 * loop, which holds the server lock while it runs: a request reads and
 * changes the server's state as any event handler does.  Bounded as
 * control_ops says (oneshot.h): 16 clients, a line of 1 KiB, 10 s each.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/kvrec.h"
#include "source3/smbd/server/control.h"
#include "source3/smbd/server/oneshot.h"
#include "source3/smbd/server/server.h"
#include "source3/smbd/transport/transport.h"

struct smbd_control {
	struct smbd_server *server;
	char *path;
	ino_t ino;                      /* of our socket file */
	struct smbd_oneshot *svc;
};

static int control_destructor(struct smbd_control *ctl)
{
	struct stat st;

	TALLOC_FREE(ctl->svc);          /* closes the socket */
	/* not another daemon's, made since on the same path */
	if (stat(ctl->path, &st) == 0 && st.st_ino == ctl->ino) {
		(void)unlink(ctl->path);
	}
	return 0;
}

/* The connections that match, ended; how many. */
static size_t drop_conns(struct smbd_server *server, const char *share,
			 const char *addr, const char *why)
{
	struct smbd_conn *conn = NULL;
	size_t n = 0;

	for (conn = server->conns; conn != NULL; conn = conn->next) {
		const struct smbd_session *s = NULL;
		const struct smbd_tcon *t = NULL;
		bool hit = addr != NULL && strcmp(conn->addr, addr) == 0;

		for (s = conn->sessions; s != NULL && share != NULL && !hit;
		     s = s->next) {
			for (t = s->tcons; t != NULL && !hit; t = t->next) {
				hit = strcasecmp(t->share->name, share) == 0;
			}
		}
		if (hit && !conn->terminating) {
			smbd_conn_terminate(conn, why);
			n++;
		}
	}
	return n;
}

/* What an answer is written into (oneshot.h's answer arguments). */
struct ctl_answer {
	struct kvrec_buf *out;
	TALLOC_CTX *mem_ctx;
	bool *after;                    /* shut down once it is sent */
};

static void reply_error(struct ctl_answer *c, const char *fmt,
			const char *arg)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "error ");

	snprintf(msg + n, sizeof(msg) - n, fmt, arg);
	kvrec_raw(c->out, c->mem_ctx, msg);
	kvrec_raw(c->out, c->mem_ctx, "\n");
}

/* Carries out one request line; the answer goes to c->out. */
static void control_do(struct smbd_server *server, struct ctl_answer *c,
		       char *verb)
{
	char *arg = strchr(verb, ' ');
	size_t n;

	if (arg != NULL) {
		*arg++ = '\0';
	}
	DBG_NOTICE("control: %s%s%s\n", verb, arg != NULL ? " " : "",
		   arg != NULL ? arg : "");
	if (strcmp(verb, "ping") == 0) {
		kvrec_raw(c->out, c->mem_ctx, "ok\n");
		kvrec_begin(c->out, c->mem_ctx, "pong");
		kvrec_add(c->out, "pid", "%d", (int)getpid());
	} else if (strcmp(verb, "status") == 0) {
		kvrec_raw(c->out, c->mem_ctx, "ok\n");
		smbd_status_records(server, c->out, c);
	} else if (strcmp(verb, "reload-config") == 0) {
		if (smbd_server_reload(server, "smbcontrol reload-config")
		    != 0) {
			reply_error(c, "%s", "the configuration has errors "
				    "(see the log); the old one is kept");
			return;
		}
		kvrec_raw(c->out, c->mem_ctx, "ok\n");
	} else if (strcmp(verb, "debuglevel") == 0) {
		kvrec_raw(c->out, c->mem_ctx, "ok\n");
		kvrec_begin(c->out, c->mem_ctx, "debuglevel");
		kvrec_add(c->out, "pid", "%d", (int)getpid());
		kvrec_add(c->out, "levels", "%s", debug_get_levels(c->mem_ctx));
	} else if (strcmp(verb, "debug") == 0) {
		char *err = NULL;

		if (arg == NULL) {
			reply_error(c, "%s", "debug: a level is needed, "
				    "e.g. \"debug 3\" or \"debug 1 auth:5\"");
			return;
		}
		if (!debug_set_levels(c->mem_ctx, arg, &err)) {
			reply_error(c, "debug: %s", err);
			return;
		}
		kvrec_raw(c->out, c->mem_ctx, "ok\n");
		kvrec_begin(c->out, c->mem_ctx, "debuglevel");
		kvrec_add(c->out, "pid", "%d", (int)getpid());
		kvrec_add(c->out, "levels", "%s", debug_get_levels(c->mem_ctx));
		if (err != NULL) {
			kvrec_add(c->out, "warning", "%s", err);
		}
	} else if (strcmp(verb, "close-share") == 0 && arg != NULL) {
		n = drop_conns(server, arg, NULL, "smbcontrol close-share");
		kvrec_raw(c->out, c->mem_ctx, "ok\n");
		kvrec_begin(c->out, c->mem_ctx, "closed");
		kvrec_add(c->out, "connections", "%zu", n);
	} else if (strcmp(verb, "kill-client-ip") == 0 && arg != NULL) {
		n = drop_conns(server, NULL, arg, "smbcontrol kill-client-ip");
		kvrec_raw(c->out, c->mem_ctx, "ok\n");
		kvrec_begin(c->out, c->mem_ctx, "closed");
		kvrec_add(c->out, "connections", "%zu", n);
	} else if (strcmp(verb, "shutdown") == 0) {
		DBG_NOTICE("smbcontrol shutdown: shutting down\n");
		*c->after = true;
		kvrec_raw(c->out, c->mem_ctx, "ok\n");
	} else {
		reply_error(c, "unknown request \"%s\"", verb);
	}
}

static bool control_complete(const char *req, size_t len)
{
	return memchr(req, '\n', len) != NULL;
}

static void control_answer(void *private_data, char *req,
			   struct kvrec_buf *out, TALLOC_CTX *mem_ctx,
			   bool *after)
{
	struct smbd_control *ctl = private_data;
	struct ctl_answer c = { out, mem_ctx, after };
	char *nl = strchr(req, '\n');

	*nl = '\0';
	if (nl > req && nl[-1] == '\r') {
		nl[-1] = '\0';
	}
	control_do(ctl->server, &c, req);
}

static void control_after(void *private_data)
{
	struct smbd_control *ctl = private_data;

	ctl->server->shutting_down = true;
}

/* Root, or the user the daemon runs as (tests, a non-root daemon). */
static bool peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		return false;
	}
	return cred.uid == 0 || cred.uid == geteuid();
}

static const struct smbd_oneshot_ops control_ops = {
	.name = "control socket",
	.max_clients = 16,
	.max_request = 1024,
	.timeout_secs = 10,
	.admit = peer_allowed,
	.complete = control_complete,
	.answer = control_answer,
	.after = control_after,
};

int smbd_control_start(struct smbd_server *server)
{
	const char *dir = server->lp->g.lock_directory;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct smbd_control *ctl = talloc_zero(server, struct smbd_control);
	struct stat st;
	mode_t old_mask;
	int fd = -1, ret;

	if (ctl == NULL) {
		return -1;
	}
	ctl->server = server;
	ctl->path = talloc_asprintf(ctl, "%s/%s", dir, SMBD_CONTROL_SOCKET);
	if (ctl->path == NULL ||
	    strlen(ctl->path) >= sizeof(sun.sun_path)) {
		DBG_ERR("control socket path too long: %s/%s\n", dir,
			SMBD_CONTROL_SOCKET);
		goto fail;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", ctl->path);
	(void)mkdir(dir, 0755);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		DBG_ERR("socket: %s\n", strerror(errno));
		goto fail;
	}
	/* a stale socket of an earlier run; the pid file says none runs */
	(void)unlink(ctl->path);
	old_mask = umask(0077);
	ret = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old_mask);
	if (ret != 0 || chmod(ctl->path, 0600) != 0 ||
	    stat(ctl->path, &st) != 0 ||
	    listen(fd, (int)control_ops.max_clients) != 0) {
		DBG_ERR("cannot open the control socket %s: %s\n", ctl->path,
			strerror(errno));
		close(fd);
		goto fail;
	}
	ctl->ino = st.st_ino;
	ctl->svc = smbd_oneshot_new(ctl, server->ev, fd, &control_ops, ctl);
	if (ctl->svc == NULL) {
		(void)unlink(ctl->path);
		goto fail;
	}
	talloc_set_destructor(ctl, control_destructor);
	server->control = ctl;
	DBG_NOTICE("control socket %s\n", ctl->path);
	return 0;
fail:
	DBG_ERR("smbstatus and smbcontrol will not reach this daemon\n");
	talloc_free(ctl);
	return -1;
}
