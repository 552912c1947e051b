/*
 * Kernel oplocks: Linux file leases behind EXCLUSIVE/BATCH oplocks, the
 * lease-break signal, and CREATEs that meet a lease held outside smbd
 * (see kernel_oplock.h; fcntl(2) "Leases").
 *
 * The state lives in one server-wide struct smbd_kernel_oplocks, made on
 * first use (it installs the signal handler before the first F_SETSIG,
 * since an uncaught real-time signal would end the process): the leases
 * we hold, each a talloc child of the descriptor's vfs_fh, so closing
 * the open forgets it (close(2) has released the lease already), and the
 * files CREATEs found leased by someone else, to bound their wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include "lib/util/unix_token.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/kernel_oplock.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/read_map.h"
#include "source3/smbd/files/share_mode.h"

/* A blocked file not asked about again for this long is forgotten */
#define KO_BLOCKED_STALE_SECS 5

struct ko_lease {
	struct ko_lease *prev, *next;
	struct smbd_kernel_oplocks *ko;         /* NULL once ko went */
	struct vfs_fh *fh;                      /* our parent */
	int fd;
	struct statx id;                        /* dev and ino: the file */
};

/* A file a CREATE found leased by a process that is not smbd. */
struct ko_blocked {
	struct ko_blocked *prev, *next;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	time_t first, last;                     /* CLOCK_MONOTONIC s */
};

struct smbd_kernel_oplocks {
	struct smbd_server *server;
	struct tevent_signal *se;
	struct ko_lease *leases;
	struct ko_blocked *blocked;
};

bool smbd_kernel_oplocks(const struct lp_share *share)
{
	return share != NULL && share->kernel_oplocks;
}

static bool level_exclusive(uint8_t level)
{
	return level == SMB2_OPLOCK_LEVEL_EXCLUSIVE ||
	       level == SMB2_OPLOCK_LEVEL_BATCH;
}

static time_t now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* ---- the leases we hold ---- */

static int lease_destructor(struct ko_lease *l)
{
	if (l->ko != NULL) {
		DLIST_REMOVE_SIMPLE(l->ko->leases, l);
	}
	return 0;
}

bool smbd_lease_set(int fd, int type)
{
	/*
	 * F_SETSIG first: the signal carries si_fd only with it.  Both as
	 * the daemon itself (CAP_LEASE), also inside the request's hold.
	 */
	bool ok = unix_token_become_root() == 0 &&
		  (type == F_UNLCK ||
		   fcntl(fd, F_SETSIG, SMBD_LEASE_SIGNAL) == 0) &&
		  fcntl(fd, F_SETLEASE, type) == 0;

	unix_token_unbecome();
	return ok;
}

/* The lease goes: the local opener's open(2) returns at once. */
static void lease_release(struct ko_lease *l)
{
	if (!smbd_lease_set(l->fd, F_UNLCK)) {
		DBG_WARNING("releasing the lease on fd %d: %s\n", l->fd,
			    strerror(errno));
	}
	talloc_free(l);
}

static struct ko_lease *lease_by_fd(struct smbd_kernel_oplocks *ko, int fd)
{
	struct ko_lease *l = NULL;

	for (l = ko->leases; l != NULL; l = l->next) {
		if (l->fd == fd) {
			return l;
		}
	}
	return NULL;
}

static struct ko_lease *lease_by_fh(struct smbd_kernel_oplocks *ko,
				    const struct vfs_fh *fh)
{
	struct ko_lease *l = NULL;

	for (l = ko->leases; l != NULL; l = l->next) {
		if (l->fh == fh) {
			return l;
		}
	}
	return NULL;
}

/* The open whose descriptor holds l, among the opens of its file. */
static struct smbd_open *lease_open(struct smbd_kernel_oplocks *ko,
				    const struct ko_lease *l)
{
	struct smbd_file *f = smbd_file_find(ko->server, &l->id);
	struct smbd_open *o = NULL;

	for (o = f != NULL ? f->opens : NULL; o != NULL; o = o->file_next) {
		if (o->fh == l->fh) {
			return o;
		}
	}
	return NULL;
}

/* ---- the break signal ---- */

/*
 * Someone opened a file we hold a lease on.  Runs from the event loop
 * (tevent queues the siginfo), never inside a request.
 */
static void ko_signal(struct tevent_context *ev, struct tevent_signal *se,
		      int signum, int count, void *siginfo,
		      void *private_data)
{
	struct smbd_kernel_oplocks *ko = talloc_get_type_abort(
		private_data, struct smbd_kernel_oplocks);
	const siginfo_t *info = siginfo;
	struct ko_lease *l = info != NULL ? lease_by_fd(ko, info->si_fd) :
		NULL;
	struct smbd_open *open = NULL;

	if (l == NULL && info != NULL &&
	    smbd_read_map_break(ko->server, info->si_fd)) {
		return;                         /* a mapped reads' lease */
	}
	if (l == NULL) {
		/* released (acknowledged, closed) before we got here */
		DBG_DEBUG("lease break signal for fd %d: no lease held\n",
			  info != NULL ? info->si_fd : -1);
		return;
	}
	if (fcntl(l->fd, F_GETLEASE) == F_WRLCK) {
		/* not being broken: a late signal of a reused descriptor */
		return;
	}
	open = lease_open(ko, l);
	if (open == NULL) {
		lease_release(l);
		return;
	}
	if (open->tcon == NULL) {
		/*
		 * A disconnected durable open: nobody can acknowledge its
		 * break, so it is closed, as a conflicting SMB open closes
		 * it (durable.c); the close ends the lease.
		 */
		DBG_INFO("closing disconnected durable open of %s: a local "
			 "open breaks its oplock\n", open->name);
		talloc_free(open);
		return;
	}
	DBG_INFO("local open of %s: breaking its oplock\n", open->name);
	smbd_oplock_break_local(open);
	if (!level_exclusive(open->oplock_level)) {
		smbd_kernel_oplock_release(open);       /* nothing to wait for */
	}
}

