/*
 * The SESSION_SETUP exchange: unwraps SPNEGO (or takes raw NTLMSSP),
 * drives the NTLMSSP server and wraps its replies.
 *
 * SPNEGO flow (RFC 4178 4.2): the first leg is a NegTokenInit.  If its
 * first mech is NTLMSSP and it carries a mechToken, that is our NEGOTIATE.
 * If NTLMSSP is offered but not first (the optimistic token is for
 * another mech), or no token came, we answer accept-incomplete with
 * supportedMech = NTLMSSP and no token, and the client starts NTLMSSP in
 * its next NegTokenResp.  No NTLMSSP at all is INVALID_PARAMETER, as in
 * Samba's gensec_spnego.
 *
 * mechListMIC (RFC 4178 5, MS-SPNG 3.3.5.1): once NTLMSSP has
 * authenticated a real user (a key and extended session security), a
 * mechListMIC from the client is checked over the DER MechTypeList of its
 * NegTokenInit (client-to-server key, SeqNum 0), and we answer with our
 * own (server-to-client key, SeqNum 0).  If we did not take the client's
 * first mech, the MICs are required: our first reply says request-mic,
 * and a client that still sent none gets our MIC with accept-incomplete
 * and must send its own in one more NegTokenResp.  Anonymous and guest
 * sessions have no key and so no MICs; a client MIC there is ignored, as
 * Samba does.
 */
#include "lib/auth/auth_private.h"
#include "lib/util/debug.h"

enum auth_wrap {
	AUTH_WRAP_UNKNOWN,	/* before the first leg */
	AUTH_WRAP_SPNEGO,
	AUTH_WRAP_RAW,
};

enum auth_state {
	AUTH_RUNNING,
	AUTH_DONE,
	AUTH_FAILED,
};

struct auth_ctx {
	struct ntlmssp_server *ntlmssp;
	enum auth_wrap wrap;
	enum auth_state state;
	bool spnego_init_seen;	/* the NegTokenInit leg is behind us */
	bool spnego_replied;	/* supportedMech goes in the first reply */
	struct auth_slice mech_types;	/* DER MechTypeList, owned by ctx */
	bool mic_required;	/* NTLMSSP was not the client's first mech */
	bool want_client_mic;	/* our MIC is out, the client's still due */
};

struct auth_ctx *auth_ctx_new(TALLOC_CTX *mem_ctx,
			      const struct auth_settings *s)
{
	struct auth_ctx *ctx = talloc_zero(mem_ctx, struct auth_ctx);

	if (ctx == NULL) {
		return NULL;
	}
	ctx->ntlmssp = ntlmssp_server_new(ctx, s);
	if (ctx->ntlmssp == NULL) {
		TALLOC_FREE(ctx);
	}
	return ctx;
}

NTSTATUS auth_negprot_blob(TALLOC_CTX *mem_ctx, uint8_t **out,
			   size_t *out_len)
{
	return spnego_encode_negprot(mem_ctx, out, out_len);
}

const struct auth_session_info *auth_session_info(const struct auth_ctx *ctx)
{
	if (ctx->state != AUTH_DONE) {
		return NULL;
	}
	return ntlmssp_server_info(ctx->ntlmssp);
}

const char *auth_attempt(const struct auth_ctx *ctx, const char **domain,
			 const char **workstation)
{
	return ntlmssp_server_attempt(ctx->ntlmssp, domain, workstation);
}

struct ntlmssp_server *auth_ctx_ntlmssp(struct auth_ctx *ctx)
{
	return ctx->ntlmssp;
}

static NTSTATUS spnego_reply(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
			     NTSTATUS status, struct spnego_resp *r,
			     uint8_t **out, size_t *out_len)
{
	NTSTATUS st;

	r->neg_state = SPNEGO_ACCEPT_INCOMPLETE;
	if (NT_STATUS_IS_OK(status)) {
		r->neg_state = SPNEGO_ACCEPT_COMPLETED;
	} else if (!ctx->spnego_replied && ctx->mic_required) {
		r->neg_state = SPNEGO_REQUEST_MIC;
	}
	r->supported_mech = !ctx->spnego_replied;
	st = spnego_encode_resp(mem_ctx, r, out, out_len);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	ctx->spnego_replied = true;
	return status;
}

