/*
 * Workers (docs/architecture.md, "Workers"): threads that each run a
 * tevent context, an io_uring and a crypto pool of their own and serve
 * the connections given to them.  Worker 0 is the main thread.  The
 * protocol and file state is shared and guarded by one lock, which a
 * worker holds whenever it runs and drops while it waits and while the
 * kernel copies (io_uring_enter).
 */
#ifndef RINGSMB_SMBD_WORKER_H
#define RINGSMB_SMBD_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "source3/smbd/smbd.h"

struct jobpool;

struct smbd_worker {
	struct smbd_server *server;
	unsigned id;                    /* 0: the main thread */
	pthread_t thread;
	bool has_thread;                /* started by smbd_workers_start */
	bool stop;                      /* leave the loop (under the lock) */
	bool failed;                    /* could not set up: no connections */
	bool holding;                   /* holds the server lock (own thread) */
	struct tevent_context *ev;
	struct uring *ring;             /* NULL: plain syscalls */
	struct jobpool *crypto_pool;    /* NULL: crypto inline */
	int kick_fd;                    /* eventfd: wakes the loop */
	struct tevent_fd *kick_fde;
	size_t num_conns;
};

/*
 * Sets up worker 0 on the main thread's ev and ring (after any fork):
 * the lock, the wakeup.  Returns 0 or -1.
 */
int smbd_workers_init(struct smbd_server *server);

/*
 * Starts the others ("smb2 workers"; one when io_uring is off).  Called
 * with the lock held (worker 0 runs).  Returns the number of workers.
 */
unsigned smbd_workers_start(struct smbd_server *server);

/* Stops and joins them; their connections are freed on their threads. */
void smbd_workers_stop(struct smbd_server *server);

/* The worker for a new connection from addr (see worker.c). */
struct smbd_worker *smbd_worker_pick(struct smbd_server *server,
				     const char *addr);

/* The calling thread's worker, NULL on any other thread. */
struct smbd_worker *smbd_worker_self(void);

/*
 * Every worker's ring counters summed, and the crypto jobs waiting for a
 * pool thread (the metrics endpoint; under the server lock).
 */
struct uring_stats;
void smbd_workers_stats(struct smbd_server *server, struct uring_stats *ring,
			unsigned *crypto_queued);

/* The crypto pool threads each worker gets from "smb2 crypto threads". */
unsigned smbd_workers_crypto_threads(const struct smbd_server *server,
				     int total);

#endif
