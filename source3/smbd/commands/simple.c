/*
 * Helpers for commands that complete at once, and ECHO.
 */
#include "lib/util/tevent_ntstatus.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/smbd.h"

struct tevent_req *smbd_done_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  NTSTATUS status, struct smbd_response *rsp)
{
	struct smbd_done_state *state = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct smbd_done_state);

	if (req == NULL) {
		return NULL;
	}
	if (rsp != NULL) {
		state->rsp = *rsp;
		talloc_steal(state, rsp->body);
		talloc_steal(state, rsp->payload_owner);
	}
	if (!tevent_req_nterror(req, status)) {
		tevent_req_done(req);
	}
	return tevent_req_post(req, ev);
}

struct tevent_req *smbd_later_create(TALLOC_CTX *mem_ctx,
				     struct smbd_done_state **state)
{
	return tevent_req_create(mem_ctx, state, struct smbd_done_state);
}

bool smbd_done_req(struct tevent_req *subreq)
{
	return talloc_get_type(_tevent_req_data(subreq),
			       struct smbd_done_state) != NULL;
}

NTSTATUS smbd_response_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			    struct smbd_response *done,
			    struct smbd_response *rsp)
{
	NTSTATUS status;

	if (tevent_req_is_nterror(subreq, &status)) {
		return status;
	}
	*rsp = *done;
	talloc_steal(mem_ctx, rsp->body);
	talloc_steal(mem_ctx, rsp->payload_owner);
	talloc_steal(mem_ctx, rsp->splice);
	return NT_STATUS_OK;
}

NTSTATUS smbd_done_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp)
{
	struct smbd_done_state *state = tevent_req_data(
		subreq, struct smbd_done_state);

	return smbd_response_recv(subreq, mem_ctx, &state->rsp, rsp);
}

/* ECHO (MS-SMB2 3.3.5.13): an empty 4-byte response. */
struct tevent_req *smbd_echo_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };

	rsp.body = smb2_echo_rsp_push(mem_ctx, &rsp.body_len);
	if (rsp.body == NULL) {
		return smbd_done_send(mem_ctx, ev, NT_STATUS_NO_MEMORY, NULL);
	}
	return smbd_done_send(mem_ctx, ev, NT_STATUS_OK, &rsp);
}

NTSTATUS smbd_echo_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
