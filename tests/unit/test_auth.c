/*
 * lib/auth: SPNEGO codecs, NTLMSSP server, NTLMv2 (MS-NLMP 4.2.4 test
 * vectors) and exchanges captured from Samba's smbclient
 * (tests/unit/data/auth/, see README there).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "tests/unit/unit.h"
#include "lib/auth/auth_private.h"
#include "lib/util/byteorder.h"

#define ST(s) nt_errstr(s)
#define assert_status(got, want) \
	assert_string_equal(ST(got), ST(want))

/* ---- test data files ---------------------------------------------- */

static char *data_dir(TALLOC_CTX *mem_ctx)
{
	const char *env = getenv("RINGSMB_SRCDIR");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash = NULL;
	char *d = NULL;

	if (env != NULL) {
		return talloc_asprintf(mem_ctx, "%s/tests/unit/data/auth", env);
	}
	/* <repo>/<builddir>/tests/unit/test_auth */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
		}
		d = talloc_asprintf(mem_ctx, "%s/../../../tests/unit/data/auth",
				    exe);
		if (d != NULL && access(d, R_OK) == 0) {
			return d;
		}
		talloc_free(d);
	}
	return talloc_strdup(mem_ctx, "tests/unit/data/auth");
}

static uint8_t *load(TALLOC_CTX *mem_ctx, const char *name, size_t *len)
{
	char *path = talloc_asprintf(mem_ctx, "%s/%s", data_dir(mem_ctx),
				     name);
	FILE *f = fopen(path, "rb");
	uint8_t *buf = talloc_array(mem_ctx, uint8_t, 65536);

	if (f == NULL) {
		fail_msg("cannot open %s: %s", path, strerror(errno));
	}
	*len = fread(buf, 1, 65536, f);
	fclose(f);
	assert_true(*len > 0);
	return buf;
}

/* ---- client-side builders (test only) ------------------------------ */

/* DER TLV with short or long form length. */
static uint8_t *der(TALLOC_CTX *mem_ctx, uint8_t tag, const uint8_t *c,
		    size_t clen, size_t *len)
{
	uint8_t *b = talloc_array(mem_ctx, uint8_t, clen + 4);
	size_t h = 0;

	b[h++] = tag;
	if (clen < 0x80) {
		b[h++] = (uint8_t)clen;
	} else if (clen < 0x100) {
		b[h++] = 0x81;
		b[h++] = (uint8_t)clen;
	} else {
		b[h++] = 0x82;
		b[h++] = (uint8_t)(clen >> 8);
		b[h++] = (uint8_t)clen;
	}
	if (clen > 0) {
		memcpy(b + h, c, clen);
	}
	*len = h + clen;
	return b;
}

static const uint8_t oid_spnego[] = {
	0x06, 0x06, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x02
};
static const uint8_t oid_ntlmssp[] = {
	0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x02, 0x0a
};
static const uint8_t oid_krb5[] = {
	0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02
};

/* GSS-framed NegTokenInit with the given mechTypes content and token. */
static uint8_t *neg_token_init(TALLOC_CTX *mem_ctx, const uint8_t *mechs,
			       size_t mechs_len, const uint8_t *tok,
			       size_t tok_len, size_t *len)
{
	uint8_t body[2048];
	size_t n = 0, l;
	uint8_t *t;

	t = der(mem_ctx, 0x30, mechs, mechs_len, &l);
	t = der(mem_ctx, 0xa0, t, l, &l);
	memcpy(body, t, l);
	n = l;
	if (tok != NULL) {
		t = der(mem_ctx, 0x04, tok, tok_len, &l);
		t = der(mem_ctx, 0xa2, t, l, &l);
		memcpy(body + n, t, l);
		n += l;
	}
	t = der(mem_ctx, 0x30, body, n, &l);
	t = der(mem_ctx, 0xa0, t, l, &l);
	memcpy(body, oid_spnego, sizeof(oid_spnego));
	memcpy(body + sizeof(oid_spnego), t, l);
	return der(mem_ctx, 0x60, body, sizeof(oid_spnego) + l, len);
}

/* NegTokenResp with an optional responseToken and mechListMIC. */
static uint8_t *neg_token_resp_mic(TALLOC_CTX *mem_ctx, const uint8_t *tok,
				   size_t tok_len, const uint8_t *mic,
				   size_t mic_len, size_t *len)
{
	uint8_t body[2048];
	size_t n = 0, l;
	uint8_t *t;

	if (tok != NULL) {
		t = der(mem_ctx, 0x04, tok, tok_len, &l);
		t = der(mem_ctx, 0xa2, t, l, &l);
		memcpy(body, t, l);
		n = l;
	}
	if (mic != NULL) {
		t = der(mem_ctx, 0x04, mic, mic_len, &l);
		t = der(mem_ctx, 0xa3, t, l, &l);
		memcpy(body + n, t, l);
		n += l;
	}
	t = der(mem_ctx, 0x30, body, n, &l);
	return der(mem_ctx, 0xa1, t, l, len);
}

static uint8_t *neg_token_resp(TALLOC_CTX *mem_ctx, const uint8_t *tok,
			       size_t tok_len, size_t *len)
{
	return neg_token_resp_mic(mem_ctx, tok, tok_len, NULL, 0, len);
}

#define CLIENT_FLAGS (NTLMSSP_NEGOTIATE_UNICODE | NTLMSSP_REQUEST_TARGET | \
	NTLMSSP_NEGOTIATE_SIGN | NTLMSSP_NEGOTIATE_NTLM | \
	NTLMSSP_NEGOTIATE_ALWAYS_SIGN | \
	NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY | \
	NTLMSSP_NEGOTIATE_VERSION | NTLMSSP_NEGOTIATE_128 | \
	NTLMSSP_NEGOTIATE_KEY_EXCH)

static uint8_t *ntlm_negotiate(TALLOC_CTX *mem_ctx, uint32_t flags,
			       size_t *len)
{
	uint8_t *m = talloc_zero_array(mem_ctx, uint8_t, 40);

	memcpy(m, "NTLMSSP", 8);
	push_le32(m + 8, NTLMSSP_NEGOTIATE);
	push_le32(m + 12, flags);
	push_le32(m + 20, 40);
	push_le32(m + 28, 40);
	*len = 40;
	return m;
}

struct test_auth_msg {
	struct auth_slice lm, nt, domain, user, wksta, key;
	uint32_t flags;
};

#define AUTH_HDR 88	/* with Version and MIC */

/* AUTHENTICATE with fields in the order of the header, MIC zero. */
static uint8_t *ntlm_authenticate(TALLOC_CTX *mem_ctx,
				  const struct test_auth_msg *a, size_t *len)
{
	const struct auth_slice *f[6] = {
		&a->lm, &a->nt, &a->domain, &a->user, &a->wksta, &a->key
	};
	size_t total = AUTH_HDR, ofs = AUTH_HDR, i;
	uint8_t *m;

	for (i = 0; i < 6; i++) {
		total += f[i]->len;
	}
	m = talloc_zero_array(mem_ctx, uint8_t, total);
	memcpy(m, "NTLMSSP", 8);
	push_le32(m + 8, NTLMSSP_AUTHENTICATE);
	for (i = 0; i < 6; i++) {
		push_le16(m + 12 + 8 * i, (uint16_t)f[i]->len);
		push_le16(m + 14 + 8 * i, (uint16_t)f[i]->len);
		push_le32(m + 16 + 8 * i, (uint32_t)ofs);
		if (f[i]->len > 0) {
			memcpy(m + ofs, f[i]->data, f[i]->len);
		}
		ofs += f[i]->len;
	}
	push_le32(m + 60, a->flags);
	*len = total;
	return m;
}

static struct auth_slice u16(TALLOC_CTX *mem_ctx, const char *s)
{
	uint8_t *u = NULL;
	size_t l = 0;