static NTSTATUS keep_mech_types(struct auth_ctx *ctx,
				const struct spnego_token *tok)
{
	uint8_t *copy = talloc_memdup(ctx, tok->mech_types.data,
				      tok->mech_types.len);

	if (copy == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	ctx->mech_types = (struct auth_slice){ copy, tok->mech_types.len };
	ctx->mic_required = !tok->ntlmssp_first;
	return NT_STATUS_OK;
}

static NTSTATUS spnego_first_leg(struct auth_ctx *ctx,
				 const struct spnego_token *tok)
{
	ctx->spnego_init_seen = true;
	if (!tok->is_init) {
		DBG_INFO("first SPNEGO token is not a NegTokenInit\n");
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!tok->ntlmssp_offered) {
		DBG_INFO("client offers no mech we support\n");
		return NT_STATUS_INVALID_PARAMETER;
	}
	return keep_mech_types(ctx, tok);
}

/*
 * Check the leg's SPNEGO shape: later legs are NegTokenResps carrying an
 * NTLMSSP token, or only the client's mechListMIC when that is due.
 */
static NTSTATUS spnego_leg(struct auth_ctx *ctx,
			   const struct spnego_token *tok)
{
	bool ok;

	if (!ctx->spnego_init_seen) {
		return spnego_first_leg(ctx, tok);
	}
	if (ctx->want_client_mic) {
		ok = tok->token == NULL && tok->mic != NULL;
	} else {
		ok = tok->token != NULL;
	}
	if (!ok || tok->is_init || tok->neg_state == SPNEGO_REJECT) {
		DBG_INFO("client sent an unexpected SPNEGO token\n");
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static NTSTATUS check_client_mic(struct auth_ctx *ctx,
				 struct ntlmssp_sign *sign,
				 const struct spnego_token *tok)
{
	NTSTATUS status = ntlmssp_sign_check(sign, ctx->mech_types.data,
					     ctx->mech_types.len, tok->mic,
					     tok->mic_len);

	if (NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED)) {
		DBG_INFO("client sent a bad SPNEGO mechListMIC\n");
		return NT_STATUS_LOGON_FAILURE;
	}
	return status;
}

static NTSTATUS server_mic(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
			   struct ntlmssp_sign *sign, struct spnego_resp *r)
{
	uint8_t *mic = talloc_array(mem_ctx, uint8_t, NTLMSSP_SIG_SIZE);
	NTSTATUS status;

	if (mic == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = ntlmssp_sign_mic(sign, ctx->mech_types.data,
				  ctx->mech_types.len, mic);
	if (NT_STATUS_IS_OK(status)) {
		r->mic = mic;
		r->mic_len = NTLMSSP_SIG_SIZE;
	}
	return status;
}

/* NTLMSSP is done: exchange the mechListMICs. */
static NTSTATUS mech_list_mic(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
			      const struct spnego_token *tok,
			      struct spnego_resp *r)
{
	struct ntlmssp_sign *sign = ntlmssp_server_sign(ctx->ntlmssp);
	NTSTATUS status = NT_STATUS_OK;

	if (sign == NULL || (tok->mic == NULL && !ctx->mic_required)) {
		return NT_STATUS_OK;
	}
	if (tok->mic != NULL) {
		status = check_client_mic(ctx, sign, tok);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = server_mic(ctx, mem_ctx, sign, r);
	}
	if (NT_STATUS_IS_OK(status) && tok->mic == NULL) {
		ctx->want_client_mic = true;
		status = NT_STATUS_MORE_PROCESSING_REQUIRED;
	}
	return status;
}

/* What this leg does, reply parts into *r (on mem_ctx). */
static NTSTATUS spnego_step(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
			    const struct spnego_token *tok,
			    struct spnego_resp *r)
{
	struct auth_slice s = { tok->token, tok->token_len };
	uint8_t *reply = NULL;
	size_t reply_len = 0;
	NTSTATUS status;

	if (ctx->want_client_mic) {
		ctx->want_client_mic = false;
		return check_client_mic(ctx, ntlmssp_server_sign(ctx->ntlmssp),
					tok);
	}
	if (tok->is_init && (!tok->ntlmssp_first || tok->token == NULL)) {
		/* ask for an NTLMSSP token (RFC 4178 5 c) */
		return NT_STATUS_MORE_PROCESSING_REQUIRED;
	}
	status = ntlmssp_server_update(ctx->ntlmssp, mem_ctx, s, &reply,
				       &reply_len);
	r->token = reply;
	r->token_len = reply_len;
	if (NT_STATUS_IS_OK(status)) {
		status = mech_list_mic(ctx, mem_ctx, tok, r);
	}
	return status;
}

static NTSTATUS spnego_update(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
			      const uint8_t *in, size_t in_len,
			      uint8_t **out, size_t *out_len)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	struct spnego_token tok;
	struct spnego_resp r = {};
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = spnego_decode(tmp, in, in_len, &tok);
	if (NT_STATUS_IS_OK(status)) {
		status = spnego_leg(ctx, &tok);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = spnego_step(ctx, tmp, &tok, &r);
	}
	if (NT_STATUS_IS_OK(status) ||
	    NT_STATUS_EQUAL(status, NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		status = spnego_reply(ctx, mem_ctx, status, &r, out, out_len);
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS auth_update(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
		     const uint8_t *in, size_t in_len,
		     uint8_t **out, size_t *out_len)
{
	NTSTATUS status;

	*out = NULL;
	*out_len = 0;
	if (ctx->state != AUTH_RUNNING) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	ctx->state = AUTH_FAILED;	/* until this leg succeeds */
	if (in == NULL || in_len == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (ctx->wrap == AUTH_WRAP_UNKNOWN) {
		ctx->wrap = ntlmssp_msg_type(in, in_len) != 0 ?
			AUTH_WRAP_RAW : AUTH_WRAP_SPNEGO;
	}
	if (ctx->wrap == AUTH_WRAP_RAW) {
		struct auth_slice s = { in, in_len };

		status = ntlmssp_server_update(ctx->ntlmssp, mem_ctx, s,
					       out, out_len);
	} else {
		status = spnego_update(ctx, mem_ctx, in, in_len, out, out_len);
	}
	if (NT_STATUS_IS_OK(status)) {
		ctx->state = AUTH_DONE;
	} else if (NT_STATUS_EQUAL(status,
				   NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		ctx->state = AUTH_RUNNING;
	} else {
		TALLOC_FREE(*out);
		*out_len = 0;
	}
	return status;
}
