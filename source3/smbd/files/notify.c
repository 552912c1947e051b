/*
 * Directory change notification on inotify (notify.h says why one
 * instance per server, and what is bounded).
 *
 * Objects: a watch is one inotify watch descriptor (one directory
 * inode); a watcher is one open that asked for notifications; a link
 * joins them and carries the directory's path relative to the watcher's
 * directory ("" for the directory itself, "a/b" below it for
 * WATCH_TREE).  Links are children of their watcher; the last link of a
 * watch removes the inotify watch.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "lib/smb2/smb2.h"
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/files/notify.h"

#define NOTIFY_BUCKETS 256
/* reads per wakeup: a flood of events must not starve the loop */
#define NOTIFY_MAX_READS 16
#define NOTIFY_NAME_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | \
			    IN_MOVED_TO)
#define NOTIFY_ATTRIB_FILTER (SMB2_FILE_NOTIFY_CHANGE_ATTRIBUTES | \
			      SMB2_FILE_NOTIFY_CHANGE_LAST_WRITE | \
			      SMB2_FILE_NOTIFY_CHANGE_LAST_ACCESS | \
			      SMB2_FILE_NOTIFY_CHANGE_CREATION | \
			      SMB2_FILE_NOTIFY_CHANGE_EA | \
			      SMB2_FILE_NOTIFY_CHANGE_SECURITY)

struct notify_link;

struct notify_watch {
	struct notify_watch *prev, *next;       /* in its hash bucket */
	struct smbd_notify_ctx *ctx;
	int wd;
	bool gone;                              /* IN_IGNORED seen */
	struct notify_link *links;
};

struct notify_link {
	struct notify_link *prev, *next;        /* the watcher's links */
	struct notify_link *wprev, *wnext;      /* the watch's links */
	struct notify_watch *watch;
	struct smbd_notify_watcher *w;
	char *rel;
	unsigned depth;
};

struct smbd_notify_ctx {
	struct tevent_context *ev;
	int fd;
	struct tevent_fd *fde;
	struct notify_watch *buckets[NOTIFY_BUCKETS];
	size_t num_watches;
	size_t max_watches;
	struct smbd_notify_watcher *watchers;
};

struct smbd_notify_watcher {
	struct smbd_notify_watcher *prev, *next;        /* ctx->watchers */
	struct smbd_notify_ctx *ctx;    /* NULL once the ctx is gone */
	int dirfd;
	/* whose rights opening and watching subdirectories uses */
	const struct unix_token *const *token; /* NULL or *token NULL: as the daemon */
	uint32_t filter;
	uint32_t mask;
	bool tree;
	uint32_t max_buffer;
	struct notify_link *links;
	size_t num_links;
	struct smbd_notify_change *changes;
	size_t num_changes;
	size_t bytes;                   /* encoded size of changes */
	bool overflow;
	/* a RENAMED_OLD_NAME waiting for its MOVED_TO (same cookie) */
	bool move_pending;
	uint32_t move_cookie;
	char *move_dir;                 /* rel of a directory moved away */
	char *gone_dir;                 /* ... that did not come back */
	/* touched in the current batch of events */
	bool touched;
	struct smbd_notify_watcher *touched_next;
	smbd_notify_fn fn;
	void *priv;
};

/* --- pure parts ----------------------------------------------------- */

uint32_t smbd_notify_filter_mask(uint32_t filter, bool tree)
{
	uint32_t m = 0;

	if (filter & (SMB2_FILE_NOTIFY_CHANGE_FILE_NAME |
		      SMB2_FILE_NOTIFY_CHANGE_DIR_NAME)) {
		m |= NOTIFY_NAME_EVENTS;
	}
	if (filter & (SMB2_FILE_NOTIFY_CHANGE_SIZE |
		      SMB2_FILE_NOTIFY_CHANGE_LAST_WRITE)) {
		m |= IN_MODIFY;
	}
	/* times, mode, owner and xattrs (DOS attributes, EAs, ACLs) */
	if (filter & NOTIFY_ATTRIB_FILTER) {
		m |= IN_ATTRIB;
	}
	if (tree && m != 0) {
		/* new and moved subdirectories keep their watches right */
		m |= IN_CREATE | IN_MOVED_FROM | IN_MOVED_TO;
	}
	return m;
}

