/*
 * READ (MS-SMB2 3.3.5.12), in one of the data path's modes ("smb2 read
 * mode", docs/architecture.md, "Data path modes"):
 *
 * copy: the data is read into its own talloc buffer through the share's
 * VFS stack (through the ring with vfs_io_uring) and leaves as the
 * response payload, a separate iovec after the 16-byte body, so it is
 * never copied again.
 *
 * splice: the VFS moves the file's pages into pipes of the connection
 * (no copy), every pipe's range at once; the response promises exactly
 * the bytes that are in the pipes, and the transport sends header +
 * pipes.  Only for a lone request
 * whose response is neither signed nor encrypted, of at least "min splice
 * size" bytes, with a ring that can splice; otherwise, or when the stack
 * cannot splice (vfs_noop, a file system without splice_read) or no pipe
 * is free, the READ is copied.
 *
 * auto (the default): splice as above, but only while no open of the
 * file on this server has write or append access, so that no SMB client
 * can change pages already lent to the socket; copy otherwise.  A local
 * process writing the file still can (docs/architecture.md).
 *
 * mapped (auto, a READ that is not spliced: signed, encrypted, in a
 * compound, no pipe free or no ring): the payload points into a
 * read-only mapping of the file held under a read lease
 * (files/read_map.h), so the bytes are not copied before they are
 * signed and sent, or encrypted into a buffer of the encryption's own
 * (payload_ro).  When the conditions there do not hold, copy.
 *
 * zerocopy: as copy, sent with SENDMSG_ZC; with "io_uring:registered
 * buffers" the buffer comes from the worker's registered pool when one
 * is free (READ_FIXED, then SEND_ZC from the fixed buffer).
 */
#include <errno.h>
#include <stdint.h>
#include "lib/util/debug.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/commands/pipe.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/brlock.h"
#include "source3/smbd/files/read_map.h"
#include "source3/smbd/transport/splice_pipe.h"
#include "lib/param/param.h"
#include "lib/uring/uring.h"

struct smb2_read_state {
	struct tevent_context *ev;
	struct smbd_conn *conn;
	struct smb2_read_req r;
	struct smbd_open *open;         /* for its position */
	uint8_t *buf;
	void *buf_owner;                /* buf, or its registered buffer */
	const uint8_t *mapped;          /* mapped: the bytes, owned by buf_owner */
	struct tevent_req *copy;        /* copy mode: the VFS read in flight */
	int regbufs;                    /* "io_uring:registered buffers" */
	struct smbd_splice *sp;         /* splice mode: the pipes */
	/* splice mode: one file -> pipe splice per pipe, all in flight */
	struct tevent_req *sub[SMBD_SPLICE_READ_PIPES];
	size_t got[SMBD_SPLICE_READ_PIPES];
	int ret[SMBD_SPLICE_READ_PIPES];
	unsigned pending;
	bool zerocopy;                  /* zerocopy mode */
	int min_size;                   /* "min splice size" */
	size_t nread;
	struct smbd_response rsp;
};

static void smb2_read_done(struct tevent_req *subreq);
static void smb2_read_spliced(struct tevent_req *subreq);
static void smb2_read_finish(struct tevent_req *req,
			     struct smb2_read_state *state);

/* Checks in MS-SMB2 3.3.5.12 order, plus the I/O range. */
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
	if (state->sp != NULL) {
		state->rsp.splice = state->sp;
		state->rsp.splice_len = state->nread;
		state->sp = NULL;
		return true;
	}
	state->rsp.payload = state->mapped != NULL ? state->mapped :
			     state->buf;
	state->rsp.payload_len = state->nread;
	state->rsp.payload_owner = state->buf_owner;
	state->rsp.payload_ro = state->mapped != NULL;
	state->rsp.zerocopy = state->zerocopy &&
		state->nread >= (size_t)state->min_size;
	return true;
}

/* Whether this READ may go file -> pipe -> socket (see the top). */
static bool smb2_read_may_splice(const struct smbd_request *req,
				 const struct smb2_read_req *r)
{
	const struct lp_share *share = req->tcon->share;
	struct uring *ring = req->conn->ring;

	if (share->read_mode != LP_READ_MODE_AUTO &&
	    share->read_mode != LP_READ_MODE_SPLICE) {
		return false;
	}
	if (!req->may_splice || r->length == 0 ||
	    r->length < (uint32_t)share->min_splice_size ||
	    ring == NULL || !uring_op_supported(ring, IORING_OP_SPLICE)) {
		return false;
	}
	return share->read_mode == LP_READ_MODE_SPLICE ||
	       (req->open->file != NULL &&
		!smbd_file_has_writer(req->open->file));
}

