/*
 * A small local service on the main thread's event loop: each client
 * sends one request and gets one answer, then the socket closes.  The
 * control socket (control.c) and the metrics endpoint (metrics.c) are
 * two of them.  Bounded: at most max_clients at once, a request of at
 * most max_request bytes, each client gone after timeout_secs whatever
 * it did.
 */
#ifndef RINGSMB_SMBD_ONESHOT_H
#define RINGSMB_SMBD_ONESHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>
#include <tevent.h>

struct kvrec_buf;

struct smbd_oneshot_ops {
	const char *name;               /* for the log */
	size_t max_clients;
	size_t max_request;
	unsigned timeout_secs;
	/* may this caller be served (e.g. its credentials)?  NULL: yes */
	bool (*admit)(int fd);
	/* is the request in req[0, len) (NUL-terminated) whole? */
	bool (*complete)(const char *req, size_t len);
	/*
	 * The answer to req (NUL-terminated, modifiable) into *out, whose
	 * memory hangs off mem_ctx.  *after: call ops->after once this
	 * client is gone (its answer sent or not).
	 */
	void (*answer)(void *private_data, char *req, struct kvrec_buf *out,
		       TALLOC_CTX *mem_ctx, bool *after);
	void (*after)(void *private_data);
};

/*
 * Serves clients of listen_fd (listening, non-blocking) until the result
 * is freed; listen_fd is the result's and is closed with it (or at once
 * when the result is NULL: no memory).
 */
struct smbd_oneshot *smbd_oneshot_new(TALLOC_CTX *mem_ctx,
				      struct tevent_context *ev, int listen_fd,
				      const struct smbd_oneshot_ops *ops,
				      void *private_data);

#endif
