/*
 * The file layer (source3/smbd/files, libringsmb-smbd-files) driven
 * alone, without the wire (issue 12): a server, connection, session and
 * tree connect made here, a real VFS on a scratch directory, and the
 * layer's own entry points (smbd_create_open, smbd_open_new,
 * smbd_file_attach, ...) called as commands/create.c calls them.
 *
 * What the layer tells the layers above goes through server->hooks
 * (smbd.h); the hooks here record what they were told, so the tests
 * assert which oplock breaks were raised, for which open, to which
 * level.  Linked against the layer's library and those below it, never
 * the daemon: a call into a higher layer would not link.
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
#include "lib/param/param.h"
#include "lib/smb2/smb2.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/brlock.h"
#include "source3/smbd/files/handles.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/share_names.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/filename.h"
#include "source3/smbd/files/open_files.h"

#define assert_status(x, s) \
	assert_string_equal(nt_errstr(x), nt_errstr(NT_STATUS_##s))

#define R SMB2_FILE_READ_DATA
#define W SMB2_FILE_WRITE_DATA
#define D SMB2_DELETE
#define RA SMB2_FILE_READ_ATTRIBUTES
#define SR SMB2_FILE_SHARE_READ
#define SW SMB2_FILE_SHARE_WRITE
#define SD SMB2_FILE_SHARE_DELETE
#define SALL (SR | SW | SD)

#define LNONE SMB2_OPLOCK_LEVEL_NONE
#define LII SMB2_OPLOCK_LEVEL_II
#define LEXCL SMB2_OPLOCK_LEVEL_EXCLUSIVE
#define LBATCH SMB2_OPLOCK_LEVEL_BATCH

/* ---- what the hooks were told ---- */

#define MAX_RECORDS 32

struct break_rec {
	struct smbd_open *open;
	uint8_t level;
};

static struct {
	struct break_rec breaks[MAX_RECORDS];
	size_t num_breaks;
	struct smbd_open *pending[MAX_RECORDS];
	size_t num_pending;
} rec;

static void hook_oplock_break(struct smbd_open *open, uint8_t level)
{
	assert_true(rec.num_breaks < MAX_RECORDS);
	rec.breaks[rec.num_breaks++] = (struct break_rec){ open, level };
}

static void hook_delete_pending(struct smbd_open *open)
{
	assert_true(rec.num_pending < MAX_RECORDS);
	rec.pending[rec.num_pending++] = open;
}

static const struct smbd_state_hooks recording_hooks = {
	.oplock_break = hook_oplock_break,
	.delete_pending = hook_delete_pending,
};

/* ---- the fixture: server -> conn -> session -> tcon on a scratch dir ---- */

#define MAX_TCONS 8

struct fx {
	char dir[64];
	struct tevent_context *ev;
	struct loadparm *lp;
	struct smbd_server *server;
	struct smbd_conn *conn;
	struct smbd_session *session;   /* a trusted (user) session */
	struct smbd_tcon *tcon;         /* its tree connect of [sh] */
	struct smbd_tcon *tcons[MAX_TCONS];
	size_t num_tcons;
	struct smbd_conn *conns[MAX_TCONS];
	size_t num_conns;
};

static struct loadparm *load_conf(TALLOC_CTX *ctx, const char *dir,
				  const char *global)
{
	char *text = talloc_asprintf(
		ctx,
		"[global]\n"
		"  oplock break timeout = 1\n"
		"%s"
		"[sh]\n"
		"  path = %s\n"
		"  read only = no\n"
		"  veto files = /*.tmp/secret/\n"
		"  hide files = /h*/\n"
		"  hide dot files = no\n"
		"[vetodel]\n"
		"  path = %s\n"
		"  read only = no\n"
		"  veto files = /*.tmp/\n"
		"  delete veto files = yes\n"
		"[nooplocks]\n"
		"  path = %s\n"
		"  read only = no\n"
		"  oplocks = no\n"
		"[nolevel2]\n"
		"  path = %s\n"
		"  read only = no\n"
		"  level2 oplocks = no\n",
		global, dir, dir, dir, dir);
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;

	assert_non_null(text);
	assert_int_equal(lp_load_buffer(ctx, "test.conf", text, strlen(text),
					&lp, &diags), 0);
	talloc_free(diags);
	talloc_free(text);
	return lp;
}

