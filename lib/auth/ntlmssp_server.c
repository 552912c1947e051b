/*
 * NTLMSSP server (MS-NLMP 3.2.5): NEGOTIATE -> CHALLENGE, then
 * AUTHENTICATE -> anonymous, guest or a verified NTLMv2 user.
 *
 * Only UNICODE clients are served and only NTLMv2 responses accepted
 * (docs/protocol.md): an NTLMv1 or LM response fails even for a user
 * that would be mapped to guest.  An empty response from a named user is
 * what `smbclient -N` sends: it never matches a password, so it ends as
 * guest (map to guest) or LOGON_FAILURE.
 */
#include <ctype.h>
#include <string.h>
#include <time.h>

#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <nettle/memops.h>

#include "lib/auth/auth_private.h"
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"

enum ntlmssp_state {
	NTLMSSP_WANT_NEGOTIATE,
	NTLMSSP_WANT_AUTHENTICATE,
	NTLMSSP_FINISHED,
};

struct ntlmssp_server {
	const char *netbios_name;
	const char *workgroup;
	const char *dns_domain;
	enum auth_map_to_guest map_to_guest;
	bool allow_anonymous;
	const struct auth_user_lookup *users;

	enum ntlmssp_state state;
	uint32_t flags;			/* as sent in our CHALLENGE */
	uint8_t challenge[8];
	uint8_t *negotiate_msg;		/* kept for the MIC */
	size_t negotiate_len;
	uint8_t *challenge_msg;
	size_t challenge_len;
	struct auth_session_info *info;	/* set once authenticated */
	/* the names of the last AUTHENTICATE, failed or not (audit) */
	char *attempt_user, *attempt_domain, *attempt_workstation;
	struct ntlmssp_sign *sign;	/* real users with ESS only */
};

/* What the client's NtChallengeResponse/LmChallengeResponse amount to. */
enum ntlm_response_kind {
	NTLM_RESPONSE_NONE,	/* both empty (LM may be one zero byte) */
	NTLM_RESPONSE_V2,	/* a well-formed NTLMv2_RESPONSE */
	NTLM_RESPONSE_REFUSED,	/* NTLMv1, LM only, or malformed */
};

/* A single-use authentication attempt, on the stack of one update. */
struct ntlmssp_attempt {
	struct ntlmssp_authenticate msg;
	struct auth_slice raw;
	struct auth_session_info *info;
};

struct ntlmssp_server *ntlmssp_server_new(TALLOC_CTX *mem_ctx,
					  const struct auth_settings *s)
{
	struct ntlmssp_server *srv = talloc_zero(mem_ctx,
						 struct ntlmssp_server);

	if (srv == NULL) {
		return NULL;
	}
	srv->netbios_name = talloc_strdup(srv, s->netbios_name ?
					  s->netbios_name : "RINGSMB");
	srv->workgroup = talloc_strdup(srv, s->workgroup ?
				       s->workgroup : "WORKGROUP");
	srv->dns_domain = talloc_strdup(srv, s->dns_domain ?
					s->dns_domain : "");
	if (srv->netbios_name == NULL || srv->workgroup == NULL ||
	    srv->dns_domain == NULL) {
		TALLOC_FREE(srv);
		return NULL;
	}
	srv->map_to_guest = s->map_to_guest;
	srv->allow_anonymous = s->allow_anonymous;
	srv->users = s->users;
	srv->state = NTLMSSP_WANT_NEGOTIATE;
	return srv;
}

const struct auth_session_info *ntlmssp_server_info(
	const struct ntlmssp_server *srv)
{
	return srv->info;
}

struct ntlmssp_sign *ntlmssp_server_sign(struct ntlmssp_server *srv)
{
	return srv->sign;
}

/* MS-NLMP 3.2.5.1.1: what we grant out of what the client offers. */
static uint32_t negotiate_flags(uint32_t client)
{
	const uint32_t echo = NTLMSSP_REQUEST_TARGET |
		NTLMSSP_NEGOTIATE_SIGN | NTLMSSP_NEGOTIATE_SEAL |
		NTLMSSP_NEGOTIATE_ALWAYS_SIGN |
		NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY |
		NTLMSSP_NEGOTIATE_VERSION | NTLMSSP_NEGOTIATE_128 |
		NTLMSSP_NEGOTIATE_56 | NTLMSSP_NEGOTIATE_KEY_EXCH;

	return (client & echo) | NTLMSSP_NEGOTIATE_UNICODE |
	       NTLMSSP_NEGOTIATE_NTLM | NTLMSSP_TARGET_TYPE_DOMAIN |
	       NTLMSSP_NEGOTIATE_TARGET_INFO;
}

