/*
 * lib/auth NTLMSSP signing (MS-NLMP 4.2.4.4 vectors, SEALKEY strength)
 * and the SPNEGO mechListMIC: checked on smbclient's captured exchange,
 * required when NTLMSSP was not the first mech, ignored for guests.
 */
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "tests/unit/auth_test_util.h"
#include "lib/util/byteorder.h"

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

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ntlmssp__sign_msnlmp_vectors),
		T(test_ntlmssp__seal_key_strength),
		T(test_spnego__smbclient_mech_list_mic),
		T(test_spnego__mic_required),
		T(test_spnego__guest_no_mic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
