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
	if (sd->has_dacl && !sd->null_dacl) {
		size += sd_acl_size(sd->aces, sd->num_aces);
	}
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
	uint16_t control = SMB2_SD_SELF_RELATIVE |
			   (sd->control & SMB2_SD_CONTROL_KEPT);
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
	}
	if (sd->has_dacl && !sd->null_dacl) {
		sd_mark(p, 16, &ofs,
			sd_put_acl(p + ofs, sd->aces, sd->num_aces));
	}
	push_le16(p + 2, control);
	*out = p;
	*out_len = ofs;
	return NT_STATUS_OK;
}

/* ---- parsing ---- */

#define SD_BAD		NT_STATUS_INVALID_SECURITY_DESCR
/*
 * ACL revisions 2 (ACL_REVISION) to 4 (ACL_REVISION_DS), as Windows'
 * RtlValidAcl takes them: smbcacls sends 3, and Samba stores it
 */
#define ACL_REVISION_DS	4
#define ACE_MIN		(ACE_FIXED + SID_FIXED)

bool smb2_sid_equal(const struct smb2_sid *a, const struct smb2_sid *b)
{
	return a->num_auths == b->num_auths &&
	       a->authority == b->authority &&
	       memcmp(a->sub_auths, b->sub_auths,
		      4 * (size_t)a->num_auths) == 0;
}

/*
 * The part a header offset points to: NULL for offset 0, else the
 * bytes from there to the end; *bad when it is inside the header or
 * past the end.
 */
static const uint8_t *sd_part(const uint8_t *buf, size_t len, size_t hdr,
			      size_t *part_len, bool *bad)
{
	uint32_t ofs = pull_le32(buf + hdr);

	if (ofs == 0) {
		return NULL;
	}
	if (ofs < SMB2_SD_HEADER_SIZE || ofs >= len) {
		*bad = true;
		return NULL;
	}
	*part_len = len - ofs;
	return buf + ofs;
}

static NTSTATUS sd_pull_sid(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			    size_t len, size_t hdr,
			    const struct smb2_sid **out)
{
	struct smb2_sid *sid = NULL;
	size_t part_len = 0, used = 0;
	bool bad = false;
	const uint8_t *p = sd_part(buf, len, hdr, &part_len, &bad);

	*out = NULL;
	if (bad) {
		return SD_BAD;
	}
	if (p == NULL) {
		return NT_STATUS_OK;
	}
	sid = talloc_zero(mem_ctx, struct smb2_sid);
	if (sid == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (!NT_STATUS_IS_OK(smb2_sid_pull(p, part_len, sid, &used))) {
		return SD_BAD;
	}
	*out = sid;
	return NT_STATUS_OK;
}

/* One ACE of ace_len bytes (its AceSize, already inside the ACL). */
static NTSTATUS sd_pull_ace(const uint8_t *a, size_t ace_len,
			    struct smb2_ace *ace)
{
	size_t used = 0;

	*ace = (struct smb2_ace) {
		.type = a[0], .flags = a[1], .mask = pull_le32(a + 4),
	};
	if (ace->type != SMB2_ACE_ACCESS_ALLOWED &&
	    ace->type != SMB2_ACE_ACCESS_DENIED) {
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(smb2_sid_pull(a + ACE_FIXED,
					   ace_len - ACE_FIXED, &ace->sid,
					   &used))) {
		return SD_BAD;
	}
	return NT_STATUS_OK;
}

/*
 * The ACL header; *count is checked against AclSize before anything is
 * allocated (each ACE takes at least 16 bytes).
 */
static NTSTATUS sd_acl_header(const uint8_t *p, size_t len,
			      size_t *acl_size, size_t *count)
{
	if (len < ACL_FIXED || p[0] < SMB2_ACL_REVISION ||
	    p[0] > ACL_REVISION_DS) {
		return SD_BAD;
	}
	*acl_size = pull_le16(p + 2);
	*count = pull_le16(p + 4);
	if (*acl_size < ACL_FIXED || *acl_size > len ||
	    *count > (*acl_size - ACL_FIXED) / ACE_MIN) {
		return SD_BAD;
	}
	return NT_STATUS_OK;
}

static NTSTATUS sd_pull_acl(TALLOC_CTX *mem_ctx, const uint8_t *p,
			    size_t len, struct smb2_ace **aces,
			    size_t *count)
{
	size_t acl_size = 0, ofs = ACL_FIXED, i;
	NTSTATUS status = sd_acl_header(p, len, &acl_size, count);

	*aces = NULL;
	if (!NT_STATUS_IS_OK(status) || *count == 0) {
		return status;
	}
	*aces = talloc_zero_array(mem_ctx, struct smb2_ace, *count);
	if (*aces == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < *count; i++) {
		size_t ace_len = 0;

		if (acl_size - ofs < ACE_FIXED) {
			return SD_BAD;
		}
		ace_len = pull_le16(p + ofs + 2);
		if (ace_len < ACE_FIXED || ace_len > acl_size - ofs) {
			return SD_BAD;
		}
		status = sd_pull_ace(p + ofs, ace_len, &(*aces)[i]);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		ofs += ace_len;
	}
	return NT_STATUS_OK;
}

/* The ACL at header field hdr, when its control bit is set. */
static NTSTATUS sd_pull_acl_at(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			       size_t len, size_t hdr, bool *null_acl,
			       struct smb2_ace **aces, size_t *count)
{
	size_t part_len = 0;
	bool bad = false;
	const uint8_t *p = sd_part(buf, len, hdr, &part_len, &bad);

	*aces = NULL;
	*count = 0;
	*null_acl = (p == NULL);
	if (bad) {
		return SD_BAD;
	}
	if (p == NULL) {
		return NT_STATUS_OK;
	}
	return sd_pull_acl(mem_ctx, p, part_len, aces, count);
}

NTSTATUS smb2_secdesc_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			   size_t len, struct smb2_secdesc *sd)
{
	struct smb2_ace *aces = NULL;
	uint16_t control = 0;
	bool null_acl = false;
	size_t n = 0;
	NTSTATUS status;

	*sd = (struct smb2_secdesc) {};
	if (len < SMB2_SD_HEADER_SIZE || buf[0] != 1) {
		return SD_BAD;
	}
	control = pull_le16(buf + 2);
	status = sd_pull_sid(mem_ctx, buf, len, 4, &sd->owner);
	if (NT_STATUS_IS_OK(status)) {
		status = sd_pull_sid(mem_ctx, buf, len, 8, &sd->group);
	}
	if (NT_STATUS_IS_OK(status) && (control & SMB2_SD_SACL_PRESENT)) {
		sd->has_sacl = true;
		status = sd_pull_acl_at(mem_ctx, buf, len, 12, &null_acl,
					&aces, &n);
		TALLOC_FREE(aces);
	}
	if (NT_STATUS_IS_OK(status) && (control & SMB2_SD_DACL_PRESENT)) {
		sd->has_dacl = true;
		status = sd_pull_acl_at(mem_ctx, buf, len, 16, &sd->null_dacl,
					&aces, &sd->num_aces);
		sd->aces = aces;
	}
	for (n = 0; NT_STATUS_IS_OK(status) && n < sd->num_aces; n++) {
		if (sd->aces[n].type != SMB2_ACE_ACCESS_ALLOWED &&
		    sd->aces[n].type != SMB2_ACE_ACCESS_DENIED) {
			sd->other_aces = true;
		}
	}
	sd->control = control;
	return status;
}
