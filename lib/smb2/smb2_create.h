/*
 * CREATE (MS-SMB2 2.2.13, 2.2.14) with its contexts, leases and durable
 * handles, and the OPLOCK_BREAK messages about what an open was granted
 * (create_codec.c, create_ctx.c, create_ctx_simple.c, lease_ctx.c,
 * durable_ctx.c, break_codec.c).  Part of lib/smb2/smb2.h; include that.
 */
#ifndef RINGSMB_SMB2_CREATE_H
#define RINGSMB_SMB2_CREATE_H

#include "lib/smb2/smb2_frame.h"

/* ------------------------------------------------------------------ */
/* CREATE (MS-SMB2 2.2.13, 2.2.14)                                      */

/* RequestedOplockLevel / OplockLevel */
#define SMB2_OPLOCK_LEVEL_NONE		0x00
#define SMB2_OPLOCK_LEVEL_II		0x01
#define SMB2_OPLOCK_LEVEL_EXCLUSIVE	0x08
#define SMB2_OPLOCK_LEVEL_BATCH		0x09
#define SMB2_OPLOCK_LEVEL_LEASE		0xFF

/* ImpersonationLevel */
#define SMB2_IMPERSONATION_ANONYMOUS		0x00000000
#define SMB2_IMPERSONATION_IDENTIFICATION	0x00000001
#define SMB2_IMPERSONATION_IMPERSONATION	0x00000002
#define SMB2_IMPERSONATION_DELEGATE		0x00000003

/* ShareAccess */
#define SMB2_FILE_SHARE_READ	0x00000001
#define SMB2_FILE_SHARE_WRITE	0x00000002
#define SMB2_FILE_SHARE_DELETE	0x00000004

/* CreateDisposition */
#define SMB2_FILE_SUPERSEDE	0x00000000
#define SMB2_FILE_OPEN		0x00000001
#define SMB2_FILE_CREATE	0x00000002
#define SMB2_FILE_OPEN_IF	0x00000003
#define SMB2_FILE_OVERWRITE	0x00000004
#define SMB2_FILE_OVERWRITE_IF	0x00000005

/* CreateAction */
#define SMB2_FILE_SUPERSEDED	0x00000000
#define SMB2_FILE_OPENED	0x00000001
#define SMB2_FILE_CREATED	0x00000002
#define SMB2_FILE_OVERWRITTEN	0x00000003

/* response Flags */
#define SMB2_CREATE_FLAG_REPARSEPOINT	0x01

/* Create context names (2.2.13.2) */
#define SMB2_CREATE_TAG_EXTA	"ExtA"
#define SMB2_CREATE_TAG_SECD	"SecD"
#define SMB2_CREATE_TAG_DHNQ	"DHnQ"
#define SMB2_CREATE_TAG_DHNC	"DHnC"
#define SMB2_CREATE_TAG_DH2Q	"DH2Q"
#define SMB2_CREATE_TAG_DH2C	"DH2C"
#define SMB2_CREATE_TAG_ALSI	"AlSi"
#define SMB2_CREATE_TAG_TWRP	"TWrp"
#define SMB2_CREATE_TAG_MXAC	"MxAc"
#define SMB2_CREATE_TAG_QFID	"QFid"
#define SMB2_CREATE_TAG_RQLS	"RqLs"
#define SMB2_CREATE_TAG_AAPL	"AAPL"

/* Create contexts accepted per request; more → INVALID_PARAMETER. */
#define SMB2_CREATE_CTX_MAX	64

/* A create context: name and data point into the request (or caller). */
struct smb2_create_ctx {
	const uint8_t *name;
	uint16_t name_len;
	const uint8_t *data;
	uint32_t data_len;
};

struct smb2_create_ctx_list {
	struct smb2_create_ctx ctx[SMB2_CREATE_CTX_MAX];
	size_t num;
};

/*
 * Walks a CreateContexts chain (2.2.13.2) of len bytes at buf
 * (RELIABILITY.md item 31): Next not 8-aligned, smaller than a context
 * header, or past the end; NameOffset/NameLength or DataOffset/
 * DataLength outside the context; NameLength < 4; DataOffset 0 or not
 * 8-aligned with DataLength > 0; data overlapping the name; more than
 * SMB2_CREATE_CTX_MAX contexts → INVALID_PARAMETER.  len 0 → none.
 */
NTSTATUS smb2_create_ctx_parse(const uint8_t *buf, size_t len,
			       struct smb2_create_ctx_list *out);

/* The first context named tag (e.g. "MxAc"), or NULL; *n = how many. */
const struct smb2_create_ctx *smb2_create_ctx_find(
	const struct smb2_create_ctx_list *l, const char *tag, size_t *n);

