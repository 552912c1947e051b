/*
 * Helpers shared by the test_auth_* programs (SHARED in tests/unit/wscript
 * links auth_test_util.c into each): the captured blobs in
 * tests/unit/data/auth/ (see README there), a client's SPNEGO and NTLMSSP
 * messages built by hand, and a server under test with one user.
 */
#ifndef RINGSMB_TESTS_UNIT_AUTH_TEST_UTIL_H
#define RINGSMB_TESTS_UNIT_AUTH_TEST_UTIL_H

#include "tests/unit/unit.h"
#include "lib/auth/auth_private.h"

#define ST(s) nt_errstr(s)
#define assert_status(got, want) \
	assert_string_equal(ST(got), ST(want))

/* ---- test data files ---- */

/* The file tests/unit/data/auth/name, read whole (up to 64 KiB). */
uint8_t *load(TALLOC_CTX *mem_ctx, const char *name, size_t *len);
/* SPNEGO-unwrap a captured blob's token. */
struct auth_slice captured_token(TALLOC_CTX *tmp, const char *name);

/* ---- client-side builders (test only) ---- */

/* DER TLV with short or long form length. */
uint8_t *der(TALLOC_CTX *mem_ctx, uint8_t tag, const uint8_t *c,
	     size_t clen, size_t *len);

/* DER OIDs, tag and length included. */
extern const uint8_t oid_ntlmssp[12];
extern const uint8_t oid_krb5[11];

/* GSS-framed NegTokenInit with the given mechTypes content and token. */
uint8_t *neg_token_init(TALLOC_CTX *mem_ctx, const uint8_t *mechs,
			size_t mechs_len, const uint8_t *tok,
			size_t tok_len, size_t *len);
/* NegTokenResp with an optional responseToken and mechListMIC. */
uint8_t *neg_token_resp_mic(TALLOC_CTX *mem_ctx, const uint8_t *tok,
			    size_t tok_len, const uint8_t *mic,
			    size_t mic_len, size_t *len);
uint8_t *neg_token_resp(TALLOC_CTX *mem_ctx, const uint8_t *tok,
			size_t tok_len, size_t *len);

#define CLIENT_FLAGS (NTLMSSP_NEGOTIATE_UNICODE | NTLMSSP_REQUEST_TARGET | \
	NTLMSSP_NEGOTIATE_SIGN | NTLMSSP_NEGOTIATE_NTLM | \
	NTLMSSP_NEGOTIATE_ALWAYS_SIGN | \
	NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY | \
	NTLMSSP_NEGOTIATE_VERSION | NTLMSSP_NEGOTIATE_128 | \
	NTLMSSP_NEGOTIATE_KEY_EXCH)

uint8_t *ntlm_negotiate(TALLOC_CTX *mem_ctx, uint32_t flags, size_t *len);

struct test_auth_msg {
	struct auth_slice lm, nt, domain, user, wksta, key;
	uint32_t flags;
};

/* AUTHENTICATE with fields in the order of the header, MIC zero. */
uint8_t *ntlm_authenticate(TALLOC_CTX *mem_ctx,
			   const struct test_auth_msg *a, size_t *len);
/* s in UTF-16LE. */
struct auth_slice u16(TALLOC_CTX *mem_ctx, const char *s);
/* HMAC-MD5 over a then b. */
void hmac_md5(const uint8_t *key, const uint8_t *a, size_t alen,
	      const uint8_t *b, size_t blen, uint8_t out[16]);
/*
 * An NTLMv2 response over av (the AV pairs, EOL included or not, as the
 * test wants) for user/domain/password and the server challenge.
 */
struct auth_slice ntlmv2_response(TALLOC_CTX *mem_ctx,
				  const char *user, const char *domain,
				  const char *password,
				  const uint8_t chal[8],
				  struct auth_slice av,
				  uint8_t base_key[16]);

/*
 * MS-NLMP 4.2.4 (NTLMv2): user "User", domain "Domain", password
 * "Password", ServerChallenge 0123456789abcdef, ClientChallenge aa * 8,
 * time 0, the AV pairs below; the NTProofStr, SessionBaseKey and, for a
 * RandomSessionKey of 55 * 16, the EncryptedRandomSessionKey.
 */
extern const uint8_t msnlmp_nt_hash[16];
extern const uint8_t msnlmp_owf[16];
extern const uint8_t msnlmp_challenge[8];
extern const uint8_t msnlmp_av[36];
extern const uint8_t msnlmp_proof[16];
extern const uint8_t msnlmp_base_key[16];
extern const uint8_t msnlmp_enc_key[16];

/* ---- a server under test ---- */

struct test_user_db {
	const char *user;
	const char *password;
	bool disabled;
};

/* An auth_user_lookup function over one struct test_user_db. */
NTSTATUS test_lookup(void *private_data, const char *user,
		     const char *domain, struct auth_user_entry *out);
/* "User" with password "Password". */
extern const struct auth_user_lookup test_users;

struct auth_settings settings(enum auth_map_to_guest map,
			      const struct auth_user_lookup *users);
/* The TargetInfo of a CHALLENGE message. */
struct auth_slice chal_target_info(const uint8_t *chal, size_t len);
/* A complete user AUTHENTICATE against chal; base_key may be NULL. */
uint8_t *user_authenticate(TALLOC_CTX *mem_ctx, const uint8_t *chal,
			   size_t chal_len, const char *user,
			   const char *password, uint8_t key[16],
			   size_t *len);

#endif
