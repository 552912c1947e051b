/*
 * Unit tests for the VFS stack (source3/modules), the information class
 * encoders and the name matcher (lib/smb2/fileinfo.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tevent.h>
#include "tests/unit/unit.h"
#include "source3/modules/vfs.h"
#include "lib/uring/uring.h"
#include "lib/util/byteorder.h"
/*
 * The encoders are pure and depend on nothing but headers; test them
 * from source (h2o's t/00unit style) so this binary needs no ringsmb-smb2.
 */
#include "lib/smb2/fileinfo.c"

/* A scratch tree: base/sh is the share, base/sh2 a sibling. */
struct tree {
	char base[64];
	char share[96];
	char sib[96];
};

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void tree_make(struct tree *t)
{
	char p[256];

	strcpy(t->base, "/tmp/ringsmb-vfs-XXXXXX");
	assert_non_null(mkdtemp(t->base));
	snprintf(t->share, sizeof(t->share), "%s/sh", t->base);
	snprintf(t->sib, sizeof(t->sib), "%s/sh2", t->base);
	assert_int_equal(mkdir(t->share, 0755), 0);
	assert_int_equal(mkdir(t->sib, 0755), 0);
	snprintf(p, sizeof(p), "%s/secret", t->sib);
	write_file(p, "secret", 6);
	snprintf(p, sizeof(p), "%s/a", t->share);
	write_file(p, "hello", 5);
	snprintf(p, sizeof(p), "%s/d", t->share);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/d/f", t->share);
	write_file(p, "inner", 5);
}

static void tree_link(struct tree *t, const char *target, const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", t->share, name);
	assert_int_equal(symlink(target, p), 0);
}

static void tree_remove(struct tree *t)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->base);
	assert_int_equal(system(cmd), 0);
}

static struct vfs_handle *connect_share(TALLOC_CTX *ctx,
					struct tevent_context *ev,
					const char *path,
					const char *const *objects,
					bool uring)
{
	struct vfs_handle *vfs = NULL;
	NTSTATUS status = vfs_connect_path(ctx, ev, "sh", path, objects,
					   uring, &vfs);

	assert_true(NT_STATUS_IS_OK(status));
	return vfs;
}

static NTSTATUS try_open(TALLOC_CTX *ctx, struct vfs_handle *vfs,
			 const char *path)
{
	struct vfs_fh *fh = NULL;
	NTSTATUS status = vfs_openat(ctx, vfs, path, O_RDONLY, &fh, NULL);

	TALLOC_FREE(fh);
	return status;
}

/* ---- confinement (RELIABILITY.md item 30, G10) ---- */

static void test_vfs__openat_confined(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	static const char *const refused[] = {
		"..", "../sh2/secret", "d/../../sh2/secret", "/etc/passwd",
		"root/etc/passwd", "up/sh2/secret", "sib/secret",
		"abs", "proc/etc/passwd", "upup/etc/passwd",
	};
	size_t i;

	tree_make(&t);
	tree_link(&t, "/", "root");
	tree_link(&t, "..", "up");
	tree_link(&t, "../../..", "upup");
	tree_link(&t, "../sh2", "sib");
	tree_link(&t, "/proc/self/root", "proc");
	tree_link(&t, "/etc/passwd", "abs");
	tree_link(&t, "d/f", "inside");
	tree_link(&t, "../a", "d/back");
	vfs = connect_share(ctx, ev, t.share, NULL, false);

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		NTSTATUS status = try_open(ctx, vfs, refused[i]);

		if (NT_STATUS_IS_OK(status)) {
			fail_msg("escape not refused: %s", refused[i]);
		}
	}
	assert_true(NT_STATUS_IS_OK(try_open(ctx, vfs, "")));
	assert_true(NT_STATUS_IS_OK(try_open(ctx, vfs, "a")));
	assert_true(NT_STATUS_IS_OK(try_open(ctx, vfs, "inside")));
	assert_true(NT_STATUS_IS_OK(try_open(ctx, vfs, "d/back")));
	assert_true(NT_STATUS_EQUAL(try_open(ctx, vfs, "nope"),
				    NT_STATUS_OBJECT_NAME_NOT_FOUND));
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs__statat_hides_escaping_links(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *root = NULL;
	struct statx st;

	tree_make(&t);
	tree_link(&t, "../sh2/secret", "sib");
	tree_link(&t, "a", "alias");
	vfs = connect_share(ctx, ev, t.share, NULL, false);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "", O_RDONLY,
					       &root, NULL)));
	assert_false(NT_STATUS_IS_OK(vfs_statat(root, "", "sib", &st)));
	assert_true(NT_STATUS_IS_OK(vfs_statat(root, "", "alias", &st)));
	assert_int_equal(st.stx_size, 5);
	assert_true(S_ISREG(st.stx_mode));
	assert_false(NT_STATUS_IS_OK(vfs_statat(root, "", "..", &st)));
	talloc_free(root);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs__unknown_module(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	static const char *const objs[] = { "io_uring", "bogus", NULL };
	struct vfs_handle *vfs = NULL;
	NTSTATUS status = vfs_connect_path(ctx, ev, "sh", "/tmp", objs, true,
					   &vfs);

	assert_false(NT_STATUS_IS_OK(status));
	assert_null(vfs);
	status = vfs_connect_path(ctx, ev, "sh", "/nonexistent/ringsmb",
				  NULL, true, &vfs);
	assert_false(NT_STATUS_IS_OK(status));
	talloc_free(ev);
}

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

