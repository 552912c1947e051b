/*
 * Samba's user.DOSATTRIB value: xattr_DOSATTRIB (librpc/idl/xattr.idl),
 * layout in xattr_dosattrib.h and docs/vfs.md.  Written from the IDL's
 * NDR rules and checked against bytes Samba 4.17 wrote
 * (tests/unit/test_dcerpc_xattr.c).
 *
 * NDR as Samba's library applies it here: a u16 aligns to 2, a struct of
 * u32 and udlong (NTTIME, sizes) to 4, the union's switch is written as
 * its own u16 after the version and must equal it; no trailing padding.
 */
#include <string.h>
#include "lib/dcerpc/dcerpc.h"
#include "lib/dcerpc/xattr_dosattrib.h"
#include "lib/smb2/cursor.h"
#include "lib/util/hexdigit.h"

/* "0x" + 8 hex digits */
#define DA_HEX_MAX	10

/* NDR udlong: two u32, low first, aligned to 4 (not 8 as a hyper). */
static uint64_t pull_udlong(struct ndr_pull *c)
{
	uint64_t lo = ndr_pull_u32(c);

	return lo | (uint64_t)ndr_pull_u32(c) << 32;
}

/*
 * The hex-only form, as Samba's sscanf("%x") reads it: an optional 0x,
 * hex digits up to the first other character, the value cut to 32 bits
 * (after saturating at 64, as strtoul does).  "0x" alone is 0.
 */
static bool parse_hex(const uint8_t *s, size_t n, uint32_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	bool digits = false;
	int d;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		i = 2;
		digits = true;
	}
	for (; i < n && (d = hex_digit_value(s[i])) >= 0; i++) {
		v = v > (UINT64_MAX >> 4) ? UINT64_MAX : v << 4 | (uint64_t)d;
		digits = true;
	}
	*out = (uint32_t)v;
	return digits;
}

static void pull_info1(struct ndr_pull *c, struct xattr_dosattrib *x)
{
	x->attrib = ndr_pull_u32(c);
	x->ea_size = ndr_pull_u32(c);
	x->size = pull_udlong(c);
	x->alloc_size = pull_udlong(c);
	x->create_time = pull_udlong(c);
	x->change_time = pull_udlong(c);
}

static void pull_info2(struct ndr_pull *c, struct xattr_dosattrib *x)
{
	const uint8_t *end = NULL;
	size_t left = 0;

	x->flags = ndr_pull_u32(c);
	pull_info1(c, x);
	x->write_time = pull_udlong(c);
	/* utf8string: up to a NUL, or the rest; at least one byte */
	left = c->bad ? 0 : c->len - c->ofs;
	if (left == 0) {
		c->bad = true;
		return;
	}
	x->name = c->p + c->ofs;
	end = memchr(x->name, '\0', left);
	x->name_len = end != NULL ? (size_t)(end - x->name) : left;
	c->ofs += end != NULL ? x->name_len + 1 : left;
}

static void pull_info(struct ndr_pull *c, struct xattr_dosattrib *x)
{
	ndr_pull_align(c, 4);
	switch (x->version) {
	case 1:
		pull_info1(c, x);
		break;
	case 2:
		pull_info2(c, x);
		break;
	case 3:
		x->valid_flags = ndr_pull_u32(c);
		pull_info1(c, x);
		break;
	case 4:
		x->valid_flags = ndr_pull_u32(c);
		x->attrib = ndr_pull_u32(c);
		x->itime = pull_udlong(c);
		x->create_time = pull_udlong(c);
		break;
	case 5:
		x->valid_flags = ndr_pull_u32(c);
		x->attrib = ndr_pull_u32(c);
		x->create_time = pull_udlong(c);
		break;
	default:
		c->bad = true;
		break;
	}
}

NTSTATUS xattr_dosattrib_pull(const uint8_t *buf, size_t len,
			      struct xattr_dosattrib *out)
{
	struct ndr_pull c = ndr_pull_init(buf, len);
	const uint8_t *nul = NULL;
	size_t hex_len = 0;
	uint16_t level = 0;