static int ko_destructor(struct smbd_kernel_oplocks *ko)
{
	struct ko_lease *l = NULL;

	while ((l = ko->leases) != NULL) {
		DLIST_REMOVE_SIMPLE(ko->leases, l);
		l->ko = NULL;
	}
	if (ko->server->kernel_oplocks == ko) {
		ko->server->kernel_oplocks = NULL;
	}
	return 0;
}

static struct smbd_kernel_oplocks *ko_get(struct smbd_server *server)
{
	struct smbd_kernel_oplocks *ko = server->kernel_oplocks;

	if (ko != NULL) {
		return ko;
	}
	ko = talloc_zero(server, struct smbd_kernel_oplocks);
	if (ko == NULL) {
		return NULL;
	}
	ko->server = server;
	ko->se = tevent_add_signal(server->ev, ko, SMBD_LEASE_SIGNAL,
				   SA_SIGINFO, ko_signal, ko);
	if (ko->se == NULL) {
		DBG_ERR("cannot catch the lease break signal: no kernel "
			"oplocks\n");
		talloc_free(ko);
		return NULL;
	}
	server->kernel_oplocks = ko;
	talloc_set_destructor(ko, ko_destructor);
	return ko;
}

bool smbd_kernel_oplock_signal(struct smbd_server *server)
{
	return ko_get(server) != NULL;
}

/* ---- grant and release ---- */

uint8_t smbd_kernel_oplock_grant(struct smbd_tcon *tcon, struct vfs_fh *fh,
				 const struct statx *st, uint8_t level)
{
	struct smbd_kernel_oplocks *ko = NULL;
	struct ko_lease *l = NULL;

	if (!smbd_kernel_oplocks(tcon->share) ||
	    level == SMB2_OPLOCK_LEVEL_NONE) {
		return level;
	}
	if (!level_exclusive(level) || fh == NULL || fh->is_path_only) {
		return SMB2_OPLOCK_LEVEL_NONE;  /* LEVEL_II cannot be a lease */
	}
	ko = ko_get(tcon->session->conn->server);
	l = ko != NULL ? talloc_zero(fh, struct ko_lease) : NULL;
	if (l == NULL) {
		return SMB2_OPLOCK_LEVEL_NONE;
	}
	if (!smbd_lease_set(fh->fd, F_WRLCK)) {
		/* EAGAIN: another descriptor of the file is open somewhere */
		DBG_INFO("no kernel oplock on fd %d: %s\n", fh->fd,
			 strerror(errno));
		talloc_free(l);
		return SMB2_OPLOCK_LEVEL_NONE;
	}
	l->ko = ko;
	l->fh = fh;
	l->fd = fh->fd;
	l->id = *st;
	DLIST_ADD_SIMPLE(ko->leases, l);
	talloc_set_destructor(l, lease_destructor);
	return level;
}

void smbd_kernel_oplock_release(struct smbd_open *open)
{
	struct smbd_kernel_oplocks *ko = open->server != NULL ?
		open->server->kernel_oplocks : NULL;
	struct ko_lease *l = NULL;

	if (ko == NULL || open->fh == NULL) {
		return;
	}
	l = lease_by_fh(ko, open->fh);
	if (l != NULL) {
		lease_release(l);
	}
}

/* ---- CREATEs blocked by someone else's lease ---- */

static void blocked_prune(struct smbd_kernel_oplocks *ko, time_t now)
{
	struct ko_blocked *b = NULL, *next = NULL;

	for (b = ko->blocked; b != NULL; b = next) {
		next = b->next;
		if (now - b->last > KO_BLOCKED_STALE_SECS) {
			DLIST_REMOVE_SIMPLE(ko->blocked, b);
			talloc_free(b);
		}
	}
}

static struct ko_blocked *blocked_get(struct smbd_kernel_oplocks *ko,
				      const struct statx *st, time_t now)
{
	struct ko_blocked *b = NULL;

	for (b = ko->blocked; b != NULL; b = b->next) {
		if (b->dev_major == st->stx_dev_major &&
		    b->dev_minor == st->stx_dev_minor &&
		    b->ino == st->stx_ino) {
			return b;
		}
	}
	b = talloc_zero(ko, struct ko_blocked);
	if (b == NULL) {
		return NULL;
	}
	b->dev_major = st->stx_dev_major;
	b->dev_minor = st->stx_dev_minor;
	b->ino = st->stx_ino;
	b->first = now;
	DLIST_ADD_SIMPLE(ko->blocked, b);
	return b;
}

NTSTATUS smbd_kernel_oplock_blocked(struct smbd_server *server,
				    const struct statx *st)
{
	struct smbd_kernel_oplocks *ko = ko_get(server);
	time_t now = now_secs();
	time_t bound = 2 * (time_t)server->lp->g.oplock_break_timeout;
	struct ko_blocked *b = NULL;

	if (ko == NULL) {
		return NT_STATUS_SHARING_VIOLATION;
	}
	blocked_prune(ko, now);
	b = blocked_get(ko, st, now);
	if (b == NULL) {
		return NT_STATUS_SHARING_VIOLATION;
	}
	b->last = now;
	if (now - b->first >= bound) {
		DBG_NOTICE("a lease on inode %llu was not given up in %lld s\n",
			   (unsigned long long)st->stx_ino, (long long)bound);
		DLIST_REMOVE_SIMPLE(ko->blocked, b);
		talloc_free(b);
		return NT_STATUS_SHARING_VIOLATION;
	}
	return NT_STATUS_PENDING;
}
