/*
 * lib/auth internals: shared between the files of lib/auth and the unit
 * tests, never used outside.
 */
#ifndef RINGSMB_AUTH_PRIVATE_H
#define RINGSMB_AUTH_PRIVATE_H

#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "lib/auth/auth.h"

/* A read-only view into someone else's buffer. */
struct auth_slice {
	const uint8_t *data;
	size_t len;
};

/* secret.c: wipe a talloc chunk (all talloc_get_size() bytes) on free. */
void auth_keep_secret(void *ptr);
void auth_wipe(void *p, size_t len);

/* utf16.c */
NTSTATUS utf16_to_utf8(TALLOC_CTX *mem_ctx, struct auth_slice in,
		       char **out);
NTSTATUS utf8_to_utf16(TALLOC_CTX *mem_ctx, const char *in,
		       uint8_t **out, size_t *out_len);
void utf16_upper(uint8_t *p, size_t len);

/*
 * spnego.c.  The NTLMSSP OID is 1.3.6.1.4.1.311.2.2.10.
 */
#define SPNEGO_OID "1.3.6.1.5.5.2"
#define NTLMSSP_OID "1.3.6.1.4.1.311.2.2.10"

enum spnego_neg_state {
	SPNEGO_ACCEPT_COMPLETED = 0,
	SPNEGO_ACCEPT_INCOMPLETE = 1,
	SPNEGO_REJECT = 2,
	SPNEGO_REQUEST_MIC = 3,
	SPNEGO_NO_STATE = -1,
};

struct spnego_token {
	bool is_init;		/* NegTokenInit, else NegTokenResp */
	bool ntlmssp_offered;	/* init: NTLMSSP somewhere in mechTypes */
	bool ntlmssp_first;	/* init: ... and first (token is for it) */
	int neg_state;		/* resp: enum spnego_neg_state */
	uint8_t *token;		/* mechToken / responseToken, or NULL */
	size_t token_len;
	uint8_t *mic;		/* mechListMIC (not checked here), or NULL */
	size_t mic_len;
	/* init: the DER MechTypeList (SEQUENCE OF, without its [0] tag) */
	struct auth_slice mech_types;	/* points into the input */
};

NTSTATUS spnego_decode(TALLOC_CTX *mem_ctx, const uint8_t *in, size_t len,
		       struct spnego_token *out);

struct spnego_resp {
	enum spnego_neg_state neg_state;
	bool supported_mech;	/* include supportedMech = NTLMSSP */
	const uint8_t *token;	/* responseToken, NULL for none */
	size_t token_len;
	const uint8_t *mic;	/* mechListMIC, NULL for none */
	size_t mic_len;
};

NTSTATUS spnego_encode_resp(TALLOC_CTX *mem_ctx, const struct spnego_resp *r,
			    uint8_t **out, size_t *out_len);
/* Client: a GSS-API framed NegTokenInit offering NTLMSSP with token. */
NTSTATUS spnego_encode_init(TALLOC_CTX *mem_ctx, const uint8_t *token,
			    size_t token_len, uint8_t **out, size_t *out_len);
NTSTATUS spnego_encode_negprot(TALLOC_CTX *mem_ctx, uint8_t **out,
			       size_t *out_len);

/* ntlmssp_msg.c: MS-NLMP 2.2 message codecs. */
#define NTLMSSP_SIGNATURE "NTLMSSP"	/* plus its NUL: 8 bytes */
#define NTLMSSP_SIGNATURE_LEN 8

enum ntlmssp_type {
	NTLMSSP_NEGOTIATE = 1,
	NTLMSSP_CHALLENGE = 2,
	NTLMSSP_AUTHENTICATE = 3,
};

/* MS-NLMP 2.2.2.5 NEGOTIATE flags */
#define NTLMSSP_NEGOTIATE_UNICODE		0x00000001
#define NTLMSSP_NEGOTIATE_OEM			0x00000002
#define NTLMSSP_REQUEST_TARGET			0x00000004
#define NTLMSSP_NEGOTIATE_SIGN			0x00000010
#define NTLMSSP_NEGOTIATE_SEAL			0x00000020
#define NTLMSSP_NEGOTIATE_LM_KEY		0x00000080
#define NTLMSSP_NEGOTIATE_NTLM			0x00000200
#define NTLMSSP_ANONYMOUS			0x00000800
#define NTLMSSP_NEGOTIATE_ALWAYS_SIGN		0x00008000
#define NTLMSSP_TARGET_TYPE_DOMAIN		0x00010000
#define NTLMSSP_TARGET_TYPE_SERVER		0x00020000
#define NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY 0x00080000
#define NTLMSSP_NEGOTIATE_TARGET_INFO		0x00800000
#define NTLMSSP_NEGOTIATE_VERSION		0x02000000
#define NTLMSSP_NEGOTIATE_128			0x20000000
#define NTLMSSP_NEGOTIATE_KEY_EXCH		0x40000000
#define NTLMSSP_NEGOTIATE_56			0x80000000

