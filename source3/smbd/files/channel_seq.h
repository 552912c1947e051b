/*
 * Channel sequence numbers (MS-SMB2 3.3.5.2.10, 3.3.1.10, 3.3.4.1): on
 * SMB 3.x every request that names an open carries a ChannelSequence (the
 * low 16 bits of the header's Status field).  A client raises it when it
 * fails over to another channel, so the server can refuse a WRITE,
 * SET_INFO or IOCTL still in flight from before the failover
 * (STATUS_FILE_NOT_AVAILABLE) instead of letting it land after newer
 * data.  The open keeps Open.ChannelSequence and the requests counted
 * at it (OutstandingRequestCount) and before it
 * (OutstandingPreRequestCount).
 */
#ifndef RINGSMB_SMBD_CHANNEL_SEQ_H
#define RINGSMB_SMBD_CHANNEL_SEQ_H

#include <stdbool.h>
#include <stdint.h>
#include "source3/smbd/smbd.h"

/*
 * The pure rule of 3.3.5.2.10 on one open's counters.  seq: the
 * request's ChannelSequence; replay: SMB2_FLAGS_REPLAY_OPERATION;
 * modifies: WRITE, SET_INFO or IOCTL (only those are refused).  OK, or
 * FILE_NOT_AVAILABLE (only when modifies).  *counted: the request was
 * counted in csn->outstanding and must be released when it is answered,
 * with *generation (the epoch of csn->seq it was counted at).
 */
NTSTATUS smbd_csn_check(struct smbd_csn *csn, uint16_t seq, bool replay,
			bool modifies, bool *counted, uint32_t *generation);

/*
 * A counted request is answered (3.3.4.1): counted at the current
 * sequence it leaves OutstandingRequestCount, counted at an older one
 * OutstandingPreRequestCount.
 */
void smbd_csn_release(struct smbd_csn *csn, uint32_t generation);

/*
 * The pipeline's use: req names open (3.x dialects only).  On success a
 * counted request holds a reference, a talloc child of req, that
 * releases the count when freed (smbd_csn_answered, or req's end);
 * the open's going away detaches it.
 */
NTSTATUS smbd_csn_request(struct smbd_request *req, struct smbd_open *open,
			  bool modifies);

/* req was answered: its count, if any, is released now. */
void smbd_csn_answered(struct smbd_request *req);

/*
 * A CREATE made open, or reconnected it (DHnC, DH2C): Open.ChannelSequence
 * starts at the request's.
 */
void smbd_csn_init(struct smbd_open *open, uint16_t seq);

/* open goes away (its destructor): references of requests let go. */
void smbd_csn_open_gone(struct smbd_open *open);

#endif
