/*
 * The file layer's leases (source3/smbd/files/lease.c) without the
 * wire: grants, upgrades, breaks and what the lease_break hook is told,
 * acknowledgments and their errors (fixture: smbd_files_fixture.h).
 */
#include "tests/unit/smbd_files_fixture.h"

#define LR SMBD_LEASE_R
#define LH SMBD_LEASE_H
#define LW SMBD_LEASE_W
#define LEASE SMB2_OPLOCK_LEVEL_LEASE
#define ACK SMB2_NOTIFY_BREAK_LEASE_FLAG_ACK_REQUIRED

static struct smbd_lease_req lreq(uint8_t k, uint32_t state)
{
	struct smbd_lease_req r = { .state = state, .version = 2,
				    .epoch = 10, .dir_ok = true };

	r.client_guid[0] = 0xC1;
	r.key[0] = k;
	return r;
}

static struct oreq lopen(const struct smbd_lease_req *l, uint32_t disp,
			 bool may_wait)
{
	return (struct oreq){ R | W, SALL, disp, 0, LEASE, may_wait, l };
}

static void assert_lease_break(size_t i, uint8_t k, uint32_t from,
			       uint32_t to, uint32_t flags, uint16_t epoch)
{
	const struct smb2_lease_break *lb = &rec.lease_breaks[i].lb;

	assert_true(i < rec.num_lease_breaks);
	assert_int_equal(lb->lease_key[0], k);
	assert_int_equal(lb->current_state, from);
	assert_int_equal(lb->new_state, to);
	assert_int_equal(lb->flags, flags);
	assert_int_equal(lb->new_epoch, epoch);
}

/* W alone, H without R: not grantable (MS-SMB2 3.3.5.9.8) */
static void test_lease__legal(void **state)
{
	assert_int_equal(smbd_lease_legal(0), 0);
	assert_int_equal(smbd_lease_legal(LH), 0);
	assert_int_equal(smbd_lease_legal(LW), 0);
	assert_int_equal(smbd_lease_legal(LH | LW), 0);
	assert_int_equal(smbd_lease_legal(LR), LR);
	assert_int_equal(smbd_lease_legal(LR | LH), LR | LH);
	assert_int_equal(smbd_lease_legal(LR | LW), LR | LW);
	assert_int_equal(smbd_lease_legal(0xFF), LR | LH | LW);
}

/* A second key breaks W and waits; the ack lets it in with RH. */
static void test_lease__break_and_ack(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_lease_req l1 = lreq(1, LR | LH | LW);
	struct smbd_lease_req l2 = lreq(2, LR | LH | LW);
	struct smbd_open *a = must_open(f->tcon, "f", lopen(&l1, 0, false));
	struct smbd_open *b = NULL, *a2 = NULL;
	uint32_t st = 0;

	assert_non_null(a->lease);
	assert_int_equal(a->lease->state, LR | LH | LW);
	assert_int_equal(a->lease->epoch, 11);
	assert_status(open_on(f->tcon, "f", lopen(&l2, 0, true), &b),
		      PENDING);
	assert_int_equal(rec.num_lease_breaks, 1);
	assert_lease_break(0, 1, LR | LH | LW, LR | LH, ACK, 12);
	assert_true(a->lease->breaking);
	/* the same key meanwhile: unchanged, no second break */
	a2 = must_open(f->tcon, "f", lopen(&l1, 0, false));
	assert_ptr_equal(a2->lease, a->lease);
	assert_int_equal(a2->lease->state, LR | LH | LW);
	assert_int_equal(rec.num_lease_breaks, 1);
	/* more than asked, another key, another client */
	assert_status(smbd_lease_ack(f->server, l1.client_guid, l1.key,
				     LR | LH | LW, &st), REQUEST_NOT_ACCEPTED);
	assert_status(smbd_lease_ack(f->server, l1.client_guid, l2.key,
				     LR | LH, &st), OBJECT_NAME_NOT_FOUND);
	assert_status(smbd_lease_ack(f->server, l1.key, l1.key, LR | LH,
				     &st), OBJECT_NAME_NOT_FOUND);
	assert_status(smbd_lease_ack(f->server, l1.client_guid, l1.key,
				     LR | LH, &st), OK);
	assert_int_equal(st, LR | LH);
	assert_false(a->lease->breaking);
	assert_status(smbd_lease_ack(f->server, l1.client_guid, l1.key,
				     LR, &st), UNSUCCESSFUL);
	b = must_open(f->tcon, "f", lopen(&l2, 0, true));
	assert_int_equal(b->lease->state, LR | LH);
	assert_int_equal(a->lease->state, LR | LH);
	talloc_free(a2);
	talloc_free(b);
	talloc_free(a);
	assert_null(f->server->leases);         /* the last open ends it */
	fx_free(f);
}

