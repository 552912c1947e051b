/*
 * lib/smb2: the SMB2/3 wire format (MS-SMB2), as pure codecs.
 *
 * No I/O here (STYLE.md rules 18-22).  Requests: bytes in, struct out;
 * pointers in the result point into the input buffer, which must outlive
 * the struct.  Responses: each smb2_<cmd>_rsp_push() returns the whole
 * response BODY (fixed part plus dynamic part) that follows the 64-byte
 * header, in a talloc buffer, or NULL on ENOMEM.  Offsets inside a body
 * are written as MS-SMB2 counts them, from the start of the SMB2 header.
 *
 * Flow in the daemon:
 *	smb2_compound_carve(mem_ctx, nbt_payload, len, &pdus, &n);
 *	for each pdu: pdu->status says whether the element is well formed
 *	(smb2_pdu_check); then smb2_<cmd>_req_pull(pdu, &req).
 * All access to a request's dynamic part goes through smb2_pdu_dyn().
 */
#ifndef RINGSMB_SMB2_H
#define RINGSMB_SMB2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"
/* Flag and class values too long to list here (share flags, access
 * masks, attributes, create options, FSCTLs, information classes). */
#include "lib/smb2/smb2_const.h"

/* ------------------------------------------------------------------ */
/* Opcodes (MS-SMB2 2.2.1.2)                                           */

#define SMB2_OP_NEGPROT		0x00
#define SMB2_OP_SESSSETUP	0x01
#define SMB2_OP_LOGOFF		0x02
#define SMB2_OP_TCON		0x03
#define SMB2_OP_TDIS		0x04
#define SMB2_OP_CREATE		0x05
#define SMB2_OP_CLOSE		0x06
#define SMB2_OP_FLUSH		0x07
#define SMB2_OP_READ		0x08
#define SMB2_OP_WRITE		0x09
#define SMB2_OP_LOCK		0x0A
#define SMB2_OP_IOCTL		0x0B
#define SMB2_OP_CANCEL		0x0C
#define SMB2_OP_ECHO		0x0D
#define SMB2_OP_QUERY_DIRECTORY	0x0E
#define SMB2_OP_CHANGE_NOTIFY	0x0F
#define SMB2_OP_QUERY_INFO	0x10
#define SMB2_OP_SET_INFO	0x11
#define SMB2_OP_OPLOCK_BREAK	0x12
#define SMB2_OP_COUNT		0x13

/* "NEGOTIATE", ... for logs; "UNKNOWN" past the table. */
const char *smb2_op_name(uint16_t command);

/* ------------------------------------------------------------------ */
/* Header (MS-SMB2 2.2.1)                                              */

#define SMB2_HDR_SIZE		64

/* ProtocolId as a little-endian uint32 of the first 4 bytes. */
#define SMB2_PROTOCOL_ID		0x424D53FEu	/* 0xFE 'S' 'M' 'B' */
#define SMB2_TRANSFORM_PROTOCOL_ID	0x424D53FDu	/* 0xFD 'S' 'M' 'B' */
#define SMB2_COMPRESSION_PROTOCOL_ID	0x424D53FCu	/* 0xFC 'S' 'M' 'B' */
#define SMB1_PROTOCOL_ID		0x424D53FFu	/* 0xFF 'S' 'M' 'B' */

/* Field offsets in the 64-byte header (the only place they are written). */
#define SMB2_HDR_OFS_PROTOCOL_ID	0x00
#define SMB2_HDR_OFS_STRUCTURE_SIZE	0x04
#define SMB2_HDR_OFS_CREDIT_CHARGE	0x06
#define SMB2_HDR_OFS_STATUS		0x08	/* ChannelSequence in 3.x req */
#define SMB2_HDR_OFS_COMMAND		0x0C
#define SMB2_HDR_OFS_CREDIT		0x0E
#define SMB2_HDR_OFS_FLAGS		0x10
#define SMB2_HDR_OFS_NEXT_COMMAND	0x14
#define SMB2_HDR_OFS_MESSAGE_ID		0x18
#define SMB2_HDR_OFS_ASYNC_ID		0x20	/* async form */
#define SMB2_HDR_OFS_PROCESS_ID		0x20	/* sync form (Reserved) */
#define SMB2_HDR_OFS_TREE_ID		0x24	/* sync form */
#define SMB2_HDR_OFS_SESSION_ID		0x28
#define SMB2_HDR_OFS_SIGNATURE		0x30
#define SMB2_SIGNATURE_SIZE		16