	assert_true(NT_STATUS_IS_OK(utf8_to_utf16(mem_ctx, s, &u, &l)));
	return (struct auth_slice){ u, l };
}

static void hmac_md5(const uint8_t *key, const uint8_t *a, size_t alen,
		     const uint8_t *b, size_t blen, uint8_t out[16])
{
	gnutls_hmac_hd_t h;

	assert_int_equal(gnutls_hmac_init(&h, GNUTLS_MAC_MD5, key, 16), 0);
	gnutls_hmac(h, a, alen);
	gnutls_hmac(h, b, blen);
	gnutls_hmac_deinit(h, out);
}

/*
 * An NTLMv2 response over av (the AV pairs, EOL included or not, as the
 * test wants) for user/domain/password and the server challenge.
 */
static struct auth_slice ntlmv2_response(TALLOC_CTX *mem_ctx,
					 const char *user, const char *domain,
					 const char *password,
					 const uint8_t chal[8],
					 struct auth_slice av,
					 uint8_t base_key[16])
{
	size_t tlen = NTLMV2_CLIENT_HDR_LEN + av.len + 4;
	uint8_t *r = talloc_zero_array(mem_ctx, uint8_t, 16 + tlen);
	uint8_t *temp = r + 16;
	uint8_t hash[16], owf[16];

	temp[0] = 1;
	temp[1] = 1;
	memset(temp + 16, 0xaa, 8);	/* ClientChallenge */
	memcpy(temp + NTLMV2_CLIENT_HDR_LEN, av.data, av.len);
	assert_true(NT_STATUS_IS_OK(auth_nt_hash(password, hash)));
	assert_true(NT_STATUS_IS_OK(ntowfv2(hash, u16(mem_ctx, user),
					    u16(mem_ctx, domain), owf)));
	hmac_md5(owf, chal, 8, temp, tlen, r);
	if (base_key != NULL) {
		hmac_md5(owf, r, 16, NULL, 0, base_key);
	}
	return (struct auth_slice){ r, 16 + tlen };
}

/* ---- a server under test ------------------------------------------- */

struct test_user_db {
	const char *user;
	const char *password;
	bool disabled;
};

static NTSTATUS test_lookup(void *private_data, const char *user,
			    const char *domain, struct auth_user_entry *out)
{
	const struct test_user_db *db = private_data;

	if (strcasecmp(user, db->user) != 0) {
		return NT_STATUS_NO_SUCH_USER;
	}
	out->disabled = db->disabled;
	return auth_nt_hash(db->password, out->nt_hash);
}

static struct test_user_db user_db = { "User", "Password", false };
static const struct auth_user_lookup test_users = {
	.fn = test_lookup, .private_data = &user_db,
};

static struct auth_settings settings(enum auth_map_to_guest map,
				     const struct auth_user_lookup *users)
{
	return (struct auth_settings){
		.netbios_name = "RINGSMB",
		.workgroup = "WORKGROUP",
		.dns_domain = "example.test",
		.map_to_guest = map,
		.allow_anonymous = true,
		.users = users,
	};
}

/* Raw NTLMSSP NEGOTIATE leg; returns the CHALLENGE. */
static uint8_t *raw_negotiate(struct auth_ctx *ctx, TALLOC_CTX *mem_ctx,
			      size_t *chal_len)
{
	size_t len;
	uint8_t *neg = ntlm_negotiate(mem_ctx, CLIENT_FLAGS, &len);
	uint8_t *out = NULL;

	assert_status(auth_update(ctx, mem_ctx, neg, len, &out, chal_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_int_equal(ntlmssp_msg_type(out, *chal_len), NTLMSSP_CHALLENGE);
	return out;
}

static struct auth_slice chal_target_info(const uint8_t *chal, size_t len)
{
	size_t l = pull_le16(chal + 40), o = pull_le32(chal + 44);

	assert_true(o <= len && l <= len - o);
	return (struct auth_slice){ chal + o, l };
}

/* A complete user AUTHENTICATE against chal; base_key may be NULL. */
static uint8_t *user_authenticate(TALLOC_CTX *mem_ctx, const uint8_t *chal,
				  size_t chal_len, const char *user,
				  const char *password, uint8_t key[16],
				  size_t *len)
{
	struct test_auth_msg a = { .flags = CLIENT_FLAGS };
	static const uint8_t exported[16] = {
		0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
		0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55 };
	uint8_t base[16], *enc = talloc_array(mem_ctx, uint8_t, 16);

	a.nt = ntlmv2_response(mem_ctx, user, "WORKGROUP", password,
			       chal + 24, chal_target_info(chal, chal_len),
			       base);
	a.lm = (struct auth_slice){ (const uint8_t *)"\0", 1 };
	a.domain = u16(mem_ctx, "WORKGROUP");
	a.user = u16(mem_ctx, user);
	a.wksta = u16(mem_ctx, "CLIENT");
	assert_true(NT_STATUS_IS_OK(ntlm_rc4(base, exported, enc)));
	a.key = (struct auth_slice){ enc, 16 };
	if (key != NULL) {
		memcpy(key, exported, 16);
	}
	return ntlm_authenticate(mem_ctx, &a, len);
}

static NTSTATUS run_raw(TALLOC_CTX *mem_ctx, const struct auth_settings *s,
			const uint8_t *auth, size_t auth_len,
			struct auth_ctx **pctx)
{
	struct auth_ctx *ctx = auth_ctx_new(mem_ctx, s);
	size_t chal_len, out_len;
	uint8_t *out;

	raw_negotiate(ctx, mem_ctx, &chal_len);
	*pctx = ctx;
	return auth_update(ctx, mem_ctx, auth, auth_len, &out, &out_len);
}

/* ---- tests --------------------------------------------------------- */

static void test_negprot__matches_samba(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t *blob = NULL, *samba;
	size_t len = 0, slen;

	assert_status(auth_negprot_blob(tmp, &blob, &len), NT_STATUS_OK);
	samba = load(tmp, "samba_negprot.spnego", &slen);
	assert_int_equal(len, slen);
	assert_memory_equal(blob, samba, len);
	talloc_free(tmp);
}

static void test_spnego__anonymous_exchange(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_NEVER, NULL);
	struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
	struct test_auth_msg a = { .flags = CLIENT_FLAGS | NTLMSSP_ANONYMOUS };
	const struct auth_session_info *info;
	struct spnego_token tok;
	struct auth_slice av, v;
	uint8_t *neg, *blob, *out = NULL;
	size_t len, blen, out_len;

	neg = ntlm_negotiate(tmp, CLIENT_FLAGS, &len);
	blob = neg_token_init(tmp, oid_ntlmssp, sizeof(oid_ntlmssp), neg, len,
			      &blen);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_null(auth_session_info(ctx));
	assert_status(spnego_decode(tmp, out, out_len, &tok), NT_STATUS_OK);
	assert_false(tok.is_init);
	assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_INCOMPLETE);
	assert_int_equal(ntlmssp_msg_type(tok.token, tok.token_len),
			 NTLMSSP_CHALLENGE);
	assert_true(pull_le32(tok.token + 20) & NTLMSSP_NEGOTIATE_TARGET_INFO);
	av = chal_target_info(tok.token, tok.token_len);
	assert_true(ntlmssp_av_list_valid(av));
	assert_true(ntlmssp_av_find(av, MSV_AV_NB_COMPUTER_NAME, &v));
	assert_int_equal(v.len, 14);
	assert_memory_equal(v.data, "R\0I\0N\0G\0S\0M\0B\0", 14);
	assert_true(ntlmssp_av_find(av, MSV_AV_TIMESTAMP, &v));
	assert_int_equal(v.len, 8);

	a.lm = (struct auth_slice){ (const uint8_t *)"\0", 1 };
	neg = ntlm_authenticate(tmp, &a, &len);
	blob = neg_token_resp(tmp, neg, len, &blen);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_OK);
	assert_status(spnego_decode(tmp, out, out_len, &tok), NT_STATUS_OK);
	assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_COMPLETED);
	assert_null(tok.token);
	info = auth_session_info(ctx);
	assert_non_null(info);
	assert_true(info->anonymous);
	assert_false(info->guest);
	assert_false(info->have_session_key);
	assert_string_equal(info->user, "");
	/* the exchange is over */
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