/*
 * Response context chain: each context 8-aligned, Next chaining, name
 * at 16, data 8-aligned after the name.  Returns the bytes (NULL on
 * ENOMEM or if a name does not fit 16 bits); count 0 gives *len 0 and a
 * non-NULL zero-length buffer.
 */
uint8_t *smb2_create_ctx_push(TALLOC_CTX *mem_ctx,
			      const struct smb2_create_ctx *ctx, size_t count,
			      size_t *len);

/* SMB2_CREATE_ALLOCATION_SIZE "AlSi" data (2.2.13.2.6) */
#define SMB2_ALSI_SIZE		8

/* AllocationSize: exactly 8 bytes of data, else INVALID_PARAMETER. */
NTSTATUS smb2_alsi_pull(const struct smb2_create_ctx *ctx, uint64_t *size);

/* SMB2_CREATE_QUERY_MAXIMAL_ACCESS_RESPONSE "MxAc" data (2.2.14.2.5) */
#define SMB2_MXAC_RSP_SIZE	8

struct smb2_mxac_rsp {
	uint32_t query_status;		/* an NTSTATUS */
	uint32_t maximal_access;
};

/* The 8 bytes of response data; NULL on ENOMEM. */
uint8_t *smb2_mxac_rsp_push(TALLOC_CTX *mem_ctx,
			    const struct smb2_mxac_rsp *in, size_t *len);

/* SMB2_CREATE_QUERY_ON_DISK_ID "QFid" response data (2.2.14.2.9) */
#define SMB2_QFID_RSP_SIZE	32

struct smb2_qfid_rsp {
	uint64_t disk_file_id;
	uint64_t volume_id;
};

/* DiskFileId, VolumeId, 16 reserved zero bytes; NULL on ENOMEM. */
uint8_t *smb2_qfid_rsp_push(TALLOC_CTX *mem_ctx,
			    const struct smb2_qfid_rsp *in, size_t *len);

/* SMB2_CREATE_REQUEST_LEASE(_V2) "RqLs" data (2.2.13.2.8, 2.2.13.2.10) */
#define SMB2_LEASE_V1_SIZE	32
#define SMB2_LEASE_V2_SIZE	52
#define SMB2_LEASE_FLAG_BREAK_IN_PROGRESS	0x00000002
#define SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET	0x00000004

struct smb2_lease {
	uint16_t version;		/* 1 or 2, from the data length */
	uint8_t key[16];
	uint32_t state;
	uint32_t flags;
	uint64_t duration;
	uint8_t parent_key[16];		/* v2 */
	uint16_t epoch;			/* v2 */
};

/* Exactly 32 (v1) or 52 (v2) bytes of data, else INVALID_PARAMETER. */
NTSTATUS smb2_lease_pull(const struct smb2_create_ctx *ctx,
			 struct smb2_lease *out);

/* The response lease context data, per in->version; NULL on ENOMEM. */
uint8_t *smb2_lease_push(TALLOC_CTX *mem_ctx, const struct smb2_lease *in,
			 size_t *len);

/*
 * Durable handle contexts (MS-SMB2 2.2.13.2.3-2.2.13.2.5, 2.2.13.2.11,
 * 2.2.13.2.12) as one request: which of DHnQ, DH2Q, DHnC, DH2C came and
 * what they carry.  Exact lengths: DHnQ 16, DHnC 16, DH2Q 32, DH2C 36.
 */
#define SMB2_DHNQ_SIZE		16
#define SMB2_DHNC_SIZE		16
#define SMB2_DH2Q_SIZE		32
#define SMB2_DH2C_SIZE		36
#define SMB2_DHANDLE_FLAG_PERSISTENT	0x00000002

struct smb2_durable_req {
	bool v1_request;		/* DHnQ */
	bool v2_request;		/* DH2Q */
	bool v1_reconnect;		/* DHnC */
	bool v2_reconnect;		/* DH2C */
	uint32_t timeout;		/* DH2Q, milliseconds */
	uint32_t flags;			/* DH2Q, DH2C */
	uint8_t create_guid[16];	/* DH2Q, DH2C */
	struct smb2_file_id file_id;	/* DHnC, DH2C */
};

/*
 * The durable contexts of a CREATE (3.3.5.9.6, 3.3.5.9.7, 3.3.5.9.10,
 * 3.3.5.9.12): INVALID_PARAMETER for a wrong length, a context given
 * twice, DHnQ with DH2Q, or a reconnect with a context of the other
 * version or with DH2Q; a DHnQ next to DHnC is ignored (v1_request
 * cleared), as Windows does.
 */
