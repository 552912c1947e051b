/*
 * READ (MS-SMB2 3.3.5.12).  The data is read into its own talloc buffer
 * through the share's VFS stack (through the ring with vfs_io_uring) and
 * leaves as the response payload, a separate iovec after the 16-byte
 * body, so it is never copied again (STYLE.md rule 22).
 */
#include <stdint.h>
#include "lib/util/debug.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/brlock.h"
#include "source3/smbd/smbd_files.h"

struct smb2_read_state {
	struct smb2_read_req r;
	struct smbd_open *open;         /* for its position */
	uint8_t *buf;
	size_t nread;
	struct smbd_response rsp;
};

static void smb2_read_done(struct tevent_req *subreq);

/* Checks in MS-SMB2 3.3.5.12 order, plus the I/O range (STYLE 16). */
static NTSTATUS smb2_read_check(const struct smbd_request *req,
				const struct smb2_read_req *r)
{
	const struct smbd_open *open = req->open;

	if (open->is_dir) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (r->length > req->conn->max_read) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (r->offset > INT64_MAX || r->length > INT64_MAX - r->offset) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (r->channel != 0) {
		return NT_STATUS_INVALID_PARAMETER;     /* RDMA on TCP */
	}
	if ((open->access_mask & (SMB2_FILE_READ_DATA | SMB2_FILE_EXECUTE)) ==
	    0 || open->fh->is_path_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

static bool smb2_read_respond(struct tevent_req *req,
			      struct smb2_read_state *state)
{
	struct smb2_read_rsp out = { .data_len = (uint32_t)state->nread };

	state->rsp.body = smb2_read_rsp_push(state, &out,
					     &state->rsp.body_len);
	if (tevent_req_nomem(state->rsp.body, req)) {
		return false;
	}
	state->rsp.payload = state->buf;
	state->rsp.payload_len = state->nread;
	state->rsp.payload_owner = state->buf;
	return true;
}

struct tevent_req *smb2_read_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req)
{
	struct smb2_read_state *state = NULL;
	struct tevent_req *result = tevent_req_create(mem_ctx, &state,
						      struct smb2_read_state);
	struct tevent_req *subreq = NULL;
	NTSTATUS status;

	if (result == NULL) {
		return NULL;
	}
	status = smb2_read_req_pull(req->pdu, &state->r);
	if (NT_STATUS_IS_OK(status)) {
		status = smb2_read_check(req, &state->r);
	}
	if (NT_STATUS_IS_OK(status)) {
		/* another open's exclusive lock (brlock.h) */
		status = smbd_lock_check_io(req->open, state->r.offset,
					    state->r.length, false);
	}
	if (tevent_req_nterror(result, status)) {
		DBG_INFO("%s: READ refused: %s\n", req->conn->peer,
			 nt_errstr(status));
		return tevent_req_post(result, ev);
	}
	/* one spare byte: a 0-byte read still has a talloc chunk */
	state->buf = talloc_size(state, (size_t)state->r.length + 1);
	if (tevent_req_nomem(state->buf, result)) {
		return tevent_req_post(result, ev);
	}
	state->open = req->open;
	subreq = vfs_pread_send(state, ev, req->open->fh, state->buf,
				state->r.length, state->r.offset);
	if (tevent_req_nomem(subreq, result)) {
		return tevent_req_post(result, ev);
	}
	tevent_req_set_callback(subreq, smb2_read_done, result);
	return result;
}

/*
 * Nothing read (at or past EOF), or less than MinimumCount:
 * END_OF_FILE.  A zero-length READ succeeds with no data.
 */
static void smb2_read_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct smb2_read_state *state = tevent_req_data(req,
						struct smb2_read_state);
	NTSTATUS status = vfs_pread_recv(subreq, &state->nread);

	TALLOC_FREE(subreq);
	if (tevent_req_nterror(req, status)) {
		return;
	}
	if ((state->nread == 0 && state->r.length > 0) ||
	    state->nread < state->r.minimum_count) {
		tevent_req_nterror(req, NT_STATUS_END_OF_FILE);
		return;
	}
	/*
	 * FilePositionInformation follows reads, as in Samba (smbtorture
	 * smb2.read.position).  The open outlives this request: requests
	 * on a connection run one at a time, and a dropped connection
	 * frees the request with the open.
	 */
	state->open->position = state->r.offset + state->nread;
	if (!smb2_read_respond(req, state)) {
		return;
	}
	tevent_req_done(req);
}

NTSTATUS smb2_read_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp)
{
	struct smb2_read_state *state = tevent_req_data(
		subreq, struct smb2_read_state);
	NTSTATUS status;

	if (tevent_req_is_nterror(subreq, &status)) {
		return status;
	}
	state->rsp.status = NT_STATUS_OK;
	*rsp = state->rsp;
	talloc_steal(mem_ctx, rsp->body);
	talloc_steal(mem_ctx, rsp->payload_owner);
	return NT_STATUS_OK;
}