/*
 * zerocopy mode with "io_uring:registered buffers": a buffer of the
 * worker's registered pool, so the file read is a READ_FIXED and the
 * send a SEND_ZC from the fixed buffer (lib/uring notices the memory).
 * NULL when the pool is off, cannot register or is all lent: the READ
 * then uses an ordinary buffer, with identical bytes.
 */
static struct uring_buf *smb2_read_regbuf(struct smb2_read_state *state)
{
	struct uring *ring = state->conn->ring;

	if (!state->zerocopy || state->regbufs == 0 ||
	    state->r.length < (uint32_t)state->min_size ||
	    uring_bufs_setup(ring, (unsigned)state->regbufs,
			     state->conn->max_read) != 0) {
		return NULL;
	}
	return uring_buf_get(state, ring, state->r.length);
}

/* copy mode: into a buffer of our own */
static struct tevent_req *smb2_read_copy(struct tevent_req *req,
					 struct smb2_read_state *state)
{
	struct tevent_req *subreq = NULL;
	struct uring_buf *rb = smb2_read_regbuf(state);

	/* the buffer itself is the talloc chunk the VFS keeps (keep) */
	state->buf = rb != NULL ? rb->data : NULL;
	state->buf_owner = rb;
	if (rb == NULL) {
		/* one spare byte: a 0-byte read still has a talloc chunk */
		state->buf = talloc_size(state, (size_t)state->r.length + 1);
		state->buf_owner = state->buf;
	}
	if (tevent_req_nomem(state->buf, req)) {
		return NULL;
	}
	subreq = vfs_pread_send(state, state->ev, state->open->fh, state->buf,
				state->r.length, state->r.offset);
	if (tevent_req_nomem(subreq, req)) {
		return NULL;
	}
	tevent_req_set_callback(subreq, smb2_read_done, req);
	state->copy = subreq;
	return subreq;
}

/*
 * CANCEL of a READ still waiting for the VFS (a disk that does not
 * answer; MS-SMB2 3.3.5.16): the read is dropped as a dropped connection
 * drops it (the VFS keeps the buffer until the kernel lets go of it) and
 * the READ answers STATUS_CANCELLED.  Splices are not cancelled: bytes
 * may already sit in the connection's pipes.
 */
static bool smb2_read_cancel(struct tevent_req *req)
{
	struct smb2_read_state *state = tevent_req_data(req,
						struct smb2_read_state);

	if (state->copy == NULL) {
		return false;
	}
	TALLOC_FREE(state->copy);
	tevent_req_defer_callback(req, state->ev);
	tevent_req_nterror(req, NT_STATUS_CANCELLED);
	return true;
}

/*
 * splice mode: each pipe's range of the file into it, all at once (one
 * submission, not one loop pass per pipe).  The pipes' ranges follow
 * each other (smbd_splice_get sized them); smb2_read_spliced keeps the
 * contiguous prefix.
 */
static bool smb2_read_splice_all(struct tevent_req *req,
				 struct smb2_read_state *state)
{
	struct smbd_splice *sp = state->sp;
	uint64_t off = state->r.offset;
	unsigned i;

	for (i = 0; i < sp->n; i++) {
		state->sub[i] = vfs_splice_read_send(state, state->ev,
						     state->open->fh,
						     sp->wr[i], sp->src[i].len,
						     off, sp);
		if (tevent_req_nomem(state->sub[i], req)) {
			return false;
		}
		tevent_req_set_callback(state->sub[i], smb2_read_spliced,
					req);
		state->pending++;
		off += sp->src[i].len;
	}
	return true;
}

/* Nothing read (at or past EOF), or less than MinimumCount. */
static bool smb2_read_short(const struct smb2_read_state *state)
{
	return (state->nread == 0 && state->r.length > 0) ||
	       state->nread < state->r.minimum_count;
}

/*
 * FilePositionInformation follows reads, as in Samba (smbtorture
 * smb2.read.position).  The open outlives this request: nothing that
 * frees an open (CLOSE, a tree disconnect, a logoff) starts while a READ
 * on the connection runs (pipeline_sched.c), and a dropped connection
 * frees the request with the open.
 */
static void smb2_read_finish(struct tevent_req *req,
			     struct smb2_read_state *state)
{
	state->open->position = state->r.offset + state->nread;
	if (!smb2_read_respond(req, state)) {
		return;
	}
	tevent_req_done(req);
}

/*
 * mapped: the bytes are in the file's mapping already (read_map.h), and
 * the READ is answered at once.  false: copy it.
 */
static bool smb2_read_mapped(struct tevent_req *req,
			     struct smb2_read_state *state,
			     const struct smbd_request *sreq)
{
	state->mapped = smbd_read_map_get(state, sreq, state->r.offset,
					  state->r.length, &state->nread,
					  &state->buf_owner);
	if (state->mapped == NULL) {
		return false;
	}
	if (smb2_read_short(state)) {
		tevent_req_nterror(req, NT_STATUS_END_OF_FILE);
		return true;
	}
	smb2_read_finish(req, state);
	return true;
}

