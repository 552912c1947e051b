/*
 * smb2bench's engine, a job's life (engine_private.h): the ring and the
 * channels set up, the file opened and laid out to --size, the measured
 * phase timed, the data read back and checked, everything closed.  The
 * loop that moves the requests is engine.c.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "source3/utils/smb2bench/engine_private.h"

static bool job_reads(const struct job_opts *o)
{
	return o->rw != RW_WRITE && o->rw != RW_RANDWRITE;
}

static bool job_writes(const struct job_opts *o)
{
	return o->rw != RW_READ && o->rw != RW_RANDREAD;
}

/* Each channel's queue and receive buffer; its report line. */
static bool chans_alloc(struct engine *e, struct smb2_conn **conns,
			char **where)
{
	struct job *job = e->job;
	unsigned i;

	e->nchans = job->smb->channels;
	e->chans = talloc_zero_array(e, struct chan, e->nchans);
	job->chans = talloc_zero_array(job->mem, struct chan_stats,
				       e->nchans);
	if (e->chans == NULL || job->chans == NULL) {
		return false;
	}
	job->nchans = e->nchans;
	for (i = 0; i < e->nchans; i++) {
		struct chan *ch = &e->chans[i];

		ch->index = i;
		ch->c = conns[i];
		ch->stats = &job->chans[i];
		ch->stats->addr = talloc_strdup(job->mem, where[i]);
		ch->queue = talloc_zero_array(e->chans, unsigned, e->depth);
		ch->rcap = job->o->bs + 4096 + RECV_WINDOW + PEEK;
		ch->rbuf = talloc_size(e->chans, ch->rcap);
		if (ch->queue == NULL || ch->rbuf == NULL) {
			return false;
		}
	}
	return true;
}

static bool engine_alloc(struct engine *e, struct smb2_conn **conns,
			 char **where)
{
	const struct job_opts *o = e->job->o;
	struct io_uring_params p = {
		.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
	};
	unsigned entries = 2 * o->iodepth + 4 * e->job->smb->channels + 16;
	unsigned i;
	int ret;

	e->depth = o->iodepth;
	e->slots = talloc_zero_array(e, struct slot, e->depth);
	if (e->slots == NULL || !chans_alloc(e, conns, where)) {
		return false;
	}
	for (i = 0; i < e->depth; i++) {
		e->slots[i].data = talloc_size(e->slots, o->bs);
		if (e->slots[i].data == NULL) {
			return false;
		}
		/* unverified writes send whatever this is, as fio does */
		pattern_fill(e->slots[i].data, o->bs & ~7ULL, i * o->bs,
			     o->randseed);
	}
	ret = io_uring_queue_init_params(entries, &e->ring, &p);
	if (ret < 0) {
		/* older kernels: no COOP_TASKRUN / SINGLE_ISSUER */
		ret = io_uring_queue_init(entries, &e->ring, 0);
	}
	if (ret < 0) {
		engine_fail(e, "io_uring: %s", strerror(-ret));
		return false;
	}
	e->have_ring = true;
	return true;
}

static bool check_sizes(struct engine *e)
{
	const struct job_opts *o = e->job->o;

	if (job_reads(o) && o->bs > e->c->max_read) {
		engine_fail(e, "--bs=%llu is larger than the "
			    "server's MaxReadSize %u",
			    (unsigned long long)o->bs,
			    e->c->max_read);
		return false;
	}
	if (o->bs > e->c->max_write) {	/* the layout writes too */
		engine_fail(e, "--bs=%llu is larger than the "
			    "server's MaxWriteSize %u",
			    (unsigned long long)o->bs,
			    e->c->max_write);
		return false;
	}
	e->charge = smb2_conn_charge(e->c, o->bs);
	return true;
}

/* Open the job's file; *eof its size.  Readers lay out a short file. */
static bool open_file(struct engine *e, uint64_t *eof)
{
	const struct job_opts *o = e->job->o;
	const char *name = e->job->filename;
	bool writes = job_writes(o);
	NTSTATUS st = smb2_conn_create(e->c, name, writes, &e->fid, eof);

	if (!writes && (NT_STATUS_EQUAL(st, NT_STATUS_OBJECT_NAME_NOT_FOUND) ||
			(NT_STATUS_IS_OK(st) && *eof < o->size))) {
		if (NT_STATUS_IS_OK(st)) {
			smb2_conn_close_file(e->c, &e->fid);
		}
		st = smb2_conn_create(e->c, name, true, &e->fid, eof);
	}
	if (!NT_STATUS_IS_OK(st)) {
		engine_fail(e, "open %s: %s", name,
			    e->c->err != NULL ? e->c->err :
			    nt_errstr(st));
		return false;
	}
	return true;
}

