/*
 * The two hashes in Samba's security.NTACL and the rule that uses them
 * (Samba 4.17 source3/modules/vfs_acl_common.c, validate_nt_acl_blob and
 * fset_nt_acl_common): docs/vfs.md, "security.NTACL (acl_xattr)".
 *
 * sys_acl_hash covers Samba's smb_acl_wrapper (librpc/idl/smb_acl.idl),
 * NDR as Samba's library writes it: a unique pointer to each ACL, uid
 * and gid as hyper (8-aligned), mode u32; each ACL a conformant struct
 * (the count as conformance, then count, next = 0 and the entries, each
 * 8-aligned: tag u16, the union's switch u16 = tag, the uid/gid as
 * hyper for USER/GROUP only, perm u32).  Checked byte for byte against
 * Samba's own ndr_push_smb_acl_wrapper and against hashes smbd 4.17
 * stored (tests/unit/test_dcerpc_ntacl.c).
 */
#include <string.h>
#include <gnutls/crypto.h>
#include "lib/dcerpc/dcerpc.h"
#include "lib/dcerpc/xattr_ntacl.h"
#include "lib/util/byteorder.h"

/* Linux's system.posix_acl_* layout (include/uapi/linux/posix_acl_xattr.h) */
#define POSIX_ACL_XATTR_VERSION	2
#define POSIX_ACL_HDR		4
#define POSIX_ACL_ENTRY		8

/* SHA-256 of a blob a push made on no context (status its result). */
static NTSTATUS sha256_and_free(NTSTATUS status, uint8_t *blob, size_t n,
				uint8_t hash[XATTR_NTACL_HASH_SIZE])
{
	memset(hash, 0, XATTR_NTACL_HASH_SIZE);
	if (NT_STATUS_IS_OK(status) &&
	    gnutls_hash_fast(GNUTLS_DIG_SHA256, blob, n, hash) < 0) {
		status = NT_STATUS_INTERNAL_ERROR;
	}
	TALLOC_FREE(blob);
	return status;
}

NTSTATUS xattr_ntacl_sd_hash(const uint8_t *sd, size_t sd_len,
			     uint8_t hash[XATTR_NTACL_HASH_SIZE])
{
	struct xattr_ntacl x = {
		.version = 3, .sd = sd, .sd_len = sd_len,
		.hash_type = XATTR_NTACL_HASH_SHA256,
	};
	uint8_t *blob = NULL;
	size_t n = 0;
	NTSTATUS status = xattr_ntacl_push(NULL, &x, &blob, &n);

	return sha256_and_free(status, blob, n, hash);
}

/* Linux tag -> Samba's smb_acl_tag_t; 0 for none */
static uint16_t smb_acl_tag(uint16_t linux_tag)
{
	switch (linux_tag) {
	case 0x01: return XATTR_SMB_ACL_USER_OBJ;
	case 0x02: return XATTR_SMB_ACL_USER;
	case 0x04: return XATTR_SMB_ACL_GROUP_OBJ;
	case 0x08: return XATTR_SMB_ACL_GROUP;
	case 0x10: return XATTR_SMB_ACL_MASK;
	case 0x20: return XATTR_SMB_ACL_OTHER;
	default: return 0;
	}
}

NTSTATUS xattr_posix_acl_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			      size_t len, struct xattr_posix_acl *out)
{
	struct xattr_posix_ace *aces = NULL;
	size_t n = 0, i;

	*out = (struct xattr_posix_acl) {};
	if (len < POSIX_ACL_HDR || (len - POSIX_ACL_HDR) % POSIX_ACL_ENTRY ||
	    pull_le32(buf) != POSIX_ACL_XATTR_VERSION) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	n = (len - POSIX_ACL_HDR) / POSIX_ACL_ENTRY;
	if (n == 0) {
		return NT_STATUS_OK;
	}
	aces = talloc_zero_array(mem_ctx, struct xattr_posix_ace, n);
	if (aces == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n; i++) {
		const uint8_t *e = buf + POSIX_ACL_HDR + POSIX_ACL_ENTRY * i;

		aces[i].tag = smb_acl_tag(pull_le16(e));
		aces[i].perm = pull_le16(e + 2) & 7;    /* libacl's r, w, x */
		if (aces[i].tag == XATTR_SMB_ACL_USER ||
		    aces[i].tag == XATTR_SMB_ACL_GROUP) {
			aces[i].id = pull_le32(e + 4);
		}
		if (aces[i].tag == 0) {
			TALLOC_FREE(aces);
			return NT_STATUS_INVALID_PARAMETER;
		}
	}
	*out = (struct xattr_posix_acl) { .aces = aces, .count = n };
	return NT_STATUS_OK;
}

