/*
 * Checked reader and writer over a byte buffer, with a sticky error:
 * field reads stay flat and the caller checks once.
 *
 *	struct smb2_cur c = smb2_cur_init(body, body_len);
 *	out->flags  = smb2_cur_u8(&c);
 *	out->length = smb2_cur_u32(&c);	(returns 0 once c.bad is set)
 *	if (c.bad)
 *		return NT_STATUS_INVALID_PARAMETER;
 *
 * Every bound is checked by subtracting from the remaining length, never
 * by adding to an offset, so no input can wrap a size_t.
 */
#ifndef RINGSMB_SMB2_CURSOR_H
#define RINGSMB_SMB2_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "lib/util/byteorder.h"

struct smb2_cur {
	const uint8_t *p;
	size_t len;
	size_t ofs;
	bool bad;
};

static inline struct smb2_cur smb2_cur_init(const uint8_t *p, size_t len)
{
	return (struct smb2_cur){ .p = p, .len = len, .ofs = 0, .bad = false };
}

static inline size_t smb2_cur_left(const struct smb2_cur *c)
{
	return c->bad ? 0 : c->len - c->ofs;
}

/* n bytes at the cursor, advancing past them; NULL (and bad) if short. */
static inline const uint8_t *smb2_cur_bytes(struct smb2_cur *c, size_t n)
{
	const uint8_t *r = NULL;

	if (c->bad || n > c->len - c->ofs) {
		c->bad = true;
		return NULL;
	}
	/* p may be NULL for an empty buffer: no arithmetic on NULL */
	r = c->p == NULL ? NULL : c->p + c->ofs;
	c->ofs += n;
	return r;
}

static inline void smb2_cur_skip(struct smb2_cur *c, size_t n)
{
	(void)smb2_cur_bytes(c, n);
}

/* Absolute position; ofs == len is allowed (nothing left to read). */
static inline void smb2_cur_seek(struct smb2_cur *c, size_t ofs)
{
	if (c->bad || ofs > c->len) {
		c->bad = true;
		return;
	}
	c->ofs = ofs;
}

static inline uint8_t smb2_cur_u8(struct smb2_cur *c)
{
	const uint8_t *p = smb2_cur_bytes(c, 1);

	return p == NULL ? 0 : p[0];
}

static inline uint16_t smb2_cur_u16(struct smb2_cur *c)
{
	const uint8_t *p = smb2_cur_bytes(c, 2);

	return p == NULL ? 0 : pull_le16(p);
}

static inline uint32_t smb2_cur_u32(struct smb2_cur *c)
{
	const uint8_t *p = smb2_cur_bytes(c, 4);

	return p == NULL ? 0 : pull_le32(p);
}

static inline uint64_t smb2_cur_u64(struct smb2_cur *c)
{
	const uint8_t *p = smb2_cur_bytes(c, 8);

	return p == NULL ? 0 : pull_le64(p);
}

/* Copies n bytes out; zero-fills dst when short. */
static inline void smb2_cur_copy(struct smb2_cur *c, void *dst, size_t n)
{
	const uint8_t *p = smb2_cur_bytes(c, n);

	if (p == NULL) {
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, p, n);
}

/*
 * Writer: fills a caller-sized buffer; an overflow is sticky and nothing
 * is written past len.  Response pushes size the buffer first, so an
 * overflow there is a bug, checked once at the end.
 */
struct smb2_wr {
	uint8_t *p;
	size_t len;
	size_t ofs;
	bool overflow;
};

static inline struct smb2_wr smb2_wr_init(uint8_t *p, size_t len)
{
	return (struct smb2_wr){ .p = p, .len = len, .ofs = 0,
				 .overflow = false };
}

/* Room for n bytes at the writer, advancing past them; NULL if none. */
static inline uint8_t *smb2_wr_space(struct smb2_wr *w, size_t n)
{
	uint8_t *r = NULL;

	if (w->overflow || n > w->len - w->ofs) {
		w->overflow = true;
		return NULL;
	}
	r = w->p == NULL ? NULL : w->p + w->ofs;
	w->ofs += n;
	return r;
}

static inline void smb2_wr_u8(struct smb2_wr *w, uint8_t v)
{
	uint8_t *p = smb2_wr_space(w, 1);

	if (p != NULL) {
		p[0] = v;
	}
}

static inline void smb2_wr_u16(struct smb2_wr *w, uint16_t v)
{
	uint8_t *p = smb2_wr_space(w, 2);

	if (p != NULL) {
		push_le16(p, v);
	}
}

static inline void smb2_wr_u32(struct smb2_wr *w, uint32_t v)
{
	uint8_t *p = smb2_wr_space(w, 4);

	if (p != NULL) {
		push_le32(p, v);
	}
}

static inline void smb2_wr_u64(struct smb2_wr *w, uint64_t v)
{
	uint8_t *p = smb2_wr_space(w, 8);

	if (p != NULL) {
		push_le64(p, v);
	}
}

static inline void smb2_wr_bytes(struct smb2_wr *w, const void *src,
				 size_t n)
{
	uint8_t *p = smb2_wr_space(w, n);

	if (p != NULL && n > 0) {
		memcpy(p, src, n);
	}
}

static inline void smb2_wr_zero(struct smb2_wr *w, size_t n)
{
	uint8_t *p = smb2_wr_space(w, n);

	if (p != NULL && n > 0) {
		memset(p, 0, n);
	}
}

/*
 * Zero-pad to a multiple of a (a power of two), counted from the start
 * of the buffer.  Bodies start at header offset 64, so 8-byte alignment
 * in a body buffer is 8-byte alignment from the SMB2 header.
 */
static inline void smb2_wr_align(struct smb2_wr *w, size_t a)
{
	smb2_wr_zero(w, (a - (w->ofs & (a - 1))) & (a - 1));
}

/* Round up to a multiple of 8; callers bound x first (x <= SIZE_MAX-7). */
static inline size_t smb2_align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

#endif
