/*
 * Extended attribute lists (MS-FSCC 2.4.15 FILE_FULL_EA_INFORMATION,
 * 2.4.15.1 FILE_GET_EA_INFORMATION).  Lists are chains of entries, each
 * starting with a NextEntryOffset from its own start; entries are
 * 4-byte aligned and the last has NextEntryOffset 0.
 */
#include <string.h>
#include "lib/smb2/eainfo.h"
#include "lib/smb2/cursor.h"
#include "lib/util/byteorder.h"

#define EA_ALIGN	4

/*
 * The extent of the entry at ofs: up to its successor, or to the end of
 * the buffer for the last one.  NextEntryOffset must be aligned and
 * keep the next entry's fixed part inside the buffer.
 */
static NTSTATUS ea_extent(const uint8_t *buf, size_t len, size_t ofs,
			  size_t fixed, size_t *extent, uint32_t *next)
{
	size_t left = len - ofs;

	if (left < fixed) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*next = pull_le32(buf + ofs);
	if (*next == 0) {
		*extent = left;
		return NT_STATUS_OK;
	}
	if (*next % EA_ALIGN != 0 || *next > left || left - *next < fixed) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*extent = *next;
	return NT_STATUS_OK;
}

/* One FILE_FULL_EA_INFORMATION entry inside [p, p + extent). */
static NTSTATUS ea_full_entry(const uint8_t *p, size_t extent,
			      struct smb2_ea *ea)
{
	struct smb2_cur c = smb2_cur_init(p, extent);
	size_t nlen = 0, vlen = 0;

	smb2_cur_skip(&c, 4);			/* NextEntryOffset */
	ea->flags = smb2_cur_u8(&c);
	nlen = smb2_cur_u8(&c);
	vlen = smb2_cur_u16(&c);
	if (c.bad || smb2_cur_left(&c) < nlen + 1 ||
	    smb2_cur_left(&c) - nlen - 1 < vlen) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	ea->name = (const char *)smb2_cur_bytes(&c, nlen);
	ea->name_len = nlen;
	if (smb2_cur_u8(&c) != 0) {
		return NT_STATUS_INVALID_PARAMETER;	/* no NUL after it */
	}
	ea->value = vlen > 0 ? smb2_cur_bytes(&c, vlen) : NULL;
	ea->value_len = vlen;
	return NT_STATUS_OK;
}

/* One FILE_GET_EA_INFORMATION entry. */
static NTSTATUS ea_get_entry(const uint8_t *p, size_t extent,
			     struct smb2_ea *ea)
{
	struct smb2_cur c = smb2_cur_init(p, extent);
	size_t nlen = 0;

	smb2_cur_skip(&c, 4);
	nlen = smb2_cur_u8(&c);
	if (c.bad || smb2_cur_left(&c) < nlen + 1) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*ea = (struct smb2_ea) {
		.name = (const char *)smb2_cur_bytes(&c, nlen),
		.name_len = nlen,
	};
	return smb2_cur_u8(&c) == 0 ? NT_STATUS_OK :
		NT_STATUS_INVALID_PARAMETER;
}

typedef NTSTATUS (*ea_entry_fn)(const uint8_t *p, size_t extent,
				struct smb2_ea *ea);

/*
 * Walks a list twice: once to check it and count, once to fill the
 * array.  Entries are at least `fixed` bytes and offsets only grow, so
 * the walk ends after at most len / fixed entries.
 */
