/*
 * Self-relative security descriptors (MS-DTYP 2.4.6), SIDs (2.4.2.2)
 * and ACLs (2.4.5) with ACCESS_ALLOWED/DENIED ACEs (2.4.4.2, 2.4.4.4).
 * Integers little-endian except the SID's 48-bit authority, which is
 * big-endian.
 */
#include <string.h>
#include "lib/smb2/eainfo.h"
#include "lib/util/byteorder.h"

#define SID_REVISION	1
#define SID_FIXED	8
#define ACL_FIXED	8
#define ACE_FIXED	8
#define ACL_MAX		65535

size_t smb2_sid_size(const struct smb2_sid *sid)
{
	return SID_FIXED + 4 * (size_t)sid->num_auths;
}

static size_t sd_put_sid(uint8_t *p, const struct smb2_sid *sid)
{
	int i;

	p[0] = SID_REVISION;
	p[1] = sid->num_auths;
	for (i = 0; i < 6; i++) {
		p[2 + i] = (uint8_t)(sid->authority >> (8 * (5 - i)));
	}
	for (i = 0; i < sid->num_auths; i++) {
		push_le32(p + SID_FIXED + 4 * i, sid->sub_auths[i]);
	}
	return smb2_sid_size(sid);
}

NTSTATUS smb2_sid_pull(const uint8_t *buf, size_t len, struct smb2_sid *sid,
		       size_t *used)
{
	int i;

	if (len < SID_FIXED || buf[0] != SID_REVISION ||
	    buf[1] > SMB2_SID_MAX_SUBAUTH ||
	    len - SID_FIXED < 4 * (size_t)buf[1]) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*sid = (struct smb2_sid) { .num_auths = buf[1] };
	for (i = 0; i < 6; i++) {
		sid->authority = (sid->authority << 8) | buf[2 + i];
	}
	for (i = 0; i < sid->num_auths; i++) {
		sid->sub_auths[i] = pull_le32(buf + SID_FIXED + 4 * i);
	}
	*used = smb2_sid_size(sid);
	return NT_STATUS_OK;
}

static bool sd_sid_ok(const struct smb2_sid *sid)
{
	return sid == NULL || sid->num_auths <= SMB2_SID_MAX_SUBAUTH;
}

static size_t sd_acl_size(const struct smb2_ace *aces, size_t n)
{
	size_t size = ACL_FIXED;
	size_t i;

	for (i = 0; i < n; i++) {
		size += ACE_FIXED + smb2_sid_size(&aces[i].sid);
	}
	return size;
}

static size_t sd_put_acl(uint8_t *p, const struct smb2_ace *aces, size_t n)
{
	size_t ofs = ACL_FIXED;
	size_t i;

	p[0] = SMB2_ACL_REVISION;
	push_le16(p + 2, (uint16_t)sd_acl_size(aces, n));
	push_le16(p + 4, (uint16_t)n);
	for (i = 0; i < n; i++) {
		uint8_t *a = p + ofs;
		size_t size = ACE_FIXED + smb2_sid_size(&aces[i].sid);

		a[0] = aces[i].type;
		a[1] = aces[i].flags;
		push_le16(a + 2, (uint16_t)size);
		push_le32(a + 4, aces[i].mask);
		sd_put_sid(a + ACE_FIXED, &aces[i].sid);
		ofs += size;
	}
	return ofs;
}

static NTSTATUS sd_check(const struct smb2_secdesc *sd)
{
	size_t i;

	if (!sd_sid_ok(sd->owner) || !sd_sid_ok(sd->group) ||
	    sd->num_aces > ACL_MAX / (ACE_FIXED + SID_FIXED)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < sd->num_aces; i++) {
		if (!sd_sid_ok(&sd->aces[i].sid)) {
			return NT_STATUS_INVALID_PARAMETER;
		}
	}
	if (sd->has_dacl && sd_acl_size(sd->aces, sd->num_aces) > ACL_MAX) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static size_t sd_size(const struct smb2_secdesc *sd)
{
	size_t size = SMB2_SD_HEADER_SIZE;

	size += sd->owner != NULL ? smb2_sid_size(sd->owner) : 0;
	size += sd->group != NULL ? smb2_sid_size(sd->group) : 0;
	size += sd->has_dacl ? sd_acl_size(sd->aces, sd->num_aces) : 0;
	return size;
}

/* Writes a part at *ofs and its offset into the header field at hdr. */
static void sd_mark(uint8_t *p, size_t hdr, size_t *ofs, size_t len)
{
	push_le32(p + hdr, (uint32_t)*ofs);
	*ofs += len;
}

NTSTATUS smb2_secdesc_push(TALLOC_CTX *mem_ctx, const struct smb2_secdesc *sd,
			   uint8_t **out, size_t *out_len)
{
	uint16_t control = SMB2_SD_SELF_RELATIVE;
	size_t ofs = SMB2_SD_HEADER_SIZE;
	NTSTATUS status = sd_check(sd);
	uint8_t *p = NULL;

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	p = talloc_zero_size(mem_ctx, sd_size(sd));
	if (p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	p[0] = 1;				/* Revision */
	if (sd->owner != NULL) {
		sd_mark(p, 4, &ofs, sd_put_sid(p + ofs, sd->owner));
	}
	if (sd->group != NULL) {
		sd_mark(p, 8, &ofs, sd_put_sid(p + ofs, sd->group));
	}
	if (sd->has_sacl) {
		control |= SMB2_SD_SACL_PRESENT;	/* a NULL SACL */
	}
	if (sd->has_dacl) {
		control |= SMB2_SD_DACL_PRESENT;
		sd_mark(p, 16, &ofs,
			sd_put_acl(p + ofs, sd->aces, sd->num_aces));
	}
	push_le16(p + 2, control);
	*out = p;
	*out_len = ofs;
	return NT_STATUS_OK;
}
