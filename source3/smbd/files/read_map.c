/*
 * Mapped reads (read_map.h): a read lease on an open's descriptor, a
 * mapping of the file, and the READs using it.
 *
 * A struct smbd_read_map is a talloc child of the open's vfs_fh (so it
 * goes with the descriptor, whose close(2) ends the lease) and sits in
 * the server's list, where the break signal finds it by descriptor.  It
 * is in one of three states:
 *
 *   mapped    addr != NULL, lease held: READs may use it
 *   breaking  the same, but no new READ may; released when users == 0
 *   idle      addr == NULL, no lease; tried again from retry_at on
 *
 * A READ using it holds a struct read_map_use (the response's payload
 * owner) and a talloc reference to the vfs_fh.  Everything here runs
 * with the server lock held (the lease signal on worker 0, READs and
 * the frees of their responses on the connection's worker); the bytes
 * themselves are read outside it (the signature's AES pass, the send).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include <tevent.h>
#include "source3/modules/vfs.h"
#include "source3/smbd/files/kernel_oplock.h"
#include "source3/smbd/files/local_fs.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/read_map.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/transport/transport.h"

/* After a break or a refusal, the open takes no lease for this long */
#define READ_MAP_RETRY_SECS 1
/* The largest READ checked with one mincore(2) vector on the stack */
#define READ_MAP_MAX_PAGES 2048
/*
 * Mappings at once: each is a VMA of the process, and vm.max_map_count
 * (65530 by default) also bounds malloc's, the rings' and the threads'
 * mappings, which must never fail because of ours.
 */
#define READ_MAP_MAX_MAPPED 4096
/*
 * READs under "min splice size" map only from an open's this many'th on:
 * a lease and a mapping cost about six system calls, which an open read
 * once or twice in small pieces does not win back.
 */
#define READ_MAP_SMALL_AFTER 8
/*
 * A break waits this long for the READs using the mapping; then the
 * connections still holding one (a client that does not take its
 * responses) are dropped, so a local writer never waits for a client.
 */
#define READ_MAP_BREAK_SECS 5

struct smbd_read_map {
	struct smbd_read_map *prev, *next;      /* server->read_maps */
	struct smbd_server *server;
	struct smbd_open *open;                 /* NULL once it went */
	struct vfs_fh *fh;                      /* our parent */
	int fd;
	struct statx id;                        /* dev and ino: the file */
	uint8_t *addr;                          /* NULL: idle */
	size_t len;                             /* the file's size */
	unsigned users;                         /* READs not yet sent */
	struct read_map_use *uses;              /* they */
	struct tevent_timer *break_te;          /* breaking: the bound */
	bool breaking;
	bool never;             /* not a local file system, or no mapping */
	time_t retry_at;                        /* idle: CLOCK_MONOTONIC s */
};

struct read_map_use {
	struct read_map_use *prev, *next;
	struct smbd_read_map *map;
	struct smbd_conn *conn;                 /* whose response it is */
};

static time_t now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void map_unmap(struct smbd_read_map *m)
{
	if (m->addr != NULL) {
		munmap(m->addr, m->len);
		m->addr = NULL;
		m->len = 0;
		m->server->num_read_maps--;
	}
}

static int map_destructor(struct smbd_read_map *m)
{
	/* the descriptor's close(2) has ended the lease */
	map_unmap(m);
	DLIST_REMOVE_SIMPLE(m->server->read_maps, m);
	if (m->open != NULL) {
		m->open->read_map = NULL;
	}
	return 0;
}

/*
 * Unmap and end the lease: the writer waiting in open(2) goes on, and a
 * CREATE of ours waiting for it is woken.
 */
static void map_release(struct smbd_read_map *m)
{
	struct smbd_file *f = NULL;

	/* first: the writer goes on the moment the lease is gone */
	DBG_NOTICE("fd %d: read lease released\n", m->fd);
	if (!smbd_lease_set(m->fd, F_UNLCK)) {
		DBG_WARNING("releasing the read lease on fd %d: %s\n", m->fd,
			    strerror(errno));
	}
	map_unmap(m);
	m->breaking = false;
	TALLOC_FREE(m->break_te);
	m->retry_at = now_secs() + READ_MAP_RETRY_SECS;
	f = smbd_file_find(m->server, &m->id);
	if (f != NULL) {
		smbd_oplock_wake(f);
	}
}

