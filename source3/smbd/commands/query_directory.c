/*
 * QUERY_DIRECTORY (MS-SMB2 3.3.5.18).  The enumeration itself, and the
 * state that lets a listing resume across calls, live in dir.c.
 */
#include "lib/util/debug.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/dir.h"

static NTSTATUS qdir_check(const struct smbd_request *req,
			   const struct smb2_query_directory_req *r)
{
	size_t fixed = smb2_dirent_fixed_size(r->file_information_class);

	if (!req->open->is_dir) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (r->output_buffer_length > req->conn->max_transact) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (fixed == 0) {
		return NT_STATUS_INVALID_INFO_CLASS;
	}
	/* MS-FSA 2.1.5.6.3: below FieldOffset(FileName) */
	if (r->output_buffer_length < fixed) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	return NT_STATUS_OK;
}

static NTSTATUS qdir_run(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			 struct smbd_response *rsp)
{
	struct smb2_query_directory_req r;
	struct smbd_dir_query q = {};
	struct smb2_blob output = {};
	uint8_t *buf = NULL;
	char *pattern = NULL;
	NTSTATUS status = smb2_query_directory_req_pull(req->pdu, &r);

	if (NT_STATUS_IS_OK(status)) {
		status = qdir_check(req, &r);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smb2_utf16_to_utf8(mem_ctx, r.name.data, r.name.len,
					    &pattern);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	q = (struct smbd_dir_query) {
		.info_class = r.file_information_class, .flags = r.flags,
		.pattern = pattern, .max_len = r.output_buffer_length,
	};
	status = smbd_dir_query(mem_ctx, req->open, &q, &buf, &output.len);
	talloc_free(pattern);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	output.data = buf;
	rsp->body = smb2_query_directory_rsp_push(mem_ctx, &output,
						  &rsp->body_len);
	talloc_free(buf);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

struct tevent_req *smbd_query_directory_send(TALLOC_CTX *mem_ctx,
					     struct tevent_context *ev,
					     struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status = qdir_run(mem_ctx, req, &rsp);

	if (!NT_STATUS_IS_OK(status) &&
	    !NT_STATUS_EQUAL(status, NT_STATUS_NO_MORE_FILES) &&
	    !NT_STATUS_EQUAL(status, NT_STATUS_NO_SUCH_FILE)) {
		DBG_INFO("%s: QUERY_DIRECTORY: %s\n", req->conn->peer,
			 nt_errstr(status));
	}
	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

NTSTATUS smbd_query_directory_recv(struct tevent_req *subreq,
				   TALLOC_CTX *mem_ctx,
				   struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
