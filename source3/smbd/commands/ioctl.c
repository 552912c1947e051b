/*
 * IOCTL (MS-SMB2 3.3.5.15): the checks every control code shares, the
 * FileId, and the dispatch by device type (MS-FSCC 2.3: CtlCode >> 16).
 * FSCTL_VALIDATE_NEGOTIATE_INFO is answered here; the others in
 * commands/ioctl_copychunk.c, commands/ioctl_filesys.c and commands/ioctl_network.c.
 * A code nobody answers gets INVALID_DEVICE_REQUEST, as Samba gives on a
 * disk share; never a silent success (docs/protocol.md).
 */
#include <string.h>
#include "lib/util/debug.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/session/signing.h"
#include "source3/smbd/commands/ioctl.h"
#include "source3/smbd/commands/pipe.h"
#include "source3/smbd/transport/transport.h"

/*
 * 3.3.5.15.12: anything that differs from what NEGOTIATE saw means the
 * NEGOTIATE was tampered with: the connection is dropped.  A request
 * that does not even parse differs.
 */
static bool vneg_matches(const struct smbd_conn *conn, const uint8_t *in,
			 size_t len)
{
	struct smb2_validate_negotiate_req v;
	size_t i;

	if (!NT_STATUS_IS_OK(smb2_validate_negotiate_req_pull(in, len, &v)) ||
	    v.dialect_count != conn->num_client_dialects ||
	    v.capabilities != conn->client_caps ||
	    memcmp(v.guid, conn->client_guid, sizeof(v.guid)) != 0 ||
	    v.security_mode != conn->client_security_mode) {
		return false;
	}
	for (i = 0; i < v.dialect_count; i++) {
		if (smb2_validate_negotiate_dialect(&v, i) !=
		    conn->client_dialects[i]) {
			return false;
		}
	}
	return true;
}

static uint8_t *vneg_response(TALLOC_CTX *mem_ctx, struct smbd_conn *conn,
			      const struct smb2_ioctl_req *r, size_t *len)
{
	struct smb2_validate_negotiate_rsp v = {
		.capabilities = conn->server_caps,
		.security_mode = smbd_signing_security_mode(conn->server,
							    conn->dialect),
		.dialect = conn->dialect,
	};
	uint8_t out[SMB2_VNEG_RSP_SIZE];
	struct smb2_ioctl_rsp rsp = {
		.ctl_code = r->ctl_code, .file_id = r->file_id,
		.output = { out, sizeof(out) },
	};

	memcpy(v.guid, conn->server->server_guid, sizeof(v.guid));
	if (smb2_validate_negotiate_rsp_push(&v, out, sizeof(out)) !=
	    sizeof(out)) {
		return NULL;
	}
	return smb2_ioctl_rsp_push(mem_ctx, &rsp, len);
}

static NTSTATUS validate_negotiate(TALLOC_CTX *mem_ctx,
				   struct smbd_request *req,
				   const struct smb2_ioctl_req *r,
				   struct smbd_response *rsp)
{
	struct smbd_conn *conn = req->conn;

