/*
 * What the parts of fuzz_server share: the program being run (the input,
 * the client, the body buffer), its operand readers, the header every
 * request starts from, and the SESSION_SETUP step (fuzz_server_logon.c).
 * fuzz_server.c's top comment spells out the encoding.
 */
#ifndef RINGSMB_FUZZ_SERVER_PROG_H
#define RINGSMB_FUZZ_SERVER_PROG_H

#include <stdint.h>
#include <string.h>
#include "lib/smb2/smb2.h"
#include "tests/fuzz/fuzz_server_client.h"

#define FZ_BODY_MAX (1024 * 1024 + 256)

struct fz_prog {
	const uint8_t *p;
	size_t left;
	struct fz_client *c;
	uint8_t *body;                  /* FZ_BODY_MAX bytes */
	uint16_t credit_ask;
};

/* ---- reading operands: past the input's end they read as zeros ---- */

static inline uint8_t u8(struct fz_prog *g)
{
	if (g->left == 0) {
		return 0;
	}
	g->left--;
	return *g->p++;
}

static inline uint16_t u16(struct fz_prog *g)
{
	uint16_t lo = u8(g);

	return (uint16_t)(lo | (uint16_t)u8(g) << 8);
}

static inline uint32_t u32(struct fz_prog *g)
{
	uint32_t lo = u16(g);

	return lo | (uint32_t)u16(g) << 16;
}

/* Up to n bytes of the input into buf; the rest of buf[0, n) is 'A'. */
static inline void bytes(struct fz_prog *g, uint8_t *buf, size_t n)
{
	size_t k = n < g->left ? n : g->left;

	memcpy(buf, g->p, k);
	memset(buf + k, 'A', n - k);
	g->p += k;
	g->left -= k;
}

static inline void base_hdr(struct fz_prog *g, struct smb2_hdr *h, uint16_t op)
{
	struct fz_client *c = g->c;

	*h = (struct smb2_hdr){
		.command = op,
		.credit = g->credit_ask,
		.session_id = c->sessions[c->cur_session].id,
		.tree_id = c->trees[c->cur_tree],
		.process_id = 0xFEFF,
	};
}

/*
 * SESSION_SETUP: the whole NTLMSSP exchange with lib/auth's client, and
 * the session's or the channel's keys when it logs on as the user (the
 * mode byte's bits are in fuzz_server_logon.c).
 */
void fz_step_session_setup(struct fz_prog *g);

#endif
