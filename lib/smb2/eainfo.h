/*
 * Extended attribute lists (MS-FSCC 2.4.15, 2.4.15.1), self-relative
 * security descriptors (MS-DTYP 2.4.6) and 8.3 short names (MS-FSCC
 * 2.1.5.2.1): pure codecs, no I/O.
 *
 * Parsers take (buf, len) and never read outside it; every structure
 * has its own length check.  Results may point into the input.
 */
#ifndef RINGSMB_SMB2_EAINFO_H
#define RINGSMB_SMB2_EAINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"

/* ---- extended attributes ---- */

/* FILE_FULL_EA_INFORMATION Flags: the only defined bit */
#define SMB2_FILE_NEED_EA	0x80

/* The fixed part of one FILE_FULL_EA_INFORMATION entry */
#define SMB2_EA_FIXED		8
/* FILE_GET_EA_INFORMATION: NextEntryOffset, EaNameLength */
#define SMB2_GET_EA_FIXED	5

/* QUERY_INFO Flags for FileFullEaInformation (MS-SMB2 2.2.37) */
#define SMB2_SL_RESTART_SCAN		0x00000001
#define SMB2_SL_RETURN_SINGLE_ENTRY	0x00000002
#define SMB2_SL_INDEX_SPECIFIED		0x00000004

/*
 * One EA.  name is name_len bytes (8-bit, no NUL inside); on the wire
 * it is followed by a NUL, which the parser checks.  A parsed name
 * points into the input, where that NUL makes it a C string.
 */
struct smb2_ea {
	uint8_t flags;
	const char *name;
	size_t name_len;                /* 0..255 on the wire */
	const uint8_t *value;
	size_t value_len;               /* 0..65535; 0 in SET: delete */
};

/*
 * A FILE_FULL_EA_INFORMATION list into *eas (array on mem_ctx,
 * entries pointing into buf).  Each NextEntryOffset is a multiple of
 * 4 and stays inside the buffer, each entry holds its name, NUL and
 * value; the list ends at a NextEntryOffset of 0.  Anything else, or
 * an empty buffer: INVALID_PARAMETER (as Samba answers a bad list).
 * Offsets only move forward, so a list cannot loop.
 */
NTSTATUS smb2_ea_list_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			   size_t len, struct smb2_ea **eas, size_t *count);

/*
 * A FILE_GET_EA_INFORMATION list (the names a QUERY_INFO asks for):
 * same rules, entries NextEntryOffset, EaNameLength, EaName, NUL.  Only
 * name and name_len are set.
 */
NTSTATUS smb2_ea_names_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			    size_t len, struct smb2_ea **names,
			    size_t *count);

/*
 * Whether Windows accepts the name: 1..255 bytes, no control
 * characters and none of  " * + , / : ; < = > ? [ \ ] |
 */
bool smb2_ea_name_valid(const char *name, size_t len);

/* Bytes of one entry without padding: 8 + name + NUL + value. */
size_t smb2_ea_entry_size(const struct smb2_ea *ea);

/*
 * Bytes of the whole list encoded (entries 4-byte aligned, no padding
 * after the last): what FileEaInformation reports as EaSize, as Samba
 * does over SMB2.  0 for no entries.
 */
size_t smb2_ea_list_size(const struct smb2_ea *eas, size_t count);

/*
 * Encodes as many whole entries of eas[0..count) as fit in max_len
 * (only the first with single), into *out on mem_ctx; *pushed says how
 * many.  NO_MEMORY is the only failure; *pushed 0 means not even the
 * first entry fits (the caller decides the status).
 */
NTSTATUS smb2_ea_list_push(TALLOC_CTX *mem_ctx, const struct smb2_ea *eas,
			   size_t count, size_t max_len, bool single,
			   uint8_t **out, size_t *out_len, size_t *pushed);

/* ---- security descriptors (MS-DTYP 2.4) ---- */

#define SMB2_SID_MAX_SUBAUTH	15

struct smb2_sid {
	uint8_t num_auths;              /* <= SMB2_SID_MAX_SUBAUTH */
	uint64_t authority;             /* 48 bits */
	uint32_t sub_auths[SMB2_SID_MAX_SUBAUTH];
};

#define SMB2_ACE_ACCESS_ALLOWED	0x00
#define SMB2_ACE_ACCESS_DENIED	0x01

/* AceFlags (MS-DTYP 2.4.4.1) */
#define SMB2_ACE_OBJECT_INHERIT		0x01
#define SMB2_ACE_CONTAINER_INHERIT	0x02
#define SMB2_ACE_NO_PROPAGATE		0x04
/* the ACE is only inherited, it does not apply to its object */
#define SMB2_ACE_INHERIT_ONLY		0x08
#define SMB2_ACE_INHERITED		0x10

struct smb2_ace {
	uint8_t type;
	uint8_t flags;
	uint32_t mask;
	struct smb2_sid sid;
};