/* Connect, open, lay out: everything before the start line. */
static bool prepare(struct engine *e, uint64_t *size)
{
	const struct job_opts *o = e->job->o;
	struct smb2_conn **conns = NULL;
	char **where = NULL;
	uint64_t eof = 0;
	char *err = NULL;

	e->c = smb2_conn_open(e, e->job->smb, &err);
	if (e->c != NULL) {
		conns = channels_open(e, e->c, e->job->smb, &where, &err);
	}
	if (conns == NULL) {
		engine_fail(e, "%s", err);
		return false;
	}
	if (!check_sizes(e) || !engine_alloc(e, conns, where) ||
	    !open_file(e, &eof)) {
		if (e->err == NULL) {
			engine_fail(e, "out of memory");
		}
		return false;
	}
	*size = o->size != 0 ? o->size : eof;
	if (*size == 0) {
		engine_fail(e, "%s is empty: give --size",
			    e->job->filename);
		return false;
	}
	if (job_reads(o) && eof < *size) {
		workload_init(&e->w, o, *size, true);
		engine_run_phase(e);
	}
	return e->err == NULL;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void measure(struct engine *e, uint64_t size)
{
	const struct job_opts *o = e->job->o;
	struct rusage r0, r1;
	uint64_t t0;

	workload_init(&e->w, o, size, false);
	e->measuring = true;
	e->discard = !e->job->smb->read_copy && !o->verify &&
		     !e->c->sign && e->c->cipher == 0 && o->bs >= BIG_FRAME;
	getrusage(RUSAGE_THREAD, &r0);
	t0 = engine_now_ns();
	e->t_end = o->runtime > 0 ? t0 + (uint64_t)(o->runtime * 1e9) : 0;
	atomic_store(&e->job->started, true);
	engine_run_phase(e);
	e->job->runtime_ns = engine_now_ns() - t0;
	getrusage(RUSAGE_THREAD, &r1);
	e->job->usr_s = tv_s(r1.ru_utime) - tv_s(r0.ru_utime);
	e->job->sys_s = tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
}

/*
 * fio's do_verify: a job that only writes, with --verify=pattern, reads
 * back what it wrote after the measured phase (not measured).  A time
 * based job may leave blocks of its last pass unwritten: not read back.
 */
static void read_back(struct engine *e, uint64_t size)
{
	const struct job_opts *o = e->job->o;
	struct job_opts rd = *o;

	if (!o->verify || job_reads(o) || o->time_based || e->err != NULL ||
	    *e->stop) {
		return;
	}
	rd.rw = RW_READ;
	workload_init(&e->w, &rd, size, false);
	e->measuring = false;
	e->discard = false;
	e->t_end = 0;
	engine_run_phase(e);
}

static void close_all(struct engine *e)
{
	unsigned i;

	if (e->c != NULL && e->c->fd >= 0) {
		close(e->c->fd);
		e->c->fd = -1;
	}
	for (i = 0; i < e->nchans; i++) {
		if (e->chans[i].c->fd >= 0) {
			close(e->chans[i].c->fd);
			e->chans[i].c->fd = -1;
		}
	}
}

void engine_run(struct job *job, engine_wait_fn wait, void *private_data,
		const _Atomic bool *stop)
{
	struct engine *e = NULL;
	bool ready = false;
	uint64_t size = 0;

	if (RW_IS_META(job->o->rw)) {
		meta_run(job, wait, private_data, stop);
		return;
	}
	e = talloc_zero(job->mem, struct engine);
	e->job = job;
	e->stop = stop;
	ready = prepare(e, &size);
	wait(private_data);
	if (ready) {
		measure(e, size);
		read_back(e, size);
	}
	if (e->have_ring) {
		engine_quiesce(e);
	}
	if (e->c != NULL && e->c->fd >= 0 && e->err == NULL) {
		smb2_conn_close_file(e->c, &e->fid);
		smb2_conn_logoff(e->c);
	}
	if (e->have_ring) {
		io_uring_queue_exit(&e->ring);
	}
	close_all(e);
	job->err = e->err;
	atomic_store(&job->finished, true);
	talloc_free(e);
}
