/*
 * Kept directory names for case-insensitive misses.
 *
 * Why: before a CREATE makes a new name in a case-insensitive share,
 * casefold.c must know that no entry differs from it only in case, and
 * it learns that by listing the parent: linear in the entries, for every
 * new file.  Creating 3,000 files in one folder lists it 3,000 times; the
 * create row of make bench-smb2bench spent about half of the server's CPU
 * in getdents and the comparisons (Samba lists the same way).
 *
 * How: the names of up to CFD_MAX_DIRS directories (and CFD_MAX_BYTES
 * of names in all: a directory that would pass it is not kept, the least
 * recently used goes first when the count is reached), hashed with
 * casefold_hash, each under an inotify watch (IN_CREATE, IN_DELETE,
 * IN_MOVED_FROM, IN_MOVED_TO).  Every lookup first reads the queued
 * events (one read(2), EAGAIN when nothing happened) and applies them.
 * The kernel queues an event before the call that changed the directory
 * returns, so after that read the kept names are what a listing would
 * show at that moment: as exact as the listing it replaces, which a
 * create by someone else can overtake just the same between the scan and
 * the open.  The watch is added before the directory is listed, and add
 * and remove are idempotent, so a change made during the listing ends as
 * its last event says.
 *
 * Where inotify does not see every change, nothing is kept: only local
 * file systems whose every change on this host reaches inotify (ext2/3/4,
 * xfs, btrfs, tmpfs, f2fs), not NFS, SMB, FUSE or cluster file systems,
 * where another host changes a directory unseen.  A queue overflow
 * forgets everything.
 *
 * Permission: the caller has opened the directory for reading as the
 * user, the same check as its listing; the watch is the daemon's, and the
 * names it keeps are only handed out after that check.
 *
 * Concurrency: one mutex over the cache.  Callers are under the server
 * lock already; the mutex keeps this file correct on its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>
#include "source3/modules/vfs.h"
#include "source3/smbd/files/casefold.h"
#include "source3/smbd/files/casefold_dirs.h"
#include "source3/smbd/files/local_fs.h"

#define CFD_MAX_DIRS 256
/* memory for names over all directories, counting malloc's own 16 bytes */
#define CFD_MAX_BYTES (16u << 20)
#define CFD_FIRST_BUCKETS 64u
#define CFD_MAX_READS 256               /* per drain, then forget all */
#define CFD_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		    IN_DELETE_SELF | IN_ONLYDIR)

struct cfd_name {
	struct cfd_name *next;
	uint32_t hash;
	char name[];
};

struct cfd_dir {
	struct cfd_dir *prev, *next;    /* most recently used first */
	uint64_t dev, ino;
	int wd;
	uint32_t nbuckets;              /* a power of two */
	uint32_t count;
	size_t bytes;
	struct cfd_name **buckets;
};

/* fd: -1 none yet, -2 cannot be had (no inotify) */
static struct {
	pthread_mutex_t mutex;
	int fd;
	struct cfd_dir *head, *tail;
	unsigned ndirs;
	size_t bytes;
	struct casefold_dirs_counts counts;
} cfd = { PTHREAD_MUTEX_INITIALIZER, -1, NULL, NULL, 0, 0, { 0, 0, 0 } };

static void cfd_unlink(struct cfd_dir *d)
{
	if (d->prev != NULL) {
		d->prev->next = d->next;
	} else {
		cfd.head = d->next;
	}
	if (d->next != NULL) {
		d->next->prev = d->prev;
	} else {
		cfd.tail = d->prev;
	}
	d->prev = d->next = NULL;
}

static void cfd_push(struct cfd_dir *d)
{
	d->prev = NULL;
	d->next = cfd.head;
	if (cfd.head != NULL) {
		cfd.head->prev = d;
	} else {
		cfd.tail = d;
	}
	cfd.head = d;
}

/* Forget d; rm: its watch is still the kernel's (not IN_IGNORED yet) */
static void cfd_drop(struct cfd_dir *d, bool rm)
{
	uint32_t i;

	if (rm && cfd.fd >= 0) {
		inotify_rm_watch(cfd.fd, d->wd);
	}
	for (i = 0; i < d->nbuckets; i++) {
		while (d->buckets[i] != NULL) {
			struct cfd_name *n = d->buckets[i];

			d->buckets[i] = n->next;
			free(n);
		}
	}
	cfd.bytes -= d->bytes;
	cfd.ndirs--;
	cfd_unlink(d);
	free(d->buckets);
	free(d);
}

/* Every directory and the inotify instance (its watches go with it) */
static void cfd_forget_all(void)
{
	while (cfd.head != NULL) {
		cfd_drop(cfd.head, false);
	}
	if (cfd.fd >= 0) {
		close(cfd.fd);
	}
	cfd.fd = -1;
}

