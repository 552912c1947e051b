/*
 * Durable handles: granting, keeping a disconnected open, reconnecting
 * it, and its timeout (the scavenger of MS-SMB2 3.3.2.4 is one timer per
 * disconnected open).  See durable.h.
 */
#include <string.h>
#include <strings.h>
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "lib/param/param.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/handles.h"
#include "source3/smbd/files/durable.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

/*
 * The share's VFS stack outlives a tcon whose durable opens are kept:
 * their fds hang below its root.  Freed with the last such open.
 */
struct smbd_durable_vfs {
	struct vfs_handle *vfs;
	size_t users;
};

uint32_t smbd_durable_v2_timeout(uint32_t requested)
{
	if (requested == 0) {
		return SMBD_DURABLE_V2_DEFAULT_MS;
	}
	return requested > SMBD_DURABLE_V2_MAX_MS ? SMBD_DURABLE_V2_MAX_MS :
		requested;
}

/* Who may reconnect: the same account (guest and anonymous by kind). */
const char *smbd_durable_owner(const struct smbd_session *s)
{
	if (s->anonymous) {
		return "\\anonymous";
	}
	if (s->guest) {
		return "\\guest";
	}
	return s->user != NULL ? s->user : "";
}

/*
 * What makes an open durable (3.3.5.9.6, 3.3.5.9.10): a batch oplock,
 * or a lease with handle caching.
 */
static bool durable_caching(const struct smbd_open *open)
{
	if (open->lease != NULL) {
		return (open->lease->state & SMBD_LEASE_H) != 0;
	}
	return open->oplock_level == SMB2_OPLOCK_LEVEL_BATCH;
}

bool smbd_durable_grant(struct smbd_open *open,
			const struct smb2_durable_req *d,
			uint32_t create_action, const uint8_t *app_instance)
{
	struct smbd_tcon *tcon = open->tcon;
	struct smbd_durable *dh = NULL;

	if ((!d->v1_request && !d->v2_request) ||
	    !tcon->share->durable_handles || open->is_dir ||
	    !durable_caching(open)) {
		return false;
	}
	dh = talloc_zero(open, struct smbd_durable);
	if (dh == NULL) {
		return false;
	}
	dh->v2 = d->v2_request;
	dh->timeout_ms = dh->v2 ? smbd_durable_v2_timeout(d->timeout) :
		SMBD_DURABLE_V1_TIMEOUT_MS;
	memcpy(dh->create_guid, d->create_guid, sizeof(dh->create_guid));
	memcpy(dh->client_guid, tcon->session->conn->client_guid,
	       sizeof(dh->client_guid));
	dh->create_action = create_action;
	if (app_instance != NULL && dh->v2) {
		dh->has_app_instance = true;
		memcpy(dh->app_instance_id, app_instance, 16);
	}
	dh->owner = talloc_strdup(dh, smbd_durable_owner(tcon->session));
	dh->share = talloc_strdup(dh, tcon->share->name);
	if (dh->owner == NULL || dh->share == NULL) {
		talloc_free(dh);
		return false;
	}
	open->durable = dh;
	return true;
}

/* ---- disconnect and timeout ---- */

static struct smbd_durable_vfs *durable_vfs_hold(struct smbd_tcon *tcon)
{
	struct smbd_durable_vfs *h = tcon->durable_vfs;

	if (h == NULL) {
		h = talloc_zero(tcon->session->conn->server,
				struct smbd_durable_vfs);
		if (h == NULL) {
			return NULL;
		}
		h->vfs = talloc_steal(h, tcon->vfs);
		tcon->durable_vfs = h;
	}
	h->users++;
	return h;
}

static void durable_vfs_release(struct smbd_durable *dh)
{
	struct smbd_durable_vfs *h = dh->vfs;

	dh->vfs = NULL;
	if (h != NULL && --h->users == 0) {
		talloc_free(h);
	}
}

static void durable_expire(struct tevent_context *ev,
			   struct tevent_timer *te, struct timeval now,
			   void *private_data)
{
	struct smbd_open *open = talloc_get_type_abort(private_data,
						       struct smbd_open);

	DBG_NOTICE("durable open of %s timed out: closing it\n", open->name);
	open->durable->expire = NULL;   /* tevent frees it after this */
	talloc_free(open);
}

