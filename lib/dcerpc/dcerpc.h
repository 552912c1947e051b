/*
 * DCE/RPC connection-oriented PDUs (MS-RPCE 2.2.2, C706 chapter 12) and
 * an NDR20 cursor for stub data: the public API of lib/dcerpc.
 *
 * Pure codecs in the lib/smb2 style: bytes in, struct out, no I/O.  A
 * pull checks every length against the buffer it was given (by
 * subtraction) and refuses, with NT_STATUS_INVALID_PARAMETER, anything
 * the server should answer with a protocol error or a closed pipe.
 * Results may point into the input (stub data, auth trailer); arrays
 * (presentation contexts, results) are allocated on the caller's
 * talloc context.
 *
 * Only little-endian, ASCII, IEEE data representation is accepted: every
 * client we serve (Windows, Samba, impacket) sends it, and a server may
 * refuse the others (docs/dcerpc.md).
 */
#ifndef RINGSMB_DCERPC_H
#define RINGSMB_DCERPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"

/* ---------------------------------------------------------------- */
/* Common header (MS-RPCE 2.2.2.1, C706 12.6.3.1)                     */
/* ---------------------------------------------------------------- */

#define DCERPC_HDR_SIZE		16
#define DCERPC_RPC_VERS		5
#define DCERPC_RPC_VERS_MINOR	0
/* drep[0]: integer representation (high nibble) 1 = little-endian,
 * character representation (low nibble) 0 = ASCII */
#define DCERPC_DREP_LE_ASCII	0x10
/* sec_trailer (MS-RPCE 2.2.2.11) in front of auth_length auth bytes */
#define DCERPC_AUTH_TRAILER_SIZE 8

enum dcerpc_ptype {
	DCERPC_PT_REQUEST = 0,
	DCERPC_PT_RESPONSE = 2,
	DCERPC_PT_FAULT = 3,
	DCERPC_PT_BIND = 11,
	DCERPC_PT_BIND_ACK = 12,
	DCERPC_PT_BIND_NAK = 13,
	DCERPC_PT_ALTER_CONTEXT = 14,
	DCERPC_PT_ALTER_CONTEXT_RESP = 15,
	DCERPC_PT_AUTH3 = 16,
	DCERPC_PT_SHUTDOWN = 17,
	DCERPC_PT_CO_CANCEL = 18,
	DCERPC_PT_ORPHANED = 19,
};

/* pfc_flags (MS-RPCE 2.2.2.3) */
#define DCERPC_PFC_FIRST_FRAG		0x01
#define DCERPC_PFC_LAST_FRAG		0x02
#define DCERPC_PFC_PENDING_CANCEL	0x04	/* not in bind PDUs */
/* the same bit in bind and alter_context PDUs */
#define DCERPC_PFC_SUPPORT_HEADER_SIGN	0x04
#define DCERPC_PFC_CONC_MPX		0x10
#define DCERPC_PFC_DID_NOT_EXECUTE	0x20
#define DCERPC_PFC_MAYBE		0x40
#define DCERPC_PFC_OBJECT_UUID		0x80

/* Sanity limits on client-sent counts; Windows offers 2-3 contexts. */
#define DCERPC_MAX_CONTEXTS		16
#define DCERPC_MAX_TRANSFER_SYNTAXES	32
#define DCERPC_MAX_NAK_VERSIONS		8

struct dcerpc_hdr {
	uint8_t ptype;
	uint8_t pfc_flags;
	uint16_t frag_length;
	uint16_t auth_length;
	uint32_t call_id;
};

/*
 * The first 16 bytes of a fragment: version, drep and a frag_length that
 * can hold the header and the auth trailer.  For the pipe layer, which
 * needs frag_length before the whole fragment is in.
 */
NTSTATUS dcerpc_hdr_pull(const uint8_t *buf, size_t len,
			 struct dcerpc_hdr *out);

/* ---------------------------------------------------------------- */
/* Syntax identifiers (C706 12.6.3.1 p_syntax_id_t)                   */
/* ---------------------------------------------------------------- */

