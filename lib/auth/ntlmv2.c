/*
 * NTLMv2 cryptography, MS-NLMP 3.3.2 and 3.1.5.1.2:
 *
 *   NTOWFv2       = HMAC_MD5(NT hash, UTF16(UPPER(user)) || UTF16(domain))
 *   NTProofStr    = HMAC_MD5(NTOWFv2, ServerChallenge || temp)
 *   SessionBaseKey = HMAC_MD5(NTOWFv2, NTProofStr)
 *   KEY_EXCH:  ExportedSessionKey = RC4(SessionBaseKey,
 *                                     EncryptedRandomSessionKey)
 *   MIC           = HMAC_MD5(ExportedSessionKey, NEG || CHAL || AUTH[MIC=0])
 *
 * gnutls provides HMAC-MD5 and RC4, nettle MD4.  Intermediate keys sit in
 * stack buffers wiped before return.
 */
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <nettle/md4.h>
#include <nettle/memops.h>

#include "lib/auth/auth_private.h"
#include "lib/util/byteorder.h"

#define NTLMV2_RESP_TYPE 1

bool ntlmv2_response_valid(struct auth_slice nt)
{
	const uint8_t *temp = nt.data + NTLMV2_PROOF_LEN;
	struct auth_slice av;

	if (nt.len < NTLMV2_RESPONSE_MIN_LEN) {
		return false;
	}
	/* RespType, HiRespType (2.2.2.7) */
	if (temp[0] != NTLMV2_RESP_TYPE || temp[1] != NTLMV2_RESP_TYPE) {
		return false;
	}
	av.data = temp + NTLMV2_CLIENT_HDR_LEN;
	av.len = nt.len - NTLMV2_PROOF_LEN - NTLMV2_CLIENT_HDR_LEN;
	return ntlmssp_av_list_valid(av);
}

NTSTATUS ntlm_hmac_md5(const uint8_t *key, size_t key_len,
		       const struct auth_slice *parts, size_t n,
		       uint8_t out[16])
{
	gnutls_hmac_hd_t h = NULL;
	size_t i;
	int rc;

	rc = gnutls_hmac_init(&h, GNUTLS_MAC_MD5, key, key_len);
	if (rc < 0) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	for (i = 0; i < n && rc >= 0; i++) {
		if (parts[i].len > 0) {
			rc = gnutls_hmac(h, parts[i].data, parts[i].len);
		}
	}
	gnutls_hmac_deinit(h, out);
	return rc < 0 ? NT_STATUS_INTERNAL_ERROR : NT_STATUS_OK;
}

NTSTATUS ntowfv2(const uint8_t nt_hash[16], struct auth_slice user,
		 struct auth_slice domain, uint8_t out[16])
{
	uint8_t *upper = talloc_memdup(NULL, user.data, user.len);
	struct auth_slice parts[2];
	NTSTATUS status;

	if (upper == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	utf16_upper(upper, user.len);
	parts[0] = (struct auth_slice){ upper, user.len };
	parts[1] = domain;
	status = ntlm_hmac_md5(nt_hash, 16, parts, 2, out);
	talloc_free(upper);
	return status;
}

NTSTATUS ntlmv2_verify(const uint8_t owf[16], const uint8_t challenge[8],
		       struct auth_slice nt, uint8_t base_key[16])
{
	struct auth_slice parts[2] = {
		{ challenge, 8 },
		{ nt.data + NTLMV2_PROOF_LEN, nt.len - NTLMV2_PROOF_LEN },
	};
	struct auth_slice proof = { nt.data, NTLMV2_PROOF_LEN };
	uint8_t expect[16];
	NTSTATUS status;

	if (nt.len < NTLMV2_RESPONSE_MIN_LEN) {
		return NT_STATUS_LOGON_FAILURE;
	}
	status = ntlm_hmac_md5(owf, 16, parts, 2, expect);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!nettle_memeql_sec(expect, nt.data, NTLMV2_PROOF_LEN)) {
		auth_wipe(expect, sizeof(expect));
		return NT_STATUS_LOGON_FAILURE;
	}
	auth_wipe(expect, sizeof(expect));
	return ntlm_hmac_md5(owf, 16, &proof, 1, base_key);
}