static void flag_done(struct tevent_req *req)
{
	bool *done = tevent_req_callback_data_void(req);

	*done = true;
}

/* Runs the loop until req's callback ran, which is never inside _send. */
static void wait_done(struct tevent_context *ev, struct tevent_req *req)
{
	bool done = false;

	assert_non_null(req);
	tevent_req_set_callback(req, flag_done, &done);
	while (!done) {
		assert_int_equal(tevent_loop_once(ev), 0);
	}
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
	const char *const *stacks[] = { NULL, uring };
	const size_t cap = 65536, off = 100, first = 5000;
	const size_t rest = cap - 4096 - first;
	uint8_t *back = talloc_size(ctx, cap);
	struct tree t;
	uint8_t *data = NULL;
	size_t i;

	srandom(7);
	tree_make(&t);
	data = make_big(ctx, &t);
	for (i = 0; i < 2; i++) {
		struct vfs_handle *vfs = connect_share(ctx, ev, t.share,
						       stacks[i], true);
		struct vfs_fh *fh = NULL;
		size_t n1 = 0, n2 = 0;
		int p[2];

		assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "big",
						       O_RDONLY, &fh, NULL)));
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

/* ---- information classes ---- */

static const struct smb2_file_meta sample_meta = {
	.create_time = 0x0102030405060708ULL,
	.access_time = 0x1112131415161718ULL,
	.write_time = 0x2122232425262728ULL,
	.change_time = 0x3132333435363738ULL,
	.attributes = SMB2_FILE_ATTRIBUTE_ARCHIVE,
	.allocation_size = 4096,
	.end_of_file = 1234,
	.nlink = 1,
	.file_id = 0xAABBCCDDEEFF0011ULL,
	.access_mask = 0x00120089,
	.mode = 0x20,
};

static const uint8_t name_x[] = { '\\', 0, 'x', 0 };

static void test_fileinfo__basic_exact(void **state)
{
	static const uint8_t want[40] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,
		0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,
		0x38, 0x37, 0x36, 0x35, 0x34, 0x33, 0x32, 0x31,
		0x20, 0, 0, 0, 0, 0, 0, 0,
	};
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_BASIC_INFORMATION, &sample_meta, NULL,
		65536, &out, &len)));
	assert_int_equal(len, 40);
	assert_memory_equal(out, want, 40);
	talloc_free(out);
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, SMB2_FILE_BASIC_INFORMATION, &sample_meta, NULL,
		39, &out, &len), NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, SMB2_FILE_BASIC_INFORMATION, &sample_meta, NULL,
		0, &out, &len), NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, 200, &sample_meta, NULL, 65536, &out, &len),
		NT_STATUS_INVALID_INFO_CLASS));
}

static void test_fileinfo__standard_and_small(void **state)
{
	static const uint8_t want[24] = {
		0x00, 0x10, 0, 0, 0, 0, 0, 0,
		0xD2, 0x04, 0, 0, 0, 0, 0, 0,
		1, 0, 0, 0, 0, 0, 0, 0,
	};
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_STANDARD_INFORMATION, &sample_meta, NULL,
		24, &out, &len)));
	assert_int_equal(len, 24);
	assert_memory_equal(out, want, 24);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_INTERNAL_INFORMATION, &sample_meta, NULL,
		8, &out, &len)));
	assert_int_equal(len, 8);
	assert_int_equal(pull_le64(out), 0xAABBCCDDEEFF0011ULL);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_ACCESS_INFORMATION, &sample_meta, NULL,
		4, &out, &len)));
	assert_int_equal(pull_le32(out), 0x00120089);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_ATTRIBUTE_TAG_INFORMATION, &sample_meta,
		NULL, 8, &out, &len)));
	assert_int_equal(len, 8);
	assert_int_equal(pull_le32(out), SMB2_FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(pull_le32(out + 4), 0);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_NETWORK_OPEN_INFORMATION, &sample_meta,
		NULL, 100, &out, &len)));
	assert_int_equal(len, 56);
	assert_int_equal(pull_le64(out + 32), 4096);
	assert_int_equal(pull_le64(out + 40), 1234);
	assert_int_equal(pull_le32(out + 48), SMB2_FILE_ATTRIBUTE_ARCHIVE);
	talloc_free(out);
}

