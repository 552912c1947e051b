/*
 * SESSION_SETUP (MS-SMB2 2.2.5, 2.2.6), TREE_CONNECT (2.2.9, 2.2.10) and
 * the bodies that are only a StructureSize (LOGOFF, TREE_DISCONNECT,
 * ECHO, CANCEL): session_codec.c, tree_codec.c, simple_codec.c.
 * Part of lib/smb2/smb2.h; include that.
 */
#ifndef RINGSMB_SMB2_SESSION_H
#define RINGSMB_SMB2_SESSION_H

#include "lib/smb2/smb2_frame.h"

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

#endif