static struct cfd_name **cfd_slot(struct cfd_dir *d, uint32_t hash)
{
	return &d->buckets[hash & (d->nbuckets - 1)];
}

static bool cfd_grow(struct cfd_dir *d)
{
	uint32_t old = d->nbuckets;
	struct cfd_name **b = calloc((size_t)old * 2, sizeof(*b));
	uint32_t i;

	if (b == NULL) {
		return false;
	}
	for (i = 0; i < old; i++) {
		while (d->buckets[i] != NULL) {
			struct cfd_name *n = d->buckets[i];

			d->buckets[i] = n->next;
			n->next = b[n->hash & (old * 2 - 1)];
			b[n->hash & (old * 2 - 1)] = n;
		}
	}
	free(d->buckets);
	d->buckets = b;
	d->nbuckets = old * 2;
	return true;
}

static size_t cfd_size(size_t len)
{
	return sizeof(struct cfd_name) + len + 1 + 16;
}

/* name is in d; false: out of room (the caller forgets d) */
static bool cfd_add(struct cfd_dir *d, const char *name)
{
	uint32_t hash = casefold_hash(name);
	size_t len = strlen(name);
	struct cfd_name *n = NULL;

	for (n = *cfd_slot(d, hash); n != NULL; n = n->next) {
		if (n->hash == hash && strcmp(n->name, name) == 0) {
			return true;
		}
	}
	if (cfd.bytes + cfd_size(len) > CFD_MAX_BYTES ||
	    (d->count >= d->nbuckets && !cfd_grow(d))) {
		return false;
	}
	n = malloc(sizeof(*n) + len + 1);
	if (n == NULL) {
		return false;
	}
	n->hash = hash;
	memcpy(n->name, name, len + 1);
	n->next = *cfd_slot(d, hash);
	*cfd_slot(d, hash) = n;
	d->count++;
	d->bytes += cfd_size(len);
	cfd.bytes += cfd_size(len);
	return true;
}

static void cfd_remove(struct cfd_dir *d, const char *name)
{
	uint32_t hash = casefold_hash(name);
	struct cfd_name **p = cfd_slot(d, hash);

	for (; *p != NULL; p = &(*p)->next) {
		if ((*p)->hash == hash && strcmp((*p)->name, name) == 0) {
			struct cfd_name *n = *p;

			*p = n->next;
			d->count--;
			d->bytes -= cfd_size(strlen(n->name));
			cfd.bytes -= cfd_size(strlen(n->name));
			free(n);
			return;
		}
	}
}

/* The bytewise-least entry of d matching name, or NULL */
static const char *cfd_match(struct cfd_dir *d, const char *name)
{
	uint32_t hash = casefold_hash(name);
	const struct cfd_name *n = NULL;
	const char *best = NULL;

	for (n = *cfd_slot(d, hash); n != NULL; n = n->next) {
		if (n->hash == hash && casefold_equal(n->name, name) &&
		    (best == NULL || strcmp(n->name, best) < 0)) {
			best = n->name;
		}
	}
	return best;
}

static struct cfd_dir *cfd_by_wd(int wd)
{
	struct cfd_dir *d = NULL;

	for (d = cfd.head; d != NULL && d->wd != wd; d = d->next) {
	}
	return d;
}

static struct cfd_dir *cfd_by_id(uint64_t dev, uint64_t ino)
{
	struct cfd_dir *d = NULL;

	for (d = cfd.head; d != NULL && (d->dev != dev || d->ino != ino);
	     d = d->next) {
	}
	return d;
}

static void cfd_apply(const struct inotify_event *ev)
{
	struct cfd_dir *d = cfd_by_wd(ev->wd);

	if (d == NULL) {
		return;                 /* a dropped directory's late event */
	}
	if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_UNMOUNT)) {
		cfd_drop(d, false);     /* the kernel ends the watch itself */
		return;
	}
	if (ev->len == 0) {
		return;
	}
	if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && !cfd_add(d, ev->name)) {
		cfd_drop(d, true);
	} else if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
		cfd_remove(d, ev->name);
	}
}

/* Applies every queued event; false: forgot everything (overflow) */
static bool cfd_drain(void)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int reads;

	for (reads = 0; reads < CFD_MAX_READS; reads++) {
		ssize_t n = read(cfd.fd, buf, sizeof(buf));
		ssize_t off = 0;

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return true;
		}
		if (n <= 0) {
			break;
		}
		while (off + (ssize_t)sizeof(struct inotify_event) <= n) {
			const struct inotify_event *ev =
				(const void *)(buf + off);

			if (ev->mask & IN_Q_OVERFLOW) {
				cfd.counts.resets++;
				cfd_forget_all();
				return false;
			}
			cfd_apply(ev);
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
	}
	/* an error, or changes faster than they can be read: start over */
	cfd.counts.resets++;
	cfd_forget_all();
	return false;
}