uint32_t smbd_notify_event_filter(uint32_t mask)
{
	uint32_t f = 0;

	if (mask & NOTIFY_NAME_EVENTS) {
		return (mask & IN_ISDIR) ? SMB2_FILE_NOTIFY_CHANGE_DIR_NAME :
			SMB2_FILE_NOTIFY_CHANGE_FILE_NAME;
	}
	if (mask & IN_MODIFY) {
		f |= SMB2_FILE_NOTIFY_CHANGE_SIZE |
			SMB2_FILE_NOTIFY_CHANGE_LAST_WRITE;
	}
	if (mask & IN_ATTRIB) {
		f |= NOTIFY_ATTRIB_FILTER;
	}
	return f;
}

size_t smbd_notify_encoded_size(const struct smbd_notify_change *changes,
				size_t n)
{
	size_t total = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		total = smb2_notify_info_list_add(total, changes[i].name_len);
	}
	return total;
}

NTSTATUS smbd_notify_encode(TALLOC_CTX *mem_ctx,
			    const struct smbd_notify_change *changes,
			    size_t n, uint32_t max_len,
			    uint8_t **out, size_t *out_len)
{
	size_t len = smbd_notify_encoded_size(changes, n);
	size_t ofs = 0;
	uint8_t *buf = NULL;
	size_t i;

	*out = NULL;
	*out_len = 0;
	if (n == 0 || len > max_len) {
		return NT_STATUS_NOTIFY_ENUM_DIR;
	}
	buf = talloc_zero_array(mem_ctx, uint8_t, len);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n; i++) {
		const struct smb2_notify_info e = {
			.action = changes[i].action,
			.name = changes[i].name,
			.name_len = changes[i].name_len,
		};
		size_t done = smb2_notify_info_push(&e, i + 1 == n,
						    buf + ofs, len - ofs);

		if (done == 0) {
			TALLOC_FREE(buf);	/* sized above: cannot be */
			return NT_STATUS_INTERNAL_ERROR;
		}
		ofs += done;
	}
	*out = buf;
	*out_len = len;
	return NT_STATUS_OK;
}

/* --- watches and links --------------------------------------------- */

static struct notify_watch **bucket(struct smbd_notify_ctx *ctx, int wd)
{
	return &ctx->buckets[(unsigned)wd % NOTIFY_BUCKETS];
}

static struct notify_watch *watch_find(struct smbd_notify_ctx *ctx, int wd)
{
	struct notify_watch *watch = NULL;

	for (watch = *bucket(ctx, wd); watch != NULL; watch = watch->next) {
		if (watch->wd == wd) {
			return watch;
		}
	}
	return NULL;
}

static void watch_free(struct notify_watch *watch)
{
	struct smbd_notify_ctx *ctx = watch->ctx;

	if (!watch->gone) {
		inotify_rm_watch(ctx->fd, watch->wd);
	}
	DLIST_REMOVE_SIMPLE(*bucket(ctx, watch->wd), watch);
	ctx->num_watches--;
	talloc_free(watch);
}

static void watch_unlink(struct notify_watch *watch, struct notify_link *l)
{
	if (l->wprev != NULL) {
		l->wprev->wnext = l->wnext;
	} else {
		watch->links = l->wnext;
	}
	if (l->wnext != NULL) {
		l->wnext->wprev = l->wprev;
	}
	l->wprev = l->wnext = NULL;
	l->watch = NULL;
}

static int link_destructor(struct notify_link *l)
{
	struct notify_watch *watch = l->watch;

	DLIST_REMOVE_SIMPLE(l->w->links, l);
	l->w->num_links--;
	if (watch == NULL) {
		return 0;
	}
	watch_unlink(watch, l);
	if (watch->links == NULL && !watch->gone) {
		watch_free(watch);
	}
	return 0;
}

/* The kernel dropped the watch (directory deleted, or unmounted). */
static void watch_gone(struct notify_watch *watch)
{
	watch->gone = true;
	while (watch->links != NULL) {
		talloc_free(watch->links);
	}
	watch_free(watch);
}