NTSTATUS ntlmv2_client_response(TALLOC_CTX *mem_ctx,
				const uint8_t owf[16],
				const uint8_t server_challenge[8],
				const uint8_t client_challenge[8],
				uint64_t nttime, struct auth_slice av,
				uint8_t **nt_response, size_t *nt_len,
				uint8_t base_key[16])
{
	size_t len = NTLMV2_PROOF_LEN + NTLMV2_CLIENT_HDR_LEN + av.len + 4;
	uint8_t *r = talloc_zero_array(mem_ctx, uint8_t, len);
	struct auth_slice parts[2] = { { server_challenge, 8 } };
	struct auth_slice proof = { r, NTLMV2_PROOF_LEN };
	uint8_t *temp = NULL;
	NTSTATUS status;

	if (r == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/*
	 * temp (2.2.2.7): RespType, HiRespType, Z(6), TimeStamp,
	 * ChallengeFromClient, Z(4), AvPairs, then the Z(4) 3.3.2 appends
	 */
	temp = r + NTLMV2_PROOF_LEN;
	temp[0] = temp[1] = NTLMV2_RESP_TYPE;
	push_le64(temp + 8, nttime);
	memcpy(temp + 16, client_challenge, 8);
	memcpy(temp + NTLMV2_CLIENT_HDR_LEN, av.data, av.len);
	parts[1] = (struct auth_slice){ temp, len - NTLMV2_PROOF_LEN };
	status = ntlm_hmac_md5(owf, 16, parts, 2, r);	/* NTProofStr */
	if (NT_STATUS_IS_OK(status)) {
		status = ntlm_hmac_md5(owf, 16, &proof, 1, base_key);
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(r);
		return status;
	}
	*nt_response = r;
	*nt_len = len;
	return NT_STATUS_OK;
}

NTSTATUS ntlm_rc4(const uint8_t key[16], const uint8_t in[16],
		  uint8_t out[16])
{
	gnutls_cipher_hd_t h = NULL;
	gnutls_datum_t k = { .data = (uint8_t *)key, .size = 16 };
	int rc;

	rc = gnutls_cipher_init(&h, GNUTLS_CIPHER_ARCFOUR_128, &k, NULL);
	if (rc < 0) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	rc = gnutls_cipher_decrypt2(h, in, 16, out, 16);
	gnutls_cipher_deinit(h);
	return rc < 0 ? NT_STATUS_INTERNAL_ERROR : NT_STATUS_OK;
}

NTSTATUS ntlmssp_mic(const uint8_t key[16], struct auth_slice negotiate,
		     struct auth_slice challenge, struct auth_slice auth,
		     uint8_t mic[16])
{
	static const uint8_t zero[NTLMSSP_MIC_LEN];
	size_t after = NTLMSSP_MIC_OFS + NTLMSSP_MIC_LEN;
	struct auth_slice parts[5];

	if (auth.len < after) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	parts[0] = negotiate;
	parts[1] = challenge;
	parts[2] = (struct auth_slice){ auth.data, NTLMSSP_MIC_OFS };
	parts[3] = (struct auth_slice){ zero, NTLMSSP_MIC_LEN };
	parts[4] = (struct auth_slice){ auth.data + after, auth.len - after };
	return ntlm_hmac_md5(key, 16, parts, 5, mic);
}

NTSTATUS auth_nt_hash(const char *password, uint8_t hash[AUTH_NT_HASH_SIZE])
{
	struct md4_ctx md4;
	uint8_t *u = NULL;
	size_t len = 0;
	NTSTATUS status;

	status = utf8_to_utf16(NULL, password, &u, &len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	auth_keep_secret(u);
	md4_init(&md4);
	md4_update(&md4, len, u);
	md4_digest(&md4, AUTH_NT_HASH_SIZE, hash);
	auth_wipe(&md4, sizeof(md4));
	talloc_free(u);
	return NT_STATUS_OK;
}
