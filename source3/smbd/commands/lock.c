/*
 * LOCK (MS-SMB2 3.3.5.14; MS-FSA 2.1.5.7).  The locks live in the
 * file's table (brlock.c), owned by the open; they go with the open
 * (CLOSE, TREE_DISCONNECT, LOGOFF, a dropped connection), see
 * smbd_file_detach.
 *
 * A request whose first element is UNLOCK is an unlock sequence: every
 * element must be UNLOCK, processed in order, and one that fails stops
 * the rest (what was unlocked stays unlocked).  Otherwise it is a lock
 * sequence, all or nothing.  Only a single-element request may block
 * (no FAIL_IMMEDIATELY): on a conflict it goes async and waits for the
 * range, until CANCEL (CANCELLED) or until its open goes away
 * (RANGE_NOT_LOCKED, as Samba and Windows answer).  Where it cannot go
 * async (inside a compound, too many waiting) it answers
 * LOCK_NOT_GRANTED at once, as a conflict does for FAIL_IMMEDIATELY.
 *
 * A granted lock breaks every LEVEL_II oplock of the file to NONE, the
 * locker's own included (MS-FSA 2.1.5.8 "Server Requests a Byte-Range
 * Lock" and 2.1.4.12): a client that caches reads must not go on
 * reading past a lock.  Such a break needs no acknowledgment, so the
 * lock does not wait for it.  As Samba, only a lock that is granted
 * breaks (Windows breaks before its conflict check, for a lock that
 * starts below the allocation size); one that fails or only starts
 * waiting breaks nothing.  EXCLUSIVE and BATCH oplocks are left alone,
 * as Samba leaves them: their holder is the file's only open apart
 * from stat opens, or is being broken already.
 *
 * LockSequenceNumber/Index (3.3.5.14 replay detection) are checked on
 * connections that announced SMB2_GLOBAL_CAP_MULTI_CHANNEL, as the
 * specification (not Windows, note <314>) and Samba do: a client that
 * resends a LOCK on another channel after losing one gets success
 * without it being applied twice.
 */
#include "lib/util/debug.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/brlock.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/share_mode.h"

/*
 * Samba reads LockCount as one byte, so it never handles more than 255
 * elements; above that we answer INVALID_PARAMETER rather than scan the
 * table 65535 times for one request.
 */
#define SMB2_LOCK_MAX_COUNT 255

#define SMB2_LOCKFLAG_KIND (SMB2_LOCKFLAG_SHARED_LOCK | \
			    SMB2_LOCKFLAG_EXCLUSIVE_LOCK)

struct smb2_lock_state {
	struct tevent_context *ev;
	struct smbd_open *open;         /* alive until its wait is answered */
	struct brl_waiter *waiter;      /* while blocked */
	struct smbd_response rsp;
	/*
	 * The open's replay slot and the number to keep there on success;
	 * valid while the open lives (a waiter is woken with success only
	 * then).
	 */
	uint8_t *seq_slot;
	uint8_t seq_number;
};

static void smb2_lock_woken(void *private_data, NTSTATUS status);
static bool smb2_lock_cancel(struct tevent_req *req);

static bool smb2_lock_respond(struct tevent_req *req)
{
	struct smb2_lock_state *state = tevent_req_data(
		req, struct smb2_lock_state);

	if (state->seq_slot != NULL) {
		*state->seq_slot = state->seq_number;
		state->seq_slot = NULL;
	}
	state->rsp.body = smb2_lock_rsp_push(state, &state->rsp.body_len);
	if (tevent_req_nomem(state->rsp.body, req)) {
		return false;
	}
	tevent_req_done(req);
	return true;
}

