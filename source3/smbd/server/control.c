/*
 * The control socket (control.h).  It lives on the main thread's event
 * loop, which holds the server lock while it runs: a request reads and
 * changes the server's state as any event handler does.
 *
 * Bounded like the client side: at most SMBD_CONTROL_CLIENTS at once,
 * a request line of at most SMBD_CONTROL_LINE bytes, and each client
 * gone after SMBD_CONTROL_TIMEOUT seconds whatever it did.
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
#include "source3/smbd/server/server.h"
#include "source3/smbd/transport/transport.h"

#define SMBD_CONTROL_CLIENTS 16
#define SMBD_CONTROL_LINE 1024
#define SMBD_CONTROL_TIMEOUT 10

struct smbd_control {
	struct smbd_server *server;
	int fd;
	char *path;
	ino_t ino;                      /* of our socket file */
	struct tevent_fd *fde;
	size_t num_clients;
};

struct ctl_client {
	struct smbd_control *ctl;
	int fd;
	struct tevent_fd *fde;
	struct tevent_timer *timer;
	char line[SMBD_CONTROL_LINE];
	size_t have;
	struct kvrec_buf out;
	size_t sent;
	bool shutdown;                  /* once the answer is out */
};

static int control_destructor(struct smbd_control *ctl)
{
	struct stat st;

	close(ctl->fd);
	/* not another daemon's, made since on the same path */
	if (stat(ctl->path, &st) == 0 && st.st_ino == ctl->ino) {
		(void)unlink(ctl->path);
	}
	return 0;
}

static int client_destructor(struct ctl_client *c)
{
	if (c->shutdown) {
		c->ctl->server->shutting_down = true;
	}
	close(c->fd);
	c->ctl->num_clients--;
	return 0;
}

static void client_timeout(struct tevent_context *ev, struct tevent_timer *te,
			   struct timeval now, void *private_data)
{
	struct ctl_client *c = private_data;

	DBG_INFO("control client timed out\n");
	talloc_free(c);
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

static void reply_error(struct ctl_client *c, const char *fmt, const char *arg)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "error ");

	snprintf(msg + n, sizeof(msg) - n, fmt, arg);
	kvrec_raw(&c->out, c, msg);
	kvrec_raw(&c->out, c, "\n");
}

/* Carries out one request line; the answer goes to c->out. */
static void control_do(struct ctl_client *c, char *verb)
{
	struct smbd_server *server = c->ctl->server;
	char *arg = strchr(verb, ' ');
	size_t n;

	if (arg != NULL) {
		*arg++ = '\0';
	}
	DBG_NOTICE("control: %s%s%s\n", verb, arg != NULL ? " " : "",
		   arg != NULL ? arg : "");
	if (strcmp(verb, "ping") == 0) {
		kvrec_raw(&c->out, c, "ok\n");
		kvrec_begin(&c->out, c, "pong");
		kvrec_add(&c->out, "pid", "%d", (int)getpid());
	} else if (strcmp(verb, "status") == 0) {
		kvrec_raw(&c->out, c, "ok\n");
		smbd_status_records(server, &c->out, c);
	} else if (strcmp(verb, "reload-config") == 0) {
		if (smbd_server_reload(server, "smbcontrol reload-config")
		    != 0) {
			reply_error(c, "%s", "the configuration has errors "
				    "(see the log); the old one is kept");
			return;
		}
		kvrec_raw(&c->out, c, "ok\n");
	} else if (strcmp(verb, "debuglevel") == 0) {
		kvrec_raw(&c->out, c, "ok\n");
		kvrec_begin(&c->out, c, "debuglevel");
		kvrec_add(&c->out, "pid", "%d", (int)getpid());
		kvrec_add(&c->out, "levels", "%s", debug_get_levels(c));
	} else if (strcmp(verb, "debug") == 0) {
		char *err = NULL;

		if (arg == NULL) {
			reply_error(c, "%s", "debug: a level is needed, "
				    "e.g. \"debug 3\" or \"debug 1 auth:5\"");
			return;
		}
		if (!debug_set_levels(c, arg, &err)) {
			reply_error(c, "debug: %s", err);
			return;
		}
		kvrec_raw(&c->out, c, "ok\n");
		kvrec_begin(&c->out, c, "debuglevel");
		kvrec_add(&c->out, "pid", "%d", (int)getpid());
		kvrec_add(&c->out, "levels", "%s", debug_get_levels(c));
		if (err != NULL) {
			kvrec_add(&c->out, "warning", "%s", err);
		}
	} else if (strcmp(verb, "close-share") == 0 && arg != NULL) {
		n = drop_conns(server, arg, NULL, "smbcontrol close-share");
		kvrec_raw(&c->out, c, "ok\n");
		kvrec_begin(&c->out, c, "closed");
		kvrec_add(&c->out, "connections", "%zu", n);
	} else if (strcmp(verb, "kill-client-ip") == 0 && arg != NULL) {
		n = drop_conns(server, NULL, arg, "smbcontrol kill-client-ip");
		kvrec_raw(&c->out, c, "ok\n");
		kvrec_begin(&c->out, c, "closed");
		kvrec_add(&c->out, "connections", "%zu", n);
	} else if (strcmp(verb, "shutdown") == 0) {
		DBG_NOTICE("smbcontrol shutdown: shutting down\n");
		c->shutdown = true;
		kvrec_raw(&c->out, c, "ok\n");
	} else {
		reply_error(c, "unknown request \"%s\"", verb);
	}
}