/* MS-NLMP 2.2.2.1 AV_PAIR ids */
enum ntlmssp_av_id {
	MSV_AV_EOL = 0,
	MSV_AV_NB_COMPUTER_NAME = 1,
	MSV_AV_NB_DOMAIN_NAME = 2,
	MSV_AV_DNS_COMPUTER_NAME = 3,
	MSV_AV_DNS_DOMAIN_NAME = 4,
	MSV_AV_DNS_TREE_NAME = 5,
	MSV_AV_FLAGS = 6,
	MSV_AV_TIMESTAMP = 7,
	MSV_AV_SINGLE_HOST = 8,
	MSV_AV_TARGET_NAME = 9,
	MSV_AV_CHANNEL_BINDINGS = 10,
};
#define MSV_AV_FLAG_MIC_PRESENT 0x00000002

#define NTLMSSP_MIC_OFS 72
#define NTLMSSP_MIC_LEN 16
#define NTLMSSP_AUTH_MIN_LEN 64	/* fixed part up to NegotiateFlags */

/* The message type of an NTLMSSP message, 0 if it is not one. */
uint32_t ntlmssp_msg_type(const uint8_t *buf, size_t len);

NTSTATUS ntlmssp_negotiate_pull(const uint8_t *buf, size_t len,
				uint32_t *flags);

struct ntlmssp_challenge {
	uint32_t flags;
	uint8_t server_challenge[8];
	struct auth_slice target_name;	/* UTF-16LE */
	struct auth_slice target_info;	/* AV_PAIR list */
};

NTSTATUS ntlmssp_challenge_push(TALLOC_CTX *mem_ctx,
				const struct ntlmssp_challenge *c,
				uint8_t **out, size_t *out_len);

struct ntlmssp_authenticate {
	struct auth_slice lm_response;
	struct auth_slice nt_response;
	struct auth_slice domain;	/* UTF-16LE, even length */
	struct auth_slice user;
	struct auth_slice workstation;
	struct auth_slice enc_session_key;	/* 0 or 16 bytes */
	uint32_t flags;
	size_t payload_ofs;	/* lowest offset of a non-empty field */
};

NTSTATUS ntlmssp_authenticate_pull(const uint8_t *buf, size_t len,
				   struct ntlmssp_authenticate *out);

/*
 * AV_PAIR lists (MS-NLMP 2.2.2.1): a list is valid if every pair lies
 * inside it and an MsvAvEOL ends it.  find returns false if id is absent.
 */
bool ntlmssp_av_list_valid(struct auth_slice list);
bool ntlmssp_av_find(struct auth_slice list, uint16_t id,
		     struct auth_slice *value);
/* Append one pair to a talloc buffer; false on ENOMEM / oversize. */
bool ntlmssp_av_append(TALLOC_CTX *mem_ctx, uint8_t **buf, size_t *len,
		       uint16_t id, const uint8_t *value, size_t value_len);

/*
 * The client direction (ntlmssp_msg.c, used by auth_client.c).  push:
 * a NEGOTIATE with no OEM names; an AUTHENTICATE from a (fields point
 * at caller memory) with a zero MIC for the caller to fill.  pull: a
 * CHALLENGE whose fields lie inside buf, with a valid target info.
 */
NTSTATUS ntlmssp_negotiate_push(TALLOC_CTX *mem_ctx, uint32_t flags,
				uint8_t **out, size_t *out_len);
NTSTATUS ntlmssp_challenge_pull(const uint8_t *buf, size_t len,
				struct ntlmssp_challenge *out);
NTSTATUS ntlmssp_authenticate_push(TALLOC_CTX *mem_ctx,
				   const struct ntlmssp_authenticate *a,
				   uint8_t **out, size_t *out_len);
/*
 * The AV pairs a client puts in its NTLMv2 response: the server's list
 * without its MsvAvFlags, then MsvAvFlags = av_flags and MsvAvEOL.
 */
bool ntlmssp_av_client_list(TALLOC_CTX *mem_ctx, struct auth_slice server,
			    uint32_t av_flags, uint8_t **out, size_t *out_len);

/*
 * ntlmv2.c: MS-NLMP 3.3.2.  All keys are 16 bytes.
 * The NTLMv2 response is NTProofStr(16) || temp; temp starts with the
 * 28-byte NTLMv2_CLIENT_CHALLENGE header, then the AV pairs.
 */
#define NTLMV2_PROOF_LEN 16
#define NTLMV2_CLIENT_HDR_LEN 28
#define NTLMV2_RESPONSE_MIN_LEN (NTLMV2_PROOF_LEN + NTLMV2_CLIENT_HDR_LEN + 4)

bool ntlmv2_response_valid(struct auth_slice nt_response);
/* HMAC-MD5 over the concatenation of n pieces. */
NTSTATUS ntlm_hmac_md5(const uint8_t *key, size_t key_len,
		       const struct auth_slice *parts, size_t n,
		       uint8_t out[16]);
