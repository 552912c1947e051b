/*
 * Directory change notification on inotify (MS-FSA 2.1.5.11, MS-FSCC
 * 2.4.42), without SMB requests: the SMB side is commands/change_notify.c.
 *
 * One inotify instance per server.  inotify hands out one watch
 * descriptor per inode and instance, so two opens of one directory
 * share a watch (a link per open), the server holds one fd for all of
 * it, and the kernel's per-user limit (fs.inotify.max_user_instances,
 * 128 by default) is not spent one per connection.  Watches are bounded
 * per server (SMBD_NOTIFY_MAX_WATCHES) and per WATCH_TREE open
 * (SMBD_NOTIFY_MAX_TREE_DIRS); a watcher that hits a bound, loses events
 * to a kernel queue overflow or buffers more than it may is marked
 * overflowed and reports STATUS_NOTIFY_ENUM_DIR once, so the client
 * re-reads the directory instead of missing changes silently.
 *
 * This file needs only talloc, tevent and lib/smb2 (UTF-16, the entries),
 * so tests/unit/test_notify.c runs it against a real directory.
 */
#ifndef RINGSMB_SMBD_NOTIFY_H
#define RINGSMB_SMBD_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include <tevent.h>
#include "lib/util/ntstatus.h"
#include "lib/util/unix_token.h"
#include "lib/smb2/smb2.h"

/* inotify watches one server holds (the kernel default is 8192 a user) */
#define SMBD_NOTIFY_MAX_WATCHES 4096
/* subdirectories one WATCH_TREE open watches, and how deep */
#define SMBD_NOTIFY_MAX_TREE_DIRS 1024
#define SMBD_NOTIFY_MAX_DEPTH 32
/*
 * Changes buffered for one open between requests: at most the first
 * request's OutputBufferLength, and never more than this many bytes or
 * changes (a client asking for 8 MiB must not make us keep 8 MiB a
 * directory).
 */
#define SMBD_NOTIFY_MAX_BUFFER (64 * 1024)
#define SMBD_NOTIFY_MAX_CHANGES 1000

/* FILE_NOTIFY_INFORMATION Action: the wire values are lib/smb2's */
#define SMBD_NOTIFY_ACTION_ADDED SMB2_NOTIFY_ACTION_ADDED
#define SMBD_NOTIFY_ACTION_REMOVED SMB2_NOTIFY_ACTION_REMOVED
#define SMBD_NOTIFY_ACTION_MODIFIED SMB2_NOTIFY_ACTION_MODIFIED
#define SMBD_NOTIFY_ACTION_OLD_NAME SMB2_NOTIFY_ACTION_RENAMED_OLD_NAME
#define SMBD_NOTIFY_ACTION_NEW_NAME SMB2_NOTIFY_ACTION_RENAMED_NEW_NAME

/* One buffered change: the name is UTF-16LE, relative, '\'-separated. */
struct smbd_notify_change {
	uint32_t action;
	uint8_t *name;
	size_t name_len;
};

/* --- pure parts (unit-tested) ------------------------------------- */

/*
 * The inotify events that can produce a change CompletionFilter asks
 * for; 0 when it asks for nothing inotify can see (only STREAM_*:
 * no named streams here).  tree adds what keeps subdirectory watches
 * up to date.
 */
uint32_t smbd_notify_filter_mask(uint32_t filter, bool tree);

/* The CompletionFilter bits an inotify event mask stands for. */
uint32_t smbd_notify_event_filter(uint32_t mask);

/* Wire size of changes[0..n) as FILE_NOTIFY_INFORMATION entries. */
size_t smbd_notify_encoded_size(const struct smbd_notify_change *changes,
				size_t n);

/*
 * FILE_NOTIFY_INFORMATION entries (lib/smb2 smb2_notify_info_push), each
 * 4-byte aligned, NextEntryOffset 0 on the last.  More than max_len
 * bytes (or nothing): returns NOTIFY_ENUM_DIR and no buffer, as Windows
 * and Samba answer when the changes do not fit.
 */
NTSTATUS smbd_notify_encode(TALLOC_CTX *mem_ctx,
			    const struct smbd_notify_change *changes,
			    size_t n, uint32_t max_len,
			    uint8_t **out, size_t *out_len);

/* --- the watcher --------------------------------------------------- */

struct smbd_notify_ctx;
struct smbd_notify_watcher;

/* Called (from the inotify fd handler) when w has new changes. */
typedef void (*smbd_notify_fn)(struct smbd_notify_watcher *w, void *priv);

/*
 * The server's inotify instance; NULL (errno set) when inotify is not
 * available.  Freeing it detaches every watcher (they stay valid and
 * see nothing more).
 */
struct smbd_notify_ctx *smbd_notify_ctx_new(TALLOC_CTX *mem_ctx,
					    struct tevent_context *ev,
					    size_t max_watches);

/*
 * Reads the events the kernel has queued now (non-blocking), as the fd
 * handler would on the next loop pass; nothing without watchers.  Called
 * after a request that may change a directory, before its response goes
 * out: the changes it caused reach waiting CHANGE_NOTIFYs before the
 * client can cause more (a client sees one change per request, as on
 * Windows, not whatever piled up until the loop got to the fd).
 */
void smbd_notify_flush(struct smbd_notify_ctx *ctx);

/*
 * Watch, as *token's user (read at each use, so a re-authenticated
 * session's watch follows it; token NULL or *token NULL: as the daemon;
 * token must outlive the watcher, e.g. &vfs->token), the directory open as dirfd (which must stay open as long as
 * the watcher lives; O_PATH is fine) for what filter asks, with its
 * subdirectories when tree.  max_buffer is what may be buffered between
 * requests (capped at SMBD_NOTIFY_MAX_BUFFER).  Hitting a watch bound
 * is not an error: the watcher is marked overflowed.
 */
NTSTATUS smbd_notify_watch(TALLOC_CTX *mem_ctx, struct smbd_notify_ctx *ctx,
			   int dirfd,
			   const struct unix_token *const *token,
			   uint32_t filter, bool tree,
			   uint32_t max_buffer, smbd_notify_fn fn, void *priv,
			   struct smbd_notify_watcher **out);

/* Is there something to report (changes, or an overflow)? */
bool smbd_notify_pending(const struct smbd_notify_watcher *w);

/*
 * Takes what is buffered for one response of at most max_len bytes:
 * OK with the entries, or NOTIFY_ENUM_DIR (overflowed, or too big for
 * max_len) with none.  The buffer is empty afterwards either way.
 */
NTSTATUS smbd_notify_take(struct smbd_notify_watcher *w, TALLOC_CTX *mem_ctx,
			  uint32_t max_len, uint8_t **out, size_t *out_len);

/* Watches the watcher holds (root and subdirectories), for tests. */
size_t smbd_notify_num_watches(const struct smbd_notify_watcher *w);

#endif