static NTSTATUS ea_walk(const uint8_t *buf, size_t len, size_t fixed,
			ea_entry_fn fn, struct smb2_ea *out, size_t *count)
{
	size_t ofs = 0, n = 0, extent = 0;
	uint32_t next = 0;
	struct smb2_ea ea;
	NTSTATUS status;

	if (len == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	do {
		status = ea_extent(buf, len, ofs, fixed, &extent, &next);
		if (NT_STATUS_IS_OK(status)) {
			status = fn(buf + ofs, extent, &ea);
		}
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		if (out != NULL) {
			out[n] = ea;
		}
		n++;
		ofs += next;
	} while (next != 0);
	*count = n;
	return NT_STATUS_OK;
}

static NTSTATUS ea_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
			size_t fixed, ea_entry_fn fn, struct smb2_ea **eas,
			size_t *count)
{
	size_t n = 0;
	NTSTATUS status = ea_walk(buf, len, fixed, fn, NULL, &n);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*eas = talloc_zero_array(mem_ctx, struct smb2_ea, n);
	if (*eas == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*count = n;
	return ea_walk(buf, len, fixed, fn, *eas, &n);
}

NTSTATUS smb2_ea_list_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			   size_t len, struct smb2_ea **eas, size_t *count)
{
	return ea_pull(mem_ctx, buf, len, SMB2_EA_FIXED, ea_full_entry, eas,
		       count);
}

NTSTATUS smb2_ea_names_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			    size_t len, struct smb2_ea **names,
			    size_t *count)
{
	return ea_pull(mem_ctx, buf, len, SMB2_GET_EA_FIXED, ea_get_entry,
		       names, count);
}

bool smb2_ea_name_valid(const char *name, size_t len)
{
	static const char bad[] = "\"*+,/:;<=>?[\\]|";
	size_t i;

	if (len == 0 || len > 255) {
		return false;
	}
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (ch < 0x20 || ch == 0x7F ||
		    memchr(bad, ch, sizeof(bad) - 1) != NULL) {
			return false;
		}
	}
	return true;
}

size_t smb2_ea_entry_size(const struct smb2_ea *ea)
{
	return SMB2_EA_FIXED + ea->name_len + 1 + ea->value_len;
}

static size_t ea_align(size_t n)
{
	return (n + EA_ALIGN - 1) & ~(size_t)(EA_ALIGN - 1);
}

size_t smb2_ea_list_size(const struct smb2_ea *eas, size_t count)
{
	size_t total = 0;
	size_t i;

	for (i = 0; i < count; i++) {
		total = ea_align(total) + smb2_ea_entry_size(&eas[i]);
	}
	return total;
}

static void ea_put(uint8_t *p, const struct smb2_ea *ea)
{
	p[4] = ea->flags;
	p[5] = (uint8_t)ea->name_len;
	push_le16(p + 6, (uint16_t)ea->value_len);
	memcpy(p + SMB2_EA_FIXED, ea->name, ea->name_len);
	p[SMB2_EA_FIXED + ea->name_len] = 0;
	if (ea->value_len > 0) {
		memcpy(p + SMB2_EA_FIXED + ea->name_len + 1, ea->value,
		       ea->value_len);
	}
}

/* How many whole entries fit, and the bytes they take. */
static size_t ea_fit(const struct smb2_ea *eas, size_t count,
		     size_t max_len, bool single, size_t *used)
{
	size_t n = 0, end = 0;

	while (n < count && (!single || n == 0)) {
		size_t start = n == 0 ? 0 : ea_align(end);

		if (start > max_len ||
		    smb2_ea_entry_size(&eas[n]) > max_len - start) {
			break;
		}
		end = start + smb2_ea_entry_size(&eas[n]);
		n++;
	}
	*used = end;
	return n;
}

NTSTATUS smb2_ea_list_push(TALLOC_CTX *mem_ctx, const struct smb2_ea *eas,
			   size_t count, size_t max_len, bool single,
			   uint8_t **out, size_t *out_len, size_t *pushed)
{
	size_t used = 0, ofs = 0, i;
	size_t n = ea_fit(eas, count, max_len, single, &used);
	uint8_t *p = talloc_zero_size(mem_ctx, used + 1);

	if (p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n; i++) {
		size_t next = ea_align(smb2_ea_entry_size(&eas[i]));

		ea_put(p + ofs, &eas[i]);
		if (i + 1 < n) {
			push_le32(p + ofs, (uint32_t)next);
		}
		ofs += next;
	}
	*out = p;
	*out_len = used;
	*pushed = n;
	return NT_STATUS_OK;
}