static void test_ntlmssp__anonymous_refused(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_BAD_USER, NULL);
	struct test_auth_msg a = { .flags = CLIENT_FLAGS };
	struct auth_ctx *ctx;
	uint8_t *m;
	size_t len;

	s.allow_anonymous = false;
	m = ntlm_authenticate(tmp, &a, &len);
	assert_status(run_raw(tmp, &s, m, len, &ctx), NT_STATUS_LOGON_FAILURE);
	assert_null(auth_session_info(ctx));
	talloc_free(tmp);
}

static void test_ntlmssp__unknown_user(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings bad_user = settings(AUTH_MAP_BAD_USER,
						 &test_users);
	struct auth_settings never = settings(AUTH_MAP_NEVER, &test_users);
	struct auth_ctx *ctx = auth_ctx_new(tmp, &bad_user);
	const struct auth_session_info *info;
	uint8_t *chal, *m, *out;
	size_t chal_len, len, out_len;

	chal = raw_negotiate(ctx, tmp, &chal_len);
	m = user_authenticate(tmp, chal, chal_len, "nobody", "x", NULL, &len);
	assert_status(auth_update(ctx, tmp, m, len, &out, &out_len),
		      NT_STATUS_OK);
	assert_null(out);
	info = auth_session_info(ctx);
	assert_true(info->guest);
	assert_false(info->anonymous);
	assert_false(info->have_session_key);
	assert_string_equal(info->user, "nobody");
	assert_string_equal(info->domain, "WORKGROUP");
	assert_string_equal(info->workstation, "CLIENT");

	ctx = auth_ctx_new(tmp, &never);
	chal = raw_negotiate(ctx, tmp, &chal_len);
	m = user_authenticate(tmp, chal, chal_len, "nobody", "x", NULL, &len);
	assert_status(auth_update(ctx, tmp, m, len, &out, &out_len),
		      NT_STATUS_LOGON_FAILURE);
	assert_null(auth_session_info(ctx));
	talloc_free(tmp);
}

static void test_ntlmssp__user_ok(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_NEVER, &test_users);
	struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
	const struct auth_session_info *info;
	uint8_t *chal, *m, *out, key[16];
	size_t chal_len, len, out_len;

	chal = raw_negotiate(ctx, tmp, &chal_len);
	/* case of the user name must not matter (NTOWFv2 upper-cases it) */
	m = user_authenticate(tmp, chal, chal_len, "uSeR", "Password", key,
			      &len);
	assert_status(auth_update(ctx, tmp, m, len, &out, &out_len),
		      NT_STATUS_OK);
	info = auth_session_info(ctx);
	assert_false(info->guest);
	assert_false(info->anonymous);
	assert_true(info->have_session_key);
	assert_memory_equal(info->session_key, key, 16);
	assert_string_equal(info->user, "uSeR");
	talloc_free(tmp);
}

static void test_ntlmssp__bad_password(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	enum auth_map_to_guest maps[3] = {
		AUTH_MAP_NEVER, AUTH_MAP_BAD_USER, AUTH_MAP_BAD_PASSWORD
	};
	NTSTATUS want[3] = {
		NT_STATUS_LOGON_FAILURE, NT_STATUS_LOGON_FAILURE, NT_STATUS_OK
	};
	size_t i;

	for (i = 0; i < 3; i++) {
		struct auth_settings s = settings(maps[i], &test_users);
		struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
		uint8_t *chal, *m, *out;
		size_t chal_len, len, out_len;

		chal = raw_negotiate(ctx, tmp, &chal_len);
		m = user_authenticate(tmp, chal, chal_len, "User", "wrong",
				      NULL, &len);
		assert_status(auth_update(ctx, tmp, m, len, &out, &out_len),
			      want[i]);
		if (NT_STATUS_IS_OK(want[i])) {
			assert_true(auth_session_info(ctx)->guest);
			assert_false(auth_session_info(ctx)->have_session_key);
		}
	}
	talloc_free(tmp);
}

static void test_ntlmssp__disabled_user(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct test_user_db db = { "User", "Password", true };
	struct auth_user_lookup users = { test_lookup, &db };
	struct auth_settings s = settings(AUTH_MAP_BAD_PASSWORD, &users);
	struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
	uint8_t *chal, *m, *out;
	size_t chal_len, len, out_len;

	chal = raw_negotiate(ctx, tmp, &chal_len);
	m = user_authenticate(tmp, chal, chal_len, "User", "Password", NULL,
			      &len);
	assert_status(auth_update(ctx, tmp, m, len, &out, &out_len),
		      NT_STATUS_ACCOUNT_DISABLED);
	talloc_free(tmp);
}

static void test_ntlmssp__ntlmv1_refused(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_BAD_PASSWORD, NULL);
	static const uint8_t r24[24] = { 1, 2, 3 };
	struct test_auth_msg a = { .flags = CLIENT_FLAGS };
	struct auth_ctx *ctx;
	uint8_t *m;
	size_t len, n;

	a.user = u16(tmp, "nobody");
	/* NTLMv1 (24), LM only, and every short NT response */
	a.nt = (struct auth_slice){ r24, 24 };
	m = ntlm_authenticate(tmp, &a, &len);
	assert_status(run_raw(tmp, &s, m, len, &ctx), NT_STATUS_LOGON_FAILURE);
	a.lm = a.nt;
	a.nt = (struct auth_slice){ r24, 0 };
	m = ntlm_authenticate(tmp, &a, &len);
	assert_status(run_raw(tmp, &s, m, len, &ctx), NT_STATUS_LOGON_FAILURE);
	a.lm.len = 0;
	for (n = 1; n < NTLMV2_RESPONSE_MIN_LEN; n++) {
		uint8_t *r = talloc_zero_array(tmp, uint8_t, n);

		if (n > 17) {
			r[16] = r[17] = 1;
		}
		a.nt = (struct auth_slice){ r, n };
		m = ntlm_authenticate(tmp, &a, &len);
		assert_status(run_raw(tmp, &s, m, len, &ctx),
			      NT_STATUS_LOGON_FAILURE);
	}
	talloc_free(tmp);
}

static void test_ntlmssp__av_pairs(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_BAD_PASSWORD, NULL);
	static const uint8_t no_eol[] = { 1, 0, 2, 0, 'X', 0 };
	static const uint8_t past_end[] = { 1, 0, 9, 0, 'X', 0, 0, 0 };
	static const uint8_t short_hdr[] = { 0, 0, 0 };
	const struct auth_slice bad[] = {
		{ no_eol, sizeof(no_eol) }, { past_end, sizeof(past_end) },
		{ short_hdr, sizeof(short_hdr) },
	};
	static const uint8_t chal[8];
	struct test_auth_msg a = { .flags = CLIENT_FLAGS };
	struct auth_ctx *ctx;
	uint8_t *m;
	size_t len, i;

	a.user = u16(tmp, "nobody");
	for (i = 0; i < 3; i++) {
		a.nt = ntlmv2_response(tmp, "nobody", "", "x", chal, bad[i],
				       NULL);
		/* drop the 4 trailing zero bytes that would read as EOL */
		a.nt.len -= 4;
		m = ntlm_authenticate(tmp, &a, &len);
		assert_status(run_raw(tmp, &s, m, len, &ctx),
			      NT_STATUS_LOGON_FAILURE);
		assert_false(ntlmssp_av_list_valid(bad[i]));
	}
	talloc_free(tmp);
}

