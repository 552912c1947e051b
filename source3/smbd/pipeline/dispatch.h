/*
 * The dispatch table: per opcode, what the pipeline
 * checks before the command runs, and the command's functions.
 */
#ifndef RINGSMB_SMBD_DISPATCH_H
#define RINGSMB_SMBD_DISPATCH_H

#include "source3/smbd/smbd.h"

enum smbd_need {
	SMBD_NEED_NONE = 0,
	SMBD_NEED_SESSION,
	SMBD_NEED_TCON,
};

/* Called with the complete response of the element (header first). */
typedef void (*smbd_on_response_fn)(struct smbd_request *req,
				    NTSTATUS status, const struct iovec *iov,
				    int iovcnt);

struct smbd_cmd {
	const char *name;
	enum smbd_need need;
	/* body offset of the FileId to resolve; 0: none */
	uint16_t fileid_ofs;
	/*
	 * The FileId may be all 0xFF outside a related compound: no file
	 * (IOCTLs such as VALIDATE_NEGOTIATE_INFO); req->open stays NULL.
	 */
	bool fileid_optional;
	/* not 0: the FileId is there only in a body of this size */
	uint16_t fileid_body_len;
	/* body offsets of the 32-bit lengths CreditCharge must cover */
	uint16_t charge_ofs;
	uint16_t charge_ofs2;
	/*
	 * READ and WRITE: the body offset of the 64-bit file Offset (their
	 * Length is at charge_ofs); the scheduler runs lone I/O to
	 * disjoint ranges side by side (pipeline_sched.c).
	 */
	uint16_t io_offset_ofs;
	/* may change a directory: watchers are told after (notify) */
	bool may_change;
	/*
	 * may free what a command on another channel of the session uses
	 * (a handle, a tree connect, the session): waits until no other
	 * channel runs one (pipeline.c, channel_wait)
	 */
	bool frees_session_state;
	/* its success installs new signing keys for the rest (3.3.5.5.3) */
	bool sets_signing_key;
	/* its status is what related operations after it inherit */
	bool opens_file;
	/*
	 * runs on an IPC$ tree connect (commands/pipe.c); the others get
	 * NOT_SUPPORTED there, as from Samba
	 */
	bool on_ipc;
	/*
	 * A ChannelSequence older than its open's is refused with
	 * FILE_NOT_AVAILABLE (MS-SMB2 3.3.5.2.10: WRITE, SET_INFO, IOCTL);
	 * any other command naming an open runs, uncounted.
	 */
	bool refuses_stale_channel;
	smbd_cmd_send_fn send;
	smbd_cmd_recv_fn recv;
	smbd_on_response_fn on_response;
};

/* NULL: not implemented (the pipeline answers STATUS_NOT_SUPPORTED). */
const struct smbd_cmd *smbd_cmd_lookup(uint16_t opcode);

#endif
