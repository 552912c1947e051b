/*
 * Samba's security.NTACL value (xattr_NTACL in Samba's
 * librpc/idl/xattr.idl), which vfs_acl_xattr keeps the whole NT security
 * descriptor of a file in, and the two hashes Samba uses to decide
 * whether that descriptor still holds (docs/vfs.md, "security.NTACL
 * (acl_xattr): format").
 *
 *	version      u16: 1..4
 *	level        u16: the union's switch, equal to version
 *	info ptr     u32: unique pointer, not 0
 *	v2..v4: the hash struct the pointer points to
 *	  sd ptr     u32: unique pointer, not 0
 *	  v2: hash[16]
 *	  v3, v4: hash_type u16, hash[64]
 *	  v4: description (UTF-8, NUL-terminated), (pad to 4),
 *	      time (NTTIME, two u32), sys_acl_hash[64]
 *	(pad to 4)
 *	sd           the security descriptor, laid out as a self-relative
 *	             one except that its four part offsets count from the
 *	             start of the value, not from the descriptor
 *
 * Pure codecs in the lib/smb2 style: bytes in, struct out, no I/O.
 * Nothing here reads or writes a file.
 */
#ifndef RINGSMB_XATTR_NTACL_H
#define RINGSMB_XATTR_NTACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"

#define XATTR_NTACL_NAME		"security.NTACL"

#define XATTR_NTACL_HASH_SIZE		64
#define XATTR_NTACL_V2_HASH_SIZE	16	/* never checked by Samba */
#define XATTR_NTACL_HASH_NONE		0
#define XATTR_NTACL_HASH_SHA256		1

/*
 * Samba reads at most this much of the xattr (vfs_acl_xattr.c): a
 * larger value is, to it, no value.  The push refuses to make one.
 */
#define XATTR_NTACL_SIZE_MAX		65536

/*
 * An SD's header: revision, Sbz1, control, then the offsets of owner,
 * group, SACL and DACL (u32 each, 0 for none) from byte 4.
 */
#define XATTR_NTACL_SD_HEADER		20
#define XATTR_NTACL_SD_OFFSETS		4
#define XATTR_NTACL_SD_PARTS		4

/* Samba's NDR range for an ACL's AceCount (with Sbz2 as its high half) */
#define XATTR_NTACL_MAX_ACES		2000

struct xattr_ntacl {
	uint16_t version;               /* 1..4 */
	/*
	 * A self-relative SD (MS-DTYP 2.4.6), offsets from its own start,
	 * as Samba's NDR writes one: owner, group, SACL, DACL in that
	 * order.  A pull allocates it on mem_ctx (the offsets in the value
	 * differ); a push copies it.
	 */
	const uint8_t *sd;
	size_t sd_len;
	uint16_t hash_type;             /* 3, 4 */
	uint8_t hash[XATTR_NTACL_HASH_SIZE];    /* 2: first 16 bytes; 3, 4 */
	const uint8_t *description;     /* 4: UTF-8, no NUL, into the input */
	size_t description_len;
	uint64_t time;                  /* 4: NTTIME; Samba 4.17 writes now */
	uint8_t sys_acl_hash[XATTR_NTACL_HASH_SIZE];    /* 4 */
};

/*
 * Decodes one value; the SD goes on mem_ctx.  INVALID_PARAMETER for a
 * value that is short, of an unknown version, whose level is not its
 * version or with a NULL pointer; INVALID_SECURITY_DESCR for an SD that
 * xattr_ntacl_sd_check() refuses or a part offset that points before the
 * SD.  Bytes after the SD are ignored, as Samba ignores them.
 */
NTSTATUS xattr_ntacl_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			  size_t len, struct xattr_ntacl *out);

/*
 * Encodes in as Samba's NDR does (referent ids 0x00020000, 0x00020004,
 * zero padding) into *out on mem_ctx.  INVALID_PARAMETER for an unknown
 * version, a description with a NUL in it or a result over
 * XATTR_NTACL_SIZE_MAX; INVALID_SECURITY_DESCR for an SD the check
 * refuses.
 */
NTSTATUS xattr_ntacl_push(TALLOC_CTX *mem_ctx, const struct xattr_ntacl *in,
			  uint8_t **out, size_t *out_len);

/*
 * Whether sd (len bytes, self-relative) is a descriptor Samba's NDR
 * reads, and reads as any self-relative reader would: each part offset
 * 0 or 4-aligned, past the 20-byte header and inside; SIDs of revision 1
 * with at most 15 sub-authorities; ACLs whose AclSize fits, with at
 * most XATTR_NTACL_MAX_ACES ACEs (AceCount and Sbz2 read as one u32, as
 * Samba does), each ACE 4-aligned in size and holding its object part
 * (types 5..8) and SID inside its AceSize, all inside AclSize.  The SD
 * and ACL revisions are not checked (Samba reads any; smbcacls writes
 * ACL revision 3, and Samba's reader reports the SD as revision 1 with
 * SELF_RELATIVE set whatever is stored).  *extent is where the last
 * part ends.  Anything else: INVALID_SECURITY_DESCR.
 */
