/*
 * The file layer without the wire: oplocks through CREATE, and what the
 * oplock_break hook is told (fixture: smbd_files_fixture.h).
 */
#include "tests/unit/smbd_files_fixture.h"

/* ---- oplocks through CREATE, and the oplock_break hook ---- */

/* A BATCH holder is broken to II; the new open waits for the ack. */
static void test_oplock__batch_broken_to_level2(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *b = NULL;
	struct oreq breq = { R, SALL, 0, 0, LBATCH, true };
	uint8_t level = 0xAA;

	assert_int_equal(a->oplock_level, LBATCH);
	assert_int_equal(rec.num_breaks, 0);
	assert_status(open_on(f->tcon, "f", breq, &b), PENDING);
	assert_null(b);
	assert_int_equal(rec.num_breaks, 1);
	assert_int_equal(breaks_of(a, LII), 1);
	assert_non_null(a->oplock_break);
	/* asked again before the ack: no second break goes out */
	assert_status(open_on(f->tcon, "f", breq, &b), PENDING);
	assert_int_equal(rec.num_breaks, 1);
	assert_status(smbd_oplock_ack(a, LII, &level), OK);
	assert_int_equal(level, LII);
	assert_int_equal(a->oplock_level, LII);
	assert_null(a->oplock_break);
	b = must_open(f->tcon, "f", breq);
	assert_int_equal(b->oplock_level, LII);
	assert_int_equal(rec.num_breaks, 1);
	/* no break in progress any more */
	assert_status(smbd_oplock_ack(a, LNONE, &level),
		      INVALID_OPLOCK_PROTOCOL);
	talloc_free(a);
	talloc_free(b);
	fx_free(f);
}

/* Inside a compound (may not wait): the break goes out, the open goes on */
static void test_oplock__no_wait_in_compound(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *b = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });

	assert_int_equal(rec.num_breaks, 1);
	assert_int_equal(breaks_of(a, LII), 1);
	assert_int_equal(b->oplock_level, LNONE);
	assert_int_equal(a->oplock_level, LBATCH);     /* until it acks */
	talloc_free(b);
	talloc_free(a);
	fx_free(f);
}

/* A truncating open breaks a BATCH holder to NONE; II is not an answer */
static void test_oplock__truncate_breaks_to_none(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R | W, SALL, 0, 0,
						       LBATCH });
	struct smbd_open *b = NULL;
	struct oreq breq = { W, SALL, SMB2_FILE_OVERWRITE, 0, LNONE, true };
	uint8_t level = 0xAA;

	assert_status(open_on(f->tcon, "f", breq, &b), PENDING);
	assert_int_equal(rec.num_breaks, 1);
	assert_int_equal(breaks_of(a, LNONE), 1);
	assert_int_equal(file_size(f, "f"), 5);        /* not yet */
	assert_status(smbd_oplock_ack(a, LII, &level),
		      INVALID_OPLOCK_PROTOCOL);
	assert_int_equal(level, LNONE);
	assert_int_equal(a->oplock_level, LNONE);
	b = must_open(f->tcon, "f", breq);
	assert_int_equal(file_size(f, "f"), 0);
	assert_int_equal(rec.num_breaks, 1);
	talloc_free(a);
	talloc_free(b);
	fx_free(f);
}

/* LEVEL_II holders are broken to NONE by a truncation, nobody waits */
static void test_oplock__truncate_breaks_level2(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LII });
	struct smbd_open *b = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *c = NULL;

	assert_int_equal(a->oplock_level, LII);
	assert_int_equal(b->oplock_level, LII);        /* a has one */
	assert_int_equal(rec.num_breaks, 0);
	c = must_open(f->tcon, "f", (struct oreq){ W, SALL,
						   SMB2_FILE_OVERWRITE_IF, 0,
						   LNONE, true });
	assert_int_equal(rec.num_breaks, 2);
	assert_int_equal(breaks_of(a, LNONE), 1);
	assert_int_equal(breaks_of(b, LNONE), 1);
	assert_int_equal(a->oplock_level, LNONE);
	assert_int_equal(b->oplock_level, LNONE);
	assert_null(a->oplock_break);  /* no acknowledgment expected */
	talloc_free(a);
	talloc_free(b);
	talloc_free(c);
	fx_free(f);
}