static void test_fileinfo__all_and_overflow(void **state)
{
	struct smb2_name16 name = { .data = name_x, .len = sizeof(name_x) };
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_ALL_INFORMATION, &sample_meta, &name,
		4096, &out, &len)));
	assert_int_equal(len, 104);
	assert_int_equal(pull_le64(out + 0), sample_meta.create_time);
	assert_int_equal(pull_le32(out + 32), SMB2_FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(pull_le64(out + 40), 4096);    /* Standard */
	assert_int_equal(pull_le64(out + 48), 1234);
	assert_int_equal(pull_le32(out + 56), 1);
	assert_int_equal(pull_le64(out + 64), sample_meta.file_id);
	assert_int_equal(pull_le32(out + 72), 0);       /* EaSize */
	assert_int_equal(pull_le32(out + 76), 0x00120089);
	assert_int_equal(pull_le64(out + 80), 0);       /* Position */
	assert_int_equal(pull_le32(out + 88), 0x20);    /* Mode */
	assert_int_equal(pull_le32(out + 92), 0);       /* Alignment */
	assert_int_equal(pull_le32(out + 96), 4);       /* FileNameLength */
	assert_memory_equal(out + 100, name_x, 4);
	talloc_free(out);

	/*
	 * Windows' least buffer is sizeof(FILE_ALL_INFORMATION), 104 with
	 * the name's first WCHAR and padding (smbtorture qfile_buffercheck):
	 * below it INFO_LENGTH_MISMATCH even where the name would be cut.
	 */
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, SMB2_FILE_ALL_INFORMATION, &sample_meta, &name,
		103, &out, &len), NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fileinfo_push(
		*state, SMB2_FILE_ALL_INFORMATION, &sample_meta, &name,
		99, &out, &len), NT_STATUS_INFO_LENGTH_MISMATCH));
}

static void test_fileinfo__stream(void **state)
{
	struct smb2_file_meta dir = sample_meta;
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_STREAM_INFORMATION, &sample_meta, NULL,
		4096, &out, &len)));
	assert_int_equal(len, 38);
	assert_int_equal(pull_le32(out), 0);
	assert_int_equal(pull_le32(out + 4), 14);
	assert_int_equal(pull_le64(out + 8), 1234);
	assert_int_equal(pull_le64(out + 16), 4096);
	assert_memory_equal(out + 24, ":\0:\0$\0D\0A\0T\0A\0", 14);
	talloc_free(out);

	dir.is_dir = true;
	assert_true(NT_STATUS_IS_OK(smb2_fileinfo_push(
		*state, SMB2_FILE_STREAM_INFORMATION, &dir, NULL, 4096, &out,
		&len)));
	assert_int_equal(len, 0);
	talloc_free(out);
}

static void test_fileinfo__fs_classes(void **state)
{
	static const uint8_t label[] = { 's', 0, 'h', 0 };
	struct smb2_fs_meta fs = {
		.volume_create_time = 0x0102030405060708ULL,
		.serial_number = 0xDEADBEEF,
		.label = { .data = label, .len = sizeof(label) },
		.total_units = 1000, .caller_avail_units = 400,
		.actual_avail_units = 500, .sectors_per_unit = 8,
		.bytes_per_sector = 512, .read_only = true,
	};
	static const uint8_t want_vol[22] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0xEF, 0xBE, 0xAD, 0xDE, 4, 0, 0, 0, 0, 0, 's', 0, 'h', 0,
	};
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_VOLUME_INFORMATION, &fs, 4096, &out, &len)));
	assert_int_equal(len, 22);
	assert_memory_equal(out, want_vol, 22);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_FULL_SIZE_INFORMATION, &fs, 32, &out, &len)));
	assert_int_equal(len, 32);
	assert_int_equal(pull_le64(out), 1000);
	assert_int_equal(pull_le64(out + 8), 400);
	assert_int_equal(pull_le64(out + 16), 500);
	assert_int_equal(pull_le32(out + 24), 8);
	assert_int_equal(pull_le32(out + 28), 512);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_ATTRIBUTE_INFORMATION, &fs, 100, &out, &len)));
	assert_int_equal(len, 20);
	assert_int_equal(pull_le32(out + 4), 255);
	assert_int_equal(pull_le32(out + 8), 8);
	assert_memory_equal(out + 12, "N\0T\0F\0S\0", 8);
	assert_true((pull_le32(out) & 0x00080000) != 0);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_DEVICE_INFORMATION, &fs, 8, &out, &len)));
	assert_int_equal(pull_le32(out), 7);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_SECTOR_SIZE_INFORMATION, &fs, 28, &out,
		&len)));
	assert_int_equal(len, 28);
	talloc_free(out);
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_SIZE_INFORMATION, &fs, 24, &out, &len)));
	assert_int_equal(pull_le64(out + 8), 400);
	talloc_free(out);
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_VOLUME_INFORMATION, &fs, 17, &out, &len),
		NT_STATUS_INFO_LENGTH_MISMATCH));
	/* below sizeof() with the first WCHAR (24, 16): INFO_LENGTH_MISMATCH */
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_VOLUME_INFORMATION, &fs, 23, &out, &len),
		NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_ATTRIBUTE_INFORMATION, &fs, 15, &out, &len),
		NT_STATUS_INFO_LENGTH_MISMATCH));
	/* above it a cut name: BUFFER_OVERFLOW with what fits */
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_ATTRIBUTE_INFORMATION, &fs, 18, &out, &len),
		NT_STATUS_BUFFER_OVERFLOW));
	assert_int_equal(len, 18);
	talloc_free(out);
	/* no quotas: thresholds 0, defaults "no limit", flags 0 */
	assert_true(NT_STATUS_IS_OK(smb2_fsinfo_push(
		*state, SMB2_FS_CONTROL_INFORMATION, &fs, 48, &out, &len)));
	assert_int_equal(len, 48);
	assert_int_equal(pull_le64(out + 16), 0);
	assert_true(pull_le64(out + 24) == UINT64_MAX);
	assert_true(pull_le64(out + 32) == UINT64_MAX);
	assert_int_equal(pull_le32(out + 40), 0);
	talloc_free(out);
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, SMB2_FS_OBJECT_ID_INFORMATION, &fs, 63, &out, &len),
		NT_STATUS_INFO_LENGTH_MISMATCH));
	assert_true(NT_STATUS_EQUAL(smb2_fsinfo_push(
		*state, 99, &fs, 100, &out, &len),
		NT_STATUS_INVALID_INFO_CLASS));
}

