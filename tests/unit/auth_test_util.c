/*
 * Helpers shared by the test_auth_* programs (tests/unit/wscript): test
 * data files, client-side builders and the server under test.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "tests/unit/auth_test_util.h"
#include "lib/util/byteorder.h"

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
	/* <repo>/<builddir>/tests/unit/test_auth_<part> */
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

uint8_t *load(TALLOC_CTX *mem_ctx, const char *name, size_t *len)
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
uint8_t *der(TALLOC_CTX *mem_ctx, uint8_t tag, const uint8_t *c,
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
const uint8_t oid_ntlmssp[12] = {
	0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x02, 0x0a
};
const uint8_t oid_krb5[11] = {
	0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02
};

/* GSS-framed NegTokenInit with the given mechTypes content and token. */
uint8_t *neg_token_init(TALLOC_CTX *mem_ctx, const uint8_t *mechs,
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
uint8_t *neg_token_resp_mic(TALLOC_CTX *mem_ctx, const uint8_t *tok,
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

uint8_t *neg_token_resp(TALLOC_CTX *mem_ctx, const uint8_t *tok,
			size_t tok_len, size_t *len)
{
	return neg_token_resp_mic(mem_ctx, tok, tok_len, NULL, 0, len);
}

uint8_t *ntlm_negotiate(TALLOC_CTX *mem_ctx, uint32_t flags,
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

#define AUTH_HDR 88	/* with Version and MIC */

/* AUTHENTICATE with fields in the order of the header, MIC zero. */
uint8_t *ntlm_authenticate(TALLOC_CTX *mem_ctx,
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

struct auth_slice u16(TALLOC_CTX *mem_ctx, const char *s)
{
	uint8_t *u = NULL;
	size_t l = 0;

	assert_true(NT_STATUS_IS_OK(utf8_to_utf16(mem_ctx, s, &u, &l)));
	return (struct auth_slice){ u, l };
}

void hmac_md5(const uint8_t *key, const uint8_t *a, size_t alen,
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
struct auth_slice ntlmv2_response(TALLOC_CTX *mem_ctx,
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

/* ---- MS-NLMP 4.2.4 ------------------------------------------------- */

const uint8_t msnlmp_nt_hash[16] = {
	0xa4, 0xf4, 0x9c, 0x40, 0x65, 0x10, 0xbd, 0xca,
	0xb6, 0x82, 0x4e, 0xe7, 0xc3, 0x0f, 0xd8, 0x52 };
const uint8_t msnlmp_owf[16] = {
	0x0c, 0x86, 0x8a, 0x40, 0x3b, 0xfd, 0x7a, 0x93,
	0xa3, 0x00, 0x1e, 0xf2, 0x2e, 0xf0, 0x2e, 0x3f };
const uint8_t msnlmp_challenge[8] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
const uint8_t msnlmp_av[36] = {
	0x02, 0x00, 0x0c, 0x00, 'D', 0, 'o', 0, 'm', 0, 'a', 0, 'i', 0,
	'n', 0, 0x01, 0x00, 0x0c, 0x00, 'S', 0, 'e', 0, 'r', 0, 'v', 0,
	'e', 0, 'r', 0, 0x00, 0x00, 0x00, 0x00 };
const uint8_t msnlmp_proof[16] = {
	0x68, 0xcd, 0x0a, 0xb8, 0x51, 0xe5, 0x1c, 0x96,
	0xaa, 0xbc, 0x92, 0x7b, 0xeb, 0xef, 0x6a, 0x1c };
const uint8_t msnlmp_base_key[16] = {
	0x8d, 0xe4, 0x0c, 0xca, 0xdb, 0xc1, 0x4a, 0x82,
	0xf1, 0x5c, 0xb0, 0xad, 0x0d, 0xe9, 0x5c, 0xa3 };
const uint8_t msnlmp_enc_key[16] = {
	0xc5, 0xda, 0xd2, 0x54, 0x4f, 0xc9, 0x79, 0x90,
	0x94, 0xce, 0x1c, 0xe9, 0x0b, 0xc9, 0xd0, 0x3e };

/* ---- a server under test ------------------------------------------- */

NTSTATUS test_lookup(void *private_data, const char *user,
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
const struct auth_user_lookup test_users = {
	.fn = test_lookup, .private_data = &user_db,
};

struct auth_settings settings(enum auth_map_to_guest map,
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

struct auth_slice chal_target_info(const uint8_t *chal, size_t len)
{
	size_t l = pull_le16(chal + 40), o = pull_le32(chal + 44);

	assert_true(o <= len && l <= len - o);
	return (struct auth_slice){ chal + o, l };
}

/* A complete user AUTHENTICATE against chal; base_key may be NULL. */
uint8_t *user_authenticate(TALLOC_CTX *mem_ctx, const uint8_t *chal,
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

/* SPNEGO-unwrap a captured blob's token. */
struct auth_slice captured_token(TALLOC_CTX *tmp, const char *name)
{
	struct spnego_token tok;
	size_t len;
	uint8_t *b = load(tmp, name, &len);

	assert_status(spnego_decode(tmp, b, len, &tok), NT_STATUS_OK);
	assert_non_null(tok.token);
	return (struct auth_slice){ tok.token, tok.token_len };
}
