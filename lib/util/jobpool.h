/*
 * A small pool of pthreads for CPU work that should not hold up the event loop
 * (docs/architecture.md, "Data path modes": large payload crypto may run on
 * other cores).  A job is a function and one talloc object, its argument; the
 * job owns the argument from jobpool_send until jobpool_recv hands it back, so
 * whatever the argument holds stays alive while a thread uses it even when the
 * caller's request is freed meanwhile: the job then finishes, and the loop
 * thread frees the argument unseen.
 *
 * Threads never call talloc or tevent: the job function must only touch
 * its argument (and memory that argument owns), and must not allocate on
 * a talloc context shared with the loop.
 */
#ifndef RINGSMB_JOBPOOL_H
#define RINGSMB_JOBPOOL_H

#include <talloc.h>
#include <tevent.h>

/* Runs on a pool thread; the result goes into arg. */
typedef void (*jobpool_fn)(void *arg);

struct jobpool;

/*
 * Starts nthreads (>= 1) threads whose completions come back to ev.
 * NULL when out of memory or when no thread could be started (the caller
 * then does the work inline).  Freeing the pool joins the threads after
 * their current job; jobs not started are dropped and their requests
 * never complete.
 */
struct jobpool *jobpool_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
			       unsigned nthreads);

unsigned jobpool_threads(const struct jobpool *pool);
/* Jobs waiting for a thread now (the metrics endpoint). */
unsigned jobpool_queued(struct jobpool *pool);

/*
 * Runs fn(arg) on a pool thread; arg (a talloc object) is stolen by the
 * job.  Completes in the loop thread of the pool's tevent context.
 * Freeing the request before it completes drops the job: not started,
 * it is freed at once; running, its argument is freed when it is done.
 * If the job cannot be allocated the request fails with ENOMEM and arg
 * stays where it was.  Never free the pool from a job's callback.
 */
struct tevent_req *jobpool_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
				struct jobpool *pool, jobpool_fn fn,
				void *arg);

/* Hands the argument back on mem_ctx.  Returns 0 or -errno. */
int jobpool_recv(struct tevent_req *req, TALLOC_CTX *mem_ctx, void **arg);

/* Online CPUs, at least 1 (the default thread count). */
unsigned jobpool_online_cpus(void);

#endif
