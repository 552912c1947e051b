/*
 * Unit tests for lib/util: the job pool (jobpool.c).  Jobs compute a
 * checksum over their own buffer so a result that came from the wrong
 * buffer, or from freed memory (ASan), fails; a gate holds a job inside
 * its thread to free its owner while it runs.
 */
#include <string.h>
#include <time.h>
#include "lib/util/jobpool.h"
#include "tests/unit/unit.h"

#define NJOBS 200
#define JOB_BYTES 4096
#define SPIN_MAX 20000          /* x 1 ms: a wedged job fails, not hangs */

struct sum_job {
	uint8_t buf[JOB_BYTES];
	uint64_t sum;
	int *freed;             /* counts destructor runs (loop thread) */
	int *gate;              /* the job waits until *gate != 0 */
	int *started;
};

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* FNV-1a: order-sensitive, so swapped buffers give other sums. */
static uint64_t fnv(const uint8_t *p, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h = (h ^ p[i]) * 1099511628211ULL;
	}
	return h;
}

static void sum_fn(void *arg)
{
	struct sum_job *j = arg;
	int i;

	if (j->started != NULL) {
		__atomic_store_n(j->started, 1, __ATOMIC_SEQ_CST);
	}
	for (i = 0; j->gate != NULL && i < SPIN_MAX &&
	     !__atomic_load_n(j->gate, __ATOMIC_SEQ_CST); i++) {
		sleep_ms(1);
	}
	j->sum = fnv(j->buf, sizeof(j->buf));
}

static int sum_job_destructor(struct sum_job *j)
{
	if (j->freed != NULL) {
		(*j->freed)++;
	}
	return 0;
}

static struct sum_job *sum_job_new(TALLOC_CTX *ctx, unsigned seed,
				   int *freed)
{
	struct sum_job *j = talloc_zero(ctx, struct sum_job);
	size_t i;

	assert_non_null(j);
	for (i = 0; i < sizeof(j->buf); i++) {
		j->buf[i] = (uint8_t)(seed * 131 + i * 7);
	}
	j->freed = freed;
	talloc_set_destructor(j, sum_job_destructor);
	return j;
}

struct collect {
	unsigned done;
	unsigned bad;
};

static void collect_done(struct tevent_req *req)
{
	struct collect *col = tevent_req_callback_data_void(req);
	struct sum_job *j = NULL;

	assert_int_equal(jobpool_recv(req, req, (void **)&j), 0);
	if (j->sum != fnv(j->buf, sizeof(j->buf))) {
		col->bad++;
	}
	col->done++;
	talloc_free(req);
}

/* Runs the loop until *count reaches want, a bounded number of times. */
static void loop_until(struct tevent_context *ev, unsigned *count,
		       unsigned want)
{
	int i;

	for (i = 0; i < 100000 && *count < want; i++) {
		assert_int_equal(tevent_loop_once(ev), 0);
	}
	assert_int_equal(*count, want);
}

static struct tevent_req *submit(TALLOC_CTX *owner, struct tevent_context *ev,
				 struct jobpool *pool, struct sum_job *j,
				 struct collect *col)
{
	struct tevent_req *req = jobpool_send(owner, ev, pool, sum_fn, j);

	assert_non_null(req);
	tevent_req_set_callback(req, collect_done, col);
	return req;
}

static void test_jobpool__many_jobs(void **state)
{
	struct tevent_context *ev = tevent_context_init(*state);
	struct jobpool *pool = jobpool_create(*state, ev, 4);
	struct collect col = { 0 };
	int freed = 0;
	unsigned i;

	assert_non_null(pool);
	assert_int_equal(jobpool_threads(pool), 4);
	for (i = 0; i < NJOBS; i++) {
		submit(*state, ev, pool, sum_job_new(*state, i, &freed), &col);
	}
	loop_until(ev, &col.done, NJOBS);
	assert_int_equal(col.bad, 0);
	assert_int_equal(freed, NJOBS);         /* callbacks freed them */
	talloc_free(pool);
	talloc_free(ev);
}

/* Each job's sum is checked against its own seed's buffer. */
struct seeded {
	unsigned done;
	unsigned wrong;
	uint64_t want[NJOBS];
};

static void seeded_done(struct tevent_req *req)
{
	struct seeded *s = tevent_req_callback_data(req, struct seeded);
	struct sum_job *j = NULL;

	assert_int_equal(jobpool_recv(req, req, (void **)&j), 0);
	if (j->buf[0] >= NJOBS || s->want[j->buf[0]] != j->sum) {
		s->wrong++;
	}
	s->done++;
	talloc_free(req);
}

