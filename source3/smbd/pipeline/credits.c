/*
 * Message-id window bookkeeping; see credits.h.
 */
#include "source3/smbd/pipeline/credits.h"

struct smbd_credits {
	uint64_t low;                   /* lowest id not yet retired */
	uint32_t range;                 /* ids usable: [low, low + range) */
	uint32_t max;                   /* range never exceeds this */
	uint8_t used[SMBD_MAX_CREDITS / 8];  /* bit (id % MAX) per used id */
};

static bool bit_test(const struct smbd_credits *c, uint64_t id)
{
	uint32_t b = (uint32_t)(id % SMBD_MAX_CREDITS);

	return (c->used[b / 8] >> (b % 8)) & 1;
}

static void bit_set(struct smbd_credits *c, uint64_t id, bool on)
{
	uint32_t b = (uint32_t)(id % SMBD_MAX_CREDITS);

	if (on) {
		c->used[b / 8] |= (uint8_t)(1 << (b % 8));
	} else {
		c->used[b / 8] &= (uint8_t)~(1 << (b % 8));
	}
}

struct smbd_credits *smbd_credits_new(TALLOC_CTX *mem_ctx)
{
	struct smbd_credits *c = talloc_zero(mem_ctx, struct smbd_credits);

	if (c != NULL) {
		c->range = 1;           /* NEGOTIATE uses id 0 */
		c->max = SMBD_MAX_CREDITS;
	}
	return c;
}

bool smbd_credits_consume(struct smbd_credits *c, uint64_t mid,
			  uint16_t charge)
{
	uint64_t i;

	if (charge == 0) {
		charge = 1;
	}
	/* subtract, never add: mid may be near 2^64 */
	if (mid < c->low || mid - c->low > c->range ||
	    charge > c->range - (mid - c->low)) {
		return false;
	}
	for (i = 0; i < charge; i++) {
		if (bit_test(c, mid + i)) {
			return false;
		}
	}
	for (i = 0; i < charge; i++) {
		bit_set(c, mid + i, true);
	}
	while (c->range > 0 && bit_test(c, c->low)) {
		bit_set(c, c->low, false);
		c->low++;
		c->range--;
	}
	return true;
}

uint16_t smbd_credits_grant(struct smbd_credits *c, uint16_t requested)
{
	uint32_t room = c->range < c->max ? c->max - c->range : 0;
	uint32_t g = requested;

	if (g == 0) {
		g = 1;
	}
	if (g > room) {
		g = room;
	}
	if (g == 0 && c->range == 0) {
		g = 1;                  /* never close the window entirely */
	}
	c->range += g;
	return (uint16_t)g;
}

void smbd_credits_set_max(struct smbd_credits *c, uint32_t max)
{
	if (max < 1) {
		max = 1;
	}
	c->max = max < SMBD_MAX_CREDITS ? max : SMBD_MAX_CREDITS;
}

uint32_t smbd_credits_range(const struct smbd_credits *c)
{
	return c->range;
}
