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

struct ntlmssp_server *auth_ctx_ntlmssp(struct auth_ctx *ctx)
{
	return ctx->ntlmssp;
}

static NTSTATUS spnego_reply(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
			     NTSTATUS status, const uint8_t *token,
			     size_t token_len, uint8_t **out, size_t *out_len)
{
	struct spnego_resp r = {
		.neg_state = NT_STATUS_IS_OK(status) ?
			SPNEGO_ACCEPT_COMPLETED : SPNEGO_ACCEPT_INCOMPLETE,
		.supported_mech = !ctx->spnego_replied,
		.token = token,
		.token_len = token_len,
	};
	NTSTATUS st = spnego_encode_resp(mem_ctx, &r, out, out_len);

	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	ctx->spnego_replied = true;
	return status;
}

/* Check the leg's SPNEGO shape; *token is NULL when we must ask again. */
static NTSTATUS spnego_leg(struct auth_ctx *ctx,
			   const struct spnego_token *tok)
{
	if (!ctx->spnego_init_seen) {
		ctx->spnego_init_seen = true;
		if (!tok->is_init) {
			DBG_INFO("first SPNEGO token is not a NegTokenInit\n");
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (!tok->ntlmssp_offered) {
			DBG_INFO("client offers no mech we support\n");
			return NT_STATUS_INVALID_PARAMETER;
		}
		return NT_STATUS_OK;
	}
	if (tok->is_init || tok->token == NULL ||
	    tok->neg_state == SPNEGO_REJECT) {
		DBG_INFO("client sent an unexpected SPNEGO token\n");
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static NTSTATUS spnego_update(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
			      const uint8_t *in, size_t in_len,
			      uint8_t **out, size_t *out_len)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	struct spnego_token tok;
	uint8_t *reply = NULL;
	size_t reply_len = 0;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = spnego_decode(tmp, in, in_len, &tok);
	if (NT_STATUS_IS_OK(status)) {
		status = spnego_leg(ctx, &tok);
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(tmp);
		return status;
	}
	if (tok.is_init && (!tok.ntlmssp_first || tok.token == NULL)) {
		/* ask for an NTLMSSP token (RFC 4178 5 c) */
		status = NT_STATUS_MORE_PROCESSING_REQUIRED;
	} else {
		struct auth_slice s = { tok.token, tok.token_len };

		status = ntlmssp_server_update(ctx->ntlmssp, tmp, s,
					       &reply, &reply_len);
	}
	if (NT_STATUS_IS_OK(status) ||
	    NT_STATUS_EQUAL(status, NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		status = spnego_reply(ctx, mem_ctx, status, reply, reply_len,
				      out, out_len);
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
