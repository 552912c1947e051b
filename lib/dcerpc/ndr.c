/*
 * NDR20 primitives for stub data (C706 chapter 14), little-endian only
 * (the PDU codec refused any other drep).  Primitives align to their
 * size, counted from the start of the stub; u64 (hyper) aligns to 8.
 * Padding bytes are skipped, not checked: C706 leaves their value
 * unspecified.
 */
#include <string.h>
#include "lib/dcerpc/dcerpc.h"
#include "lib/util/byteorder.h"

/* Windows numbers referents from here, 4 apart. */
#define NDR_FIRST_REF_ID	0x00020000

struct ndr_pull ndr_pull_init(const uint8_t *p, size_t len)
{
	return (struct ndr_pull){ .p = p, .len = len, .ofs = 0, .bad = false };
}

static const uint8_t *pull_bytes(struct ndr_pull *c, size_t n)
{
	const uint8_t *r = NULL;

	if (c->bad || n > c->len - c->ofs) {
		c->bad = true;
		return NULL;
	}
	/* p may be NULL for an empty stub: no arithmetic on NULL */
	r = c->p == NULL ? NULL : c->p + c->ofs;
	c->ofs += n;
	return r;
}

const uint8_t *ndr_pull_bytes(struct ndr_pull *c, size_t n)
{
	return pull_bytes(c, n);
}

/* a is 1, 2, 4 or 8; the padding must be inside the stub. */
void ndr_pull_align(struct ndr_pull *c, size_t a)
{
	(void)pull_bytes(c, (a - (c->ofs & (a - 1))) & (a - 1));
}

uint8_t ndr_pull_u8(struct ndr_pull *c)
{
	const uint8_t *p = pull_bytes(c, 1);

	return p == NULL ? 0 : p[0];
}

uint16_t ndr_pull_u16(struct ndr_pull *c)
{
	const uint8_t *p = NULL;

	ndr_pull_align(c, 2);
	p = pull_bytes(c, 2);
	return p == NULL ? 0 : pull_le16(p);
}

uint32_t ndr_pull_u32(struct ndr_pull *c)
{
	const uint8_t *p = NULL;

	ndr_pull_align(c, 4);
	p = pull_bytes(c, 4);
	return p == NULL ? 0 : pull_le32(p);
}

uint64_t ndr_pull_u64(struct ndr_pull *c)
{
	const uint8_t *p = NULL;

	ndr_pull_align(c, 8);
	p = pull_bytes(c, 8);
	return p == NULL ? 0 : pull_le64(p);
}

uint64_t ndr_pull_udlong(struct ndr_pull *c)
{
	uint64_t lo = ndr_pull_u32(c);

	return lo | (uint64_t)ndr_pull_u32(c) << 32;
}

void ndr_pull_utf8z(struct ndr_pull *c, const uint8_t **s, size_t *len)
{
	const uint8_t *end = NULL;
	size_t left = c->bad ? 0 : c->len - c->ofs;

	*s = NULL;
	*len = 0;
	if (left == 0) {
		c->bad = true;
		return;
	}
	*s = c->p + c->ofs;
	end = memchr(*s, '\0', left);
	*len = end != NULL ? (size_t)(end - *s) : left;
	c->ofs += end != NULL ? *len + 1 : left;
}

/* A GUID is a struct aligned to its largest member, 4. */
void ndr_pull_uuid(struct ndr_pull *c, struct dcerpc_uuid *out)
{
	const uint8_t *p = NULL;

	out->time_low = ndr_pull_u32(c);
	out->time_mid = ndr_pull_u16(c);
	out->time_hi_and_version = ndr_pull_u16(c);
	p = pull_bytes(c, 8);
	if (p == NULL) {
		memset(out->clock_seq, 0, sizeof(out->clock_seq));
		memset(out->node, 0, sizeof(out->node));
		return;
	}
	memcpy(out->clock_seq, p, 2);
	memcpy(out->node, p + 2, 6);
}

bool ndr_pull_unique_ptr(struct ndr_pull *c, uint32_t *ref_id)
{
	*ref_id = ndr_pull_u32(c);
	return !c->bad && *ref_id != 0;
}

