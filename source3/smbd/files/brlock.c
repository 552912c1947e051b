/*
 * Byte-range locks (MS-FSA 2.1.5.7 lock/unlock, 2.1.4.10 conflicts).
 *
 * A table is a list of held locks plus a FIFO of waiters.  Conflict
 * rules, as Windows and Samba apply them:
 * - shared locks never conflict with each other;
 * - an owner may put a shared lock on top of its own exclusive lock,
 *   nothing else stacks on an exclusive lock;
 * - a zero-length lock holds no bytes: it conflicts only with a lock
 *   that strictly contains its offset, never with another zero-length
 *   lock, and never with I/O.
 * Lists are fine here: a file rarely has more than a handful of locks,
 * and BRL_MAX_LOCKS bounds what one table costs to scan.
 */
#include "lib/util/dlist.h"
#include "source3/smbd/files/brlock.h"

/* Locks one file may hold, so a client cannot make every check slow. */
#define BRL_MAX_LOCKS 16384

struct brl_lock {
	struct brl_lock *prev, *next;
	const void *owner;
	struct brl_range r;
};

struct brl_waiter {
	struct brl_waiter *prev, *next;
	struct brl_table *t;            /* NULL once answered */
	const void *owner;
	struct brl_range *r;
	size_t n;
	brl_wake_fn wake;
	void *private_data;
};

struct brl_table {
	struct brl_lock *locks;
	size_t num_locks;
	struct brl_waiter *waiters;
	size_t num_waiters;
};

static int brl_table_destructor(struct brl_table *t)
{
	struct brl_waiter *w = NULL;

	/* every owner's waiters leave before it does; be safe anyway */
	for (w = t->waiters; w != NULL; w = w->next) {
		w->t = NULL;
	}
	return 0;
}

struct brl_table *brl_table_new(TALLOC_CTX *mem_ctx)
{
	struct brl_table *t = talloc_zero(mem_ctx, struct brl_table);

	if (t != NULL) {
		talloc_set_destructor(t, brl_table_destructor);
	}
	return t;
}

/* One past the last byte; 128 bits so that a range may end at 2^64. */
static unsigned __int128 brl_end(const struct brl_range *r)
{
	return (unsigned __int128)r->offset + r->length;
}

static bool brl_overlap(const struct brl_range *a, const struct brl_range *b)
{
	return !(a->offset >= brl_end(b) || b->offset >= brl_end(a));
}

/* Would new lock r of owner conflict with held lock l? */
static bool brl_conflict(const struct brl_lock *l, const void *owner,
			 const struct brl_range *r)
{
	if (!l->r.exclusive && !r->exclusive) {
		return false;
	}
	if (l->r.exclusive && !r->exclusive && l->owner == owner) {
		return false;
	}
	return brl_overlap(&l->r, r);
}

/* MS-FSA 2.1.5.7: (FileOffset + Length - 1) < FileOffset */
static bool brl_wraps(const struct brl_range *r)
{
	return r->length != 0 && r->length - 1 > UINT64_MAX - r->offset;
}

