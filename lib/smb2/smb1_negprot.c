/*
 * Multi-protocol negotiate (MS-SMB2 3.3.5.3.1): an old client opens with
 * an SMB1 NEGOTIATE (MS-CIFS 2.2.4.52.1) listing dialect strings; if it
 * offers "SMB 2.???" or "SMB 2.002" the server answers in SMB2.
 */
#include <string.h>
#include "lib/smb2/smb2_private.h"

#define SMB1_HDR_SIZE		32
#define SMB1_OFS_COMMAND	4
#define SMB1_COM_NEGOTIATE	0x72
#define SMB1_DIALECT_FORMAT	0x02

/* Bytes of the NEGOTIATE request: after WordCount, Words and ByteCount. */
static bool smb1_negprot_bytes(const uint8_t *buf, size_t len,
			       struct smb2_cur *bytes)
{
	struct smb2_cur c = smb2_cur_init(buf, len);
	const uint8_t *hdr = smb2_cur_bytes(&c, SMB1_HDR_SIZE);
	uint8_t wct = 0;
	uint16_t bcc = 0;
	const uint8_t *p = NULL;

	if (hdr == NULL || pull_le32(hdr) != SMB1_PROTOCOL_ID ||
	    hdr[SMB1_OFS_COMMAND] != SMB1_COM_NEGOTIATE) {
		return false;
	}
	wct = smb2_cur_u8(&c);
	smb2_cur_skip(&c, 2 * (size_t)wct);
	bcc = smb2_cur_u16(&c);
	p = smb2_cur_bytes(&c, bcc);
	if (c.bad) {
		return false;
	}
	*bytes = smb2_cur_init(p, bcc);
	return true;
}

/* Next dialect string (without its NUL); false at the end or if bad. */
static bool smb1_next_dialect(struct smb2_cur *c, const char **s, size_t *n)
{
	const uint8_t *start = NULL;
	const uint8_t *nul = NULL;
	size_t left = 0;

	if (smb2_cur_left(c) == 0 || smb2_cur_u8(c) != SMB1_DIALECT_FORMAT) {
		return false;
	}
	left = smb2_cur_left(c);
	if (left == 0) {
		return false;
	}
	start = c->p + c->ofs;
	nul = memchr(start, 0, left);
	if (nul == NULL) {
		return false;
	}
	*s = (const char *)start;
	*n = (size_t)(nul - start);
	smb2_cur_skip(c, *n + 1);
	return true;
}

static bool dialect_is(const char *s, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(s, want, n) == 0;
}

bool smb1_negprot_wants_smb2(const uint8_t *buf, size_t len,
			     uint16_t *dialect_out)
{
	struct smb2_cur c;
	const char *s = NULL;
	size_t n = 0;
	uint16_t found = 0;

	if (!smb1_negprot_bytes(buf, len, &c)) {
		return false;
	}
	while (smb1_next_dialect(&c, &s, &n)) {
		if (dialect_is(s, n, "SMB 2.???")) {
			found = SMB2_DIALECT_WILDCARD;
		} else if (dialect_is(s, n, "SMB 2.002") && found == 0) {
			found = SMB2_DIALECT_0202;
		}
	}
	if (found == 0) {
		return false;
	}
	*dialect_out = found;
	return true;
}
