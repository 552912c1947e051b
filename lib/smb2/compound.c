/*
 * Compound carving (MS-SMB2 3.3.5.2.7): each element
 * is split once into header, fixed body and dynamic part; all later
 * access to the dynamic part goes through smb2_pdu_dyn().
 */
#include "lib/smb2/smb2_private.h"

/* Smallest NextCommand: a header and a StructureSize field. */
#define SMB2_MIN_NEXT_COMMAND (SMB2_HDR_SIZE + 2)

/*
 * Length of the element at buf[0..left): the whole rest for the last
 * element (NextCommand 0), else NextCommand after its checks.
 */
static NTSTATUS carve_one(const uint8_t *elem, size_t left, size_t *elem_len)
{
	uint32_t next = 0;

	if (left < SMB2_HDR_SIZE ||
	    pull_le32(elem + SMB2_HDR_OFS_PROTOCOL_ID) != SMB2_PROTOCOL_ID ||
	    pull_le16(elem + SMB2_HDR_OFS_COMMAND) >= SMB2_OP_COUNT) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	next = pull_le32(elem + SMB2_HDR_OFS_NEXT_COMMAND);
	if (next == 0) {
		*elem_len = left;
		return NT_STATUS_OK;
	}
	if (next < SMB2_MIN_NEXT_COMMAND || (next & 7) != 0 || next >= left) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*elem_len = next;
	return NT_STATUS_OK;
}

/* First pass: validate the framing and count the elements. */
static NTSTATUS carve_count(const uint8_t *buf, size_t len, size_t *count)
{
	size_t ofs = 0;
	size_t n = 0;
	size_t elen = 0;
	NTSTATUS status;

	do {
		if (n == SMB2_COMPOUND_MAX) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		status = carve_one(buf + ofs, len - ofs, &elen);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		ofs += elen;	/* elen <= len - ofs */
		n++;
	} while (ofs < len);
	*count = n;
	return NT_STATUS_OK;
}

NTSTATUS smb2_compound_carve(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			     size_t len, struct smb2_pdu **pdus,
			     size_t *count)
{
	struct smb2_pdu *a = NULL;
	size_t n = 0;
	size_t i = 0;
	size_t ofs = 0;
	NTSTATUS status = carve_count(buf, len, &n);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	a = talloc_zero_array(mem_ctx, struct smb2_pdu, n);
	if (a == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n; i++) {
		(void)carve_one(buf + ofs, len - ofs, &a[i].len);
		a[i].buf = buf + ofs;
		smb2_hdr_parse(a[i].buf, &a[i].hdr);
		(void)smb2_pdu_check(&a[i]);
		ofs += a[i].len;
	}
	*pdus = a;
	*count = n;
	return NT_STATUS_OK;
}

static bool body_size_ok(uint16_t command, uint16_t ssize)
{
	if (command == SMB2_OP_OPLOCK_BREAK) {
		return ssize == SMB2_OPLOCK_BREAK_SIZE ||
		       ssize == SMB2_LEASE_BREAK_ACK_SIZE;
	}
	return ssize != 0 && ssize == smb2_req_struct_size(command);
}

static NTSTATUS pdu_check(struct smb2_pdu *pdu)
{
	size_t body_left = 0;
	uint16_t ssize = 0;
	size_t fixed = 0;

	if (pdu->len < SMB2_HDR_SIZE ||
	    pull_le16(pdu->buf + SMB2_HDR_OFS_STRUCTURE_SIZE) !=
		    SMB2_HDR_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	body_left = pdu->len - SMB2_HDR_SIZE;
	if (body_left < 2) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	ssize = pull_le16(pdu->buf + SMB2_HDR_SIZE);
	if (!body_size_ok(pdu->hdr.command, ssize)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	fixed = ssize & ~1u;
	if (fixed > body_left) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	pdu->body = pdu->buf + SMB2_HDR_SIZE;
	pdu->body_len = fixed;
	pdu->dyn_ofs = SMB2_HDR_SIZE + fixed;
	pdu->dyn_len = body_left - fixed;
	return NT_STATUS_OK;
}

NTSTATUS smb2_pdu_check(struct smb2_pdu *pdu)
{
	pdu->body = NULL;
	pdu->body_len = 0;
	pdu->dyn_ofs = pdu->len;
	pdu->dyn_len = 0;
	pdu->status = pdu_check(pdu);
	return pdu->status;
}

NTSTATUS smb2_pdu_dyn(const struct smb2_pdu *pdu, uint32_t ofs,
		      uint32_t len, const uint8_t **out)
{
	size_t rel = 0;

	*out = NULL;
	if (len == 0) {
		return NT_STATUS_OK;
	}
	if (ofs < pdu->dyn_ofs) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	rel = ofs - pdu->dyn_ofs;
	if (rel > pdu->dyn_len || len > pdu->dyn_len - rel) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*out = pdu->buf + ofs;
	return NT_STATUS_OK;
}

NTSTATUS smb2_pdu_blob(const struct smb2_pdu *pdu, uint32_t ofs,
		       uint32_t len, struct smb2_blob *out)
{
	NTSTATUS status = smb2_pdu_dyn(pdu, ofs, len, &out->data);

	out->len = NT_STATUS_IS_OK(status) ? len : 0;
	return status;
}

struct smb2_cur smb2_body_cur(const struct smb2_pdu *pdu, uint16_t command)
{
	struct smb2_cur c = smb2_cur_init(pdu->body, pdu->body_len);

	if (!NT_STATUS_IS_OK(pdu->status) || pdu->body == NULL ||
	    pdu->hdr.command != command) {
		c.bad = true;
		return c;
	}
	smb2_cur_skip(&c, 2);	/* StructureSize, checked by the carver */
	return c;
}

NTSTATUS smb2_pdu_dyn_tail(const struct smb2_pdu *pdu, uint32_t ofs,
			   const uint8_t **p, size_t *len)
{
	size_t rel = 0;

	*p = NULL;
	*len = 0;
	if (ofs < pdu->dyn_ofs || pdu->body == NULL) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	rel = ofs - pdu->dyn_ofs;
	if (rel > pdu->dyn_len) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*p = pdu->buf + ofs;
	*len = pdu->dyn_len - rel;
	return NT_STATUS_OK;
}