static void test_jobpool__results_match_inputs(void **state)
{
	struct tevent_context *ev = tevent_context_init(*state);
	struct jobpool *pool = jobpool_create(*state, ev, 3);
	struct seeded *s = talloc_zero(*state, struct seeded);
	unsigned i;

	for (i = 0; i < NJOBS; i++) {
		struct sum_job *j = talloc_zero(s, struct sum_job);
		struct tevent_req *req = NULL;

		memset(j->buf, (int)(i * 37 + 1), sizeof(j->buf));
		j->buf[0] = (uint8_t)i;         /* NJOBS < 256: its index */
		s->want[i] = fnv(j->buf, sizeof(j->buf));
		req = jobpool_send(s, ev, pool, sum_fn, j);
		assert_non_null(req);
		assert_ptr_not_equal(talloc_parent(j), s);  /* the job's */
		tevent_req_set_callback(req, seeded_done, s);
	}
	loop_until(ev, &s->done, NJOBS);
	assert_int_equal(s->wrong, 0);
	talloc_free(pool);
	talloc_free(s);
	talloc_free(ev);
}

static void spin_until(int *flag)
{
	int i;

	for (i = 0; i < SPIN_MAX && !__atomic_load_n(flag, __ATOMIC_SEQ_CST);
	     i++) {
		sleep_ms(1);
	}
	assert_true(__atomic_load_n(flag, __ATOMIC_SEQ_CST));
}

/*
 * The owner goes while its job runs (the job keeps its buffer until the
 * thread is done, then the loop frees it unseen), and while a second
 * job still waits behind it (freed at once).
 */
static void test_jobpool__owner_freed_in_flight(void **state)
{
	struct tevent_context *ev = tevent_context_init(*state);
	struct jobpool *pool = jobpool_create(*state, ev, 1);
	TALLOC_CTX *owner = talloc_new(*state);
	struct collect col = { 0 };
	struct sum_job *running = sum_job_new(*state, 1, NULL);
	struct sum_job *queued = NULL;
	int freed = 0, gate = 0, started = 0;
	int i;

	running->freed = &freed;
	running->gate = &gate;
	running->started = &started;
	queued = sum_job_new(*state, 2, &freed);
	submit(owner, ev, pool, running, &col);
	spin_until(&started);
	submit(owner, ev, pool, queued, &col);
	talloc_free(owner);
	assert_int_equal(freed, 1);             /* the queued one, at once */
	__atomic_store_n(&gate, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < 1000 && freed < 2; i++) {
		assert_int_equal(tevent_loop_once(ev), 0);
	}
	assert_int_equal(freed, 2);             /* the running one, after */
	assert_int_equal(col.done, 0);          /* no callback for either */
	talloc_free(pool);
	talloc_free(ev);
}

/* Three owners; one goes midway, the others get every result right. */
static void test_jobpool__several_owners(void **state)
{
	struct tevent_context *ev = tevent_context_init(*state);
	struct jobpool *pool = jobpool_create(*state, ev, 2);
	TALLOC_CTX *owners[3];
	struct collect col = { 0 };
	int freed = 0;
	unsigned i;

	for (i = 0; i < 3; i++) {
		owners[i] = talloc_new(*state);
	}
	for (i = 0; i < 60; i++) {
		submit(owners[i % 3], ev, pool, sum_job_new(*state, i, &freed),
		       &col);
	}
	talloc_free(owners[1]);
	loop_until(ev, &col.done, 40);
	assert_int_equal(col.bad, 0);
	/* the dropped ones are freed too, some only when their thread ends */
	for (i = 0; i < 1000 && freed < 60; i++) {
		assert_int_equal(tevent_loop_once(ev), 0);
	}
	assert_int_equal(freed, 60);
	talloc_free(owners[0]);
	talloc_free(owners[2]);
	talloc_free(pool);
	talloc_free(ev);
}

/* Freed with work queued and running: joins, the requests stay pending. */
static void test_jobpool__pool_freed_with_jobs(void **state)
{
	struct tevent_context *ev = tevent_context_init(*state);
	struct jobpool *pool = jobpool_create(*state, ev, 2);
	struct collect col = { 0 };
	struct tevent_req *reqs[8];
	int freed = 0, gate = 1;
	unsigned i;

	for (i = 0; i < 8; i++) {
		struct sum_job *j = sum_job_new(*state, i, &freed);
		j->gate = &gate;
		reqs[i] = submit(*state, ev, pool, j, &col);
	}
	talloc_free(pool);
	assert_int_equal(freed, 8);
	assert_int_equal(col.done, 0);
	for (i = 0; i < 8; i++) {
		assert_true(tevent_req_is_in_progress(reqs[i]));
		talloc_free(reqs[i]);           /* must not touch the pool */
	}
	talloc_free(ev);
}

static void test_jobpool__zero_threads(void **state)
{
	struct tevent_context *ev = tevent_context_init(*state);

	assert_null(jobpool_create(*state, ev, 0));
	assert_true(jobpool_online_cpus() >= 1);
	talloc_free(ev);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_jobpool__many_jobs),
		T(test_jobpool__results_match_inputs),
		T(test_jobpool__owner_freed_in_flight),
		T(test_jobpool__several_owners),
		T(test_jobpool__pool_freed_with_jobs),
		T(test_jobpool__zero_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