static void client_io(struct tevent_context *ev, struct tevent_fd *fde,
		      uint16_t flags, void *private_data);

static void client_got_line(struct ctl_client *c)
{
	char *nl = memchr(c->line, '\n', c->have);

	*nl = '\0';
	if (nl > c->line && nl[-1] == '\r') {
		nl[-1] = '\0';
	}
	control_do(c, c->line);
	kvrec_end(&c->out, c);
	if (c->out.failed) {
		DBG_ERR("control: out of memory for the answer\n");
		talloc_free(c);
		return;
	}
	tevent_fd_set_flags(c->fde, TEVENT_FD_WRITE);
}

static void client_io(struct tevent_context *ev, struct tevent_fd *fde,
		      uint16_t flags, void *private_data)
{
	struct ctl_client *c = private_data;
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
	n = recv(c->fd, c->line + c->have, sizeof(c->line) - 1 - c->have, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return;
	}
	if (n <= 0) {
		talloc_free(c);
		return;
	}
	c->have += (size_t)n;
	if (memchr(c->line, '\n', c->have) != NULL) {
		client_got_line(c);
	} else if (c->have == sizeof(c->line) - 1) {
		DBG_INFO("control: request line too long\n");
		talloc_free(c);
	}
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

static void control_accept(struct tevent_context *ev, struct tevent_fd *fde,
			   uint16_t flags, void *private_data)
{
	struct smbd_control *ctl = private_data;
	struct ctl_client *c = NULL;
	int fd = accept4(ctl->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0) {
		return;
	}
	if (ctl->num_clients >= SMBD_CONTROL_CLIENTS || !peer_allowed(fd)) {
		DBG_NOTICE("control: connection refused (%s)\n",
			   ctl->num_clients >= SMBD_CONTROL_CLIENTS ?
			   "too many" : "not root");
		close(fd);
		return;
	}
	c = talloc_zero(ctl, struct ctl_client);
	if (c == NULL) {
		close(fd);
		return;
	}
	c->ctl = ctl;
	c->fd = fd;
	ctl->num_clients++;
	talloc_set_destructor(c, client_destructor);
	c->fde = tevent_add_fd(ev, c, fd, TEVENT_FD_READ, client_io, c);
	c->timer = tevent_add_timer(ev, c, tevent_timeval_current_ofs(
					    SMBD_CONTROL_TIMEOUT, 0),
				    client_timeout, c);
	if (c->fde == NULL || c->timer == NULL) {
		talloc_free(c);
	}
}

int smbd_control_start(struct smbd_server *server)
{
	const char *dir = server->lp->g.lock_directory;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct smbd_control *ctl = talloc_zero(server, struct smbd_control);
	struct stat st;
	mode_t old_mask;
	int ret;

	if (ctl == NULL) {
		return -1;
	}
	ctl->server = server;
	ctl->fd = -1;
	ctl->path = talloc_asprintf(ctl, "%s/%s", dir, SMBD_CONTROL_SOCKET);
	if (ctl->path == NULL) {
		goto fail;
	}
	if (strlen(ctl->path) >= sizeof(sun.sun_path)) {
		DBG_ERR("control socket path too long: %s\n", ctl->path);
		goto fail;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", ctl->path);
	(void)mkdir(dir, 0755);
	ctl->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			 0);
	if (ctl->fd < 0) {
		DBG_ERR("socket: %s\n", strerror(errno));
		goto fail;
	}
	/* a stale socket of an earlier run; the pid file says none runs */
	(void)unlink(ctl->path);
	old_mask = umask(0077);
	ret = bind(ctl->fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old_mask);
	if (ret != 0 || chmod(ctl->path, 0600) != 0 ||
	    stat(ctl->path, &st) != 0 ||
	    listen(ctl->fd, SMBD_CONTROL_CLIENTS) != 0) {
		DBG_ERR("cannot open the control socket %s: %s\n", ctl->path,
			strerror(errno));
		close(ctl->fd);
		goto fail;
	}
	ctl->ino = st.st_ino;
	talloc_set_destructor(ctl, control_destructor);
	ctl->fde = tevent_add_fd(server->ev, ctl, ctl->fd, TEVENT_FD_READ,
				 control_accept, ctl);
	if (ctl->fde == NULL) {
		talloc_free(ctl);
		return -1;
	}
	server->control = ctl;
	DBG_NOTICE("control socket %s\n", ctl->path);
	return 0;
fail:
	DBG_ERR("smbstatus and smbcontrol will not reach this daemon\n");
	talloc_free(ctl);
	return -1;
}