static void test_ntlmssp__bad_fields(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_BAD_PASSWORD, NULL);
	struct test_auth_msg a = { .flags = CLIENT_FLAGS };
	static const uint8_t key8[8];
	struct auth_ctx *ctx;
	uint8_t *m;
	size_t len, f;

	a.user = u16(tmp, "nobody");
	a.domain = u16(tmp, "D");
	a.wksta = u16(tmp, "W");
	m = ntlm_authenticate(tmp, &a, &len);
	assert_status(run_raw(tmp, &s, m, len, &ctx), NT_STATUS_OK);
	/* each field: offset past end, 32-bit wrap, odd length, in header */
	for (f = 0; f < 6; f++) {
		uint8_t *fld = NULL;

		m = ntlm_authenticate(tmp, &a, &len);
		fld = m + 12 + 8 * f;
		push_le16(fld, 2);
		push_le32(fld + 4, (uint32_t)len - 1);
		assert_status(run_raw(tmp, &s, m, len, &ctx),
			      NT_STATUS_LOGON_FAILURE);
		push_le32(fld + 4, 0xFFFFFFFF);
		assert_status(run_raw(tmp, &s, m, len, &ctx),
			      NT_STATUS_LOGON_FAILURE);
		push_le16(fld, 0x20);
		push_le32(fld + 4, 0xFFFFFFF0);
		assert_status(run_raw(tmp, &s, m, len, &ctx),
			      NT_STATUS_LOGON_FAILURE);
		push_le16(fld, 4);
		push_le32(fld + 4, 8);
		assert_status(run_raw(tmp, &s, m, len, &ctx),
			      NT_STATUS_LOGON_FAILURE);
	}
	a.user.len = 3;
	m = ntlm_authenticate(tmp, &a, &len);
	assert_status(run_raw(tmp, &s, m, len, &ctx), NT_STATUS_LOGON_FAILURE);
	a.user = u16(tmp, "nobody");
	a.key = (struct auth_slice){ key8, 8 };
	m = ntlm_authenticate(tmp, &a, &len);
	assert_status(run_raw(tmp, &s, m, len, &ctx), NT_STATUS_LOGON_FAILURE);
	/* an unpaired surrogate in the user name */
	a.key.len = 0;
	a.user = (struct auth_slice){ (const uint8_t *)"\x00\xd8" "a\0", 4 };
	m = ntlm_authenticate(tmp, &a, &len);
	assert_status(run_raw(tmp, &s, m, len, &ctx), NT_STATUS_LOGON_FAILURE);
	talloc_free(tmp);
}

