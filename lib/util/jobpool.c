/*
 * The job pool (jobpool.h).  Jobs wait on pool->todo; a thread takes one,
 * runs it without the lock, and puts it on pool->done.  Completions come
 * back through an eventfd rather than tevent's threaded immediates: with
 * a done list under the pool's mutex a thread touches nothing but that
 * list and the eventfd counter, one wakeup of the loop drains every job
 * finished since the last one, and an orphaned job (its request freed
 * while it ran) needs no cross-thread handshake to cancel a scheduled
 * immediate: the loop finds it on the done list and frees it.
 *
 * Ownership: jobs are talloc children of the pool and are only ever
 * allocated and freed by the loop thread.  A job is on exactly one of
 * todo, a thread's hands, done, or the loop's local list while completing.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "lib/util/dlist.h"
#include "lib/util/jobpool.h"

#define JOBPOOL_MAX_THREADS 64

struct jobpool_job {
	struct jobpool_job *prev, *next;        /* todo or done: mutex */
	jobpool_fn fn;
	void *arg;                              /* a talloc child of the job */
	enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE } where;       /* mutex */
	struct tevent_req *req;                 /* NULL: orphaned */
};

struct jobpool {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	struct jobpool_job *todo;               /* FIFO */
	struct jobpool_job *todo_tail;
	unsigned num_todo;                      /* waiting for a thread */
	struct jobpool_job *done;
	bool stop;
	pthread_t *threads;
	unsigned nthreads;
	int efd;
	struct tevent_fd *fde;
};

struct jobpool_state {
	struct jobpool *pool;
	struct jobpool_job *job;        /* NULL once completed or dropped */
	void *arg;                      /* the argument, once completed */
};

unsigned jobpool_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (unsigned)n;
}

unsigned jobpool_threads(const struct jobpool *pool)
{
	return pool->nthreads;
}

static void todo_push(struct jobpool *pool, struct jobpool_job *job)
{
	job->next = NULL;
	job->prev = pool->todo_tail;
	if (pool->todo_tail != NULL) {
		pool->todo_tail->next = job;
	} else {
		pool->todo = job;
	}
	pool->todo_tail = job;
	pool->num_todo++;
}

static void todo_remove(struct jobpool *pool, struct jobpool_job *job)
{
	if (pool->todo_tail == job) {
		pool->todo_tail = job->prev;
	}
	DLIST_REMOVE_SIMPLE(pool->todo, job);
	pool->num_todo--;
}

unsigned jobpool_queued(struct jobpool *pool)
{
	unsigned n;

	pthread_mutex_lock(&pool->mutex);
	n = pool->num_todo;
	pthread_mutex_unlock(&pool->mutex);
	return n;
}

/* A thread: take the oldest job, run it unlocked, hand it to the loop. */
static void *jobpool_thread(void *private_data)
{
	struct jobpool *pool = private_data;
	struct jobpool_job *job = NULL;
	uint64_t one = 1;

	pthread_mutex_lock(&pool->mutex);
	while (!pool->stop) {
		job = pool->todo;
		if (job == NULL) {
			pthread_cond_wait(&pool->cond, &pool->mutex);
			continue;
		}
		todo_remove(pool, job);
		job->where = JOB_RUNNING;
		pthread_mutex_unlock(&pool->mutex);
		job->fn(job->arg);
		pthread_mutex_lock(&pool->mutex);
		job->where = JOB_DONE;
		/* the loop drains the whole list per wakeup: wake it once */
		if (pool->done == NULL) {
			(void)write(pool->efd, &one, sizeof(one));
		}
		DLIST_ADD_SIMPLE(pool->done, job);
	}
	pthread_mutex_unlock(&pool->mutex);
	return NULL;
}

/* In the loop thread: complete (or drop) every finished job. */
static void jobpool_done_handler(struct tevent_context *ev,
				 struct tevent_fd *fde, uint16_t flags,
				 void *private_data)
{
	struct jobpool *pool = private_data;
	struct jobpool_job *list = NULL, *job = NULL;
	uint64_t n = 0;

	(void)read(pool->efd, &n, sizeof(n));
	pthread_mutex_lock(&pool->mutex);
	list = pool->done;
	pool->done = NULL;
	pthread_mutex_unlock(&pool->mutex);

	while ((job = list) != NULL) {
		struct tevent_req *req = job->req;

		DLIST_REMOVE_SIMPLE(list, job);
		if (req != NULL) {
			struct jobpool_state *state = tevent_req_data(
				req, struct jobpool_state);
			state->arg = talloc_steal(state, job->arg);
			state->job = NULL;
		}
		talloc_free(job);
		if (req != NULL) {
			/* may free other requests: their jobs are in list */
			tevent_req_done(req);
		}
	}
}

