/*
 * I/O through the VFS stack (source3/modules): reads and writes with
 * vfs_default, vfs_io_uring and vfs_noop, requests freed or closed in
 * flight, directory listing, FIFOs and splice reads into a full pipe.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tevent.h>
#include "tests/unit/vfs_test_util.h"
#include "lib/uring/uring.h"

/* ---- reads ---- */

#define FILE_SIZE (1024 * 1024 + 7)
#define NREADS 64

struct read_job {
	uint8_t *buf;
	size_t len;
	uint64_t off;
	size_t got;
	bool done;
	NTSTATUS status;
};

static void read_job_done(struct tevent_req *req)
{
	struct read_job *job = tevent_req_callback_data_void(req);

	job->status = vfs_pread_recv(req, &job->got);
	job->done = true;
	talloc_free(req);
}

/* Many reads in flight at once; each must return exactly the file. */
static void run_reads(TALLOC_CTX *ctx, struct tevent_context *ev,
		      struct vfs_handle *vfs, const uint8_t *data)
{
	struct read_job jobs[NREADS];
	struct vfs_fh *fh = NULL;
	size_t i, pending = NREADS;

	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "big", O_RDONLY,
					       &fh, NULL)));
	for (i = 0; i < NREADS; i++) {
		struct tevent_req *req = NULL;

		jobs[i] = (struct read_job) {
			.len = (size_t)(random() % 200000) + 1,
			.off = (uint64_t)(random() % (FILE_SIZE + 1000)),
		};
		jobs[i].buf = talloc_size(ctx, jobs[i].len);
		req = vfs_pread_send(ctx, ev, fh, jobs[i].buf, jobs[i].len,
				     jobs[i].off);
		assert_non_null(req);
		tevent_req_set_callback(req, read_job_done, &jobs[i]);
		/* never completed inside _send */
		assert_false(jobs[i].done);
	}
	while (pending > 0) {
		assert_int_equal(tevent_loop_once(ev), 0);
		for (pending = 0, i = 0; i < NREADS; i++) {
			pending += jobs[i].done ? 0 : 1;
		}
	}
	for (i = 0; i < NREADS; i++) {
		size_t want = 0;

		assert_true(NT_STATUS_IS_OK(jobs[i].status));
		if (jobs[i].off < FILE_SIZE) {
			want = FILE_SIZE - jobs[i].off;
			want = want < jobs[i].len ? want : jobs[i].len;
		}
		assert_int_equal(jobs[i].got, want);
		if (data != NULL) {
			assert_memory_equal(jobs[i].buf, data + jobs[i].off,
					    want);
		} else {
			size_t k;

			for (k = 0; k < want; k++) {
				assert_int_equal(jobs[i].buf[k], 0);
			}
		}
		talloc_free(jobs[i].buf);
	}
	talloc_free(fh);
}

static uint8_t *make_big(TALLOC_CTX *ctx, struct tree *t)
{
	uint8_t *data = talloc_size(ctx, FILE_SIZE);
	char p[256];
	size_t i;

	for (i = 0; i < FILE_SIZE; i++) {
		data[i] = (uint8_t)(random() >> 7);
	}
	snprintf(p, sizeof(p), "%s/big", t->share);
	write_file(p, data, FILE_SIZE);
	return data;
}

static void test_vfs__pread_default_and_io_uring(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	static const char *const uring[] = { "io_uring", NULL };
	struct tree t;
	uint8_t *data = NULL;
	struct vfs_handle *vfs = NULL;

	srandom(42);
	tree_make(&t);
	data = make_big(ctx, &t);

	vfs = connect_share(ctx, ev, t.share, NULL, true);
	run_reads(ctx, ev, vfs, data);
	talloc_free(vfs);

	vfs = connect_share(ctx, ev, t.share, uring, true);
	run_reads(ctx, ev, vfs, data);
	talloc_free(vfs);

	/* io_uring = no: the module passes reads to vfs_default */
	vfs = connect_share(ctx, ev, t.share, uring, false);
	run_reads(ctx, ev, vfs, data);
	talloc_free(vfs);

	if (uring_ev_get(ev) == NULL) {
		print_message("io_uring unavailable: ring path not tested\n");
	}
	talloc_free(data);
	talloc_free(ev);
	tree_remove(&t);
}

