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
