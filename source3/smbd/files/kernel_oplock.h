/*
 * Kernel oplocks (Samba's "kernel oplocks = yes"): on such a share an
 * EXCLUSIVE or BATCH oplock is backed by a Linux file lease on the
 * open's descriptor (fcntl(2) F_SETLEASE F_WRLCK), so that a local
 * process or an NFS server opening the file breaks the SMB client's
 * oplock, and waits in open(2) until the client has acknowledged.
 *
 * - Grant: only when the kernel grants the lease, which it refuses while
 *   any other descriptor of the file is open anywhere on the system;
 *   else the open gets NONE.  Leases cannot be shared, so LEVEL_II is
 *   never granted (the decision table sees "level2 oplocks = no") and
 *   SMB2 leases are not granted either (smbd_kernel_oplocks()).
 * - Break: the kernel sends SMBD_LEASE_SIGNAL with the descriptor in
 *   si_fd; the open holding it is broken to NONE as an SMB open would
 *   break it (oplock.c).  When that break ends (acknowledgment, timeout)
 *   or the open closes, the lease goes and the local opener proceeds at
 *   once, not after /proc/sys/fs/lease-break-time.
 * - Our own opens never sleep on a lease: data opens are non-blocking
 *   (vfs_default.c) and answer NETWORK_BUSY; create_open.c then waits
 *   for the SMB holder's break, or polls while a lease held outside
 *   smbd is broken (smbd_kernel_oplock_blocked()).
 *
 * F_SETSIG and F_SETLEASE run as the daemon (root), outside any
 * credential switch: the lease's owner must be allowed to signal us,
 * and only a file's owner or CAP_LEASE may take a lease.
 */
#ifndef RINGSMB_SMBD_KERNEL_OPLOCK_H
#define RINGSMB_SMBD_KERNEL_OPLOCK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "lib/util/ntstatus.h"
#include "source3/smbd/smbd.h"

/* The real-time signal a lease break is delivered with (as Samba's) */
#define SMBD_LEASE_SIGNAL (SIGRTMIN + 1)

/* "kernel oplocks = yes": no LEVEL_II oplocks, no SMB2 leases. */
bool smbd_kernel_oplocks(const struct lp_share *share);

/*
 * Catch SMBD_LEASE_SIGNAL from now on (before any F_SETSIG: an uncaught
 * real-time signal ends the process).  Its breaks of leases that are
 * not oplocks' go to read_map.c.  false: it cannot be caught.
 */
bool smbd_kernel_oplock_signal(struct smbd_server *server);

/*
 * F_SETLEASE type (F_RDLCK, F_WRLCK, F_UNLCK) on fd as the daemon, with
 * F_SETSIG SMBD_LEASE_SIGNAL before taking one; false and errno if
 * refused (EAGAIN: a conflicting open somewhere).  Call
 * smbd_kernel_oplock_signal first.
 */
bool smbd_lease_set(int fd, int type);

/*
 * CREATE decided to grant level on fh, an open on tcon's share of the
 * file st: on a kernel oplocks share, take the lease that backs an
 * EXCLUSIVE/BATCH oplock.  Returns the level to grant (NONE when the
 * kernel refuses the lease, or for LEVEL_II).
 */
uint8_t smbd_kernel_oplock_grant(struct smbd_tcon *tcon, struct vfs_fh *fh,
				 const struct statx *st, uint8_t level);

/* open's oplock is no longer EXCLUSIVE/BATCH: release its lease. */
void smbd_kernel_oplock_release(struct smbd_open *open);

/*
 * A CREATE's open(2) of the file st met a lease held outside smbd (a
 * local process, NFS) that the kernel is now breaking: PENDING, wait
 * and try again (the oplock waiter polls); SHARING_VIOLATION once the
 * file has been blocked for twice the oplock break timeout (Samba's
 * bound on its polling open).
 */
NTSTATUS smbd_kernel_oplock_blocked(struct smbd_server *server,
				    const struct statx *st);

#endif