/* Flags */
#define SMB2_FLAGS_SERVER_TO_REDIR	0x00000001
#define SMB2_FLAGS_ASYNC_COMMAND	0x00000002
#define SMB2_FLAGS_RELATED_OPERATIONS	0x00000004
#define SMB2_FLAGS_SIGNED		0x00000008
#define SMB2_FLAGS_PRIORITY_MASK	0x00000070
#define SMB2_FLAGS_DFS_OPERATIONS	0x10000000
#define SMB2_FLAGS_REPLAY_OPERATION	0x20000000

struct smb2_hdr {
	uint16_t credit_charge;
	uint32_t status;	/* ChannelSequence+Reserved in 3.x requests */
	uint16_t command;
	uint16_t credit;	/* CreditRequest / CreditResponse */
	uint32_t flags;
	uint32_t next_command;
	uint64_t message_id;
	uint64_t async_id;	/* if SMB2_FLAGS_ASYNC_COMMAND, else 0 */
	uint32_t process_id;	/* sync form only */
	uint32_t tree_id;	/* sync form only */
	uint64_t session_id;
	uint8_t signature[SMB2_SIGNATURE_SIZE];
};

/* 3.x requests: ChannelSequence is the low 16 bits of Status. */
static inline uint16_t smb2_hdr_channel_sequence(const struct smb2_hdr *h)
{
	return (uint16_t)(h->status & 0xFFFF);
}

/*
 * Pulls the 64-byte header at buf.  len < 64 or a ProtocolId other than
 * 0xFE 'SMB' or StructureSize != 64 → INVALID_PARAMETER.
 */
NTSTATUS smb2_hdr_pull(const uint8_t *buf, size_t len, struct smb2_hdr *out);

/* Writes 64 bytes; the async or sync form is chosen by in->flags. */
void smb2_hdr_push(const struct smb2_hdr *in, uint8_t *buf);

/* ------------------------------------------------------------------ */
/* Compound carving (MS-SMB2 3.3.5.2.7)                                 */

/* Elements per compound; more is refused (RELIABILITY.md item 15). */
#define SMB2_COMPOUND_MAX	256

struct smb2_pdu {
	struct smb2_hdr hdr;
	/* the whole element, from the header start (incl. padding) */
	const uint8_t *buf;
	size_t len;
	/* fixed body part: StructureSize & ~1 bytes after the header */
	const uint8_t *body;
	size_t body_len;
	/* dynamic part: offset from the header start, length */
	size_t dyn_ofs;
	size_t dyn_len;
	/*
	 * Result of smb2_pdu_check(), run by the carver: if not OK, answer
	 * this element with an error response carrying the status; body_len
	 * and dyn_len are then 0, so every pull fails safely.
	 */
	NTSTATUS status;
	/*
	 * Bytes of a WRITE's data that follow the PDU outside buf (the
	 * transport received them into pipes: the splice write mode).  Set
	 * by the server after carving a lone WRITE; 0 otherwise.
	 */
	size_t ext_len;
};

/*
 * Splits an NBT payload into compound elements by NextCommand and pulls
 * each header.  Any failure means the framing cannot be trusted and the
 * caller disconnects: element shorter than 64 bytes, a ProtocolId other
 * than 0xFE 'SMB', NextCommand < 66 or past the end or not 8-aligned,
 * more than SMB2_COMPOUND_MAX elements, or Command >= SMB2_OP_COUNT
 * (RELIABILITY.md items 5, 10) → INVALID_PARAMETER.
 * Per-element problems (header StructureSize, body StructureSize, body
 * too short) do not fail the carve; they are in pdus[i].status.
 * *pdus is a talloc array on mem_ctx.
 */
