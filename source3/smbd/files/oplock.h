/*
 * SMB2 oplocks (MS-SMB2 3.3.5.9 OplockLevel, 3.3.4.6, 3.3.5.22.1; MS-FSA
 * 2.1.5.17 and 2.1.4.12, reduced to the SMB2 levels NONE, II, EXCLUSIVE
 * and BATCH).  Leases are lease.c's; both wait here for breaks.
 *
 * The level an open holds lives on the open (smbd_open.oplock_level); a
 * break that waits for its acknowledgment on the open too
 * (smbd_open.oplock_break), with its timer.  A CREATE that has to wait
 * for a break waits on the file (smbd_file.oplock_waiters) and is told
 * whenever an open of the file acknowledges, times out or goes away; it
 * then runs again from the start.
 */
#ifndef RINGSMB_SMBD_OPLOCK_H
#define RINGSMB_SMBD_OPLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

struct smbd_server;
struct smbd_tcon;
struct smbd_open;
struct smbd_file;
struct smbd_oplock_waiter;

/* Access that only looks at or sets attributes: breaks no oplock */
#define SMBD_OPLOCK_STAT_ACCESS (SMB2_FILE_READ_ATTRIBUTES | \
				 SMB2_FILE_WRITE_ATTRIBUTES | \
				 SMB2_SYNCHRONIZE)

/* What a new open meets: the input of the decision table. */
struct smbd_oplock_in {
	uint8_t requested;              /* RequestedOplockLevel */
	bool is_dir;
	bool stat_open;                 /* attributes only, no truncation */
	bool truncates;                 /* SUPERSEDE, OVERWRITE(_IF) */
	bool sharing_violation;         /* the share modes refuse it */
	bool oplocks;                   /* share "oplocks" */
	bool level2;                    /* share "level2 oplocks" */
	size_t others;                  /* the file's other non-stat opens */
	uint8_t held;                   /* the highest level they hold */
};

struct smbd_oplock_out {
	/* an EXCLUSIVE or BATCH holder is broken to break_to; the new
	 * open waits for its acknowledgment */
	bool break_exclusive;
	uint8_t break_to;
	/* LEVEL_II holders are broken to NONE, nothing is waited for */
	bool break_level2;
	/* the new open's level, when it goes ahead without waiting */
	uint8_t grant;
};

/*
 * The decision table (pure, unit-tested):
 *  - a stat open breaks nothing and gets no oplock;
 *  - an EXCLUSIVE/BATCH holder is broken (to II when the new open could
 *    share at level II: level2 oplocks on and no truncation, else NONE),
 *    and the new open waits; with a sharing violation only a BATCH
 *    holder is broken (its close may free the share mode), else the
 *    violation stands;
 *  - LEVEL_II holders are broken to NONE by a truncating open;
 *  - grant: NONE for directories, "oplocks = no", a sharing violation or
 *    a request of NONE (or a lease); the requested level when the file
 *    has no other opens; else LEVEL_II ("level2 oplocks" permitting)
 *    when nobody holds EXCLUSIVE/BATCH, else NONE.
 */
void smbd_oplock_decide(const struct smbd_oplock_in *in,
			struct smbd_oplock_out *out);

/*
 * CREATE of an existing file (create_open.c), after the share-mode
 * check gave share_status (OK or SHARING_VIOLATION): sends the breaks
 * the table asks for.  NT_STATUS_PENDING: a break is awaited and
 * may_wait is set, wait (smbd_oplock_wait) and retry.  Otherwise
 * share_status, with *grant the new open's level.
 */
NTSTATUS smbd_oplock_open(struct smbd_tcon *tcon, const struct statx *st,
			  uint32_t access, uint32_t disposition,
			  uint8_t requested, bool is_dir, bool may_wait,
			  NTSTATUS share_status, uint8_t *grant);

/* A new file (nothing else has it open): the level granted. */
uint8_t smbd_oplock_grant_new(struct smbd_tcon *tcon, uint8_t requested,
			      bool is_dir);

typedef void (*smbd_oplock_wake_fn)(void *private_data);

/* How often a waiter with no break of ours to wait for looks again */
#define SMBD_OPLOCK_POLL_USECS 500000

/*
 * Wait for the file st names to change (an acknowledgment, a timeout, a
 * close).  wake is called once, from inside another request or an
 * open's teardown: it must only schedule its work.  When no open of the
 * file is being broken (a lease held outside smbd blocks the open:
 * kernel_oplock.h), wake is called after SMBD_OPLOCK_POLL_USECS at the
 * latest.  Freeing the waiter (a child of mem_ctx) withdraws it.  NULL:
 * out of memory.
 */
struct smbd_oplock_waiter *smbd_oplock_wait(TALLOC_CTX *mem_ctx,
					    struct smbd_server *server,
					    const struct statx *st,
					    smbd_oplock_wake_fn wake,
					    void *private_data);

/* The same, on the file open is an open of (SET_INFO rename). */
struct smbd_oplock_waiter *smbd_oplock_wait_open(TALLOC_CTX *mem_ctx,
						 struct smbd_open *open,
						 smbd_oplock_wake_fn wake,
						 void *private_data);

/*
 * A local process (or NFS) opened the file of open, which holds a kernel
 * oplock (kernel_oplock.c): an EXCLUSIVE/BATCH oplock is broken to NONE
 * as a conflicting SMB open would break it; its end releases the lease.
 */
void smbd_oplock_break_local(struct smbd_open *open);

/*
 * WRITE or a truncation through open: every LEVEL_II oplock of the file
 * is broken to NONE (no acknowledgment is expected).
 */
void smbd_oplock_contend_level2(struct smbd_open *open);

/*
 * The holder's OPLOCK_BREAK acknowledgment (MS-SMB2 3.3.5.22.1) with the
 * level it kept; *new_level is what it holds now.
 */
NTSTATUS smbd_oplock_ack(struct smbd_open *open, uint8_t level,
			 uint8_t *new_level);

/* share_mode.c: open left file f (and its lease); waiters look again. */
void smbd_oplock_open_gone(struct smbd_open *open, struct smbd_file *f);

/* lease.c: a lease of f changed (ack, timeout); waiters look again. */
void smbd_oplock_wake(struct smbd_file *f);

#endif