/*
 * The break waited READ_MAP_BREAK_SECS: the responses still using the
 * mapping sit in sockets their clients do not read.  Their connections
 * go; the last use's end releases the lease.
 */
static void map_break_timeout(struct tevent_context *ev,
			      struct tevent_timer *te, struct timeval now,
			      void *private_data)
{
	struct smbd_read_map *m = talloc_get_type_abort(
		private_data, struct smbd_read_map);
	struct read_map_use *u = NULL, *next = NULL;

	m->break_te = NULL;                     /* tevent frees it */
	DBG_NOTICE("fd %d: %u READ responses not taken in %d s hold a "
		   "writer off the file: dropping their connections\n",
		   m->fd, m->users, READ_MAP_BREAK_SECS);
	for (u = m->uses; u != NULL; u = next) {
		next = u->next;
		smbd_conn_terminate(u->conn, "its READ responses hold a "
				    "writer off a file");
	}
}

/* No new READ; released now if none is using it, else bounded. */
static void map_break(struct smbd_read_map *m)
{
	if (m->addr == NULL) {
		return;
	}
	m->breaking = true;
	if (m->users == 0) {
		map_release(m);
		return;
	}
	if (m->break_te == NULL) {
		m->break_te = tevent_add_timer(
			m->server->ev, m,
			tevent_timeval_current_ofs(READ_MAP_BREAK_SECS, 0),
			map_break_timeout, m);
	}
}

static int use_destructor(struct read_map_use *u)
{
	struct smbd_read_map *m = u->map;

	DLIST_REMOVE_SIMPLE(m->uses, u);
	if (--m->users == 0 && m->breaking) {
		map_release(m);
	}
	return 0;
}

/* ---- taking the lease and mapping ---- */

/* Lease, then size (fixed while it is held), then mapping. */
static bool map_open(struct smbd_read_map *m)
{
	struct statx st;
	void *addr = NULL;
	int ret;

	m->retry_at = now_secs() + READ_MAP_RETRY_SECS;
	if (m->server->num_read_maps >= READ_MAP_MAX_MAPPED ||
	    !smbd_kernel_oplock_signal(m->server)) {
		return false;
	}
	if (!smbd_lease_set(m->fd, F_RDLCK)) {
		/* EAGAIN: the file is open for writing somewhere */
		DBG_DEBUG("fd %d: no read lease: %s\n", m->fd,
			  strerror(errno));
		return false;
	}
	if (!NT_STATUS_IS_OK(vfs_fstat(m->fh, &st)) ||
	    !S_ISREG(st.stx_mode) || st.stx_size == 0 ||
	    st.stx_size > SIZE_MAX) {
		(void)smbd_lease_set(m->fd, F_UNLCK);
		return false;
	}
	ret = vfs_map_read(m->fh, (size_t)st.stx_size, &addr);
	if (ret != 0) {
		DBG_DEBUG("fd %d: not mapped: %s\n", m->fd, strerror(-ret));
		m->never = ret == -ENOSYS;      /* this stack cannot, ever */
		(void)smbd_lease_set(m->fd, F_UNLCK);
		return false;
	}
	m->id = st;
	m->addr = addr;
	m->len = (size_t)st.stx_size;
	m->server->num_read_maps++;
	DBG_NOTICE("fd %d: %zu bytes mapped under a read lease\n", m->fd,
		 m->len);
	return true;
}

static struct smbd_read_map *map_new(struct smbd_open *open)
{
	struct smbd_read_map *m = talloc_zero(open->fh, struct smbd_read_map);

	if (m == NULL) {
		return NULL;
	}
	m->server = open->server;
	m->open = open;
	m->fh = open->fh;
	m->fd = open->fh->fd;
	DLIST_ADD_SIMPLE(open->server->read_maps, m);
	talloc_set_destructor(m, map_destructor);
	open->read_map = m;
	return m;
}

