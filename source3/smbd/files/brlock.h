/*
 * Byte-range locks of one file (MS-FSA 2.1.5.7, 2.1.4.10): the table
 * every open of an inode shares (struct smbd_file), the locks each open
 * owns, and the requests waiting for a range to become free.
 *
 * The table knows owners only as pointers it compares (an open); it is
 * plain memory because one process serves every client.  Locks are not
 * visible to local processes (no fcntl locks), as Samba with
 * "posix locking = no".
 */
#ifndef RINGSMB_SMBD_BRLOCK_H
#define RINGSMB_SMBD_BRLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"

struct brl_table;
struct brl_waiter;

struct brl_range {
	uint64_t offset;
	uint64_t length;                /* 0: held, conflicts with little */
	bool exclusive;
};

/* A waiter's answer: OK (its ranges are now held) or why it gave up. */
typedef void (*brl_wake_fn)(void *private_data, NTSTATUS status);

struct brl_table *brl_table_new(TALLOC_CTX *mem_ctx);

/*
 * Locks every range for owner, or none: on the first that fails the
 * ones before it are undone (as Windows does for lock arrays).
 * INVALID_LOCK_RANGE: a range that wraps past 2^64; LOCK_NOT_GRANTED:
 * a conflict.  *failed (may be NULL) is the index of the failed range.
 */
NTSTATUS brl_lock(struct brl_table *t, const void *owner,
		  const struct brl_range *r, size_t n, size_t *failed);

/* Removes one lock owner holds on exactly this range (RANGE_NOT_LOCKED
 * if none), then wakes the waiters that can now proceed. */
NTSTATUS brl_unlock(struct brl_table *t, const void *owner,
		    uint64_t offset, uint64_t length);

/*
 * The ranges could not be locked: wait (in arrival order) until they
 * can.  wake is called once, from brl_unlock/brl_owner_gone of another
 * owner, with OK once the ranges are held by owner, or with
 * RANGE_NOT_LOCKED when owner itself goes away.  Freeing the waiter
 * (a child of mem_ctx) withdraws it.  NULL: out of memory.
 */
struct brl_waiter *brl_wait(TALLOC_CTX *mem_ctx, struct brl_table *t,
			    const void *owner, const struct brl_range *r,
			    size_t n, brl_wake_fn wake, void *private_data);

/*
 * Owner (an open) goes away: its locks are dropped, its own waiters
 * answered RANGE_NOT_LOCKED, and other waiters retried.
 */
void brl_owner_gone(struct brl_table *t, const void *owner);

/*
 * READ (write false) or WRITE of [offset, offset + length) through
 * owner: conflicts with another owner's exclusive lock, and for a write
 * also with any shared lock, the owner's own included (MS-FSA 2.1.4.10).
 */
bool brl_io_conflict(const struct brl_table *t, const void *owner,
		     uint64_t offset, uint64_t length, bool write);

/* Each lock owner holds, in the order they were taken (smbstatus). */
void brl_walk_owner(const struct brl_table *t, const void *owner,
		    void (*fn)(const struct brl_range *r, void *private_data),
		    void *private_data);

/* Locks held and waiters, for tests and smbstatus. */
size_t brl_num_locks(const struct brl_table *t);
size_t brl_num_waiters(const struct brl_table *t);

#endif
