/*
 * One request, one answer, on the main loop (oneshot.h).
 */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lib/util/debug.h"
#include "lib/util/kvrec.h"
#include "source3/smbd/server/oneshot.h"

struct smbd_oneshot {
	const struct smbd_oneshot_ops *ops;
	void *private_data;
	int fd;
	struct tevent_fd *fde;
	size_t num_clients;
};

struct oneshot_client {
	struct smbd_oneshot *svc;
	int fd;
	struct tevent_fd *fde;
	struct tevent_timer *timer;
	char *req;                      /* ops->max_request + 1 bytes */
	size_t have;
	struct kvrec_buf out;
	size_t sent;
	bool after;
};

static int oneshot_destructor(struct smbd_oneshot *svc)
{
	close(svc->fd);
	return 0;
}

static int client_destructor(struct oneshot_client *c)
{
	close(c->fd);
	c->svc->num_clients--;
	if (c->after) {
		c->svc->ops->after(c->svc->private_data);
	}
	return 0;
}

static void client_timeout(struct tevent_context *ev, struct tevent_timer *te,
			   struct timeval now, void *private_data)
{
	struct oneshot_client *c = private_data;

	DBG_INFO("%s: client timed out\n", c->svc->ops->name);
	talloc_free(c);
}

static void client_send(struct oneshot_client *c)
{
	ssize_t n = send(c->fd, c->out.s + c->sent, c->out.len - c->sent,
			 MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return;
	}
	c->sent += n > 0 ? (size_t)n : 0;
	if (n <= 0 || c->sent == c->out.len) {
		talloc_free(c);
	}
}

static void client_recv(struct oneshot_client *c)
{
	const struct smbd_oneshot_ops *ops = c->svc->ops;
	ssize_t n = recv(c->fd, c->req + c->have, ops->max_request - c->have,
			 0);

	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return;
	}
	if (n <= 0) {
		talloc_free(c);
		return;
	}
	c->have += (size_t)n;
	c->req[c->have] = '\0';
	if (!ops->complete(c->req, c->have)) {
		if (c->have == ops->max_request) {
			DBG_INFO("%s: request too long\n", ops->name);
			talloc_free(c);
		}
		return;
	}
	ops->answer(c->svc->private_data, c->req, &c->out, c, &c->after);
	kvrec_end(&c->out, c);
	if (c->out.failed) {
		DBG_ERR("%s: out of memory for the answer\n", ops->name);
		talloc_free(c);
		return;
	}
	tevent_fd_set_flags(c->fde, TEVENT_FD_WRITE);
}

static void client_io(struct tevent_context *ev, struct tevent_fd *fde,
		      uint16_t flags, void *private_data)
{
	if (flags & TEVENT_FD_WRITE) {
		client_send(private_data);
	} else {
		client_recv(private_data);
	}
}

static void oneshot_accept(struct tevent_context *ev, struct tevent_fd *fde,
			   uint16_t flags, void *private_data)
{
	struct smbd_oneshot *svc = private_data;
	const struct smbd_oneshot_ops *ops = svc->ops;
	struct oneshot_client *c = NULL;
	int fd = accept4(svc->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0) {
		return;
	}
	if (svc->num_clients >= ops->max_clients ||
	    (ops->admit != NULL && !ops->admit(fd))) {
		DBG_NOTICE("%s: connection refused (%s)\n", ops->name,
			   svc->num_clients >= ops->max_clients ?
			   "too many" : "not allowed");
		close(fd);
		return;
	}
	c = talloc_zero(svc, struct oneshot_client);
	if (c == NULL) {
		close(fd);
		return;
	}
	c->svc = svc;
	c->fd = fd;
	svc->num_clients++;
	talloc_set_destructor(c, client_destructor);
	c->req = talloc_array(c, char, ops->max_request + 1);
	c->fde = tevent_add_fd(ev, c, fd, TEVENT_FD_READ, client_io, c);
	c->timer = tevent_add_timer(ev, c, tevent_timeval_current_ofs(
					    ops->timeout_secs, 0),
				    client_timeout, c);
	if (c->req == NULL || c->fde == NULL || c->timer == NULL) {
		talloc_free(c);
	}
}

struct smbd_oneshot *smbd_oneshot_new(TALLOC_CTX *mem_ctx,
				      struct tevent_context *ev, int listen_fd,
				      const struct smbd_oneshot_ops *ops,
				      void *private_data)
{
	struct smbd_oneshot *svc = talloc_zero(mem_ctx, struct smbd_oneshot);

	if (svc == NULL) {
		close(listen_fd);
		return NULL;
	}
	svc->ops = ops;
	svc->private_data = private_data;
	svc->fd = listen_fd;
	talloc_set_destructor(svc, oneshot_destructor);
	svc->fde = tevent_add_fd(ev, svc, listen_fd, TEVENT_FD_READ,
				 oneshot_accept, svc);
	if (svc->fde == NULL) {
		talloc_free(svc);
		return NULL;
	}
	return svc;
}
