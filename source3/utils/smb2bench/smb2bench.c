/*
 * smb2bench main: jobs as threads (one connection and one ring each),
 * a start barrier after every job has connected and laid out its file,
 * the progress line on a terminal, CPU seconds per GiB for this process
 * and, with --server-pid, for the server (/proc/PID/stat).
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "source3/utils/smb2bench/smb2bench.h"

static _Atomic bool stop_flag;

static void on_signal(int sig)
{
	atomic_store(&stop_flag, true);
}

struct run {
	struct job *jobs;
	size_t n;
	uint64_t last_ios;	/* for the progress line */
	pthread_barrier_t start;
};

struct thread_arg {
	struct run *run;
	struct job *job;
};

static void barrier_wait(void *private_data)
{
	pthread_barrier_wait(&((struct run *)private_data)->start);
}

static void *job_thread(void *p)
{
	struct thread_arg *a = p;

	engine_run(a->job, barrier_wait, a->run, &stop_flag);
	return NULL;
}

/* numjobs copies of every job section, named and numbered as fio does. */
static struct job *expand(TALLOC_CTX *mem_ctx, const struct bench_opts *o,
			  size_t *n)
{
	struct job *jobs = NULL;
	size_t i, total = 0;
	unsigned k;

	for (i = 0; i < o->num_jobs; i++) {
		total += o->jobs[i].numjobs;
	}
	jobs = talloc_zero_array(mem_ctx, struct job, total);
	*n = 0;
	for (i = 0; jobs != NULL && i < o->num_jobs; i++) {
		for (k = 0; k < o->jobs[i].numjobs; k++) {
			struct job *j = &jobs[(*n)++];

			j->mem = talloc_new(NULL);
			j->o = &o->jobs[i];
			j->smb = &o->smb;
			j->index = k;
			j->filename = o->jobs[i].filename != NULL ?
				talloc_strdup(jobs, o->jobs[i].filename) :
				talloc_asprintf(jobs, "%s.%u.0",
						o->jobs[i].name, k);
		}
	}
	return jobs;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double self_cpu(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 +
	       (double)r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

/* utime + stime of pid in seconds (proc(5) fields 14, 15), -1 if none. */
static double proc_cpu(long pid)
{
	char path[64], buf[1024];
	unsigned long long ut = 0, st = 0;
	FILE *f = NULL;
	char *p = NULL;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (f == NULL) {
		return -1;
	}
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	p = strrchr(buf, ')');	/* the name may hold spaces and ')' */
	if (p == NULL ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
		   "%llu %llu", &ut, &st) != 2) {
		return -1;
	}
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/*
 * Seconds left: the longest --runtime if every job has one, else the
 * bytes still to move at the current rate; -1 if unknown.
 */
static double eta(const struct run *r, double elapsed, uint64_t done,
		  double rate)
{
	double runtime = 0;
	uint64_t want = 0;
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct job_opts *o = r->jobs[i].o;

		runtime = o->runtime > runtime ? o->runtime : runtime;
		want += o->time_based ? 0 : o->size;
		if (o->runtime <= 0 && (o->time_based || o->size == 0)) {
			return -1;
		}
	}
	if (runtime > 0) {
		return runtime > elapsed ? runtime - elapsed : 0;
	}
	if (want <= done) {
		return 0;
	}
	return rate > 0 ? (double)(want - done) / rate : -1;
}

/* MiB/s since the last call, dt seconds ago. */
static void progress(struct run *r, double t0, double dt,
		     const uint64_t *last, uint64_t *now_bytes)
{
	uint64_t b[DIR_COUNT] = { 0, 0 }, ios = 0;
	double rate[DIR_COUNT], left;
	size_t i;
	int d;

	for (i = 0; i < r->n; i++) {
		for (d = 0; d < DIR_COUNT; d++) {
			b[d] += atomic_load(&r->jobs[i].live_bytes[d]);
		}
		ios += atomic_load(&r->jobs[i].live_ios);
	}
	for (d = 0; d < DIR_COUNT; d++) {
		rate[d] = (double)(b[d] - last[d]) / 1048576.0 / dt;
		now_bytes[d] = b[d];
	}
	left = eta(r, now_s() - t0, b[0] + b[1],
		   (rate[0] + rate[1]) * 1048576.0);
	fprintf(stderr, "\rJobs: %zu [r=%.1fMiB/s w=%.1fMiB/s][r+w=%.0f "
		"IOPS][%.0fs elapsed, eta %s]   ", r->n, rate[DIR_READ],
		rate[DIR_WRITE], (double)(ios - r->last_ios) / dt,
		now_s() - t0, left < 0 ? "?" :
		talloc_asprintf(r->jobs, "%.0fs", left));
	fflush(stderr);
	r->last_ios = ios;
}

static bool all_finished(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (!atomic_load(&r->jobs[i].finished)) {
			return false;
		}
	}
	return true;
}

