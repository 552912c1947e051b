/*
 * UTF-16LE (the wire's names and paths) <-> UTF-8 (what the daemon and
 * the file system use).  Strict in both directions: an unpaired
 * surrogate, a NUL, or malformed UTF-8 is an invalid name, not something
 * to repair, so a name maps to exactly one file.
 */
#include "lib/smb2/smb2_private.h"

#define SURR_HIGH_FIRST	0xD800
#define SURR_LOW_FIRST	0xDC00
#define SURR_LAST	0xDFFF

/* Code point at unit *i of n units, advancing *i; false if invalid. */
static bool utf16_next(const uint8_t *p, size_t n, size_t *i, uint32_t *cp)
{
	uint32_t u = pull_le16(p + 2 * *i);
	uint32_t u2 = 0;

	(*i)++;
	if (u == 0 || (u >= SURR_LOW_FIRST && u <= SURR_LAST)) {
		return false;
	}
	if (u < SURR_HIGH_FIRST || u > SURR_LAST) {
		*cp = u;
		return true;
	}
	if (*i == n) {
		return false;
	}
	u2 = pull_le16(p + 2 * *i);
	if (u2 < SURR_LOW_FIRST || u2 > SURR_LAST) {
		return false;
	}
	(*i)++;
	*cp = 0x10000 + ((u - SURR_HIGH_FIRST) << 10) + (u2 - SURR_LOW_FIRST);
	return true;
}

static size_t utf8_len(uint32_t cp)
{
	if (cp < 0x80) {
		return 1;
	}
	if (cp < 0x800) {
		return 2;
	}
	return cp < 0x10000 ? 3 : 4;
}

static void utf8_put(uint8_t *q, uint32_t cp, size_t n)
{
	static const uint8_t lead[5] = { 0, 0x00, 0xC0, 0xE0, 0xF0 };
	size_t k = n;

	while (k > 1) {
		k--;
		q[k] = 0x80 | (cp & 0x3F);
		cp >>= 6;
	}
	q[0] = lead[n] | cp;
}

NTSTATUS smb2_utf16_to_utf8(TALLOC_CTX *mem_ctx, const uint8_t *p,
			    size_t len, char **out)
{
	size_t n = len / 2;
	size_t i = 0;
	size_t total = 0;
	uint32_t cp = 0;
	uint8_t *q = NULL;

	if (len & 1) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	while (i < n) {
		if (!utf16_next(p, n, &i, &cp)) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		total += utf8_len(cp);
	}
	q = talloc_array(mem_ctx, uint8_t, total + 1);
	if (q == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0, total = 0; i < n;) {
		(void)utf16_next(p, n, &i, &cp);
		utf8_put(q + total, cp, utf8_len(cp));
		total += utf8_len(cp);
	}
	q[total] = '\0';
	*out = (char *)q;
	return NT_STATUS_OK;
}

/* Continuation bytes of a sequence of n bytes starting at s[*i]. */
static bool utf8_tail(const uint8_t *s, size_t slen, size_t *i, size_t n,
		      uint32_t *cp)
{
	size_t k = 0;

	if (n > slen - *i) {
		return false;
	}
	for (k = 1; k < n; k++) {
		if ((s[*i + k] & 0xC0) != 0x80) {
			return false;
		}
		*cp = (*cp << 6) | (s[*i + k] & 0x3F);
	}
	*i += n;
	return true;
}

/* Code point at byte *i, advancing *i; false if malformed or NUL. */
static bool utf8_next(const uint8_t *s, size_t slen, size_t *i, uint32_t *cp)
{
	uint8_t b = s[*i];
	size_t n = 0;

	if (b < 0x80) {
		n = 1, *cp = b;
	} else if (b >= 0xC2 && b < 0xE0) {
		n = 2, *cp = b & 0x1F;
	} else if (b >= 0xE0 && b < 0xF0) {
		n = 3, *cp = b & 0x0F;
	} else if (b >= 0xF0 && b < 0xF5) {
		n = 4, *cp = b & 0x07;
	} else {
		return false;
	}
	if (!utf8_tail(s, slen, i, n, cp)) {
		return false;
	}
	/* NUL, overlong 3/4-byte forms, surrogates, past U+10FFFF */
	return *cp != 0 && utf8_len(*cp) == n && *cp <= 0x10FFFF &&
	       (*cp < SURR_HIGH_FIRST || *cp > SURR_LAST);
}

static size_t utf16_put(uint8_t *q, uint32_t cp)
{
	if (cp < 0x10000) {
		push_le16(q, (uint16_t)cp);
		return 2;
	}
	cp -= 0x10000;
	push_le16(q, (uint16_t)(SURR_HIGH_FIRST + (cp >> 10)));
	push_le16(q + 2, (uint16_t)(SURR_LOW_FIRST + (cp & 0x3FF)));
	return 4;
}

NTSTATUS smb2_utf8_to_utf16(TALLOC_CTX *mem_ctx, const char *s, size_t slen,
			    uint8_t **out, size_t *out_len)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t i = 0;
	size_t total = 0;
	uint32_t cp = 0;
	uint8_t *q = NULL;

	while (i < slen) {
		if (!utf8_next(u, slen, &i, &cp)) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		total += cp < 0x10000 ? 2 : 4;
	}
	/* never a zero-size talloc: a NULL result must mean ENOMEM */
	q = talloc_array(mem_ctx, uint8_t, total > 0 ? total : 1);
	if (q == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0, total = 0; i < slen;) {
		(void)utf8_next(u, slen, &i, &cp);
		total += utf16_put(q + total, cp);
	}
	*out = q;
	*out_len = total;
	return NT_STATUS_OK;
}