static void drain_ring(struct tevent_context *ev);

/* Drop the file's pages from the page cache (clean after fsync). */
static void evict(struct tree *t, const char *name)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", t->share, name);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
}

/*
 * vfs_default with a ring: cached pages are read with preadv2(RWF_NOWAIT)
 * in place, the rest through the ring (no blocking in the loop); the
 * bytes are the same either way, also for reads that start cached and
 * end uncached.  On a file system without RWF_NOWAIT (tmpfs) every read
 * is a plain pread.
 */
static void test_vfs__pread_uncached_through_ring(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	uint8_t *data = NULL;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	struct uring *ring = uring_ev_get(ev);
	struct uring_stats before = {}, after = {};
	uint8_t *buf = NULL;
	size_t got = 0;
	int round;

	srandom(7);
	tree_make(&t);
	data = make_big(ctx, &t);
	vfs = connect_share(ctx, ev, t.share, NULL, true);
	for (round = 0; round < 3; round++) {
		evict(&t, "big");
		if (ring != NULL) {
			uring_get_stats(ring, &before);
		}
		run_reads(ctx, ev, vfs, data);
		if (ring != NULL) {
			uring_get_stats(ring, &after);
			print_message("round %d: %llu SQEs for uncached pages\n",
				      round, (unsigned long long)
				      (after.sqes_submitted -
				       before.sqes_submitted));
		}
	}
	/* cached head, uncached tail: one read across the boundary */
	evict(&t, "big");
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "big", O_RDONLY,
					       &fh, NULL)));
	buf = talloc_size(ctx, 300000);
	{
		struct tevent_req *req = vfs_pread_send(ctx, ev, fh, buf, 4096,
							100000);
		assert_true(tevent_req_poll(req, ev));
		assert_true(NT_STATUS_IS_OK(vfs_pread_recv(req, &got)));
		talloc_free(req);
		req = vfs_pread_send(ctx, ev, fh, buf, 300000, 98304);
		assert_true(tevent_req_poll(req, ev));
		assert_true(NT_STATUS_IS_OK(vfs_pread_recv(req, &got)));
		assert_int_equal(got, 300000);
		assert_memory_equal(buf, data + 98304, 300000);
		talloc_free(req);
	}
	/* freed in flight: the ring's own buffer takes the late bytes */
	evict(&t, "big");
	{
		TALLOC_CTX *req_ctx = talloc_new(ctx);
		uint8_t *b = talloc_size(req_ctx, 65536);
		struct tevent_req *req = vfs_pread_send(req_ctx, ev, fh, b,
							65536, 655360);

		assert_non_null(req);
		talloc_free(req_ctx);
		drain_ring(ev);
	}
	talloc_free(fh);
	talloc_free(buf);
	talloc_free(vfs);
	talloc_free(data);
	talloc_free(ev);
	tree_remove(&t);
}

static void wake(struct tevent_context *ev, struct tevent_timer *te,
		 struct timeval now, void *private_data)
{
}

/* Run the loop until the ring has nothing in flight (bounded). */
static void drain_ring(struct tevent_context *ev)
{
	struct uring *ring = uring_ev_get(ev);
	struct uring_stats st = {};
	int i;

	for (i = 0; i < 200; i++) {
		if (ring != NULL) {
			uring_get_stats(ring, &st);
		}
		if (st.inflight == 0 && st.queued == 0 && i > 0) {
			return;
		}
		tevent_add_timer(ev, ev, tevent_timeval_current_ofs(0, 10000),
				 wake, NULL);
		tevent_loop_once(ev);
	}
	fail_msg("ring still busy");
}