static bool cfd_have_fd(void)
{
	if (cfd.fd == -1) {
		cfd.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (cfd.fd < 0) {
			cfd.fd = -2;
		}
	}
	return cfd.fd >= 0;
}

/* A new kept directory for dir, watched, still empty; NULL: cannot */
static struct cfd_dir *cfd_new(struct vfs_fh *dir, uint64_t dev,
			       uint64_t ino)
{
	char proc[48];
	struct cfd_dir *d = NULL;
	int wd;

	if (!smbd_local_fs(dir->fd)) {
		return NULL;
	}
	if (cfd.ndirs >= CFD_MAX_DIRS) {
		cfd_drop(cfd.tail, true);
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dir->fd);
	wd = inotify_add_watch(cfd.fd, proc, CFD_EVENTS);
	if (wd < 0) {
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d != NULL) {
		d->buckets = calloc(CFD_FIRST_BUCKETS, sizeof(*d->buckets));
	}
	if (d == NULL || d->buckets == NULL) {
		free(d);
		inotify_rm_watch(cfd.fd, wd);
		return NULL;
	}
	if (cfd_by_wd(wd) != NULL) {
		cfd_drop(cfd_by_wd(wd), false);  /* the same inode, renumbered */
	}
	d->dev = dev;
	d->ino = ino;
	d->wd = wd;
	d->nbuckets = CFD_FIRST_BUCKETS;
	cfd_push(d);
	cfd.ndirs++;
	return d;
}

/*
 * Lists dir into d (d NULL or dropped on the way: only the answer), and
 * answers: the bytewise-least match in *found.
 */
static NTSTATUS cfd_list(TALLOC_CTX *mem_ctx, struct vfs_fh *dir,
			 struct cfd_dir *d, const char *name, char **found)
{
	struct vfs_dir *vd = NULL;
	struct vfs_dirent ent;
	NTSTATUS status = vfs_opendir(mem_ctx, dir, &vd);
	NTSTATUS r = NT_STATUS_OK;

	while (NT_STATUS_IS_OK(status) &&
	       NT_STATUS_IS_OK(r = vfs_readdir(vd, &ent))) {
		if (d != NULL && !cfd_add(d, ent.name)) {
			cfd_drop(d, true);
			d = NULL;
		}
		if (casefold_equal(ent.name, name) &&
		    (*found == NULL || strcmp(ent.name, *found) < 0)) {
			talloc_free(*found);
			*found = talloc_strdup(mem_ctx, ent.name);
			status = *found ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
		}
	}
	if (d != NULL && (!NT_STATUS_IS_OK(status) ||
			  !NT_STATUS_EQUAL(r, NT_STATUS_NO_MORE_FILES))) {
		cfd_drop(d, true);      /* not the whole directory */
	}
	talloc_free(vd);
	return NT_STATUS_EQUAL(status, NT_STATUS_NO_MEMORY) ? status :
		NT_STATUS_OK;
}

bool casefold_dirs_find(TALLOC_CTX *mem_ctx, struct vfs_fh *dir,
			const struct statx *st, const char *name,
			char **found, NTSTATUS *status)
{
	uint64_t dev = ((uint64_t)st->stx_dev_major << 32) |
		       st->stx_dev_minor;
	struct cfd_dir *d = NULL;
	const char *hit = NULL;
	bool answered = true;

	*found = NULL;
	*status = NT_STATUS_OK;
	pthread_mutex_lock(&cfd.mutex);
	if (!cfd_have_fd() || (!cfd_drain() && !cfd_have_fd())) {
		pthread_mutex_unlock(&cfd.mutex);
		return false;
	}
	d = cfd_by_id(dev, st->stx_ino);
	if (d != NULL) {
		cfd_unlink(d);
		cfd_push(d);
		cfd.counts.hits++;
		hit = cfd_match(d, name);
		if (hit != NULL) {
			*found = talloc_strdup(mem_ctx, hit);
			*status = *found ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
		}
	} else if ((d = cfd_new(dir, dev, st->stx_ino)) != NULL) {
		cfd.counts.lists++;
		*status = cfd_list(mem_ctx, dir, d, name, found);
	} else {
		answered = false;
	}
	pthread_mutex_unlock(&cfd.mutex);
	return answered;
}

void casefold_dirs_counts(struct casefold_dirs_counts *out)
{
	pthread_mutex_lock(&cfd.mutex);
	*out = cfd.counts;
	pthread_mutex_unlock(&cfd.mutex);
}

void casefold_dirs_reset(void)
{
	pthread_mutex_lock(&cfd.mutex);
	cfd_forget_all();
	pthread_mutex_unlock(&cfd.mutex);
}