NTSTATUS ntowfv2(const uint8_t nt_hash[16], struct auth_slice user_utf16,
		 struct auth_slice domain_utf16, uint8_t out[16]);
/*
 * Checks NTProofStr; on success writes the SessionBaseKey.
 * LOGON_FAILURE on mismatch.
 */
NTSTATUS ntlmv2_verify(const uint8_t owf[16], const uint8_t challenge[8],
		       struct auth_slice nt_response, uint8_t base_key[16]);
/*
 * Client: the NTLMv2 response NTProofStr || temp for a 28-byte client
 * header (time, client challenge) and av pairs, and the SessionBaseKey
 * (3.3.2 ComputeResponse).  *nt_response is talloc'd on mem_ctx.
 */
NTSTATUS ntlmv2_client_response(TALLOC_CTX *mem_ctx,
				const uint8_t owf[16],
				const uint8_t server_challenge[8],
				const uint8_t client_challenge[8],
				uint64_t nttime, struct auth_slice av,
				uint8_t **nt_response, size_t *nt_len,
				uint8_t base_key[16]);
NTSTATUS ntlm_rc4(const uint8_t key[16], const uint8_t in[16],
		  uint8_t out[16]);
NTSTATUS ntlmssp_mic(const uint8_t key[16], struct auth_slice negotiate,
		     struct auth_slice challenge, struct auth_slice authenticate,
		     uint8_t mic[16]);

/*
 * ntlmssp_sign.c: GSS_GetMIC / GSS_VerifyMIC with extended session
 * security (MS-NLMP 3.4.4.2).  A struct ntlmssp_sign holds both
 * directions: send is what we sign, recv what we check.
 */
#define NTLMSSP_SIG_SIZE 16

enum ntlmssp_direction {
	NTLMSSP_CLIENT_TO_SERVER,
	NTLMSSP_SERVER_TO_CLIENT,
};

struct ntlmssp_sign_dir {
	uint8_t sign_key[16];
	gnutls_cipher_hd_t seal;	/* RC4(SealKey), runs across messages */
	uint32_t seq;
};

struct ntlmssp_sign {
	bool key_exch;		/* checksums are RC4-encrypted */
	struct ntlmssp_sign_dir send;
	struct ntlmssp_sign_dir recv;
};

/* SIGNKEY and SEALKEY (3.4.5.2, 3.4.5.3), for ESS only. */
NTSTATUS ntlmssp_sign_keys(uint32_t flags, const uint8_t exported[16],
			   enum ntlmssp_direction dir, uint8_t sign_key[16],
			   uint8_t seal_key[16]);
/* server: we are the acceptor.  Keys are wiped on free; NULL on error. */
struct ntlmssp_sign *ntlmssp_sign_new(TALLOC_CTX *mem_ctx, uint32_t flags,
				      const uint8_t exported[16],
				      bool server);
NTSTATUS ntlmssp_sign_mic(struct ntlmssp_sign *s, const uint8_t *msg,
			  size_t len, uint8_t sig[NTLMSSP_SIG_SIZE]);
/* ACCESS_DENIED if sig is not the next valid signature of msg. */
NTSTATUS ntlmssp_sign_check(struct ntlmssp_sign *s, const uint8_t *msg,
			    size_t len, const uint8_t *sig, size_t sig_len);

/* ntlmssp_server.c */
struct ntlmssp_server;

struct ntlmssp_server *ntlmssp_server_new(TALLOC_CTX *mem_ctx,
					  const struct auth_settings *s);
/*
 * Feed one NTLMSSP message.  MORE_PROCESSING_REQUIRED with a CHALLENGE in
 * *out, OK with *out NULL when authenticated (then *info is set), or an
 * error.
 */
NTSTATUS ntlmssp_server_update(struct ntlmssp_server *srv,
			       TALLOC_CTX *mem_ctx, struct auth_slice in,
			       uint8_t **out, size_t *out_len);
const struct auth_session_info *ntlmssp_server_info(
	const struct ntlmssp_server *srv);
/*
 * After OK: the signing state for a real user when extended session
 * security was negotiated; NULL for anonymous, guest or no ESS.
 */
struct ntlmssp_sign *ntlmssp_server_sign(struct ntlmssp_server *srv);
/* The names the last AUTHENTICATE carried, NULL before one parsed. */
const char *ntlmssp_server_attempt(const struct ntlmssp_server *srv,
				   const char **domain,
				   const char **workstation);

/*
 * Tests only: after the NEGOTIATE leg, pretend we had sent challenge_msg
 * (a captured CHALLENGE) so a captured AUTHENTICATE verifies.
 */
NTSTATUS ntlmssp_server_replace_challenge(struct ntlmssp_server *srv,
					  struct auth_slice challenge_msg);
struct ntlmssp_server *auth_ctx_ntlmssp(struct auth_ctx *ctx);

#endif
