/*
 * The file layer without the wire: share modes, open ids and byte-range
 * locks of a file's opens (fixture: smbd_files_fixture.h).
 */
#include "tests/unit/smbd_files_fixture.h"

/* ---- share modes (MS-FSA 2.1.5.1.2) ---- */

/* Readers that share reading meet; a writer does not join them. */
static void test_share_mode__readers_and_a_writer(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f", (struct oreq){ R, SR });
	struct smbd_open *b = must_open(f->tcon, "f", (struct oreq){ R, SR });
	struct smbd_open *c = NULL;
	struct statx st = open_statx(a);
	struct smbd_file *file = smbd_file_find(f->server, &st);

	assert_non_null(file);
	assert_ptr_equal(a->file, file);
	assert_ptr_equal(b->file, file);
	assert_int_equal(file->num_opens, 2);
	assert_status(open_on(f->tcon, "f", (struct oreq){ W, SALL }, &c),
		      SHARING_VIOLATION);
	assert_null(c);
	/* a reader that also shares writing: the others do not write */
	c = must_open(f->tcon, "f", (struct oreq){ R, SR | SW });
	assert_int_equal(file->num_opens, 3);
	/* the other file is not affected */
	talloc_free(must_open(f->tcon, "g", (struct oreq){ W, 0 }));
	talloc_free(a);
	talloc_free(b);
	talloc_free(c);
	assert_null(smbd_file_find(f->server, &st));
	fx_free(f);
}

/*
 * One open held, another asked for: both directions of the check, and
 * opens that only look at attributes take no part.
 */
static void test_share_mode__matrix(void **state)
{
	static const struct {
		uint32_t a1, s1, a2, s2;
		bool conflict;
	} cases[] = {
		{ R, SR, R, SR, false },
		{ R, SR, R, 0, true },          /* new one refuses readers */
		{ R, SR, W, SALL, true },       /* held one refuses writers */
		{ R, SR | SW, W, SALL, false },
		{ W, SALL, R, SR, true },       /* new one refuses writers */
		{ SMB2_FILE_APPEND_DATA, SALL, R, SR, true },
		{ SMB2_FILE_EXECUTE, SALL, R, SW, true }, /* execute reads */
		{ SMB2_FILE_EXECUTE, SR, R, SR, false },
		{ D, SALL, R, SR | SW, true },  /* new one refuses delete */
		{ D, SALL, R, SALL, false },
		{ R, SR | SW, D, SALL, true },  /* held one refuses delete */
		{ RA, 0, W, 0, false },         /* attributes only */
		{ R, 0, RA | SMB2_FILE_WRITE_ATTRIBUTES, 0, false },
		{ R | W | D, SALL, R | W | D, SALL, false },
	};
	struct fx *f = fx_new(*state, "");
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct oreq first = { cases[i].a1, cases[i].s1 };
		struct smbd_open *held = must_open(f->tcon, "f", first);
		struct statx st = open_statx(held);
		struct smbd_open *o = NULL;
		NTSTATUS direct = smbd_file_check(f->server, &st, cases[i].a2,
						  cases[i].s2);
		NTSTATUS via_open = open_on(
			f->tcon, "f", (struct oreq){ cases[i].a2, cases[i].s2 },
			&o);
		NTSTATUS want = cases[i].conflict ?
			NT_STATUS_SHARING_VIOLATION : NT_STATUS_OK;

		if (!NT_STATUS_EQUAL(direct, want) ||
		    !NT_STATUS_EQUAL(via_open, want)) {
			fail_msg("case %zu: check %s, open %s, want %s", i,
				 nt_errstr(direct), nt_errstr(via_open),
				 nt_errstr(want));
		}
		talloc_free(o);
		talloc_free(held);
	}
	fx_free(f);
}

/* Two names of one inode are one file for share modes. */
static void test_share_mode__hard_link(void **state)
{
	struct fx *f = fx_new(*state, "");
	char p1[160], p2[160];
	struct smbd_open *a = NULL, *b = NULL;

	fx_path(f, "f", p1, sizeof(p1));
	fx_path(f, "hl", p2, sizeof(p2));
	assert_int_equal(link(p1, p2), 0);
	a = must_open(f->tcon, "f", (struct oreq){ R | W, 0 });
	assert_status(open_on(f->tcon, "hl", (struct oreq){ R, SALL }, &b),
		      SHARING_VIOLATION);
	talloc_free(a);
	b = must_open(f->tcon, "hl", (struct oreq){ R, SALL });
	assert_int_equal(b->file->num_opens, 1);
	talloc_free(b);
	fx_free(f);
}