static NTSTATUS smb2_unlock_all(struct smbd_open *open,
				const struct smb2_lock_req *r)
{
	struct brl_table *t = smbd_file_lock_table(open);
	struct smb2_lock_element el;
	NTSTATUS status;
	size_t i;

	for (i = 0; i < r->lock_count; i++) {
		smb2_lock_element_at(r, i, &el);
		if (el.flags != SMB2_LOCKFLAG_UNLOCK) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (t == NULL) {
			return NT_STATUS_RANGE_NOT_LOCKED;
		}
		status = brl_unlock(t, open, el.offset, el.length);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	return NT_STATUS_OK;
}

/*
 * A lock sequence, checked before anything is locked: each element is
 * SHARED or EXCLUSIVE, optionally FAIL_IMMEDIATELY; with more than one
 * element every one must be FAIL_IMMEDIATELY (3.3.5.14.2, as Samba).
 */
static NTSTATUS smb2_lock_ranges(const struct smb2_lock_req *r,
				 struct brl_range *ranges)
{
	struct smb2_lock_element el;
	size_t i;

	for (i = 0; i < r->lock_count; i++) {
		smb2_lock_element_at(r, i, &el);
		if ((el.flags & ~SMB2_LOCKFLAG_FAIL_IMMEDIATELY) !=
		    SMB2_LOCKFLAG_SHARED_LOCK &&
		    (el.flags & ~SMB2_LOCKFLAG_FAIL_IMMEDIATELY) !=
		    SMB2_LOCKFLAG_EXCLUSIVE_LOCK) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (r->lock_count > 1 &&
		    (el.flags & SMB2_LOCKFLAG_FAIL_IMMEDIATELY) == 0) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		ranges[i] = (struct brl_range) {
			.offset = el.offset,
			.length = el.length,
			.exclusive = el.flags & SMB2_LOCKFLAG_EXCLUSIVE_LOCK,
		};
	}
	return NT_STATUS_OK;
}

/* A conflict on a blocking lock: wait for the range (STATUS_PENDING). */
static bool smb2_lock_block(struct tevent_req *result,
			    struct smbd_request *req, struct brl_table *t,
			    const struct brl_range *ranges, size_t n)
{
	struct smb2_lock_state *state = tevent_req_data(
		result, struct smb2_lock_state);

	state->waiter = brl_wait(state, t, req->open, ranges, n,
				 smb2_lock_woken, result);
	if (state->waiter == NULL) {
		return false;
	}
	tevent_req_set_cancel_fn(result, smb2_lock_cancel);
	req->go_async = true;
	return true;
}

/* A single element without FAIL_IMMEDIATELY waits for its range. */
static bool smb2_lock_blocking(const struct smb2_lock_req *r)
{
	struct smb2_lock_element el;

	if (r->lock_count != 1) {
		return false;
	}
	smb2_lock_element_at(r, 0, &el);
	return (el.flags & SMB2_LOCKFLAG_FAIL_IMMEDIATELY) == 0;
}

/* Lock, or block; NT_STATUS_PENDING: waiting. */
static NTSTATUS smb2_lock_all(struct tevent_req *result,
			      struct smbd_request *req,
			      const struct smb2_lock_req *r)
{
	struct brl_range *ranges = talloc_array(result, struct brl_range,
						r->lock_count);
	struct brl_table *t = smbd_file_lock_table(req->open);
	NTSTATUS status;

	if (ranges == NULL || t == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = smb2_lock_ranges(r, ranges);
	if (NT_STATUS_IS_OK(status)) {
		status = brl_lock(t, req->open, ranges, r->lock_count, NULL);
	}
	if (NT_STATUS_IS_OK(status)) {
		smbd_oplock_contend_level2(req->open);
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_LOCK_NOT_GRANTED) &&
	    req->may_go_async && smb2_lock_blocking(r)) {
		status = smb2_lock_block(result, req, t, ranges, 1) ?
			NT_STATUS_PENDING : NT_STATUS_NO_MEMORY;
	}
	TALLOC_FREE(ranges);
	return status;
}

/*
 * Replay detection (3.3.5.14): a sequence number equal to the one of the
 * last successful LOCK with this index is a replay, answered with
 * success and not applied again.  Otherwise the slot is invalid until
 * this one succeeds.
 */
static bool smb2_lock_replay(struct tevent_req *result,
			     struct smbd_request *req,
			     const struct smb2_lock_req *r)
{
	struct smb2_lock_state *state = tevent_req_data(
		result, struct smb2_lock_state);
	uint8_t *slot = NULL;

	if (!(req->conn->server_caps & SMB2_GLOBAL_CAP_MULTI_CHANNEL) ||
	    r->lock_sequence_index == 0 ||
	    r->lock_sequence_index > SMBD_LOCK_SEQ_MAX) {
		return false;
	}
	slot = &req->open->lock_seq[r->lock_sequence_index - 1];
	if (*slot == r->lock_sequence_number) {
		return true;
	}
	*slot = SMBD_LOCK_SEQ_INVALID;
	state->seq_slot = slot;
	state->seq_number = r->lock_sequence_number;
	return false;
}

static NTSTATUS smb2_lock_start(struct tevent_req *result,
				struct smbd_request *req)
{
	struct smb2_lock_req r;
	struct smb2_lock_element first;
	NTSTATUS status = smb2_lock_req_pull(req->pdu, &r);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (r.lock_count > SMB2_LOCK_MAX_COUNT) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (smb2_lock_replay(result, req, &r)) {
		DBG_INFO("%s: replayed LOCK (index %u)\n", req->conn->peer,
			 (unsigned)r.lock_sequence_index);
		return NT_STATUS_OK;
	}
	smb2_lock_element_at(&r, 0, &first);
	if (first.flags & SMB2_LOCKFLAG_UNLOCK) {
		return smb2_unlock_all(req->open, &r);
	}
	return smb2_lock_all(result, req, &r);
}

struct tevent_req *smbd_lock_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req)
{
	struct smb2_lock_state *state = NULL;
	struct tevent_req *result = tevent_req_create(mem_ctx, &state,
						      struct smb2_lock_state);
	NTSTATUS status;

