/*
 * FILE_NOTIFY_INFORMATION (MS-FSCC 2.7.1), the entries of a CHANGE_NOTIFY
 * response's output buffer (MS-SMB2 2.2.36): NextEntryOffset(4)
 * Action(4) FileNameLength(4), then the UTF-16LE name.  Each entry but
 * the last is padded to 4 bytes and points at the next one; the last has
 * NextEntryOffset 0 and no padding, as Windows and Samba send it.
 */
#include <string.h>
#include "lib/smb2/smb2_private.h"

/* The bytes an entry takes: padded to 4 unless it is the last. */
static size_t notify_span(size_t name_len, bool last)
{
	size_t entry = SMB2_NOTIFY_INFO_HDR_SIZE + name_len;

	return last ? entry : (entry + 3) & ~(size_t)3;
}

size_t smb2_notify_info_list_add(size_t list_len, size_t name_len)
{
	size_t padded = (list_len + 3) & ~(size_t)3;

	/* saturate: a caller compares the result against a limit */
	if (list_len > SIZE_MAX - 3 || name_len > SIZE_MAX - padded ||
	    SMB2_NOTIFY_INFO_HDR_SIZE > SIZE_MAX - padded - name_len) {
		return SIZE_MAX;
	}
	return padded + SMB2_NOTIFY_INFO_HDR_SIZE + name_len;
}

size_t smb2_notify_info_push(const struct smb2_notify_info *in, bool last,
			     uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);
	size_t span = 0;

	if (in->name_len > UINT32_MAX - 3 - SMB2_NOTIFY_INFO_HDR_SIZE) {
		return 0;
	}
	span = notify_span(in->name_len, last);
	if (span > len) {
		return 0;
	}
	smb2_wr_u32(&w, last ? 0 : (uint32_t)span);	/* NextEntryOffset */
	smb2_wr_u32(&w, in->action);
	smb2_wr_u32(&w, (uint32_t)in->name_len);
	smb2_wr_bytes(&w, in->name, in->name_len);
	smb2_wr_zero(&w, span - w.ofs);
	return w.overflow ? 0 : w.ofs;
}

NTSTATUS smb2_notify_info_pull(const uint8_t *buf, size_t len, size_t *ofs,
			       struct smb2_notify_info *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);
	uint32_t next = 0;

	*out = (struct smb2_notify_info){};
	smb2_cur_seek(&c, *ofs);
	next = smb2_cur_u32(&c);
	out->action = smb2_cur_u32(&c);
	out->name_len = smb2_cur_u32(&c);
	out->name = smb2_cur_bytes(&c, out->name_len);
	if (c.bad || (out->name_len & 1) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (next == 0) {
		*ofs = len;	/* the last entry: the walk is over */
		return NT_STATUS_OK;
	}
	/* 4-aligned, past this entry's name, and a next entry to read */
	if ((next & 3) != 0 ||
	    next < SMB2_NOTIFY_INFO_HDR_SIZE + out->name_len ||
	    next >= len - *ofs) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*ofs += next;
	return NT_STATUS_OK;
}