/* A WRITE breaks every LEVEL_II oplock, the writer's own too */
static void test_oplock__write_contends_level2(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R | W, SALL, 0, 0,
						       LII });
	struct smbd_open *b = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LII });
	struct smbd_open *g = must_open(f->tcon, "g",
					(struct oreq){ R, SALL, 0, 0, LII });

	smbd_oplock_contend_level2(a);
	assert_int_equal(rec.num_breaks, 2);
	assert_int_equal(breaks_of(a, LNONE), 1);
	assert_int_equal(breaks_of(b, LNONE), 1);
	assert_int_equal(g->oplock_level, LII);        /* another file */
	smbd_oplock_contend_level2(b);
	assert_int_equal(rec.num_breaks, 2);           /* nothing left */
	talloc_free(a);
	talloc_free(b);
	talloc_free(g);
	fx_free(f);
}

/* An open for attributes breaks nothing and gets nothing */
static void test_oplock__stat_open(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *b = must_open(f->tcon, "f",
					(struct oreq){ RA, 0, 0, 0, LBATCH,
						       true });

	assert_int_equal(rec.num_breaks, 0);
	assert_int_equal(b->oplock_level, LNONE);
	assert_int_equal(a->oplock_level, LBATCH);
	assert_null(a->oplock_break);
	talloc_free(a);
	talloc_free(b);
	fx_free(f);
}

/*
 * A sharing violation against a BATCH holder waits for the break (the
 * holder may close); against an EXCLUSIVE one it stands.
 */
static void test_oplock__sharing_violation(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R | W, 0, 0, 0,
						       LBATCH });
	struct smbd_open *a2 = must_open(f->tcon, "g",
					 (struct oreq){ R | W, 0, 0, 0,
							LEXCL });
	struct smbd_open *b = NULL;
	struct oreq breq = { R, SALL, 0, 0, LNONE, true };

	assert_int_equal(a2->oplock_level, LEXCL);
	assert_status(open_on(f->tcon, "f", breq, &b), PENDING);
	assert_int_equal(breaks_of(a, LII), 1);
	assert_status(open_on(f->tcon, "g", breq, &b), SHARING_VIOLATION);
	assert_int_equal(rec.num_breaks, 1);
	assert_int_equal(a2->oplock_level, LEXCL);
	/* the BATCH holder closes: the retry gets in */
	talloc_free(a);
	b = must_open(f->tcon, "f", breq);
	talloc_free(b);
	talloc_free(a2);
	fx_free(f);
}

/* "oplocks = no", "level2 oplocks = no", and a new file */
static void test_oplock__share_settings(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_tcon *noop = fx_tcon(f, f->session, "nooplocks");
	struct smbd_tcon *nol2 = fx_tcon(f, f->session, "nolevel2");
	struct smbd_open *a = NULL, *b = NULL, *n = NULL;
	struct oreq batch = { R, SALL, 0, 0, LBATCH, true };
	uint8_t level = 0xAA;

	a = must_open(noop, "f", batch);
	assert_int_equal(a->oplock_level, LNONE);
	talloc_free(a);

	a = must_open(nol2, "g", batch);
	assert_int_equal(a->oplock_level, LBATCH);
	assert_status(open_on(nol2, "g", batch, &b), PENDING);
	assert_int_equal(breaks_of(a, LNONE), 1);      /* no II to keep */
	assert_status(smbd_oplock_ack(a, LNONE, &level), OK);
	b = must_open(nol2, "g", batch);
	assert_int_equal(b->oplock_level, LNONE);
	talloc_free(a);
	talloc_free(b);

	n = must_open(f->tcon, "new", (struct oreq){ R | W, SALL,
						     SMB2_FILE_OPEN_IF, 0,
						     LEXCL });
	assert_int_equal(n->oplock_level, LEXCL);
	assert_int_equal(file_size(f, "new"), 0);
	talloc_free(n);
	assert_int_equal(rec.num_breaks, 1);
	fx_free(f);
}

static void oplock_woken(void *private_data)
{
	(*(unsigned *)private_data)++;
}