static uint64_t nttime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec + 11644473600ULL) * 10000000ULL +
	       (uint64_t)ts.tv_nsec / 100;
}

/* Append a UTF-8 string as a UTF-16LE AV pair, optionally upper-cased. */
static bool av_append_str(TALLOC_CTX *mem_ctx, uint8_t **buf, size_t *len,
			  uint16_t id, const char *s, bool upper)
{
	uint8_t *u = NULL;
	size_t ulen = 0;
	bool ok;

	if (!NT_STATUS_IS_OK(utf8_to_utf16(mem_ctx, s, &u, &ulen))) {
		return false;
	}
	if (upper) {
		utf16_upper(u, ulen);
	}
	ok = ntlmssp_av_append(mem_ctx, buf, len, id, u, ulen);
	talloc_free(u);
	return ok;
}

static char *dns_computer_name(TALLOC_CTX *mem_ctx,
			       const struct ntlmssp_server *srv)
{
	char *s = NULL;
	size_t i;

	if (srv->dns_domain[0] == '\0') {
		s = talloc_strdup(mem_ctx, srv->netbios_name);
	} else {
		s = talloc_asprintf(mem_ctx, "%s.%s", srv->netbios_name,
				    srv->dns_domain);
	}
	for (i = 0; s != NULL && s[i] != '\0' && s[i] != '.'; i++) {
		s[i] = (char)tolower((unsigned char)s[i]);
	}
	return s;
}

/* MS-NLMP 2.2.1.2 TargetInfo. */
static bool target_info(TALLOC_CTX *mem_ctx, const struct ntlmssp_server *srv,
			uint8_t **buf, size_t *len)
{
	uint8_t ts[8];
	char *dns_name = dns_computer_name(mem_ctx, srv);
	bool ok;

	push_le64(ts, nttime_now());
	ok = dns_name != NULL &&
	     av_append_str(mem_ctx, buf, len, MSV_AV_NB_DOMAIN_NAME,
			   srv->workgroup, true) &&
	     av_append_str(mem_ctx, buf, len, MSV_AV_NB_COMPUTER_NAME,
			   srv->netbios_name, true) &&
	     av_append_str(mem_ctx, buf, len, MSV_AV_DNS_DOMAIN_NAME,
			   srv->dns_domain, false) &&
	     av_append_str(mem_ctx, buf, len, MSV_AV_DNS_COMPUTER_NAME,
			   dns_name, false) &&
	     ntlmssp_av_append(mem_ctx, buf, len, MSV_AV_TIMESTAMP, ts, 8) &&
	     ntlmssp_av_append(mem_ctx, buf, len, MSV_AV_EOL, NULL, 0);
	talloc_free(dns_name);
	return ok;
}

