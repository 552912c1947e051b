/*
 * NTLMSSP message codecs (MS-NLMP 2.2.1): pure functions, bytes in,
 * struct out; results point into the input.
 *
 * Every variable field is a (Len u16, MaxLen u16, Offset u32) triple
 * counted from the start of the message.  Checks subtract, never add:
 * offset <= len && flen <= len - offset.
 */
#include <string.h>

#include "lib/auth/auth_private.h"
#include "lib/util/byteorder.h"

#define NTLMSSP_TYPE_OFS 8
#define NTLMSSP_NEG_FLAGS_OFS 12
#define NTLMSSP_NEG_MIN_LEN 16

/* CHALLENGE_MESSAGE, 2.2.1.2 */
#define CHAL_TARGET_NAME_OFS 12
#define CHAL_FLAGS_OFS 20
#define CHAL_CHALLENGE_OFS 24
#define CHAL_TARGET_INFO_OFS 40
#define CHAL_VERSION_OFS 48
#define CHAL_HDR_LEN 56

/* AUTHENTICATE_MESSAGE, 2.2.1.3 */
#define AUTH_LM_OFS 12
#define AUTH_NT_OFS 20
#define AUTH_DOMAIN_OFS 28
#define AUTH_USER_OFS 36
#define AUTH_WKSTA_OFS 44
#define AUTH_KEY_OFS 52
#define AUTH_FLAGS_OFS 60

#define AV_HDR_LEN 4

/* 2.2.2.10 VERSION: 6.1 build 7600, NTLMSSP_REVISION_W2K3 */
static const uint8_t ntlmssp_version[8] = {
	6, 1, 0xB0, 0x1D, 0, 0, 0, 0x0F
};

uint32_t ntlmssp_msg_type(const uint8_t *buf, size_t len)
{
	if (len < NTLMSSP_TYPE_OFS + 4 ||
	    memcmp(buf, NTLMSSP_SIGNATURE, NTLMSSP_SIGNATURE_LEN) != 0) {
		return 0;
	}
	return pull_le32(buf + NTLMSSP_TYPE_OFS);
}

