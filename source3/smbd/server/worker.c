/*
 * Workers (worker.h, docs/architecture.md "Workers").
 *
 * The lock: every worker holds the server lock while it runs tevent
 * handlers, so all talloc trees, tevent contexts and the protocol state
 * are only ever touched by one thread at a time, whichever worker's
 * event it is.  A worker drops the lock
 *  - while it waits (tevent trace points BEFORE_WAIT / AFTER_WAIT), and
 *  - around its io_uring_enter calls (uring_ev_set_gate): that is where
 *    the kernel copies socket data and writes pages, the per-byte work
 *    that the workers share out over cores.
 *
 * Wakeups: code on one worker may queue ring operations, immediates and
 * timers on another worker's context (a lease break sent to a channel on
 * another worker, a blocked lock granted by another client's unlock).
 * The trace callbacks of each context see such an event being attached
 * from a foreign thread and write the owner's eventfd, so the owner
 * leaves epoll_wait and runs it.  Adding or removing fd events of
 * another worker's context is not done: epoll_wait may have returned the
 * event already (the owner would then run a freed fd event), so that is
 * logged as a bug.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "lib/param/param.h"
#include "lib/uring/uring.h"
#include "lib/util/debug.h"
#include "lib/util/jobpool.h"
#include "source3/smbd/server/worker.h"

#define SMBD_WORKERS_MAX 64

struct smbd_workers {
	pthread_mutex_t lock;
	unsigned n;
	struct smbd_worker *w[SMBD_WORKERS_MAX];
	tevent_trace_callback_t prev_trace[SMBD_WORKERS_MAX];
	void *prev_trace_private[SMBD_WORKERS_MAX];
};

static __thread struct smbd_worker *worker_self;

struct smbd_worker *smbd_worker_self(void)
{
	return worker_self;
}

/* w->holding: whether this worker holds the lock (its thread only) */
static void lock_enter(void *private_data)
{
	struct smbd_worker *w = private_data;

	pthread_mutex_lock(&w->server->workers->lock);
	w->holding = true;
}

static void lock_leave(void *private_data)
{
	struct smbd_worker *w = private_data;

	w->holding = false;
	pthread_mutex_unlock(&w->server->workers->lock);
}

static void worker_kick(struct smbd_worker *w)
{
	uint64_t one = 1;

	if (w->kick_fd != -1 && write(w->kick_fd, &one, sizeof(one)) < 0 &&
	    errno != EAGAIN) {
		DBG_ERR("worker %u: wakeup: %s\n", w->id, strerror(errno));
	}
}

static void kick_readable(struct tevent_context *ev, struct tevent_fd *fde,
			  uint16_t flags, void *private_data)
{
	struct smbd_worker *w = private_data;
	uint64_t n = 0;

	/* the event that was attached runs in this loop pass */
	if (read(w->kick_fd, &n, sizeof(n)) < 0 && errno != EAGAIN) {
		DBG_ERR("worker %u: wakeup read: %s\n", w->id,
			strerror(errno));
	}
}

static void trace_immediate(struct tevent_immediate *im,
			    enum tevent_event_trace_point tp,
			    void *private_data)
{
	struct smbd_worker *w = private_data;

	if (tp == TEVENT_EVENT_TRACE_ATTACH && worker_self != w) {
		worker_kick(w);
	}
}

static void trace_timer(struct tevent_timer *te,
			enum tevent_event_trace_point tp, void *private_data)
{
	struct smbd_worker *w = private_data;

	/* a new timer may be earlier than what the owner waits for */
	if (tp == TEVENT_EVENT_TRACE_ATTACH && worker_self != w) {
		worker_kick(w);
	}
}

static void trace_fd(struct tevent_fd *fde, enum tevent_event_trace_point tp,
		     void *private_data)
{
	struct smbd_worker *w = private_data;

	if (tp == TEVENT_EVENT_TRACE_DETACH && worker_self != NULL &&
	    worker_self != w) {
		DBG_ERR("BUG: worker %u removed an fd event of worker %u\n",
			worker_self->id, w->id);
	}
}

/* After the ring's own callback (installed later, it chains to us). */
static void trace_loop(enum tevent_trace_point tp, void *private_data)
{
	struct smbd_worker *w = private_data;
	struct smbd_workers *ws = w->server->workers;

	switch (tp) {
	case TEVENT_TRACE_BEFORE_WAIT:
		/* the ring's last submit may have left it already */
		if (w->holding) {
			lock_leave(w);
		}
		break;
	case TEVENT_TRACE_AFTER_WAIT:
		lock_enter(w);
		break;
	default:
		break;
	}
	if (ws->prev_trace[w->id] != NULL) {
		ws->prev_trace[w->id](tp, ws->prev_trace_private[w->id]);
	}
}