/*
 * A truncating open while a break is in flight sends nothing; the ack
 * is followed by a break in steps, RH -> R (ack) -> none (no ack).
 */
static void test_lease__breaks_in_steps(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_lease_req l1 = lreq(1, LR | LH | LW);
	struct smbd_open *a = must_open(f->tcon, "f", lopen(&l1, 0, false));
	struct smbd_open *b = NULL;
	struct oreq plain = { R, SALL, 0, 0, LNONE, true };
	struct oreq trunc = { W, SALL, SMB2_FILE_OVERWRITE, 0, LNONE, true };
	uint32_t st = 0;

	assert_status(open_on(f->tcon, "f", plain, &b), PENDING);
	assert_status(open_on(f->tcon, "f", trunc, &b), PENDING);
	assert_int_equal(rec.num_lease_breaks, 1);
	assert_lease_break(0, 1, LR | LH | LW, LR | LH, ACK, 12);
	assert_status(smbd_lease_ack(f->server, l1.client_guid, l1.key,
				     LR | LH, &st), OK);
	assert_int_equal(rec.num_lease_breaks, 2);
	assert_lease_break(1, 1, LR | LH, LR, ACK, 12);
	assert_status(smbd_lease_ack(f->server, l1.client_guid, l1.key,
				     LR, &st), OK);
	assert_int_equal(rec.num_lease_breaks, 3);
	assert_lease_break(2, 1, LR, 0, 0, 12);
	assert_int_equal(a->lease->state, 0);
	assert_false(a->lease->breaking);
	trunc.retry = true;
	b = must_open(f->tcon, "f", trunc);
	talloc_free(b);
	talloc_free(a);
	fx_free(f);
}

/* A write breaks the other keys' R to none, not the writer's own. */
static void test_lease__write_contends_others(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_lease_req l1 = lreq(1, LR);
	struct smbd_lease_req l2 = lreq(2, LR | LW);
	struct smbd_open *a = must_open(f->tcon, "f", lopen(&l1, 0, false));
	struct smbd_open *b = must_open(f->tcon, "f", lopen(&l2, 0, false));

	assert_int_equal(b->lease->state, LR);  /* one writer: not W */
	smbd_oplock_contend_level2(b);
	assert_int_equal(rec.num_lease_breaks, 1);
	assert_lease_break(0, 1, LR, 0, 0, 12);
	assert_int_equal(a->lease->state, 0);
	assert_int_equal(b->lease->state, LR);
	talloc_free(b);
	talloc_free(a);
	fx_free(f);
}

/* One key, one file; an oplock next to an H lease gets nothing. */
static void test_lease__key_and_oplock(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_lease_req l1 = lreq(1, LR | LH);
	struct smbd_open *a = must_open(f->tcon, "f", lopen(&l1, 0, false));
	struct smbd_open *b = NULL;

	assert_status(smbd_lease_check_name(f->server, &l1,
					    f->tcon->vfs->root_path, "F"),
		      OK);
	assert_status(smbd_lease_check_name(f->server, &l1,
					    f->tcon->vfs->root_path, "g"),
		      INVALID_PARAMETER);
	b = must_open(f->tcon, "f", (struct oreq){ R, SALL, 0, 0, LBATCH });
	assert_int_equal(b->oplock_level, LNONE);
	assert_int_equal(rec.num_lease_breaks, 0);
	talloc_free(b);
	talloc_free(a);
	fx_free(f);
}