NTSTATUS smb2_compound_carve(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			     size_t len, struct smb2_pdu **pdus,
			     size_t *count);

/*
 * Per-element check: header StructureSize 64, body StructureSize equal
 * to the opcode's table value (OPLOCK_BREAK: 24 or 36), the fixed part
 * inside the element; fills body/body_len/dyn_ofs/dyn_len.  Errors are
 * INVALID_PARAMETER.  Idempotent; smb2_compound_carve already ran it.
 */
NTSTATUS smb2_pdu_check(struct smb2_pdu *pdu);

/*
 * The one checked accessor for the dynamic part (STYLE.md rule 19).
 * ofs is from the header start, as MS-SMB2 counts it.  len == 0
 * succeeds with *out = NULL whatever ofs is; otherwise [ofs, ofs+len)
 * must lie inside the dynamic part → else INVALID_PARAMETER.
 */
NTSTATUS smb2_pdu_dyn(const struct smb2_pdu *pdu, uint32_t ofs,
		      uint32_t len, const uint8_t **out);

/* ------------------------------------------------------------------ */
/* Body StructureSize values (MS-SMB2 2.2.2 - 2.2.40)                   */

#define SMB2_NEGPROT_REQ_SIZE		36
#define SMB2_NEGPROT_RSP_SIZE		65
#define SMB2_SESSSETUP_REQ_SIZE		25
#define SMB2_SESSSETUP_RSP_SIZE		9
#define SMB2_LOGOFF_REQ_SIZE		4
#define SMB2_LOGOFF_RSP_SIZE		4
#define SMB2_TCON_REQ_SIZE		9
#define SMB2_TCON_RSP_SIZE		16
#define SMB2_TDIS_REQ_SIZE		4
#define SMB2_TDIS_RSP_SIZE		4
#define SMB2_CREATE_REQ_SIZE		57
#define SMB2_CREATE_RSP_SIZE		89
#define SMB2_CLOSE_REQ_SIZE		24
#define SMB2_CLOSE_RSP_SIZE		60
#define SMB2_FLUSH_REQ_SIZE		24
#define SMB2_FLUSH_RSP_SIZE		4
#define SMB2_READ_REQ_SIZE		49
#define SMB2_READ_RSP_SIZE		17
#define SMB2_WRITE_REQ_SIZE		49
#define SMB2_WRITE_RSP_SIZE		17
#define SMB2_LOCK_REQ_SIZE		48
#define SMB2_LOCK_RSP_SIZE		4
#define SMB2_IOCTL_REQ_SIZE		57
#define SMB2_IOCTL_RSP_SIZE		49
#define SMB2_CANCEL_REQ_SIZE		4
#define SMB2_ECHO_REQ_SIZE		4
#define SMB2_ECHO_RSP_SIZE		4
#define SMB2_QUERY_DIRECTORY_REQ_SIZE	33
#define SMB2_QUERY_DIRECTORY_RSP_SIZE	9
#define SMB2_CHANGE_NOTIFY_REQ_SIZE	32
#define SMB2_CHANGE_NOTIFY_RSP_SIZE	9
#define SMB2_QUERY_INFO_REQ_SIZE	41
#define SMB2_QUERY_INFO_RSP_SIZE	9
#define SMB2_SET_INFO_REQ_SIZE		33
#define SMB2_SET_INFO_RSP_SIZE		2
#define SMB2_OPLOCK_BREAK_SIZE		24	/* notify, ack, response */
#define SMB2_LEASE_BREAK_ACK_SIZE	36	/* ack and response */
#define SMB2_LEASE_BREAK_NOTIFY_SIZE	44
#define SMB2_ERROR_RSP_SIZE		9

/* Request StructureSize for an opcode (OPLOCK_BREAK: 24); 0 if unknown. */
uint16_t smb2_req_struct_size(uint16_t command);

/* ------------------------------------------------------------------ */
/* Common pieces                                                       */

struct smb2_file_id {
	uint64_t persistent;
	uint64_t volatile_id;
};

/* FileId of a related compound element: "use the previous one". */
#define SMB2_FILE_ID_RELATED UINT64_MAX