static int worker_destructor(struct smbd_worker *w)
{
	if (w->kick_fd != -1) {
		close(w->kick_fd);
	}
	return 0;
}

/*
 * The context's wakeup and trace callbacks, the lock around its waits,
 * then its ring, with the lock around its submits.  Runs on the worker's
 * thread (the ring is SINGLE_ISSUER); the ring's trace callback is
 * installed after ours and chains to it, so lib/uring finds its ring
 * from the context the fast way.  Worker 0 does the same with one
 * worker: an uncontended lock costs two atomic operations a loop pass.
 */
static int worker_hook(struct smbd_worker *w)
{
	struct smbd_workers *ws = w->server->workers;

	w->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	talloc_set_destructor(w, worker_destructor);
	if (w->kick_fd == -1) {
		return -1;
	}
	w->kick_fde = tevent_add_fd(w->ev, w, w->kick_fd, TEVENT_FD_READ,
				    kick_readable, w);
	if (w->kick_fde == NULL) {
		return -1;
	}
	tevent_set_trace_immediate_callback(w->ev, trace_immediate, w);
	tevent_set_trace_timer_callback(w->ev, trace_timer, w);
	tevent_set_trace_fd_callback(w->ev, trace_fd, w);
	tevent_get_trace_callback(w->ev, &ws->prev_trace[w->id],
				  &ws->prev_trace_private[w->id]);
	tevent_set_trace_callback(w->ev, trace_loop, w);
	w->ring = uring_ev_get(w->ev);
	if (w->ring != NULL) {
		uring_ev_set_gate(w->ev, lock_leave, lock_enter, w);
	}
	return 0;
}

void smbd_workers_stats(struct smbd_server *server, struct uring_stats *ring,
			unsigned *crypto_queued)
{
	struct smbd_workers *ws = server->workers;
	struct uring_stats one;
	unsigned i;

	*ring = (struct uring_stats){ 0 };
	*crypto_queued = 0;
	for (i = 0; ws != NULL && i < ws->n; i++) {
		struct smbd_worker *w = ws->w[i];

		if (w->ring != NULL) {
			uring_get_stats(w->ring, &one);
			ring->enter_calls += one.enter_calls;
			ring->sqes_submitted += one.sqes_submitted;
			ring->cqes_reaped += one.cqes_reaped;
			ring->inflight += one.inflight;
			ring->queued += one.queued;
			ring->faults += one.faults;
		}
		if (w->crypto_pool != NULL) {
			*crypto_queued += jobpool_queued(w->crypto_pool);
		}
	}
}

unsigned smbd_workers_crypto_threads(const struct smbd_server *server,
				     int total)
{
	unsigned n = server->workers != NULL ? server->workers->n : 1;

	if (total <= 0) {
		return 0;
	}
	return ((unsigned)total + n - 1) / n;
}

static void worker_crypto_start(struct smbd_worker *w)
{
	unsigned n = smbd_workers_crypto_threads(w->server,
						 w->server->crypto_threads);

	if (n > 0 && w->server->crypto_offload != 0) {
		w->crypto_pool = jobpool_create(w, w->ev, n);
	}
}

/*
 * Adaptive: a worker that finds the lock taken spins a little before it
 * sleeps, since it is held for microseconds (one request's protocol
 * work); a futex sleep and wakeup per handoff cost more than that
 * (docs/performance.md, "Workers").
 */
static int worker_lock_init(pthread_mutex_t *lock)
{
	pthread_mutexattr_t attr;
	int ret;

	if (pthread_mutexattr_init(&attr) != 0) {
		return -1;
	}
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
	ret = pthread_mutex_init(lock, &attr);
	pthread_mutexattr_destroy(&attr);
	return ret == 0 ? 0 : -1;
}

int smbd_workers_init(struct smbd_server *server)
{
	struct smbd_workers *ws = talloc_zero(server, struct smbd_workers);
	struct smbd_worker *w = NULL;

	if (ws == NULL || worker_lock_init(&ws->lock) != 0) {
		return -1;
	}
	server->workers = ws;
	w = talloc_zero(ws, struct smbd_worker);
	if (w == NULL) {
		return -1;
	}
	w->server = server;
	w->ev = server->ev;
	w->kick_fd = -1;
	ws->w[0] = w;
	ws->n = 1;
	worker_self = w;
	lock_enter(w);                  /* worker 0 runs */
	if (worker_hook(w) != 0) {
		return -1;
	}
	server->ring = w->ring;
	return 0;
}

