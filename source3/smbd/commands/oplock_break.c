/*
 * OPLOCK_BREAK: the client's Oplock Break Acknowledgment (MS-SMB2
 * 2.2.24.1, 3.3.5.22.1) and Lease Break Acknowledgment (2.2.24.2,
 * 3.3.5.22.2).  The server's notifications (2.2.23) are unsolicited:
 * the pipeline sends them (pipeline/unsolicited.c).
 */
#include "lib/util/debug.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/oplock.h"

/* The lease is the client's (its ClientGuid), from any of its sessions. */
static NTSTATUS lease_ack(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			  const struct smb2_oplock_break_req *r,
			  struct smbd_response *rsp)
{
	uint32_t state = 0;
	NTSTATUS status = smbd_lease_ack(req->conn->server,
					 req->conn->client_guid, r->lease_key,
					 r->lease_state, &state);

	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: lease break acknowledgment (state %u) "
			 "refused: %s\n", req->conn->peer,
			 (unsigned)r->lease_state, nt_errstr(status));
		return status;
	}
	rsp->body = smb2_lease_break_rsp_push(mem_ctx, r->lease_key, state,
					      &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/* The acknowledgment; the pipeline found the open (oplock form only). */
static NTSTATUS break_ack(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			  struct smbd_response *rsp)
{
	struct smb2_oplock_break_req r;
	NTSTATUS status = smb2_oplock_break_req_pull(req->pdu, &r);
	uint8_t level = SMB2_OPLOCK_LEVEL_NONE;

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (r.is_lease) {
		return lease_ack(mem_ctx, req, &r, rsp);
	}
	status = smbd_oplock_ack(req->open, r.oplock_level, &level);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: oplock break acknowledgment (level %u) of %s "
			 "refused: %s\n", req->conn->peer, r.oplock_level,
			 req->open->name, nt_errstr(status));
		return status;
	}
	rsp->body = smb2_oplock_break_push(mem_ctx, level, &r.file_id,
					   &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

struct tevent_req *smbd_oplock_break_send(TALLOC_CTX *mem_ctx,
					  struct tevent_context *ev,
					  struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status = break_ack(mem_ctx, req, &rsp);

	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

NTSTATUS smbd_oplock_break_recv(struct tevent_req *subreq,
				TALLOC_CTX *mem_ctx,
				struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
