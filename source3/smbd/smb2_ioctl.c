/*
 * IOCTL (MS-SMB2 3.3.5.15).  Only FSCTL_VALIDATE_NEGOTIATE_INFO so far,
 * which SMB 3.0/3.0.2 clients send on every signed tree connect to detect
 * a downgraded NEGOTIATE; every other control code answers
 * STATUS_NOT_SUPPORTED (docs/protocol.md).
 */
#include <string.h>
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "source3/smbd/server.h"
#include "source3/smbd/signing.h"

/* VALIDATE_NEGOTIATE_INFO request (2.2.31.4) and response (2.2.32.6) */
#define VNEG_REQ_FIXED 24
#define VNEG_RSP_SIZE 24

/*
 * 3.3.5.15.12: anything that differs from what NEGOTIATE saw means the
 * NEGOTIATE was tampered with: the connection is dropped.
 */
static bool vneg_matches(const struct smbd_conn *conn, const uint8_t *in,
			 size_t len)
{
	uint16_t count;
	size_t i;

	if (len < VNEG_REQ_FIXED) {
		return false;
	}
	count = pull_le16(in + 22);
	if (count == 0 || count != conn->num_client_dialects ||
	    len - VNEG_REQ_FIXED < 2 * (size_t)count) {
		return false;
	}
	if (pull_le32(in) != conn->client_caps ||
	    memcmp(in + 4, conn->client_guid, 16) != 0 ||
	    pull_le16(in + 20) != conn->client_security_mode) {
		return false;
	}
	for (i = 0; i < count; i++) {
		if (pull_le16(in + VNEG_REQ_FIXED + 2 * i) !=
		    conn->client_dialects[i]) {
			return false;
		}
	}
	return true;
}

static uint8_t *vneg_response(TALLOC_CTX *mem_ctx, struct smbd_conn *conn,
			      const struct smb2_ioctl_req *r, size_t *len)
{
	uint8_t out[VNEG_RSP_SIZE];
	struct smb2_ioctl_rsp rsp = {
		.ctl_code = r->ctl_code, .file_id = r->file_id,
		.output = { out, sizeof(out) },
	};

	push_le32(out, conn->server_caps);
	memcpy(out + 4, conn->server->server_guid, 16);
	push_le16(out + 20, smbd_signing_security_mode(conn->server));
	push_le16(out + 22, conn->dialect);
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
	if (r->max_output_response < VNEG_RSP_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	rsp->body = vneg_response(mem_ctx, conn, r, &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

struct tevent_req *smb2_ioctl_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	struct smb2_ioctl_req r;
	NTSTATUS status = smb2_ioctl_req_pull(req->pdu, &r);

	if (NT_STATUS_IS_OK(status) && !(r.flags & SMB2_0_IOCTL_IS_FSCTL)) {
		status = NT_STATUS_NOT_SUPPORTED;       /* device IOCTLs */
	}
	if (NT_STATUS_IS_OK(status)) {
		if (r.ctl_code == FSCTL_VALIDATE_NEGOTIATE_INFO) {
			status = validate_negotiate(mem_ctx, req, &r, &rsp);
		} else {
			DBG_INFO("%s: FSCTL 0x%08x not supported\n",
				 req->conn->peer, r.ctl_code);
			status = NT_STATUS_NOT_SUPPORTED;
		}
	}
	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

NTSTATUS smb2_ioctl_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			 struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
