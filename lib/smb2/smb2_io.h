/*
 * CLOSE and FLUSH (MS-SMB2 2.2.15 - 2.2.18), READ and WRITE (2.2.19 -
 * 2.2.22), LOCK (2.2.26): close_codec.c, read_codec.c, write_codec.c,
 * lock_codec.c.  Part of lib/smb2/smb2.h; include that.
 */
#ifndef RINGSMB_SMB2_IO_H
#define RINGSMB_SMB2_IO_H

#include "lib/smb2/smb2_frame.h"

/* ------------------------------------------------------------------ */
/* CLOSE (MS-SMB2 2.2.15, 2.2.16), FLUSH (2.2.17)                       */

#define SMB2_CLOSE_FLAGS_POSTQUERY_ATTRIB	0x0001

struct smb2_close_req {
	uint16_t flags;
	struct smb2_file_id file_id;
};

NTSTATUS smb2_close_req_pull(const struct smb2_pdu *pdu,
			     struct smb2_close_req *out);

struct smb2_close_rsp {
	uint16_t flags;
	uint64_t creation_time;
	uint64_t last_access_time;
	uint64_t last_write_time;
	uint64_t change_time;
	uint64_t allocation_size;
	uint64_t end_of_file;
	uint32_t file_attributes;
};

uint8_t *smb2_close_rsp_push(TALLOC_CTX *mem_ctx,
			     const struct smb2_close_rsp *in, size_t *len);

struct smb2_flush_req {
	struct smb2_file_id file_id;
};

NTSTATUS smb2_flush_req_pull(const struct smb2_pdu *pdu,
			     struct smb2_flush_req *out);

/* ------------------------------------------------------------------ */
/* READ (MS-SMB2 2.2.19, 2.2.20), WRITE (2.2.21, 2.2.22)                */

#define SMB2_READFLAG_READ_UNBUFFERED		0x01
#define SMB2_READFLAG_REQUEST_COMPRESSED	0x02

#define SMB2_CHANNEL_NONE			0x00000000
#define SMB2_CHANNEL_RDMA_V1			0x00000001
#define SMB2_CHANNEL_RDMA_V1_INVALIDATE		0x00000002
#define SMB2_CHANNEL_RDMA_TRANSFORM		0x00000003

#define SMB2_WRITEFLAG_WRITE_THROUGH		0x00000001
#define SMB2_WRITEFLAG_WRITE_UNBUFFERED		0x00000002

/* READ response payload offset from the header: 64 + 16. */
#define SMB2_READ_RSP_DATA_OFFSET	0x50

struct smb2_read_req {
	uint8_t padding;
	uint8_t flags;
	uint32_t length;
	uint64_t offset;
	struct smb2_file_id file_id;
	uint32_t minimum_count;
	uint32_t channel;
	uint32_t remaining_bytes;
	struct smb2_blob channel_info;
};

NTSTATUS smb2_read_req_pull(const struct smb2_pdu *pdu,
			    struct smb2_read_req *out);

struct smb2_read_rsp {
	uint32_t data_len;	/* the payload itself goes in its own iovec */
	uint32_t data_remaining;
};

/*
 * The 16-byte fixed body (DataOffset 0x50, DataLength = data_len); the
 * payload follows it in a separate iovec (STYLE.md rule 22).  With
 * data_len 0 the body gets its padding byte (17 bytes).
 */
uint8_t *smb2_read_rsp_push(TALLOC_CTX *mem_ctx,
			    const struct smb2_read_rsp *in, size_t *len);

struct smb2_write_req {
	uint16_t data_offset;
	uint32_t length;
	uint64_t offset;
	struct smb2_file_id file_id;
	uint32_t channel;
	uint32_t remaining_bytes;
	struct smb2_blob channel_info;
	uint32_t flags;
	/* [data_offset, +length) inside the PDU; else data.data NULL */
	struct smb2_blob data;
	/* the data is the pdu's ext_len bytes outside it (data.data NULL) */
	bool data_external;
};

/*
 * Channel info outside the PDU → INVALID_PARAMETER.  Data is checked
 * only when the payload is in the PDU (length > 0): outside → data.data
 * NULL and INVALID_PARAMETER.  A transport that received the payload
 * separately checks data_offset/length itself.
 */
NTSTATUS smb2_write_req_pull(const struct smb2_pdu *pdu,
			     struct smb2_write_req *out);

/*
 * The head of a WRITE as the transport sees it before the payload is in:
 * the SMB2 header and the fixed body (buf holds at least SMB2_HDR_SIZE +
 * 48 bytes).  INVALID_PARAMETER unless it is a well-formed header (a
 * sync one) of a WRITE with the WRITE body size; nothing else is judged
 * here (flags, compounds, where the data is: the caller's policy).
 */
struct smb2_write_head {
	struct smb2_hdr hdr;
	uint16_t data_offset;
	uint32_t length;
};

NTSTATUS smb2_write_head_pull(const uint8_t *buf, size_t len,
			      struct smb2_write_head *out);

struct smb2_write_rsp {
	uint32_t count;
	uint32_t remaining;
};

uint8_t *smb2_write_rsp_push(TALLOC_CTX *mem_ctx,
			     const struct smb2_write_rsp *in, size_t *len);

/* ------------------------------------------------------------------ */
/* LOCK (MS-SMB2 2.2.26)                                                */

#define SMB2_LOCKFLAG_SHARED_LOCK	0x00000001
#define SMB2_LOCKFLAG_EXCLUSIVE_LOCK	0x00000002
#define SMB2_LOCKFLAG_UNLOCK		0x00000004
#define SMB2_LOCKFLAG_FAIL_IMMEDIATELY	0x00000010

#define SMB2_LOCK_ELEMENT_SIZE	24

struct smb2_lock_element {
	uint64_t offset;
	uint64_t length;
	uint32_t flags;
};

struct smb2_lock_req {
	uint16_t lock_count;
	uint8_t lock_sequence_number;	/* low 4 bits */
	uint32_t lock_sequence_index;	/* high 28 bits */
	struct smb2_file_id file_id;
	const uint8_t *locks;		/* lock_count elements */
};

/* LockCount 0 or the array past the PDU → INVALID_PARAMETER. */
NTSTATUS smb2_lock_req_pull(const struct smb2_pdu *pdu,
			    struct smb2_lock_req *out);
/* Element i < lock_count of a pulled request. */
void smb2_lock_element_at(const struct smb2_lock_req *r, size_t i,
			  struct smb2_lock_element *out);

#endif
