/*
 * SMB2 leases: the table, grants and upgrades at CREATE, breaks and
 * their acknowledgment and timeout (see lease.h).
 *
 * The break rules follow MS-FSA 2.1.5.17 as Windows and Samba apply
 * them (smbtorture smb2.lease): a new open takes W from the others
 * (H when the share modes refuse it, so they may close; R and H too
 * when it truncates), a write or lock takes R, a rename or delete H.
 */
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/share_mode.h"

uint32_t smbd_lease_legal(uint32_t requested)
{
	uint32_t s = requested & SMBD_LEASE_RWH;

	/* no W alone, no H without R (MS-SMB2 3.3.5.9.8) */
	return (s & SMBD_LEASE_R) ? s : 0;
}

uint32_t smbd_lease_dir_legal(uint32_t requested)
{
	/* a directory's contents are not written through a handle */
	return smbd_lease_legal(requested) & ~SMBD_LEASE_W;
}

static bool key_equal(const struct smbd_lease *l, const uint8_t guid[16],
		      const uint8_t key[SMB2_LEASE_KEY_SIZE])
{
	return memcmp(l->client_guid, guid, 16) == 0 &&
	       memcmp(l->key, key, SMB2_LEASE_KEY_SIZE) == 0;
}

struct smbd_lease *smbd_lease_find(struct smbd_server *server,
				   const uint8_t client_guid[16],
				   const uint8_t key[SMB2_LEASE_KEY_SIZE])
{
	struct smbd_lease *l = NULL;

	for (l = server->leases; l != NULL; l = l->next) {
		if (key_equal(l, client_guid, key)) {
			return l;
		}
	}
	return NULL;
}

bool smbd_lease_is(const struct smbd_lease *l,
		   const struct smbd_lease_req *req)
{
	return l != NULL && req != NULL &&
	       key_equal(l, req->client_guid, req->key);
}

/* o's name, "file" or "file:stream", is path (case-insensitively) */
static bool lease_open_named(const struct smbd_open *o, const char *path)
{
	size_t n = strlen(o->name);

	if (o->fh->stream == NULL) {
		return strcasecmp(o->name, path) == 0;
	}
	return strncasecmp(o->name, path, n) == 0 && path[n] == ':' &&
	       strcasecmp(path + n + 1, o->fh->stream) == 0;
}

NTSTATUS smbd_lease_check_name(struct smbd_server *server,
			       const struct smbd_lease_req *req,
			       const char *root, const char *path)
{
	struct smbd_lease *l = smbd_lease_find(server, req->client_guid,
					       req->key);
	const struct smbd_open *o = NULL;

	if (l == NULL || l->file == NULL) {
		return NT_STATUS_OK;
	}
	for (o = l->file->opens; o != NULL; o = o->file_next) {
		if (o->lease == l &&
		    strcmp(o->fh->vfs->root_path, root) == 0 &&
		    lease_open_named(o, path)) {
			return NT_STATUS_OK;
		}
	}
	return NT_STATUS_INVALID_PARAMETER;
}

/* ---- telling the client ---- */

/*
 * Through any connected open of the lease (3.3.4.7: any connection of
 * the client); a lease whose opens are all disconnected durable ones has
 * nobody to tell, and its break ends by timeout.
 */
static void lease_notify(struct smbd_lease *l, uint32_t from, uint32_t to,
			 bool ack_required)
{
	struct smbd_server *server = l->server;
	struct smbd_open *o = NULL;
	struct smb2_lease_break lb = {
		.new_epoch = l->version == 2 ? l->epoch : 0,
		.flags = ack_required ?
			SMB2_NOTIFY_BREAK_LEASE_FLAG_ACK_REQUIRED : 0,
		.current_state = from,
		.new_state = to,
	};

	memcpy(lb.lease_key, l->key, sizeof(lb.lease_key));
	for (o = l->file->opens; o != NULL; o = o->file_next) {
		if (o->lease == l && o->tcon != NULL &&
		    !o->tcon->session->conn->terminating) {
			break;
		}
	}
	if (o != NULL && server->hooks.lease_break != NULL) {
		server->hooks.lease_break(o, &lb);
	}
}

/* ---- breaks, acknowledgments, timeout ---- */

static void break_done(struct smbd_lease *l)
{
	l->breaking = false;
	l->to_requested = l->to_required = 0;
	TALLOC_FREE(l->timer);
}