/* ---- directory entries ---- */

static void check_chain(const struct smb2_dirlist *l, size_t fixed,
			size_t name_ofs_len)
{
	size_t ofs = 0, n = 0;

	for (;;) {
		uint32_t next = pull_le32(l->buf + ofs);

		n++;
		assert_int_equal(ofs % 8, 0);
		if (next == 0) {
			break;
		}
		assert_true(next >= fixed);
		ofs += next;
	}
	assert_int_equal(n, l->count);
	assert_int_equal(ofs, l->last);
	assert_int_equal(l->len, ofs + fixed +
			 pull_le32(l->buf + ofs + name_ofs_len));
}

static void test_dirlist__alignment(void **state)
{
	static const uint8_t classes[] = {
		SMB2_FILE_DIRECTORY_INFORMATION,
		SMB2_FILE_FULL_DIRECTORY_INFORMATION,
		SMB2_FILE_BOTH_DIRECTORY_INFORMATION,
		SMB2_FILE_NAMES_INFORMATION,
		SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION,
		SMB2_FILE_ID_FULL_DIRECTORY_INFORMATION,
	};
	static const uint8_t fixed[] = { 64, 68, 94, 12, 104, 80 };
	static const uint8_t name[] = { 'a', 0, 'b', 0, 'c', 0 };
	uint8_t *buf = talloc_size(*state, 4096);
	size_t c;

	for (c = 0; c < sizeof(classes); c++) {
		struct smb2_dirlist l;
		struct smb2_name16 n = { .data = name };
		size_t k;

		assert_int_equal(smb2_dirent_fixed_size(classes[c]),
				 fixed[c]);
		smb2_dirlist_init(&l, classes[c], buf, 4096);
		for (k = 1; k <= 3; k++) {
			n.len = 2 * k;
			assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
		}
		check_chain(&l, fixed[c],
			    classes[c] == SMB2_FILE_NAMES_INFORMATION ? 8 : 60);
		/* the name is last in every entry */
		assert_memory_equal(l.buf + l.last + fixed[c], name, 6);
	}
	talloc_free(buf);
}