/* Start the jobs, wait for them; the totals of the measured phase. */
static void run_jobs(struct run *r, const struct bench_opts *o,
		     struct bench_totals *t)
{
	struct thread_arg *args = talloc_zero_array(r->jobs, struct thread_arg,
						    r->n);
	pthread_t *tids = talloc_zero_array(r->jobs, pthread_t, r->n);
	bool show = o->progress == 1 ||
		    (o->progress == -1 && isatty(STDERR_FILENO));
	uint64_t last[DIR_COUNT] = { 0, 0 }, cur[DIR_COUNT];
	double cpu0, srv0 = -1, t0;
	size_t i;

	pthread_barrier_init(&r->start, NULL, (unsigned)r->n + 1);
	for (i = 0; i < r->n; i++) {
		args[i] = (struct thread_arg){ r, &r->jobs[i] };
		pthread_create(&tids[i], NULL, job_thread, &args[i]);
	}
	pthread_barrier_wait(&r->start);
	cpu0 = self_cpu();
	srv0 = o->server_pid > 0 ? proc_cpu(o->server_pid) : -1;
	t0 = now_s();
	while (show && !all_finished(r)) {
		double prev = now_s();

		while (!all_finished(r) && now_s() < prev + 1.0) {
			usleep(20000);
		}
		progress(r, t0, now_s() - prev, last, cur);
		memcpy(last, cur, sizeof(last));
	}
	for (i = 0; i < r->n; i++) {
		pthread_join(tids[i], NULL);
	}
	if (show) {
		fprintf(stderr, "\r%*s\r", 70, "");
	}
	t->client_cpu_s = self_cpu() - cpu0;
	t->server_cpu_s = srv0 >= 0 ? proc_cpu(o->server_pid) - srv0 : -1;
	for (i = 0; i < r->n; i++) {
		double s = (double)r->jobs[i].runtime_ns / 1e9;

		t->bytes += r->jobs[i].dir[DIR_READ].io_bytes +
			    r->jobs[i].dir[DIR_WRITE].io_bytes;
		t->ops += r->jobs[i].dir[DIR_READ].ios +
			  r->jobs[i].dir[DIR_WRITE].ios;
		/* the measured phase, not the poll loop's granularity */
		t->wall_s = i == 0 || s > t->wall_s ? s : t->wall_s;
	}
	pthread_barrier_destroy(&r->start);
}

int main(int argc, char **argv)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct bench_opts o;
	struct bench_totals t = {};
	struct run r = {};
	char *err = NULL;
	bool help = false;
	int rc = 0;
	size_t i;

	if (!bench_opts_parse(mem, argc, argv, &o, &help, &err)) {
		fprintf(stderr, "smb2bench: %s\n(smb2bench --help lists the "
			"options)\n", err);
		talloc_free(mem);
		return 1;
	}
	if (help) {
		bench_usage(stdout);
		talloc_free(mem);
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	r.jobs = expand(mem, &o, &r.n);
	run_jobs(&r, &o, &t);
	if (o.fmt == FMT_JSON) {
		report_json(stdout, &o, r.jobs, r.n, &t);
	} else {
		report_normal(stdout, &o, r.jobs, r.n, &t);
	}
	for (i = 0; i < r.n; i++) {
		if (r.jobs[i].err != NULL) {
			fprintf(stderr, "smb2bench: job %s (%s): %s\n",
				r.jobs[i].o->name, r.jobs[i].filename,
				r.jobs[i].err);
			rc = 1;
		}
	}
	for (i = 0; i < r.n; i++) {
		talloc_free(r.jobs[i].mem);
	}
	talloc_free(mem);
	return rc;
}