/*
 * FileDispositionInformation: the file's other opens learn it (the
 * delete_pending hook, for each), a new open gets DELETE_PENDING, and
 * the last close removes the name.
 */
static void test_share_mode__delete_pending(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R | D, SALL });
	struct smbd_open *c = must_open(f->tcon, "f",
					(struct oreq){ R, SALL });
	struct smbd_open *b = NULL;
	struct statx st = open_statx(a);

	assert_status(smbd_file_set_delete_pending(a, true), OK);
	assert_true(a->file->delete_pending);
	assert_int_equal(rec.num_pending, 2);
	assert_int_equal(pending_of(a), 1);
	assert_int_equal(pending_of(c), 1);
	assert_status(smbd_file_check(f->server, &st, R, SALL),
		      DELETE_PENDING);
	assert_status(open_on(f->tcon, "f", (struct oreq){ R, SALL }, &b),
		      DELETE_PENDING);
	assert_null(b);
	talloc_free(c);
	assert_true(file_size(f, "f") >= 0);    /* an open remains */
	talloc_free(a);
	assert_int_equal(file_size(f, "f"), -1);
	assert_null(smbd_file_find(f->server, &st));
	assert_status(open_on(f->tcon, "f", (struct oreq){ R, SALL }, &b),
		      OBJECT_NAME_NOT_FOUND);
	assert_int_equal(rec.num_breaks, 0);
	fx_free(f);
}

/*
 * FILE_DELETE_ON_CLOSE marks the file delete-pending when its open
 * closes, not before; the opens left learn it then.
 */
static void test_share_mode__delete_on_close(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(
		f->tcon, "f", (struct oreq){ R | D, SALL, SMB2_FILE_OPEN,
					     SMB2_FILE_DELETE_ON_CLOSE });
	struct smbd_open *b = must_open(f->tcon, "f",
					(struct oreq){ R, SALL });
	struct smbd_open *c = NULL;

	assert_false(b->file->delete_pending);
	assert_int_equal(rec.num_pending, 0);
	talloc_free(a);
	assert_true(b->file->delete_pending);
	assert_int_equal(rec.num_pending, 1);
	assert_int_equal(pending_of(b), 1);
	assert_true(file_size(f, "f") >= 0);
	assert_status(open_on(f->tcon, "f", (struct oreq){ R, SALL }, &c),
		      DELETE_PENDING);
	talloc_free(b);
	assert_int_equal(file_size(f, "f"), -1);
	fx_free(f);
}

/* Who may not set it: no DELETE access, a non-empty directory, the root */
static void test_share_mode__delete_pending_refused(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = NULL, *d = NULL, *root = NULL, *b = NULL;

	make_dir(f, "d");
	write_file(f, "d/x", "x");
	a = must_open(f->tcon, "f", (struct oreq){ R, SALL });
	assert_status(smbd_file_set_delete_pending(a, true), ACCESS_DENIED);
	assert_false(a->file->delete_pending);
	d = must_open(f->tcon, "d", (struct oreq){ R | D, SALL, SMB2_FILE_OPEN,
						  SMB2_FILE_DIRECTORY_FILE });
	assert_true(d->is_dir);
	assert_status(smbd_file_set_delete_pending(d, true),
		      DIRECTORY_NOT_EMPTY);
	root = must_open(f->tcon, "", (struct oreq){ R | D, SALL });
	assert_status(smbd_file_set_delete_pending(root, true),
		      CANNOT_DELETE);
	assert_int_equal(rec.num_pending, 0);
	talloc_free(a);

	/* set, then cleared again: nothing is deleted */
	a = must_open(f->tcon, "f", (struct oreq){ R | D, SALL });
	assert_status(smbd_file_set_delete_pending(a, true), OK);
	assert_status(smbd_file_set_delete_pending(a, false), OK);
	b = must_open(f->tcon, "f", (struct oreq){ R, SALL });
	talloc_free(b);
	talloc_free(a);
	assert_int_equal(file_size(f, "f"), 5);
	talloc_free(d);
	talloc_free(root);
	fx_free(f);
}