struct tevent_req *smbd_read_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req)
{
	struct smb2_read_state *state = NULL;
	struct tevent_req *result = NULL;
	struct tevent_req *subreq = NULL;
	NTSTATUS status;

	if (req->open->pipe != NULL) {
		return smbd_pipe_read_send(mem_ctx, ev, req);
	}
	result = tevent_req_create(mem_ctx, &state, struct smb2_read_state);
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
	state->ev = ev;
	state->conn = req->conn;
	state->open = req->open;
	state->zerocopy = req->tcon->share->read_mode == LP_READ_MODE_ZEROCOPY;
	state->min_size = req->tcon->share->min_splice_size;
	state->regbufs = req->tcon->share->registered_buffers;
	tevent_req_set_cancel_fn(result, smb2_read_cancel);
	if (smb2_read_may_splice(req, &state->r)) {
		state->sp = smbd_splice_get(req->conn, state, state->r.length);
	}
	if (state->sp != NULL) {
		return smb2_read_splice_all(result, state) ? result :
			tevent_req_post(result, ev);
	}
	if (smb2_read_mapped(result, state, req)) {
		return result;          /* answered: see element_run */
	}
	subreq = smb2_read_copy(result, state);
	return subreq != NULL ? result : tevent_req_post(result, ev);
}

/*
 * The pipes hold the READ's data when every pipe up to the first short
 * one is full and every pipe after it is empty (the file ends there).
 * Bytes after a short pipe (the file shrank and grew again while the
 * splices ran) would be out of place: then the pipes are dropped and
 * the READ copied.  The bytes in the pipes are then the data's prefix,
 * src[0..nsrc).
 */
static bool smb2_read_pipes_contiguous(struct smb2_read_state *state)
{
	struct smbd_splice *sp = state->sp;
	bool ended = false;
	unsigned i;

	state->nread = 0;
	sp->nsrc = 0;
	for (i = 0; i < sp->n; i++) {
		if (ended) {
			if (state->got[i] > 0) {
				return false;
			}
			continue;
		}
		/* nsrc == i here: src[i] is still the range asked for */
		ended = state->got[i] < sp->src[i].len;
		if (state->got[i] > 0) {
			sp->src[sp->nsrc++].len = state->got[i];
			state->nread += state->got[i];
		}
	}
	return true;
}

static void smb2_read_spliced(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct smb2_read_state *state = tevent_req_data(req,
						struct smb2_read_state);
	struct smbd_splice *sp = state->sp;
	size_t moved = 0;
	int err = 0;
	unsigned i;

	for (i = 0; i + 1 < sp->n && state->sub[i] != subreq; i++) {
	}
	state->ret[i] = vfs_splice_read_recv(subreq, &state->got[i]);
	TALLOC_FREE(subreq);
	state->sub[i] = NULL;
	if (--state->pending > 0) {
		return;
	}
	for (i = 0; i < sp->n; i++) {
		moved += state->got[i];
		if (state->ret[i] < 0 && err == 0) {
			err = state->ret[i];
		}
	}
	if ((err == -ENOSYS || err == -EINVAL) && moved == 0) {
		/* this stack or file cannot splice: nothing moved, copy */
		smbd_splice_put(state->conn, sp);
		state->sp = NULL;
		smb2_read_copy(req, state);
		return;
	}
	if (err == 0 && !smb2_read_pipes_contiguous(state)) {
		DBG_INFO("%s: READ splices not contiguous (file changed "
			 "under them): copied\n", state->conn->peer);
		smbd_splice_discard(state->conn, sp);
		state->sp = NULL;
		state->nread = 0;
		smb2_read_copy(req, state);
		return;
	}
	if (err < 0 || smb2_read_short(state)) {
		/* bytes may sit in the pipes: they must not serve again */
		smbd_splice_discard(state->conn, sp);
		state->sp = NULL;
		tevent_req_nterror(req, err < 0 ? vfs_errno_status(err) :
				   NT_STATUS_END_OF_FILE);
		return;
	}
	smb2_read_finish(req, state);
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
	state->copy = NULL;
	if (tevent_req_nterror(req, status)) {
		return;
	}
	if (smb2_read_short(state)) {
		tevent_req_nterror(req, NT_STATUS_END_OF_FILE);
		return;
	}
	smb2_read_finish(req, state);
}

NTSTATUS smbd_read_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp)
{
	struct smb2_read_state *state = NULL;

	if (smbd_done_req(subreq)) {
		return smbd_done_recv(subreq, mem_ctx, rsp);   /* a pipe */
	}
	state = tevent_req_data(subreq, struct smb2_read_state);
	state->rsp.status = NT_STATUS_OK;
	return smbd_response_recv(subreq, mem_ctx, &state->rsp, rsp);
}