static struct notify_link *watch_link_of(struct notify_watch *watch,
					 struct smbd_notify_watcher *w)
{
	struct notify_link *l = NULL;

	for (l = watch->links; l != NULL; l = l->wnext) {
		if (l->w == w) {
			return l;
		}
	}
	return NULL;
}

/* Everything that is lost from now on is reported as NOTIFY_ENUM_DIR. */
static void watcher_overflow(struct smbd_notify_watcher *w)
{
	TALLOC_FREE(w->changes);
	w->num_changes = 0;
	w->bytes = 0;
	w->move_pending = false;
	w->overflow = true;
}

/* A directory moved inside the tree: its links and those below move. */
static void links_renamed(struct smbd_notify_watcher *w, const char *from,
			  const char *to)
{
	size_t flen = strlen(from);
	struct notify_link *l = NULL;

	for (l = w->links; l != NULL; l = l->next) {
		char *rel = NULL;

		if (strncmp(l->rel, from, flen) != 0 ||
		    (l->rel[flen] != '\0' && l->rel[flen] != '/')) {
			continue;
		}
		rel = talloc_asprintf(l, "%s%s", to, l->rel + flen);
		if (rel == NULL) {
			watcher_overflow(w);
			return;
		}
		talloc_free(l->rel);
		l->rel = rel;
	}
}

static struct notify_watch *watch_get(struct smbd_notify_ctx *ctx, int wd)
{
	struct notify_watch *watch = watch_find(ctx, wd);

	if (watch != NULL) {
		return watch;
	}
	if (ctx->num_watches >= ctx->max_watches) {
		inotify_rm_watch(ctx->fd, wd);
		return NULL;
	}
	watch = talloc_zero(ctx, struct notify_watch);
	if (watch == NULL) {
		inotify_rm_watch(ctx->fd, wd);
		return NULL;
	}
	watch->ctx = ctx;
	watch->wd = wd;
	DLIST_ADD_SIMPLE(*bucket(ctx, wd), watch);
	ctx->num_watches++;
	return watch;
}

static int add_watch(struct smbd_notify_ctx *ctx, int fd, uint32_t mask)
{
	char path[64];

	/* the magic link names the directory we already opened safely */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return inotify_add_watch(ctx->fd, path, mask | IN_MASK_ADD |
				 IN_ONLYDIR);
}

/* Watch the directory open as fd for w; false: w overflowed. */
static bool watcher_link(struct smbd_notify_watcher *w, int fd,
			 const char *rel, unsigned depth)
{
	struct notify_watch *watch = NULL;
	struct notify_link *l = NULL;
	int wd = -1;

	if (w->overflow || w->num_links > SMBD_NOTIFY_MAX_TREE_DIRS) {
		watcher_overflow(w);
		return false;
	}
	wd = add_watch(w->ctx, fd, w->mask);
	watch = wd < 0 ? NULL : watch_get(w->ctx, wd);
	if (watch == NULL) {
		DBG_INFO("notify: cannot watch %s: %s\n", rel,
			 wd < 0 ? strerror(errno) : "too many watches");
		watcher_overflow(w);
		return false;
	}
	l = watch_link_of(watch, w);
	if (l != NULL) {
		if (strcmp(l->rel, rel) != 0) {
			char *from = talloc_strdup(w, l->rel);

			if (from == NULL) {
				watcher_overflow(w);
				return false;
			}
			links_renamed(w, from, rel);
			talloc_free(from);
		}
		return true;
	}
	l = talloc_zero(w, struct notify_link);
	if (l == NULL || (l->rel = talloc_strdup(l, rel)) == NULL) {
		talloc_free(l);
		watcher_overflow(w);
		return false;
	}
	l->w = w;
	l->depth = depth;
	l->watch = watch;
	l->wnext = watch->links;
	if (watch->links != NULL) {
		watch->links->wprev = l;
	}
	watch->links = l;
	DLIST_ADD_SIMPLE(w->links, l);
	w->num_links++;
	talloc_set_destructor(l, link_destructor);
	return true;
}