/*
 * "delete veto files": vetoed names do not keep a directory from being
 * deleted, and go with it; without it they do keep it.
 */
static void test_share_mode__delete_veto_files(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_tcon *vd = fx_tcon(f, f->session, "vetodel");
	struct oreq dir = { R | D, SALL, SMB2_FILE_OPEN,
			    SMB2_FILE_DIRECTORY_FILE };
	struct smbd_open *d = NULL;

	make_dir(f, "d2");
	write_file(f, "d2/junk.tmp", "x");
	d = must_open(f->tcon, "d2", dir);
	assert_status(smbd_file_set_delete_pending(d, true),
		      DIRECTORY_NOT_EMPTY);
	talloc_free(d);
	d = must_open(vd, "d2", dir);
	assert_status(smbd_file_set_delete_pending(d, true), OK);
	talloc_free(d);
	assert_int_equal(file_size(f, "d2/junk.tmp"), -1);
	assert_int_equal(file_size(f, "d2"), -1);
	fx_free(f);
}

/* Ids are never 0, never reused; a closed one is not found. */
static void test_open_files__ids(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f", (struct oreq){ R, SALL });
	struct smbd_open *b = must_open(f->tcon, "g", (struct oreq){ R, SALL });
	uint64_t aid = a->volatile_id;

	assert_true(aid != 0);
	assert_true(b->volatile_id != aid);
	assert_int_equal(f->tcon->num_opens, 2);
	assert_ptr_equal(smbd_open_find(f->tcon, aid, aid), a);
	assert_null(smbd_open_find(f->tcon, aid + 1000, aid));
	talloc_free(a);
	assert_null(smbd_open_find(f->tcon, aid, aid));
	a = must_open(f->tcon, "f", (struct oreq){ R, SALL });
	assert_true(a->volatile_id != aid);
	assert_true(a->volatile_id != b->volatile_id);
	assert_int_equal(f->tcon->num_opens, 2);
	talloc_free(a);
	talloc_free(b);
	assert_int_equal(f->tcon->num_opens, 0);
	assert_int_equal(f->session->num_handles, 0);
	fx_free(f);
}

/* ---- byte-range locks of a file's opens (brlock.h) ---- */

/* The file's table, made on first use (share_mode.c). */
static struct brl_table *lock_table(struct smbd_open *open)
{
	struct brl_table *t = smbd_file_lock_table(open);

	assert_non_null(t);
	return t;
}

static NTSTATUS lock1(struct smbd_open *o, uint64_t off, uint64_t len,
		      bool excl)
{
	struct brl_range r = { off, len, excl };

	return brl_lock(lock_table(o), o, &r, 1, NULL);
}

static void test_brlock__opens_conflict(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R | W, SALL });
	struct smbd_open *b = must_open(f->tcon, "f",
					(struct oreq){ R | W, SALL });
	struct brl_table *t = lock_table(a);

	assert_ptr_equal(lock_table(b), t);             /* one per file */
	assert_status(lock1(a, 0, 10, true), OK);
	assert_status(lock1(b, 5, 10, false), LOCK_NOT_GRANTED);
	assert_status(lock1(b, 10, 10, true), OK);      /* adjacent */
	assert_status(lock1(a, 0, 10, false), OK);      /* shared on own */
	assert_int_equal(brl_num_locks(t), 3);
	/* I/O against the locks (MS-FSA 2.1.4.10) */
	assert_true(brl_io_conflict(t, b, 0, 1, false));
	assert_false(brl_io_conflict(t, a, 0, 10, false));
	assert_true(brl_io_conflict(t, a, 0, 10, true)); /* own shared */
	assert_false(brl_io_conflict(t, b, 20, 100, true));
	assert_false(brl_io_conflict(t, b, 5, 0, true)); /* no bytes */
	/* unlock: exactly the range, once */
	assert_status(brl_unlock(t, b, 10, 5), RANGE_NOT_LOCKED);
	assert_status(brl_unlock(t, b, 10, 10), OK);
	assert_status(brl_unlock(t, b, 10, 10), RANGE_NOT_LOCKED);
	assert_status(brl_unlock(t, b, 0, 10), RANGE_NOT_LOCKED);
	assert_int_equal(brl_num_locks(t), 2);
	talloc_free(b);
	talloc_free(a);
	fx_free(f);
}