/* Requests still waiting never complete: they only forget their job. */
static void detach_all(struct jobpool_job *list)
{
	struct jobpool_job *job = NULL;

	for (job = list; job != NULL; job = job->next) {
		if (job->req != NULL) {
			struct jobpool_state *state = tevent_req_data(
				job->req, struct jobpool_state);
			state->job = NULL;
			job->req = NULL;
		}
	}
}

static int jobpool_destructor(struct jobpool *pool)
{
	unsigned i;

	pthread_mutex_lock(&pool->mutex);
	pool->stop = true;
	pthread_cond_broadcast(&pool->cond);
	pthread_mutex_unlock(&pool->mutex);
	for (i = 0; i < pool->nthreads; i++) {
		pthread_join(pool->threads[i], NULL);
	}
	/* no thread left: every job is on todo or done */
	detach_all(pool->todo);
	detach_all(pool->done);
	TALLOC_FREE(pool->fde);
	close(pool->efd);
	pthread_cond_destroy(&pool->cond);
	pthread_mutex_destroy(&pool->mutex);
	return 0;       /* the jobs are freed with the pool */
}

/* Threads block every signal: tevent handles them in the loop thread. */
static unsigned start_threads(struct jobpool *pool, unsigned nthreads)
{
	sigset_t all, old;
	unsigned i;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&pool->threads[i], NULL, jobpool_thread,
				   pool) != 0) {
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return i;
}

struct jobpool *jobpool_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
			       unsigned nthreads)
{
	struct jobpool *pool = NULL;

	if (nthreads == 0 || nthreads > JOBPOOL_MAX_THREADS) {
		return NULL;
	}
	pool = talloc_zero(mem_ctx, struct jobpool);
	if (pool == NULL) {
		return NULL;
	}
	pool->threads = talloc_array(pool, pthread_t, nthreads);
	pool->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pool->threads == NULL || pool->efd == -1) {
		if (pool->efd != -1) {
			close(pool->efd);
		}
		talloc_free(pool);
		return NULL;
	}
	pool->fde = tevent_add_fd(ev, pool, pool->efd, TEVENT_FD_READ,
				  jobpool_done_handler, pool);
	pthread_mutex_init(&pool->mutex, NULL);
	pthread_cond_init(&pool->cond, NULL);
	talloc_set_destructor(pool, jobpool_destructor);
	if (pool->fde == NULL) {
		talloc_free(pool);
		return NULL;
	}
	pool->nthreads = start_threads(pool, nthreads);
	if (pool->nthreads == 0) {
		talloc_free(pool);
		return NULL;
	}
	return pool;
}

/* The request goes: a job not started goes with it, a running one later. */
static int jobpool_state_destructor(struct jobpool_state *state)
{
	struct jobpool_job *job = state->job;
	bool queued = false;

	if (job == NULL) {
		return 0;
	}
	state->job = NULL;
	job->req = NULL;
	pthread_mutex_lock(&state->pool->mutex);
	queued = job->where == JOB_QUEUED;
	if (queued) {
		todo_remove(state->pool, job);
	}
	pthread_mutex_unlock(&state->pool->mutex);
	if (queued) {
		talloc_free(job);
	}
	return 0;
}

struct tevent_req *jobpool_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
				struct jobpool *pool, jobpool_fn fn,
				void *arg)
{
	struct jobpool_state *state = NULL;
	struct jobpool_job *job = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct jobpool_state);

	if (req == NULL) {
		return NULL;
	}
	state->pool = pool;
	job = talloc_zero(pool, struct jobpool_job);
	if (job == NULL) {
		tevent_req_error(req, ENOMEM);
		return tevent_req_post(req, ev);
	}
	job->fn = fn;
	job->arg = talloc_steal(job, arg);
	job->req = req;
	state->job = job;
	talloc_set_destructor(state, jobpool_state_destructor);
	pthread_mutex_lock(&pool->mutex);
	todo_push(pool, job);
	pthread_cond_signal(&pool->cond);
	pthread_mutex_unlock(&pool->mutex);
	return req;
}

int jobpool_recv(struct tevent_req *req, TALLOC_CTX *mem_ctx, void **arg)
{
	struct jobpool_state *state = tevent_req_data(req,
						      struct jobpool_state);
	uint64_t err = 0;
	enum tevent_req_state ts;

	if (tevent_req_is_error(req, &ts, &err)) {
		return ts == TEVENT_REQ_USER_ERROR ? -(int)err : -EIO;
	}
	*arg = talloc_steal(mem_ctx, state->arg);
	return 0;
}