/* A UUID as NDR lays it out: the first three fields little-endian. */
struct dcerpc_uuid {
	uint32_t time_low;
	uint16_t time_mid;
	uint16_t time_hi_and_version;
	uint8_t clock_seq[2];
	uint8_t node[6];
};

#define DCERPC_UUID_SIZE	16
#define DCERPC_SYNTAX_SIZE	20

/* if_version on the wire is major in the low 16 bits, minor above. */
struct dcerpc_syntax {
	struct dcerpc_uuid uuid;
	uint16_t major;
	uint16_t minor;
};

bool dcerpc_uuid_equal(const struct dcerpc_uuid *a,
		       const struct dcerpc_uuid *b);
bool dcerpc_syntax_equal(const struct dcerpc_syntax *a,
			 const struct dcerpc_syntax *b);

/* Well-known syntaxes (syntax.c; sources in docs/dcerpc.md). */
extern const struct dcerpc_syntax dcerpc_syntax_ndr20;	/* v2.0 */
extern const struct dcerpc_syntax dcerpc_syntax_ndr64;	/* v1.0 */
extern const struct dcerpc_syntax dcerpc_syntax_srvsvc;	/* v3.0 */
extern const struct dcerpc_syntax dcerpc_syntax_wkssvc;	/* v1.0 */

/* ---------------------------------------------------------------- */
/* PDU bodies                                                         */
/* ---------------------------------------------------------------- */

/* p_cont_elem_t */
struct dcerpc_ctx_elem {
	uint16_t cont_id;
	uint8_t num_transfer;
	struct dcerpc_syntax abstract;
	struct dcerpc_syntax *transfer;	/* num_transfer, on mem_ctx */
};

/* bind and alter_context (MS-RPCE 2.2.2.4 / C706 12.6.4.3, 12.6.4.1) */
struct dcerpc_bind {
	uint16_t max_xmit_frag;
	uint16_t max_recv_frag;
	uint32_t assoc_group_id;
	uint8_t num_contexts;
	struct dcerpc_ctx_elem *ctx;	/* num_contexts, on mem_ctx */
};

/* p_cont_def_result_t */
enum dcerpc_result {
	DCERPC_RESULT_ACCEPTANCE = 0,
	DCERPC_RESULT_USER_REJECTION = 1,
	DCERPC_RESULT_PROVIDER_REJECTION = 2,
	DCERPC_RESULT_NEGOTIATE_ACK = 3,	/* MS-RPCE 3.3.1.5.3 */
};

/* p_provider_reason_t */
enum dcerpc_provider_reason {
	DCERPC_REASON_NOT_SPECIFIED = 0,
	DCERPC_REASON_ABSTRACT_SYNTAX_NOT_SUPPORTED = 1,
	DCERPC_REASON_TRANSFER_SYNTAXES_NOT_SUPPORTED = 2,
	DCERPC_REASON_LOCAL_LIMIT_EXCEEDED = 3,
};

struct dcerpc_ctx_result {
	uint16_t result;
	uint16_t reason;
	struct dcerpc_syntax transfer;
};

/* bind_ack and alter_context_resp (C706 12.6.4.4, 12.6.4.2) */
struct dcerpc_bind_ack {
	uint16_t max_xmit_frag;
	uint16_t max_recv_frag;
	uint32_t assoc_group_id;
	/* port_spec: sec_addr_len bytes including the NUL, or 0 and NULL */
	const char *sec_addr;
	uint16_t sec_addr_len;
	uint8_t num_results;
	struct dcerpc_ctx_result *results;	/* on mem_ctx */
};

/* p_reject_reason_t (C706 12.6.3.1, MS-RPCE 2.2.2.5) */
enum dcerpc_reject_reason {
	DCERPC_NAK_REASON_NOT_SPECIFIED = 0,
	DCERPC_NAK_TEMPORARY_CONGESTION = 1,
	DCERPC_NAK_LOCAL_LIMIT_EXCEEDED = 2,
	DCERPC_NAK_PROTOCOL_VERSION_NOT_SUPPORTED = 4,
	DCERPC_NAK_AUTHENTICATION_TYPE_NOT_RECOGNIZED = 8,
	DCERPC_NAK_INVALID_CHECKSUM = 9,
};

