/*
 * SMB2 TRANSFORM_HEADER (MS-SMB2 2.2.41): the 52 bytes in front of an
 * encrypted message.  A pure codec; the AEAD itself
 * is lib/crypto (smb2_encrypt / smb2_decrypt), which uses the offsets
 * defined here.
 *
 *	0x00 ProtocolId		0xFD 'S' 'M' 'B'
 *	0x04 Signature[16]	the AEAD tag
 *	0x14 Nonce[16]		11 bytes used for CCM, 12 for GCM, rest 0
 *	0x24 OriginalMessageSize
 *	0x28 Reserved (2)
 *	0x2A Flags/EncryptionAlgorithm (2), 0x0001 = encrypted
 *	0x2C SessionId (8)
 *
 * The authenticated data is the header from Nonce to the end (32 bytes).
 */
#ifndef RINGSMB_SMB2_TRANSFORM_H
#define RINGSMB_SMB2_TRANSFORM_H

#include <stddef.h>
#include <stdint.h>
#include "lib/util/ntstatus.h"

#define SMB2_TRANSFORM_HDR_SIZE		52
#define SMB2_TF_PROTOCOL_ID		0x424D53FDu	/* LE of FD 'SMB' */

#define SMB2_TF_OFS_PROTOCOL_ID		0x00
#define SMB2_TF_OFS_SIGNATURE		0x04
#define SMB2_TF_OFS_NONCE		0x14
#define SMB2_TF_OFS_MSG_SIZE		0x24
#define SMB2_TF_OFS_RESERVED		0x28
#define SMB2_TF_OFS_FLAGS		0x2A
#define SMB2_TF_OFS_SESSION_ID		0x2C

#define SMB2_TF_SIGNATURE_SIZE		16
#define SMB2_TF_NONCE_SIZE		16
#define SMB2_TF_AAD_OFS			SMB2_TF_OFS_NONCE
#define SMB2_TF_AAD_SIZE		(SMB2_TRANSFORM_HDR_SIZE - SMB2_TF_AAD_OFS)

/* Flags: 3.1.1 "encrypted"; 3.0.x EncryptionAlgorithm AES-128-CCM. */
#define SMB2_TRANSFORM_FLAG_ENCRYPTED	0x0001

struct smb2_transform_hdr {
	uint8_t signature[SMB2_TF_SIGNATURE_SIZE];
	uint8_t nonce[SMB2_TF_NONCE_SIZE];
	uint32_t msg_size;		/* OriginalMessageSize */
	uint16_t flags;
	uint64_t session_id;
	/* pull only: the msg_size encrypted bytes after the header */
	const uint8_t *msg;
};

/*
 * buf/len: from the transform header to the end of the transport frame.
 * NT_STATUS_INVALID_PARAMETER if len < 52, the protocol id is not
 * 0xFD 'SMB', Flags is not 1, or OriginalMessageSize is 0 or more than
 * the bytes after the header.  Bytes after the message are not part of
 * it; *consumed (may be NULL) says where it ends.
 */
NTSTATUS smb2_transform_pull(const uint8_t *buf, size_t len,
			     struct smb2_transform_hdr *out,
			     size_t *consumed);

/* Writes the 52 bytes (Reserved = 0); in->msg is not used. */
void smb2_transform_push(const struct smb2_transform_hdr *in,
			 uint8_t out[SMB2_TRANSFORM_HDR_SIZE]);

#endif
