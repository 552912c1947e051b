/*
 * The client direction of lib/smb2 (client_codec.c, client_pull.c):
 * requests pushed into caller memory, responses pulled from a server's
 * bytes.  The server direction (request pull, response push) is in the
 * other codec headers; both share the header, cursor and negotiate
 * context helpers.  Used by smb2bench (source3/utils/smb2bench).
 *
 * Pushes write the request BODY (after the 64-byte header) into w and
 * return its length, 0 if it did not fit.  Offsets inside a body are
 * written from the start of the SMB2 header, as MS-SMB2 counts them.
 *
 * Pulls: smb2_rsp_carve() checks one response (header, body
 * StructureSize, fixed part inside) and fills a struct smb2_pdu; then the
 * typed pulls read it through the same checked accessors the server uses
 * (smb2_pdu_dyn), so a server's offsets are never trusted.
 */
#ifndef RINGSMB_SMB2_CLIENT_H
#define RINGSMB_SMB2_CLIENT_H

#include "lib/smb2/smb2.h"

/* ------------------------------------------------------------------ */
/* Requests                                                            */

struct smb2_negprot_creq {
	const uint16_t *dialects;
	size_t num_dialects;
	uint16_t security_mode;
	uint32_t capabilities;
	uint8_t client_guid[16];
	/* 3.1.1 contexts (only if 0x0311 is among the dialects) */
	const struct smb2_negctx *negctx;
	size_t num_negctx;
};
size_t smb2_negprot_creq_push(const struct smb2_negprot_creq *in,
			      uint8_t *buf, size_t len);

struct smb2_sesssetup_creq {
	uint8_t flags;			/* SMB2_SESSION_FLAG_BINDING or 0 */
	uint8_t security_mode;
	uint32_t capabilities;
	struct smb2_blob security;
};
size_t smb2_sesssetup_creq_push(const struct smb2_sesssetup_creq *in,
				uint8_t *buf, size_t len);

/* path: UTF-16LE "\\server\share" */
size_t smb2_tcon_creq_push(struct smb2_blob path, uint8_t *buf, size_t len);

struct smb2_create_creq {
	uint32_t desired_access;
	uint32_t file_attributes;
	uint32_t share_access;
	uint32_t create_disposition;
	uint32_t create_options;
	struct smb2_blob name;		/* UTF-16LE, relative to the share */
};
size_t smb2_create_creq_push(const struct smb2_create_creq *in,
			     uint8_t *buf, size_t len);

size_t smb2_close_creq_push(const struct smb2_file_id *fid, uint8_t *buf,
			    size_t len);

/* READ: the fixed 48 bytes plus the one Buffer byte MS-SMB2 asks for. */
#define SMB2_READ_CREQ_LEN	49
size_t smb2_read_creq_push(const struct smb2_file_id *fid, uint64_t offset,
			   uint32_t length, uint8_t *buf, size_t len);

/*
 * WRITE: the fixed 48 bytes; the data follows at DataOffset 0x70 (header
 * + 48), sent from its own buffer.
 */
#define SMB2_WRITE_CREQ_LEN	48
#define SMB2_WRITE_CREQ_DATA_OFFSET (SMB2_HDR_SIZE + SMB2_WRITE_CREQ_LEN)
size_t smb2_write_creq_push(const struct smb2_file_id *fid, uint64_t offset,
			    uint32_t length, uint8_t *buf, size_t len);

/*
 * An FSCTL with no input, on no file (FileId all ones), asking for at
 * most max_output bytes: FSCTL_QUERY_NETWORK_INTERFACE_INFO (2.2.31).
 */
#define SMB2_IOCTL_CREQ_LEN	57
size_t smb2_fsctl_creq_push(uint32_t ctl_code, uint32_t max_output,
			    uint8_t *buf, size_t len);