bool smbd_durable_disconnect(struct smbd_open *open)
{
	struct smbd_tcon *tcon = open->tcon;
	struct smbd_server *server = open->server;
	struct smbd_durable *dh = open->durable;

	/*
	 * A break in flight (oplock or lease) is owed an answer nobody can
	 * give any more: the open closes, and whoever waits for it goes on
	 * at once rather than after the durable timeout.
	 */
	if (dh == NULL || server->shutting_down || open->file == NULL ||
	    !durable_caching(open) || open->oplock_break != NULL ||
	    (open->lease != NULL && open->lease->breaking)) {
		return false;
	}
	/*
	 * Each keeps an fd no connection counts any more: at most what one
	 * connection may hold (a quarter of RLIMIT_NOFILE), server-wide.
	 */
	if (server->num_disconnected >= server->max_handles_per_conn) {
		DBG_NOTICE("too many disconnected durable opens: closing %s\n",
			   open->name);
		return false;
	}
	dh->expire = tevent_add_timer(
		server->ev, dh,
		tevent_timeval_current_ofs(dh->timeout_ms / 1000,
					   (dh->timeout_ms % 1000) * 1000),
		durable_expire, open);
	if (dh->expire == NULL) {
		return false;
	}
	dh->vfs = durable_vfs_hold(tcon);
	if (dh->vfs == NULL) {
		TALLOC_FREE(dh->expire);
		return false;
	}
	DLIST_REMOVE_SIMPLE(tcon->opens, open);
	tcon->num_opens--;
	smbd_handles_add(tcon->session, -1);
	talloc_steal(server, open);
	open->tcon = NULL;
	TALLOC_FREE(open->dir_state);
	DLIST_ADD_SIMPLE(server->disconnected, open);
	server->num_disconnected++;
	DBG_INFO("durable open of %s disconnected for %u ms\n", open->name,
		 dh->timeout_ms);
	return true;
}

void smbd_durable_gone(struct smbd_open *open)
{
	struct smbd_server *server = open->server;

	DLIST_REMOVE_SIMPLE(server->disconnected, open);
	server->num_disconnected--;
	TALLOC_FREE(open->durable->expire);
	durable_vfs_release(open->durable);
}

void smbd_durable_shutdown(struct smbd_server *server)
{
	while (server->disconnected != NULL) {
		talloc_free(server->disconnected);
	}
}

/* ---- reconnect ---- */

static struct smbd_open *durable_find(struct smbd_server *server,
				      const struct smb2_durable_req *d)
{
	struct smbd_open *o = NULL;

	for (o = server->disconnected; o != NULL; o = o->next) {
		if (o->persistent_id == d->file_id.persistent) {
			return o;
		}
	}
	return NULL;
}

static bool durable_matches(const struct smbd_open *o,
			    const struct smb2_durable_req *d)
{
	static const uint8_t zero[16];

	if (!d->v2_reconnect) {
		return true;            /* DHnC reconnects v1 and v2 opens */
	}
	/*
	 * A v1 open with a lease comes back by DH2C with a zero
	 * CreateGuid, as on Samba (smbtorture durable-open.reopen2-lease);
	 * the lease key is what identifies it then (durable_lease_matches).
	 */
	if (!o->durable->v2 && o->lease != NULL) {
		return memcmp(d->create_guid, zero, sizeof(zero)) == 0;
	}
	return o->durable->v2 &&
	       memcmp(d->create_guid, zero, sizeof(zero)) != 0 &&
	       memcmp(d->create_guid, o->durable->create_guid,
		      sizeof(zero)) == 0;
}

static void durable_attach(struct smbd_open *open, struct smbd_tcon *tcon)
{
	struct smbd_server *server = open->server;

	DLIST_REMOVE_SIMPLE(server->disconnected, open);
	server->num_disconnected--;
	TALLOC_FREE(open->durable->expire);
	open->fh->vfs = tcon->vfs;
	durable_vfs_release(open->durable);
	talloc_steal(tcon, open);
	open->tcon = tcon;
	DLIST_ADD_SIMPLE(tcon->opens, open);
	tcon->num_opens++;
	smbd_handles_add(tcon->session, 1);
}