static NTSTATUS brl_add(struct brl_table *t, const void *owner,
			const struct brl_range *r)
{
	struct brl_lock *l = NULL;

	if (brl_wraps(r)) {
		return NT_STATUS_INVALID_LOCK_RANGE;
	}
	for (l = t->locks; l != NULL; l = l->next) {
		if (brl_conflict(l, owner, r)) {
			return NT_STATUS_LOCK_NOT_GRANTED;
		}
	}
	if (t->num_locks >= BRL_MAX_LOCKS) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	l = talloc_zero(t, struct brl_lock);
	if (l == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	l->owner = owner;
	l->r = *r;
	/* at the head: a failed array undoes the first k (brl_undo) */
	DLIST_ADD_SIMPLE(t->locks, l);
	t->num_locks++;
	return NT_STATUS_OK;
}

static void brl_remove(struct brl_table *t, struct brl_lock *l)
{
	DLIST_REMOVE_SIMPLE(t->locks, l);
	t->num_locks--;
	talloc_free(l);
}

/* Undo the k locks brl_add added last (a failed array). */
static void brl_undo(struct brl_table *t, size_t k)
{
	while (k-- > 0) {
		brl_remove(t, t->locks);
	}
}

NTSTATUS brl_lock(struct brl_table *t, const void *owner,
		  const struct brl_range *r, size_t n, size_t *failed)
{
	NTSTATUS status = NT_STATUS_OK;
	size_t i;

	for (i = 0; i < n; i++) {
		status = brl_add(t, owner, &r[i]);
		if (!NT_STATUS_IS_OK(status)) {
			brl_undo(t, i);
			if (failed != NULL) {
				*failed = i;
			}
			return status;
		}
	}
	return NT_STATUS_OK;
}

static void brl_waiter_unlink(struct brl_waiter *w)
{
	if (w->t == NULL) {
		return;
	}
	DLIST_REMOVE_SIMPLE(w->t->waiters, w);
	w->t->num_waiters--;
	w->t = NULL;
}

static int brl_waiter_destructor(struct brl_waiter *w)
{
	brl_waiter_unlink(w);
	return 0;
}

/* Unlinked first: wake may free the waiter. */
static void brl_waiter_answer(struct brl_waiter *w, NTSTATUS status)
{
	brl_waiter_unlink(w);
	w->wake(w->private_data, status);
}

/*
 * Grant whatever waiters can now have their ranges, oldest first; a
 * waiter that still conflicts does not hold up later ones.  Restarts
 * after each answer, since wake may have changed the list.
 */
static void brl_retry(struct brl_table *t)
{
	struct brl_waiter *w = NULL;

again:
	for (w = t->waiters; w != NULL; w = w->next) {
		NTSTATUS status = brl_lock(t, w->owner, w->r, w->n, NULL);

		if (NT_STATUS_EQUAL(status, NT_STATUS_LOCK_NOT_GRANTED)) {
			continue;
		}
		brl_waiter_answer(w, status);
		goto again;
	}
}

static struct brl_lock *brl_find(struct brl_table *t, const void *owner,
				 uint64_t offset, uint64_t length)
{
	struct brl_lock *l = NULL;
	struct brl_lock *shared = NULL;

	/* an exclusive lock under a stacked shared one goes first */
	for (l = t->locks; l != NULL; l = l->next) {
		if (l->owner != owner || l->r.offset != offset ||
		    l->r.length != length) {
			continue;
		}
		if (l->r.exclusive) {
			return l;
		}
		if (shared == NULL) {
			shared = l;
		}
	}
	return shared;
}

NTSTATUS brl_unlock(struct brl_table *t, const void *owner,
		    uint64_t offset, uint64_t length)
{
	struct brl_lock *l = brl_find(t, owner, offset, length);

	if (l == NULL) {
		return NT_STATUS_RANGE_NOT_LOCKED;
	}
	brl_remove(t, l);
	brl_retry(t);
	return NT_STATUS_OK;
}

struct brl_waiter *brl_wait(TALLOC_CTX *mem_ctx, struct brl_table *t,
			    const void *owner, const struct brl_range *r,
			    size_t n, brl_wake_fn wake, void *private_data)
{
	struct brl_waiter *w = talloc_zero(mem_ctx, struct brl_waiter);

	if (w == NULL) {
		return NULL;
	}
	w->r = talloc_memdup(w, r, n * sizeof(*r));
	if (w->r == NULL) {
		talloc_free(w);
		return NULL;
	}
	w->t = t;
	w->owner = owner;
	w->n = n;
	w->wake = wake;
	w->private_data = private_data;
	DLIST_ADD_END_SIMPLE(t->waiters, w);
	t->num_waiters++;
	talloc_set_destructor(w, brl_waiter_destructor);
	return w;
}

static void brl_drop_owner_locks(struct brl_table *t, const void *owner)
{
	struct brl_lock *l = t->locks;

	while (l != NULL) {
		struct brl_lock *next = l->next;

		if (l->owner == owner) {
			brl_remove(t, l);
		}
		l = next;
	}
}

void brl_owner_gone(struct brl_table *t, const void *owner)
{
	struct brl_waiter *w = NULL;

	if (t == NULL) {
		return;
	}
	brl_drop_owner_locks(t, owner);
again:
	for (w = t->waiters; w != NULL; w = w->next) {
		if (w->owner == owner) {
			/* as Windows and Samba answer a closed wait */
			brl_waiter_answer(w, NT_STATUS_RANGE_NOT_LOCKED);
			goto again;
		}
	}
	brl_retry(t);
}

bool brl_io_conflict(const struct brl_table *t, const void *owner,
		     uint64_t offset, uint64_t length, bool write)
{
	struct brl_range io = { .offset = offset, .length = length };
	const struct brl_lock *l = NULL;

	if (t == NULL || length == 0) {
		return false;
	}
	for (l = t->locks; l != NULL; l = l->next) {
		if (l->r.length == 0 || !brl_overlap(&l->r, &io)) {
			continue;
		}
		if (l->owner != owner ? write || l->r.exclusive :
		    write && !l->r.exclusive) {
			return true;
		}
	}
	return false;
}

void brl_walk_owner(const struct brl_table *t, const void *owner,
		    void (*fn)(const struct brl_range *r, void *private_data),
		    void *private_data)
{
	const struct brl_lock *l = NULL;

	for (l = t != NULL ? t->locks : NULL; l != NULL; l = l->next) {
		if (l->owner == owner) {
			fn(&l->r, private_data);
		}
	}
}

size_t brl_num_locks(const struct brl_table *t)
{
	return t != NULL ? t->num_locks : 0;
}

size_t brl_num_waiters(const struct brl_table *t)
{
	return t != NULL ? t->num_waiters : 0;
}