/*
 * Opening and watching directories runs as the watcher's user, so a
 * tree watch reaches only the directories that user may read.
 */
static int watcher_become(const struct smbd_notify_watcher *w)
{
	return w->token != NULL && *w->token != NULL ?
		unix_token_become(*w->token) : unix_token_become_root();
}

static void watcher_unbecome(const struct smbd_notify_watcher *w)
{
	unix_token_unbecome();
}

/* --- WATCH_TREE: subdirectories ------------------------------------ */

static void tree_add(struct smbd_notify_watcher *w, int parent_fd,
		     const char *parent_rel, const char *name, unsigned depth);

static bool is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

static void tree_walk(struct smbd_notify_watcher *w, int fd,
		      const char *rel, unsigned depth)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *de = NULL;

	if (d == NULL) {
		if (dfd >= 0) {
			close(dfd);
		}
		return;                 /* unreadable: nothing to add */
	}
	while (!w->overflow && (de = readdir(d)) != NULL) {
		if (is_dot(de->d_name) ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)) {
			continue;
		}
		tree_add(w, dfd, rel, de->d_name, depth + 1);
	}
	closedir(d);
}

static void tree_add(struct smbd_notify_watcher *w, int parent_fd,
		     const char *parent_rel, const char *name, unsigned depth)
{
	char *rel = NULL;
	int fd = -1;

	if (depth > SMBD_NOTIFY_MAX_DEPTH) {
		watcher_overflow(w);
		return;
	}
	/* O_NOFOLLOW: a symlink to a directory is not part of the tree */
	fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0) {
		return;                 /* not a directory, or gone already */
	}
	rel = parent_rel[0] == '\0' ? talloc_strdup(w, name) :
		talloc_asprintf(w, "%s/%s", parent_rel, name);
	if (rel == NULL) {
		watcher_overflow(w);
	} else if (watcher_link(w, fd, rel, depth)) {
		tree_walk(w, fd, rel, depth);
	}
	talloc_free(rel);
	close(fd);
}

/* A directory appeared below link l's directory: watch it too. */
static void tree_event_dir(struct notify_link *l, const char *name)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			RESOLVE_NO_MAGICLINKS,
	};
	const char *rel = l->rel[0] == '\0' ? "." : l->rel;
	int fd = -1;

	if (watcher_become(l->w) != 0) {
		return;
	}
	fd = syscall(SYS_openat2, l->w->dirfd, rel, &how, sizeof(how));
	if (fd >= 0) {
		tree_add(l->w, fd, l->rel, name, l->depth + 1);
		close(fd);
	}
	watcher_unbecome(l->w);
}

/* --- changes --------------------------------------------------------- */

static bool change_same(const struct smbd_notify_change *c, uint32_t action,
			const uint8_t *name, size_t len)
{
	return c->action == action && c->name_len == len &&
		memcmp(c->name, name, len) == 0;
}

static void change_append(struct smbd_notify_watcher *w, uint32_t action,
			  uint8_t *name, size_t len)
{
	struct smbd_notify_change *c = NULL;
	size_t bytes = smb2_notify_info_list_add(w->bytes, len);

	/* a burst of writes to one file is one MODIFIED (as Samba) */
	if (w->num_changes > 0 &&
	    change_same(&w->changes[w->num_changes - 1], action, name, len)) {
		talloc_free(name);
		return;
	}
	if (w->num_changes >= SMBD_NOTIFY_MAX_CHANGES ||
	    bytes > w->max_buffer) {
		talloc_free(name);
		watcher_overflow(w);
		return;
	}
	c = talloc_realloc(w, w->changes, struct smbd_notify_change,
			   w->num_changes + 1);
	if (c == NULL) {
		talloc_free(name);
		watcher_overflow(w);
		return;
	}
	w->changes = c;
	c[w->num_changes] = (struct smbd_notify_change){
		.action = action, .name = talloc_steal(c, name),
		.name_len = len,
	};
	w->num_changes++;
	w->bytes = bytes;
}

