/*
 * The security descriptor inside security.NTACL, as Samba's NDR reads
 * security_descriptor (librpc/idl/security.idl, ndr_sec_helper.c): a
 * 20-byte header (revision u8, Sbz1 u8, control u16, four u32 part
 * offsets), then the parts.  Two things Samba 4.17's smbd reads but no
 * writer produces are refused, so that the SD handed out is one any
 * self-relative reader takes: a part offset that is not 4-aligned (smbd
 * reads at it) and ACEs past AclSize (smbd ignores AclSize).  An AceSize
 * that is not a multiple of 4 smbd refuses too.  Revisions are not
 * checked, as Samba does not check them, except a SID's (1, as lib/smb2's
 * SID parser wants; smbd reads any).  What smbd answered for each:
 * docs/vfs.md.  MS-DTYP 2.4.2.2 (SID), 2.4.4 (ACEs), 2.4.5 (ACL), 2.4.6
 * (SD).
 */
#include "lib/dcerpc/xattr_ntacl.h"
#include "lib/smb2/eainfo.h"
#include "lib/util/byteorder.h"

#define SD_BAD		NT_STATUS_INVALID_SECURITY_DESCR
#define ACL_HDR		8
#define ACE_HDR		8       /* type, flags, AceSize, mask */
#define GUID_SIZE	16

/* object ACE types (5..8) carry a flags word and up to two GUIDs */
#define ACE_OBJECT_FIRST		0x05
#define ACE_OBJECT_LAST			0x08
#define ACE_OBJECT_TYPE_PRESENT		0x1
#define ACE_INHERITED_TYPE_PRESENT	0x2

static bool sid_ok(const uint8_t *p, size_t len, size_t *used)
{
	struct smb2_sid sid;

	return NT_STATUS_IS_OK(smb2_sid_pull(p, len, &sid, used));
}

/* What an ACE holds before its SID; 0 when it does not fit. */
static size_t ace_sid_ofs(const uint8_t *a, size_t ace_len)
{
	size_t ofs = ACE_HDR;
	uint32_t flags = 0;

	if (a[0] < ACE_OBJECT_FIRST || a[0] > ACE_OBJECT_LAST) {
		return ofs;
	}
	if (ace_len - ofs < 4) {
		return 0;
	}
	flags = pull_le32(a + ofs);
	ofs += 4;
	ofs += (flags & ACE_OBJECT_TYPE_PRESENT) ? GUID_SIZE : 0;
	ofs += (flags & ACE_INHERITED_TYPE_PRESENT) ? GUID_SIZE : 0;
	return ofs <= ace_len ? ofs : 0;
}

/* The ACEs of an ACL, each inside what is left of AclSize. */
static bool aces_ok(const uint8_t *p, size_t acl_size, uint32_t count)
{
	size_t ofs = ACL_HDR, used = 0;
	uint32_t i;

	for (i = 0; i < count; i++) {
		size_t ace_len = 0, sid_ofs = 0;

		if (acl_size - ofs < ACE_HDR) {
			return false;
		}
		ace_len = pull_le16(p + ofs + 2);
		if (ace_len < ACE_HDR || ace_len % 4 != 0 ||
		    ace_len > acl_size - ofs) {
			return false;
		}
		sid_ofs = ace_sid_ofs(p + ofs, ace_len);
		if (sid_ofs == 0 ||
		    !sid_ok(p + ofs + sid_ofs, ace_len - sid_ofs, &used)) {
			return false;
		}
		ofs += ace_len;
	}
	return true;
}

static bool acl_ok(const uint8_t *p, size_t len, size_t *size)
{
	uint32_t count = 0;

	/* any AclRevision: smbcacls writes 3, Samba keeps what it gets */
	if (len < ACL_HDR) {
		return false;
	}
	*size = pull_le16(p + 2);
	count = pull_le32(p + 4);
	if (*size < ACL_HDR || *size > len || count > XATTR_NTACL_MAX_ACES) {
		return false;
	}
	return aces_ok(p, *size, count);
}

/*
 * The part whose offset is in header field hdr: true when absent or
 * valid, *end raised to where it ends.
 */
static bool part_ok(const uint8_t *sd, size_t len, size_t hdr, bool is_acl,
		    size_t *end)
{
	uint32_t ofs = pull_le32(sd + hdr);
	size_t size = 0;

	if (ofs == 0) {
		return true;
	}
	if (ofs % 4 != 0 || ofs < XATTR_NTACL_SD_HEADER || ofs >= len) {
		return false;
	}
	if (is_acl ? !acl_ok(sd + ofs, len - ofs, &size) :
		     !sid_ok(sd + ofs, len - ofs, &size)) {
		return false;
	}
	if (ofs + size > *end) {
		*end = ofs + size;
	}
	return true;
}

NTSTATUS xattr_ntacl_sd_check(const uint8_t *sd, size_t len, size_t *extent)
{
	size_t end = XATTR_NTACL_SD_HEADER;

	*extent = 0;
	/* any revision: Samba stores a client's, and reads it as 1 */
	if (len < XATTR_NTACL_SD_HEADER) {
		return SD_BAD;
	}
	/* Samba reads each offset whatever the control bits say */
	if (!part_ok(sd, len, 4, false, &end) ||
	    !part_ok(sd, len, 8, false, &end) ||
	    !part_ok(sd, len, 12, true, &end) ||
	    !part_ok(sd, len, 16, true, &end)) {
		return SD_BAD;
	}
	*extent = end;
	return NT_STATUS_OK;
}
