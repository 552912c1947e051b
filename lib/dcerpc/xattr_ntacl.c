/*
 * Samba's security.NTACL value: xattr_NTACL (librpc/idl/xattr.idl),
 * layout in xattr_ntacl.h and docs/vfs.md.  Written from the IDL's NDR
 * rules and checked against bytes Samba 4.17 wrote
 * (tests/unit/test_dcerpc_ntacl.c).
 *
 * NDR as Samba applies it here: the union's switch is its own u16 after
 * the version and must equal it; the union's arm and the hash struct's
 * sd are unique pointers whose referents follow the scalars; the SD's
 * four offsets are NDR relative pointers, and since nothing sets a
 * relative base for them they count from the start of the value.
 */
#include <string.h>
#include "lib/dcerpc/dcerpc.h"
#include "lib/dcerpc/xattr_ntacl.h"
#include "lib/util/byteorder.h"

#define SD_BAD		NT_STATUS_INVALID_SECURITY_DESCR

static void pull_hashes(struct ndr_pull *c, struct xattr_ntacl *x)
{
	size_t n = x->version == 2 ? XATTR_NTACL_V2_HASH_SIZE :
				     XATTR_NTACL_HASH_SIZE;
	const uint8_t *p = NULL;
	uint32_t ref = 0;

	/* the hash struct's sd: Samba dereferences it unchecked */
	if (!ndr_pull_unique_ptr(c, &ref)) {
		c->bad = true;
		return;
	}
	if (x->version != 2) {
		x->hash_type = ndr_pull_u16(c);
	}
	if ((p = ndr_pull_bytes(c, n)) != NULL) {
		memcpy(x->hash, p, n);
	}
	if (x->version != 4) {
		return;
	}
	ndr_pull_utf8z(c, &x->description, &x->description_len);
	x->time = ndr_pull_udlong(c);
	if ((p = ndr_pull_bytes(c, XATTR_NTACL_HASH_SIZE)) != NULL) {
		memcpy(x->sys_acl_hash, p, XATTR_NTACL_HASH_SIZE);
	}
}

/*
 * Moves the SD's part offsets between "from the value" and "from the
 * SD", which starts at pos in the value.  false when a part would start
 * before the end of the SD's header.
 */
static bool rebase(uint8_t *sd, size_t pos, bool to_value)
{
	size_t i;

	for (i = 0; i < XATTR_NTACL_SD_PARTS; i++) {
		uint8_t *f = sd + XATTR_NTACL_SD_OFFSETS + 4 * i;
		uint32_t ofs = pull_le32(f);

		if (ofs == 0) {
			continue;
		}
		if (to_value) {
			push_le32(f, ofs + (uint32_t)pos);
		} else if (ofs < pos + XATTR_NTACL_SD_HEADER) {
			return false;
		} else {
			push_le32(f, ofs - (uint32_t)pos);
		}
	}
	return true;
}

/* The SD at pos to the end of the value, copied and made self-relative. */
static NTSTATUS pull_sd(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
			size_t pos, struct xattr_ntacl *x)
{
	size_t n = len - pos, extent = 0;
	uint8_t *sd = NULL;
	NTSTATUS status;

	if (n < XATTR_NTACL_SD_HEADER) {
		return SD_BAD;
	}
	sd = talloc_memdup(mem_ctx, buf + pos, n);
	if (sd == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (!rebase(sd, pos, false)) {
		TALLOC_FREE(sd);
		return SD_BAD;
	}
	status = xattr_ntacl_sd_check(sd, n, &extent);
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(sd);
		return status;
	}
	x->sd = sd;
	x->sd_len = extent;
	return NT_STATUS_OK;
}

/* The version, the union's switch and pointers, the hashes: up to the SD. */
static bool pull_head(struct ndr_pull *c, struct xattr_ntacl *x)
{
	uint16_t level = 0;
	uint32_t ref = 0;

	x->version = ndr_pull_u16(c);
	level = ndr_pull_u16(c);
	if (c->bad || level != x->version || x->version < 1 ||
	    x->version > 4) {
		return false;
	}
	/* the union's arm: Samba dereferences a NULL one too */
	if (!ndr_pull_unique_ptr(c, &ref)) {
		return false;
	}
	if (x->version >= 2) {
		pull_hashes(c, x);
	}
	ndr_pull_align(c, 4);
	return !c->bad;
}

NTSTATUS xattr_ntacl_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			  size_t len, struct xattr_ntacl *out)
{
	struct ndr_pull c = ndr_pull_init(buf, len);
	NTSTATUS status = NT_STATUS_INVALID_PARAMETER;

	*out = (struct xattr_ntacl) {};
	if (pull_head(&c, out)) {
		status = pull_sd(mem_ctx, buf, len, c.ofs, out);
	}
	if (!NT_STATUS_IS_OK(status)) {
		*out = (struct xattr_ntacl) {};
	}
	return status;
}

static void push_hashes(struct ndr_push *w, const struct xattr_ntacl *x)
{
	ndr_push_unique_ptr(w, true);
	if (x->version == 2) {
		ndr_push_bytes(w, x->hash, XATTR_NTACL_V2_HASH_SIZE);
		return;
	}
	ndr_push_u16(w, x->hash_type);
	ndr_push_bytes(w, x->hash, XATTR_NTACL_HASH_SIZE);
	if (x->version != 4) {
		return;
	}
	ndr_push_bytes(w, x->description, x->description_len);
	ndr_push_u8(w, 0);
	ndr_push_udlong(w, x->time);
	ndr_push_bytes(w, x->sys_acl_hash, XATTR_NTACL_HASH_SIZE);
}

static bool description_ok(const struct xattr_ntacl *x)
{
	if (x->version != 4 || x->description_len == 0) {
		return true;
	}
	return x->description != NULL &&
	       memchr(x->description, '\0', x->description_len) == NULL;
}

NTSTATUS xattr_ntacl_push(TALLOC_CTX *mem_ctx, const struct xattr_ntacl *in,
			  uint8_t **out, size_t *out_len)
{
	struct ndr_push w = ndr_push_init(mem_ctx);
	size_t extent = 0, pos = 0;
	NTSTATUS status;

	*out = NULL;
	*out_len = 0;
	if (in->version < 1 || in->version > 4 || !description_ok(in)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = xattr_ntacl_sd_check(in->sd, in->sd_len, &extent);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	ndr_push_u16(&w, in->version);
	ndr_push_u16(&w, in->version);
	ndr_push_unique_ptr(&w, true);
	if (in->version >= 2) {
		push_hashes(&w, in);
	}
	ndr_push_align(&w, 4);
	pos = w.len;
	ndr_push_bytes(&w, in->sd, extent);
	if (w.bad || w.len > XATTR_NTACL_SIZE_MAX) {
		TALLOC_FREE(w.buf);
		return w.bad ? NT_STATUS_NO_MEMORY :
			       NT_STATUS_INVALID_PARAMETER;
	}
	rebase(w.buf + pos, pos, true);
	*out = w.buf;
	*out_len = w.len;
	return NT_STATUS_OK;
}