/*
 * A directory gets R or RH; a change of an entry breaks it to none,
 * except through the same client's open naming it as its parent.
 */
static void test_lease__directory(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_lease_req ld = lreq(1, LR | LH | LW);
	struct smbd_lease_req lc = lreq(2, LR);
	struct oreq dir = lopen(&ld, SMB2_FILE_OPEN_IF, false);
	struct smbd_open *d = NULL, *c = NULL;
	uint32_t st = 0;

	assert_int_equal(smbd_lease_dir_legal(LR | LH | LW), LR | LH);
	assert_int_equal(smbd_lease_dir_legal(LR | LW), LR);
	assert_int_equal(smbd_lease_dir_legal(LH | LW), 0);
	dir.options = SMB2_FILE_DIRECTORY_FILE;
	dir.access = R;
	d = must_open(f->tcon, "d", dir);
	assert_true(d->lease->is_dir);
	assert_int_equal(d->lease->state, LR | LH);
	assert_int_equal(f->server->num_dir_leases, 1);
	/* an entry made without a parent key */
	c = must_open(f->tcon, "d/x", lopen(&lc, SMB2_FILE_CREATE, false));
	smbd_lease_contend_parent(c, c->name);
	assert_int_equal(rec.num_lease_breaks, 1);
	assert_lease_break(0, 1, LR | LH, 0, ACK, 12);
	assert_status(smbd_lease_ack(f->server, ld.client_guid, ld.key, 0,
				     &st), OK);
	talloc_free(c);
	/* asked again: back to RH; the same client's parent key: kept */
	talloc_free(must_open(f->tcon, "d", dir));
	assert_int_equal(d->lease->state, LR | LH);
	lc.key[0] = 3;
	lc.flags = SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET;
	lc.parent_key[0] = 1;
	c = must_open(f->tcon, "d/y", lopen(&lc, SMB2_FILE_CREATE, false));
	smbd_lease_contend_parent(c, c->name);
	assert_int_equal(rec.num_lease_breaks, 1);
	talloc_free(c);
	/* the same key from another client is not the directory's */
	lc.key[0] = 4;
	lc.client_guid[0] = 0xC2;
	c = must_open(f->tcon, "d/z", lopen(&lc, SMB2_FILE_CREATE, false));
	smbd_lease_contend_parent(c, c->name);
	assert_int_equal(rec.num_lease_breaks, 2);
	assert_lease_break(1, 1, LR | LH, 0, ACK, 14);
	talloc_free(c);
	talloc_free(d);
	assert_int_equal(f->server->num_dir_leases, 0);
	fx_free(f);
}

/* DELETE_ON_CLOSE takes H and W in one break and waits for the ack. */
static void test_lease__delete_on_close_waits(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct smbd_lease_req l1 = lreq(1, LR | LH | LW);
	struct smbd_open *a = must_open(f->tcon, "f", lopen(&l1, 0, false));
	struct smbd_open *b = NULL;
	struct oreq doc = { R | SMB2_DELETE, SALL, 0,
			    SMB2_FILE_DELETE_ON_CLOSE, LNONE, true };
	uint32_t st = 0;

	assert_status(open_on(f->tcon, "f", doc, &b), PENDING);
	assert_int_equal(rec.num_lease_breaks, 1);
	assert_lease_break(0, 1, LR | LH | LW, LR, ACK, 12);
	assert_status(smbd_lease_ack(f->server, l1.client_guid, l1.key, LR,
				     &st), OK);
	assert_int_equal(rec.num_lease_breaks, 1);
	doc.retry = true;
	b = must_open(f->tcon, "f", doc);
	assert_int_equal(rec.num_lease_breaks, 1);
	talloc_free(b);
	talloc_free(a);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lease__legal),
		T(test_lease__break_and_ack),
		T(test_lease__breaks_in_steps),
		T(test_lease__write_contends_others),
		T(test_lease__key_and_oplock),
		T(test_lease__directory),
		T(test_lease__delete_on_close_waits),
	};

	talloc_set_log_stderr();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
