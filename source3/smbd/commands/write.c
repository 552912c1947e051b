/*
 * WRITE (MS-SMB2 3.3.5.13).  The data goes to the share's VFS stack
 * straight from the request PDU (no copy); the response is sent only once
 * the VFS has taken every byte (vfs_pwrite writes all or fails) and, for
 * WRITE_THROUGH, once an fsync has completed: an answered WRITE_THROUGH
 * is on disk.
 *
 * The data lives in the compound's receive buffer, which the pipeline
 * frees with the connection.  With vfs_io_uring the kernel reads that
 * buffer when it runs the SQE, so a WRITE freed while its pwrite is in
 * the ring hands the pwrite and a reference on the buffer to the server
 * (smb2_write_orphan): both go when the CQE arrives, never before.
 *
 * Splice write mode ("smb2 write mode = splice"): the transport received
 * the data of a lone unsigned WRITE into pipes (req->in_splice) instead
 * of memory; it goes pipe -> file through the VFS.  A stack that cannot
 * splice (vfs_noop) gets the bytes read out of the pipes into memory.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include "lib/util/debug.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/commands/pipe.h"
#include "source3/smbd/files/write_time.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/brlock.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/transport/splice_pipe.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

/* MS-FSA 2.1.5.4: ByteOffset -1 on an append-only open means EOF. */
#define SMB2_WRITE_OFFSET_EOF UINT64_MAX

#define SMB2_WRITE_ACCESS (SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA)

struct smb2_write_state {
	struct tevent_context *ev;
	struct smbd_server *server;
	void *pdu_owner;                /* talloc chunk holding the data */
	struct smb2_write_req w;
	uint64_t offset;                /* where the data goes */
	struct vfs_fh *fh;
	bool sync;                      /* WRITE_THROUGH */
	struct tevent_req *pwrite;      /* in flight, else NULL */
	struct smbd_conn *conn;
	struct smbd_splice *sp;         /* the data in pipes, or NULL */
	uint8_t *copy;                  /* sp read into memory (fallback) */
	struct smbd_response rsp;
};

static void smb2_write_spliced(struct tevent_req *subreq);

static void smb2_write_written(struct tevent_req *subreq);
static void smb2_write_synced(struct tevent_req *subreq);
static void smb2_write_after(struct tevent_req *req,
			     struct smb2_write_state *state);

/* Request fields, in MS-SMB2 3.3.5.13 order (Samba agrees). */
static NTSTATUS smb2_write_check_req(const struct smbd_request *req,
				     const struct smb2_write_req *w)
{
	if (req->open->is_dir) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (w->length > req->conn->max_write) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (w->channel != SMB2_CHANNEL_NONE) {
		return NT_STATUS_INVALID_PARAMETER;     /* RDMA on TCP */
	}
	return NT_STATUS_OK;
}

/*
 * Access, then the range.  An open with APPEND_DATA but not
 * WRITE_DATA may only append: Offset 2^64-1 means the end of the file
 * (MS-FSA 2.1.5.4), and so does an Offset that is the current end of
 * file (clients fill a file they just created from offset 0 on such a
 * handle: smbtorture's copychunk setup; Windows takes it).  Any other
 * offset would touch existing bytes or leave a hole: ACCESS_DENIED.
 */