static struct smbd_conn *fx_conn(struct fx *f, const char *addr)
{
	struct smbd_conn *conn = talloc_zero(f->server, struct smbd_conn);

	assert_non_null(conn);
	assert_true(f->num_conns < MAX_TCONS);
	f->conns[f->num_conns++] = conn;
	conn->server = f->server;
	conn->fd = -1;
	snprintf(conn->addr, sizeof(conn->addr), "%s", addr);
	snprintf(conn->peer, sizeof(conn->peer), "%s:445", addr);
	assert_int_equal(smbd_handles_conn_start(conn), 0);
	return conn;
}

/* A valid session; guest ones count against the untrusted quotas. */
static struct smbd_session *fx_session(struct smbd_conn *conn, bool guest)
{
	struct smbd_session *s = talloc_zero(conn, struct smbd_session);

	assert_non_null(s);
	s->conn = conn;
	s->id = ++conn->server->next_session_id;
	s->valid = true;
	s->guest = guest;
	smbd_handles_reclass(s, guest);
	return s;
}

static struct smbd_tcon *fx_tcon(struct fx *f, struct smbd_session *s,
				 const char *share)
{
	struct smbd_tcon *tcon = talloc_zero(s, struct smbd_tcon);

	assert_non_null(tcon);
	assert_true(f->num_tcons < MAX_TCONS);
	tcon->session = s;
	tcon->id = ++s->next_tree_id;
	tcon->share = lp_find_share(f->lp, share);
	assert_non_null(tcon->share);
	assert_status(vfs_connect(tcon, f->ev, tcon->share, false, NULL,
				  &tcon->vfs), OK);
	assert_status(smbd_share_names_attach(tcon->vfs, tcon->share), OK);
	f->tcons[f->num_tcons++] = tcon;
	return tcon;
}

static void fx_path(const struct fx *f, const char *name, char *buf,
		    size_t len)
{
	snprintf(buf, len, "%s/%s", f->dir, name);
}

