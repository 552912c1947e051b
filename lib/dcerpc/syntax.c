/*
 * Syntax identifiers: UUIDs in their NDR layout (C706 appendix A) and
 * the well-known ones a server needs.  Sources: NDR20 MS-RPCE 2.2.4.12;
 * NDR64 MS-RPCE 2.2.4.13 (not re-checked, docs/dcerpc.md); srvsvc
 * MS-SRVS 1.9 / 2.1 (v3.0); wkssvc MS-WKST 1.9 (v1.0).
 */
#include <string.h>
#include "lib/dcerpc/dcerpc_private.h"

/* 8a885d04-1ceb-11c9-9fe8-08002b104860 v2.0 */
const struct dcerpc_syntax dcerpc_syntax_ndr20 = {
	.uuid = { 0x8a885d04, 0x1ceb, 0x11c9, { 0x9f, 0xe8 },
		  { 0x08, 0x00, 0x2b, 0x10, 0x48, 0x60 } },
	.major = 2, .minor = 0,
};

/* 71710533-beba-4937-8319-b5dbef9ccc36 v1.0 */
const struct dcerpc_syntax dcerpc_syntax_ndr64 = {
	.uuid = { 0x71710533, 0xbeba, 0x4937, { 0x83, 0x19 },
		  { 0xb5, 0xdb, 0xef, 0x9c, 0xcc, 0x36 } },
	.major = 1, .minor = 0,
};

/* 4b324fc8-1670-01d3-1278-5a47bf6ee188 v3.0 */
const struct dcerpc_syntax dcerpc_syntax_srvsvc = {
	.uuid = { 0x4b324fc8, 0x1670, 0x01d3, { 0x12, 0x78 },
		  { 0x5a, 0x47, 0xbf, 0x6e, 0xe1, 0x88 } },
	.major = 3, .minor = 0,
};

/* 6bffd098-a112-3610-9833-46c3f87e345a v1.0 */
const struct dcerpc_syntax dcerpc_syntax_wkssvc = {
	.uuid = { 0x6bffd098, 0xa112, 0x3610, { 0x98, 0x33 },
		  { 0x46, 0xc3, 0xf8, 0x7e, 0x34, 0x5a } },
	.major = 1, .minor = 0,
};

bool dcerpc_uuid_equal(const struct dcerpc_uuid *a,
		       const struct dcerpc_uuid *b)
{
	return a->time_low == b->time_low && a->time_mid == b->time_mid &&
	       a->time_hi_and_version == b->time_hi_and_version &&
	       memcmp(a->clock_seq, b->clock_seq, sizeof(a->clock_seq)) == 0 &&
	       memcmp(a->node, b->node, sizeof(a->node)) == 0;
}

bool dcerpc_syntax_equal(const struct dcerpc_syntax *a,
			 const struct dcerpc_syntax *b)
{
	return dcerpc_uuid_equal(&a->uuid, &b->uuid) &&
	       a->major == b->major && a->minor == b->minor;
}

void dcerpc_cur_uuid(struct smb2_cur *c, struct dcerpc_uuid *out)
{
	out->time_low = smb2_cur_u32(c);
	out->time_mid = smb2_cur_u16(c);
	out->time_hi_and_version = smb2_cur_u16(c);
	smb2_cur_copy(c, out->clock_seq, sizeof(out->clock_seq));
	smb2_cur_copy(c, out->node, sizeof(out->node));
}

void dcerpc_cur_syntax(struct smb2_cur *c, struct dcerpc_syntax *out)
{
	dcerpc_cur_uuid(c, &out->uuid);
	out->major = smb2_cur_u16(c);
	out->minor = smb2_cur_u16(c);
}

void dcerpc_wr_uuid(struct smb2_wr *w, const struct dcerpc_uuid *u)
{
	smb2_wr_u32(w, u->time_low);
	smb2_wr_u16(w, u->time_mid);
	smb2_wr_u16(w, u->time_hi_and_version);
	smb2_wr_bytes(w, u->clock_seq, sizeof(u->clock_seq));
	smb2_wr_bytes(w, u->node, sizeof(u->node));
}

void dcerpc_wr_syntax(struct smb2_wr *w, const struct dcerpc_syntax *s)
{
	dcerpc_wr_uuid(w, &s->uuid);
	smb2_wr_u16(w, s->major);
	smb2_wr_u16(w, s->minor);
}
