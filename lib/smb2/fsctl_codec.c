/*
 * FSCTL payloads (MS-SMB2 2.2.31.1, 2.2.31.4, 2.2.32.1-2.2.32.6;
 * MS-FSCC 2.3).  Every structure has its own pull with its own length
 * check; pushes write into a caller-sized buffer and return 0 when
 * it is too small.
 */
#include <string.h>
#include "lib/smb2/cursor.h"
#include "lib/smb2/fsctl.h"

NTSTATUS smb2_validate_negotiate_req_pull(
	const uint8_t *buf, size_t len,
	struct smb2_validate_negotiate_req *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);

	out->capabilities = smb2_cur_u32(&c);
	smb2_cur_copy(&c, out->guid, sizeof(out->guid));
	out->security_mode = smb2_cur_u16(&c);
	out->dialect_count = smb2_cur_u16(&c);
	/* a 16-bit count times 2 cannot wrap */
	out->dialects = smb2_cur_bytes(&c, 2 * (size_t)out->dialect_count);
	if (c.bad || out->dialect_count == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

uint16_t smb2_validate_negotiate_dialect(
	const struct smb2_validate_negotiate_req *r, size_t i)
{
	return pull_le16(r->dialects + 2 * i);
}

size_t smb2_validate_negotiate_req_push(
	const struct smb2_validate_negotiate_req *in, uint8_t *buf,
	size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u32(&w, in->capabilities);
	smb2_wr_bytes(&w, in->guid, sizeof(in->guid));
	smb2_wr_u16(&w, in->security_mode);
	smb2_wr_u16(&w, in->dialect_count);
	smb2_wr_bytes(&w, in->dialects, 2 * (size_t)in->dialect_count);
	return w.overflow ? 0 : w.ofs;
}

size_t smb2_validate_negotiate_rsp_push(
	const struct smb2_validate_negotiate_rsp *in, uint8_t *buf,
	size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u32(&w, in->capabilities);
	smb2_wr_bytes(&w, in->guid, sizeof(in->guid));
	smb2_wr_u16(&w, in->security_mode);
	smb2_wr_u16(&w, in->dialect);
	return w.overflow ? 0 : w.ofs;
}

NTSTATUS smb2_validate_negotiate_rsp_pull(
	const uint8_t *buf, size_t len,
	struct smb2_validate_negotiate_rsp *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);

	out->capabilities = smb2_cur_u32(&c);
	smb2_cur_copy(&c, out->guid, sizeof(out->guid));
	out->security_mode = smb2_cur_u16(&c);
	out->dialect = smb2_cur_u16(&c);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

NTSTATUS smb2_copychunk_copy_pull(const uint8_t *buf, size_t len,
				  struct smb2_copychunk_copy *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);

	out->source_key = smb2_cur_bytes(&c, SMB2_RESUME_KEY_LEN);
	out->chunk_count = smb2_cur_u32(&c);
	smb2_cur_skip(&c, 4);			/* Reserved */
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* divide, never multiply a client's count */
	if (out->chunk_count > smb2_cur_left(&c) / SMB2_COPYCHUNK_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->chunks = smb2_cur_left(&c) == 0 ? NULL : buf + c.ofs;
	return NT_STATUS_OK;
}

void smb2_copychunk_get(const struct smb2_copychunk_copy *cc, uint32_t i,
			struct smb2_copychunk *out)
{
	const uint8_t *p = cc->chunks + (size_t)i * SMB2_COPYCHUNK_SIZE;

	out->source_offset = pull_le64(p);
	out->target_offset = pull_le64(p + 8);
	out->length = pull_le32(p + 16);	/* then 4 bytes Reserved */
}

size_t smb2_copychunk_copy_push(const uint8_t *key,
				const struct smb2_copychunk *chunks,
				uint32_t count, uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);
	uint32_t i;

	smb2_wr_bytes(&w, key, SMB2_RESUME_KEY_LEN);
	smb2_wr_u32(&w, count);
	smb2_wr_u32(&w, 0);
	for (i = 0; i < count && !w.overflow; i++) {
		smb2_wr_u64(&w, chunks[i].source_offset);
		smb2_wr_u64(&w, chunks[i].target_offset);
		smb2_wr_u32(&w, chunks[i].length);
		smb2_wr_u32(&w, 0);
	}
	return w.overflow ? 0 : w.ofs;
}