/* A byte buffer: points into a request or at caller memory. */
struct smb2_blob {
	const uint8_t *data;
	size_t len;
};

/* Reads entry i of a little-endian uint16 array (dialects, algorithms). */
uint16_t smb2_u16_at(const uint8_t *arr, size_t i);
/* Whether a little-endian uint16 array of count entries holds v. */
bool smb2_u16_array_has(const uint8_t *arr, size_t count, uint16_t v);

/* ------------------------------------------------------------------ */
/* ERROR response (MS-SMB2 2.2.2)                                      */

/*
 * StructureSize 9, ErrorContextCount 0, ByteCount = data_len, then the
 * data; with no data one padding byte (9 bytes, as Windows sends).
 */
uint8_t *smb2_error_rsp_push(TALLOC_CTX *mem_ctx, const uint8_t *data,
			     size_t data_len, size_t *len);

/* ------------------------------------------------------------------ */
/* NEGOTIATE (MS-SMB2 2.2.3, 2.2.4)                                     */

#define SMB2_DIALECT_0202	0x0202
#define SMB2_DIALECT_0210	0x0210
#define SMB2_DIALECT_0300	0x0300
#define SMB2_DIALECT_0302	0x0302
#define SMB2_DIALECT_0311	0x0311
#define SMB2_DIALECT_WILDCARD	0x02FF

/* SecurityMode */
#define SMB2_NEGOTIATE_SIGNING_ENABLED	0x0001
#define SMB2_NEGOTIATE_SIGNING_REQUIRED	0x0002

/* Capabilities */
#define SMB2_GLOBAL_CAP_DFS			0x00000001
#define SMB2_GLOBAL_CAP_LEASING			0x00000002
#define SMB2_GLOBAL_CAP_LARGE_MTU		0x00000004
#define SMB2_GLOBAL_CAP_MULTI_CHANNEL		0x00000008
#define SMB2_GLOBAL_CAP_PERSISTENT_HANDLES	0x00000010
#define SMB2_GLOBAL_CAP_DIRECTORY_LEASING	0x00000020
#define SMB2_GLOBAL_CAP_ENCRYPTION		0x00000040
#define SMB2_GLOBAL_CAP_NOTIFICATIONS		0x00000080

/* Negotiate context types (2.2.3.1) */
#define SMB2_PREAUTH_INTEGRITY_CAPABILITIES	0x0001
#define SMB2_ENCRYPTION_CAPABILITIES		0x0002
#define SMB2_COMPRESSION_CAPABILITIES		0x0003
#define SMB2_NETNAME_NEGOTIATE_CONTEXT_ID	0x0005
#define SMB2_TRANSPORT_CAPABILITIES		0x0006
#define SMB2_RDMA_TRANSFORM_CAPABILITIES	0x0007
#define SMB2_SIGNING_CAPABILITIES		0x0008
#define SMB2_CONTEXTTYPE_RESERVED		0x0100

/* Hash algorithms (2.2.3.1.1) */
#define SMB2_PREAUTH_INTEGRITY_SHA512	0x0001
#define SMB2_PREAUTH_SALT_SIZE		32

/* Ciphers (2.2.3.1.2) */
#define SMB2_ENCRYPTION_AES128_CCM	0x0001
#define SMB2_ENCRYPTION_AES128_GCM	0x0002
#define SMB2_ENCRYPTION_AES256_CCM	0x0003
#define SMB2_ENCRYPTION_AES256_GCM	0x0004

/* Compression (2.2.3.1.3) */
#define SMB2_COMPRESSION_CAPABILITIES_FLAG_NONE		0x00000000
#define SMB2_COMPRESSION_CAPABILITIES_FLAG_CHAINED	0x00000001
#define SMB2_COMPRESSION_NONE		0x0000
#define SMB2_COMPRESSION_LZNT1		0x0001
#define SMB2_COMPRESSION_LZ77		0x0002
#define SMB2_COMPRESSION_LZ77_HUFFMAN	0x0003
#define SMB2_COMPRESSION_PATTERN_V1	0x0004
#define SMB2_COMPRESSION_LZ4		0x0005

