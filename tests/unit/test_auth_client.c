/*
 * lib/auth client side (auth_client.c, the client codecs of
 * ntlmssp_msg.c, ntlmv2_client_response): the MS-NLMP 4.2.4 NTLMv2
 * vectors, whole exchanges against lib/auth's own server (named user,
 * wrong password, anonymous), and a malformed CHALLENGE refused.
 */
#include <string.h>

#include "tests/unit/auth_test_util.h"
#include "lib/util/byteorder.h"

/* MS-NLMP 4.2.4: User "User", domain "Domain", password "Password". */
static void test_auth_client__msnlmp_vectors(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	uint8_t cchal[8], hash[16], owf[16], base[16], enc[16], rnd[16];
	uint8_t *nt = NULL;
	size_t nt_len = 0;

	memset(cchal, 0xaa, sizeof(cchal));
	assert_status(auth_nt_hash("Password", hash), NT_STATUS_OK);
	assert_status(ntowfv2(hash, u16(tmp, "User"), u16(tmp, "Domain"),
			      owf), NT_STATUS_OK);
	assert_memory_equal(hash, msnlmp_nt_hash, 16);
	assert_memory_equal(owf, msnlmp_owf, 16);
	assert_status(ntlmv2_client_response(tmp, owf, msnlmp_challenge, cchal,
					     0, (struct auth_slice){
						     msnlmp_av,
						     sizeof(msnlmp_av) },
					     &nt, &nt_len, base),
		      NT_STATUS_OK);
	assert_int_equal(nt_len,
			 16 + NTLMV2_CLIENT_HDR_LEN + sizeof(msnlmp_av) + 4);
	assert_memory_equal(nt, msnlmp_proof, 16);
	assert_memory_equal(base, msnlmp_base_key, 16);
	assert_true(ntlmv2_response_valid((struct auth_slice){ nt, nt_len }));
	memset(rnd, 0x55, sizeof(rnd));
	assert_status(ntlm_rc4(base, rnd, enc), NT_STATUS_OK);
	assert_memory_equal(enc, msnlmp_enc_key, 16);
	talloc_free(tmp);
}

/* Run client against server until one side stops; the server's status. */
static NTSTATUS exchange(TALLOC_CTX *tmp, struct auth_client *cli,
			 struct auth_ctx *srv, NTSTATUS *cli_status)
{
	uint8_t *c_out = NULL, *s_out = NULL;
	size_t c_len = 0, s_len = 0;
	NTSTATUS cs, ss = NT_STATUS_MORE_PROCESSING_REQUIRED;