static void test_vfs__pread_freed_in_flight(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	static const char *const uring[] = { "io_uring", NULL };
	struct tree t;
	uint8_t *data = NULL;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	int i;

	tree_make(&t);
	data = make_big(ctx, &t);
	vfs = connect_share(ctx, ev, t.share, uring, true);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "big", O_RDONLY,
					       &fh, NULL)));
	for (i = 0; i < 16; i++) {
		TALLOC_CTX *req_ctx = talloc_new(ctx);
		uint8_t *buf = talloc_size(req_ctx, 65536);
		struct tevent_req *req = vfs_pread_send(req_ctx, ev, fh, buf,
							65536, 4096 * i);

		assert_non_null(req);
		if (i % 2 == 1) {
			tevent_loop_once(ev);
		}
		talloc_free(req_ctx);   /* the buffer must outlive the CQE */
	}
	drain_ring(ev);
	talloc_free(fh);
	talloc_free(vfs);
	talloc_free(data);
	talloc_free(ev);
	tree_remove(&t);
}

/* CLOSE racing a READ: the fd must stay open until the read is done. */
static void test_vfs__close_during_read(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	static const char *const uring[] = { "io_uring", NULL };
	struct tree t;
	uint8_t *data = NULL;
	struct vfs_handle *vfs = NULL;
	TALLOC_CTX *open = talloc_new(ctx);
	struct vfs_fh *fh = NULL;
	uint8_t *buf = talloc_size(ctx, 4096);
	struct tevent_req *req = NULL;
	size_t got = 0;

	tree_make(&t);
	data = make_big(ctx, &t);
	vfs = connect_share(ctx, ev, t.share, uring, true);
	assert_true(NT_STATUS_IS_OK(vfs_openat(open, vfs, "big", O_RDONLY,
					       &fh, NULL)));
	req = vfs_pread_send(ctx, ev, fh, buf, 4096, 8192);
	assert_non_null(req);
	talloc_free(open);              /* the open goes away first */
	assert_true(tevent_req_poll(req, ev));
	assert_true(NT_STATUS_IS_OK(vfs_pread_recv(req, &got)));
	assert_int_equal(got, 4096);
	assert_memory_equal(buf, data + 8192, 4096);
	talloc_free(req);
	talloc_free(buf);
	talloc_free(vfs);
	talloc_free(data);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs__noop_reads_zeros(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	static const char *const noop[] = { "noop", NULL };
	struct tree t;
	uint8_t *data = NULL;
	struct vfs_handle *vfs = NULL;

	tree_make(&t);
	data = make_big(ctx, &t);
	vfs = connect_share(ctx, ev, t.share, noop, true);
	run_reads(ctx, ev, vfs, NULL);
	talloc_free(vfs);
	talloc_free(data);
	talloc_free(ev);
	tree_remove(&t);
}

/* One pwrite then one fsync, each run to completion. */
static void write_sync(struct tevent_context *ev, struct vfs_fh *fh,
		       const void *buf, size_t len, uint64_t off)
{
	struct tevent_req *req = vfs_pwrite_send(fh, ev, fh, buf, len, off);
	size_t got = 0;

	wait_done(ev, req);
	assert_true(NT_STATUS_IS_OK(vfs_pwrite_recv(req, &got)));
	assert_int_equal(got, len);
	talloc_free(req);
	req = vfs_fsync_send(fh, ev, fh);
	wait_done(ev, req);
	assert_true(NT_STATUS_IS_OK(vfs_fsync_recv(req)));
	talloc_free(req);
}

/*
 * The data comes from inside a larger buffer, as a WRITE's data sits in
 * its PDU: io_uring must not treat it as a talloc chunk.  Returns the
 * file's bytes after "hello" got "XY" at 1 and "Z" at 8 (a gap of zeros).
 */
static void run_writes(TALLOC_CTX *ctx, struct tevent_context *ev,
		       struct tree *t, const char *const *objects,
		       bool uring, const char *want, size_t want_len)
{
	struct vfs_handle *vfs = connect_share(ctx, ev, t->share, objects,
					       uring);
	uint8_t *pdu = talloc_size(ctx, 64);
	struct vfs_fh *fh = NULL;
	char p[256];
	char got[16] = "";
	int fd;

	snprintf(p, sizeof(p), "%s/a", t->share);
	write_file(p, "hello", 5);
	memcpy(pdu + 0x30, "XYZ", 3);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_RDWR, &fh,
					       NULL)));
	write_sync(ev, fh, pdu + 0x30, 2, 1);
	write_sync(ev, fh, pdu + 0x32, 1, 8);
	talloc_free(fh);
	talloc_free(pdu);
	talloc_free(vfs);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, got, sizeof(got)), (ssize_t)want_len);
	close(fd);
	assert_memory_equal(got, want, want_len);
}