	*out = (struct xattr_dosattrib) {};
	if (len == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* the hex string: up to its NUL, or the whole value without one */
	nul = memchr(buf, '\0', len);
	hex_len = nul != NULL ? (size_t)(nul - buf) : len;
	c.ofs = nul != NULL ? hex_len + 1 : len;
	if (c.ofs == len) {
		out->version = XATTR_DOSATTRIB_HEX_ONLY;
		return parse_hex(buf, hex_len, &out->attrib) ?
			NT_STATUS_OK : NT_STATUS_INVALID_PARAMETER;
	}
	out->version = ndr_pull_u16(&c);
	level = ndr_pull_u16(&c);
	if (c.bad || level != out->version) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	pull_info(&c, out);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

static void push_udlong(struct smb2_wr *w, uint64_t v)
{
	smb2_wr_u32(w, (uint32_t)v);
	smb2_wr_u32(w, (uint32_t)(v >> 32));
}

static void push_info1(struct smb2_wr *w, const struct xattr_dosattrib *x)
{
	smb2_wr_u32(w, x->attrib);
	smb2_wr_u32(w, x->ea_size);
	push_udlong(w, x->size);
	push_udlong(w, x->alloc_size);
	push_udlong(w, x->create_time);
	push_udlong(w, x->change_time);
}

static void push_info(struct smb2_wr *w, const struct xattr_dosattrib *x)
{
	switch (x->version) {
	case 1:
		push_info1(w, x);
		break;
	case 2:
		smb2_wr_u32(w, x->flags);
		push_info1(w, x);
		push_udlong(w, x->write_time);
		smb2_wr_bytes(w, x->name, x->name_len);
		smb2_wr_u8(w, 0);
		break;
	case 3:
		smb2_wr_u32(w, x->valid_flags);
		push_info1(w, x);
		break;
	case 4:
		smb2_wr_u32(w, x->valid_flags);
		smb2_wr_u32(w, x->attrib);
		push_udlong(w, x->itime);
		push_udlong(w, x->create_time);
		break;
	default:	/* 5 */
		smb2_wr_u32(w, x->valid_flags);
		smb2_wr_u32(w, x->attrib);
		push_udlong(w, x->create_time);
		break;
	}
}

/* Samba writes the hex string for the versions that predate valid_flags. */
static bool hex_written(const struct xattr_dosattrib *x)
{
	switch (x->version) {
	case 1:
	case 2:
	case XATTR_DOSATTRIB_HEX_ONLY:
		return true;
	case 3:
		return (x->valid_flags & XATTR_DOSINFO_ATTRIB) != 0;
	default:
		return false;
	}
}

size_t xattr_dosattrib_push(const struct xattr_dosattrib *in, uint8_t *buf,
			    size_t len)
{
	static const char digits[] = "0123456789abcdef";
	struct smb2_wr w = smb2_wr_init(buf, len);
	char hex[DA_HEX_MAX] = "0x";
	size_t n = 2;
	int shift;

	if ((in->version < 1 || in->version > 5) &&
	    in->version != XATTR_DOSATTRIB_HEX_ONLY) {
		return 0;
	}
	if (in->version == 2 && in->name_len > 0 && in->name == NULL) {
		return 0;
	}
	if (hex_written(in)) {
		/* "%x": no leading zeros, "0" for 0 */
		for (shift = 28; shift > 0 && (in->attrib >> shift) == 0;
		     shift -= 4) {
		}
		for (; shift >= 0; shift -= 4) {
			hex[n++] = digits[(in->attrib >> shift) & 0xf];
		}
		smb2_wr_bytes(&w, hex, n);
	}
	smb2_wr_u8(&w, 0);
	if (in->version != XATTR_DOSATTRIB_HEX_ONLY) {
		smb2_wr_align(&w, 2);
		smb2_wr_u16(&w, in->version);
		smb2_wr_u16(&w, in->version);
		smb2_wr_align(&w, 4);
		push_info(&w, in);
	}
	return w.overflow ? 0 : w.ofs;
}

void xattr_dosattrib_meaning(const struct xattr_dosattrib *x,
			     uint32_t *attrib, uint64_t *create_time)
{
	uint64_t ct = 0;

	switch (x->version) {
	case 1:
		ct = x->create_time;
		break;
	case 3:
	case 4:
	case 5:
		if (x->valid_flags & XATTR_DOSINFO_CREATE_TIME) {
			ct = x->create_time;
		}
		break;
	default:	/* 2 and the hex-only form carry none Samba reads */
		break;
	}
	*attrib = x->attrib;
	*create_time = ct > (uint64_t)INT64_MAX ? 0 : ct;
}
