/*
 * SESSION_SETUP authentication, client side: SPNEGO (RFC 4178) carrying
 * NTLMSSP (MS-NLMP 3.1.5.1.2 client, NTLMv2 only).  Three legs:
 *
 *   -> NegTokenInit { mechTypes: NTLMSSP, mechToken: NEGOTIATE }
 *   <- NegTokenResp { accept-incomplete, responseToken: CHALLENGE }
 *   -> NegTokenResp { responseToken: AUTHENTICATE, mechListMIC }
 *   <- NegTokenResp { accept-completed, mechListMIC }  (checked if sent)
 *
 * Named users get KEY_EXCH (a random ExportedSessionKey), the NTLMSSP
 * MIC and the SPNEGO mechListMIC over our MechTypeList; anonymous
 * (MS-NLMP 3.2.5.1.2: empty user, LmChallengeResponse Z(1)) gets none.
 */
#include <string.h>
#include <time.h>

#include "lib/auth/auth_private.h"
#include "lib/util/byteorder.h"
#include "lib/util/nttime.h"

#define CLIENT_FLAGS (NTLMSSP_NEGOTIATE_UNICODE | NTLMSSP_REQUEST_TARGET | \
		      NTLMSSP_NEGOTIATE_SIGN | NTLMSSP_NEGOTIATE_NTLM | \
		      NTLMSSP_NEGOTIATE_ALWAYS_SIGN | \
		      NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY | \
		      NTLMSSP_NEGOTIATE_VERSION | NTLMSSP_NEGOTIATE_128 | \
		      NTLMSSP_NEGOTIATE_KEY_EXCH | NTLMSSP_NEGOTIATE_56)

/* DER of MechTypeList { NTLMSSP }, what the mechListMIC covers. */
static const uint8_t mech_types_der[] = {
	0x30, 0x0c, 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37,
	0x02, 0x02, 0x0a,
};

enum client_state { CLIENT_START, CLIENT_CHALLENGE, CLIENT_FINAL,
		    CLIENT_DONE, CLIENT_FAILED };

struct auth_client {
	enum client_state state;
	struct auth_client_settings s;	/* copies; s.password unused */
	char *password;			/* wiped on free */
	uint8_t *negotiate;		/* our NEGOTIATE, for the MIC */
	size_t negotiate_len;
	uint8_t exported[AUTH_SESSION_KEY_SIZE];
	bool have_key;
	struct ntlmssp_sign *sign;	/* for the mechListMICs */
};

static int client_destructor(struct auth_client *c)
{
	auth_wipe(c->exported, sizeof(c->exported));
	return 0;
}

struct auth_client *auth_client_new(TALLOC_CTX *mem_ctx,
				    const struct auth_client_settings *s)
{
	struct auth_client *c = talloc_zero(mem_ctx, struct auth_client);

	if (c == NULL) {
		return NULL;
	}
	talloc_set_destructor(c, client_destructor);
	c->s.anonymous = s->anonymous;
	c->s.user = talloc_strdup(c, s->user != NULL ? s->user : "");
	c->s.domain = talloc_strdup(c, s->domain != NULL ? s->domain : "");
	c->s.password = s->password != NULL ? s->password : "";
	c->s.workstation = talloc_strdup(c, s->workstation != NULL ?
					    s->workstation : "");
	if (c->s.user == NULL || c->s.domain == NULL ||
	    c->s.password == NULL || c->s.workstation == NULL) {
		TALLOC_FREE(c);
		return NULL;
	}
	c->password = talloc_strdup(c, c->s.password);
	c->s.password = NULL;	/* the wiped copy only */
	if (c->password == NULL) {
		TALLOC_FREE(c);
		return NULL;
	}
	auth_keep_secret(c->password);
	return c;
}