static void lease_timeout(struct tevent_context *ev, struct tevent_timer *te,
			  struct timeval now, void *private_data)
{
	struct smbd_lease *l = talloc_get_type_abort(private_data,
						     struct smbd_lease);

	DBG_NOTICE("lease break not acknowledged in time: to none\n");
	l->timer = NULL;                /* tevent frees it after this */
	l->state = 0;
	break_done(l);
	smbd_oplock_wake(l->file);
}

static void timer_start(struct smbd_lease *l)
{
	struct smbd_server *server = l->server;

	TALLOC_FREE(l->timer);
	l->timer = tevent_add_timer(
		server->ev, l,
		tevent_timeval_current_ofs(server->lp->g.oplock_break_timeout,
					   0),
		lease_timeout, l);
	if (l->timer == NULL) {
		/* nobody can wait for it: the lease ends now */
		DBG_ERR("out of memory breaking a lease\n");
		l->state = 0;
		break_done(l);
	}
}

void smbd_lease_break(struct smbd_lease *l, uint32_t to)
{
	uint32_t from = l->state;

	to &= from;
	if (l->breaking) {
		/* asked again while in flight: remembered for the ack */
		l->to_required &= to;
		return;
	}
	if (from == to) {
		return;
	}
	l->epoch++;
	if ((from & (SMBD_LEASE_W | SMBD_LEASE_H)) == 0) {
		/* R to none: nothing to flush, nothing to wait for */
		l->state = to;
		lease_notify(l, from, to, false);
		return;
	}
	l->breaking = true;
	l->to_requested = l->to_required = to;
	timer_start(l);
	lease_notify(l, from, to, true);
}

NTSTATUS smbd_lease_ack(struct smbd_server *server,
			const uint8_t client_guid[16],
			const uint8_t key[SMB2_LEASE_KEY_SIZE],
			uint32_t ack_state, uint32_t *state)
{
	struct smbd_lease *l = smbd_lease_find(server, client_guid, key);
	uint32_t to;

	*state = 0;
	if (l == NULL) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (!l->breaking) {
		return NT_STATUS_UNSUCCESSFUL;          /* as Samba */
	}
	if ((ack_state & l->to_requested) != ack_state) {
		return NT_STATUS_REQUEST_NOT_ACCEPTED;
	}
	*state = l->state = ack_state;
	if ((ack_state & ~l->to_required) == 0) {
		break_done(l);
		smbd_oplock_wake(l->file);
		return NT_STATUS_OK;
	}
	/*
	 * A later conflict asked for less than this break did: break
	 * again, in steps through R as Windows does (smbtorture
	 * smb2.lease.breaking3); the epoch stays.
	 */
	to = l->to_required & ack_state;
	if (ack_state & (SMBD_LEASE_W | SMBD_LEASE_H)) {
		to |= ack_state & SMBD_LEASE_R;
		l->to_requested = to;
		timer_start(l);
		lease_notify(l, ack_state, to, true);
	} else {
		l->state = to;
		break_done(l);
		lease_notify(l, ack_state, to, false);
	}
	smbd_oplock_wake(l->file);
	return NT_STATUS_OK;
}

/* ---- what opens, writes, renames do to the leases of a file ---- */

static uint32_t contend_to(uint32_t state, uint32_t delay_mask,
			   bool truncates)
{
	uint32_t to = state & ~delay_mask;

	if (truncates) {
		to &= ~(SMBD_LEASE_H | SMBD_LEASE_R);
	}
	if ((state & ~to) != 0 && truncates) {
		/* broken anyway: straight to none */
		to &= ~(SMBD_LEASE_R | SMBD_LEASE_W);
	}
	return to;
}

bool smbd_lease_contend_open(struct smbd_server *server,
			     const struct statx *st, uint32_t access,
			     bool truncates, bool sharing_violation,
			     const struct smbd_lease_req *own, bool retry)
{
	struct smbd_file *f = smbd_file_find(server, st);
	uint32_t delay_mask = sharing_violation ? SMBD_LEASE_H : SMBD_LEASE_W;
	struct smbd_open *o = NULL;
	bool wait = false;

	if (f == NULL ||
	    ((access & ~SMBD_LEASE_STAT_ACCESS) == 0 && !truncates)) {
		return false;
	}
	for (o = f->opens; o != NULL; o = o->file_next) {
		struct smbd_lease *l = o->lease;
		uint32_t state, to;

		if (l == NULL || smbd_lease_is(l, own)) {
			continue;
		}
		state = l->state;
		to = contend_to(state, delay_mask, truncates);
		if ((state & ~to) == 0) {
			/* nothing to take; a break in flight still counts */
			wait |= l->breaking;
			continue;
		}
		smbd_lease_break(l, to);
		wait |= (state & delay_mask) != 0 || (l->breaking && retry);
	}
	return wait;
}