NTSTATUS xattr_ntacl_sd_check(const uint8_t *sd, size_t len, size_t *extent);

/* ---- the hashes (xattr_ntacl_hash.c) ---- */

/*
 * The SD hash of hash_type 1 as Samba 4.17 computes it: SHA-256 of the
 * version-3 value Samba would store for sd with hash_type 1 and an
 * all-zero hash, in hash[0..32), hash[32..64) zero.  Samba hashes the
 * SD it maps from the file's POSIX ACL (not the stored one) and stores
 * that, so a later read can tell whether the POSIX ACL changed.
 */
NTSTATUS xattr_ntacl_sd_hash(const uint8_t *sd, size_t sd_len,
			     uint8_t hash[XATTR_NTACL_HASH_SIZE]);

/* Samba's smb_acl_tag_t (librpc/idl/smb_acl.idl) */
#define XATTR_SMB_ACL_USER		1
#define XATTR_SMB_ACL_USER_OBJ		2
#define XATTR_SMB_ACL_GROUP		3
#define XATTR_SMB_ACL_GROUP_OBJ		4
#define XATTR_SMB_ACL_OTHER		5
#define XATTR_SMB_ACL_MASK		6

/* One POSIX ACL entry as Samba carries it: perm is r 4, w 2, x 1. */
struct xattr_posix_ace {
	uint16_t tag;                   /* XATTR_SMB_ACL_* */
	uint32_t id;                    /* uid or gid for USER, GROUP */
	uint32_t perm;
};

struct xattr_posix_acl {
	const struct xattr_posix_ace *aces;
	size_t count;
};

/*
 * A Linux system.posix_acl_access/_default value (version 2, then
 * entries of tag u16, perm u16, id u32) as libacl hands it to Samba, in
 * its order; entries on mem_ctx.  INVALID_PARAMETER for another
 * version, a length that is not 4 + 8n or an unknown tag.
 */
NTSTATUS xattr_posix_acl_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			      size_t len, struct xattr_posix_acl *out);

/*
 * The three entries libacl returns for a file without an ACL xattr:
 * USER_OBJ, GROUP_OBJ, OTHER from the mode's rwx triples.
 */
void xattr_posix_acl_from_mode(uint32_t mode, struct xattr_posix_ace out[3]);

/*
 * What Samba hashes into sys_acl_hash for vfs_default (description
 * "posix_acl"): the NDR of smb_acl_wrapper { access ACL, default ACL
 * (NULL for a file; an empty one for a directory without), uid, gid,
 * st_mode with its type bits }, into *out on mem_ctx.
 */
NTSTATUS xattr_ntacl_sys_acl_blob(TALLOC_CTX *mem_ctx,
				  const struct xattr_posix_acl *access,
				  const struct xattr_posix_acl *dflt,
				  uint32_t uid, uint32_t gid, uint32_t mode,
				  uint8_t **out, size_t *out_len);

/* SHA-256 of that blob, zero-padded to 64 bytes. */
NTSTATUS xattr_ntacl_sys_acl_hash(const struct xattr_posix_acl *access,
				  const struct xattr_posix_acl *dflt,
				  uint32_t uid, uint32_t gid, uint32_t mode,
				  uint8_t hash[XATTR_NTACL_HASH_SIZE]);

/* ---- Samba 4.17's decision (validate_nt_acl_blob) ---- */

enum xattr_ntacl_verdict {
	XATTR_NTACL_USE_STORED,         /* the stored SD is the file's */
	XATTR_NTACL_USE_FS,             /* map the SD from the POSIX ACL */
	XATTR_NTACL_CHECK_SD_HASH,      /* decide with the SD hash */
};

/*
 * The first step: versions 1 and 2 are trusted as they are; 3 and 4 too
 * with "acl_xattr:ignore system acls"; otherwise a hash_type other than
 * SHA-256 discards the value; a version 4 whose sys_acl_hash equals
 * sys_acl_hash_now (the caller's xattr_ntacl_sys_acl_hash() of the file
 * now, NULL when it has none) is trusted; the rest need the SD hash.
 */
enum xattr_ntacl_verdict xattr_ntacl_verdict(const struct xattr_ntacl *x,
					     bool ignore_system_acls,
					     const uint8_t *sys_acl_hash_now);

/*
 * The second step: *match when x's hash equals xattr_ntacl_sd_hash() of
 * fs_sd, the SD mapped from the file's POSIX ACL now (all 64 bytes
 * compared, as Samba does).  No match: use fs_sd.
 */
NTSTATUS xattr_ntacl_sd_hash_verify(const struct xattr_ntacl *x,
				    const uint8_t *fs_sd, size_t fs_sd_len,
				    bool *match);

#endif
