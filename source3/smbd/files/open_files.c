/*
 * The open-file table (MS-SMB2 3.3.1.10): opens hang off their tree
 * connect, so TREE_DISCONNECT, LOGOFF or a dropped connection frees them
 * (and closes their fds) with the tcon.  Plus the statx -> wire metadata
 * mapping every file command shares.
 */
#include <time.h>
#include <string.h>
#include "lib/util/dlist.h"
#include "lib/util/nttime.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/write_time.h"
#include "source3/smbd/files/channel_seq.h"
#include "source3/smbd/files/handles.h"
#include "source3/smbd/files/durable.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/dosmode.h"
#include "source3/smbd/files/filename.h"
#include "source3/smbd/files/open_files.h"
#include "source3/smbd/files/read_map.h"

static int smbd_open_destructor(struct smbd_open *open)
{
	struct smbd_tcon *tcon = open->tcon;

	smbd_csn_open_gone(open);
	smbd_read_map_open_gone(open);
	/* before the file goes: its held write time goes to disk */
	smbd_write_time_close(open);
	smbd_file_detach(open);
	if (tcon == NULL) {
		smbd_durable_gone(open);        /* a disconnected one */
		return 0;
	}
	DLIST_REMOVE_SIMPLE(tcon->opens, open);
	tcon->num_opens--;
	smbd_handles_add(tcon->session, -1);
	return 0;
}

/*
 * Ids come from one server-wide counter: never 0 and never reused while
 * the server runs, so a stale FileId finds nothing (FILE_CLOSED).  These
 * are not durable, so the persistent id is the volatile one.
 */
static uint64_t smbd_open_next_id(struct smbd_tcon *tcon)
{
	struct smbd_server *server = tcon->session->conn->server;

	server->next_file_id++;
	if (server->next_file_id == 0 || server->next_file_id == UINT64_MAX) {
		server->next_file_id = 1;
	}
	return server->next_file_id;
}

struct smbd_open *smbd_open_new(struct smbd_tcon *tcon)
{
	struct smbd_open *open = NULL;

	if (tcon->num_opens >= SMBD_MAX_OPENS_PER_TCON ||
	    smbd_handles_full(tcon->session)) {
		return NULL;
	}
	open = talloc_zero(tcon, struct smbd_open);
	if (open == NULL) {
		return NULL;
	}
	open->tcon = tcon;
	open->server = tcon->session->conn->server;
	open->opened = time(NULL);
	open->volatile_id = smbd_open_next_id(tcon);
	open->persistent_id = open->volatile_id;
	memset(open->lock_seq, SMBD_LOCK_SEQ_INVALID, sizeof(open->lock_seq));
	DLIST_ADD_SIMPLE(tcon->opens, open);
	tcon->num_opens++;
	smbd_handles_add(tcon->session, 1);
	talloc_set_destructor(open, smbd_open_destructor);
	return open;
}

/* Most recently used first: a client's busy handle is found at once. */
struct smbd_open *smbd_open_find(struct smbd_tcon *tcon, uint64_t persistent,
				 uint64_t volatile_id)
{
	struct smbd_open *open = NULL;

	for (open = tcon->opens; open != NULL; open = open->next) {
		if (open->volatile_id == volatile_id) {
			break;
		}
	}
	if (open == NULL || open->persistent_id != persistent) {
		return NULL;
	}
	if (open != tcon->opens) {
		DLIST_REMOVE_SIMPLE(tcon->opens, open);
		DLIST_ADD_SIMPLE(tcon->opens, open);
	}
	return open;
}

static uint64_t nt_from_statx(const struct statx_timestamp *t)
{
	struct timespec ts = { .tv_sec = t->tv_sec, .tv_nsec = t->tv_nsec };

	return nttime_from_timespec(&ts);
}

/* Without a birth time, Samba reports the earliest of mtime and ctime. */
static uint64_t smbd_create_time(const struct statx *st)
{
	uint64_t m = nt_from_statx(&st->stx_mtime);
	uint64_t c = nt_from_statx(&st->stx_ctime);

	if (st->stx_mask & STATX_BTIME) {
		return nt_from_statx(&st->stx_btime);
	}
	return m < c ? m : c;
}

/*
 * DOS attributes as Samba derives them without stored DOS attributes:
 * directories DIRECTORY, files ARCHIVE, dot files HIDDEN ("hide dot
 * files"), files without owner write permission READONLY.
 */
static uint32_t smbd_dos_attributes(const struct statx *st, const char *base)
{
	uint32_t attrs = 0;

	if (S_ISDIR(st->stx_mode)) {
		attrs |= SMB2_FILE_ATTRIBUTE_DIRECTORY;
	} else {
		attrs |= SMB2_FILE_ATTRIBUTE_ARCHIVE;
		if ((st->stx_mode & S_IWUSR) == 0) {
			attrs |= SMB2_FILE_ATTRIBUTE_READONLY;
		}
	}
	if (base[0] == '.' && strcmp(base, ".") != 0 &&
	    strcmp(base, "..") != 0) {
		attrs |= SMB2_FILE_ATTRIBUTE_HIDDEN;
	}
	return attrs;
}

void smbd_meta_from_statx(const struct statx *st, const char *base,
			  struct smb2_file_meta *m)
{
	bool is_dir = S_ISDIR(st->stx_mode);

	*m = (struct smb2_file_meta) {
		.create_time = smbd_create_time(st),
		.access_time = nt_from_statx(&st->stx_atime),
		.write_time = nt_from_statx(&st->stx_mtime),
		/*
		 * ChangeTime is the write time, as Samba reports it
		 * (get_change_timespec): Linux's ctime cannot be set, and a
		 * client that sets ChangeTime reads back what it set
		 * (smb2.timestamps)
		 */
		.change_time = nt_from_statx(&st->stx_mtime),
		.attributes = smbd_dos_attributes(st, base),
		/* directories have no data: Samba reports 0 for both */
		.allocation_size = is_dir ? 0 : st->stx_blocks * 512,
		.end_of_file = is_dir ? 0 : st->stx_size,
		.nlink = st->stx_nlink,
		.is_dir = is_dir,
		.file_id = st->stx_ino,
	};
}

/* FileModeInformation: the create options that describe the open */
#define SMBD_MODE_BITS (SMB2_FILE_WRITE_THROUGH | SMB2_FILE_SEQUENTIAL_ONLY | \
			SMB2_FILE_NO_INTERMEDIATE_BUFFERING | \
			SMB2_FILE_SYNCHRONOUS_IO_ALERT | \
			SMB2_FILE_SYNCHRONOUS_IO_NONALERT | \
			SMB2_FILE_DELETE_ON_CLOSE)

NTSTATUS smbd_open_meta(struct smbd_open *open, struct smb2_file_meta *m)
{
	struct statx st;
	NTSTATUS status = vfs_fstat(open->fh, &st);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	smbd_meta_from_fh(open->fh, &st, smbd_filename_base(open->name), m);
	if (open->file != NULL && open->file->write_time_holders > 0) {
		m->write_time = m->change_time = open->file->write_time;
	}
	m->delete_pending = open->file != NULL && open->file->delete_pending;
	m->access_mask = open->access_mask;
	m->position = open->position;
	m->mode = open->create_options & SMBD_MODE_BITS;
	return NT_STATUS_OK;
}