/* Ranges that end at 2^64 are valid; past it they wrap. */
static void test_brlock__end_of_range(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R | W, SALL });
	struct smbd_open *b = must_open(f->tcon, "f",
					(struct oreq){ R | W, SALL });
	struct brl_table *t = lock_table(a);

	assert_status(lock1(a, UINT64_MAX - 9, 10, true), OK);
	assert_status(lock1(b, UINT64_MAX, 1, false), LOCK_NOT_GRANTED);
	assert_status(lock1(b, UINT64_MAX, 0, true), LOCK_NOT_GRANTED);
	assert_status(lock1(b, UINT64_MAX, 2, true), INVALID_LOCK_RANGE);
	assert_status(lock1(b, 2, UINT64_MAX, true), INVALID_LOCK_RANGE);
	assert_status(lock1(b, 0, UINT64_MAX - 9, true), OK);   /* up to a */
	assert_int_equal(brl_num_locks(t), 2);
	assert_true(brl_io_conflict(t, b, UINT64_MAX, 1, false));
	assert_false(brl_io_conflict(t, a, UINT64_MAX - 9, 10, true));
	assert_true(brl_io_conflict(t, a, 0, 1, false));
	assert_status(brl_unlock(t, a, UINT64_MAX - 9, 10), OK);
	assert_status(lock1(b, UINT64_MAX, 1, true), OK);
	assert_status(lock1(a, 1, UINT64_MAX, false), LOCK_NOT_GRANTED);
	talloc_free(a);
	talloc_free(b);
	fx_free(f);
}

struct wake_rec {
	unsigned calls;
	NTSTATUS status;
};

static void brl_woken(void *private_data, NTSTATUS status)
{
	struct wake_rec *w = private_data;

	w->calls++;
	w->status = status;
}

/*
 * Closing an open drops its locks and retries the waiters of others;
 * the waiters of the open that closes are answered RANGE_NOT_LOCKED.
 */
static void test_brlock__close_releases_and_wakes(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R | W, SALL });
	struct smbd_open *b = must_open(f->tcon, "f",
					(struct oreq){ R | W, SALL });
	struct smbd_open *c = must_open(f->tcon, "f",
					(struct oreq){ R | W, SALL });
	struct brl_table *t = lock_table(a);
	struct brl_range want = { 50, 10, true };
	struct wake_rec wb = {}, wc = {};
	struct brl_waiter *w1 = NULL, *w2 = NULL;

	assert_status(lock1(a, 0, 100, true), OK);
	w1 = brl_wait(*state, t, b, &want, 1, brl_woken, &wb);
	w2 = brl_wait(*state, t, c, &want, 1, brl_woken, &wc);
	assert_non_null(w1);
	assert_non_null(w2);
	assert_int_equal(brl_num_waiters(t), 2);
	talloc_free(c);                 /* its waiter gets an answer */
	assert_int_equal(wc.calls, 1);
	assert_status(wc.status, RANGE_NOT_LOCKED);
	assert_int_equal(wb.calls, 0);
	talloc_free(a);                 /* b's waiter is granted */
	assert_int_equal(wb.calls, 1);
	assert_status(wb.status, OK);
	assert_int_equal(brl_num_waiters(t), 0);
	assert_int_equal(brl_num_locks(t), 1);
	assert_true(brl_io_conflict(t, (const void *)f, 55, 1, false));
	talloc_free(w1);
	talloc_free(w2);
	talloc_free(b);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_share_mode__readers_and_a_writer),
		T(test_share_mode__matrix),
		T(test_share_mode__hard_link),
		T(test_share_mode__delete_pending),
		T(test_share_mode__delete_on_close),
		T(test_share_mode__delete_pending_refused),
		T(test_share_mode__delete_veto_files),
		T(test_open_files__ids),
		T(test_brlock__opens_conflict),
		T(test_brlock__end_of_range),
		T(test_brlock__close_releases_and_wakes),
	};

	talloc_set_log_stderr();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
