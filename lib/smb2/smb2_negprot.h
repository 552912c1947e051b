/*
 * NEGOTIATE (MS-SMB2 2.2.3, 2.2.4): dialects, capabilities, negotiate
 * contexts (negprot_codec.c, negctx.c) and the SMB1 NEGOTIATE that asks
 * for SMB2 (smb1_negprot.c).  Part of lib/smb2/smb2.h; include that.
 */
#ifndef RINGSMB_SMB2_NEGPROT_H
#define RINGSMB_SMB2_NEGPROT_H

#include "lib/smb2/smb2_frame.h"

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

#endif