/* rel/name as a relative Windows path in UTF-16LE, then buffered. */
/* Is an ADDED of this (UTF-16) name still waiting for the client? */
static bool change_added_pending(const struct smbd_notify_watcher *w,
				 const uint8_t *u, size_t len)
{
	size_t i;

	for (i = 0; i < w->num_changes; i++) {
		const struct smbd_notify_change *c = &w->changes[i];

		if (c->action == SMBD_NOTIFY_ACTION_ADDED &&
		    c->name_len == len && memcmp(c->name, u, len) == 0) {
			return true;
		}
	}
	return false;
}

/*
 * attrib_only: the event is an attribute change alone (IN_ATTRIB).  It
 * is dropped while an ADDED of the same name waits: the server itself
 * stores a new file's DOS attributes (an xattr) right after creating it,
 * and a client is told of a created file once, as Windows and Samba tell
 * it (smbtorture smb2.notify.valid-req).
 */
static void change_add(struct smbd_notify_watcher *w, uint32_t action,
		       const char *rel, const char *name, bool attrib_only)
{
	char *path = NULL;
	uint8_t *u = NULL;
	size_t len = 0;
	char *p = NULL;

	if (w->overflow) {
		return;
	}
	path = rel[0] == '\0' ? talloc_strdup(w, name) :
		talloc_asprintf(w, "%s\\%s", rel, name);
	for (p = path; p != NULL && *p != '\0'; p++) {
		if (*p == '/') {
			*p = '\\';
		}
	}
	/* a name that is not UTF-8 cannot be sent: let the client rescan */
	if (path == NULL || !NT_STATUS_IS_OK(smb2_utf8_to_utf16(
			w, path, strlen(path), &u, &len))) {
		talloc_free(path);
		watcher_overflow(w);
		return;
	}
	talloc_free(path);
	if (attrib_only && change_added_pending(w, u, len)) {
		talloc_free(u);
		return;
	}
	change_append(w, action, u, len);
}

/*
 * The OLD_NAME found no NEW_NAME: it left what w watches.  A directory
 * that left the tree is unwatched at the end of the batch (its links
 * may be the ones being walked now).
 */
static void move_unpaired(struct smbd_notify_watcher *w)
{
	if (w->move_pending && w->num_changes > 0) {
		w->changes[w->num_changes - 1].action =
			SMBD_NOTIFY_ACTION_REMOVED;
	}
	w->move_pending = false;
	if (w->move_dir != NULL) {
		TALLOC_FREE(w->gone_dir);
		w->gone_dir = talloc_move(w, &w->move_dir);
	}
}

static void drop_gone_dir(struct smbd_notify_watcher *w)
{
	struct notify_link *l = NULL;
	struct notify_link *next = NULL;
	size_t n = strlen(w->gone_dir);

	for (l = w->links; l != NULL; l = next) {
		next = l->next;
		if (strncmp(l->rel, w->gone_dir, n) == 0 &&
		    (l->rel[n] == '\0' || l->rel[n] == '/')) {
			talloc_free(l);
		}
	}
	TALLOC_FREE(w->gone_dir);
}

static uint32_t event_action(uint32_t mask)
{
	if (mask & IN_CREATE) {
		return SMBD_NOTIFY_ACTION_ADDED;
	}
	if (mask & IN_DELETE) {
		return SMBD_NOTIFY_ACTION_REMOVED;
	}
	if (mask & IN_MOVED_FROM) {
		return SMBD_NOTIFY_ACTION_OLD_NAME;
	}
	if (mask & IN_MOVED_TO) {
		return SMBD_NOTIFY_ACTION_NEW_NAME;
	}
	return SMBD_NOTIFY_ACTION_MODIFIED;
}

static void touch(struct smbd_notify_watcher *w,
		  struct smbd_notify_watcher **touched)
{
	if (!w->touched) {
		w->touched = true;
		w->touched_next = *touched;
		*touched = w;
	}
}

