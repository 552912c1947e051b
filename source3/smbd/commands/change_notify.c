/*
 * CHANGE_NOTIFY (MS-SMB2 3.3.5.19, MS-FSA 2.1.5.11).
 *
 * The first request on a directory open starts watching it (notify.c)
 * with that request's CompletionFilter, WATCH_TREE and
 * OutputBufferLength, as Windows and Samba do; changes then accumulate
 * on the open until a request takes them.  A request that finds changes
 * is answered at once; otherwise it goes async (STATUS_PENDING) and
 * waits on the open's queue, oldest first, one request per batch of
 * changes.
 *
 * A waiting request never looks at the open, tcon or session again: it
 * is on the open's record (open->notify), whose destructor answers it
 * with STATUS_NOTIFY_CLEANUP when the open goes away (CLOSE,
 * TREE_DISCONNECT, LOGOFF, a dropped connection), and whose own
 * destructor unlinks it when the pipeline frees it first.  Every
 * completion is deferred to the event loop (tevent_req_defer_callback),
 * so nothing is answered from inside a destructor or the inotify
 * handler.
 */
#include <errno.h>
#include <string.h>
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/notify.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

struct smb2_notify_state;

/* What an open that asked for notifications carries (open->notify). */
struct smbd_open_notify {
	struct tevent_context *ev;
	struct smbd_notify_watcher *w;
	struct smb2_notify_state *waiting;      /* oldest first */
};

struct smb2_notify_state {
	struct smb2_notify_state *prev, *next;
	struct tevent_req *req;
	struct smbd_open_notify *on;    /* NULL: not waiting */
	uint32_t max_len;
	struct smbd_response rsp;
};

/* Takes the open's changes into the response (OK or NOTIFY_ENUM_DIR). */
static void notify_answer(struct tevent_req *req,
			  struct smb2_notify_state *state,
			  struct smbd_notify_watcher *w)
{
	struct smb2_blob out = {};
	uint8_t *buf = NULL;
	NTSTATUS status;

	status = smbd_notify_take(w, state, state->max_len, &buf, &out.len);
	if (tevent_req_nterror(req, status)) {
		return;
	}
	out.data = buf;
	state->rsp.body = smb2_change_notify_rsp_push(state, &out,
						      &state->rsp.body_len);
	if (tevent_req_nomem(state->rsp.body, req)) {
		return;
	}
	tevent_req_done(req);
}

static void notify_unwait(struct smb2_notify_state *state)
{
	if (state->on != NULL) {
		DLIST_REMOVE_SIMPLE(state->on->waiting, state);
		state->on = NULL;
	}
}

static int notify_state_destructor(struct smb2_notify_state *state)
{
	notify_unwait(state);
	return 0;
}

/* notify.c: the open has changes; the oldest waiting request takes them */
static void notify_changed(struct smbd_notify_watcher *w, void *priv)
{
	struct smbd_open_notify *on = priv;
	struct smb2_notify_state *state = on->waiting;

	if (state == NULL) {
		return;                 /* kept for the next request */
	}
	notify_unwait(state);
	tevent_req_defer_callback(state->req, on->ev);
	notify_answer(state->req, state, w);
}

static bool notify_cancel(struct tevent_req *req)
{
	struct smb2_notify_state *state = tevent_req_data(
		req, struct smb2_notify_state);

	if (state->on == NULL) {
		return false;
	}
	tevent_req_defer_callback(req, state->on->ev);
	notify_unwait(state);
	tevent_req_nterror(req, NT_STATUS_CANCELLED);
	return true;
}

/* The open goes away: its waiting requests end (MS-SMB2 3.3.5.10). */
static int open_notify_destructor(struct smbd_open_notify *on)
{
	struct smb2_notify_state *state = NULL;

	while ((state = on->waiting) != NULL) {
		notify_unwait(state);
		tevent_req_defer_callback(state->req, on->ev);
		tevent_req_nterror(state->req, NT_STATUS_NOTIFY_CLEANUP);
	}
	return 0;
}

/*
 * The directory an open watches became delete-pending: its waiting
 * requests end with DELETE_PENDING (smbtorture smb2.notify.rmdir1-4, as
 * Windows and Samba).
 */
void smbd_notify_delete_pending(struct smbd_open *open)
{
	struct smbd_open_notify *on = open->notify;
	struct smb2_notify_state *state = NULL;

	if (on == NULL) {
		return;
	}
	while ((state = on->waiting) != NULL) {
		notify_unwait(state);
		tevent_req_defer_callback(state->req, on->ev);
		tevent_req_nterror(state->req, NT_STATUS_DELETE_PENDING);
	}
}