static void test_dirlist__exact_fields_and_truncation(void **state)
{
	static const uint8_t name[] = { 'a', 0 };
	struct smb2_name16 n = { .data = name, .len = 2 };
	uint8_t *buf = talloc_size(*state, 256);
	struct smb2_dirlist l;

	/* IdBoth: one entry fits exactly in 106 bytes, a second does not */
	smb2_dirlist_init(&l, SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION, buf,
			  106);
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_int_equal(l.len, 106);
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_int_equal(l.count, 1);
	assert_int_equal(pull_le32(buf), 0);
	assert_int_equal(pull_le64(buf + 40), 1234);    /* EndOfFile */
	assert_int_equal(pull_le64(buf + 48), 4096);    /* Allocation */
	assert_int_equal(pull_le32(buf + 56), SMB2_FILE_ATTRIBUTE_ARCHIVE);
	assert_int_equal(pull_le32(buf + 60), 2);
	assert_int_equal(buf[68], 0);                   /* ShortNameLength */
	assert_int_equal(pull_le64(buf + 96), sample_meta.file_id);
	assert_memory_equal(buf + 104, name, 2);

	/* IdExtd (MS-FSCC 2.4.21): 88 fixed bytes, a 128-bit FileId */
	memset(buf, 0xAA, 256);
	smb2_dirlist_init(&l, SMB2_FILE_ID_EXTD_DIRECTORY_INFORMATION, buf,
			  90);
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_int_equal(l.len, 90);
	assert_int_equal(pull_le32(buf + 60), 2);       /* FileNameLength */
	assert_int_equal(pull_le32(buf + 68), 0);       /* ReparsePointTag */
	assert_int_equal(pull_le64(buf + 72), sample_meta.file_id);
	assert_int_equal(pull_le64(buf + 80), 0);
	assert_memory_equal(buf + 88, name, 2);
	smb2_dirlist_init(&l, SMB2_FILE_ID_EXTD_DIRECTORY_INFORMATION, buf,
			  89);
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));

	/* too small for one entry */
	smb2_dirlist_init(&l, SMB2_FILE_DIRECTORY_INFORMATION, buf, 65);
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));
	smb2_dirlist_init(&l, SMB2_FILE_DIRECTORY_INFORMATION, buf, 8);
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));
	/* the second entry needs the padding too: 66 -> 72 + 66 */
	smb2_dirlist_init(&l, SMB2_FILE_DIRECTORY_INFORMATION, buf, 137);
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_false(smb2_dirlist_add(&l, &sample_meta, &n));
	smb2_dirlist_init(&l, SMB2_FILE_DIRECTORY_INFORMATION, buf, 138);
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_true(smb2_dirlist_add(&l, &sample_meta, &n));
	assert_int_equal(pull_le32(buf), 72);
	assert_int_equal(l.len, 138);
	talloc_free(buf);
}

/* ---- name matching ---- */

static void test_match__wildcards(void **state)
{
	struct { const char *p, *n; bool m; } cases[] = {
		{ "*", "anything", true },
		{ "", "anything", true },
		{ "*", ".", true },
		{ "a*", "abc", true },
		{ "a*", "bac", false },
		{ "*.txt", "x.txt", true },
		{ "*.txt", "x.TXT", true },
		{ "*.TXT", "x.txt", true },
		{ "*.txt", "x.txt.bak", false },
		{ "?", "a", true },
		{ "?", "ab", false },
		{ "a?c", "abc", true },
		{ "a?c", "ac", false },
		{ "***a", "ba", true },
		{ "*a*b*c*", "xaybzc", true },
		{ "*a*b*c*", "xaycz", false },
		{ "File.TXT", "file.txt", true },
		{ "file", "file.txt", false },
		{ "<.txt", "a.b.txt", true },
		{ "<", "abc.def", false },
		{ "<.", "abc.", true },
		{ "<", "noext", true },
		{ "a>", "a", true },
		{ "a>", "ab", true },
		{ "a>>>", "ab", true },
		{ "a>.c", "a.c", true },
		{ "a>.c", "ab.c", true },
		{ "a>.c", "abc.c", false },
		{ "a\"", "a", true },
		{ "a\"", "a.", true },
		{ "a\"", "ab", false },
		{ "<\"*", "x.y", true },
		{ "\xc3\xa9*", "\xc3\xa9t\xc3\xa9", true },
		{ "?t?", "\xc3\xa9t\xc3\xa9", true },
		{ "??", "\xc3\xa9", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (smb2_name_match(cases[i].p, cases[i].n) != cases[i].m) {
			fail_msg("pattern \"%s\" name \"%s\": want %d",
				 cases[i].p, cases[i].n, cases[i].m);
		}
	}
	assert_true(smb2_name_has_wildcard("a*"));
	assert_true(smb2_name_has_wildcard("a<"));
	assert_false(smb2_name_has_wildcard("plain.txt"));
}

static void test_match__pathological_is_bounded(void **state)
{
	char *pat = talloc_zero_size(*state, 40001);
	char *name = talloc_zero_size(*state, 256);

	memset(name, 'a', 255);
	memset(pat, '*', 40000);
	assert_true(smb2_name_match(pat, name));
	memset(pat, '>', 40000);        /* too long: matches nothing */
	assert_false(smb2_name_match(pat, name));
	memset(pat, 0, 40001);
	memset(pat, 'a', 255);
	assert_true(smb2_name_match(pat, name));
	talloc_free(pat);
	talloc_free(name);
}

/* ---- the namespace: create, mkdir, rename, link, unlink, confined ---- */

static bool exists_in(const struct tree *t, const char *name)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", t->share, name);
	return lstat(p, &st) == 0;
}