	if (result == NULL) {
		return NULL;
	}
	state->ev = ev;
	state->open = req->open;
	status = smb2_lock_start(result, req);
	if (NT_STATUS_EQUAL(status, NT_STATUS_PENDING)) {
		return result;
	}
	if (tevent_req_nterror(result, status)) {
		DBG_INFO("%s: LOCK refused: %s\n", req->conn->peer,
			 nt_errstr(status));
		return tevent_req_post(result, ev);
	}
	smb2_lock_respond(result);
	return tevent_req_post(result, ev);
}

/*
 * From brlock.c, inside another request's unlock or an open's teardown:
 * the answer goes out from the event loop, not from under them.
 */
static void smb2_lock_woken(void *private_data, NTSTATUS status)
{
	struct tevent_req *req = talloc_get_type_abort(private_data,
						       struct tevent_req);
	struct smb2_lock_state *state = tevent_req_data(
		req, struct smb2_lock_state);

	TALLOC_FREE(state->waiter);
	tevent_req_set_cancel_fn(req, NULL);
	tevent_req_defer_callback(req, state->ev);
	if (tevent_req_nterror(req, status)) {
		return;
	}
	/* granted now: as for a lock granted at once */
	smbd_oplock_contend_level2(state->open);
	smb2_lock_respond(req);
}

static bool smb2_lock_cancel(struct tevent_req *req)
{
	struct smb2_lock_state *state = tevent_req_data(
		req, struct smb2_lock_state);

	if (state->waiter == NULL) {
		return false;
	}
	TALLOC_FREE(state->waiter);
	tevent_req_set_cancel_fn(req, NULL);
	tevent_req_defer_callback(req, state->ev);
	tevent_req_nterror(req, NT_STATUS_CANCELLED);
	return true;
}

NTSTATUS smbd_lock_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp)
{
	struct smb2_lock_state *state = tevent_req_data(
		subreq, struct smb2_lock_state);
	state->rsp.status = NT_STATUS_OK;
	return smbd_response_recv(subreq, mem_ctx, &state->rsp, rsp);
}
