/*
 * UTF-16LE <-> UTF-8 for NTLMSSP strings, and the upper-casing NTOWFv2
 * applies to user names.
 *
 * Conversion is strict: an odd byte count or an unpaired surrogate is an
 * error, so a name has exactly one UTF-8 spelling.  An embedded U+0000 is
 * refused too (it would truncate the C string).
 */
#include <string.h>

#include "lib/auth/auth_private.h"
#include "lib/util/byteorder.h"

static size_t utf8_put(char *dst, uint32_t cp)
{
	if (cp < 0x80) {
		dst[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		dst[0] = (char)(0xC0 | (cp >> 6));
		dst[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		dst[0] = (char)(0xE0 | (cp >> 12));
		dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		dst[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	dst[0] = (char)(0xF0 | (cp >> 18));
	dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	dst[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* One code point from UTF-16LE at p[*i]; 0 on error (U+0000 included). */
static uint32_t utf16_next(const uint8_t *p, size_t len, size_t *i)
{
	uint32_t hi = pull_le16(p + *i);
	uint32_t lo;

	*i += 2;
	if (hi < 0xD800 || hi > 0xDFFF) {
		return hi;
	}
	if (hi > 0xDBFF || *i + 2 > len) {
		return 0;
	}
	lo = pull_le16(p + *i);
	if (lo < 0xDC00 || lo > 0xDFFF) {
		return 0;
	}
	*i += 2;
	return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

NTSTATUS utf16_to_utf8(TALLOC_CTX *mem_ctx, struct auth_slice in,
		       char **out)
{
	char *s = NULL;
	size_t i = 0, o = 0;

	*out = NULL;
	if (in.len % 2 != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* each UTF-16 unit becomes at most 3 UTF-8 bytes (pairs: 4 for 2) */
	s = talloc_array(mem_ctx, char, in.len / 2 * 3 + 1);
	if (s == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	while (i < in.len) {
		uint32_t cp = utf16_next(in.data, in.len, &i);

		if (cp == 0) {
			TALLOC_FREE(s);
			return NT_STATUS_INVALID_PARAMETER;
		}
		o += utf8_put(s + o, cp);
	}
	s[o] = '\0';
	*out = s;
	return NT_STATUS_OK;
}

/* One code point from UTF-8; 0 on malformed or overlong input. */
static uint32_t utf8_next(const uint8_t *s, size_t *i)
{
	static const uint32_t min[4] = { 0, 0x80, 0x800, 0x10000 };
	uint32_t cp = s[*i];
	size_t n = 0, k;

	if (cp < 0x80) {
		*i += 1;
		return cp;
	}
	if ((cp & 0xE0) == 0xC0) {
		n = 1, cp &= 0x1F;
	} else if ((cp & 0xF0) == 0xE0) {
		n = 2, cp &= 0x0F;
	} else if ((cp & 0xF8) == 0xF0) {
		n = 3, cp &= 0x07;
	} else {
		return 0;
	}
	for (k = 1; k <= n; k++) {
		if ((s[*i + k] & 0xC0) != 0x80) {
			return 0;	/* also stops at the NUL */
		}
		cp = (cp << 6) | (s[*i + k] & 0x3F);
	}
	if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
		return 0;
	}
	*i += n + 1;
	return cp;
}

NTSTATUS utf8_to_utf16(TALLOC_CTX *mem_ctx, const char *in,
		       uint8_t **out, size_t *out_len)
{
	const uint8_t *s = (const uint8_t *)in;
	size_t len = strlen(in), i = 0, o = 0;
	uint8_t *u = talloc_array(mem_ctx, uint8_t, len * 2 + 2);

	if (u == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	while (i < len) {
		uint32_t cp = utf8_next(s, &i);

		if (cp == 0) {
			talloc_free(u);
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (cp >= 0x10000) {
			cp -= 0x10000;
			push_le16(u + o, (uint16_t)(0xD800 + (cp >> 10)));
			push_le16(u + o + 2, (uint16_t)(0xDC00 + (cp & 0x3FF)));
			o += 4;
		} else {
			push_le16(u + o, (uint16_t)cp);
			o += 2;
		}
	}
	*out = u;
	*out_len = o;
	return NT_STATUS_OK;
}

/*
 * Simple (1:1) upper-casing of the scripts user names are commonly
 * written in: ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic.  Windows
 * uses its full table; names outside these ranges compare as sent.
 */
static uint16_t upper_unit(uint16_t c)
{
	if ((c >= 'a' && c <= 'z') ||
	    (c >= 0xE0 && c <= 0xFE && c != 0xF7) ||
	    (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) ||
	    (c >= 0x430 && c <= 0x44F)) {
		return c - 0x20;
	}
	if (c == 0xFF) {
		return 0x178;
	}
	if (c >= 0x450 && c <= 0x45F) {
		return c - 0x50;
	}
	if (c >= 0x100 && c <= 0x17F && c != 0x131 && c != 0x138 &&
	    c != 0x149 && c != 0x17F) {
		/* pairs: even upper, odd lower, except 0x139-0x148, 0x179-0x17E */
		bool odd_upper = (c >= 0x139 && c <= 0x148) ||
				 (c >= 0x179 && c <= 0x17E);
		if (odd_upper ? (c % 2 == 0) : (c % 2 == 1)) {
			return c - 1;
		}
	}
	return c;
}

void utf16_upper(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		push_le16(p + i, upper_unit(pull_le16(p + i)));
	}
}
