/*
 * What every lib/smb2 codec stands on: opcodes, the 64-byte header, compound
 * carving and the checked access to a request's dynamic part, the body
 * StructureSize values, common pieces (FileId, blob), the ERROR response
 * and UTF-16 (hdr.c, ops.c, compound.c, simple_codec.c, utf16.c).
 * Part of the API of lib/smb2/smb2.h; include that.
 */
#ifndef RINGSMB_SMB2_FRAME_H
#define RINGSMB_SMB2_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"
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

/*
 * Sets NextCommand in a pushed header (64 bytes at buf), once the size
 * of the element it belongs to, padding included, is known.
 */
void smb2_hdr_set_next_command(uint8_t *buf, uint32_t next_command);

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

/* ErrorData of STATUS_BUFFER_TOO_SMALL (2.2.2.2): the size needed. */
#define SMB2_ERROR_BUFFER_SIZE_LEN	4

/* Writes the 4 bytes at buf; 0 if len is smaller. */
size_t smb2_error_buffer_size_push(uint32_t needed, uint8_t *buf,
				   size_t len);


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

#endif