static bool is_stat_open(const struct smbd_open *o)
{
	return (o->access_mask & ~SMBD_OPLOCK_STAT_ACCESS) == 0;
}

uint32_t smbd_lease_grant_state(struct smbd_server *server,
				const struct statx *st,
				const struct smbd_lease_req *req,
				bool stat_open, bool level2)
{
	struct smbd_file *f = stat_open ? NULL : smbd_file_find(server, st);
	uint32_t g = S_ISDIR(st->stx_mode) ? smbd_lease_dir_legal(req->state) :
		smbd_lease_legal(req->state);
	const struct smbd_open *o = NULL;

	/*
	 * A stat open counts only when it holds a lease itself
	 * (smbtorture smb2.lease.statopen and statopen3).
	 */
	for (o = f != NULL ? f->opens : NULL; o != NULL; o = o->file_next) {
		if (smbd_lease_is(o->lease, req) ||
		    (is_stat_open(o) && o->lease == NULL)) {
			continue;
		}
		g &= ~SMBD_LEASE_W;             /* one writer */
		if (o->lease == NULL) {
			g &= ~SMBD_LEASE_H;     /* next to a non-lease open */
		}
	}
	if ((g & SMBD_LEASE_R) && !(g & SMBD_LEASE_W) && !level2) {
		g = 0;
	}
	return g;
}

bool smbd_lease_file_has_handle(struct smbd_server *server,
				const struct statx *st)
{
	struct smbd_file *f = smbd_file_find(server, st);
	const struct smbd_open *o = NULL;

	for (o = f != NULL ? f->opens : NULL; o != NULL; o = o->file_next) {
		if (o->lease != NULL && (o->lease->state & SMBD_LEASE_H)) {
			return true;
		}
	}
	return false;
}

void smbd_lease_contend_level2(struct smbd_open *open)
{
	struct smbd_open *o = NULL;

	for (o = open->file != NULL ? open->file->opens : NULL; o != NULL;
	     o = o->file_next) {
		if (o->lease != NULL && o->lease != open->lease &&
		    (o->lease->state & SMBD_LEASE_R)) {
			smbd_lease_break(o->lease, 0);
		}
	}
}

void smbd_lease_contend_handle(struct smbd_open *open)
{
	struct smbd_open *o = NULL;

	for (o = open->file != NULL ? open->file->opens : NULL; o != NULL;
	     o = o->file_next) {
		struct smbd_lease *l = o->lease;

		if (l != NULL && l != open->lease &&
		    (l->state & SMBD_LEASE_H)) {
			smbd_lease_break(l, l->state & ~SMBD_LEASE_H);
		}
	}
}

/*
 * take (H, and W too) from every lease of f but the changer's own (own,
 * or the lease of own_req), in one break; true: one of them owes the
 * acknowledgment for H.
 */
static bool contend_handle_wait(struct smbd_file *f, uint32_t take,
				const struct smbd_lease *own,
				const struct smbd_lease_req *own_req)
{
	struct smbd_open *o = NULL;
	bool wait = false;

	for (o = f != NULL ? f->opens : NULL; o != NULL; o = o->file_next) {
		struct smbd_lease *l = o->lease;

		if (l == NULL || l == own || smbd_lease_is(l, own_req)) {
			continue;
		}
		if (l->state & SMBD_LEASE_H) {
			smbd_lease_break(l, l->state & ~take);
		}
		wait |= l->breaking && (l->state & SMBD_LEASE_H);
	}
	return wait;
}

bool smbd_lease_contend_rename(struct smbd_open *open)
{
	return contend_handle_wait(open->file, SMBD_LEASE_H, open->lease,
				   NULL);
}

bool smbd_lease_contend_delete(struct smbd_server *server,
			       const struct statx *st,
			       const struct smbd_lease_req *own)
{
	/* the open is not a stat open: W goes too (contend_open) */
	return contend_handle_wait(smbd_file_find(server, st),
				   SMBD_LEASE_H | SMBD_LEASE_W, NULL, own);
}

/* ---- directory leases: changes inside a directory ---- */

/* Did the change come from the client that leases the directory itself? */
static bool lease_is_parent(const struct smbd_lease *dir,
			    const struct smbd_lease *by)
{
	return by != NULL && by->has_parent &&
	       key_equal(dir, by->client_guid, by->parent_key);
}

