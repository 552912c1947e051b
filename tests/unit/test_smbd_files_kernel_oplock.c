/*
 * Kernel oplocks (source3/smbd/files/kernel_oplock.c) on the file layer
 * alone: the lease behind an EXCLUSIVE/BATCH oplock, what refuses it, its
 * release when the break ends, a local open(2) that breaks the oplock
 * through the lease-break signal, and SMB opens that meet our own lease
 * without blocking (fixture: smbd_files_fixture.h).
 */
#include "tests/unit/smbd_files_fixture.h"
#include "source3/smbd/files/kernel_oplock.h"

static int lease_of(const struct smbd_open *open)
{
	return fcntl(open->fh->fd, F_GETLEASE);
}

static void woken(void *private_data)
{
	(*(unsigned *)private_data)++;
}

/* Runs the loop until a break was raised, for at most secs seconds. */
static void loop_for_break(struct fx *f, int secs)
{
	bool expired = false;
	struct tevent_timer *te = tevent_add_timer(
		f->ev, f, tevent_timeval_current_ofs(secs, 0),
		deadline_reached, &expired);

	assert_non_null(te);
	while (rec.num_breaks == 0 && !expired) {
		assert_int_equal(tevent_loop_once(f->ev), 0);
	}
	if (!expired) {
		talloc_free(te);
	}
}

/* EXCLUSIVE and BATCH come with a write lease; LEVEL_II is never granted */
static void test_koplock__grant(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_tcon *k = fx_tcon(f, f->session, "kernel");
	struct smbd_open *a = must_open(k, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *b = NULL;

	assert_true(smbd_kernel_oplocks(k->share));
	assert_false(smbd_kernel_oplocks(f->tcon->share));
	assert_int_equal(a->oplock_level, LBATCH);
	assert_int_equal(lease_of(a), F_WRLCK);
	talloc_free(a);
	b = must_open(k, "g", (struct oreq){ R, SALL, 0, 0, LII });
	assert_int_equal(b->oplock_level, LNONE);
	assert_int_equal(lease_of(b), F_UNLCK);
	talloc_free(b);
	/* a new file too */
	a = must_open(k, "new", (struct oreq){ R | W, SALL,
					       SMB2_FILE_CREATE, 0, LEXCL });
	assert_int_equal(a->oplock_level, LEXCL);
	assert_int_equal(lease_of(a), F_WRLCK);
	talloc_free(a);
	/* the same file on an ordinary share: no lease */
	a = must_open(f->tcon, "f", (struct oreq){ R, SALL, 0, 0, LBATCH });
	assert_int_equal(a->oplock_level, LBATCH);
	assert_int_equal(lease_of(a), F_UNLCK);
	talloc_free(a);
	fx_free(f);
}

/* Another descriptor of the file, anywhere: the kernel refuses, NONE */
static void test_koplock__refused_when_open_elsewhere(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_tcon *k = fx_tcon(f, f->session, "kernel");
	struct smbd_open *a = NULL;
	char path[160];
	int fd;

	fx_path(f, "f", path, sizeof(path));
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	a = must_open(k, "f", (struct oreq){ R, SALL, 0, 0, LEXCL });
	assert_int_equal(a->oplock_level, LNONE);
	assert_int_equal(lease_of(a), F_UNLCK);
	talloc_free(a);
	close(fd);
	fx_free(f);
}

/*
 * A second SMB open meets our own lease: no sleep in open(2), the
 * holder is broken to NONE and the open waits; the acknowledgment
 * releases the lease and the open goes ahead.
 */
static void test_koplock__smb_open_breaks_own_lease(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_tcon *k = fx_tcon(f, f->session, "kernel");
	struct smbd_open *a = must_open(k, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *b = NULL;
	struct oreq breq = { R, SALL, 0, 0, LBATCH, true };
	uint8_t level = 0xAA;

	assert_status(open_on(k, "f", breq, &b), PENDING);
	assert_int_equal(breaks_of(a, LNONE), 1);
	/* being broken: F_GETLEASE tells what it is to become */
	assert_int_not_equal(lease_of(a), F_WRLCK);
	/* a stat open is O_PATH: it neither blocks nor breaks */
	b = must_open(k, "f", (struct oreq){ RA, SALL, 0, 0, LNONE });
	talloc_free(b);
	assert_status(smbd_oplock_ack(a, LNONE, &level), OK);
	assert_int_equal(a->oplock_level, LNONE);
	b = must_open(k, "f", breq);
	assert_int_equal(b->oplock_level, LNONE);  /* never LEVEL_II */
	assert_int_equal(rec.num_breaks, 1);
	/* inside a compound it cannot wait */
	talloc_free(b);
	talloc_free(a);
	a = must_open(k, "f", (struct oreq){ R, SALL, 0, 0, LEXCL });
	assert_int_equal(lease_of(a), F_WRLCK);
	rec.num_breaks = 0;             /* a may reuse the old a's address */
	assert_status(open_on(k, "f", (struct oreq){ R, SALL, 0, 0, LNONE },
			      &b), SHARING_VIOLATION);
	assert_int_equal(breaks_of(a, LNONE), 1);
	talloc_free(a);
	fx_free(f);
}

struct local_open {
	char path[160];
	int fd;
	unsigned done;
};

/*
 * A local process opens the file: the kernel's signal breaks the oplock
 * to NONE; after the acknowledgment open(2) succeeds at once.
 */
static void test_koplock__local_open_breaks(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_tcon *k = fx_tcon(f, f->session, "kernel");
	struct smbd_open *a = must_open(k, "f",
					(struct oreq){ R, SALL, 0, 0, LEXCL });
	uint8_t level = 0xAA;
	char path[160];
	int fd;

	fx_path(f, "f", path, sizeof(path));
	/* non-blocking, as a local opener that must not hang this test */
	fd = open(path, O_RDONLY | O_NONBLOCK);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, EWOULDBLOCK);
	loop_for_break(f, 5);
	assert_int_equal(breaks_of(a, LNONE), 1);
	assert_non_null(a->oplock_break);
	assert_status(smbd_oplock_ack(a, LNONE, &level), OK);
	assert_int_equal(lease_of(a), F_UNLCK);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	close(fd);
	talloc_free(a);
	fx_free(f);
}

/* A break that is not acknowledged: its timeout releases the lease */
static void test_koplock__timeout_releases(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_tcon *k = fx_tcon(f, f->session, "kernel");
	struct smbd_open *a = must_open(k, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *b = NULL;
	struct statx st = open_statx(a);
	struct oreq breq = { R | W, SALL, 0, 0, LNONE, true };
	unsigned n = 0;
	struct smbd_oplock_waiter *w = NULL;

	assert_status(open_on(k, "f", breq, &b), PENDING);
	w = smbd_oplock_wait(*state, f->server, &st, woken, &n);
	loop_until(f, &n, 5);               /* oplock break timeout = 1 */
	assert_int_equal(n, 1);
	assert_int_equal(a->oplock_level, LNONE);
	b = must_open(k, "f", breq);
	talloc_free(w);
	talloc_free(b);
	talloc_free(a);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_koplock__grant),
		T(test_koplock__refused_when_open_elsewhere),
		T(test_koplock__smb_open_breaks_own_lease),
		T(test_koplock__local_open_breaks),
		T(test_koplock__timeout_releases),
	};

	talloc_set_log_stderr();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