static void test_vfs__namespace_ops(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	struct statx st;

	tree_make(&t);
	vfs = connect_share(ctx, ev, t.share, NULL, false);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "d/new",
					       O_RDWR | O_CREAT | O_EXCL,
					       &fh, &st)));
	assert_int_equal(st.stx_mode & 07777, 0644);
	TALLOC_FREE(fh);
	assert_true(NT_STATUS_EQUAL(vfs_openat(ctx, vfs, "d/new",
					       O_RDWR | O_CREAT | O_EXCL,
					       &fh, NULL),
				    NT_STATUS_OBJECT_NAME_COLLISION));
	assert_true(NT_STATUS_IS_OK(vfs_mkdirat(vfs, "d/sub", 0755)));
	assert_true(NT_STATUS_IS_OK(vfs_renameat(vfs, "d/new", "d/sub/moved",
						 RENAME_NOREPLACE)));
	assert_false(exists_in(&t, "d/new"));
	assert_true(exists_in(&t, "d/sub/moved"));
	assert_true(NT_STATUS_EQUAL(vfs_renameat(vfs, "a", "d/f",
						 RENAME_NOREPLACE),
				    NT_STATUS_OBJECT_NAME_COLLISION));
	assert_true(NT_STATUS_IS_OK(vfs_linkat(vfs, "a", "d/hard")));
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "d/hard", O_RDONLY,
					       &fh, &st)));
	assert_int_equal(st.stx_nlink, 2);
	TALLOC_FREE(fh);
	assert_true(NT_STATUS_EQUAL(vfs_unlinkat(vfs, "d/sub", AT_REMOVEDIR),
				    NT_STATUS_DIRECTORY_NOT_EMPTY));
	assert_true(NT_STATUS_IS_OK(vfs_unlinkat(vfs, "d/sub/moved", 0)));
	assert_true(NT_STATUS_IS_OK(vfs_unlinkat(vfs, "d/sub", AT_REMOVEDIR)));
	assert_false(exists_in(&t, "d/sub"));
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

/* Every namespace op refuses to act outside the share (G10). */
static void test_vfs__namespace_confined(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	char p[256];
	struct stat st;

	tree_make(&t);
	tree_link(&t, "../sh2", "sib");
	tree_link(&t, "/", "root");
	tree_link(&t, "../sh2/created", "dangling_out");
	vfs = connect_share(ctx, ev, t.share, NULL, false);
	assert_false(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "sib/x",
						O_RDWR | O_CREAT, &fh, NULL)));
	assert_false(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "dangling_out",
						O_RDWR | O_CREAT, &fh, NULL)));
	assert_false(NT_STATUS_IS_OK(vfs_mkdirat(vfs, "sib/dir", 0755)));
	assert_false(NT_STATUS_IS_OK(vfs_mkdirat(vfs, "root/tmp/x", 0755)));
	assert_false(NT_STATUS_IS_OK(vfs_unlinkat(vfs, "sib/secret", 0)));
	assert_false(NT_STATUS_IS_OK(vfs_renameat(vfs, "sib/secret", "stolen",
						  0)));
	assert_false(NT_STATUS_IS_OK(vfs_renameat(vfs, "a", "sib/planted",
						  0)));
	assert_false(NT_STATUS_IS_OK(vfs_linkat(vfs, "sib/secret", "hl")));
	assert_false(NT_STATUS_IS_OK(vfs_unlinkat(vfs, "..", 0)));
	assert_false(NT_STATUS_IS_OK(vfs_mkdirat(vfs, "d/..", 0755)));
	/* the link itself is renamed, not what it points to */
	assert_true(NT_STATUS_IS_OK(vfs_renameat(vfs, "sib", "sib2", 0)));
	snprintf(p, sizeof(p), "%s/secret", t.sib);
	assert_int_equal(stat(p, &st), 0);
	snprintf(p, sizeof(p), "%s/created", t.sib);
	assert_int_not_equal(stat(p, &st), 0);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs__metadata_ops(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL, *pfh = NULL;
	struct timespec ts[2] = {
		{ .tv_sec = 1000000000, .tv_nsec = 5 },
		{ .tv_sec = 1200000000, .tv_nsec = 7 },
	};
	struct statx st;
	char buf[16];
	size_t got = 0;
	NTSTATUS status;

	tree_make(&t);
	vfs = connect_share(ctx, ev, t.share, NULL, false);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_RDWR, &fh,
					       NULL)));
	assert_true(NT_STATUS_IS_OK(vfs_ftruncate(fh, 100)));
	assert_true(NT_STATUS_IS_OK(vfs_fstat(fh, &st)));
	assert_int_equal(st.stx_size, 100);
	assert_true(NT_STATUS_EQUAL(vfs_ftruncate(fh, UINT64_MAX),
				    NT_STATUS_INVALID_PARAMETER));
	assert_true(NT_STATUS_IS_OK(vfs_fallocate(fh, 0, 0, 200)));
	assert_true(NT_STATUS_IS_OK(vfs_fstat(fh, &st)));
	assert_int_equal(st.stx_size, 200);
	/* O_PATH handles: times and xattrs still work */
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_PATH, &pfh,
					       NULL)));
	assert_true(NT_STATUS_IS_OK(vfs_fntimes(pfh, ts)));
	assert_true(NT_STATUS_IS_OK(vfs_fstat(fh, &st)));
	assert_int_equal(st.stx_mtime.tv_sec, 1200000000);
	assert_int_equal(st.stx_mtime.tv_nsec, 7);
	assert_int_equal(st.stx_atime.tv_sec, 1000000000);
	status = vfs_fsetxattr(pfh, "user.ringsmb.test", "0x20", 4, 0);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED)) {
		/* no user xattrs on this file system */
		skip();
	}
	assert_true(NT_STATUS_IS_OK(status));
	assert_true(NT_STATUS_IS_OK(vfs_fgetxattr(fh, "user.ringsmb.test",
						  buf, sizeof(buf), &got)));
	assert_int_equal(got, 4);
	assert_memory_equal(buf, "0x20", 4);
	assert_false(NT_STATUS_IS_OK(vfs_fgetxattr(pfh, "user.none", buf,
						   sizeof(buf), &got)));
	TALLOC_FREE(pfh);
	TALLOC_FREE(fh);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