void ndr_pull_string(struct ndr_pull *c, const uint8_t **units,
		     size_t *n_units)
{
	uint32_t max_count = ndr_pull_u32(c);
	uint32_t offset = ndr_pull_u32(c);
	uint32_t actual = ndr_pull_u32(c);
	const uint8_t *p = NULL;
	size_t i;

	*units = NULL;
	*n_units = 0;
	if (c->bad || offset != 0 || actual == 0 || actual > max_count ||
	    actual > NDR_MAX_STRING_UNITS) {
		c->bad = true;
		return;
	}
	p = pull_bytes(c, (size_t)actual * 2);
	if (p == NULL) {
		return;
	}
	/* the terminator must be the last unit and the only NUL */
	for (i = 0; i < actual; i++) {
		bool nul = p[2 * i] == 0 && p[2 * i + 1] == 0;

		if (nul != (i == actual - 1)) {
			c->bad = true;
			return;
		}
	}
	*units = p;
	*n_units = actual - 1;
}

struct ndr_push ndr_push_init(TALLOC_CTX *mem_ctx)
{
	return (struct ndr_push){ .mem_ctx = mem_ctx,
				  .next_ref_id = NDR_FIRST_REF_ID };
}

/* Room for n more bytes, doubling the buffer; NULL once bad. */
static uint8_t *push_space(struct ndr_push *w, size_t n)
{
	uint8_t *r = NULL;

	if (w->bad || n > NDR_PUSH_MAX - w->len) {
		w->bad = true;
		return NULL;
	}
	if (n == 0) {
		return NULL;
	}
	if (n > w->cap - w->len) {
		size_t cap = w->cap == 0 ? 256 : w->cap;
		uint8_t *nb = NULL;

		while (cap - w->len < n) {
			cap *= 2;
		}
		nb = talloc_realloc(w->mem_ctx, w->buf, uint8_t, cap);
		if (nb == NULL) {
			w->bad = true;
			return NULL;
		}
		w->buf = nb;
		w->cap = cap;
	}
	r = w->buf + w->len;
	w->len += n;
	return r;
}

void ndr_push_bytes(struct ndr_push *w, const void *p, size_t n)
{
	uint8_t *q = push_space(w, n);

	if (q != NULL && n > 0) {
		memcpy(q, p, n);
	}
}

void ndr_push_align(struct ndr_push *w, size_t a)
{
	size_t pad = (a - (w->len & (a - 1))) & (a - 1);
	uint8_t *q = push_space(w, pad);

	if (q != NULL && pad > 0) {
		memset(q, 0, pad);
	}
}

void ndr_push_u8(struct ndr_push *w, uint8_t v)
{
	ndr_push_bytes(w, &v, 1);
}

void ndr_push_u16(struct ndr_push *w, uint16_t v)
{
	uint8_t *q = NULL;

	ndr_push_align(w, 2);
	q = push_space(w, 2);
	if (q != NULL) {
		push_le16(q, v);
	}
}

void ndr_push_u32(struct ndr_push *w, uint32_t v)
{
	uint8_t *q = NULL;

	ndr_push_align(w, 4);
	q = push_space(w, 4);
	if (q != NULL) {
		push_le32(q, v);
	}
}

void ndr_push_u64(struct ndr_push *w, uint64_t v)
{
	uint8_t *q = NULL;

	ndr_push_align(w, 8);
	q = push_space(w, 8);
	if (q != NULL) {
		push_le64(q, v);
	}
}

void ndr_push_udlong(struct ndr_push *w, uint64_t v)
{
	ndr_push_u32(w, (uint32_t)v);
	ndr_push_u32(w, (uint32_t)(v >> 32));
}

void ndr_push_uuid(struct ndr_push *w, const struct dcerpc_uuid *u)
{
	ndr_push_u32(w, u->time_low);
	ndr_push_u16(w, u->time_mid);
	ndr_push_u16(w, u->time_hi_and_version);
	ndr_push_bytes(w, u->clock_seq, sizeof(u->clock_seq));
	ndr_push_bytes(w, u->node, sizeof(u->node));
}

void ndr_push_unique_ptr(struct ndr_push *w, bool present)
{
	if (!present) {
		ndr_push_u32(w, 0);
		return;
	}
	ndr_push_u32(w, w->next_ref_id);
	w->next_ref_id += 4;
}

void ndr_push_string(struct ndr_push *w, const uint8_t *units,
		     size_t n_units)
{
	static const uint8_t nul[2] = { 0, 0 };

	if (n_units >= NDR_MAX_STRING_UNITS) {
		w->bad = true;
		return;
	}
	ndr_push_u32(w, (uint32_t)n_units + 1);
	ndr_push_u32(w, 0);
	ndr_push_u32(w, (uint32_t)n_units + 1);
	ndr_push_bytes(w, units, 2 * n_units);
	ndr_push_bytes(w, nul, sizeof(nul));
}
