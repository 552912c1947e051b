/*
 * The server-wide table of open files (MS-FSA 2.1.1.5 "Stream" state that
 * SMB2 depends on): every open of the same inode shares one smbd_file,
 * which carries the share modes and the delete-pending flag.  Keyed by
 * (dev, ino), so two names of one file (hard links, two shares) meet.
 */
#ifndef RINGSMB_SMBD_SHARE_MODE_H
#define RINGSMB_SMBD_SHARE_MODE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

/* Access bits that take part in share-mode checks (MS-FSA 2.1.5.1.2) */
#define SMBD_SHARE_MODE_ACCESS (SMB2_FILE_READ_DATA | SMB2_FILE_WRITE_DATA | \
				SMB2_FILE_APPEND_DATA | SMB2_FILE_EXECUTE | \
				SMB2_DELETE)

struct brl_table;
struct smbd_oplock_waiter;

struct smbd_file {
	struct smbd_file *prev, *next;  /* in its hash bucket */
	struct smbd_server *server;
	uint64_t dev, ino;
	struct smbd_open *opens;        /* linked through file_prev/next */
	size_t num_opens;
	/* opens of its named streams (through base_prev/next) */
	struct smbd_open *stream_opens;
	bool delete_pending;
	struct brl_table *brl;          /* byte-range locks (brlock.c) */
	/* CREATEs waiting for an oplock break of an open (oplock.c) */
	struct smbd_oplock_waiter *oplock_waiters;
	/*
	 * The LastWriteTime clients see while handles that wrote hold it
	 * (write_time.c): write_time_holders of them; NTTIME
	 */
	size_t write_time_holders;
	uint64_t write_time;
};

/*
 * Can this open join the file's other opens?  DELETE_PENDING when the file
 * is being deleted, SHARING_VIOLATION when its access and share access
 * clash with another open's.  Checked before anything is changed.
 */
NTSTATUS smbd_file_check(struct smbd_server *server, const struct statx *st,
			 uint32_t access, uint32_t share_access);

/* The file of this inode, if anything has it open; NULL: none. */
struct smbd_file *smbd_file_find(struct smbd_server *server,
				 const struct statx *st);

/*
 * Has any open of f (on this server, durable ones included) write or
 * append access?  "smb2 read mode = auto" splices only when none has.
 */
bool smbd_file_has_writer(const struct smbd_file *f);

/* Link a new open to its file (after smbd_file_check said OK). */
NTSTATUS smbd_file_attach(struct smbd_open *open, const struct statx *st);

/*
 * The open goes away (CLOSE, or its tcon, session or connection does).
 * Its byte-range locks go with it and waiting locks are retried.
 * A DELETE_ON_CLOSE open marks the file delete-pending; the last open of
 * a delete-pending file removes its name.
 */
void smbd_file_detach(struct smbd_open *open);

/*
 * FileDispositionInformation: set or clear delete-pending.  The open
 * needs DELETE access; a non-empty directory cannot be deleted.
 */
NTSTATUS smbd_file_set_delete_pending(struct smbd_open *open, bool on);

/*
 * OK if the directory of open is empty ("delete veto files": but for
 * vetoed names), else DIRECTORY_NOT_EMPTY.
 */
NTSTATUS smbd_dir_check_empty(struct smbd_open *open);

/* After a rename: every open of the file now has this name. */
NTSTATUS smbd_file_renamed(struct smbd_open *open, const char *new_name);

/*
 * Does an open of directory st keep its children from being renamed?  One
 * that takes part in share modes and holds DELETE, or does not share
 * delete (smbtorture smb2.rename: Windows and Samba refuse with
 * SHARING_VIOLATION).
 */
bool smbd_file_blocks_child_rename(struct smbd_server *server,
				   const struct statx *st);

/* Is anything below directory path (share-relative) open on this share? */
bool smbd_file_open_below(struct smbd_tcon *tcon, const char *dir);

/*
 * The byte-range lock table of open's file, made on first use; NULL when
 * open has no file or memory ran out.
 */
struct brl_table *smbd_file_lock_table(struct smbd_open *open);

/*
 * A READ or WRITE of [offset, offset + length) through open, against the
 * byte-range locks of its file: FILE_LOCK_CONFLICT (MS-FSA 2.1.5.2,
 * 2.1.5.3) or OK.
 */
NTSTATUS smbd_lock_check_io(struct smbd_open *open, uint64_t offset,
			    uint64_t length, bool write);

#endif