/* Transport capabilities flags (2.2.3.1.5) */
#define SMB2_ACCEPT_TRANSPORT_LEVEL_SECURITY	0x00000001

/* RDMA transforms (2.2.3.1.6) */
#define SMB2_RDMA_TRANSFORM_NONE	0x0000
#define SMB2_RDMA_TRANSFORM_ENCRYPTION	0x0001
#define SMB2_RDMA_TRANSFORM_SIGNING	0x0002

/* Signing algorithms (2.2.3.1.7) */
#define SMB2_SIGNING_HMAC_SHA256	0x0000
#define SMB2_SIGNING_AES_CMAC		0x0001
#define SMB2_SIGNING_AES_GMAC		0x0002

/* Negotiate contexts accepted in one request; more → INVALID_PARAMETER. */
#define SMB2_NEGCTX_MAX		32

/* A negotiate context: Data points into the request (or caller memory). */
struct smb2_negctx {
	uint16_t type;
	const uint8_t *data;
	uint16_t len;
};

struct smb2_negprot_req {
	uint16_t dialect_count;
	uint16_t security_mode;
	uint32_t capabilities;
	uint8_t client_guid[16];
	/* the same 8 bytes, as 2.x and as 3.1.1 read them */
	uint64_t client_start_time;
	uint32_t negctx_offset;
	uint16_t negctx_count;
	/* dialect_count little-endian uint16s; use smb2_u16_at() */
	const uint8_t *dialects;
	/* parsed only when 0x0311 is among the dialects */
	struct smb2_negctx negctx[SMB2_NEGCTX_MAX];
	size_t num_negctx;
};

/*
 * DialectCount 0 or dialects past the end → INVALID_PARAMETER.  If 0x0311
 * is offered, the context list is walked (RELIABILITY.md 16-18): list
 * offset not 8-aligned, before the dialects' end or past the PDU; a
 * context header or data past the end; more than SMB2_NEGCTX_MAX → all
 * INVALID_PARAMETER.  The content of each context is not checked here;
 * use the typed pulls below.
 */
NTSTATUS smb2_negprot_req_pull(const struct smb2_pdu *pdu,
			       struct smb2_negprot_req *out);

/* The first context of a type (NULL if none); *n = how many there are. */
const struct smb2_negctx *smb2_negctx_find(const struct smb2_negprot_req *r,
					   uint16_t type, size_t *n);

struct smb2_negctx_preauth {
	uint16_t hash_count;
	uint16_t salt_len;
	const uint8_t *hash_algs;	/* hash_count LE uint16s */
	const uint8_t *salt;
};

struct smb2_negctx_encryption {
	uint16_t cipher_count;
	const uint8_t *ciphers;		/* cipher_count LE uint16s */
};

struct smb2_negctx_signing {
	uint16_t alg_count;
	const uint8_t *algs;		/* alg_count LE uint16s */
};

struct smb2_negctx_compression {
	uint16_t alg_count;
	uint32_t flags;
	const uint8_t *algs;		/* alg_count LE uint16s */
};

struct smb2_negctx_rdma {
	uint16_t transform_count;
	const uint8_t *transforms;	/* transform_count LE uint16s */
};

/* Typed pulls: counts of 0 or arrays past DataLength → INVALID_PARAMETER. */
NTSTATUS smb2_negctx_preauth_pull(const struct smb2_negctx *ctx,
				  struct smb2_negctx_preauth *out);
NTSTATUS smb2_negctx_encryption_pull(const struct smb2_negctx *ctx,
				     struct smb2_negctx_encryption *out);
NTSTATUS smb2_negctx_signing_pull(const struct smb2_negctx *ctx,
				  struct smb2_negctx_signing *out);
NTSTATUS smb2_negctx_compression_pull(const struct smb2_negctx *ctx,
				      struct smb2_negctx_compression *out);
NTSTATUS smb2_negctx_rdma_pull(const struct smb2_negctx *ctx,
			       struct smb2_negctx_rdma *out);
/* NetName: UTF-16LE bytes (odd length → INVALID_PARAMETER). */
NTSTATUS smb2_negctx_netname_pull(const struct smb2_negctx *ctx,
				  struct smb2_blob *out);