static NTSTATUS build_challenge(struct ntlmssp_server *srv,
				TALLOC_CTX *mem_ctx, uint8_t **out,
				size_t *out_len)
{
	struct ntlmssp_challenge c = { .flags = srv->flags };
	uint8_t *name = NULL, *info = NULL;
	size_t name_len = 0, info_len = 0;
	NTSTATUS status;

	if (gnutls_rnd(GNUTLS_RND_NONCE, srv->challenge, 8) < 0) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	status = utf8_to_utf16(mem_ctx, srv->workgroup, &name, &name_len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	utf16_upper(name, name_len);
	if (!target_info(mem_ctx, srv, &info, &info_len)) {
		talloc_free(name);
		return NT_STATUS_NO_MEMORY;
	}
	memcpy(c.server_challenge, srv->challenge, 8);
	c.target_name = (struct auth_slice){ name, name_len };
	c.target_info = (struct auth_slice){ info, info_len };
	status = ntlmssp_challenge_push(mem_ctx, &c, out, out_len);
	talloc_free(name);
	talloc_free(info);
	return status;
}

static NTSTATUS server_negotiate(struct ntlmssp_server *srv,
				 TALLOC_CTX *mem_ctx, struct auth_slice in,
				 uint8_t **out, size_t *out_len)
{
	uint32_t client_flags = 0;
	NTSTATUS status;

	status = ntlmssp_negotiate_pull(in.data, in.len, &client_flags);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("client sent a malformed NTLMSSP NEGOTIATE\n");
		return status;
	}
	if (!(client_flags & NTLMSSP_NEGOTIATE_UNICODE)) {
		DBG_INFO("client does not offer NTLMSSP UNICODE\n");
		return NT_STATUS_INVALID_PARAMETER;
	}
	srv->flags = negotiate_flags(client_flags);
	srv->negotiate_msg = talloc_memdup(srv, in.data, in.len);
	if (srv->negotiate_msg == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	srv->negotiate_len = in.len;
	status = build_challenge(srv, mem_ctx, out, out_len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	srv->challenge_msg = talloc_memdup(srv, *out, *out_len);
	if (srv->challenge_msg == NULL) {
		TALLOC_FREE(*out);
		return NT_STATUS_NO_MEMORY;
	}
	srv->challenge_len = *out_len;
	srv->state = NTLMSSP_WANT_AUTHENTICATE;
	return NT_STATUS_MORE_PROCESSING_REQUIRED;
}

NTSTATUS ntlmssp_server_replace_challenge(struct ntlmssp_server *srv,
					  struct auth_slice msg)
{
	if (srv->state != NTLMSSP_WANT_AUTHENTICATE || msg.len < 32) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	talloc_free(srv->challenge_msg);
	srv->challenge_msg = talloc_memdup(srv, msg.data, msg.len);
	if (srv->challenge_msg == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	srv->challenge_len = msg.len;
	memcpy(srv->challenge, msg.data + 24, 8);
	srv->flags = pull_le32(msg.data + 20);
	return NT_STATUS_OK;
}

static enum ntlm_response_kind classify_response(
	const struct ntlmssp_authenticate *a)
{
	if (a->nt_response.len == 0) {
		bool lm_empty = a->lm_response.len == 0 ||
				(a->lm_response.len == 1 &&
				 a->lm_response.data[0] == 0);
		return lm_empty ? NTLM_RESPONSE_NONE : NTLM_RESPONSE_REFUSED;
	}
	if (ntlmv2_response_valid(a->nt_response)) {
		return NTLM_RESPONSE_V2;
	}
	return NTLM_RESPONSE_REFUSED;
}

static NTSTATUS session_names(struct ntlmssp_attempt *at)
{
	NTSTATUS status;
	char *user = NULL, *domain = NULL, *wksta = NULL;

	status = utf16_to_utf8(at->info, at->msg.user, &user);
	if (NT_STATUS_IS_OK(status)) {
		status = utf16_to_utf8(at->info, at->msg.domain, &domain);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = utf16_to_utf8(at->info, at->msg.workstation, &wksta);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return NT_STATUS_EQUAL(status, NT_STATUS_NO_MEMORY) ?
			status : NT_STATUS_LOGON_FAILURE;
	}
	at->info->user = user;
	at->info->domain = domain;
	at->info->workstation = wksta;
	return NT_STATUS_OK;
}

/* Unknown user or wrong password: guest if the settings say so. */
static NTSTATUS map_to_guest(const struct ntlmssp_server *srv,
			     struct ntlmssp_attempt *at, bool bad_password)
{
	bool guest = srv->map_to_guest == AUTH_MAP_BAD_PASSWORD ||
		     (srv->map_to_guest == AUTH_MAP_BAD_USER && !bad_password);

	if (!guest) {
		DBG_INFO("logon failure for user '%s': %s\n", at->info->user,
			 bad_password ? "wrong password" : "unknown user");
		return NT_STATUS_LOGON_FAILURE;
	}
	at->info->guest = true;
	return NT_STATUS_OK;
}

/* MS-NLMP 3.1.5.1.2: the MIC, if the client's AV flags announce one. */
static NTSTATUS check_mic(const struct ntlmssp_server *srv,
			  const struct ntlmssp_attempt *at,
			  const uint8_t key[16])
{
	struct auth_slice nt = at->msg.nt_response;
	struct auth_slice av = {
		nt.data + NTLMV2_PROOF_LEN + NTLMV2_CLIENT_HDR_LEN,
		nt.len - NTLMV2_PROOF_LEN - NTLMV2_CLIENT_HDR_LEN,
	};
	struct auth_slice flags, neg, chal;
	uint8_t mic[NTLMSSP_MIC_LEN];
	NTSTATUS status;
	bool ok;

	if (!ntlmssp_av_find(av, MSV_AV_FLAGS, &flags) || flags.len != 4 ||
	    !(pull_le32(flags.data) & MSV_AV_FLAG_MIC_PRESENT)) {
		return NT_STATUS_OK;
	}
	if (at->msg.payload_ofs < NTLMSSP_MIC_OFS + NTLMSSP_MIC_LEN) {
		return NT_STATUS_LOGON_FAILURE;	/* no room for a MIC */
	}
	neg = (struct auth_slice){ srv->negotiate_msg, srv->negotiate_len };
	chal = (struct auth_slice){ srv->challenge_msg, srv->challenge_len };
	status = ntlmssp_mic(key, neg, chal, at->raw, mic);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	ok = nettle_memeql_sec(mic, at->raw.data + NTLMSSP_MIC_OFS,
			       NTLMSSP_MIC_LEN);
	auth_wipe(mic, sizeof(mic));
	return ok ? NT_STATUS_OK : NT_STATUS_LOGON_FAILURE;
}

/* SessionBaseKey -> ExportedSessionKey (KXKEY is the base key for v2). */
static NTSTATUS session_key(const struct ntlmssp_server *srv,
			    struct ntlmssp_attempt *at, uint8_t key[16])
{
	struct auth_slice enc = at->msg.enc_session_key;

	if (!(srv->flags & NTLMSSP_NEGOTIATE_KEY_EXCH)) {
		return NT_STATUS_OK;
	}
	if (enc.len != AUTH_SESSION_KEY_SIZE) {
		return NT_STATUS_LOGON_FAILURE;
	}
	return ntlm_rc4(key, enc.data, key);
}

/*
 * Try the domain the client sent, then an empty one: some clients
 * compute NTOWFv2 without a domain (Samba's server tries both too).
 */
static NTSTATUS verify_v2(const struct ntlmssp_server *srv,
			  const struct ntlmssp_attempt *at,
			  const uint8_t nt_hash[16], uint8_t base_key[16])
{
	struct auth_slice domains[2] = { at->msg.domain, { NULL, 0 } };
	uint8_t owf[16];
	NTSTATUS status = NT_STATUS_LOGON_FAILURE;
	size_t i;

	for (i = 0; i < 2; i++) {
		status = ntowfv2(nt_hash, at->msg.user, domains[i], owf);
		if (NT_STATUS_IS_OK(status)) {
			status = ntlmv2_verify(owf, srv->challenge,
					       at->msg.nt_response, base_key);
		}
		if (!NT_STATUS_EQUAL(status, NT_STATUS_LOGON_FAILURE)) {
			break;
		}
	}
	auth_wipe(owf, sizeof(owf));
	return status;
}

static NTSTATUS lookup_user(const struct ntlmssp_server *srv,
			    const struct ntlmssp_attempt *at,
			    struct auth_user_entry *entry)
{
	NTSTATUS status;

	if (srv->users == NULL || srv->users->fn == NULL) {
		return NT_STATUS_NO_SUCH_USER;
	}
	status = srv->users->fn(srv->users->private_data, at->info->user,
				at->info->domain, entry);
	if (NT_STATUS_IS_OK(status) || NT_STATUS_EQUAL(status,
						       NT_STATUS_NO_SUCH_USER)) {
		return status;
	}
	DBG_NOTICE("user lookup for '%s' failed: %s\n", at->info->user,
		   nt_errstr(status));
	return NT_STATUS_LOGON_FAILURE;
}

static NTSTATUS check_named_user(const struct ntlmssp_server *srv,
				 struct ntlmssp_attempt *at,
				 enum ntlm_response_kind kind)
{
	struct auth_user_entry entry = {};
	uint8_t *key = at->info->session_key;
	NTSTATUS status;

	status = lookup_user(srv, at, &entry);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NO_SUCH_USER)) {
		return map_to_guest(srv, at, false);
	}
	if (NT_STATUS_IS_OK(status) && entry.disabled) {
		status = NT_STATUS_ACCOUNT_DISABLED;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = kind == NTLM_RESPONSE_V2 ?
			verify_v2(srv, at, entry.nt_hash, key) :
			NT_STATUS_LOGON_FAILURE;
		if (NT_STATUS_EQUAL(status, NT_STATUS_LOGON_FAILURE)) {
			status = map_to_guest(srv, at, true);
			auth_wipe(&entry, sizeof(entry));
			return status;
		}
	}
	auth_wipe(&entry, sizeof(entry));
	if (NT_STATUS_IS_OK(status)) {
		status = session_key(srv, at, key);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = check_mic(srv, at, key);
	}
	at->info->have_session_key = NT_STATUS_IS_OK(status);
	return status;
}

static NTSTATUS check_attempt(const struct ntlmssp_server *srv,
			      struct ntlmssp_attempt *at)
{
	enum ntlm_response_kind kind = classify_response(&at->msg);

	if (kind == NTLM_RESPONSE_REFUSED) {
		DBG_INFO("client sent an NTLMv1, LM or malformed response\n");
		return NT_STATUS_LOGON_FAILURE;
	}
	if (at->info->user[0] != '\0') {
		return check_named_user(srv, at, kind);
	}
	if (kind != NTLM_RESPONSE_NONE || !srv->allow_anonymous) {
		return NT_STATUS_LOGON_FAILURE;
	}
	at->info->anonymous = true;
	return NT_STATUS_OK;
}

/*
 * MS-NLMP 3.2.5.1.2: session security exists only with a key; we sign
 * only with extended session security (3.4.4.2), which every client we
 * serve negotiates.  Without it SPNEGO goes without a mechListMIC.
 */
static NTSTATUS start_signing(struct ntlmssp_server *srv,
			      const struct auth_session_info *info)
{
	if (!info->have_session_key ||
	    !(srv->flags & NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY)) {
		return NT_STATUS_OK;
	}
	srv->sign = ntlmssp_sign_new(srv, srv->flags, info->session_key,
				     true);
	return srv->sign != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static NTSTATUS server_authenticate(struct ntlmssp_server *srv,
				    struct auth_slice in)
{
	struct ntlmssp_attempt at = { .raw = in };
	NTSTATUS status;

	status = ntlmssp_authenticate_pull(in.data, in.len, &at.msg);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("client sent a malformed NTLMSSP AUTHENTICATE\n");
		return NT_STATUS_LOGON_FAILURE;
	}
	at.info = talloc_zero(srv, struct auth_session_info);
	if (at.info == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	auth_keep_secret(at.info);
	status = session_names(&at);
	if (NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(srv->attempt_user);
		TALLOC_FREE(srv->attempt_domain);
		TALLOC_FREE(srv->attempt_workstation);
		srv->attempt_user = talloc_strdup(srv, at.info->user);
		srv->attempt_domain = talloc_strdup(srv, at.info->domain);
		srv->attempt_workstation = talloc_strdup(srv,
							 at.info->workstation);
		status = check_attempt(srv, &at);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = start_signing(srv, at.info);
	}
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(at.info);
		return status;
	}
	srv->info = at.info;
	return NT_STATUS_OK;
}

const char *ntlmssp_server_attempt(const struct ntlmssp_server *srv,
				   const char **domain,
				   const char **workstation)
{
	*domain = srv->attempt_domain;
	*workstation = srv->attempt_workstation;
	return srv->attempt_user;
}

NTSTATUS ntlmssp_server_update(struct ntlmssp_server *srv,
			       TALLOC_CTX *mem_ctx, struct auth_slice in,
			       uint8_t **out, size_t *out_len)
{
	enum ntlmssp_state state = srv->state;
	uint32_t type = ntlmssp_msg_type(in.data, in.len);

	*out = NULL;
	*out_len = 0;
	srv->state = NTLMSSP_FINISHED;	/* until a step succeeds */
	if (state == NTLMSSP_WANT_NEGOTIATE && type == NTLMSSP_NEGOTIATE) {
		return server_negotiate(srv, mem_ctx, in, out, out_len);
	}
	if (state == NTLMSSP_WANT_AUTHENTICATE &&
	    type == NTLMSSP_AUTHENTICATE) {
		return server_authenticate(srv, in);
	}
	DBG_INFO("client sent NTLMSSP message type %u out of order\n",
		 (unsigned)type);
	return NT_STATUS_INVALID_PARAMETER;
}