void smbd_lease_contend_parent(struct smbd_open *open, const char *path)
{
	struct smbd_server *server = open->server;
	const char *slash = strrchr(path, '/');
	struct vfs_fh *fh = NULL;
	struct smbd_file *f = NULL;
	struct smbd_open *o = NULL;
	struct statx st;
	char *dir = NULL;

	if (server->num_dir_leases == 0 || server->shutting_down ||
	    open->fh == NULL || path[0] == '\0') {
		return;                 /* the share root: no directory above */
	}
	dir = talloc_strndup(open, path,
			     slash != NULL ? (size_t)(slash - path) : 0);
	if (dir == NULL ||
	    !NT_STATUS_IS_OK(vfs_openat(dir, open->fh->vfs, dir,
					O_PATH | O_DIRECTORY, &fh, &st))) {
		/* gone with its directory, or out of memory: no lease */
		talloc_free(dir);
		return;
	}
	f = smbd_file_find(server, &st);
	for (o = f != NULL ? f->opens : NULL; o != NULL; o = o->file_next) {
		struct smbd_lease *l = o->lease;

		if (l != NULL && l->is_dir && l->state != 0 &&
		    !lease_is_parent(l, open->lease)) {
			smbd_lease_break(l, 0);
		}
	}
	talloc_free(dir);
}

/* ---- the table ---- */

static int lease_destructor(struct smbd_lease *l)
{
	DLIST_REMOVE_SIMPLE(l->server->leases, l);
	if (l->is_dir) {
		l->server->num_dir_leases--;
	}
	return 0;
}

static struct smbd_lease *lease_new(struct smbd_open *open,
				    const struct smbd_lease_req *req,
				    uint32_t granted)
{
	struct smbd_server *server = open->server;
	struct smbd_lease *l = talloc_zero(server, struct smbd_lease);

	if (l == NULL) {
		return NULL;
	}
	l->server = server;
	l->file = open->file;
	memcpy(l->client_guid, req->client_guid, 16);
	memcpy(l->key, req->key, SMB2_LEASE_KEY_SIZE);
	l->version = req->version;
	if (req->version == 2 &&
	    (req->flags & SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET)) {
		l->has_parent = true;
		memcpy(l->parent_key, req->parent_key, SMB2_LEASE_KEY_SIZE);
	}
	/* 3.3.5.9.11: a new lease's epoch is the client's plus one */
	l->epoch = req->epoch + 1;
	l->state = granted;
	l->is_dir = open->is_dir;
	if (l->is_dir) {
		server->num_dir_leases++;
	}
	DLIST_ADD_SIMPLE(server->leases, l);
	talloc_set_destructor(l, lease_destructor);
	return l;
}

NTSTATUS smbd_lease_attach(struct smbd_open *open,
			   const struct smbd_lease_req *req,
			   uint32_t granted)
{
	struct smbd_lease *l = smbd_lease_find(open->server,
					       req->client_guid, req->key);
	/* what a directory is asked for is what it may have (no W) */
	uint32_t want = open->is_dir ? smbd_lease_dir_legal(req->state) :
		req->state;

	if (l == NULL) {
		l = lease_new(open, req, granted);
		if (l == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	} else if (l->file != open->file) {
		return NT_STATUS_INVALID_PARAMETER;     /* one key, one file */
	} else if ((l->state & want) == l->state &&
		   granted != l->state && granted == want && !l->breaking) {
		/* a strict upgrade that nothing else keeps back */
		l->state = granted;
		l->epoch++;
	}
	open->lease = l;
	l->num_opens++;
	return NT_STATUS_OK;
}

void smbd_lease_detach(struct smbd_open *open)
{
	struct smbd_lease *l = open->lease;

	if (l == NULL) {
		return;
	}
	open->lease = NULL;
	if (--l->num_opens == 0) {
		talloc_free(l);
	}
}

void smbd_lease_response(const struct smbd_lease *l, struct smb2_lease *out)
{
	*out = (struct smb2_lease){
		.version = l->version,
		.state = l->state,
		.flags = l->breaking ? SMB2_LEASE_FLAG_BREAK_IN_PROGRESS : 0,
		.epoch = l->epoch,
	};
	memcpy(out->key, l->key, sizeof(out->key));
	if (l->has_parent) {
		out->flags |= SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET;
		memcpy(out->parent_key, l->parent_key, sizeof(out->parent_key));
	}
}