static void *worker_main(void *arg)
{
	struct smbd_worker *w = arg;
	sigset_t all;

	/* signals are worker 0's (tevent_add_signal on the main context) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	worker_self = w;
	lock_enter(w);
	w->ev = tevent_context_init(w);
	if (w->ev == NULL || worker_hook(w) != 0 || w->ring == NULL) {
		DBG_ERR("worker %u: no event context or ring: it serves "
			"nothing\n", w->id);
		w->failed = true;
		goto out;
	}
	worker_crypto_start(w);
	DBG_INFO("worker %u started\n", w->id);
	while (!w->stop) {
		if (tevent_loop_once(w->ev) != 0 && errno != EINTR) {
			DBG_ERR("worker %u: event loop failed: %s\n", w->id,
				strerror(errno));
			break;
		}
	}
out:
	/* its connections go on this thread: the ring's teardown waits */
	while (w->server->conns != NULL) {
		struct smbd_conn *c = NULL;

		for (c = w->server->conns; c != NULL; c = c->next) {
			if (c->worker == w) {
				break;
			}
		}
		if (c == NULL) {
			break;
		}
		talloc_free(c);
	}
	TALLOC_FREE(w->crypto_pool);
	if (w->ev != NULL) {
		uring_ev_set_gate(w->ev, NULL, NULL, NULL);
		TALLOC_FREE(w->ev);
	}
	w->ring = NULL;
	lock_leave(w);
	return NULL;
}

unsigned smbd_workers_start(struct smbd_server *server)
{
	struct smbd_workers *ws = server->workers;
	int want = server->lp->g.workers;
	unsigned i;

	if (want <= 0) {
		want = (int)jobpool_online_cpus();
	}
	if (want > SMBD_WORKERS_MAX) {
		want = SMBD_WORKERS_MAX;
	}
	if (want > 1 && server->ring == NULL) {
		DBG_NOTICE("smb2 workers: one without io_uring\n");
		want = 1;
	}
	/* the crypto pools are sized by the number of workers */
	ws->n = (unsigned)want;
	worker_crypto_start(ws->w[0]);
	for (i = 1; i < (unsigned)want; i++) {
		struct smbd_worker *w = talloc_zero(ws, struct smbd_worker);

		if (w == NULL) {
			break;
		}
		w->server = server;
		w->id = i;
		w->kick_fd = -1;
		ws->w[i] = w;
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
			DBG_ERR("worker %u: %s\n", i, strerror(errno));
			ws->w[i] = NULL;
			TALLOC_FREE(w);
			break;
		}
		w->has_thread = true;
	}
	ws->n = i > 0 ? i : 1;
	server->num_workers = ws->n;
	DBG_NOTICE("workers: %u\n", ws->n);
	return ws->n;
}

void smbd_workers_stop(struct smbd_server *server)
{
	struct smbd_workers *ws = server->workers;
	unsigned i;

	if (ws == NULL) {
		return;
	}
	for (i = 1; i < ws->n; i++) {
		ws->w[i]->stop = true;
		worker_kick(ws->w[i]);
	}
	lock_leave(ws->w[0]);
	for (i = 1; i < ws->n; i++) {
		if (ws->w[i]->has_thread) {
			pthread_join(ws->w[i]->thread, NULL);
			ws->w[i]->has_thread = false;
		}
	}
	lock_enter(ws->w[0]);
	/* from here on only this thread runs, and the lock goes first */
	uring_ev_set_gate(server->ev, NULL, NULL, NULL);
	ws->n = 1;
	server->num_workers = 1;
	TALLOC_FREE(ws->w[0]->crypto_pool);
}

/*
 * Spread: the worker with the fewest connections from this client
 * address (the channels of one client land on different workers), then
 * the fewest connections overall.  Workers that failed to start get none.
 */
struct smbd_worker *smbd_worker_pick(struct smbd_server *server,
				     const char *addr)
{
	struct smbd_workers *ws = server->workers;
	size_t same[SMBD_WORKERS_MAX] = { 0 };
	struct smbd_worker *best = NULL;
	struct smbd_conn *c = NULL;
	unsigned i;

	if (ws == NULL) {
		return NULL;
	}
	if (ws->n > 1) {
		for (c = server->conns; c != NULL; c = c->next) {
			if (c->worker != NULL && strcmp(c->addr, addr) == 0) {
				same[c->worker->id]++;
			}
		}
	}
	for (i = 0; i < ws->n; i++) {
		struct smbd_worker *w = ws->w[i];

		if (w->failed || (i > 0 && w->ring == NULL)) {
			continue;
		}
		if (best == NULL || same[i] < same[best->id] ||
		    (same[i] == same[best->id] &&
		     w->num_conns < best->num_conns)) {
			best = w;
		}
	}
	return best;
}