/* Transport capabilities: Flags (DataLength < 4 → INVALID_PARAMETER). */
NTSTATUS smb2_negctx_transport_pull(const struct smb2_negctx *ctx,
				    uint32_t *flags);

/*
 * Context data for the response, talloc'd on mem_ctx; NULL on ENOMEM.
 * preauth: HashAlgorithmCount 1 (SHA-512) and the 32-byte salt.
 * encryption / signing: one algorithm.
 * compression: the given algorithms (count >= 1), flags.
 */
uint8_t *smb2_negctx_preauth_push(TALLOC_CTX *mem_ctx,
				  const uint8_t salt[SMB2_PREAUTH_SALT_SIZE],
				  size_t *len);
uint8_t *smb2_negctx_encryption_push(TALLOC_CTX *mem_ctx, uint16_t cipher,
				     size_t *len);
uint8_t *smb2_negctx_signing_push(TALLOC_CTX *mem_ctx, uint16_t alg,
				  size_t *len);
uint8_t *smb2_negctx_compression_push(TALLOC_CTX *mem_ctx, uint32_t flags,
				      const uint16_t *algs, size_t count,
				      size_t *len);

struct smb2_negprot_rsp {
	uint16_t security_mode;
	uint16_t dialect;
	uint8_t server_guid[16];
	uint32_t capabilities;
	uint32_t max_transact;
	uint32_t max_read;
	uint32_t max_write;
	uint64_t system_time;
	uint64_t server_start_time;
	struct smb2_blob security;	/* SPNEGO init token, may be empty */
	/* emitted only for dialect 0x0311 */
	const struct smb2_negctx *negctx;
	size_t num_negctx;
};

/*
 * SecurityBufferOffset is 0x80; contexts follow the security buffer,
 * each 8-byte aligned from the header.  NULL on ENOMEM, or if the
 * security buffer or a context does not fit the 16-bit length fields.
 */
uint8_t *smb2_negprot_rsp_push(TALLOC_CTX *mem_ctx,
			       const struct smb2_negprot_rsp *in,
			       size_t *len);

/*
 * SMB1 NEGOTIATE from an old client (MS-SMB2 3.3.5.3.1): true if buf
 * (an NBT payload starting 0xFF 'SMB', command 0x72) offers "SMB 2.???"
 * (*dialect_out = 0x02FF) or else "SMB 2.002" (0x0202).  Everything is
 * bounds-checked; anything malformed is false.
 */
bool smb1_negprot_wants_smb2(const uint8_t *buf, size_t len,
			     uint16_t *dialect_out);

/* ------------------------------------------------------------------ */
/* SESSION_SETUP (MS-SMB2 2.2.5, 2.2.6)                                 */

#define SMB2_SESSION_FLAG_BINDING	0x01	/* request Flags */

/* response SessionFlags */
#define SMB2_SESSION_FLAG_IS_GUEST	0x0001
#define SMB2_SESSION_FLAG_IS_NULL	0x0002
#define SMB2_SESSION_FLAG_ENCRYPT_DATA	0x0004

struct smb2_sesssetup_req {
	uint8_t flags;
	uint8_t security_mode;
	uint32_t capabilities;
	uint32_t channel;
	uint64_t previous_session_id;
	struct smb2_blob security;	/* points into the request */
};

NTSTATUS smb2_sesssetup_req_pull(const struct smb2_pdu *pdu,
				 struct smb2_sesssetup_req *out);

struct smb2_sesssetup_rsp {
	uint16_t session_flags;
	struct smb2_blob security;
};

/* SecurityBufferOffset 0x48; NULL also if security.len > 65535. */
uint8_t *smb2_sesssetup_rsp_push(TALLOC_CTX *mem_ctx,
				 const struct smb2_sesssetup_rsp *in,
				 size_t *len);

/* ------------------------------------------------------------------ */
/* LOGOFF, TREE_DISCONNECT, ECHO, CANCEL: StructureSize 4 + Reserved    */

