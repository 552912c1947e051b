/*
 * Server-wide receive memory budget; see rxmem.h.
 *
 * 100 clients that each start an 8 MiB WRITE and never finish it would
 * make the server hold 800 MiB (issue 11).  Every buffer for a PDU that
 * is not all there is charged here; when the cap is reached, the next
 * connection that needs one stops reading until others complete their
 * PDUs (each within the partial-PDU timeout) or go away.
 */
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/transport/rxmem.h"

struct smbd_rxmem {
	struct tevent_context *ev;
	size_t cap;
	size_t used;
	struct smbd_rxmem_user *waiters;        /* oldest first */
	struct tevent_immediate *im;
	bool im_scheduled;
	bool logged;                            /* "cap reached" once */
	struct smbd_rxmem_user *resuming;       /* charges before waiters */
};

struct smbd_rxmem_user {
	struct smbd_rxmem_user *prev, *next;
	struct smbd_rxmem *m;
	size_t charged;
	size_t want;                            /* while waiting */
	bool waiting;
	smbd_rxmem_resume_fn resume;
	void *private_data;
};

struct smbd_rxmem *smbd_rxmem_new(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev, size_t cap)
{
	struct smbd_rxmem *m = talloc_zero(mem_ctx, struct smbd_rxmem);

	if (m == NULL) {
		return NULL;
	}
	m->ev = ev;
	m->cap = cap;
	m->im = tevent_create_immediate(m);
	if (m->im == NULL) {
		talloc_free(m);
		return NULL;
	}
	return m;
}

size_t smbd_rxmem_cap(const struct smbd_rxmem *m)
{
	return m->cap;
}

size_t smbd_rxmem_used(const struct smbd_rxmem *m)
{
	return m->used;
}

static bool fits(const struct smbd_rxmem *m, size_t n)
{
	return m->used == 0 || (n <= m->cap && m->used <= m->cap - n);
}

static void rxmem_schedule_wake(struct smbd_rxmem *m);

/* Resumes the oldest waiters whose buffers fit now. */
static void rxmem_wake(struct tevent_context *ev,
		       struct tevent_immediate *im, void *private_data)
{
	struct smbd_rxmem *m = private_data;
	struct smbd_rxmem_user *u = NULL;

	m->im_scheduled = false;
	while ((u = m->waiters) != NULL && fits(m, u->want)) {
		DLIST_REMOVE_SIMPLE(m->waiters, u);
		u->waiting = false;
		m->resuming = u;
		u->resume(u->private_data);     /* charges u->want */
		if (m->resuming == NULL || u->waiting) {
			m->resuming = NULL;
			break;  /* freed, or waits again: no progress now */
		}
		m->resuming = NULL;
	}
	if (m->waiters == NULL) {
		m->logged = false;
	} else if (fits(m, m->waiters->want)) {
		rxmem_schedule_wake(m);
	}
}

static void rxmem_schedule_wake(struct smbd_rxmem *m)
{
	if (m->waiters == NULL || m->im_scheduled) {
		return;
	}
	m->im_scheduled = true;
	tevent_schedule_immediate(m->im, m->ev, rxmem_wake, m);
}

static int user_destructor(struct smbd_rxmem_user *u)
{
	struct smbd_rxmem *m = u->m;

	if (u->waiting) {
		DLIST_REMOVE_SIMPLE(m->waiters, u);
	}
	if (m->resuming == u) {
		m->resuming = NULL;
	}
	m->used -= u->charged;
	rxmem_schedule_wake(m);
	return 0;
}

struct smbd_rxmem_user *smbd_rxmem_user_new(TALLOC_CTX *mem_ctx,
					    struct smbd_rxmem *m,
					    smbd_rxmem_resume_fn resume,
					    void *private_data)
{
	struct smbd_rxmem_user *u = talloc_zero(mem_ctx,
						struct smbd_rxmem_user);

	if (u == NULL) {
		return NULL;
	}
	u->m = m;
	u->resume = resume;
	u->private_data = private_data;
	talloc_set_destructor(u, user_destructor);
	return u;
}

bool smbd_rxmem_try_charge(struct smbd_rxmem_user *u, size_t n)
{
	struct smbd_rxmem *m = u->m;

	/* a waiter ahead of us has the right of way */
	if (!fits(m, n) || (m->waiters != NULL && m->waiters != u &&
			     m->resuming != u)) {
		return false;
	}
	m->used += n;
	u->charged += n;
	return true;
}

bool smbd_rxmem_charge_or_wait(struct smbd_rxmem_user *u, size_t n)
{
	struct smbd_rxmem *m = u->m;

	if (smbd_rxmem_try_charge(u, n)) {
		return true;
	}
	if (!m->logged) {
		DBG_NOTICE("receive buffers: %zu of %zu bytes ('smb2 max "
			   "receive buffer') in use: connections wait\n",
			   m->used, m->cap);
		m->logged = true;
	}
	u->want = n;
	if (!u->waiting) {
		u->waiting = true;
		DLIST_ADD_END_SIMPLE(m->waiters, u);
	}
	return false;
}

void smbd_rxmem_release(struct smbd_rxmem_user *u, size_t n)
{
	struct smbd_rxmem *m = u->m;

	if (n > u->charged) {
		n = u->charged;
	}
	u->charged -= n;
	m->used -= n;
	rxmem_schedule_wake(m);
}

bool smbd_rxmem_waiting(const struct smbd_rxmem_user *u)
{
	return u->waiting;
}