/*
 * 3.3.5.9.7, 3.3.5.9.12: an open with a lease comes back only with the
 * same lease (key and client) and name; a lease asked of an open that
 * had none finds nothing.  A wrong name is INVALID_PARAMETER, as for
 * any lease key used on another file (Windows, Samba).
 */
static NTSTATUS durable_lease_matches(const struct smbd_open *open,
				      const struct smbd_lease_req *lease,
				      const char *path)
{
	if ((open->lease == NULL) != (lease == NULL)) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (lease == NULL) {
		return NT_STATUS_OK;
	}
	if (!smbd_lease_is(open->lease, lease)) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (path == NULL || strcasecmp(path, open->name) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

NTSTATUS smbd_durable_reconnect(struct smbd_tcon *tcon,
				const struct smb2_durable_req *d,
				const struct smbd_lease_req *lease,
				const char *path, struct smbd_open **out)
{
	struct smbd_open *open = durable_find(tcon->session->conn->server, d);
	NTSTATUS status;

	if (open == NULL || !durable_matches(open, d) ||
	    strcmp(open->durable->share, tcon->share->name) != 0) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	status = durable_lease_matches(open, lease, path);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (strcasecmp(open->durable->owner,
		       smbd_durable_owner(tcon->session)) != 0) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (tcon->num_opens >= SMBD_MAX_OPENS_PER_TCON ||
	    smbd_handles_full(tcon->session)) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	durable_attach(open, tcon);
	DBG_INFO("durable open of %s reconnected\n", open->name);
	*out = open;
	return NT_STATUS_OK;
}

/* ---- AppInstanceId (3.3.5.9.13) ---- */

static bool app_instance_match(const struct smbd_open *o, const char *share,
			       const char *path, const uint8_t id[16])
{
	const struct smbd_durable *dh = o->durable;

	return dh != NULL && dh->has_app_instance &&
	       memcmp(dh->app_instance_id, id, 16) == 0 &&
	       strcmp(dh->share, share) == 0 && strcmp(o->name, path) == 0;
}

void smbd_durable_app_instance(struct smbd_tcon *tcon, const char *path,
			       const uint8_t id[16])
{
	struct smbd_server *server = tcon->session->conn->server;
	const char *share = tcon->share->name;
	struct smbd_conn *c = NULL;
	struct smbd_session *s = NULL;
	struct smbd_tcon *t = NULL;
	struct smbd_open *o = NULL, *next = NULL;

	for (o = server->disconnected; o != NULL; o = next) {
		next = o->next;
		if (app_instance_match(o, share, path, id)) {
			talloc_free(o);
		}
	}
	for (c = server->conns; c != NULL; c = c->next) {
		if (c != tcon->session->conn && c->requests_running > 0) {
			continue;       /* what it runs may hold the open */
		}
		for (s = c->sessions; s != NULL; s = s->next) {
			for (t = s->tcons; t != NULL; t = t->next) {
				for (o = t->opens; o != NULL; o = next) {
					next = o->next;
					if (app_instance_match(o, share, path,
							       id)) {
						DBG_INFO("closing %s: same "
							 "AppInstanceId\n",
							 o->name);
						talloc_free(o);
					}
				}
			}
		}
	}
}

/* ---- another open meets a disconnected one ---- */

bool smbd_durable_contend(struct smbd_server *server, const struct statx *st,
			  uint32_t access, uint32_t disposition)
{
	struct smbd_file *f = NULL;
	struct smbd_open *o = NULL, *next = NULL;
	bool closed = false;

	if (server->num_disconnected == 0) {
		return false;
	}
	if ((access & ~SMBD_OPLOCK_STAT_ACCESS) == 0 &&
	    disposition != SMB2_FILE_SUPERSEDE &&
	    disposition != SMB2_FILE_OVERWRITE &&
	    disposition != SMB2_FILE_OVERWRITE_IF) {
		return false;           /* a stat open breaks no oplock */
	}
	f = smbd_file_find(server, st);
	for (o = f != NULL ? f->opens : NULL; o != NULL; o = next) {
		next = o->file_next;
		if (o->tcon == NULL) {
			DBG_INFO("closing disconnected durable open of %s: "
				 "its oplock cannot be broken\n", o->name);
			closed = true;
			talloc_free(o);         /* the last one frees f */
		}
	}
	return closed;
}
