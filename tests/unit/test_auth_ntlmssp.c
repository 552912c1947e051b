/*
 * lib/auth NTLMSSP server: users known, unknown, disabled or with a bad
 * password under each "map to guest", malformed AUTHENTICATE fields,
 * NTLMv2 (MS-NLMP 4.2.4 test vectors), exchanges captured from Samba's
 * smbclient (tests/unit/data/auth/) and the UTF-16 conversions.
 */
#include <string.h>

#include "tests/unit/auth_test_util.h"
#include "lib/util/byteorder.h"

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

/* ---- tests ---- */

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

/* MS-NLMP 4.2.4: User "User", domain "Domain", password "Password". */
static void test_ntlmv2__msnlmp_vectors(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	const uint8_t *nt_hash = msnlmp_nt_hash, *owf_want = msnlmp_owf;
	const uint8_t *proof_want = msnlmp_proof;
	const uint8_t *base_want = msnlmp_base_key;
	const uint8_t *enc_want = msnlmp_enc_key;
	const uint8_t *chal = msnlmp_challenge, *av = msnlmp_av;
	uint8_t hash[16], owf[16], base[16], enc[16], rnd[16];
	uint8_t resp[16 + NTLMV2_CLIENT_HDR_LEN + sizeof(msnlmp_av) + 4] = {};
	struct auth_slice r = { resp, sizeof(resp) };

	assert_status(auth_nt_hash("Password", hash), NT_STATUS_OK);
	assert_memory_equal(hash, nt_hash, 16);
	assert_status(ntowfv2(hash, u16(tmp, "User"), u16(tmp, "Domain"),
			      owf), NT_STATUS_OK);
	assert_memory_equal(owf, owf_want, 16);
	/* temp: 0x0101, zero time, ClientChallenge aa*8, AV pairs */
	resp[16] = resp[17] = 1;
	memset(resp + 16 + 16, 0xaa, 8);
	memcpy(resp + 16 + NTLMV2_CLIENT_HDR_LEN, av, sizeof(msnlmp_av));
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

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
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
		T(test_utf16__conversions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
