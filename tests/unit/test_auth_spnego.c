/*
 * lib/auth SPNEGO: the NEGOTIATE blob as Samba sends it, a whole
 * anonymous exchange, mech selection, malformed DER and every truncation
 * of each leg (also written out as fuzz seeds).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/auth_test_util.h"
#include "lib/util/byteorder.h"

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

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_negprot__matches_samba),
		T(test_spnego__anonymous_exchange),
		T(test_spnego__malformed),
		T(test_spnego__mech_selection),
		T(test_spnego__mech_types_der),
		T(test_auth__truncations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