/* No acknowledgment in 'oplock break timeout': the holder has none */
static void test_oplock__break_timeout(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *b = NULL;
	struct oreq breq = { R, SALL, 0, 0, LBATCH, true };
	struct statx st = open_statx(a);
	struct smbd_oplock_waiter *w = NULL;
	unsigned woken = 0;

	assert_status(open_on(f->tcon, "f", breq, &b), PENDING);
	w = smbd_oplock_wait(*state, f->server, &st, oplock_woken, &woken);
	assert_non_null(w);
	loop_until(f, &woken, 5);
	assert_int_equal(woken, 1);
	assert_int_equal(a->oplock_level, LNONE);
	assert_null(a->oplock_break);
	assert_int_equal(rec.num_breaks, 1);
	b = must_open(f->tcon, "f", breq);
	assert_int_equal(b->oplock_level, LII);
	talloc_free(w);
	talloc_free(a);
	talloc_free(b);
	fx_free(f);
}

/* A waiter is told when the holder closes; a withdrawn one is not. */
static void test_oplock__waiters(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *b = NULL;
	struct oreq breq = { R, SALL, 0, 0, LBATCH, true };
	struct statx st = open_statx(a);
	struct smbd_oplock_waiter *w1 = NULL, *w2 = NULL;
	unsigned woken1 = 0, woken2 = 0;

	assert_status(open_on(f->tcon, "f", breq, &b), PENDING);
	w1 = smbd_oplock_wait(*state, f->server, &st, oplock_woken, &woken1);
	w2 = smbd_oplock_wait(*state, f->server, &st, oplock_woken, &woken2);
	assert_non_null(w1);
	assert_non_null(w2);
	TALLOC_FREE(w2);
	talloc_free(a);
	assert_int_equal(woken1, 1);
	assert_int_equal(woken2, 0);
	/* nothing has the file open: the waiter looks again soon */
	w2 = smbd_oplock_wait(*state, f->server, &st, oplock_woken, &woken2);
	assert_non_null(w2);
	loop_until(f, &woken2, 5);
	assert_int_equal(woken2, 1);
	TALLOC_FREE(w2);
	b = must_open(f->tcon, "f", breq);
	assert_int_equal(b->oplock_level, LBATCH);     /* alone now */
	talloc_free(w1);
	talloc_free(b);
	fx_free(f);
}

/* Acknowledgments that do not fit the break */
static void test_oplock__bad_acks(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = must_open(f->tcon, "f",
					(struct oreq){ R, SALL, 0, 0, LBATCH });
	struct smbd_open *b = NULL;
	struct oreq breq = { R, SALL, 0, 0, LNONE, true };
	uint8_t level = 0xAA;

	assert_status(smbd_oplock_ack(a, LII, &level),
		      INVALID_OPLOCK_PROTOCOL);        /* no break sent */
	assert_int_equal(a->oplock_level, LBATCH);
	assert_status(open_on(f->tcon, "f", breq, &b), PENDING);
	assert_status(smbd_oplock_ack(a, LBATCH, &level),
		      INVALID_OPLOCK_PROTOCOL);
	assert_int_equal(level, LNONE);
	assert_int_equal(a->oplock_level, LNONE);
	assert_null(a->oplock_break);
	talloc_free(a);
	fx_free(f);
}

/* Without hooks (a NULL hook is not called) the state still moves */
static void test_oplock__no_hooks(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_open *a = NULL, *b = NULL;
	struct oreq breq = { R, SALL, 0, 0, LBATCH, true };

	f->server->hooks = (struct smbd_state_hooks){};
	a = must_open(f->tcon, "f", (struct oreq){ R | D, SALL, 0, 0,
						   LBATCH });
	assert_int_equal(a->oplock_level, LBATCH);
	assert_status(open_on(f->tcon, "f", breq, &b), PENDING);
	assert_non_null(a->oplock_break);
	assert_status(smbd_file_set_delete_pending(a, true), OK);
	assert_int_equal(rec.num_breaks, 0);
	assert_int_equal(rec.num_pending, 0);
	talloc_free(a);
	assert_int_equal(file_size(f, "f"), -1);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_oplock__batch_broken_to_level2),
		T(test_oplock__no_wait_in_compound),
		T(test_oplock__truncate_breaks_to_none),
		T(test_oplock__truncate_breaks_level2),
		T(test_oplock__write_contends_level2),
		T(test_oplock__stat_open),
		T(test_oplock__sharing_violation),
		T(test_oplock__share_settings),
		T(test_oplock__break_timeout),
		T(test_oplock__waiters),
		T(test_oplock__bad_acks),
		T(test_oplock__no_hooks),
	};

	talloc_set_log_stderr();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
