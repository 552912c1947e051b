/*
 * Named streams on the wire: stream-name syntax (MS-FSCC 2.1.5.3) and
 * FileStreamInformation (MS-FSCC 2.4.43).  The parser reads only inside
 * [s, s + len) and allocates nothing; tests/unit/test_smb2_streams.c and
 * tests/fuzz/fuzz_stream_name.c drive it.
 */
#include <string.h>
#include "lib/smb2/streams.h"
#include "lib/smb2/smb2.h"
#include "lib/util/byteorder.h"

#define STREAM_TYPE_DATA "$DATA"
#define STREAM_INFO_FIXED 24    /* NextEntryOffset .. StreamAllocationSize */

/* The UTF-8 sequence length a lead byte announces; 0: not a lead byte. */
static size_t utf8_seq_len(uint8_t c)
{
	if (c < 0x80) {
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		return 2;
	}
	if (c >= 0xE0 && c <= 0xEF) {
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		return 4;
	}
	return 0;
}

/*
 * The second byte of a sequence rules out overlong forms, UTF-16
 * surrogates (U+D800..DFFF) and code points past U+10FFFF (RFC 3629).
 */
static bool utf8_second_ok(uint8_t lead, uint8_t second)
{
	switch (lead) {
	case 0xE0:
		return second >= 0xA0;
	case 0xED:
		return second <= 0x9F;
	case 0xF0:
		return second >= 0x90;
	case 0xF4:
		return second <= 0x8F;
	}
	return true;
}

/*
 * Checks the name's characters and counts its UTF-16 units (a 4-byte
 * sequence is a surrogate pair).  false: a forbidden character, a
 * broken sequence, or too long.
 */
static bool stream_name_chars_ok(const uint8_t *p, size_t len)
{
	size_t units = 0;
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_seq_len(p[i]);
		size_t k;

		if (n == 0 || n > len - i) {
			return false;
		}
		if (n == 1 && (p[i] == '\0' || p[i] == '/' || p[i] == '\\' ||
			       p[i] == ':')) {
			return false;
		}
		for (k = 1; k < n; k++) {
			if ((p[i + k] & 0xC0) != 0x80) {
				return false;
			}
		}
		if (!utf8_second_ok(p[i], n > 1 ? p[i + 1] : 0)) {
			return false;
		}
		units += n == 4 ? 2 : 1;
		if (units > SMB2_STREAM_NAME_MAX_UNITS) {
			return false;
		}
		i += n;
	}
	return true;
}

static bool type_is_data(const char *t, size_t len)
{
	size_t i;

	if (len != sizeof(STREAM_TYPE_DATA) - 1) {
		return false;
	}
	for (i = 0; i < len; i++) {
		char c = t[i];

		if (c >= 'a' && c <= 'z') {
			c = (char)(c - 'a' + 'A');
		}
		if (c != STREAM_TYPE_DATA[i]) {
			return false;
		}
	}
	return true;
}

NTSTATUS smb2_stream_name_parse(const char *s, size_t len,
				struct smb2_stream_name *out)
{
	const char *colon = len > 0 ? memchr(s, ':', len) : NULL;
	size_t name_len = colon != NULL ? (size_t)(colon - s) : len;

	out->name = s;
	out->len = name_len;
	out->has_type = colon != NULL;
	if (colon != NULL &&
	    !type_is_data(colon + 1, len - name_len - 1)) {
		/* "name:", "name:$FOO", "a:b:c" */
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	if (name_len == 0 && colon == NULL) {
		return NT_STATUS_OBJECT_NAME_INVALID;   /* "x:" */
	}
	if (!stream_name_chars_ok((const uint8_t *)s, name_len)) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	return NT_STATUS_OK;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* One entry at buf (room checked by the caller); next 0 for the last. */
static void stream_entry_put(uint8_t *buf, const struct smb2_stream_entry *e,
			     const uint8_t *name16, size_t name16_len,
			     uint32_t next)
{
	push_le32(buf, next);
	push_le32(buf + 4, (uint32_t)name16_len);
	push_le64(buf + 8, e->size);
	push_le64(buf + 16, e->allocation_size);
	memcpy(buf + STREAM_INFO_FIXED, name16, name16_len);
}

/* Grows *buf to hold [0, end), zero-filled. */
static bool stream_info_grow(TALLOC_CTX *mem_ctx, uint8_t **buf,
			     size_t *have, size_t end)
{
	uint8_t *b = NULL;

	if (end <= *have) {
		return true;
	}
	b = talloc_realloc(mem_ctx, *buf, uint8_t, end);
	if (b == NULL) {
		return false;
	}
	memset(b + *have, 0, end - *have);
	*buf = b;
	*have = end;
	return true;
}

NTSTATUS smb2_stream_info_push(TALLOC_CTX *mem_ctx,
			       const struct smb2_stream_entry *e, size_t n,
			       uint32_t max_len, uint8_t **out,
			       size_t *out_len)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	uint8_t *buf = NULL;
	size_t have = 0, pos = 0, last = 0, i;
	NTSTATUS status = tmp != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;

	/* whole entries up to the first past max_len, which is cut */
	for (i = 0; NT_STATUS_IS_OK(status) && i < n && pos <= max_len; i++) {
		char *wire = talloc_asprintf(tmp, ":%s:$DATA", e[i].name);
		uint8_t *u = NULL;
		size_t ulen = 0, start = align8(pos);

		status = wire == NULL ? NT_STATUS_NO_MEMORY :
			smb2_utf8_to_utf16(tmp, wire, strlen(wire), &u, &ulen);
		if (NT_STATUS_IS_OK(status) &&
		    !stream_info_grow(mem_ctx, &buf, &have,
				      start + STREAM_INFO_FIXED + ulen)) {
			status = NT_STATUS_NO_MEMORY;
		}
		if (!NT_STATUS_IS_OK(status)) {
			break;
		}
		if (i > 0) {
			push_le32(buf + last, (uint32_t)(start - last));
		}
		stream_entry_put(buf + start, &e[i], u, ulen, 0);
		last = start;
		pos = start + STREAM_INFO_FIXED + ulen;
	}
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(buf);
		return status;
	}
	if (pos > max_len || i < n) {
		pos = pos < max_len ? pos : max_len;
		status = NT_STATUS_BUFFER_OVERFLOW;
	}
	*out = buf;
	*out_len = pos;
	return status;
}