/* ---- SET_INFO buffers (smb2_setinfo_pull) ---- */

static NTSTATUS setinfo_guarded(uint8_t cls, const uint8_t *buf, size_t len,
				struct smb2_setinfo *out)
{
	uint8_t *g = guard_dup(buf, len);
	NTSTATUS status = smb2_setinfo_pull(cls, g, len, out);

	/* out may point into g: callers copy what they check first */
	guard_free(g);
	return status;
}

/* Every prefix shorter than min fails with INFO_LENGTH_MISMATCH. */
static void setinfo_truncations(uint8_t cls, const uint8_t *buf, size_t min)
{
	struct smb2_setinfo in;
	size_t n;

	for (n = 0; n < min; n++) {
		assert_true(NT_STATUS_EQUAL(setinfo_guarded(cls, buf, n, &in),
					    NT_STATUS_INFO_LENGTH_MISMATCH));
	}
}

static void test_setinfo__basic(void **state)
{
	static const uint8_t b[40] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,
		0, 0, 0, 0, 0, 0, 0, 0,
		0x03, 0, 0, 0, 0xAA, 0xAA, 0xAA, 0xAA,
	};
	struct smb2_setinfo in;

	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_BASIC_INFORMATION, b, sizeof(b), &in)));
	assert_int_equal(in.info_class, SMB2_FILE_BASIC_INFORMATION);
	assert_int_equal(in.basic.create_time, 0x0102030405060708ULL);
	assert_int_equal(in.basic.access_time, SMB2_SETINFO_TIME_STOP);
	assert_int_equal(in.basic.write_time, 0x2122232425262728ULL);
	assert_int_equal(in.basic.change_time, 0);
	assert_int_equal(in.basic.attributes, 3);
	/* Windows' structure is 40 bytes: 36 (Samba's minimum) is short */
	setinfo_truncations(SMB2_FILE_BASIC_INFORMATION, b, sizeof(b));
}

static void test_setinfo__fixed_classes(void **state)
{
	static const uint8_t v[9] = { 1, 2, 3, 4, 5, 6, 7, 0x80, 0xEE };
	static const uint8_t classes64[] = {
		SMB2_FILE_END_OF_FILE_INFORMATION,
		SMB2_FILE_ALLOCATION_INFORMATION,
		SMB2_FILE_POSITION_INFORMATION,
	};
	struct smb2_setinfo in;
	size_t i;

	for (i = 0; i < sizeof(classes64); i++) {
		assert_true(NT_STATUS_IS_OK(setinfo_guarded(
			classes64[i], v, 8, &in)));
		assert_int_equal(in.value, 0x8007060504030201ULL);
		/* trailing bytes are ignored */
		assert_true(NT_STATUS_IS_OK(setinfo_guarded(
			classes64[i], v, 9, &in)));
		assert_int_equal(in.value, 0x8007060504030201ULL);
		setinfo_truncations(classes64[i], v, 8);
	}
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_MODE_INFORMATION, v, 4, &in)));
	assert_int_equal(in.flags, 0x04030201);
	setinfo_truncations(SMB2_FILE_MODE_INFORMATION, v, 4);
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_DISPOSITION_INFORMATION_EX, v, 4, &in)));
	assert_int_equal(in.flags, 0x04030201);
	setinfo_truncations(SMB2_FILE_DISPOSITION_INFORMATION_EX, v, 4);
}

static void test_setinfo__disposition(void **state)
{
	static const uint8_t on[1] = { 0x02 };
	static const uint8_t off[1] = { 0x00 };
	struct smb2_setinfo in;

	/* a BOOLEAN: any non-zero byte is TRUE */
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_DISPOSITION_INFORMATION, on, 1, &in)));
	assert_int_equal(in.flags, SMB2_FILE_DISPOSITION_DELETE);
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_DISPOSITION_INFORMATION, off, 1, &in)));
	assert_int_equal(in.flags, 0);
	setinfo_truncations(SMB2_FILE_DISPOSITION_INFORMATION, on, 1);
}