struct dcerpc_version {
	uint8_t major;
	uint8_t minor;
};

/* bind_nak (C706 12.6.4.5); anything after the versions is ignored. */
struct dcerpc_bind_nak {
	uint16_t reject_reason;
	uint8_t num_versions;
	struct dcerpc_version versions[DCERPC_MAX_NAK_VERSIONS];
};

/* request (C706 12.6.4.9) */
struct dcerpc_request {
	uint32_t alloc_hint;
	uint16_t cont_id;
	uint16_t opnum;
	struct dcerpc_uuid object;	/* when pfc_flags has OBJECT_UUID */
	const uint8_t *stub;
	size_t stub_len;
};

/* response (C706 12.6.4.10) */
struct dcerpc_response {
	uint32_t alloc_hint;
	uint16_t cont_id;
	uint8_t cancel_count;
	const uint8_t *stub;
	size_t stub_len;
};

/* fault (C706 12.6.4.7, MS-RPCE 2.2.2.9); status is an nca_s_ or
 * Win32 code, not an NTSTATUS */
struct dcerpc_fault {
	uint32_t alloc_hint;
	uint16_t cont_id;
	uint8_t cancel_count;
	uint8_t flags;		/* MS-RPCE: extended error present */
	uint32_t status;
	const uint8_t *stub;	/* extended error info, usually empty */
	size_t stub_len;
};

/* Common fault codes (C706 appendix E, MS-RPCE 2.2.2.9). */
#define DCERPC_NCA_S_OP_RNG_ERROR	0x1c010002
#define DCERPC_NCA_S_UNK_IF		0x1c010003
#define DCERPC_NCA_S_PROTO_ERROR	0x1c01000b
#define DCERPC_NCA_S_FAULT_REMOTE_NO_MEMORY 0x1c00001b
#define DCERPC_FAULT_ACCESS_DENIED	0x00000005
/* RPC_X_BAD_STUB_DATA */
#define DCERPC_FAULT_BAD_STUB_DATA	0x000006f7

/* sec_trailer (MS-RPCE 2.2.2.11) and the auth value behind it */
struct dcerpc_auth {
	uint8_t auth_type;
	uint8_t auth_level;
	uint8_t auth_pad_length;
	uint32_t auth_context_id;
	const uint8_t *value;	/* hdr.auth_length bytes */
};

struct dcerpc_pdu {
	struct dcerpc_hdr hdr;
	bool has_auth;		/* hdr.auth_length != 0 */
	struct dcerpc_auth auth;
	union {
		struct dcerpc_bind bind;	/* BIND, ALTER_CONTEXT */
		/* BIND_ACK, ALTER_CONTEXT_RESP */
		struct dcerpc_bind_ack ack;
		struct dcerpc_bind_nak nak;
		struct dcerpc_request req;
		struct dcerpc_response rsp;
		struct dcerpc_fault fault;
	} u;
};

/*
 * One whole fragment: len must equal frag_length.  Types other than the
 * ones in the union (auth3, shutdown, co_cancel, orphaned) pull their
 * header and auth trailer only; the caller decides what to do with them.
 * Any auth padding (auth_pad_length) is taken off the end of the body.
 */
NTSTATUS dcerpc_pdu_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			 size_t len, struct dcerpc_pdu *out);

/*
 * The wire form of in; frag_length and auth_length are computed (the
 * ones in in->hdr are ignored), the auth trailer is written when
 * has_auth (value of in->hdr.auth_length bytes, after auth_pad_length
 * zero bytes).  NT_STATUS_INVALID_PARAMETER if a count is above its
 * limit or the fragment would not fit in 16 bits.
 */
