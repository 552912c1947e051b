/*
 * SMB2 SESSION_SETUP authentication: SPNEGO (RFC 4178, MS-SPNG) carrying
 * NTLMSSP (MS-NLMP), server side.  NTLMv2 only; anonymous and guest
 * sessions; named users through a lookup callback (the daemon's passdb).
 *
 * One struct auth_ctx per SESSION_SETUP exchange: feed it each request's
 * SecurityBuffer with auth_update() and send back what it returns.
 *
 *   status = auth_update(ctx, rsp, in, in_len, &out, &out_len);
 *   MORE_PROCESSING_REQUIRED  send out, wait for the next leg
 *   OK                        send out, then read auth_session_info(ctx)
 *   anything else             fail the setup with that status; ctx is dead
 *
 * Statuses: malformed SPNEGO, an NTLMSSP message out of order, a malformed
 * NEGOTIATE and a token for a mechanism we do not offer give
 * INVALID_PARAMETER (what Samba's gensec_spnego answers); anything wrong
 * in or with the AUTHENTICATE message (bad offsets, NTLMv1, unknown user
 * without guest mapping, wrong password) gives LOGON_FAILURE, except a
 * disabled account (ACCOUNT_DISABLED); so does a bad SPNEGO mechListMIC.
 * Calls after completion or failure give INVALID_PARAMETER.
 *
 * For real users the SPNEGO mechListMICs are exchanged (RFC 4178 5): a
 * client that picks NTLMSSP second and sends no MIC with its AUTHENTICATE
 * gets one more MORE_PROCESSING_REQUIRED leg for it.
 */
#ifndef RINGSMB_AUTH_H
#define RINGSMB_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/util/ntstatus.h"

#define AUTH_NT_HASH_SIZE 16
#define AUTH_SESSION_KEY_SIZE 16

/* Samba's "map to guest". */
enum auth_map_to_guest {
	AUTH_MAP_NEVER,
	AUTH_MAP_BAD_USER,	/* unknown user -> guest */
	AUTH_MAP_BAD_PASSWORD,	/* unknown user or wrong password -> guest */
};

struct auth_user_entry {
	uint8_t nt_hash[AUTH_NT_HASH_SIZE];	/* MD4(UTF-16LE(password)) */
	bool disabled;
};

/*
 * Look a user up by the names the client sent (UTF-8; matching is the
 * callee's business, case-insensitively as Windows does).  Return
 * NT_STATUS_OK and fill *out, NT_STATUS_NO_SUCH_USER, or another error
 * (treated as a logon failure).  The caller wipes *out after use.
 */
typedef NTSTATUS (*auth_user_lookup_fn)(void *private_data,
					const char *user, const char *domain,
					struct auth_user_entry *out);

struct auth_user_lookup {
	auth_user_lookup_fn fn;
	void *private_data;
};

struct auth_settings {
	const char *netbios_name;	/* "RINGSMB" */
	const char *workgroup;		/* "WORKGROUP" */
	const char *dns_domain;		/* "" or NULL if none */
	enum auth_map_to_guest map_to_guest;
	bool allow_anonymous;
	/* NULL: no users exist.  Must outlive every auth_ctx using it. */
	const struct auth_user_lookup *users;
};

/*
 * Strings in *s are copied; s->users is referenced.  NULL on ENOMEM.
 */
struct auth_ctx *auth_ctx_new(TALLOC_CTX *mem_ctx,
			      const struct auth_settings *s);

/*
 * The SecurityBuffer of the NEGOTIATE response: a GSS-API framed SPNEGO
 * NegTokenInit2 (MS-SPNG 2.2.1) offering NTLMSSP, with the negHints
 * "not_defined_in_RFC4178@please_ignore" Windows and Samba send.
 */
NTSTATUS auth_negprot_blob(TALLOC_CTX *mem_ctx, uint8_t **out,
			   size_t *out_len);

/*
 * One SESSION_SETUP leg.  in is the request's SecurityBuffer: SPNEGO
 * (NegTokenInit, then NegTokenResp) or raw NTLMSSP ("NTLMSSP\0..."); the
 * first leg decides, and replies use the same form.  *out is allocated on
 * mem_ctx; on errors *out is NULL and *out_len 0.
 */
NTSTATUS auth_update(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
		     const uint8_t *in, size_t in_len,
		     uint8_t **out, size_t *out_len);

struct auth_session_info {
	bool anonymous;		/* null session: no user, no key */
	bool guest;		/* mapped to guest: user is what was sent */
	const char *user;	/* UTF-8, as the client sent it; "" if anon */
	const char *domain;
	const char *workstation;
	/* ExportedSessionKey (MS-NLMP 3.1.5.1.2); only for real users */
	uint8_t session_key[AUTH_SESSION_KEY_SIZE];
	bool have_session_key;
};

/*
 * Valid once auth_update() returned NT_STATUS_OK, NULL before.  Owned by
 * ctx (the key is wiped when ctx is freed): talloc_steal or copy it.
 */
const struct auth_session_info *auth_session_info(const struct auth_ctx *ctx);

/*
 * The user, domain and workstation names the client's AUTHENTICATE
 * carried, whether the logon succeeded or not (for the audit line);
 * NULL before one was parsed.  Owned by ctx.
 */
const char *auth_attempt(const struct auth_ctx *ctx, const char **domain,
			 const char **workstation);

/*
 * The NT hash of a UTF-8 password, MD4(UTF-16LE(password)), for passdb
 * and smbpasswd.  INVALID_PARAMETER if password is not valid UTF-8.
 */
NTSTATUS auth_nt_hash(const char *password,
		      uint8_t hash[AUTH_NT_HASH_SIZE]);

/*
 * The client side (auth_client.c): SPNEGO carrying NTLMSSP, NTLMv2 with
 * KEY_EXCH, the NTLMSSP MIC and the SPNEGO mechListMIC, or anonymous
 * (empty user, MS-NLMP 3.2.5.1.2).  For load clients (smb2bench).
 *
 *   auth_client_update(c, mem, NULL, 0, &out, &len)   first token
 *   auth_client_update(c, mem, srv, srv_len, &out, &len)  each reply
 *   MORE_PROCESSING_REQUIRED  send out (may be NULL: nothing to send)
 *   OK                        done; auth_client_session_key()
 *   anything else             the exchange failed (a bad server token
 *                             or mechListMIC: INVALID_PARAMETER,
 *                             ACCESS_DENIED)
 */
struct auth_client_settings {
	const char *user;	/* UTF-8; NULL or "" with anonymous */
	const char *domain;	/* "" if none */
	const char *password;
	const char *workstation;
	bool anonymous;
};

struct auth_client *auth_client_new(TALLOC_CTX *mem_ctx,
				    const struct auth_client_settings *s);
NTSTATUS auth_client_update(struct auth_client *c, TALLOC_CTX *mem_ctx,
			    const uint8_t *in, size_t in_len,
			    uint8_t **out, size_t *out_len);
/* The ExportedSessionKey once OK for a named user; false otherwise. */
bool auth_client_session_key(const struct auth_client *c,
			     uint8_t key[AUTH_SESSION_KEY_SIZE]);

#endif