static void test_vfs__pwrite_fsync_modules(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	static const char *const uring[] = { "io_uring", NULL };
	static const char *const noop[] = { "noop", NULL };
	static const char written[] = "hXYlo\0\0\0Z";
	struct tree t;

	tree_make(&t);
	run_writes(ctx, ev, &t, NULL, true, written, 9);
	run_writes(ctx, ev, &t, uring, true, written, 9);
	run_writes(ctx, ev, &t, uring, false, written, 9);
	/* noop: reported written, the file is untouched */
	run_writes(ctx, ev, &t, noop, true, "hello", 5);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs__pread_range_checked(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	struct tevent_req *req = NULL;
	uint8_t *buf = talloc_size(ctx, 16);
	size_t got = 0;

	tree_make(&t);
	vfs = connect_share(ctx, ev, t.share, NULL, true);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_RDONLY, &fh,
					       NULL)));
	req = vfs_pread_send(ctx, ev, fh, buf, 16, (uint64_t)INT64_MAX - 3);
	assert_true(tevent_req_poll(req, ev));
	assert_true(NT_STATUS_EQUAL(vfs_pread_recv(req, &got),
				    NT_STATUS_INVALID_PARAMETER));
	talloc_free(req);
	req = vfs_pread_send(ctx, ev, fh, buf, 16, 0);
	assert_true(tevent_req_poll(req, ev));
	assert_true(NT_STATUS_IS_OK(vfs_pread_recv(req, &got)));
	assert_int_equal(got, 5);
	assert_memory_equal(buf, "hello", 5);
	talloc_free(req);
	talloc_free(buf);
	talloc_free(fh);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

/* ---- enumeration ---- */

static void test_vfs__readdir(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	struct vfs_dir *dir = NULL;
	struct vfs_dirent ent;
	char p[256];
	int i, pass, n;

	tree_make(&t);
	for (i = 0; i < 3000; i++) {
		snprintf(p, sizeof(p), "%s/d/file-with-a-long-name-%05d",
			 t.share, i);
		write_file(p, "", 0);
	}
	vfs = connect_share(ctx, ev, t.share, NULL, true);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "d",
					       O_RDONLY | O_DIRECTORY, &fh,
					       NULL)));
	assert_true(NT_STATUS_IS_OK(vfs_opendir(ctx, fh, &dir)));
	for (pass = 0; pass < 2; pass++) {
		n = 0;
		while (NT_STATUS_IS_OK(vfs_readdir(dir, &ent))) {
			assert_true(strcmp(ent.name, ".") != 0);
			assert_true(strcmp(ent.name, "..") != 0);
			n++;
		}
		assert_int_equal(n, 3001);      /* + "f" */
		assert_true(NT_STATUS_EQUAL(vfs_readdir(dir, &ent),
					    NT_STATUS_NO_MORE_FILES));
		assert_true(NT_STATUS_IS_OK(vfs_rewinddir(dir)));
	}
	talloc_free(dir);
	talloc_free(fh);
	/* an O_PATH open cannot be listed */
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "d", O_PATH, &fh,
					       NULL)));
	assert_true(NT_STATUS_EQUAL(vfs_opendir(ctx, fh, &dir),
				    NT_STATUS_ACCESS_DENIED));
	talloc_free(fh);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs__fifo_does_not_block(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	struct statx st;
	char p[256];

	tree_make(&t);
	snprintf(p, sizeof(p), "%s/fifo", t.share);
	assert_int_equal(mkfifo(p, 0644), 0);
	vfs = connect_share(ctx, ev, t.share, NULL, true);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "fifo", O_RDONLY,
					       &fh, &st)));
	assert_true(S_ISFIFO(st.stx_mode));
	talloc_free(fh);
	/* a regular file's fd is blocking again (io_uring needs that) */
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_RDONLY,
					       &fh, &st)));
	assert_int_equal(fcntl(fh->fd, F_GETFL) & O_NONBLOCK, 0);
	talloc_free(fh);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