static NTSTATUS client_start(struct auth_client *c, TALLOC_CTX *mem_ctx,
			     uint8_t **out, size_t *out_len)
{
	NTSTATUS status = ntlmssp_negotiate_push(c, CLIENT_FLAGS,
						 &c->negotiate,
						 &c->negotiate_len);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = spnego_encode_init(mem_ctx, c->negotiate, c->negotiate_len,
				    out, out_len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	c->state = CLIENT_CHALLENGE;
	return NT_STATUS_MORE_PROCESSING_REQUIRED;
}

/* UTF-16LE forms of user, domain and workstation on mem_ctx. */
static NTSTATUS client_names(const struct auth_client *c,
			     TALLOC_CTX *mem_ctx, struct ntlmssp_authenticate *a)
{
	struct auth_slice *dst[3] = { &a->user, &a->domain, &a->workstation };
	const char *src[3] = { c->s.user, c->s.domain, c->s.workstation };
	size_t i;

	for (i = 0; i < 3; i++) {
		uint8_t *u = NULL;
		size_t len = 0;
		NTSTATUS status = utf8_to_utf16(mem_ctx, src[i], &u, &len);

		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		*dst[i] = (struct auth_slice){ u, len };
	}
	return NT_STATUS_OK;
}

/* NTLMv2 response, KEY_EXCH, for a named user (MS-NLMP 3.1.5.1.2). */
static NTSTATUS client_ntlmv2(struct auth_client *c, TALLOC_CTX *mem_ctx,
			      const struct ntlmssp_challenge *chal,
			      struct ntlmssp_authenticate *a,
			      uint8_t *enc_key)
{
	uint8_t hash[16], owf[16], base[16], cchal[8];
	uint8_t *av = NULL, *nt = NULL;
	size_t av_len = 0, nt_len = 0;
	struct auth_slice ts = {};
	uint64_t now = nttime_now();
	NTSTATUS status;

	if (!ntlmssp_av_client_list(mem_ctx, chal->target_info,
				    MSV_AV_FLAG_MIC_PRESENT, &av, &av_len)) {
		return NT_STATUS_NO_MEMORY;
	}
	if (ntlmssp_av_find(chal->target_info, MSV_AV_TIMESTAMP, &ts) &&
	    ts.len == 8) {
		now = pull_le64(ts.data);	/* the server's time, 3.1.5.1.2 */
	}
	status = auth_nt_hash(c->password, hash);
	if (NT_STATUS_IS_OK(status)) {
		status = ntowfv2(hash, a->user, a->domain, owf);
	}
	if (NT_STATUS_IS_OK(status) &&
	    (gnutls_rnd(GNUTLS_RND_NONCE, cchal, sizeof(cchal)) != 0 ||
	     gnutls_rnd(GNUTLS_RND_KEY, c->exported,
			sizeof(c->exported)) != 0)) {
		status = NT_STATUS_INTERNAL_ERROR;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ntlmv2_client_response(mem_ctx, owf, chal->server_challenge,
					 cchal, now,
					 (struct auth_slice){ av, av_len },
					 &nt, &nt_len, base);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ntlm_rc4(base, c->exported, enc_key);
	}
	auth_wipe(hash, sizeof(hash));
	auth_wipe(owf, sizeof(owf));
	auth_wipe(base, sizeof(base));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	a->nt_response = (struct auth_slice){ nt, nt_len };
	a->enc_session_key = (struct auth_slice){ enc_key, 16 };
	c->have_key = true;
	return NT_STATUS_OK;
}

/* The AUTHENTICATE message for chal_msg, MIC included for real users. */
static NTSTATUS client_authenticate(struct auth_client *c,
				    TALLOC_CTX *mem_ctx,
				    struct auth_slice chal_msg,
				    uint8_t **msg, size_t *msg_len)
{
	static const uint8_t lm_zero[24];
	struct ntlmssp_challenge chal;
	struct ntlmssp_authenticate a = {};
	uint8_t enc_key[16];
	NTSTATUS status;

	status = ntlmssp_challenge_pull(chal_msg.data, chal_msg.len, &chal);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	a.flags = (chal.flags & CLIENT_FLAGS) | NTLMSSP_NEGOTIATE_UNICODE;
	if (c->s.anonymous) {
		/* 3.2.5.1.2: empty NT response, LM response Z(1) */
		a.flags |= NTLMSSP_ANONYMOUS;
		a.flags &= ~NTLMSSP_NEGOTIATE_KEY_EXCH;
		a.lm_response = (struct auth_slice){ lm_zero, 1 };
		a.workstation = (struct auth_slice){ NULL, 0 };
		return ntlmssp_authenticate_push(mem_ctx, &a, msg, msg_len);
	}
	if ((chal.flags & NTLMSSP_NEGOTIATE_KEY_EXCH) == 0) {
		return NT_STATUS_INVALID_PARAMETER;	/* we insist on it */
	}
	status = client_names(c, mem_ctx, &a);
	if (NT_STATUS_IS_OK(status)) {
		status = client_ntlmv2(c, mem_ctx, &chal, &a, enc_key);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* with a MIC the LmChallengeResponse is Z(24) (3.1.5.1.2) */
	a.lm_response = (struct auth_slice){ lm_zero, sizeof(lm_zero) };
	status = ntlmssp_authenticate_push(mem_ctx, &a, msg, msg_len);
	if (NT_STATUS_IS_OK(status)) {
		status = ntlmssp_mic(c->exported,
				     (struct auth_slice){ c->negotiate,
							  c->negotiate_len },
				     chal_msg,
				     (struct auth_slice){ *msg, *msg_len },
				     *msg + NTLMSSP_MIC_OFS);
	}
	if (NT_STATUS_IS_OK(status)) {
		c->sign = ntlmssp_sign_new(c, a.flags, c->exported, false);
		status = c->sign != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	return status;
}

static NTSTATUS client_challenge(struct auth_client *c, TALLOC_CTX *mem_ctx,
				 const uint8_t *in, size_t in_len,
				 uint8_t **out, size_t *out_len)
{
	struct spnego_token tok;
	struct spnego_resp r = { .neg_state = SPNEGO_ACCEPT_INCOMPLETE };
	uint8_t *auth = NULL, mic[NTLMSSP_SIG_SIZE];
	size_t auth_len = 0;
	NTSTATUS status = spnego_decode(mem_ctx, in, in_len, &tok);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (tok.is_init || tok.token == NULL ||
	    (tok.neg_state != SPNEGO_ACCEPT_INCOMPLETE &&
	     tok.neg_state != SPNEGO_NO_STATE)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = client_authenticate(c, mem_ctx,
				     (struct auth_slice){ tok.token,
							  tok.token_len },
				     &auth, &auth_len);
	if (NT_STATUS_IS_OK(status) && c->sign != NULL) {
		status = ntlmssp_sign_mic(c->sign, mech_types_der,
					  sizeof(mech_types_der), mic);
		r.mic = mic;
		r.mic_len = sizeof(mic);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	r.token = auth;
	r.token_len = auth_len;
	status = spnego_encode_resp(mem_ctx, &r, out, out_len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	c->state = CLIENT_FINAL;
	return NT_STATUS_MORE_PROCESSING_REQUIRED;
}

static NTSTATUS client_final(struct auth_client *c, TALLOC_CTX *mem_ctx,
			     const uint8_t *in, size_t in_len)
{
	struct spnego_token tok;
	NTSTATUS status;

	if (in_len == 0) {
		return NT_STATUS_OK;	/* SUCCESS with no SPNEGO token */
	}
	status = spnego_decode(mem_ctx, in, in_len, &tok);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (tok.is_init || tok.neg_state == SPNEGO_REJECT) {
		return NT_STATUS_LOGON_FAILURE;
	}
	if (tok.mic != NULL && c->sign != NULL) {
		return ntlmssp_sign_check(c->sign, mech_types_der,
					  sizeof(mech_types_der), tok.mic,
					  tok.mic_len);
	}
	return NT_STATUS_OK;
}

NTSTATUS auth_client_update(struct auth_client *c, TALLOC_CTX *mem_ctx,
			    const uint8_t *in, size_t in_len,
			    uint8_t **out, size_t *out_len)
{
	enum client_state was = c->state;
	NTSTATUS status = NT_STATUS_INVALID_PARAMETER;

	*out = NULL;
	*out_len = 0;
	c->state = CLIENT_FAILED;
	switch (was) {
	case CLIENT_START:
		status = client_start(c, mem_ctx, out, out_len);
		break;
	case CLIENT_CHALLENGE:
		status = client_challenge(c, mem_ctx, in, in_len, out,
					  out_len);
		break;
	case CLIENT_FINAL:
		status = client_final(c, mem_ctx, in, in_len);
		if (NT_STATUS_IS_OK(status)) {
			c->state = CLIENT_DONE;
		}
		break;
	default:
		break;
	}
	return status;
}

bool auth_client_session_key(const struct auth_client *c,
			     uint8_t key[AUTH_SESSION_KEY_SIZE])
{
	if (c->state != CLIENT_DONE || !c->have_key) {
		return false;
	}
	memcpy(key, c->exported, AUTH_SESSION_KEY_SIZE);
	return true;
}