/* A MOVED_FROM of a directory in a tree: remember where it was. */
static void move_remember(struct notify_link *l, const struct inotify_event *e)
{
	struct smbd_notify_watcher *w = l->w;

	w->move_pending = true;
	w->move_cookie = e->cookie;
	TALLOC_FREE(w->move_dir);
	if (w->tree && (e->mask & IN_ISDIR)) {
		w->move_dir = l->rel[0] == '\0' ?
			talloc_strdup(w, e->name) :
			talloc_asprintf(w, "%s/%s", l->rel, e->name);
	}
}

static void link_event(struct notify_link *l, const struct inotify_event *e,
		       struct smbd_notify_watcher **touched)
{
	struct smbd_notify_watcher *w = l->w;
	uint32_t action = event_action(e->mask);
	bool paired = (e->mask & IN_MOVED_TO) && w->move_pending &&
		w->move_cookie == e->cookie;

	if (w->move_pending && !paired) {
		move_unpaired(w);
	}
	if (paired) {
		w->move_pending = false;
		TALLOC_FREE(w->move_dir);
	} else if (e->mask & IN_MOVED_TO) {
		action = SMBD_NOTIFY_ACTION_ADDED;
	}
	if (w->tree && (e->mask & IN_ISDIR) &&
	    (e->mask & (IN_CREATE | IN_MOVED_TO))) {
		tree_event_dir(l, e->name);
	}
	if ((smbd_notify_event_filter(e->mask) & w->filter) == 0) {
		return;
	}
	if (e->mask & IN_MOVED_FROM) {
		move_remember(l, e);
	}
	change_add(w, action, l->rel, e->name,
		   (e->mask & (IN_ATTRIB | IN_MODIFY | NOTIFY_NAME_EVENTS)) ==
		   IN_ATTRIB);
	touch(w, touched);
}

static void ctx_overflow(struct smbd_notify_ctx *ctx,
			 struct smbd_notify_watcher **touched)
{
	struct smbd_notify_watcher *w = NULL;

	DBG_NOTICE("notify: the inotify queue overflowed\n");
	for (w = ctx->watchers; w != NULL; w = w->next) {
		watcher_overflow(w);
		touch(w, touched);
	}
}

static void ctx_event(struct smbd_notify_ctx *ctx,
		      const struct inotify_event *e,
		      struct smbd_notify_watcher **touched)
{
	struct notify_watch *watch = NULL;
	struct notify_link *l = NULL;
	struct notify_link *next = NULL;

	if (e->mask & IN_Q_OVERFLOW) {
		ctx_overflow(ctx, touched);
		return;
	}
	watch = watch_find(ctx, e->wd);
	if (watch == NULL) {
		return;                 /* removed while events were queued */
	}
	if (e->mask & IN_IGNORED) {
		watch_gone(watch);
		return;
	}
	if (e->len == 0 || e->name[0] == '\0') {
		return;                 /* about the directory itself */
	}
	for (l = watch->links; l != NULL; l = next) {
		next = l->wnext;
		link_event(l, e, touched);
	}
}

/* After a batch: renames that found no pair, then tell the owners. */
static void ctx_batch_done(struct smbd_notify_watcher *touched)
{
	struct smbd_notify_watcher *w = NULL;

	while ((w = touched) != NULL) {
		touched = w->touched_next;
		w->touched = false;
		w->touched_next = NULL;
		if (w->move_pending) {
			move_unpaired(w);
		}
		if (w->gone_dir != NULL) {
			drop_gone_dir(w);
		}
		if (smbd_notify_pending(w) && w->fn != NULL) {
			w->fn(w, w->priv);
		}
	}
}

