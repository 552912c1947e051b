/*
 * FLUSH (MS-SMB2 3.3.5.11).  With `strict sync = yes` (the default, as in
 * Samba) the response follows a completed fsync through the VFS stack,
 * so an answered FLUSH is on disk; with `strict sync = no` it is sent at once.
 */
#include "lib/util/debug.h"
#include "lib/util/tevent_ntstatus.h"
#include "lib/param/param.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/write_time.h"
#include "source3/smbd/commands/commands.h"

/*
 * FILE_WRITE_DATA / FILE_APPEND_DATA, which on a directory are
 * FILE_ADD_FILE / FILE_ADD_SUBDIRECTORY: Samba (and Windows) flush a
 * directory opened with either, and refuse every other open.
 */
#define SMB2_FLUSH_ACCESS (SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA)

struct smb2_flush_state {
	struct smbd_response rsp;
};

static void smb2_flush_synced(struct tevent_req *subreq);

static NTSTATUS smb2_flush_check(const struct smbd_request *req)
{
	struct smb2_flush_req r;
	NTSTATUS status = smb2_flush_req_pull(req->pdu, &r);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if ((req->open->access_mask & SMB2_FLUSH_ACCESS) == 0 ||
	    req->open->fh->is_path_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

static void smb2_flush_respond(struct tevent_req *req,
			       struct smb2_flush_state *state)
{
	state->rsp.body = smb2_flush_rsp_push(state, &state->rsp.body_len);
	if (tevent_req_nomem(state->rsp.body, req)) {
		return;
	}
	tevent_req_done(req);
}

struct tevent_req *smbd_flush_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct smbd_request *req)
{
	struct smb2_flush_state *state = NULL;
	struct tevent_req *result = tevent_req_create(mem_ctx, &state,
						      struct smb2_flush_state);
	struct tevent_req *subreq = NULL;

	if (result == NULL) {
		return NULL;
	}
	if (tevent_req_nterror(result, smb2_flush_check(req))) {
		DBG_INFO("%s: FLUSH refused\n", req->conn->peer);
		return tevent_req_post(result, ev);
	}
	smbd_write_time_flush(req->open);       /* a pending update: now */
	if (!req->tcon->share->strict_sync) {
		smb2_flush_respond(result, state);
		return tevent_req_post(result, ev);
	}
	subreq = vfs_fsync_send(state, ev, req->open->fh);
	if (tevent_req_nomem(subreq, result)) {
		return tevent_req_post(result, ev);
	}
	tevent_req_set_callback(subreq, smb2_flush_synced, result);
	return result;
}

static void smb2_flush_synced(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct smb2_flush_state *state = tevent_req_data(
		req, struct smb2_flush_state);
	NTSTATUS status = vfs_fsync_recv(subreq);

	TALLOC_FREE(subreq);
	if (tevent_req_nterror(req, status)) {
		return;
	}
	smb2_flush_respond(req, state);
}

NTSTATUS smbd_flush_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			 struct smbd_response *rsp)
{
	struct smb2_flush_state *state = tevent_req_data(
		subreq, struct smb2_flush_state);
	state->rsp.status = NT_STATUS_OK;
	return smbd_response_recv(subreq, mem_ctx, &state->rsp, rsp);
}