NTSTATUS dcerpc_pdu_push(TALLOC_CTX *mem_ctx, const struct dcerpc_pdu *in,
			 uint8_t **out, size_t *out_len);

/* ---------------------------------------------------------------- */
/* NDR20 stub data (C706 chapter 14), little-endian                   */
/* ---------------------------------------------------------------- */

/*
 * A reader over stub data with a sticky error.  Alignment is relative
 * to the start of the stub (NDR aligns from the start of the octet
 * stream, which is where the stub begins in a request or response).
 */
struct ndr_pull {
	const uint8_t *p;
	size_t len;
	size_t ofs;
	bool bad;
};

/* Refuse strings longer than this many UTF-16 units (with the NUL). */
#define NDR_MAX_STRING_UNITS	65536

struct ndr_pull ndr_pull_init(const uint8_t *p, size_t len);
void ndr_pull_align(struct ndr_pull *c, size_t a);
uint8_t ndr_pull_u8(struct ndr_pull *c);
uint16_t ndr_pull_u16(struct ndr_pull *c);
uint32_t ndr_pull_u32(struct ndr_pull *c);
uint64_t ndr_pull_u64(struct ndr_pull *c);
/* Samba's udlong (NTTIME): two u32, low first, aligned to 4, not 8. */
uint64_t ndr_pull_udlong(struct ndr_pull *c);
/*
 * Samba's utf8string (STR_UTF8|STR_NULLTERM): bytes up to a NUL, or the
 * rest without one; at least one byte.  *s points into the stub, *len
 * excludes the NUL.  Not aligned; the bytes are not checked as UTF-8.
 */
void ndr_pull_utf8z(struct ndr_pull *c, const uint8_t **s, size_t *len);
void ndr_pull_uuid(struct ndr_pull *c, struct dcerpc_uuid *out);
/* n bytes, not aligned: NULL (and bad) when they are not all there. */
const uint8_t *ndr_pull_bytes(struct ndr_pull *c, size_t n);
/*
 * A unique or full pointer's referent id: false for NULL (id 0), true
 * when a referent follows (deferred, where the caller's type says).
 */
bool ndr_pull_unique_ptr(struct ndr_pull *c, uint32_t *ref_id);
/*
 * A [string] wchar_t* referent: max_count, offset (must be 0),
 * actual_count (1..max_count, at most NDR_MAX_STRING_UNITS), then
 * actual_count UTF-16LE units ending with the only NUL.  *units points
 * into the stub, *n_units excludes the NUL.
 */
void ndr_pull_string(struct ndr_pull *c, const uint8_t **units,
		     size_t *n_units);

/*
 * A writer that grows a talloc buffer.  Failure (no memory, or more than
 * NDR_PUSH_MAX bytes) is sticky; check w.bad once at the end.
 */
struct ndr_push {
	TALLOC_CTX *mem_ctx;
	uint8_t *buf;
	size_t len;
	size_t cap;
	uint32_t next_ref_id;
	bool bad;
};

#define NDR_PUSH_MAX	(16u * 1024 * 1024)

struct ndr_push ndr_push_init(TALLOC_CTX *mem_ctx);
void ndr_push_align(struct ndr_push *w, size_t a);
void ndr_push_u8(struct ndr_push *w, uint8_t v);
void ndr_push_u16(struct ndr_push *w, uint16_t v);
void ndr_push_u32(struct ndr_push *w, uint32_t v);
void ndr_push_u64(struct ndr_push *w, uint64_t v);
void ndr_push_bytes(struct ndr_push *w, const void *p, size_t n);
void ndr_push_udlong(struct ndr_push *w, uint64_t v);
void ndr_push_uuid(struct ndr_push *w, const struct dcerpc_uuid *u);
/* A referent id (0x00020000, +4 each, as Windows numbers them) or 0. */
void ndr_push_unique_ptr(struct ndr_push *w, bool present);
/* n_units UTF-16LE units (no NUL) as a conformant varying string. */
void ndr_push_string(struct ndr_push *w, const uint8_t *units,
		     size_t n_units);

#endif