	if (conn->dialect == SMB2_DIALECT_0311 ||
	    !vneg_matches(conn, r->input.data, r->input.len)) {
		smbd_conn_terminate(conn, "VALIDATE_NEGOTIATE_INFO mismatch");
		return NT_STATUS_ACCESS_DENIED;
	}
	if (r->max_output_response < SMB2_VNEG_RSP_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	rsp->body = vneg_response(mem_ctx, conn, r, &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

uint8_t *smbd_ioctl_output(struct smbd_ioctl *io, size_t len)
{
	/* one spare byte: an empty output still has a talloc chunk */
	io->out = talloc_zero_size(io->mem_ctx, len + 1);
	io->out_len = len;
	io->have_output = io->out != NULL;
	return io->out;
}

/*
 * Codes that work without a file (FileId all 0xFF), as Samba lets them;
 * any other code without one is FILE_CLOSED.
 */
static bool fsctl_needs_no_file(uint32_t code)
{
	return code == FSCTL_DFS_GET_REFERRALS ||
	       code == FSCTL_DFS_GET_REFERRALS_EX ||
	       code == FSCTL_PIPE_WAIT ||
	       code == FSCTL_QUERY_NETWORK_INTERFACE_INFO;
}

/*
 * The pipeline resolved the FileId (also a related compound's), or it was
 * all 0xFF outside a related compound and req->open is NULL.
 */
static NTSTATUS ioctl_find_open(struct smbd_ioctl *io)
{
	if (io->req->open == NULL) {
		return fsctl_needs_no_file(io->r->ctl_code) ?
			NT_STATUS_OK : NT_STATUS_FILE_CLOSED;
	}
	/* 3.3.5.15.11: asked with a FileId at all (smbtorture checks it) */
	if (io->r->ctl_code == FSCTL_QUERY_NETWORK_INTERFACE_INFO) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	io->open = io->req->open;
	/* a pipe answers the pipe FSCTLs only (commands/pipe.c) */
	if (io->open->pipe != NULL &&
	    (io->r->ctl_code >> 16) != FSCTL_DEVICE_NAMED_PIPE) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	return NT_STATUS_OK;
}

/*
 * DFS referrals on a share that is no DFS root, and named-pipe codes on
 * a disk share: the statuses Samba 4.17 gives.
 */
static NTSTATUS fsctl_dfs(const struct smbd_ioctl *io)
{
	if (io->open != NULL) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return io->r->ctl_code == FSCTL_DFS_GET_REFERRALS ?
		NT_STATUS_NOT_FOUND : NT_STATUS_INVALID_DEVICE_REQUEST;
}

static NTSTATUS fsctl_pipe(struct smbd_ioctl *io)
{
	switch (io->r->ctl_code) {
	case FSCTL_PIPE_WAIT:
		return io->open != NULL ? NT_STATUS_INVALID_PARAMETER :
			NT_STATUS_INVALID_DEVICE_REQUEST;
	case FSCTL_PIPE_TRANSCEIVE:
	case FSCTL_PIPE_PEEK:
		if (io->open != NULL && io->open->pipe != NULL) {
			return smbd_pipe_fsctl(io);
		}
		/* not a pipe: as Samba answers outside IPC$ */
		return io->r->ctl_code == FSCTL_PIPE_TRANSCEIVE ?
			NT_STATUS_NOT_SUPPORTED :
			NT_STATUS_INVALID_DEVICE_REQUEST;
	default:
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
}

static NTSTATUS fsctl_network_fs(struct smbd_ioctl *io)
{
	switch (io->r->ctl_code) {
	case FSCTL_SRV_REQUEST_RESUME_KEY:
		return smbd_fsctl_resume_key(io);
	case FSCTL_SRV_COPYCHUNK:
	case FSCTL_SRV_COPYCHUNK_WRITE:
		return smbd_fsctl_copychunk(io);
	case FSCTL_QUERY_NETWORK_INTERFACE_INFO:
		return smbd_fsctl_net_iface(io);
	default:
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
}

static NTSTATUS fsctl_dispatch(struct smbd_ioctl *io)
{
	NTSTATUS status = ioctl_find_open(io);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	switch (io->r->ctl_code >> 16) {
	case FSCTL_DEVICE_DFS:
		return fsctl_dfs(io);
	case FSCTL_DEVICE_NAMED_PIPE:
		return fsctl_pipe(io);
	case FSCTL_DEVICE_NETWORK_FS:
		return fsctl_network_fs(io);
	case FSCTL_DEVICE_FILESYSTEM:
		return smbd_fsctl_filesys(io);
	default:
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
}

/* MS-SMB2 3.3.5.15: before any control code is looked at. */
static NTSTATUS ioctl_check(const struct smbd_conn *conn,
			    const struct smb2_ioctl_req *r)
{
	if (r->input.len > conn->max_transact ||
	    r->output.len > conn->max_transact ||
	    r->max_output_response > conn->max_transact) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!(r->flags & SMB2_0_IOCTL_IS_FSCTL)) {
		return NT_STATUS_NOT_SUPPORTED;	/* device IOCTLs */
	}
	return NT_STATUS_OK;
}

/*
 * A handler's result: an error alone, or the IOCTL body (with an empty
 * output when the handler has none) and the status.
 */
static NTSTATUS ioctl_respond(struct smbd_ioctl *io, NTSTATUS status,
			      struct smbd_response *rsp)
{
	struct smb2_ioctl_rsp out = {
		.ctl_code = io->r->ctl_code, .file_id = io->r->file_id,
		.output = { io->out, io->out_len },
	};

	if (NT_STATUS_IS_ERR(status) && !io->have_output) {
		return status;
	}
	rsp->status = status;
	rsp->body = smb2_ioctl_rsp_push(io->mem_ctx, &out, &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

struct tevent_req *smbd_ioctl_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	struct smb2_ioctl_req r = {};
	struct smbd_ioctl io = { .mem_ctx = mem_ctx, .req = req, .r = &r };
	NTSTATUS status = smb2_ioctl_req_pull(req->pdu, &r);

	if (NT_STATUS_IS_OK(status)) {
		status = ioctl_check(req->conn, &r);
	}
	if (NT_STATUS_IS_OK(status) &&
	    r.ctl_code == FSCTL_VALIDATE_NEGOTIATE_INFO) {
		status = validate_negotiate(mem_ctx, req, &r, &rsp);
	} else if (NT_STATUS_IS_OK(status)) {
		io.max_out = r.max_output_response;
		status = ioctl_respond(&io, fsctl_dispatch(&io), &rsp);
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: FSCTL 0x%08x: %s\n", req->conn->peer,
			 r.ctl_code, nt_errstr(status));
	}
	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

NTSTATUS smbd_ioctl_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			 struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