static void ctx_readable(struct tevent_context *ev, struct tevent_fd *fde,
			 uint16_t flags, void *priv)
{
	struct smbd_notify_ctx *ctx = priv;
	struct smbd_notify_watcher *touched = NULL;
	char buf[16384]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	int reads = 0;
	ssize_t n = 0;

	while (reads++ < NOTIFY_MAX_READS &&
	       (n = read(ctx->fd, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (p + sizeof(struct inotify_event) <= buf + n) {
			const struct inotify_event *e = (const void *)p;

			ctx_event(ctx, e, &touched);
			p += sizeof(*e) + e->len;
		}
	}
	ctx_batch_done(touched);
}

void smbd_notify_flush(struct smbd_notify_ctx *ctx)
{
	if (ctx != NULL && ctx->watchers != NULL) {
		ctx_readable(ctx->ev, ctx->fde, TEVENT_FD_READ, ctx);
	}
}

/* --- contexts and watchers ------------------------------------------- */

static void watcher_detach(struct smbd_notify_watcher *w)
{
	while (w->links != NULL) {
		talloc_free(w->links);
	}
	DLIST_REMOVE_SIMPLE(w->ctx->watchers, w);
	w->ctx = NULL;
}

static int ctx_destructor(struct smbd_notify_ctx *ctx)
{
	while (ctx->watchers != NULL) {
		watcher_detach(ctx->watchers);
	}
	TALLOC_FREE(ctx->fde);
	close(ctx->fd);
	return 0;
}

struct smbd_notify_ctx *smbd_notify_ctx_new(TALLOC_CTX *mem_ctx,
					    struct tevent_context *ev,
					    size_t max_watches)
{
	struct smbd_notify_ctx *ctx = talloc_zero(mem_ctx,
						  struct smbd_notify_ctx);
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (ctx == NULL || fd < 0) {
		if (fd >= 0) {
			close(fd);
		}
		talloc_free(ctx);
		return NULL;
	}
	ctx->ev = ev;
	ctx->fd = fd;
	ctx->max_watches = max_watches;
	talloc_set_destructor(ctx, ctx_destructor);
	ctx->fde = tevent_add_fd(ev, ctx, fd, TEVENT_FD_READ, ctx_readable,
				 ctx);
	if (ctx->fde == NULL) {
		talloc_free(ctx);
		return NULL;
	}
	return ctx;
}

static int watcher_destructor(struct smbd_notify_watcher *w)
{
	if (w->ctx != NULL) {
		watcher_detach(w);
	}
	return 0;
}

NTSTATUS smbd_notify_watch(TALLOC_CTX *mem_ctx, struct smbd_notify_ctx *ctx,
			   int dirfd,
			   const struct unix_token *const *token,
			   uint32_t filter, bool tree,
			   uint32_t max_buffer, smbd_notify_fn fn, void *priv,
			   struct smbd_notify_watcher **out)
{
	struct smbd_notify_watcher *w = talloc_zero(
		mem_ctx, struct smbd_notify_watcher);

	if (w == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	w->ctx = ctx;
	w->dirfd = dirfd;
	w->token = token;
	w->filter = filter;
	w->tree = tree;
	w->mask = smbd_notify_filter_mask(filter, tree);
	w->max_buffer = max_buffer < SMBD_NOTIFY_MAX_BUFFER ?
		max_buffer : SMBD_NOTIFY_MAX_BUFFER;
	w->fn = fn;
	w->priv = priv;
	DLIST_ADD_SIMPLE(ctx->watchers, w);
	talloc_set_destructor(w, watcher_destructor);
	if (watcher_become(w) != 0) {
		talloc_free(w);
		return NT_STATUS_ACCESS_DENIED;
	}
	if (w->mask != 0 && watcher_link(w, dirfd, "", 0) && tree) {
		tree_walk(w, dirfd, "", 0);
	}
	watcher_unbecome(w);
	*out = w;
	return NT_STATUS_OK;
}

bool smbd_notify_pending(const struct smbd_notify_watcher *w)
{
	return w->overflow || w->num_changes > 0;
}

NTSTATUS smbd_notify_take(struct smbd_notify_watcher *w, TALLOC_CTX *mem_ctx,
			  uint32_t max_len, uint8_t **out, size_t *out_len)
{
	NTSTATUS status = NT_STATUS_NOTIFY_ENUM_DIR;

	*out = NULL;
	*out_len = 0;
	if (!w->overflow) {
		status = smbd_notify_encode(mem_ctx, w->changes,
					    w->num_changes, max_len, out,
					    out_len);
	}
	TALLOC_FREE(w->changes);
	w->num_changes = 0;
	w->bytes = 0;
	w->overflow = false;
	w->move_pending = false;
	return status;
}

size_t smbd_notify_num_watches(const struct smbd_notify_watcher *w)
{
	return w->num_links;
}