NTSTATUS smb2_logoff_req_pull(const struct smb2_pdu *pdu);
NTSTATUS smb2_tdis_req_pull(const struct smb2_pdu *pdu);
NTSTATUS smb2_echo_req_pull(const struct smb2_pdu *pdu);
NTSTATUS smb2_cancel_req_pull(const struct smb2_pdu *pdu);

/* The 4-byte body: StructureSize 4, Reserved 0 (also FLUSH, LOCK rsp). */
uint8_t *smb2_logoff_rsp_push(TALLOC_CTX *mem_ctx, size_t *len);
uint8_t *smb2_tdis_rsp_push(TALLOC_CTX *mem_ctx, size_t *len);
uint8_t *smb2_echo_rsp_push(TALLOC_CTX *mem_ctx, size_t *len);
uint8_t *smb2_flush_rsp_push(TALLOC_CTX *mem_ctx, size_t *len);
uint8_t *smb2_lock_rsp_push(TALLOC_CTX *mem_ctx, size_t *len);

/* ------------------------------------------------------------------ */
/* TREE_CONNECT (MS-SMB2 2.2.9, 2.2.10)                                 */

/* request Flags (3.1.1) */
#define SMB2_TREE_CONNECT_FLAG_CLUSTER_RECONNECT	0x0001
#define SMB2_TREE_CONNECT_FLAG_REDIRECT_TO_OWNER	0x0002
#define SMB2_TREE_CONNECT_FLAG_EXTENSION_PRESENT	0x0004

/* ShareType */
#define SMB2_SHARE_TYPE_DISK	0x01
#define SMB2_SHARE_TYPE_PIPE	0x02
#define SMB2_SHARE_TYPE_PRINT	0x03

struct smb2_tcon_req {
	uint16_t flags;
	struct smb2_blob path;	/* UTF-16LE bytes, even length */
};

/* Path outside the PDU or of odd length → INVALID_PARAMETER. */
NTSTATUS smb2_tcon_req_pull(const struct smb2_pdu *pdu,
			    struct smb2_tcon_req *out);

struct smb2_tcon_rsp {
	uint8_t share_type;
	uint32_t share_flags;
	uint32_t capabilities;
	uint32_t maximal_access;
};

uint8_t *smb2_tcon_rsp_push(TALLOC_CTX *mem_ctx,
			    const struct smb2_tcon_rsp *in, size_t *len);

/* ------------------------------------------------------------------ */
/* UTF-16LE <-> UTF-8 (utf16.c)                                        */

/*
 * Odd length, an unpaired surrogate or a NUL code unit →
 * INVALID_PARAMETER; ENOMEM → NO_MEMORY.  *out is NUL-terminated, on
 * mem_ctx.  len 0 gives "".
 */
NTSTATUS smb2_utf16_to_utf8(TALLOC_CTX *mem_ctx, const uint8_t *p,
			    size_t len, char **out);

/*
 * s is slen bytes of UTF-8 (no terminator needed).  Invalid UTF-8
 * (overlong, surrogates, > U+10FFFF, truncated) or a NUL →
 * INVALID_PARAMETER.  *out has *out_len bytes (no terminator), on mem_ctx.
 */
NTSTATUS smb2_utf8_to_utf16(TALLOC_CTX *mem_ctx, const char *s, size_t slen,
			    uint8_t **out, size_t *out_len);

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

/* ------------------------------------------------------------------ */
/* IOCTL (MS-SMB2 2.2.31, 2.2.32)                                       */

#define SMB2_0_IOCTL_IS_FSCTL	0x00000001

/* IOCTL response Buffer offset from the header: 64 + 48. */
#define SMB2_IOCTL_RSP_BUFFER_OFFSET	0x70

struct smb2_ioctl_req {
	uint32_t ctl_code;
	struct smb2_file_id file_id;
	struct smb2_blob input;
	uint32_t max_input_response;
	struct smb2_blob output;	/* rarely used by clients */
	uint32_t max_output_response;
	uint32_t flags;
};

NTSTATUS smb2_ioctl_req_pull(const struct smb2_pdu *pdu,
			     struct smb2_ioctl_req *out);

