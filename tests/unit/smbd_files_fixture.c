/*
 * The file layer fixture: what test_smbd_files_*.c share (see
 * smbd_files_fixture.h).
 */
#include "tests/unit/smbd_files_fixture.h"

struct smbd_files_records rec;

void hook_oplock_break(struct smbd_open *open, uint8_t level)
{
	assert_true(rec.num_breaks < MAX_RECORDS);
	rec.breaks[rec.num_breaks++] = (struct break_rec){ open, level };
}

void hook_lease_break(struct smbd_open *open,
		      const struct smb2_lease_break *lb)
{
	assert_true(rec.num_lease_breaks < MAX_RECORDS);
	rec.lease_breaks[rec.num_lease_breaks++] =
		(struct lease_rec){ open, *lb };
}

void hook_delete_pending(struct smbd_open *open)
{
	assert_true(rec.num_pending < MAX_RECORDS);
	rec.pending[rec.num_pending++] = open;
}

static const struct smbd_state_hooks recording_hooks = {
	.oplock_break = hook_oplock_break,
	.lease_break = hook_lease_break,
	.delete_pending = hook_delete_pending,
};

struct loadparm *load_conf(TALLOC_CTX *ctx, const char *dir,
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
		"  level2 oplocks = no\n"
		"[kernel]\n"
		"  path = %s\n"
		"  read only = no\n"
		"  kernel oplocks = yes\n",
		global, dir, dir, dir, dir, dir);
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;

	assert_non_null(text);
	assert_int_equal(lp_load_buffer(ctx, "test.conf", text, strlen(text),
					&lp, &diags), 0);
	talloc_free(diags);
	talloc_free(text);
	return lp;
}

struct smbd_conn *fx_conn(struct fx *f, const char *addr)
{
	struct smbd_conn *conn = talloc_zero(f->server, struct smbd_conn);

	assert_non_null(conn);
	assert_true(f->num_conns < MAX_TCONS);
	f->conns[f->num_conns++] = conn;
	conn->server = f->server;
	conn->ev = f->server->ev;
	conn->ring = f->server->ring;
	conn->fd = -1;
	snprintf(conn->addr, sizeof(conn->addr), "%s", addr);
	snprintf(conn->peer, sizeof(conn->peer), "%s:445", addr);
	assert_int_equal(smbd_handles_conn_start(conn), 0);
	return conn;
}

/* A valid session; guest ones count against the untrusted quotas. */
struct smbd_session *fx_session(struct smbd_conn *conn, bool guest)
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

struct smbd_tcon *fx_tcon(struct fx *f, struct smbd_session *s,
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

void fx_path(const struct fx *f, const char *name, char *buf,
	     size_t len)
{
	snprintf(buf, len, "%s/%s", f->dir, name);
}

void write_file(const struct fx *f, const char *name,
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

void make_dir(const struct fx *f, const char *name)
{
	char path[160];

	fx_path(f, name, path, sizeof(path));
	assert_int_equal(mkdir(path, 0755), 0);
}

/* -1: the name does not exist */
off_t file_size(const struct fx *f, const char *name)
{
	char path[160];
	struct stat st;

	fx_path(f, name, path, sizeof(path));
	return lstat(path, &st) == 0 ? st.st_size : -1;
}

/* The test's fixture, freed in order by the teardown if the test failed */
static struct fx *current_fx;

struct fx *fx_new(TALLOC_CTX *ctx, const char *global)
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
void fx_free(struct fx *f)
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

int fx_teardown(void **state)
{
	if (current_fx != NULL) {
		fx_free(current_fx);
	}
	return unit_teardown(state);
}

NTSTATUS open_on(struct smbd_tcon *tcon, const char *path,
		 struct oreq o, struct smbd_open **out)
{
	struct smbd_create_params p = {
		.path = path,
		.access = o.access,
		.share_access = o.share,
		.disposition = o.disp != 0 ? o.disp : SMB2_FILE_OPEN,
		.options = o.options,
		.oplock_request = o.oplock,
		.lease = o.lease,
		.may_wait = o.may_wait,
		.retry = o.retry,
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
		if (res.lease_granted) {
			status = smbd_lease_attach(open, o.lease,
						   res.lease_state);
			assert_status(status, OK);
		}
		*out = open;
	}
	talloc_free(tmp);
	return status;
}

struct smbd_open *must_open(struct smbd_tcon *tcon, const char *path,
			    struct oreq o)
{
	struct smbd_open *open = NULL;

	assert_status(open_on(tcon, path, o, &open), OK);
	return open;
}

struct statx open_statx(struct smbd_open *open)
{
	struct statx st;

	assert_status(vfs_fstat(open->fh, &st), OK);
	return st;
}

size_t breaks_of(const struct smbd_open *open, uint8_t level)
{
	size_t i, n = 0;

	for (i = 0; i < rec.num_breaks; i++) {
		n += rec.breaks[i].open == open && rec.breaks[i].level == level;
	}
	return n;
}

size_t pending_of(const struct smbd_open *open)
{
	size_t i, n = 0;

	for (i = 0; i < rec.num_pending; i++) {
		n += rec.pending[i] == open;
	}
	return n;
}

void deadline_reached(struct tevent_context *ev,
		      struct tevent_timer *te, struct timeval now,
		      void *private_data)
{
	*(bool *)private_data = true;
}

/* Runs the loop until *flag is set, for at most secs seconds. */
void loop_until(struct fx *f, const unsigned *flag, int secs)
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