/* One splice_read into pipe_wr, waited for a bounded time. */
static int splice_read_once(struct tevent_context *ev, struct vfs_fh *fh,
			    int pipe_wr, size_t len, uint64_t off,
			    size_t *got)
{
	struct tevent_req *req = vfs_splice_read_send(ev, ev, fh, pipe_wr,
						      len, off, NULL);
	int i, ret;

	assert_non_null(req);
	for (i = 0; i < 500 && tevent_req_is_in_progress(req); i++) {
		tevent_add_timer(ev, ev, tevent_timeval_current_ofs(0, 10000),
				 wake, NULL);
		tevent_loop_once(ev);
	}
	assert_false(tevent_req_is_in_progress(req));
	ret = vfs_splice_read_recv(req, got);
	talloc_free(req);
	return ret;
}

/*
 * The splice read mode's stall: a pipe sized for its bytes fills early
 * when a splice continues mid-page (the continued page takes a second
 * slot).  vfs_default (splice(2)) and vfs_io_uring (IORING_OP_SPLICE)
 * must come back short instead of blocking on a pipe nobody reads.
 */
static void test_vfs__splice_read_full_pipe(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	static const char *const uring[] = { "io_uring", NULL };
	/* the third: vfs_default with the pages evicted (ring splice) */
	const char *const *stacks[] = { NULL, uring, NULL };
	const size_t cap = 65536, off = 100, first = 5000;
	const size_t rest = cap - 4096 - first;
	uint8_t *back = talloc_size(ctx, cap);
	struct tree t;
	uint8_t *data = NULL;
	size_t i;

	srandom(7);
	tree_make(&t);
	data = make_big(ctx, &t);
	for (i = 0; i < 3; i++) {
		struct vfs_handle *vfs = connect_share(ctx, ev, t.share,
						       stacks[i], true);
		struct vfs_fh *fh = NULL;
		size_t n1 = 0, n2 = 0;
		int p[2];

		assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "big",
						       O_RDONLY, &fh, NULL)));
		if (i == 2) {
			evict(&t, "big");
		}
		assert_int_equal(pipe2(p, O_CLOEXEC), 0);
		assert_int_equal(fcntl(p[1], F_SETPIPE_SZ, (int)cap),
				 (int)cap);
		assert_int_equal(splice_read_once(ev, fh, p[1], first, off,
						  &n1), 0);
		assert_int_equal(n1, first);
		assert_int_equal(splice_read_once(ev, fh, p[1], rest,
						  off + first, &n2), 0);
		assert_true(n2 < rest && n2 + 4096 >= rest);
		assert_int_equal(read(p[0], back, cap), (ssize_t)(n1 + n2));
		assert_memory_equal(back, data + off, n1 + n2);
		close(p[0]);
		close(p[1]);
		talloc_free(fh);
		talloc_free(vfs);
	}
	talloc_free(back);
	talloc_free(data);
	talloc_free(ev);
	tree_remove(&t);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_vfs__pread_default_and_io_uring),
		T(test_vfs__pread_freed_in_flight),
		T(test_vfs__pread_uncached_through_ring),
		T(test_vfs__close_during_read),
		T(test_vfs__noop_reads_zeros),
		T(test_vfs__pwrite_fsync_modules),
		T(test_vfs__pread_range_checked),
		T(test_vfs__readdir),
		T(test_vfs__fifo_does_not_block),
		T(test_vfs__splice_read_full_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
