/*
 * CLOSE (MS-SMB2 3.3.5.10).  The pipeline found the open; freeing it
 * closes the fd and drops it from the tcon's table.
 */
#include "lib/util/tevent_ntstatus.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"
#include "source3/smbd/files/write_time.h"

/* With POSTQUERY_ATTRIB the response carries the file's final state. */
static NTSTATUS close_attrib(struct smbd_open *open,
			     struct smb2_close_rsp *out)
{
	struct smb2_file_meta m;
	NTSTATUS status = smbd_open_meta(open, &m);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	out->flags = SMB2_CLOSE_FLAGS_POSTQUERY_ATTRIB;
	out->creation_time = m.create_time;
	out->last_access_time = m.access_time;
	out->last_write_time = m.write_time;
	out->change_time = m.change_time;
	out->allocation_size = m.allocation_size;
	out->end_of_file = m.end_of_file;
	out->file_attributes = m.attributes;
	return NT_STATUS_OK;
}

static NTSTATUS close_run(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			  struct smbd_response *rsp)
{
	struct smb2_close_rsp out = {};
	struct smb2_close_req r;
	NTSTATUS status = smb2_close_req_pull(req->pdu, &r);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* a write time held for this handle is settled first */
	smbd_write_time_close(req->open);
	if ((r.flags & SMB2_CLOSE_FLAGS_POSTQUERY_ATTRIB) &&
	    req->open->pipe == NULL) {
		status = close_attrib(req->open, &out);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	rsp->body = smb2_close_rsp_push(mem_ctx, &out, &rsp->body_len);
	if (rsp->body == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	TALLOC_FREE(req->open);
	return NT_STATUS_OK;
}

struct tevent_req *smbd_close_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status = close_run(mem_ctx, req, &rsp);

	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

NTSTATUS smbd_close_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			 struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