void xattr_posix_acl_from_mode(uint32_t mode, struct xattr_posix_ace out[3])
{
	out[0] = (struct xattr_posix_ace) {
		.tag = XATTR_SMB_ACL_USER_OBJ, .perm = (mode >> 6) & 7 };
	out[1] = (struct xattr_posix_ace) {
		.tag = XATTR_SMB_ACL_GROUP_OBJ, .perm = (mode >> 3) & 7 };
	out[2] = (struct xattr_posix_ace) {
		.tag = XATTR_SMB_ACL_OTHER, .perm = mode & 7 };
}

static bool push_acl(struct ndr_push *w, const struct xattr_posix_acl *a)
{
	size_t i;

	if (a->count > INT32_MAX) {
		return false;
	}
	ndr_push_u32(w, (uint32_t)a->count);    /* conformance */
	ndr_push_align(w, 8);
	ndr_push_u32(w, (uint32_t)a->count);
	ndr_push_u32(w, 0);                     /* next */
	for (i = 0; i < a->count; i++) {
		const struct xattr_posix_ace *e = &a->aces[i];

		if (e->tag < XATTR_SMB_ACL_USER ||
		    e->tag > XATTR_SMB_ACL_MASK) {
			return false;
		}
		ndr_push_align(w, 8);
		ndr_push_u16(w, e->tag);
		ndr_push_u16(w, e->tag);
		if (e->tag == XATTR_SMB_ACL_USER ||
		    e->tag == XATTR_SMB_ACL_GROUP) {
			ndr_push_u64(w, e->id);
		}
		ndr_push_u32(w, e->perm);
	}
	return true;
}

NTSTATUS xattr_ntacl_sys_acl_blob(TALLOC_CTX *mem_ctx,
				  const struct xattr_posix_acl *access,
				  const struct xattr_posix_acl *dflt,
				  uint32_t uid, uint32_t gid, uint32_t mode,
				  uint8_t **out, size_t *out_len)
{
	struct ndr_push w = ndr_push_init(mem_ctx);
	bool ok = true;

	*out = NULL;
	*out_len = 0;
	ndr_push_unique_ptr(&w, access != NULL);
	ndr_push_unique_ptr(&w, dflt != NULL);
	ndr_push_u64(&w, uid);
	ndr_push_u64(&w, gid);
	ndr_push_u32(&w, mode);
	if (access != NULL) {
		ok = push_acl(&w, access);
	}
	if (ok && dflt != NULL) {
		ok = push_acl(&w, dflt);
	}
	if (!ok || w.bad) {
		TALLOC_FREE(w.buf);
		return ok ? NT_STATUS_NO_MEMORY : NT_STATUS_INVALID_PARAMETER;
	}
	*out = w.buf;
	*out_len = w.len;
	return NT_STATUS_OK;
}

NTSTATUS xattr_ntacl_sys_acl_hash(const struct xattr_posix_acl *access,
				  const struct xattr_posix_acl *dflt,
				  uint32_t uid, uint32_t gid, uint32_t mode,
				  uint8_t hash[XATTR_NTACL_HASH_SIZE])
{
	uint8_t *blob = NULL;
	size_t n = 0;
	NTSTATUS status = xattr_ntacl_sys_acl_blob(NULL, access, dflt, uid,
						   gid, mode, &blob, &n);

	return sha256_and_free(status, blob, n, hash);
}

enum xattr_ntacl_verdict xattr_ntacl_verdict(const struct xattr_ntacl *x,
					     bool ignore_system_acls,
					     const uint8_t *sys_acl_hash_now)
{
	if (x->version <= 2 || ignore_system_acls) {
		return XATTR_NTACL_USE_STORED;
	}
	if (x->hash_type != XATTR_NTACL_HASH_SHA256) {
		return XATTR_NTACL_USE_FS;
	}
	if (x->version == 4 && sys_acl_hash_now != NULL &&
	    memcmp(x->sys_acl_hash, sys_acl_hash_now,
		   XATTR_NTACL_HASH_SIZE) == 0) {
		return XATTR_NTACL_USE_STORED;
	}
	return XATTR_NTACL_CHECK_SD_HASH;
}

NTSTATUS xattr_ntacl_sd_hash_verify(const struct xattr_ntacl *x,
				    const uint8_t *fs_sd, size_t fs_sd_len,
				    bool *match)
{
	uint8_t hash[XATTR_NTACL_HASH_SIZE];
	NTSTATUS status = xattr_ntacl_sd_hash(fs_sd, fs_sd_len, hash);

	*match = NT_STATUS_IS_OK(status) &&
		 memcmp(hash, x->hash, XATTR_NTACL_HASH_SIZE) == 0;
	return status;
}