	cs = auth_client_update(cli, tmp, NULL, 0, &c_out, &c_len);
	while (NT_STATUS_EQUAL(cs, NT_STATUS_MORE_PROCESSING_REQUIRED) &&
	       NT_STATUS_EQUAL(ss, NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		ss = auth_update(srv, tmp, c_out, c_len, &s_out, &s_len);
		if (!NT_STATUS_IS_OK(ss) &&
		    !NT_STATUS_EQUAL(ss, NT_STATUS_MORE_PROCESSING_REQUIRED)) {
			break;
		}
		cs = auth_client_update(cli, tmp, s_out, s_len, &c_out,
					&c_len);
	}
	*cli_status = cs;
	return ss;
}

/*
 * A whole exchange of a client with settings cs against lib/auth's server
 * (user "User", password "Password"); the server's status, the client's
 * in *cst, the server's session info (NULL if none) in *info.
 */
static NTSTATUS logon(TALLOC_CTX *tmp, enum auth_map_to_guest map,
		      const struct auth_client_settings *cs,
		      struct auth_client **cli, NTSTATUS *cst,
		      const struct auth_session_info **info)
{
	struct auth_settings s = settings(map, &test_users);
	struct auth_ctx *srv = auth_ctx_new(tmp, &s);
	NTSTATUS st;

	*cli = auth_client_new(tmp, cs);
	st = exchange(tmp, *cli, srv, cst);
	*info = auth_session_info(srv);
	return st;
}

static void test_auth_client__user_ok(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_client_settings cs = {
		.user = "User", .domain = "Domain", .password = "Password",
		.workstation = "BENCH",
	};
	const struct auth_session_info *info = NULL;
	struct auth_client *cli = NULL;
	uint8_t key[16];
	NTSTATUS cst;

	assert_status(logon(tmp, AUTH_MAP_NEVER, &cs, &cli, &cst, &info),
		      NT_STATUS_OK);
	assert_status(cst, NT_STATUS_OK);
	assert_non_null(info);
	assert_false(info->anonymous);
	assert_false(info->guest);
	assert_string_equal(info->user, "User");
	assert_true(info->have_session_key);
	assert_true(auth_client_session_key(cli, key));
	assert_memory_equal(key, info->session_key, 16);
	talloc_free(tmp);
}

static void test_auth_client__bad_password(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_client_settings cs = { .user = "User", .password = "x" };
	const struct auth_session_info *info = NULL;
	struct auth_client *cli = NULL;
	uint8_t key[16];
	NTSTATUS cst;

	assert_status(logon(tmp, AUTH_MAP_NEVER, &cs, &cli, &cst, &info),
		      NT_STATUS_LOGON_FAILURE);
	assert_null(info);
	assert_false(auth_client_session_key(cli, key));
	talloc_free(tmp);
}

static void test_auth_client__anonymous(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_client_settings cs = { .anonymous = true };
	const struct auth_session_info *info = NULL;
	struct auth_client *cli = NULL;
	uint8_t key[16];
	NTSTATUS cst;

	assert_status(logon(tmp, AUTH_MAP_BAD_USER, &cs, &cli, &cst, &info),
		      NT_STATUS_OK);
	assert_status(cst, NT_STATUS_OK);
	assert_non_null(info);
	assert_true(info->anonymous);
	assert_false(auth_client_session_key(cli, key));
	talloc_free(tmp);
}

/* Every truncation of a real CHALLENGE, and a target info past its end. */
static void test_auth_client__bad_challenge(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_settings s = settings(AUTH_MAP_NEVER, &test_users);
	struct auth_ctx *srv = auth_ctx_new(tmp, &s);
	struct ntlmssp_challenge c;
	uint8_t *neg = NULL, *chal = NULL, *bad = NULL;
	size_t neg_len = 0, chal_len = 0, i;

	assert_status(ntlmssp_negotiate_push(tmp, CLIENT_FLAGS, &neg,
					     &neg_len), NT_STATUS_OK);
	assert_status(auth_update(srv, tmp, neg, neg_len, &chal, &chal_len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_status(ntlmssp_challenge_pull(chal, chal_len, &c),
		      NT_STATUS_OK);
	assert_true(c.target_info.len > 0);
	for (i = 0; i < chal_len; i++) {
		bad = talloc_memdup(tmp, chal, i);
		assert_status(ntlmssp_challenge_pull(bad, i, &c),
			      NT_STATUS_INVALID_PARAMETER);
	}
	bad = talloc_memdup(tmp, chal, chal_len);
	push_le16(bad + 40, (uint16_t)(chal_len + 1));	/* TargetInfoLen */
	assert_status(ntlmssp_challenge_pull(bad, chal_len, &c),
		      NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

/* A client fed garbage, or called after failing, stays failed. */
static void test_auth_client__bad_server_token(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct auth_client_settings cs = { .user = "u", .password = "p" };
	struct auth_client *cli = auth_client_new(tmp, &cs);
	static const uint8_t junk[] = { 0xa1, 0x03, 0x30, 0x01, 0x00 };
	uint8_t *out = NULL;
	size_t len = 0;

	assert_status(auth_client_update(cli, tmp, NULL, 0, &out, &len),
		      NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_non_null(out);
	assert_int_not_equal(auth_client_update(cli, tmp, junk, sizeof(junk),
						&out, &len).v, 0);
	assert_null(out);
	assert_status(auth_client_update(cli, tmp, junk, sizeof(junk), &out,
					 &len), NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_auth_client__msnlmp_vectors),
		T(test_auth_client__user_ok),
		T(test_auth_client__bad_password),
		T(test_auth_client__anonymous),
		T(test_auth_client__bad_challenge),
		T(test_auth_client__bad_server_token),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