static void test_ntlmssp__out_of_order(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_BAD_USER, NULL);
	struct test_auth_msg a = { .flags = CLIENT_FLAGS };
	struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
	uint8_t *neg, *auth, *out, type4[16] = "NTLMSSP";
	size_t nlen, alen, out_len, chal_len;

	neg = ntlm_negotiate(tmp, CLIENT_FLAGS, &nlen);
	auth = ntlm_authenticate(tmp, &a, &alen);
	assert_status(auth_update(ctx, tmp, auth, alen, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);
	assert_null(out);
	/* a dead context stays dead */
	assert_status(auth_update(ctx, tmp, neg, nlen, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);

	ctx = auth_ctx_new(tmp, &s);
	raw_negotiate(ctx, tmp, &chal_len);
	assert_status(auth_update(ctx, tmp, neg, nlen, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);

	ctx = auth_ctx_new(tmp, &s);
	push_le32(type4 + 8, 4);
	assert_status(auth_update(ctx, tmp, type4, 16, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);

	ctx = auth_ctx_new(tmp, &s);
	neg = ntlm_negotiate(tmp, CLIENT_FLAGS & ~NTLMSSP_NEGOTIATE_UNICODE,
			     &nlen);
	assert_status(auth_update(ctx, tmp, neg, nlen, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);
	assert_status(auth_update(ctx, tmp, NULL, 0, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

/*
 * RINGSMB_WRITE_CORPUS=<repo>/tests/fuzz/corpus writes the messages the
 * truncation tests start from as fuzz seeds.
 */
static void write_seed(const uint8_t *msg, size_t len)
{
	const char *dir = getenv("RINGSMB_WRITE_CORPUS");
	char path[PATH_MAX];
	FILE *f = NULL;
	uint32_t h = 2166136261u;
	size_t i;

	if (dir == NULL) {
		return;
	}
	for (i = 0; i < len; i++) {
		h = (h ^ msg[i]) * 16777619u;
	}
	snprintf(path, sizeof(path), "%s/%s/unit_%08x", dir,
		 ntlmssp_msg_type(msg, len) != 0 ? "ntlmssp" : "spnego", h);
	f = fopen(path, "wb");
	if (f != NULL) {
		fwrite(msg, 1, len, f);
		fclose(f);
	}
}

/* Every prefix of msg fails cleanly as leg `leg` of a fresh exchange. */
static void truncations(TALLOC_CTX *tmp, const struct auth_settings *s,
			const uint8_t *leg1, size_t leg1_len,
			const uint8_t *msg, size_t len)
{
	size_t n;

	write_seed(msg, len);
	for (n = 0; n < len; n++) {
		struct auth_ctx *ctx = auth_ctx_new(tmp, s);
		uint8_t *g = guard_dup(msg, n), *out = NULL;
		size_t out_len;
		NTSTATUS st;

		if (leg1 != NULL) {
			st = auth_update(ctx, tmp, leg1, leg1_len, &out,
					 &out_len);
			assert_status(st, NT_STATUS_MORE_PROCESSING_REQUIRED);
		}
		st = auth_update(ctx, tmp, g, n, &out, &out_len);
		assert_false(NT_STATUS_IS_OK(st));
		assert_false(NT_STATUS_EQUAL(st,
			NT_STATUS_MORE_PROCESSING_REQUIRED) && leg1 != NULL);
		guard_free(g);
		talloc_free(ctx);
	}
}

static void test_auth__truncations(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_BAD_USER, NULL);
	struct test_auth_msg a = { .flags = CLIENT_FLAGS };
	uint8_t *neg, *auth, *blob1, *blob2;
	size_t nlen, alen, b1len, b2len;

	a.user = u16(tmp, "someone");
	a.domain = u16(tmp, "DOM");
	neg = ntlm_negotiate(tmp, CLIENT_FLAGS, &nlen);
	auth = ntlm_authenticate(tmp, &a, &alen);
	blob1 = neg_token_init(tmp, oid_ntlmssp, sizeof(oid_ntlmssp), neg,
			       nlen, &b1len);
	blob2 = neg_token_resp(tmp, auth, alen, &b2len);
	truncations(tmp, &s, NULL, 0, neg, nlen);
	truncations(tmp, &s, neg, nlen, auth, alen);
	truncations(tmp, &s, NULL, 0, blob1, b1len);
	truncations(tmp, &s, blob1, b1len, blob2, b2len);
	blob1 = load(tmp, "smbclient_N_leg1.spnego", &b1len);
	blob2 = load(tmp, "smbclient_N_leg2.spnego", &b2len);
	truncations(tmp, &s, NULL, 0, blob1, b1len);
	truncations(tmp, &s, blob1, b1len, blob2, b2len);
	talloc_free(tmp);
}

static void test_spnego__malformed(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const uint8_t indefinite[] = {
		0xa1, 0x80, 0x30, 0x80, 0xa2, 0x03, 0x04, 0x01, 0x00,
		0x00, 0x00, 0x00, 0x00 };
	static const uint8_t too_long[] = {
		0xa1, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x30, 0x00 };
	static const uint8_t trailing_len[] = { 0xa1, 0x05, 0x30, 0x03 };
	const struct auth_slice cases[] = {
		{ indefinite, sizeof(indefinite) },
		{ too_long, sizeof(too_long) },
		{ trailing_len, sizeof(trailing_len) },
	};
	struct auth_settings s = settings(AUTH_MAP_BAD_USER, NULL);
	uint8_t *deep = talloc_array(tmp, uint8_t, 4000), *out;
	size_t i, out_len;
	struct spnego_token tok;

	for (i = 0; i < 3; i++) {
		struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
		uint8_t *g = guard_dup(cases[i].data, cases[i].len);

		assert_status(auth_update(ctx, tmp, g, cases[i].len, &out,
					  &out_len),
			      NT_STATUS_INVALID_PARAMETER);
		guard_free(g);
	}
	/* 1000-deep nesting of indefinite-length [0] */
	for (i = 0; i < 2000; i += 2) {
		deep[i] = 0xa0;
		deep[i + 1] = 0x80;
	}
	assert_status(spnego_decode(tmp, deep, 2000, &tok),
		      NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

static void test_spnego__mech_selection(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_BAD_USER, NULL);
	struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
	uint8_t mechs[64], *neg, *blob, *out;
	size_t nlen, blen, out_len;
	struct spnego_token tok;

	neg = ntlm_negotiate(tmp, CLIENT_FLAGS, &nlen);
	/* Kerberos only: nothing we speak */
	blob = neg_token_init(tmp, oid_krb5, sizeof(oid_krb5), neg, nlen,
			      &blen);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);

	/* Kerberos first, NTLMSSP second: ask for an NTLMSSP token */
	memcpy(mechs, oid_krb5, sizeof(oid_krb5));
	memcpy(mechs + sizeof(oid_krb5), oid_ntlmssp, sizeof(oid_ntlmssp));
	blob = neg_token_init(tmp, mechs,
			      sizeof(oid_krb5) + sizeof(oid_ntlmssp),
			      (const uint8_t *)"krb5 ticket", 11, &blen);
	ctx = auth_ctx_new(tmp, &s);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_status(spnego_decode(tmp, out, out_len, &tok), NT_STATUS_OK);
	/* not the client's first mech: the MICs become mandatory */
	assert_int_equal(tok.neg_state, SPNEGO_REQUEST_MIC);
	assert_null(tok.token);
	blob = neg_token_resp(tmp, neg, nlen, &blen);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_status(spnego_decode(tmp, out, out_len, &tok), NT_STATUS_OK);
	assert_int_equal(ntlmssp_msg_type(tok.token, tok.token_len),
			 NTLMSSP_CHALLENGE);

	/* NTLMSSP without a mechToken: same */
	blob = neg_token_init(tmp, oid_ntlmssp, sizeof(oid_ntlmssp), NULL, 0,
			      &blen);
	ctx = auth_ctx_new(tmp, &s);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	/* ... but a NegTokenResp without responseToken next is an error */
	blob = der(tmp, 0x30, NULL, 0, &blen);
	blob = der(tmp, 0xa1, blob, blen, &blen);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);

	/* a NegTokenResp as the first leg */
	ctx = auth_ctx_new(tmp, &s);
	blob = neg_token_resp(tmp, neg, nlen, &blen);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

/* MS-NLMP 4.2.4: User "User", domain "Domain", password "Password". */
static void test_ntlmv2__msnlmp_vectors(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const uint8_t nt_hash[16] = {
		0xa4, 0xf4, 0x9c, 0x40, 0x65, 0x10, 0xbd, 0xca,
		0xb6, 0x82, 0x4e, 0xe7, 0xc3, 0x0f, 0xd8, 0x52 };
	static const uint8_t owf_want[16] = {
		0x0c, 0x86, 0x8a, 0x40, 0x3b, 0xfd, 0x7a, 0x93,
		0xa3, 0x00, 0x1e, 0xf2, 0x2e, 0xf0, 0x2e, 0x3f };
	static const uint8_t proof_want[16] = {
		0x68, 0xcd, 0x0a, 0xb8, 0x51, 0xe5, 0x1c, 0x96,
		0xaa, 0xbc, 0x92, 0x7b, 0xeb, 0xef, 0x6a, 0x1c };
	static const uint8_t base_want[16] = {
		0x8d, 0xe4, 0x0c, 0xca, 0xdb, 0xc1, 0x4a, 0x82,
		0xf1, 0x5c, 0xb0, 0xad, 0x0d, 0xe9, 0x5c, 0xa3 };
	static const uint8_t enc_want[16] = {
		0xc5, 0xda, 0xd2, 0x54, 0x4f, 0xc9, 0x79, 0x90,
		0x94, 0xce, 0x1c, 0xe9, 0x0b, 0xc9, 0xd0, 0x3e };
	static const uint8_t chal[8] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	static const uint8_t av[] = {
		0x02, 0x00, 0x0c, 0x00, 'D', 0, 'o', 0, 'm', 0, 'a', 0, 'i', 0,
		'n', 0, 0x01, 0x00, 0x0c, 0x00, 'S', 0, 'e', 0, 'r', 0, 'v', 0,
		'e', 0, 'r', 0, 0x00, 0x00, 0x00, 0x00 };
	uint8_t hash[16], owf[16], base[16], enc[16], rnd[16];
	uint8_t resp[16 + NTLMV2_CLIENT_HDR_LEN + sizeof(av) + 4] = {};
	struct auth_slice r = { resp, sizeof(resp) };

	assert_status(auth_nt_hash("Password", hash), NT_STATUS_OK);
	assert_memory_equal(hash, nt_hash, 16);
	assert_status(ntowfv2(hash, u16(tmp, "User"), u16(tmp, "Domain"),
			      owf), NT_STATUS_OK);
	assert_memory_equal(owf, owf_want, 16);
	/* temp: 0x0101, zero time, ClientChallenge aa*8, AV pairs */
	resp[16] = resp[17] = 1;
	memset(resp + 16 + 16, 0xaa, 8);
	memcpy(resp + 16 + NTLMV2_CLIENT_HDR_LEN, av, sizeof(av));
	memcpy(resp, proof_want, 16);
	assert_true(ntlmv2_response_valid(r));
	assert_status(ntlmv2_verify(owf, chal, r, base), NT_STATUS_OK);
	assert_memory_equal(base, base_want, 16);
	memset(rnd, 0x55, 16);
	assert_status(ntlm_rc4(base, rnd, enc), NT_STATUS_OK);
	assert_memory_equal(enc, enc_want, 16);
	resp[0] ^= 1;
	assert_status(ntlmv2_verify(owf, chal, r, base),
		      NT_STATUS_LOGON_FAILURE);
	talloc_free(tmp);
}

/* SPNEGO-unwrap a captured blob's token. */
static struct auth_slice captured_token(TALLOC_CTX *tmp, const char *name)
{
	struct spnego_token tok;
	size_t len;
	uint8_t *b = load(tmp, name, &len);

	assert_status(spnego_decode(tmp, b, len, &tok), NT_STATUS_OK);
	assert_non_null(tok.token);
	return (struct auth_slice){ tok.token, tok.token_len };
}

/*
 * Replay smbclient 4.17 against Samba's challenge, user alice, password
 * "secret": NTLMv2 with KEY_EXCH and a MIC, all checked.
 */
static void test_ntlmssp__smbclient_user_capture(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct test_user_db db = { "alice", "secret", false };
	struct auth_user_lookup users = { test_lookup, &db };
	struct auth_settings s = settings(AUTH_MAP_NEVER, &users);
	struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
	const struct auth_session_info *info;
	uint8_t *b1, *b2, *out;
	size_t l1, l2, out_len;

	b1 = load(tmp, "smbclient_alice_leg1.spnego", &l1);
	b2 = load(tmp, "smbclient_alice_leg2.spnego", &l2);
	assert_status(auth_update(ctx, tmp, b1, l1, &out, &out_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_status(ntlmssp_server_replace_challenge(auth_ctx_ntlmssp(ctx),
			captured_token(tmp, "samba_challenge_alice.spnego")),
		      NT_STATUS_OK);
	assert_status(auth_update(ctx, tmp, b2, l2, &out, &out_len),
		      NT_STATUS_OK);
	info = auth_session_info(ctx);
	assert_false(info->guest);
	assert_true(info->have_session_key);
	assert_string_equal(info->user, "alice");
	assert_string_equal(info->domain, "WORKGROUP");

	/* wrong password; then a flipped MIC byte */
	db.password = "Secret";
	ctx = auth_ctx_new(tmp, &s);
	auth_update(ctx, tmp, b1, l1, &out, &out_len);
	ntlmssp_server_replace_challenge(auth_ctx_ntlmssp(ctx),
		captured_token(tmp, "samba_challenge_alice.spnego"));
	assert_status(auth_update(ctx, tmp, b2, l2, &out, &out_len),
		      NT_STATUS_LOGON_FAILURE);
	db.password = "secret";
	b2[16 + 72] ^= 1;	/* SPNEGO header is 16 bytes, MIC at 72 */
	ctx = auth_ctx_new(tmp, &s);
	auth_update(ctx, tmp, b1, l1, &out, &out_len);
	ntlmssp_server_replace_challenge(auth_ctx_ntlmssp(ctx),
		captured_token(tmp, "samba_challenge_alice.spnego"));
	assert_status(auth_update(ctx, tmp, b2, l2, &out, &out_len),
		      NT_STATUS_LOGON_FAILURE);
	talloc_free(tmp);
}

/* `smbclient -N`: user root, empty responses -> guest or failure. */
static void test_ntlmssp__smbclient_N_capture(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings guest = settings(AUTH_MAP_BAD_USER, NULL);
	struct auth_settings never = settings(AUTH_MAP_NEVER, NULL);
	static const uint8_t samba_final[] = {
		0xa1, 0x07, 0x30, 0x05, 0xa0, 0x03, 0x0a, 0x01, 0x00 };
	struct auth_ctx *ctx = auth_ctx_new(tmp, &guest);
	uint8_t *b1, *b2, *out;
	size_t l1, l2, out_len;

	b1 = load(tmp, "smbclient_N_leg1.spnego", &l1);
	b2 = load(tmp, "smbclient_N_leg2.spnego", &l2);
	assert_status(auth_update(ctx, tmp, b1, l1, &out, &out_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_status(auth_update(ctx, tmp, b2, l2, &out, &out_len),
		      NT_STATUS_OK);
	/* byte for byte what smbd answered: accept-completed, nothing else */
	assert_int_equal(out_len, sizeof(samba_final));
	assert_memory_equal(out, samba_final, sizeof(samba_final));
	assert_true(auth_session_info(ctx)->guest);
	assert_string_equal(auth_session_info(ctx)->user, "root");

	ctx = auth_ctx_new(tmp, &never);
	auth_update(ctx, tmp, b1, l1, &out, &out_len);
	assert_status(auth_update(ctx, tmp, b2, l2, &out, &out_len),
		      NT_STATUS_LOGON_FAILURE);

	ctx = auth_ctx_new(tmp, &never);
	b2 = load(tmp, "smbclient_anon_leg2.spnego", &l2);
	auth_update(ctx, tmp, b1, l1, &out, &out_len);
	assert_status(auth_update(ctx, tmp, b2, l2, &out, &out_len),
		      NT_STATUS_OK);
	assert_true(auth_session_info(ctx)->anonymous);
	talloc_free(tmp);
}

/* ---- NTLMSSP signing and the SPNEGO mechListMIC -------------------- */

static void md5_magic(const uint8_t *key, size_t key_len, const char *what,
		      const char *dir, uint8_t out[16])
{
	char magic[96];
	gnutls_hash_hd_t h;
	int n = snprintf(magic, sizeof(magic),
			 "session key to %s %s key magic constant", dir, what);

	assert_int_equal(gnutls_hash_init(&h, GNUTLS_DIG_MD5), 0);
	gnutls_hash(h, key, key_len);
	gnutls_hash(h, magic, (size_t)n + 1);
	gnutls_hash_deinit(h, out);
}

/*
 * MS-NLMP 3.4.4.2 written out independently of lib/auth: the first MIC
 * (SeqNum 0) in direction dir, ESS + 128-bit + KEY_EXCH.
 */
static void expect_mic(const uint8_t key[16], const char *dir,
		       const uint8_t *msg, size_t len, uint8_t sig[16])
{
	static const uint8_t seq0[4];
	uint8_t sign[16], seal[16], mac[16];
	gnutls_datum_t k = { .data = seal, .size = 16 };
	gnutls_cipher_hd_t rc4;

	md5_magic(key, 16, "signing", dir, sign);
	md5_magic(key, 16, "sealing", dir, seal);
	hmac_md5(sign, seq0, 4, msg, len, mac);
	assert_int_equal(gnutls_cipher_init(&rc4, GNUTLS_CIPHER_ARCFOUR_128,
					    &k, NULL), 0);
	assert_int_equal(gnutls_cipher_encrypt2(rc4, mac, 8, sig + 4, 8), 0);
	gnutls_cipher_deinit(rc4);
	push_le32(sig, 1);
	push_le32(sig + 12, 0);
}

#define SIGN_FLAGS (NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY | \
	NTLMSSP_NEGOTIATE_128 | NTLMSSP_NEGOTIATE_KEY_EXCH | \
	NTLMSSP_NEGOTIATE_SIGN)

/*
 * MS-NLMP 4.2.4.4 (NTLMv2, extended session security): RandomSessionKey
 * 0x55 * 16, SeqNum 0, "Plaintext" in UTF-16LE.  The vector seals the
 * message first, so the checksum's RC4 runs 18 bytes into the key stream.
 */
static void test_ntlmssp__sign_msnlmp_vectors(void **state)
{
	static const uint8_t sign_want[16] = {
		0x47, 0x88, 0xdc, 0x86, 0x1b, 0x47, 0x82, 0xf3,
		0x5d, 0x43, 0xfd, 0x98, 0xfe, 0x1a, 0x2d, 0x39 };
	static const uint8_t seal_want[16] = {
		0x59, 0xf6, 0x00, 0x97, 0x3c, 0xc4, 0x96, 0x0a,
		0x25, 0x48, 0x0a, 0x7c, 0x19, 0x6e, 0x4c, 0x58 };
	static const uint8_t sealed_want[18] = {
		0x54, 0xe5, 0x01, 0x65, 0xbf, 0x19, 0x36, 0xdc, 0x99,
		0x60, 0x20, 0xc1, 0x81, 0x1b, 0x0f, 0x06, 0xfb, 0x5f };
	static const uint8_t sig_want[16] = {
		0x01, 0x00, 0x00, 0x00, 0x7f, 0xb3, 0x8e, 0xc5,
		0xc5, 0x5d, 0x49, 0x76, 0x00, 0x00, 0x00, 0x00 };
	static const uint8_t plain_sig_want[16] = {
		0x01, 0x00, 0x00, 0x00, 0x70, 0x35, 0x28, 0x51,
		0xf2, 0x56, 0x43, 0x09, 0x00, 0x00, 0x00, 0x00 };
	static const uint8_t msg[18] = "P\0l\0a\0i\0n\0t\0e\0x\0t";
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t key[16], sign[16], seal[16], sealed[18], sig[16];
	struct ntlmssp_sign *cli, *srv;

	memset(key, 0x55, sizeof(key));
	assert_status(ntlmssp_sign_keys(SIGN_FLAGS, key,
					NTLMSSP_CLIENT_TO_SERVER, sign, seal),
		      NT_STATUS_OK);
	assert_memory_equal(sign, sign_want, 16);
	assert_memory_equal(seal, seal_want, 16);

	cli = ntlmssp_sign_new(tmp, SIGN_FLAGS, key, false);
	assert_non_null(cli);
	assert_memory_equal(cli->send.sign_key, sign_want, 16);
	assert_int_equal(gnutls_cipher_encrypt2(cli->send.seal, msg, 18,
						sealed, 18), 0);
	assert_memory_equal(sealed, sealed_want, 18);
	assert_status(ntlmssp_sign_mic(cli, msg, 18, sig), NT_STATUS_OK);
	assert_memory_equal(sig, sig_want, 16);

	/* the acceptor checks it with the same key stream position */
	srv = ntlmssp_sign_new(tmp, SIGN_FLAGS, key, true);
	assert_non_null(srv);
	gnutls_cipher_encrypt2(srv->recv.seal, msg, 18, sealed, 18);
	assert_status(ntlmssp_sign_check(srv, msg, 18, sig, 16),
		      NT_STATUS_OK);
	/* replayed: SeqNum 1 is due now */
	assert_status(ntlmssp_sign_check(srv, msg, 18, sig, 16),
		      NT_STATUS_ACCESS_DENIED);
	assert_status(ntlmssp_sign_check(srv, msg, 18, sig, 15),
		      NT_STATUS_ACCESS_DENIED);

	/* without KEY_EXCH the checksum goes out as computed */
	cli = ntlmssp_sign_new(tmp, SIGN_FLAGS & ~NTLMSSP_NEGOTIATE_KEY_EXCH,
			       key, false);
	assert_status(ntlmssp_sign_mic(cli, msg, 18, sig), NT_STATUS_OK);
	assert_memory_equal(sig, plain_sig_want, 16);
	talloc_free(tmp);
}

/* SEALKEY (3.4.5.3) uses 16, 7 or 5 key bytes; SIGNKEY always 16. */
static void test_ntlmssp__seal_key_strength(void **state)
{
	static const uint32_t flags[3] = {
		NTLMSSP_NEGOTIATE_128 | NTLMSSP_NEGOTIATE_56,
		NTLMSSP_NEGOTIATE_56, 0 };
	static const size_t used[3] = { 16, 7, 5 };
	uint8_t key[16], sign[16], seal[16], want[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(key); i++) {
		key[i] = (uint8_t)(0x10 + i);
	}
	for (i = 0; i < 3; i++) {
		assert_status(ntlmssp_sign_keys(flags[i], key,
						NTLMSSP_SERVER_TO_CLIENT,
						sign, seal), NT_STATUS_OK);
		md5_magic(key, used[i], "sealing", "server-to-client", want);
		assert_memory_equal(seal, want, 16);
		md5_magic(key, 16, "signing", "server-to-client", want);
		assert_memory_equal(sign, want, 16);
	}
}

/* The MechTypeList slice for short, 0x81 and 0x82 DER lengths. */
static void test_spnego__mech_types_der(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const size_t counts[3] = { 1, 12, 30 };
	uint8_t mechs[32 * sizeof(oid_krb5)], *blob, *want;
	size_t i, k, n, blen, wlen;
	struct spnego_token tok;

	for (i = 0; i < 3; i++) {
		n = 0;
		for (k = 0; k < counts[i]; k++) {
			memcpy(mechs + n, oid_krb5, sizeof(oid_krb5));
			n += sizeof(oid_krb5);
		}
		memcpy(mechs + n, oid_ntlmssp, sizeof(oid_ntlmssp));
		n += sizeof(oid_ntlmssp);
		blob = neg_token_init(tmp, mechs, n, NULL, 0, &blen);
		want = der(tmp, 0x30, mechs, n, &wlen);
		assert_status(spnego_decode(tmp, blob, blen, &tok),
			      NT_STATUS_OK);
		assert_int_equal(tok.mech_types.len, wlen);
		assert_memory_equal(tok.mech_types.data, want, wlen);
	}
	talloc_free(tmp);
}

/* Replay alice's captured exchange up to leg 2; returns the status. */
static NTSTATUS replay_alice(TALLOC_CTX *tmp, struct auth_ctx *ctx,
			     const uint8_t *b2, size_t l2, uint8_t **out,
			     size_t *out_len)
{
	size_t l1;
	uint8_t *b1 = load(tmp, "smbclient_alice_leg1.spnego", &l1);

	assert_status(auth_update(ctx, tmp, b1, l1, out, out_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_status(ntlmssp_server_replace_challenge(auth_ctx_ntlmssp(ctx),
			captured_token(tmp, "samba_challenge_alice.spnego")),
		      NT_STATUS_OK);
	return auth_update(ctx, tmp, b2, l2, out, out_len);
}

/*
 * smbclient -U alice%secret sends a mechListMIC with its AUTHENTICATE:
 * it verifies, and our final token carries the MIC smbclient will check,
 * both recomputed here from the session key by expect_mic().
 */
static void test_spnego__smbclient_mech_list_mic(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct test_user_db db = { "alice", "secret", false };
	struct auth_user_lookup users = { test_lookup, &db };
	struct auth_settings s = settings(AUTH_MAP_NEVER, &users);
	struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
	const struct auth_session_info *info;
	struct spnego_token t1, t2, reply;
	uint8_t *b1, *b2, *out, *mech_types, want[16];
	size_t l1, l2, mlen, out_len;

	b1 = load(tmp, "smbclient_alice_leg1.spnego", &l1);
	b2 = load(tmp, "smbclient_alice_leg2.spnego", &l2);
	assert_status(spnego_decode(tmp, b1, l1, &t1), NT_STATUS_OK);
	mech_types = der(tmp, 0x30, oid_ntlmssp, sizeof(oid_ntlmssp), &mlen);
	assert_int_equal(t1.mech_types.len, mlen);
	assert_memory_equal(t1.mech_types.data, mech_types, mlen);
	assert_status(spnego_decode(tmp, b2, l2, &t2), NT_STATUS_OK);
	assert_int_equal(t2.mic_len, 16);

	assert_status(replay_alice(tmp, ctx, b2, l2, &out, &out_len),
		      NT_STATUS_OK);
	info = auth_session_info(ctx);
	assert_true(info->have_session_key);
	expect_mic(info->session_key, "client-to-server", mech_types, mlen,
		   want);
	assert_memory_equal(t2.mic, want, 16);

	assert_status(spnego_decode(tmp, out, out_len, &reply), NT_STATUS_OK);
	assert_int_equal(reply.neg_state, SPNEGO_ACCEPT_COMPLETED);
	assert_null(reply.token);
	assert_int_equal(reply.mic_len, 16);
	expect_mic(info->session_key, "server-to-client", mech_types, mlen,
		   want);
	assert_memory_equal(reply.mic, want, 16);

	/* one flipped bit in the client's checksum */
	b2[l2 - 8] ^= 0x10;
	ctx = auth_ctx_new(tmp, &s);
	assert_status(replay_alice(tmp, ctx, b2, l2, &out, &out_len),
		      NT_STATUS_LOGON_FAILURE);
	assert_null(out);
	assert_null(auth_session_info(ctx));
	talloc_free(tmp);
}

/* SPNEGO leg 1 (mechs, NEGOTIATE in a NegTokenResp if not first). */
static uint8_t *spnego_challenge(TALLOC_CTX *tmp, struct auth_ctx *ctx,
				 const uint8_t *mechs, size_t mechs_len,
				 size_t *chal_len)
{
	size_t nlen, blen, out_len;
	uint8_t *neg = ntlm_negotiate(tmp, CLIENT_FLAGS, &nlen);
	bool first = mechs == oid_ntlmssp;
	uint8_t *blob = neg_token_init(tmp, mechs, mechs_len,
				       first ? neg : NULL, nlen, &blen);
	uint8_t *out = NULL;
	struct spnego_token tok;

	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	if (!first) {
		blob = neg_token_resp(tmp, neg, nlen, &blen);
		assert_status(auth_update(ctx, tmp, blob, blen, &out,
					  &out_len),
			      NT_STATUS_MORE_PROCESSING_REQUIRED);
	}
	assert_status(spnego_decode(tmp, out, out_len, &tok), NT_STATUS_OK);
	assert_null(tok.mic);
	*chal_len = tok.token_len;
	return tok.token;
}

/*
 * Without a client mechListMIC: none from us when NTLMSSP was the first
 * mech; when it was not, ours comes with accept-incomplete and the client
 * must answer with its own (RFC 4178 5).
 */
static void test_spnego__mic_required(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_NEVER, &test_users);
	struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
	uint8_t mechs[64], *chal, *m, *blob, *out, *mech_types, key[16];
	uint8_t mic[16];
	size_t mechs_len, chal_len, len, blen, out_len, mlen, i;
	struct spnego_token tok;

	chal = spnego_challenge(tmp, ctx, oid_ntlmssp, sizeof(oid_ntlmssp),
				&chal_len);
	m = user_authenticate(tmp, chal, chal_len, "User", "Password", key,
			      &len);
	blob = neg_token_resp(tmp, m, len, &blen);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_OK);
	assert_status(spnego_decode(tmp, out, out_len, &tok), NT_STATUS_OK);
	assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_COMPLETED);
	assert_null(tok.mic);

	memcpy(mechs, oid_krb5, sizeof(oid_krb5));
	memcpy(mechs + sizeof(oid_krb5), oid_ntlmssp, sizeof(oid_ntlmssp));
	mechs_len = sizeof(oid_krb5) + sizeof(oid_ntlmssp);
	mech_types = der(tmp, 0x30, mechs, mechs_len, &mlen);
	for (i = 0; i < 2; i++) {
		ctx = auth_ctx_new(tmp, &s);
		chal = spnego_challenge(tmp, ctx, mechs, mechs_len, &chal_len);
		m = user_authenticate(tmp, chal, chal_len, "User", "Password",
				      key, &len);
		blob = neg_token_resp(tmp, m, len, &blen);
		assert_status(auth_update(ctx, tmp, blob, blen, &out,
					  &out_len),
			      NT_STATUS_MORE_PROCESSING_REQUIRED);
		assert_null(auth_session_info(ctx));
		assert_status(spnego_decode(tmp, out, out_len, &tok),
			      NT_STATUS_OK);
		assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_INCOMPLETE);
		assert_null(tok.token);
		expect_mic(key, "server-to-client", mech_types, mlen, mic);
		assert_int_equal(tok.mic_len, 16);
		assert_memory_equal(tok.mic, mic, 16);

		expect_mic(key, "client-to-server", mech_types, mlen, mic);
		mic[4] ^= (uint8_t)i;	/* second round: a bad MIC */
		blob = neg_token_resp_mic(tmp, NULL, 0, mic, 16, &blen);
		assert_status(auth_update(ctx, tmp, blob, blen, &out,
					  &out_len),
			      i == 0 ? NT_STATUS_OK : NT_STATUS_LOGON_FAILURE);
		if (i == 0) {
			assert_status(spnego_decode(tmp, out, out_len, &tok),
				      NT_STATUS_OK);
			assert_int_equal(tok.neg_state,
					 SPNEGO_ACCEPT_COMPLETED);
			assert_null(tok.mic);
			assert_true(auth_session_info(ctx)->have_session_key);
		}
	}
	/* the MIC leg must not carry a token */
	ctx = auth_ctx_new(tmp, &s);
	chal = spnego_challenge(tmp, ctx, mechs, mechs_len, &chal_len);
	m = user_authenticate(tmp, chal, chal_len, "User", "Password", key,
			      &len);
	blob = neg_token_resp(tmp, m, len, &blen);
	auth_update(ctx, tmp, blob, blen, &out, &out_len);
	blob = neg_token_resp_mic(tmp, m, len, mic, 16, &blen);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

/* Guests have no key: a client mechListMIC is ignored, none is sent. */
static void test_spnego__guest_no_mic(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_BAD_USER, &test_users);
	struct auth_ctx *ctx = auth_ctx_new(tmp, &s);
	static const uint8_t junk[16] = { 1 };
	uint8_t *chal, *m, *blob, *out;
	size_t chal_len, len, blen, out_len;
	struct spnego_token tok;

	chal = spnego_challenge(tmp, ctx, oid_ntlmssp, sizeof(oid_ntlmssp),
				&chal_len);
	m = user_authenticate(tmp, chal, chal_len, "nobody", "x", NULL, &len);
	blob = neg_token_resp_mic(tmp, m, len, junk, 16, &blen);
	assert_status(auth_update(ctx, tmp, blob, blen, &out, &out_len),
		      NT_STATUS_OK);
	assert_true(auth_session_info(ctx)->guest);
	assert_status(spnego_decode(tmp, out, out_len, &tok), NT_STATUS_OK);
	assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_COMPLETED);
	assert_null(tok.mic);
	talloc_free(tmp);
}

static void test_utf16__conversions(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const uint8_t pair[] = { 0x3d, 0xd8, 0x00, 0xde };  /* U+1F600 */
	static const uint8_t lone_lo[] = { 0x00, 0xdc };
	static const uint8_t nul[] = { 'a', 0, 0, 0 };
	char *s = NULL;
	struct auth_slice u;

	assert_status(utf16_to_utf8(tmp, (struct auth_slice){ pair, 4 }, &s),
		      NT_STATUS_OK);
	assert_string_equal(s, "\xf0\x9f\x98\x80");
	u = u16(tmp, s);
	assert_int_equal(u.len, 4);
	assert_memory_equal(u.data, pair, 4);
	assert_status(utf16_to_utf8(tmp, (struct auth_slice){ pair, 2 }, &s),
		      NT_STATUS_INVALID_PARAMETER);
	assert_status(utf16_to_utf8(tmp, (struct auth_slice){ lone_lo, 2 },
				    &s), NT_STATUS_INVALID_PARAMETER);
	assert_status(utf16_to_utf8(tmp, (struct auth_slice){ nul, 4 }, &s),
		      NT_STATUS_INVALID_PARAMETER);
	assert_status(utf16_to_utf8(tmp, (struct auth_slice){ pair, 3 }, &s),
		      NT_STATUS_INVALID_PARAMETER);
	u = u16(tmp, "J\xc3\xb6rg \xc5\x82");	/* Jörg ł */
	utf16_upper((uint8_t *)u.data, u.len);
	assert_status(utf16_to_utf8(tmp, u, &s), NT_STATUS_OK);
	assert_string_equal(s, "J\xc3\x96RG \xc5\x81");
	assert_status(utf8_to_utf16(tmp, "\xc0\xaf", (uint8_t **)&u.data,
				    &u.len), NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)
		T(test_negprot__matches_samba),
		T(test_spnego__anonymous_exchange),
		T(test_spnego__malformed),
		T(test_spnego__mech_selection),
		T(test_ntlmssp__anonymous_refused),
		T(test_ntlmssp__unknown_user),
		T(test_ntlmssp__user_ok),
		T(test_ntlmssp__bad_password),
		T(test_ntlmssp__disabled_user),
		T(test_ntlmssp__ntlmv1_refused),
		T(test_ntlmssp__av_pairs),
		T(test_ntlmssp__bad_fields),
		T(test_ntlmssp__out_of_order),
		T(test_ntlmssp__smbclient_user_capture),
		T(test_ntlmssp__smbclient_N_capture),
		T(test_ntlmv2__msnlmp_vectors),
		T(test_ntlmssp__sign_msnlmp_vectors),
		T(test_ntlmssp__seal_key_strength),
		T(test_spnego__mech_types_der),
		T(test_spnego__smbclient_mech_list_mic),
		T(test_spnego__mic_required),
		T(test_spnego__guest_no_mic),
		T(test_utf16__conversions),
		T(test_auth__truncations),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