/* May READs of this open use a mapping at all (read_map.h)? */
static bool open_may_map(const struct smbd_request *req)
{
	const struct smbd_open *open = req->open;
	const struct lp_share *share = req->tcon->share;

	return share->read_mode == LP_READ_MODE_AUTO &&
	       !smbd_kernel_oplocks(share) && open->fh != NULL &&
	       !open->fh->is_path_only && open->fh->stream == NULL &&
	       open->file != NULL && !smbd_file_has_writer(open->file);
}

/* Are the pages of [p, p + len) in the page cache? */
static bool resident(const uint8_t *base, size_t off, size_t len)
{
	unsigned char vec[READ_MAP_MAX_PAGES];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t first = off / page;
	size_t n = (off + len + page - 1) / page - first;
	size_t i;

	if (n > READ_MAP_MAX_PAGES ||
	    mincore((void *)(base + first * page), n * page, vec) != 0) {
		return false;
	}
	for (i = 0; i < n; i++) {
		if ((vec[i] & 1) == 0) {
			return false;
		}
	}
	return true;
}

const uint8_t *smbd_read_map_get(TALLOC_CTX *mem_ctx,
				 const struct smbd_request *req,
				 uint64_t off, size_t len, size_t *got,
				 void **owner)
{
	struct smbd_open *open = req->open;
	struct smbd_read_map *m = open->read_map;
	struct read_map_use *u = NULL;
	size_t n;

	if (len == 0 || !open_may_map(req)) {
		return NULL;
	}
	if (m == NULL && len < (size_t)req->tcon->share->min_splice_size &&
	    ++open->read_map_small < READ_MAP_SMALL_AFTER) {
		return NULL;
	}
	if (m == NULL) {
		m = map_new(open);
		if (m == NULL) {
			return NULL;
		}
		/* only where a lease holds off every writer: asked once */
		m->never = !smbd_local_fs(open->fh->fd);
		m->retry_at = 0;
	}
	if (m->never) {
		return NULL;
	}
	if (m->addr == NULL &&
	    (now_secs() < m->retry_at || !map_open(m))) {
		return NULL;
	}
	if (m->breaking || off >= m->len) {
		return NULL;                    /* past the end: copy answers */
	}
	n = len < m->len - off ? len : m->len - (size_t)off;
	if (!resident(m->addr, (size_t)off, n)) {
		return NULL;
	}
	u = talloc(mem_ctx, struct read_map_use);
	if (u == NULL || talloc_reference(u, m->fh) == NULL) {
		talloc_free(u);
		return NULL;
	}
	u->map = m;
	u->conn = req->conn;
	DLIST_ADD_SIMPLE(m->uses, u);
	m->users++;
	talloc_set_destructor(u, use_destructor);
	open->server->stats.reads_mapped++;
	*got = n;
	*owner = u;
	return m->addr + off;
}

/* ---- breaks ---- */

bool smbd_read_map_break(struct smbd_server *server, int fd)
{
	struct smbd_read_map *m = NULL;

	for (m = server->read_maps; m != NULL; m = m->next) {
		if (m->fd == fd && m->addr != NULL) {
			break;
		}
	}
	if (m == NULL) {
		return false;
	}
	if (fcntl(fd, F_GETLEASE) == F_RDLCK) {
		return true;    /* not being broken: a late signal */
	}
	DBG_NOTICE("fd %d: the file is being opened for writing: read lease "
		 "breaks (%u READs in flight)\n", fd, m->users);
	map_break(m);
	return true;
}

bool smbd_read_map_yield(struct smbd_server *server,
			 const struct statx *st)
{
	struct smbd_read_map *m = NULL;
	bool released = false, clear = true;

	for (m = server->read_maps; m != NULL; m = m->next) {
		if (m->addr == NULL || m->id.stx_ino != st->stx_ino ||
		    m->id.stx_dev_major != st->stx_dev_major ||
		    m->id.stx_dev_minor != st->stx_dev_minor) {
			continue;
		}
		DBG_NOTICE("fd %d: read lease given up for our own open for "
			 "writing (%u READs in flight)\n", m->fd, m->users);
		map_break(m);
		released = released || m->addr == NULL;
		clear = clear && m->addr == NULL;
	}
	return released && clear;
}

void smbd_read_map_open_gone(struct smbd_open *open)
{
	if (open->read_map != NULL) {
		open->read_map->open = NULL;
		open->read_map = NULL;
	}
}