size_t smb2_copychunk_rsp_push(const struct smb2_copychunk_rsp *in,
			       uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u32(&w, in->chunks_written);
	smb2_wr_u32(&w, in->chunk_bytes_written);
	smb2_wr_u32(&w, in->total_bytes_written);
	return w.overflow ? 0 : w.ofs;
}

NTSTATUS smb2_copychunk_rsp_pull(const uint8_t *buf, size_t len,
				 struct smb2_copychunk_rsp *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);

	out->chunks_written = smb2_cur_u32(&c);
	out->chunk_bytes_written = smb2_cur_u32(&c);
	out->total_bytes_written = smb2_cur_u32(&c);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

size_t smb2_resume_key_rsp_push(const uint8_t *key, uint8_t *buf,
				size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_bytes(&w, key, SMB2_RESUME_KEY_LEN);
	smb2_wr_u32(&w, 0);			/* ContextLength */
	smb2_wr_zero(&w, 4);			/* Context (as Samba) */
	return w.overflow ? 0 : w.ofs;
}

void smb2_resume_key_push(uint64_t persistent, uint64_t volatile_id,
			  uint8_t key[SMB2_RESUME_KEY_LEN])
{
	struct smb2_wr w = smb2_wr_init(key, SMB2_RESUME_KEY_LEN);

	smb2_wr_u64(&w, persistent);
	smb2_wr_u64(&w, volatile_id);
	smb2_wr_zero(&w, SMB2_RESUME_KEY_LEN - 16);
}

void smb2_resume_key_pull(const uint8_t key[SMB2_RESUME_KEY_LEN],
			  uint64_t *persistent, uint64_t *volatile_id)
{
	struct smb2_cur c = smb2_cur_init(key, SMB2_RESUME_KEY_LEN);

	*persistent = smb2_cur_u64(&c);
	*volatile_id = smb2_cur_u64(&c);
}

/* MS-FSA 2.1.5.9.38: no buffer is SetSparse = TRUE; a BOOLEAN otherwise */
NTSTATUS smb2_set_sparse_pull(const uint8_t *buf, size_t len, bool *sparse)
{
	*sparse = len == 0 || buf[0] != 0;
	return NT_STATUS_OK;
}

NTSTATUS smb2_zero_data_pull(const uint8_t *buf, size_t len,
			     struct smb2_zero_data *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);

	out->file_offset = smb2_cur_u64(&c);
	out->beyond_final_zero = smb2_cur_u64(&c);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

NTSTATUS smb2_alloc_range_pull(const uint8_t *buf, size_t len,
			       struct smb2_alloc_range *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);

	out->file_offset = smb2_cur_u64(&c);
	out->length = smb2_cur_u64(&c);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

size_t smb2_alloc_range_push(const struct smb2_alloc_range *in,
			     uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u64(&w, in->file_offset);
	smb2_wr_u64(&w, in->length);
	return w.overflow ? 0 : w.ofs;
}

NTSTATUS smb2_compression_pull(const uint8_t *buf, size_t len,
			       uint16_t *format)
{
	struct smb2_cur c = smb2_cur_init(buf, len);

	*format = smb2_cur_u16(&c);
	return c.bad ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

size_t smb2_compression_push(uint16_t format, uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_u16(&w, format);
	return w.overflow ? 0 : w.ofs;
}

size_t smb2_object_id_push(const struct smb2_object_id *in, uint8_t *buf,
			   size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);

	smb2_wr_bytes(&w, in->object_id, 16);
	smb2_wr_bytes(&w, in->birth_volume_id, 16);
	smb2_wr_bytes(&w, in->birth_object_id, 16);
	smb2_wr_bytes(&w, in->domain_id, 16);
	return w.overflow ? 0 : w.ofs;
}