/* ReplaceIfExists 1, RootDirectory 0, "a\b" */
static const uint8_t rename_ab[26] = {
	1, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	6, 0, 0, 0,
	'a', 0, '\\', 0, 'b', 0,
};

static void test_setinfo__rename(void **state)
{
	static const uint8_t classes[] = {
		SMB2_FILE_RENAME_INFORMATION, SMB2_FILE_LINK_INFORMATION,
	};
	struct smb2_setinfo in;
	size_t i, n;

	for (i = 0; i < sizeof(classes); i++) {
		uint8_t *g = guard_dup(rename_ab, sizeof(rename_ab));

		assert_true(NT_STATUS_IS_OK(smb2_setinfo_pull(
			classes[i], g, sizeof(rename_ab), &in)));
		assert_true(in.rename.replace_if_exists);
		assert_int_equal(in.rename.root_directory, 0);
		assert_int_equal(in.rename.name.len, 6);
		assert_ptr_equal(in.rename.name.data, g + 20);
		guard_free(g);
		setinfo_truncations(classes[i], rename_ab, 20);
		/* 20..25 bytes: the fixed part is there, the name is cut */
		for (n = 20; n < sizeof(rename_ab); n++) {
			assert_true(NT_STATUS_EQUAL(
				setinfo_guarded(classes[i], rename_ab, n, &in),
				NT_STATUS_INVALID_PARAMETER));
		}
	}
}

static void test_setinfo__rename_lying_lengths(void **state)
{
	static const uint32_t bad[] = { 0, 1, 5, 7, 8, 0x7FFFFFFF,
					0xFFFFFFFE, 0xFFFFFFFF };
	uint8_t b[sizeof(rename_ab)];
	struct smb2_setinfo in;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(b, rename_ab, sizeof(b));
		push_le32(b + 16, bad[i]);
		assert_true(NT_STATUS_EQUAL(
			setinfo_guarded(SMB2_FILE_RENAME_INFORMATION, b,
					sizeof(b), &in),
			NT_STATUS_INVALID_PARAMETER));
	}
	/* a shorter name than the buffer holds is fine (padding) */
	memcpy(b, rename_ab, sizeof(b));
	push_le32(b + 16, 2);
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_RENAME_INFORMATION, b, sizeof(b), &in)));
	/* RootDirectory is the caller's to refuse: parsed as sent */
	memcpy(b, rename_ab, sizeof(b));
	b[8] = 1;
	assert_true(NT_STATUS_IS_OK(setinfo_guarded(
		SMB2_FILE_RENAME_INFORMATION, b, sizeof(b), &in)));
	assert_int_equal(in.rename.root_directory, 1);
}

static void test_setinfo__unknown_classes(void **state)
{
	static const uint8_t b[64];
	static const uint8_t classes[] = {
		0, SMB2_FILE_STANDARD_INFORMATION, SMB2_FILE_ALL_INFORMATION,
		SMB2_FILE_FULL_EA_INFORMATION, SMB2_FILE_SHORT_NAME_INFORMATION,
		SMB2_FILE_VALID_DATA_LENGTH_INFORMATION, 0xEE, 0xFF,
	};
	struct smb2_setinfo in;
	size_t i;

	for (i = 0; i < sizeof(classes); i++) {
		assert_true(NT_STATUS_EQUAL(
			smb2_setinfo_pull(classes[i], b, sizeof(b), &in),
			NT_STATUS_INVALID_INFO_CLASS));
		assert_true(NT_STATUS_EQUAL(
			smb2_setinfo_pull(classes[i], NULL, 0, &in),
			NT_STATUS_INVALID_INFO_CLASS));
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_vfs__openat_confined),
		T(test_vfs__statat_hides_escaping_links),
		T(test_vfs__unknown_module),
		T(test_vfs__namespace_ops),
		T(test_vfs__namespace_confined),
		T(test_vfs__metadata_ops),
		T(test_vfs__pread_default_and_io_uring),
		T(test_vfs__pread_freed_in_flight),
		T(test_vfs__close_during_read),
		T(test_vfs__noop_reads_zeros),
		T(test_vfs__pwrite_fsync_modules),
		T(test_vfs__pread_range_checked),
		T(test_vfs__readdir),
		T(test_vfs__fifo_does_not_block),
		T(test_vfs__splice_read_full_pipe),
		T(test_fileinfo__basic_exact),
		T(test_fileinfo__standard_and_small),
		T(test_fileinfo__all_and_overflow),
		T(test_fileinfo__stream),
		T(test_fileinfo__fs_classes),
		T(test_dirlist__alignment),
		T(test_dirlist__exact_fields_and_truncation),
		T(test_match__wildcards),
		T(test_match__pathological_is_bounded),
		T(test_setinfo__basic),
		T(test_setinfo__fixed_classes),
		T(test_setinfo__disposition),
		T(test_setinfo__rename),
		T(test_setinfo__rename_lying_lengths),
		T(test_setinfo__unknown_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
