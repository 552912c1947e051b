/*
 * Channel sequence numbers (MS-SMB2 3.3.5.2.10): see channel_seq.h.
 *
 * Where the specification is vague we follow it literally and say so:
 * a request with an older sequence that is not refused (a READ, a
 * QUERY_INFO ...) runs without being counted, so answering it changes no
 * counter (Samba does the same; decrementing for it would drive
 * OutstandingPreRequestCount below zero, smbtorture smb2.replay.replay7).
 * Which counter a request leaves is decided by the epoch it was counted
 * in, not by comparing sequence numbers: a sequence that moved away and
 * back (0 -> 30000 -> 60000 -> 0, replay7) is a new epoch.
 */
#include "lib/util/dlist.h"
#include "source3/smbd/files/channel_seq.h"

/* 16-bit unsigned distance of 3.3.5.2.10: 1..0x7FFF is "newer" */
#define CSN_NEWER_MAX 0x7FFF

struct smbd_csn_ref {
	struct smbd_csn_ref *prev, *next;
	struct smbd_open *open;         /* NULL once the open went */
	uint32_t generation;
};

static void csn_advance(struct smbd_csn *csn, uint16_t seq)
{
	csn->pre += csn->outstanding;
	csn->outstanding = 0;
	csn->seq = seq;
	csn->generation++;
}

NTSTATUS smbd_csn_check(struct smbd_csn *csn, uint16_t seq, bool replay,
			bool modifies, bool *counted, uint32_t *generation)
{
	uint16_t diff = (uint16_t)(seq - csn->seq);
	bool ok = false;

	*counted = false;
	if (diff == 0) {
		/* a replay at the current sequence: nothing older in flight */
		ok = !replay || csn->pre == 0;
	} else if (diff <= CSN_NEWER_MAX) {
		csn_advance(csn, seq);
		/* a replay may not overtake what is still in flight */
		ok = !replay || csn->pre == 0;
	}
	if (ok) {
		csn->outstanding++;
		*counted = true;
		*generation = csn->generation;
		return NT_STATUS_OK;
	}
	return modifies ? NT_STATUS_FILE_NOT_AVAILABLE : NT_STATUS_OK;
}

void smbd_csn_release(struct smbd_csn *csn, uint32_t generation)
{
	if (generation == csn->generation) {
		if (csn->outstanding > 0) {
			csn->outstanding--;
		}
	} else if (csn->pre > 0) {
		csn->pre--;
	}
}

static int csn_ref_destructor(struct smbd_csn_ref *ref)
{
	if (ref->open != NULL) {
		smbd_csn_release(&ref->open->csn, ref->generation);
		DLIST_REMOVE_SIMPLE(ref->open->csn.refs, ref);
		ref->open = NULL;
	}
	return 0;
}

NTSTATUS smbd_csn_request(struct smbd_request *req, struct smbd_open *open,
			  bool modifies)
{
	const struct smb2_hdr *h = &req->pdu->hdr;
	struct smbd_csn_ref *ref = NULL;
	bool counted = false;
	uint32_t generation = 0;
	NTSTATUS status;

	if (req->conn->dialect < SMB2_DIALECT_0300) {
		return NT_STATUS_OK;
	}
	status = smbd_csn_check(&open->csn, smb2_hdr_channel_sequence(h),
				(h->flags & SMB2_FLAGS_REPLAY_OPERATION) != 0,
				modifies, &counted, &generation);
	if (!NT_STATUS_IS_OK(status) || !counted) {
		return status;
	}
	ref = talloc_zero(req, struct smbd_csn_ref);
	if (ref == NULL) {
		smbd_csn_release(&open->csn, generation);
		return NT_STATUS_NO_MEMORY;
	}
	ref->open = open;
	ref->generation = generation;
	DLIST_ADD_SIMPLE(open->csn.refs, ref);
	talloc_set_destructor(ref, csn_ref_destructor);
	TALLOC_FREE(req->csn_ref);      /* a request names one open */
	req->csn_ref = ref;
	return NT_STATUS_OK;
}

void smbd_csn_answered(struct smbd_request *req)
{
	if (req != NULL) {
		TALLOC_FREE(req->csn_ref);
	}
}

void smbd_csn_init(struct smbd_open *open, uint16_t seq)
{
	open->csn.seq = seq;
}

void smbd_csn_open_gone(struct smbd_open *open)
{
	struct smbd_csn_ref *ref = NULL;

	while ((ref = open->csn.refs) != NULL) {
		DLIST_REMOVE_SIMPLE(open->csn.refs, ref);
		ref->open = NULL;
	}
}