static NTSTATUS smb2_write_check_access(const struct smbd_request *req,
					const struct smb2_write_req *w,
					uint64_t *offset)
{
	const struct smbd_open *open = req->open;
	uint32_t access = open->access_mask & SMB2_WRITE_ACCESS;
	struct statx st;
	NTSTATUS status;

	if (access == 0 || open->fh->is_path_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	*offset = w->offset;
	if (access == SMB2_FILE_APPEND_DATA) {
		status = vfs_fstat(open->fh, &st);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		if (w->offset != SMB2_WRITE_OFFSET_EOF &&
		    w->offset != st.stx_size) {
			return NT_STATUS_ACCESS_DENIED;
		}
		*offset = st.stx_size;
	}
	if (*offset > INT64_MAX || w->length > INT64_MAX - *offset) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* no byte past the largest file Windows has (smb2.rw.invalid) */
	if (w->length > 0 && *offset + w->length > SMB2_MAX_FILE_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static NTSTATUS smb2_write_prepare(struct smbd_request *req,
				  struct smb2_write_state *state)
{
	NTSTATUS status = smb2_write_req_pull(req->pdu, &state->w);

	if (NT_STATUS_IS_OK(status)) {
		status = smb2_write_check_req(req, &state->w);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smb2_write_check_access(req, &state->w,
						 &state->offset);
	}
	if (NT_STATUS_IS_OK(status)) {
		/* another open's lock, or our own shared one (brlock.h) */
		status = smbd_lock_check_io(req->open, state->offset,
					    state->w.length, true);
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: WRITE refused: %s\n", req->conn->peer,
			 nt_errstr(status));
		return status;
	}
	/* level II holders stop caching reads (MS-FSA 2.1.4.12) */
	smbd_oplock_contend_level2(req->open);
	smbd_write_time_before_write(req->open);
	req->open->written = true;      /* its directory's leases: at close */
	state->fh = req->open->fh;
	state->sync = (state->w.flags & SMB2_WRITEFLAG_WRITE_THROUGH) ||
		(req->open->create_options & SMB2_FILE_WRITE_THROUGH);
	state->server = req->conn->server;
	state->pdu_owner = req->pdu_owner;
	return NT_STATUS_OK;
}

static void smb2_write_orphan_done(struct tevent_req *subreq)
{
	TALLOC_FREE(subreq);    /* and with it the buffer reference */
}

/*
 * Freed with the pwrite in the ring (the connection went away): the
 * kernel may still read the data, so the pwrite and the buffer outlive
 * us under the server until the CQE.  Without a ring
 * the pwrite is already done and simply freed.
 */
static int smb2_write_orphan(struct smb2_write_state *state)
{
	struct tevent_req *subreq = state->pwrite;

	if (subreq == NULL || !tevent_req_is_in_progress(subreq) ||
	    state->pdu_owner == NULL) {
		return 0;
	}
	talloc_steal(state->server, subreq);
	if (talloc_reference(subreq, state->pdu_owner) == NULL) {
		DBG_ERR("out of memory keeping a WRITE buffer in flight\n");
	}
	tevent_req_set_callback(subreq, smb2_write_orphan_done, NULL);
	state->pwrite = NULL;
	return 0;
}

static bool smb2_write_respond(struct tevent_req *req,
			       struct smb2_write_state *state)
{
	struct smb2_write_rsp out = { .count = state->w.length };

	state->rsp.body = smb2_write_rsp_push(state, &out,
					      &state->rsp.body_len);
	if (tevent_req_nomem(state->rsp.body, req)) {
		return false;
	}
	tevent_req_done(req);
	return true;
}

struct tevent_req *smbd_write_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct smbd_request *req)
{
	struct smb2_write_state *state = NULL;
	struct tevent_req *result = NULL;
	struct tevent_req *subreq = NULL;

	if (req->open->pipe != NULL) {
		return smbd_pipe_write_send(mem_ctx, ev, req);
	}
	result = tevent_req_create(mem_ctx, &state, struct smb2_write_state);
	if (result == NULL) {
		return NULL;
	}
	state->ev = ev;
	if (tevent_req_nterror(result, smb2_write_prepare(req, state))) {
		return tevent_req_post(result, ev);
	}
	if (state->w.length == 0) {
		/* nothing to write, nothing to sync */
		smb2_write_respond(result, state);
		return tevent_req_post(result, ev);
	}
	if (state->w.data_external) {
		state->conn = req->conn;
		state->sp = req->in_splice;
		req->in_splice = NULL;
		if (state->sp == NULL) {
			tevent_req_nterror(result, NT_STATUS_INTERNAL_ERROR);
			return tevent_req_post(result, ev);
		}
		subreq = vfs_splice_write_send(state, ev, state->fh,
					       state->sp->src, state->sp->nsrc,
					       state->offset, state->sp);
		if (tevent_req_nomem(subreq, result)) {
			return tevent_req_post(result, ev);
		}
		tevent_req_set_callback(subreq, smb2_write_spliced, result);
		return result;
	}
	state->pwrite = vfs_pwrite_send(state, ev, state->fh,
					state->w.data.data, state->w.length,
					state->offset);
	if (tevent_req_nomem(state->pwrite, result)) {
		return tevent_req_post(result, ev);
	}
	talloc_set_destructor(state, smb2_write_orphan);
	tevent_req_set_callback(state->pwrite, smb2_write_written, result);
	return result;
}

/* The pipes' bytes into memory, for a stack that cannot splice. */
static bool smb2_write_unsplice(struct smb2_write_state *state)
{
	struct smbd_splice *sp = state->sp;
	size_t got = 0;
	unsigned i;

	state->copy = talloc_size(state, state->w.length + 1);
	if (state->copy == NULL) {
		return false;
	}
	for (i = 0; i < sp->nsrc; i++) {
		size_t have = 0;

		while (have < sp->src[i].len) {
			ssize_t n = read(sp->src[i].pipe_rd, state->copy + got,
					 sp->src[i].len - have);

			if (n < 0 && errno == EINTR) {
				continue;
			}
			if (n <= 0) {
				return false;   /* the transport filled them */
			}
			have += (size_t)n;
			got += (size_t)n;
		}
	}
	return got == state->w.length;
}

static void smb2_write_spliced(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct smb2_write_state *state = tevent_req_data(
		req, struct smb2_write_state);
	size_t nwritten = 0;
	int ret = vfs_splice_write_recv(subreq, &nwritten);

	TALLOC_FREE(subreq);
	if (ret == -ENOSYS && nwritten == 0) {
		if (!smb2_write_unsplice(state)) {
			tevent_req_nterror(req, NT_STATUS_INTERNAL_ERROR);
			return;
		}
		smbd_splice_put(state->conn, state->sp);        /* emptied */
		state->sp = NULL;
		/* the copy is ours: no orphan handling needed */
		state->pdu_owner = NULL;
		state->pwrite = vfs_pwrite_send(state, state->ev, state->fh,
						state->copy, state->w.length,
						state->offset);
		if (tevent_req_nomem(state->pwrite, req)) {
			return;
		}
		tevent_req_set_callback(state->pwrite, smb2_write_written,
					req);
		return;
	}
	if (ret < 0 || nwritten != state->w.length) {
		/* the pipes may hold the rest: closed with sp, never reused */
		tevent_req_nterror(req, ret < 0 ? vfs_errno_status(ret) :
				   NT_STATUS_DISK_FULL);
		return;
	}
	smbd_splice_put(state->conn, state->sp);
	state->sp = NULL;
	smb2_write_after(req, state);
}

static void smb2_write_written(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct smb2_write_state *state = tevent_req_data(
		req, struct smb2_write_state);
	size_t nwritten = 0;
	NTSTATUS status = vfs_pwrite_recv(subreq, &nwritten);

	state->pwrite = NULL;
	TALLOC_FREE(subreq);
	if (NT_STATUS_EQUAL(status, NT_STATUS_ALLOTTED_SPACE_EXCEEDED) &&
	    state->fh->stream != NULL) {
		/* past a stream's size limit: what Samba's WRITE answers */
		status = NT_STATUS_FILE_SYSTEM_LIMITATION;
	}
	if (tevent_req_nterror(req, status)) {
		return;
	}
	if (nwritten != state->w.length) {
		tevent_req_nterror(req, NT_STATUS_DISK_FULL);   /* never ACK */
		return;
	}
	smb2_write_after(req, state);
}

/* All bytes are in the VFS: acknowledge, after an fsync if asked. */
static void smb2_write_after(struct tevent_req *req,
			     struct smb2_write_state *state)
{
	struct tevent_req *subreq = NULL;

	if (!state->sync) {
		smb2_write_respond(req, state);
		return;
	}
	subreq = vfs_fsync_send(state, state->ev, state->fh);
	if (tevent_req_nomem(subreq, req)) {
		return;
	}
	tevent_req_set_callback(subreq, smb2_write_synced, req);
}

static void smb2_write_synced(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct smb2_write_state *state = tevent_req_data(
		req, struct smb2_write_state);
	NTSTATUS status = vfs_fsync_recv(subreq);

	TALLOC_FREE(subreq);
	if (tevent_req_nterror(req, status)) {
		return;
	}
	smb2_write_respond(req, state);
}

NTSTATUS smbd_write_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			 struct smbd_response *rsp)
{
	struct smb2_write_state *state = NULL;

	if (smbd_done_req(subreq)) {
		return smbd_done_recv(subreq, mem_ctx, rsp);   /* a pipe */
	}
	state = tevent_req_data(subreq, struct smb2_write_state);
	state->rsp.status = NT_STATUS_OK;
	return smbd_response_recv(subreq, mem_ctx, &state->rsp, rsp);
}