struct smb2_ioctl_rsp {
	uint32_t ctl_code;
	struct smb2_file_id file_id;
	struct smb2_blob input;		/* echoed input, usually empty */
	struct smb2_blob output;
	uint32_t flags;
};

/* Input at 0x70, output 8-aligned after it; empty → offset 0x70 too. */
uint8_t *smb2_ioctl_rsp_push(TALLOC_CTX *mem_ctx,
			     const struct smb2_ioctl_rsp *in, size_t *len);

/* ------------------------------------------------------------------ */
/* QUERY_DIRECTORY (MS-SMB2 2.2.33, 2.2.34)                             */

#define SMB2_RESTART_SCANS		0x01
#define SMB2_RETURN_SINGLE_ENTRY	0x02
#define SMB2_INDEX_SPECIFIED		0x04
#define SMB2_REOPEN			0x10

/* OutputBufferOffset of the 9-byte responses: 64 + 8. */
#define SMB2_OUTBUF_RSP_OFFSET	0x48

struct smb2_query_directory_req {
	uint8_t file_information_class;
	uint8_t flags;
	uint32_t file_index;
	struct smb2_file_id file_id;
	uint32_t output_buffer_length;
	struct smb2_blob name;	/* pattern, UTF-16LE bytes, even length */
};

NTSTATUS smb2_query_directory_req_pull(const struct smb2_pdu *pdu,
				       struct smb2_query_directory_req *out);

/*
 * QUERY_DIRECTORY, CHANGE_NOTIFY and QUERY_INFO responses share one
 * layout: StructureSize 9, OutputBufferOffset 0x48, OutputBufferLength,
 * the buffer (empty → a pad byte).
 */
uint8_t *smb2_query_directory_rsp_push(TALLOC_CTX *mem_ctx,
				       const struct smb2_blob *output,
				       size_t *len);
uint8_t *smb2_change_notify_rsp_push(TALLOC_CTX *mem_ctx,
				     const struct smb2_blob *output,
				     size_t *len);
uint8_t *smb2_query_info_rsp_push(TALLOC_CTX *mem_ctx,
				  const struct smb2_blob *output,
				  size_t *len);

/* ------------------------------------------------------------------ */
/* CHANGE_NOTIFY (MS-SMB2 2.2.35)                                       */

#define SMB2_WATCH_TREE	0x0001

struct smb2_change_notify_req {
	uint16_t flags;
	uint32_t output_buffer_length;
	struct smb2_file_id file_id;
	uint32_t completion_filter;
};

NTSTATUS smb2_change_notify_req_pull(const struct smb2_pdu *pdu,
				     struct smb2_change_notify_req *out);

/* ------------------------------------------------------------------ */
/* QUERY_INFO (MS-SMB2 2.2.37, 2.2.38), SET_INFO (2.2.39, 2.2.40)       */

/* InfoType */
#define SMB2_INFO_FILE		0x01
#define SMB2_INFO_FILESYSTEM	0x02
#define SMB2_INFO_SECURITY	0x03
#define SMB2_INFO_QUOTA		0x04

/* QUERY_INFO Flags */
#define SMB2_SL_RESTART_SCAN		0x00000001
#define SMB2_SL_RETURN_SINGLE_ENTRY	0x00000002
#define SMB2_SL_INDEX_SPECIFIED		0x00000004

struct smb2_query_info_req {
	uint8_t info_type;
	uint8_t file_info_class;
	uint32_t output_buffer_length;
	struct smb2_blob input;
	uint32_t additional_information;
	uint32_t flags;
	struct smb2_file_id file_id;
};

NTSTATUS smb2_query_info_req_pull(const struct smb2_pdu *pdu,
				  struct smb2_query_info_req *out);

struct smb2_set_info_req {
	uint8_t info_type;
	uint8_t file_info_class;
	struct smb2_blob buffer;
	uint32_t additional_information;
	struct smb2_file_id file_id;
};

NTSTATUS smb2_set_info_req_pull(const struct smb2_pdu *pdu,
				struct smb2_set_info_req *out);

/* The 2-byte body: StructureSize 2. */
uint8_t *smb2_set_info_rsp_push(TALLOC_CTX *mem_ctx, size_t *len);

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