static void write_file(const struct fx *f, const char *name,
		       const char *data)
{
	char path[160];
	int fd;

	fx_path(f, name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

static void make_dir(const struct fx *f, const char *name)
{
	char path[160];

	fx_path(f, name, path, sizeof(path));
	assert_int_equal(mkdir(path, 0755), 0);
}

/* -1: the name does not exist */
static off_t file_size(const struct fx *f, const char *name)
{
	char path[160];
	struct stat st;

	fx_path(f, name, path, sizeof(path));
	return lstat(path, &st) == 0 ? st.st_size : -1;
}

/* The test's fixture, freed in order by the teardown if the test failed */
static struct fx *current_fx;

static struct fx *fx_new(TALLOC_CTX *ctx, const char *global)
{
	struct fx *f = talloc_zero(ctx, struct fx);

	assert_non_null(f);
	assert_null(current_fx);
	current_fx = f;
	strcpy(f->dir, "/tmp/ringsmb-files-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->ev = tevent_context_init(f);
	assert_non_null(f->ev);
	f->server = talloc_zero(f, struct smbd_server);
	assert_non_null(f->server);
	f->lp = load_conf(f->server, f->dir, global);
	f->server->ev = f->ev;
	f->server->lp = f->lp;
	f->server->hooks = recording_hooks;
	f->server->max_handles_per_conn = SMBD_MAX_HANDLES_PER_CONN;
	smbd_handles_init(f->server);
	f->conn = fx_conn(f, "192.0.2.1");
	f->session = fx_session(f->conn, false);
	f->tcon = fx_tcon(f, f->session, "sh");
	write_file(f, "f", "hello");
	write_file(f, "g", "world");
	memset(&rec, 0, sizeof(rec));
	return f;
}

/*
 * Tree connects (with their opens) go first, then the connections, as
 * server.c frees them at exit: talloc frees a parent's children newest
 * first, and the server's file table and per-address counts are newer
 * than the connections that use them.
 */
static void fx_free(struct fx *f)
{
	char cmd[128];

	while (f->num_tcons > 0) {
		talloc_free(f->tcons[--f->num_tcons]);
	}
	while (f->num_conns > 0) {
		talloc_free(f->conns[--f->num_conns]);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	talloc_free(f);
	current_fx = NULL;
	assert_int_equal(system(cmd), 0);
}

static int fx_teardown(void **state)
{
	if (current_fx != NULL) {
		fx_free(current_fx);
	}
	return unit_teardown(state);
}

/* ---- opening, as commands/create.c does it ---- */

struct oreq {
	uint32_t access;
	uint32_t share;
	uint32_t disp;                  /* 0: FILE_OPEN */
	uint32_t options;
	uint8_t oplock;
	bool may_wait;
};

static NTSTATUS open_on(struct smbd_tcon *tcon, const char *path,
			struct oreq o, struct smbd_open **out)
{
	struct smbd_create_params p = {
		.path = path,
		.access = o.access,
		.share_access = o.share,
		.disposition = o.disp != 0 ? o.disp : SMB2_FILE_OPEN,
		.options = o.options,
		.oplock_request = o.oplock,
		.may_wait = o.may_wait,
	};
	struct smbd_create_result res = {};
	TALLOC_CTX *tmp = talloc_new(tcon);
	struct smbd_open *open = NULL;
	NTSTATUS status = smbd_handles_check(tcon->session);

	*out = NULL;
	assert_non_null(tmp);
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_create_open(tmp, tcon, &p, &res);
	}
	if (NT_STATUS_IS_OK(status)) {
		open = smbd_open_new(tcon);
		assert_non_null(open);
		open->fh = talloc_steal(open, res.fh);
		open->name = talloc_strdup(open, res.path != NULL ?
					   res.path : path);
		open->is_dir = S_ISDIR(res.st.stx_mode);
		open->access_mask = o.access;
		open->share_access = o.share;
		open->create_options = o.options;
		open->oplock_level = res.oplock_level;
		open->delete_on_close =
			(o.options & SMB2_FILE_DELETE_ON_CLOSE) != 0;
		status = smbd_file_attach(open, &res.st);
		assert_status(status, OK);
		*out = open;
	}
	talloc_free(tmp);
	return status;
}

static struct smbd_open *must_open(struct smbd_tcon *tcon, const char *path,
				   struct oreq o)
{
	struct smbd_open *open = NULL;

	assert_status(open_on(tcon, path, o, &open), OK);
	return open;
}

static struct statx open_statx(struct smbd_open *open)
{
	struct statx st;

	assert_status(vfs_fstat(open->fh, &st), OK);
	return st;
}

static size_t breaks_of(const struct smbd_open *open, uint8_t level)
{
	size_t i, n = 0;

	for (i = 0; i < rec.num_breaks; i++) {
		n += rec.breaks[i].open == open && rec.breaks[i].level == level;
	}
	return n;
}

static size_t pending_of(const struct smbd_open *open)
{
	size_t i, n = 0;

	for (i = 0; i < rec.num_pending; i++) {
		n += rec.pending[i] == open;
	}
	return n;
}

static void deadline_reached(struct tevent_context *ev,
			     struct tevent_timer *te, struct timeval now,
			     void *private_data)
{
	*(bool *)private_data = true;
}

/* Runs the loop until *flag is set, for at most secs seconds. */
static void loop_until(struct fx *f, const unsigned *flag, int secs)
{
	bool expired = false;
	struct tevent_timer *te = tevent_add_timer(
		f->ev, f, tevent_timeval_current_ofs(secs, 0),
		deadline_reached, &expired);
	int i;

	assert_non_null(te);
	for (i = 0; i < 10000 && *flag == 0 && !expired; i++) {
		assert_int_equal(tevent_loop_once(f->ev), 0);
	}
	if (!expired) {
		talloc_free(te);
	}
}

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
	/* nothing has the file open: there is nothing to wait for */
	assert_null(smbd_oplock_wait(*state, f->server, &st, oplock_woken,
				     &woken2));
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

/* ---- handle quotas (handles.h) ---- */

static size_t open_many(struct smbd_tcon *tcon, struct smbd_open **opens,
			size_t max, NTSTATUS *last)
{
	size_t n = 0;

	*last = NT_STATUS_OK;
	while (n < max) {
		*last = open_on(tcon, "f", (struct oreq){ R, SALL },
				&opens[n]);
		if (!NT_STATUS_IS_OK(*last)) {
			break;
		}
		n++;
	}
	return n;
}

static void close_all(struct smbd_open **opens, size_t n)
{
	while (n > 0) {
		n--;
		TALLOC_FREE(opens[n]);          /* a macro: no --n inside */
	}
}

static void test_handles__session_quota(void **state)
{
	struct fx *f = fx_new(*state,
			      "  smb2 max open files per session = 4\n");
	struct smbd_open *o[8] = {};
	NTSTATUS last;

	assert_int_equal(open_many(f->tcon, o, 8, &last), 4);
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_status(smbd_handles_check(f->session), TOO_MANY_OPENED_FILES);
	assert_true(smbd_handles_full(f->session));
	assert_null(smbd_open_new(f->tcon));
	assert_int_equal(f->session->num_handles, 4);
	assert_int_equal(f->conn->num_handles, 4);
	assert_int_equal(f->server->handles_total, 4);
	assert_int_equal(f->server->handles_untrusted, 0);
	TALLOC_FREE(o[3]);
	assert_status(smbd_handles_check(f->session), OK);
	o[3] = must_open(f->tcon, "f", (struct oreq){ R, SALL });
	close_all(o, 4);
	assert_int_equal(f->server->handles_total, 0);
	assert_int_equal(f->conn->num_handles, 0);
	fx_free(f);
}

/*
 * Guest sessions: their own quota, their client address's and the
 * untrusted total; a user session beside them is not limited by those.
 */
static void test_handles__untrusted_quotas(void **state)
{
	struct fx *f = fx_new(*state,
			      "  smb2 untrusted max open files = 2\n"
			      "  smb2 untrusted max open files per client = 3\n"
			      "  smb2 untrusted max open files total = 4\n");
	struct smbd_session *g1 = fx_session(f->conn, true);
	struct smbd_tcon *t1 = fx_tcon(f, g1, "sh");
	struct smbd_conn *c2 = fx_conn(f, "192.0.2.1");   /* same client */
	struct smbd_tcon *t2 = fx_tcon(f, fx_session(c2, true), "sh");
	struct smbd_conn *c3 = fx_conn(f, "198.51.100.7");
	struct smbd_tcon *t3 = fx_tcon(f, fx_session(c3, true), "sh");
	struct smbd_open *o1[4] = {}, *o2[4] = {}, *o3[4] = {}, *u[8] = {};
	NTSTATUS last;

	assert_int_equal(f->server->untrusted_budget, 4);
	assert_int_equal(open_many(t1, o1, 4, &last), 2);  /* per session */
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_int_equal(open_many(f->tcon, u, 8, &last), 8);
	assert_status(last, OK);                           /* the user's */
	assert_int_equal(open_many(t2, o2, 4, &last), 1);  /* per client */
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_int_equal(f->server->handles_untrusted, 3);
	assert_int_equal(open_many(t3, o3, 4, &last), 1);  /* in total */
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_int_equal(f->server->handles_untrusted, 4);
	assert_int_equal(f->server->handles_total, 12);
	TALLOC_FREE(o1[1]);
	assert_status(smbd_handles_check(t3->session), OK);
	assert_status(smbd_handles_check(t2->session), OK);
	close_all(o1, 1);
	close_all(o2, 1);
	close_all(o3, 1);
	close_all(u, 8);
	assert_int_equal(f->server->handles_untrusted, 0);
	assert_int_equal(f->server->handles_total, 0);
	fx_free(f);
}

/* A session that becomes (un)trusted takes its handles with it. */
static void test_handles__reclass(void **state)
{
	struct fx *f = fx_new(*state,
			      "  smb2 untrusted max open files = 2\n");
	struct smbd_open *o[4] = {};
	NTSTATUS last;

	assert_int_equal(open_many(f->tcon, o, 3, &last), 3);
	smbd_handles_reclass(f->session, true);
	assert_true(f->session->handles_untrusted);
	assert_int_equal(f->server->handles_untrusted, 3);
	assert_status(smbd_handles_check(f->session), TOO_MANY_OPENED_FILES);
	smbd_handles_reclass(f->session, true);         /* no change */
	assert_int_equal(f->server->handles_untrusted, 3);
	TALLOC_FREE(o[2]);
	assert_int_equal(f->server->handles_untrusted, 2);
	smbd_handles_reclass(f->session, false);
	assert_int_equal(f->server->handles_untrusted, 0);
	assert_status(smbd_handles_check(f->session), OK);
	close_all(o, 2);
	assert_int_equal(f->server->handles_total, 0);
	fx_free(f);
}

/* 'max open files' and the per-connection cap apply to every session */
static void test_handles__server_and_conn_budget(void **state)
{
	struct fx *f = fx_new(*state, "  max open files = 3\n");
	struct smbd_session *s2 = fx_session(f->conn, false);
	struct smbd_tcon *t2 = fx_tcon(f, s2, "sh");
	struct smbd_open *o[4] = {}, *p[4] = {};
	NTSTATUS last;

	assert_int_equal(f->server->handle_budget, 3);
	assert_int_equal(f->server->untrusted_budget, 0);  /* a quarter */
	assert_int_equal(open_many(f->tcon, o, 2, &last), 2);
	assert_int_equal(open_many(t2, p, 4, &last), 1);
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_status(smbd_handles_check(f->session), TOO_MANY_OPENED_FILES);
	close_all(p, 1);
	close_all(o, 2);

	f->server->max_handles_per_conn = 2;
	assert_int_equal(open_many(t2, p, 4, &last), 2);
	assert_status(last, TOO_MANY_OPENED_FILES);
	close_all(p, 2);
	fx_free(f);
}

/* ---- names (filename.c, share_names.c) ---- */

static NTSTATUS convert(TALLOC_CTX *ctx, const char *utf8, char **path,
			bool *is_stream)
{
	uint8_t *u = NULL;
	size_t len = 0;
	struct smb2_blob b;
	NTSTATUS status = smb2_utf8_to_utf16(ctx, utf8, strlen(utf8), &u,
					     &len);

	assert_status(status, OK);
	b = (struct smb2_blob){ u, len };
	*path = NULL;
	status = smbd_filename_convert(ctx, &b, path, is_stream);
	talloc_free(u);
	return status;
}

static void test_names__convert(void **state)
{
	static const struct {
		const char *in;
		const char *out;        /* NULL: status */
		const char *status;
		bool stream;
	} cases[] = {
		{ "", "", "NT_STATUS_OK" },
		{ "a", "a", "NT_STATUS_OK" },
		{ "d\\f", "d/f", "NT_STATUS_OK" },
		{ "d\\", "d", "NT_STATUS_OK" },
		{ "d\\..\\f", "f", "NT_STATUS_OK" },
		{ "d\\.\\f", "d/f", "NT_STATUS_OK" },
		{ "a::$DATA", "a", "NT_STATUS_OK", true },
		{ "d\\a::$data", "d/a", "NT_STATUS_OK", true },
		{ "\\a", NULL, "NT_STATUS_INVALID_PARAMETER" },
		{ "..", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a\\..\\..\\b", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a\\\\b", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a*", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a?b", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a<b", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a/b", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a\x01", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a:b\\c", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a:", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a::$FOO", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ ":s", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a:s", NULL, "NT_STATUS_OBJECT_NAME_NOT_FOUND" },
		{ "a:s:$DATA", NULL, "NT_STATUS_OBJECT_NAME_NOT_FOUND" },
	};
	TALLOC_CTX *ctx = *state;
	char long_name[300];
	char *path = NULL;
	bool is_stream = false;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		NTSTATUS status = convert(ctx, cases[i].in, &path,
					  &is_stream);

		if (strcmp(nt_errstr(status), cases[i].status) != 0) {
			fail_msg("\"%s\": %s, want %s", cases[i].in,
				 nt_errstr(status), cases[i].status);
		}
		if (cases[i].out != NULL) {
			assert_string_equal(path, cases[i].out);
			assert_int_equal(is_stream, cases[i].stream);
		}
		TALLOC_FREE(path);
	}
	/* a component of 255 bytes is fine, 256 is not */
	memset(long_name, 'x', 256);
	long_name[255] = '\0';
	assert_status(convert(ctx, long_name, &path, &is_stream), OK);
	assert_int_equal(strlen(path), 255);
	TALLOC_FREE(path);
	long_name[255] = 'x';
	long_name[256] = '\0';
	assert_status(convert(ctx, long_name, &path, &is_stream),
		      OBJECT_NAME_INVALID);
	assert_string_equal(smbd_filename_base("a/b/c"), "c");
	assert_string_equal(smbd_filename_base("c"), "c");
	assert_string_equal(smbd_filename_base(""), "");
}

static void test_names__wire(void **state)
{
	static const uint8_t want[] = { '\\', 0, 'd', 0, '\\', 0, 'f', 0 };
	struct smb2_name16 n = {};

	assert_status(smbd_filename_wire(*state, "d/f", &n), OK);
	assert_int_equal(n.len, sizeof(want));
	assert_memory_equal(n.data, want, sizeof(want));
	talloc_free((void *)n.data);
}

/* veto files, hide files, hide dot files = no (share [sh]) */
static void test_names__veto_and_hide(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct vfs_handle *vfs = f->tcon->vfs;
	struct smbd_tcon *plain = fx_tcon(f, f->session, "nooplocks");
	const uint32_t ARCH = SMB2_FILE_ATTRIBUTE_ARCHIVE;
	const uint32_t HID = SMB2_FILE_ATTRIBUTE_HIDDEN;

	assert_true(smbd_name_vetoed(vfs, "x.tmp"));
	assert_true(smbd_name_vetoed(vfs, "secret"));
	assert_true(smbd_name_vetoed(vfs, "SECRET"));  /* case-insensitive */
	assert_false(smbd_name_vetoed(vfs, "x.tmpl"));
	assert_false(smbd_name_vetoed(vfs, "f"));
	assert_false(smbd_name_vetoed(plain->vfs, "x.tmp"));
	assert_status(smbd_path_vetoed(vfs, "d/secret/x"),
		      OBJECT_PATH_NOT_FOUND);
	assert_status(smbd_path_vetoed(vfs, "d/a.tmp"),
		      OBJECT_NAME_NOT_FOUND);
	assert_status(smbd_path_vetoed(vfs, "d/f"), OK);
	assert_status(smbd_path_vetoed(plain->vfs, "d/secret/x"), OK);

	assert_int_equal(smbd_names_attributes(vfs, "hello", ARCH, false),
			 ARCH | HID);
	assert_int_equal(smbd_names_attributes(vfs, ".dot", ARCH | HID,
					       false), ARCH);
	assert_int_equal(smbd_names_attributes(vfs, ".dot", ARCH | HID,
					       true), ARCH | HID);
	assert_int_equal(smbd_names_attributes(vfs, "x", 0, false),
			 SMB2_FILE_ATTRIBUTE_NORMAL);
	/* "hide dot files" is on by default */
	assert_int_equal(smbd_names_attributes(plain->vfs, ".dot",
					       ARCH | HID, false),
			 ARCH | HID);
	assert_false(smbd_name_listed(vfs, vfs->root_fd, "x.tmp"));
	assert_true(smbd_name_listed(vfs, vfs->root_fd, "f"));
	assert_false(smbd_delete_veto_files(vfs));
	fx_free(f);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, fx_teardown)

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
		T(test_handles__session_quota),
		T(test_handles__untrusted_quotas),
		T(test_handles__reclass),
		T(test_handles__server_and_conn_budget),
		T(test_names__convert),
		T(test_names__wire),
		T(test_names__veto_and_hide),
	};

	talloc_set_log_stderr();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
