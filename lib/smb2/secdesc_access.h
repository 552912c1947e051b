/*
 * Deciding access from a security descriptor (MS-DTYP 2.5.3.2
 * AccessCheck) and making the descriptor of a new file from its
 * directory's (2.5.3.4 CreatePrivateObjectSecurity, the inheritance
 * part), for the file and directory objects of a file server.  Pure:
 * SDs in (lib/smb2/eainfo.h), rights and SDs out, no I/O.  Used by the
 * acl_xattr store (source3/smbd/files/ntacl.c); docs/vfs.md "NT ACLs".
 */
#ifndef RINGSMB_SMB2_SECDESC_ACCESS_H
#define RINGSMB_SMB2_SECDESC_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/smb2/eainfo.h"

/* File rights (MS-SMB2 2.2.13.1.1), the generic mapping's targets */
#define SMB2_RIGHTS_FILE_READ		0x00120089
#define SMB2_RIGHTS_FILE_WRITE		0x00120116
#define SMB2_RIGHTS_FILE_EXECUTE	0x001200A0
#define SMB2_RIGHTS_FILE_ALL		0x001F01FF

/* Well-known SIDs an access check or an inheritance looks for */
#define SMB2_SID_AUTH_WORLD		1       /* S-1-1-0 Everyone */
#define SMB2_SID_AUTH_CREATOR		3       /* S-1-3-x */
#define SMB2_SID_AUTH_NT		5       /* S-1-5-x */
#define SMB2_SID_CREATOR_OWNER		0       /* S-1-3-0 */
#define SMB2_SID_CREATOR_GROUP		1       /* S-1-3-1 */
#define SMB2_SID_OWNER_RIGHTS		4       /* S-1-3-4 */

/* A one-sub-authority SID such as S-1-3-0 */
struct smb2_sid smb2_sid_well_known(uint64_t authority, uint32_t rid);

/* GENERIC_* bits of mask replaced by the file rights they stand for. */
uint32_t smb2_access_map_generic(uint32_t mask);

/* Whose access is checked: the SIDs of a user's token. */
struct smb2_token {
	const struct smb2_sid *sids;
	size_t num_sids;
};

bool smb2_token_has(const struct smb2_token *t, const struct smb2_sid *sid);

/*
 * Every right sd's DACL grants the token (what MAXIMUM_ALLOWED gets):
 * no DACL or a NULL DACL grants SMB2_RIGHTS_FILE_ALL; otherwise the
 * owner (a token holding the SD's owner SID) has READ_CONTROL and
 * WRITE_DAC unless an OWNER RIGHTS (S-1-3-4) ACE names the owner's
 * rights, then the ACEs that apply to the object (not INHERIT_ONLY) in
 * order, generic bits mapped, a bit decided by the first ACE that
 * names it: allowed stays allowed, denied stays denied.  Only
 * ACCESS_ALLOWED and ACCESS_DENIED ACEs count.  FILE_READ_ATTRIBUTES
 * is always granted, as Samba grants it (MS-FSA lets the directory's
 * FILE_LIST_DIRECTORY grant it).
 */
uint32_t smb2_secdesc_granted(const struct smb2_secdesc *sd,
			      const struct smb2_token *t);

/*
 * The SD a new file (is_dir false) or directory inherits from the
 * directory whose SD is parent, as Windows and Samba make it (the rules
 * Samba's RAW-ACLS inheritance test checks): owner and group as given
 * (the creator's), and of the parent's ALLOWED/DENIED ACEs
 * - a file gets each OBJECT_INHERIT ACE with no flags;
 * - a directory each CONTAINER_INHERIT one, and each OBJECT_INHERIT one
 *   without NO_PROPAGATE as INHERIT_ONLY (for its files), flags kept
 *   (INHERIT_ONLY dropped where CONTAINER_INHERIT is set), or none
 *   with NO_PROPAGATE;
 * - CREATOR OWNER / CREATOR GROUP become owner / group on a file, and on
 *   a directory where the ACE stops (NO_PROPAGATE); where it goes on
 *   (CONTAINER_INHERIT) the directory gets the creator's own ACE with no
 *   flags and the creator SID's ACE as INHERIT_ONLY after it;
 * - masks as they are (generic rights stay generic); duplicates once;
 * - INHERITED on every ACE and DACL_AUTO_INHERITED on the result only
 *   when the parent's control has DACL_AUTO_INHERITED.
 * out->has_dacl is false when nothing is inheritable (the caller then
 * has no descriptor to store).  The DACL is on mem_ctx; false: no
 * memory.
 */
bool smb2_secdesc_inherit(TALLOC_CTX *mem_ctx,
			  const struct smb2_secdesc *parent, bool is_dir,
			  const struct smb2_sid *owner,
			  const struct smb2_sid *group,
			  struct smb2_secdesc *out);

#endif