/* Control bits (MS-DTYP 2.4.6) */
#define SMB2_SD_DACL_PRESENT	0x0004
#define SMB2_SD_DACL_DEFAULTED	0x0008
#define SMB2_SD_SACL_PRESENT	0x0010
#define SMB2_SD_DACL_AUTO_INHERIT_REQ	0x0100
#define SMB2_SD_DACL_AUTO_INHERITED	0x0400
#define SMB2_SD_DACL_PROTECTED	0x1000
#define SMB2_SD_SELF_RELATIVE	0x8000
/*
 * Control bits a push keeps from smb2_secdesc.control: the DACL's
 * inheritance state and the DEFAULTED marks; the PRESENT bits and
 * SELF_RELATIVE follow from the parts themselves.
 */
#define SMB2_SD_CONTROL_KEPT	(0x0001 | 0x0002 | SMB2_SD_DACL_DEFAULTED | \
				 SMB2_SD_DACL_AUTO_INHERIT_REQ | \
				 SMB2_SD_DACL_AUTO_INHERITED | \
				 SMB2_SD_DACL_PROTECTED)

#define SMB2_ACL_REVISION	2
#define SMB2_SD_HEADER_SIZE	20

/*
 * What is encoded: owner and group when set, a DACL when has_dacl (with
 * num_aces entries; 0 is an empty DACL, which denies everything), and
 * SACL_PRESENT with no SACL (offset 0) when has_sacl, as Samba marks a
 * requested SACL it does not have.
 */
struct smb2_secdesc {
	const struct smb2_sid *owner;
	const struct smb2_sid *group;
	bool has_dacl;
	bool null_dacl;                 /* DACL_PRESENT, offset 0: all access */
	bool has_sacl;
	const struct smb2_ace *aces;
	size_t num_aces;
	/* pull: the Control field; push: its SMB2_SD_CONTROL_KEPT bits */
	uint16_t control;
	/* pull: the DACL has ACEs of other types (their SIDs not kept) */
	bool other_aces;
};

/*
 * The self-relative encoding into *out on mem_ctx: header, owner,
 * group, DACL in that order.  INVALID_PARAMETER for a SID with
 * more than 15 sub-authorities or more than 65535 bytes of ACL.
 */
NTSTATUS smb2_secdesc_push(TALLOC_CTX *mem_ctx, const struct smb2_secdesc *sd,
			   uint8_t **out, size_t *out_len);

/*
 * Parses a self-relative SD of len bytes into *sd, SIDs and ACEs on
 * mem_ctx.  Every part the header points to must lie inside the buffer
 * after the 20-byte header: a SID with revision 1 and at most 15
 * sub-authorities, an ACL with revision 2 to 4 whose AclSize fits and
 * whose AceCount ACEs each fit inside AclSize.  ACCESS_ALLOWED/DENIED
 * ACEs have mask and SID parsed; other ACE types keep only type, flags
 * and mask (SID empty).  The SACL is checked, not returned (has_sacl
 * only).  Anything malformed: INVALID_SECURITY_DESCR (as Windows
 * answers; Samba 4.17 answers its NDR errors, docs/protocol.md).
 */
NTSTATUS smb2_secdesc_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			   size_t len, struct smb2_secdesc *sd);

/* Whether two SIDs are the same. */
bool smb2_sid_equal(const struct smb2_sid *a, const struct smb2_sid *b);

/* A SID's encoded size: 8 + 4 per sub-authority. */
size_t smb2_sid_size(const struct smb2_sid *sid);

/*
 * Parses a SID at buf (len bytes): INVALID_PARAMETER for a revision
 * other than 1, more than 15 sub-authorities or a short buffer.
 * *used is the size consumed.
 */
NTSTATUS smb2_sid_pull(const uint8_t *buf, size_t len, struct smb2_sid *sid,
		       size_t *used);

/* ---- 8.3 short names ---- */

/* "ABCDEFGH.XYZ" and a NUL */
#define SMB2_SHORT_NAME_MAX	13

/*
 * Whether name (UTF-8) already is a valid 8.3 name: 1-8 characters,
 * an optional dot and 1-3 more, from the DOS character set, no
 * lower case needed (case is folded when it is reported).
 */
bool smb2_name_is_83(const char *name);

/*
 * The 8.3 name ringsmb reports for a long name (docs/vfs.md): up to 5
 * characters of the name's legal base (upper-cased), '~', and 2
 * characters from a hash of the whole name, then the first 3 legal
 * characters of the last extension:  "Long File Name.html" ->
 * "LONGF~K7.HTM".  Stable for a name; out gets SMB2_SHORT_NAME_MAX
 * bytes.  A name that is already 8.3 is returned upper-cased.
 */
void smb2_short_name(const char *name, char out[SMB2_SHORT_NAME_MAX]);

#endif