static struct smbd_notify_ctx *server_notify(struct smbd_server *server)
{
	if (server->notify == NULL) {
		server->notify = smbd_notify_ctx_new(server, server->ev,
						     SMBD_NOTIFY_MAX_WATCHES);
		if (server->notify == NULL) {
			DBG_NOTICE("notify: no inotify: %s\n", strerror(errno));
		}
	}
	return server->notify;
}

/* The open's record, made (and the watch started) by its first request. */
static NTSTATUS open_notify_get(struct smbd_request *req,
				struct tevent_context *ev,
				const struct smb2_change_notify_req *r,
				struct smbd_open_notify **out)
{
	struct smbd_open *open = req->open;
	struct smbd_notify_ctx *ctx = NULL;
	struct smbd_open_notify *on = open->notify;
	NTSTATUS status;

	if (on != NULL) {
		*out = on;
		return NT_STATUS_OK;
	}
	ctx = server_notify(req->conn->server);
	if (ctx == NULL) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	on = talloc_zero(open, struct smbd_open_notify);
	if (on == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	on->ev = ev;
	status = smbd_notify_watch(on, ctx, open->fh->fd,
				   &open->fh->vfs->token,
				   r->completion_filter,
				   r->flags & SMB2_WATCH_TREE,
				   r->output_buffer_length, notify_changed, on,
				   &on->w);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(on);
		return status;
	}
	talloc_set_destructor(on, open_notify_destructor);
	open->notify = on;
	*out = on;
	return NT_STATUS_OK;
}

/*
 * As Samba: OutputBufferLength above MaxTransactSize or a handle that is
 * not a directory INVALID_PARAMETER; flags other than WATCH_TREE are
 * ignored.  Windows also wants FILE_LIST_DIRECTORY on the handle.
 */
static NTSTATUS notify_check(struct smbd_request *req,
			     struct smb2_change_notify_req *r)
{
	NTSTATUS status = smb2_change_notify_req_pull(req->pdu, r);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (r->output_buffer_length > req->conn->max_transact ||
	    !req->open->is_dir) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((req->open->access_mask & SMB2_FILE_LIST_DIRECTORY) == 0) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

/*
 * Nothing to report and not allowed to wait: in a compound but last
 * (MS-SMB2 3.3.5.2.7: only the last element goes async; Samba cancels
 * the request, and CANCELLED is what the client sees), or too many
 * requests waiting on this connection.
 */
static NTSTATUS notify_cannot_wait(const struct smbd_request *req)
{
	if (req->pdu->hdr.next_command != 0) {
		return NT_STATUS_CANCELLED;
	}
	return NT_STATUS_INSUFFICIENT_RESOURCES;
}

struct tevent_req *smbd_notify_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct smbd_request *req)
{
	struct smb2_notify_state *state = NULL;
	struct tevent_req *result = tevent_req_create(mem_ctx, &state,
						      struct smb2_notify_state);
	struct smb2_change_notify_req r;
	struct smbd_open_notify *on = NULL;
	NTSTATUS status;

	if (result == NULL) {
		return NULL;
	}
	state->req = result;
	status = notify_check(req, &r);
	if (NT_STATUS_IS_OK(status)) {
		status = open_notify_get(req, ev, &r, &on);
	}
	if (tevent_req_nterror(result, status)) {
		return tevent_req_post(result, ev);
	}
	state->max_len = r.output_buffer_length;
	if (smbd_notify_pending(on->w)) {
		notify_answer(result, state, on->w);
		return tevent_req_post(result, ev);
	}
	if (!req->may_go_async) {
		tevent_req_nterror(result, notify_cannot_wait(req));
		return tevent_req_post(result, ev);
	}
	req->go_async = true;
	state->on = on;
	DLIST_ADD_END_SIMPLE(on->waiting, state);
	talloc_set_destructor(state, notify_state_destructor);
	tevent_req_set_cancel_fn(result, notify_cancel);
	return result;
}

NTSTATUS smbd_notify_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			  struct smbd_response *rsp)
{
	struct smb2_notify_state *state = tevent_req_data(
		subreq, struct smb2_notify_state);
	state->rsp.status = NT_STATUS_OK;
	return smbd_response_recv(subreq, mem_ctx, &state->rsp, rsp);
}