/* QUERY_INFO (2.2.37) of a file class, no input: 40 bytes + 1. */
#define SMB2_QUERY_INFO_CREQ_LEN 41
size_t smb2_query_info_creq_push(const struct smb2_file_id *fid,
				 uint8_t info_type, uint8_t info_class,
				 uint32_t max_output, uint8_t *buf,
				 size_t len);

/* QUERY_DIRECTORY (2.2.33); pattern: UTF-16LE, e.g. "*". */
size_t smb2_query_directory_creq_push(const struct smb2_file_id *fid,
				      uint8_t info_class, uint8_t flags,
				      struct smb2_blob pattern,
				      uint32_t max_output, uint8_t *buf,
				      size_t len);

/* LOGOFF, TREE_DISCONNECT: StructureSize 4, Reserved. */
size_t smb2_simple_creq_push(uint8_t *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Responses                                                           */

/*
 * One response PDU (a single element: smb2bench never compounds).
 * Header pulled, then the body: StructureSize must be rsp_size, or 9 for
 * an ERROR response (then *is_error and only the header is usable).
 * Body past the PDU or a bad header → INVALID_PARAMETER.
 */
NTSTATUS smb2_rsp_carve(const uint8_t *buf, size_t len, uint16_t rsp_size,
			struct smb2_pdu *pdu, bool *is_error);

/* The response StructureSize for an opcode, 0 if unknown. */
uint16_t smb2_rsp_struct_size(uint16_t command);

struct smb2_negprot_crsp {
	uint16_t security_mode;
	uint16_t dialect;
	uint8_t server_guid[16];
	uint32_t capabilities;
	uint32_t max_transact;
	uint32_t max_read;
	uint32_t max_write;
	struct smb2_blob security;
	struct smb2_negctx negctx[SMB2_NEGCTX_MAX];
	size_t num_negctx;
};
NTSTATUS smb2_negprot_crsp_pull(const struct smb2_pdu *pdu,
				struct smb2_negprot_crsp *out);

/*
 * The algorithm a 3.1.1 NEGOTIATE response chose in its context of type
 * (SMB2_SIGNING_CAPABILITIES, SMB2_ENCRYPTION_CAPABILITIES): the server
 * names exactly one; dflt when the context is absent or names none.
 */
uint16_t smb2_negprot_crsp_chosen(const struct smb2_negprot_crsp *r,
				  uint16_t type, uint16_t dflt);

struct smb2_sesssetup_crsp {
	uint16_t session_flags;
	struct smb2_blob security;
};
NTSTATUS smb2_sesssetup_crsp_pull(const struct smb2_pdu *pdu,
				  struct smb2_sesssetup_crsp *out);

struct smb2_tcon_crsp {
	uint8_t share_type;
	uint32_t share_flags;
	uint32_t capabilities;
	uint32_t maximal_access;
};
NTSTATUS smb2_tcon_crsp_pull(const struct smb2_pdu *pdu,
			     struct smb2_tcon_crsp *out);

struct smb2_create_crsp {
	uint32_t create_action;
	uint64_t end_of_file;
	struct smb2_file_id file_id;
};
NTSTATUS smb2_create_crsp_pull(const struct smb2_pdu *pdu,
			       struct smb2_create_crsp *out);

/* data points into the PDU; DataOffset 0 with DataLength 0 is allowed. */
NTSTATUS smb2_read_crsp_pull(const struct smb2_pdu *pdu,
			     struct smb2_blob *data);

/*
 * QUERY_INFO and QUERY_DIRECTORY responses (2.2.38, 2.2.34): the output
 * buffer, pointing into the PDU.
 */
NTSTATUS smb2_outbuf_crsp_pull(const struct smb2_pdu *pdu,
			       struct smb2_blob *output);

/* IOCTL (2.2.32): the Output buffer, pointing into the PDU. */
NTSTATUS smb2_ioctl_crsp_pull(const struct smb2_pdu *pdu,
			      struct smb2_blob *output);

NTSTATUS smb2_write_crsp_pull(const struct smb2_pdu *pdu, uint32_t *count);

#endif
