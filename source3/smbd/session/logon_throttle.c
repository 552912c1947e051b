/*
 * Logon back-off per source address; see logon_throttle.h.  A small
 * table, bounded in size: the oldest address goes when it is full.
 */
#include <stdio.h>
#include <string.h>
#include <tevent.h>
#include "source3/smbd/session/logon_throttle.h"

struct throttle_entry {
	char addr[48];
	unsigned failures;
	struct timeval last_failure;
	struct timeval next_slot;       /* earliest time for the next try */
};

struct smbd_throttle {
	struct throttle_entry e[SMBD_THROTTLE_MAX_ADDRS];
	size_t n;
};

struct smbd_throttle *smbd_throttle_new(TALLOC_CTX *mem_ctx)
{
	return talloc_zero(mem_ctx, struct smbd_throttle);
}

static struct throttle_entry *find(const struct smbd_throttle *t,
				   const char *addr)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (strcmp(t->e[i].addr, addr) == 0) {
			return (struct throttle_entry *)&t->e[i];
		}
	}
	return NULL;
}

static bool stale(const struct throttle_entry *e, struct timeval now)
{
	return now.tv_sec - e->last_failure.tv_sec > SMBD_THROTTLE_FORGET_SECS;
}

/* A slot for addr: a forgotten or the oldest entry when full. */
static struct throttle_entry *take(struct smbd_throttle *t, const char *addr,
				   struct timeval now)
{
	struct throttle_entry *e = NULL;
	size_t i, oldest = 0;

	for (i = 0; i < t->n && e == NULL; i++) {
		if (stale(&t->e[i], now)) {
			e = &t->e[i];
		} else if (tevent_timeval_compare(&t->e[i].last_failure,
					   &t->e[oldest].last_failure) < 0) {
			oldest = i;
		}
	}
	if (e == NULL) {
		e = t->n < SMBD_THROTTLE_MAX_ADDRS ? &t->e[t->n++] :
			&t->e[oldest];
	}
	*e = (struct throttle_entry){ .last_failure = now };
	snprintf(e->addr, sizeof(e->addr), "%s", addr);
	return e;
}

static unsigned delay_ms(unsigned failures)
{
	unsigned shift;

	if (failures <= SMBD_THROTTLE_FREE_FAILURES) {
		return 0;
	}
	shift = failures - SMBD_THROTTLE_FREE_FAILURES - 1;
	if (shift >= 6) {
		return SMBD_THROTTLE_MAX_MS;
	}
	return SMBD_THROTTLE_BASE_MS << shift < SMBD_THROTTLE_MAX_MS ?
		SMBD_THROTTLE_BASE_MS << shift : SMBD_THROTTLE_MAX_MS;
}

struct timeval smbd_throttle_slot(struct smbd_throttle *t, const char *addr,
				  struct timeval now)
{
	struct throttle_entry *e = find(t, addr);
	struct timeval slot = now;
	unsigned ms;

	if (e == NULL || stale(e, now)) {
		return now;
	}
	ms = delay_ms(e->failures);
	if (ms == 0) {
		return now;
	}
	if (tevent_timeval_compare(&e->next_slot, &now) > 0) {
		slot = e->next_slot;
	}
	e->next_slot = tevent_timeval_add(&slot, ms / 1000,
					  (ms % 1000) * 1000);
	return slot;
}

void smbd_throttle_failed(struct smbd_throttle *t, const char *addr,
			  struct timeval now)
{
	struct throttle_entry *e = find(t, addr);

	if (e == NULL || stale(e, now)) {
		e = e != NULL ? e : take(t, addr, now);
		e->failures = 0;
		e->next_slot = now;
	}
	e->failures++;
	e->last_failure = now;
}

void smbd_throttle_succeeded(struct smbd_throttle *t, const char *addr)
{
	struct throttle_entry *e = find(t, addr);

	if (e != NULL) {
		e->failures = 0;
	}
}

unsigned smbd_throttle_failures(const struct smbd_throttle *t,
				const char *addr)
{
	const struct throttle_entry *e = find(t, addr);

	return e != NULL ? e->failures : 0;
}