NTSTATUS smb2_durable_req_pull(const struct smb2_create_ctx_list *l,
			       struct smb2_durable_req *out);

/*
 * SMB2_CREATE_APP_INSTANCE_ID (2.2.13.2.13): a context named by a GUID,
 * 20 bytes of data (StructureSize 20, Reserved, AppInstanceId).
 * *present false when absent; INVALID_PARAMETER when malformed.
 */
#define SMB2_CREATE_TAG_APP_INSTANCE_ID \
	"\x45\xBC\xA6\x6A\xEF\xA7\xF7\x4A\x90\x08\xFA\x46\x2E\x14\x4D\x74"
#define SMB2_APP_INSTANCE_ID_SIZE	20

NTSTATUS smb2_app_instance_pull(const struct smb2_create_ctx_list *l,
				bool *present, uint8_t id[16]);

/* Response data: DHnQ (8 reserved bytes) or DH2Q (Timeout, Flags). */
uint8_t *smb2_durable_rsp_push(TALLOC_CTX *mem_ctx, bool v2,
			       uint32_t timeout, uint32_t flags, size_t *len);

struct smb2_create_req {
	uint8_t security_flags;
	uint8_t requested_oplock_level;
	uint32_t impersonation_level;
	uint64_t smb_create_flags;
	uint32_t desired_access;
	uint32_t file_attributes;
	uint32_t share_access;
	uint32_t create_disposition;
	uint32_t create_options;
	struct smb2_blob name;	/* UTF-16LE bytes, even length */
	struct smb2_create_ctx_list contexts;
};

/*
 * Name or contexts outside the PDU, odd name length, name overlapping
 * the contexts, bad contexts → INVALID_PARAMETER.
 */
NTSTATUS smb2_create_req_pull(const struct smb2_pdu *pdu,
			      struct smb2_create_req *out);

struct smb2_create_rsp {
	uint8_t oplock_level;
	uint8_t flags;
	uint32_t create_action;
	uint64_t creation_time;
	uint64_t last_access_time;
	uint64_t last_write_time;
	uint64_t change_time;
	uint64_t allocation_size;
	uint64_t end_of_file;
	uint32_t file_attributes;
	struct smb2_file_id file_id;
	const struct smb2_create_ctx *contexts;
	size_t num_contexts;
};

/* Contexts at 0x98 from the header; none → offset 0 and a pad byte. */
uint8_t *smb2_create_rsp_push(TALLOC_CTX *mem_ctx,
			      const struct smb2_create_rsp *in, size_t *len);


/* ------------------------------------------------------------------ */
/* OPLOCK_BREAK (MS-SMB2 2.2.23 - 2.2.25)                               */

#define SMB2_LEASE_NONE			0x00
#define SMB2_LEASE_READ_CACHING		0x01
#define SMB2_LEASE_HANDLE_CACHING	0x02
#define SMB2_LEASE_WRITE_CACHING	0x04

#define SMB2_NOTIFY_BREAK_LEASE_FLAG_ACK_REQUIRED	0x01

#define SMB2_LEASE_KEY_SIZE	16

/* Acknowledgment: an oplock ack (24) or a lease ack (36). */
struct smb2_oplock_break_req {
	bool is_lease;
	/* oplock ack */
	uint8_t oplock_level;
	struct smb2_file_id file_id;
	/* lease ack */
	uint32_t flags;
	uint8_t lease_key[SMB2_LEASE_KEY_SIZE];
	uint32_t lease_state;
	uint64_t lease_duration;
};

NTSTATUS smb2_oplock_break_req_pull(const struct smb2_pdu *pdu,
				    struct smb2_oplock_break_req *out);

/* Oplock break notification and oplock ack response (24 bytes). */
uint8_t *smb2_oplock_break_push(TALLOC_CTX *mem_ctx, uint8_t oplock_level,
				const struct smb2_file_id *file_id,
				size_t *len);

struct smb2_lease_break {
	uint16_t new_epoch;
	uint32_t flags;
	uint8_t lease_key[SMB2_LEASE_KEY_SIZE];
	uint32_t current_state;
	uint32_t new_state;
};

/* Lease break notification (44 bytes). */
uint8_t *smb2_lease_break_push(TALLOC_CTX *mem_ctx,
			       const struct smb2_lease_break *in,
			       size_t *len);

/* Lease break response to an ack (36 bytes). */
uint8_t *smb2_lease_break_rsp_push(TALLOC_CTX *mem_ctx,
				   const uint8_t key[SMB2_LEASE_KEY_SIZE],
				   uint32_t lease_state, size_t *len);

#endif