NTSTATUS ntlmssp_negotiate_pull(const uint8_t *buf, size_t len,
				uint32_t *flags)
{
	/*
	 * Domain and workstation (OEM, optional) are not used: only the
	 * flags matter, and the whole message goes into the MIC as is.
	 */
	if (len < NTLMSSP_NEG_MIN_LEN ||
	    ntlmssp_msg_type(buf, len) != NTLMSSP_NEGOTIATE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*flags = pull_le32(buf + NTLMSSP_NEG_FLAGS_OFS);
	return NT_STATUS_OK;
}

static void field_push(uint8_t *hdr, size_t field_ofs, size_t len,
		       size_t ofs)
{
	push_le16(hdr + field_ofs, (uint16_t)len);
	push_le16(hdr + field_ofs + 2, (uint16_t)len);
	push_le32(hdr + field_ofs + 4, (uint32_t)ofs);
}

NTSTATUS ntlmssp_challenge_push(TALLOC_CTX *mem_ctx,
				const struct ntlmssp_challenge *c,
				uint8_t **out, size_t *out_len)
{
	size_t name_ofs = CHAL_HDR_LEN;
	size_t info_ofs = name_ofs + c->target_name.len;
	size_t len = info_ofs + c->target_info.len;
	uint8_t *m = NULL;

	if (c->target_name.len > UINT16_MAX ||
	    c->target_info.len > UINT16_MAX) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	m = talloc_zero_array(mem_ctx, uint8_t, len);
	if (m == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	memcpy(m, NTLMSSP_SIGNATURE, NTLMSSP_SIGNATURE_LEN);
	push_le32(m + NTLMSSP_TYPE_OFS, NTLMSSP_CHALLENGE);
	field_push(m, CHAL_TARGET_NAME_OFS, c->target_name.len, name_ofs);
	push_le32(m + CHAL_FLAGS_OFS, c->flags);
	memcpy(m + CHAL_CHALLENGE_OFS, c->server_challenge, 8);
	field_push(m, CHAL_TARGET_INFO_OFS, c->target_info.len, info_ofs);
	if (c->flags & NTLMSSP_NEGOTIATE_VERSION) {
		memcpy(m + CHAL_VERSION_OFS, ntlmssp_version, 8);
	}
	if (c->target_name.len > 0) {
		memcpy(m + name_ofs, c->target_name.data, c->target_name.len);
	}
	if (c->target_info.len > 0) {
		memcpy(m + info_ofs, c->target_info.data, c->target_info.len);
	}
	*out = m;
	*out_len = len;
	return NT_STATUS_OK;
}

/* One (Len, MaxLen, Offset) field; MaxLen is ignored as MS-NLMP says. */
static bool field_pull(const uint8_t *buf, size_t len, size_t field_ofs,
		       struct auth_slice *out, size_t *lowest)
{
	size_t flen = pull_le16(buf + field_ofs);
	size_t ofs = pull_le32(buf + field_ofs + 4);

	*out = (struct auth_slice){ .data = buf, .len = 0 };
	if (flen == 0) {
		return true;	/* the offset of an empty field is noise */
	}
	if (ofs > len || flen > len - ofs) {
		return false;
	}
	*out = (struct auth_slice){ .data = buf + ofs, .len = flen };
	if (ofs < *lowest) {
		*lowest = ofs;
	}
	return true;
}

NTSTATUS ntlmssp_authenticate_pull(const uint8_t *buf, size_t len,
				   struct ntlmssp_authenticate *out)
{
	bool ok = true;

	*out = (struct ntlmssp_authenticate){ .payload_ofs = len };
	if (len < NTLMSSP_AUTH_MIN_LEN ||
	    ntlmssp_msg_type(buf, len) != NTLMSSP_AUTHENTICATE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	ok &= field_pull(buf, len, AUTH_LM_OFS, &out->lm_response,
			 &out->payload_ofs);
	ok &= field_pull(buf, len, AUTH_NT_OFS, &out->nt_response,
			 &out->payload_ofs);
	ok &= field_pull(buf, len, AUTH_DOMAIN_OFS, &out->domain,
			 &out->payload_ofs);
	ok &= field_pull(buf, len, AUTH_USER_OFS, &out->user,
			 &out->payload_ofs);
	ok &= field_pull(buf, len, AUTH_WKSTA_OFS, &out->workstation,
			 &out->payload_ofs);
	ok &= field_pull(buf, len, AUTH_KEY_OFS, &out->enc_session_key,
			 &out->payload_ofs);
	out->flags = pull_le32(buf + AUTH_FLAGS_OFS);
	if (!ok || out->payload_ofs < NTLMSSP_AUTH_MIN_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* we only negotiate UNICODE, so names are UTF-16LE */
	if (out->domain.len % 2 != 0 || out->user.len % 2 != 0 ||
	    out->workstation.len % 2 != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (out->enc_session_key.len != 0 &&
	    out->enc_session_key.len != AUTH_SESSION_KEY_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/*
 * Walk an AV_PAIR list.  Returns true at MsvAvEOL (or at the pair with
 * the wanted id, if id != MSV_AV_EOL), false if the list ends first or a
 * pair runs past it.
 */
static bool av_walk(struct auth_slice list, uint16_t id,
		    struct auth_slice *value)
{
	size_t pos = 0;

	while (list.len - pos >= AV_HDR_LEN) {
		uint16_t av_id = pull_le16(list.data + pos);
		size_t av_len = pull_le16(list.data + pos + 2);

		pos += AV_HDR_LEN;
		if (av_len > list.len - pos) {
			return false;
		}
		if (av_id == id || av_id == MSV_AV_EOL) {
			*value = (struct auth_slice){ list.data + pos, av_len };
			return av_id == id;
		}
		pos += av_len;
	}
	return false;
}

bool ntlmssp_av_list_valid(struct auth_slice list)
{
	struct auth_slice v;

	return av_walk(list, MSV_AV_EOL, &v);
}

bool ntlmssp_av_find(struct auth_slice list, uint16_t id,
		     struct auth_slice *value)
{
	if (id == MSV_AV_EOL) {
		return false;
	}
	return av_walk(list, id, value);
}

bool ntlmssp_av_append(TALLOC_CTX *mem_ctx, uint8_t **buf, size_t *len,
		       uint16_t id,
		       const uint8_t *value, size_t value_len)
{
	uint8_t *b = NULL;

	if (value_len > UINT16_MAX ||
	    *len + AV_HDR_LEN + value_len > UINT16_MAX) {
		return false;
	}
	b = talloc_realloc(mem_ctx, *buf, uint8_t, *len + AV_HDR_LEN + value_len);
	if (b == NULL) {
		return false;
	}
	push_le16(b + *len, id);
	push_le16(b + *len + 2, (uint16_t)value_len);
	if (value_len > 0) {
		memcpy(b + *len + AV_HDR_LEN, value, value_len);
	}
	*buf = b;
	*len += AV_HDR_LEN + value_len;
	return true;
}

/* ---- the client direction (smb2bench): NEGOTIATE, CHALLENGE, AUTH ---- */

#define NEG_DOMAIN_OFS 16
#define NEG_WKSTA_OFS 24
#define NEG_VERSION_OFS 32
#define NEG_LEN 40
#define AUTH_VERSION_OFS 64
#define AUTH_HDR_LEN (NTLMSSP_MIC_OFS + NTLMSSP_MIC_LEN)

NTSTATUS ntlmssp_negotiate_push(TALLOC_CTX *mem_ctx, uint32_t flags,
				uint8_t **out, size_t *out_len)
{
	uint8_t *m = talloc_zero_array(mem_ctx, uint8_t, NEG_LEN);

	if (m == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	memcpy(m, NTLMSSP_SIGNATURE, NTLMSSP_SIGNATURE_LEN);
	push_le32(m + NTLMSSP_TYPE_OFS, NTLMSSP_NEGOTIATE);
	push_le32(m + NTLMSSP_NEG_FLAGS_OFS, flags);
	/* no OEM domain or workstation: empty fields point past the end */
	field_push(m, NEG_DOMAIN_OFS, 0, NEG_LEN);
	field_push(m, NEG_WKSTA_OFS, 0, NEG_LEN);
	if (flags & NTLMSSP_NEGOTIATE_VERSION) {
		memcpy(m + NEG_VERSION_OFS, ntlmssp_version, 8);
	}
	*out = m;
	*out_len = NEG_LEN;
	return NT_STATUS_OK;
}

NTSTATUS ntlmssp_challenge_pull(const uint8_t *buf, size_t len,
				struct ntlmssp_challenge *out)
{
	size_t lowest = len;
	bool ok = true;

	*out = (struct ntlmssp_challenge){};
	if (len < CHAL_VERSION_OFS ||
	    ntlmssp_msg_type(buf, len) != NTLMSSP_CHALLENGE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	ok &= field_pull(buf, len, CHAL_TARGET_NAME_OFS, &out->target_name,
			 &lowest);
	ok &= field_pull(buf, len, CHAL_TARGET_INFO_OFS, &out->target_info,
			 &lowest);
	out->flags = pull_le32(buf + CHAL_FLAGS_OFS);
	memcpy(out->server_challenge, buf + CHAL_CHALLENGE_OFS, 8);
	if (!ok || lowest < CHAL_VERSION_OFS) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* NTLMv2 needs the target info, and it must be a proper list */
	if (out->target_info.len == 0 ||
	    !ntlmssp_av_list_valid(out->target_info)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

NTSTATUS ntlmssp_authenticate_push(TALLOC_CTX *mem_ctx,
				   const struct ntlmssp_authenticate *a,
				   uint8_t **out, size_t *out_len)
{
	const struct auth_slice *f[] = {
		&a->lm_response, &a->nt_response, &a->domain, &a->user,
		&a->workstation, &a->enc_session_key,
	};
	static const size_t f_ofs[] = {
		AUTH_LM_OFS, AUTH_NT_OFS, AUTH_DOMAIN_OFS, AUTH_USER_OFS,
		AUTH_WKSTA_OFS, AUTH_KEY_OFS,
	};
	size_t len = AUTH_HDR_LEN, pos = AUTH_HDR_LEN, i;
	uint8_t *m = NULL;

	for (i = 0; i < 6; i++) {
		if (f[i]->len > UINT16_MAX) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		len += f[i]->len;
	}
	m = talloc_zero_array(mem_ctx, uint8_t, len);
	if (m == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	memcpy(m, NTLMSSP_SIGNATURE, NTLMSSP_SIGNATURE_LEN);
	push_le32(m + NTLMSSP_TYPE_OFS, NTLMSSP_AUTHENTICATE);
	for (i = 0; i < 6; i++) {
		field_push(m, f_ofs[i], f[i]->len, pos);
		if (f[i]->len > 0) {
			memcpy(m + pos, f[i]->data, f[i]->len);
		}
		pos += f[i]->len;
	}
	push_le32(m + AUTH_FLAGS_OFS, a->flags);
	if (a->flags & NTLMSSP_NEGOTIATE_VERSION) {
		memcpy(m + AUTH_VERSION_OFS, ntlmssp_version, 8);
	}
	/* the MIC (72..87) stays zero: the caller computes and sets it */
	*out = m;
	*out_len = len;
	return NT_STATUS_OK;
}

bool ntlmssp_av_client_list(TALLOC_CTX *mem_ctx, struct auth_slice server,
			    uint32_t av_flags, uint8_t **out, size_t *out_len)
{
	uint8_t flags_le[4];
	size_t pos = 0;
	bool ok = true;

	*out = NULL;
	*out_len = 0;
	/* server is a valid list (ntlmssp_challenge_pull checked it) */
	while (ok && server.len - pos >= AV_HDR_LEN) {
		uint16_t id = pull_le16(server.data + pos);
		size_t len = pull_le16(server.data + pos + 2);

		if (id == MSV_AV_EOL) {
			break;
		}
		if (id != MSV_AV_FLAGS) {
			ok = ntlmssp_av_append(mem_ctx, out, out_len, id,
					       server.data + pos + AV_HDR_LEN,
					       len);
		}
		pos += AV_HDR_LEN + len;
	}
	push_le32(flags_le, av_flags);
	ok = ok && ntlmssp_av_append(mem_ctx, out, out_len, MSV_AV_FLAGS,
				     flags_le, sizeof(flags_le)) &&
	     ntlmssp_av_append(mem_ctx, out, out_len, MSV_AV_EOL, NULL, 0);
	if (!ok) {
		TALLOC_FREE(*out);
		*out_len = 0;
	}
	return ok;
}