/* SOCKADDR_STORAGE (MS-SMB2 2.2.32.5.1): Family + 126 bytes */
static bool sockaddr_push(struct smb2_wr *w, const struct smb2_net_iface *in)
{
	size_t start = w->ofs;

	smb2_wr_u16(w, in->family);
	if (in->family == SMB2_SOCKADDR_INET) {
		/* SOCKADDR_IN: Port, IPv4Address (both network order) */
		smb2_wr_u16(w, (uint16_t)((in->port >> 8) | (in->port << 8)));
		smb2_wr_bytes(w, in->addr, 4);
	} else if (in->family == SMB2_SOCKADDR_INET6) {
		smb2_wr_u16(w, (uint16_t)((in->port >> 8) | (in->port << 8)));
		smb2_wr_u32(w, in->flow_info);
		smb2_wr_bytes(w, in->addr, 16);
		smb2_wr_u32(w, in->scope_id);
	} else {
		return false;
	}
	smb2_wr_zero(w, 128 - (w->ofs - start));
	return true;
}

size_t smb2_net_iface_push(const struct smb2_net_iface *ifs, size_t n,
			   uint8_t *buf, size_t len)
{
	struct smb2_wr w = smb2_wr_init(buf, len);
	size_t i;

	if (n == 0 || n > len / SMB2_NET_IFACE_SIZE) {
		return 0;
	}
	for (i = 0; i < n; i++) {
		smb2_wr_u32(&w, i + 1 < n ? SMB2_NET_IFACE_SIZE : 0);
		smb2_wr_u32(&w, ifs[i].if_index);
		smb2_wr_u32(&w, ifs[i].capability);
		smb2_wr_u32(&w, 0);		/* Reserved */
		smb2_wr_u64(&w, ifs[i].link_speed);
		if (!sockaddr_push(&w, &ifs[i])) {
			return 0;
		}
	}
	return w.overflow ? 0 : w.ofs;
}

static void sockaddr_pull(struct smb2_cur *c, struct smb2_net_iface *out)
{
	size_t start = c->ofs;
	uint16_t port = 0;

	out->family = smb2_cur_u16(c);
	port = smb2_cur_u16(c);
	out->port = (uint16_t)((port >> 8) | (port << 8));
	if (out->family == SMB2_SOCKADDR_INET) {
		smb2_cur_copy(c, out->addr, 4);
	} else if (out->family == SMB2_SOCKADDR_INET6) {
		out->flow_info = smb2_cur_u32(c);
		smb2_cur_copy(c, out->addr, 16);
		out->scope_id = smb2_cur_u32(c);
	} else {
		c->bad = true;
	}
	if (!c->bad) {
		smb2_cur_skip(c, 128 - (c->ofs - start));
	}
}

NTSTATUS smb2_net_iface_pull(const uint8_t *buf, size_t len, size_t *ofs,
			     struct smb2_net_iface *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);
	uint32_t next = 0;

	memset(out, 0, sizeof(*out));
	smb2_cur_seek(&c, *ofs);
	next = smb2_cur_u32(&c);
	out->if_index = smb2_cur_u32(&c);
	out->capability = smb2_cur_u32(&c);
	smb2_cur_skip(&c, 4);
	out->link_speed = smb2_cur_u64(&c);
	sockaddr_pull(&c, out);
	if (c.bad) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* Next is relative; 0 ends the chain, anything else moves forward */
	if (next == 0) {
		*ofs = len;
	} else if (next < SMB2_NET_IFACE_SIZE || next > len - *ofs) {
		return NT_STATUS_INVALID_PARAMETER;
	} else {
		*ofs += next;
	}
	return NT_STATUS_OK;
}
