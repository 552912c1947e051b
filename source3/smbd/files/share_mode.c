/*
 * Share modes and delete-on-close across all opens of a file
 * (MS-FSA 2.1.5.1.2 share access, 2.1.5.4 close; MS-SMB2 3.3.5.9).
 * One process serves every client, so the table is plain memory hanging
 * off the server: no locking database as in Samba.
 */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/brlock.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/share_names.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

#define SMBD_FILE_BUCKETS 1024

#define SMBD_ACCESS_READ (SMB2_FILE_READ_DATA | SMB2_FILE_EXECUTE)
#define SMBD_ACCESS_WRITE (SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA)
#define SMBD_SHARE_ALL (SMB2_FILE_SHARE_READ | SMB2_FILE_SHARE_WRITE | \
			SMB2_FILE_SHARE_DELETE)

static size_t file_bucket(uint64_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ (dev << 17)) * 0x9E3779B97F4A7C15ULL;

	return (size_t)(h >> 54) % SMBD_FILE_BUCKETS;
}

static uint64_t statx_dev(const struct statx *st)
{
	return ((uint64_t)st->stx_dev_major << 32) | st->stx_dev_minor;
}

static struct smbd_file *file_find(struct smbd_server *server,
				   const struct statx *st)
{
	uint64_t dev = statx_dev(st);
	struct smbd_file *f = NULL;

	if (server->files == NULL) {
		return NULL;
	}
	f = server->files[file_bucket(dev, st->stx_ino)];
	for (; f != NULL; f = f->next) {
		if (f->dev == dev && f->ino == st->stx_ino) {
			return f;
		}
	}
	return NULL;
}

/* MS-FSA 2.1.5.1.2: each side's access against the other's share mode */
static bool share_conflict(uint32_t a1, uint32_t s1, uint32_t a2,
			   uint32_t s2)
{
	if ((a1 & SMBD_SHARE_MODE_ACCESS) == 0 ||
	    (a2 & SMBD_SHARE_MODE_ACCESS) == 0) {
		return false;
	}
	return ((a1 & SMBD_ACCESS_READ) && !(s2 & SMB2_FILE_SHARE_READ)) ||
	       ((a1 & SMBD_ACCESS_WRITE) && !(s2 & SMB2_FILE_SHARE_WRITE)) ||
	       ((a1 & SMB2_DELETE) && !(s2 & SMB2_FILE_SHARE_DELETE));
}

NTSTATUS smbd_file_check(struct smbd_server *server, const struct statx *st,
			 uint32_t access, uint32_t share_access)
{
	struct smbd_file *f = file_find(server, st);
	struct smbd_open *o = NULL;

	if (f == NULL) {
		return NT_STATUS_OK;
	}
	if (f->delete_pending) {
		return NT_STATUS_DELETE_PENDING;
	}
	for (o = f->opens; o != NULL; o = o->file_next) {
		if (share_conflict(o->access_mask, o->share_access, access,
				   share_access) ||
		    share_conflict(access, share_access, o->access_mask,
				   o->share_access)) {
			return NT_STATUS_SHARING_VIOLATION;
		}
	}
	/*
	 * Deleting a file deletes its streams: each open one must share
	 * delete (Samba opens them all for DELETE; smb2.streams.delete).
	 */
	for (o = f->stream_opens; o != NULL && (access & SMB2_DELETE);
	     o = o->base_next) {
		if (share_conflict(SMB2_DELETE, SMBD_SHARE_ALL,
				   o->access_mask, o->share_access)) {
			return NT_STATUS_SHARING_VIOLATION;
		}
	}
	return NT_STATUS_OK;
}

struct smbd_file *smbd_file_find(struct smbd_server *server,
				 const struct statx *st)
{
	return file_find(server, st);
}

bool smbd_file_has_writer(const struct smbd_file *f)
{
	const struct smbd_open *o = NULL;

	for (o = f->opens; o != NULL; o = o->file_next) {
		if (o->access_mask &
		    (SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA)) {
			return true;
		}
	}
	return false;
}

static struct smbd_file *file_new(struct smbd_server *server,
				  const struct statx *st)
{
	struct smbd_file *f = NULL;
	size_t b;

	if (server->files == NULL) {
		server->files = talloc_zero_array(server, struct smbd_file *,
						  SMBD_FILE_BUCKETS);
		if (server->files == NULL) {
			return NULL;
		}
	}
	f = talloc_zero(server->files, struct smbd_file);
	if (f == NULL) {
		return NULL;
	}
	f->server = server;
	f->dev = statx_dev(st);
	f->ino = st->stx_ino;
	b = file_bucket(f->dev, f->ino);
	DLIST_ADD_SIMPLE(server->files[b], f);
	return f;
}

/* A stream open joins its file's list of stream opens. */
static NTSTATUS file_attach_base(struct smbd_open *open)
{
	struct statx st;
	struct smbd_file *f = NULL;
	NTSTATUS status = vfs_stream_base_fstat(open->fh, &st);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	f = file_find(open->server, &st);
	if (f == NULL) {
		f = file_new(open->server, &st);
	}
	if (f == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	open->base_file = f;
	open->base_prev = NULL;
	open->base_next = f->stream_opens;
	if (f->stream_opens != NULL) {
		f->stream_opens->base_prev = open;
	}
	f->stream_opens = open;
	return NT_STATUS_OK;
}

NTSTATUS smbd_file_attach(struct smbd_open *open, const struct statx *st)
{
	struct smbd_server *server = open->server;
	struct smbd_file *f = file_find(server, st);

	if (open->fh != NULL && open->fh->stream != NULL &&
	    open->base_file == NULL) {
		NTSTATUS status = file_attach_base(open);

		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	if (f == NULL) {
		f = file_new(server, st);
	}
	if (f == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	open->file = f;
	open->file_prev = NULL;
	open->file_next = f->opens;
	if (f->opens != NULL) {
		f->opens->file_prev = open;
	}
	f->opens = open;
	f->num_opens++;
	return NT_STATUS_OK;
}

/*
 * "delete veto files": the vetoed entries of a directory about to go are
 * removed first (files, and subdirectories that are empty).
 */
static void dir_delete_vetoed(struct smbd_open *open)
{
	TALLOC_CTX *tmp = talloc_new(open);
	struct vfs_handle *vfs = open->fh->vfs;
	struct vfs_dir *dir = NULL;
	struct vfs_dirent ent;

	if (tmp == NULL || !smbd_delete_veto_files(vfs) ||
	    !NT_STATUS_IS_OK(vfs_opendir(tmp, open->fh, &dir))) {
		talloc_free(tmp);
		return;
	}
	while (NT_STATUS_IS_OK(vfs_readdir(dir, &ent))) {
		char *path = NULL;

		if (!smbd_name_vetoed(vfs, ent.name)) {
			continue;
		}
		path = talloc_asprintf(tmp, "%s/%s", open->name, ent.name);
		if (path != NULL) {
			(void)vfs_unlinkat(vfs, path, ent.type == DT_DIR ?
					   AT_REMOVEDIR : 0);
		}
	}
	talloc_free(tmp);
}

static void file_free(struct smbd_file *f)
{
	DLIST_REMOVE_SIMPLE(f->server->files[file_bucket(f->dev, f->ino)], f);
	talloc_free(f);
}

/*
 * A stream open goes: when it was the last thing holding its file, a
 * delete-pending file now goes too (the stream's open is the one that
 * knows its name).
 */
static void file_detach_base(struct smbd_open *open)
{
	struct smbd_file *f = open->base_file;
	struct statx st;
	NTSTATUS status = NT_STATUS_OK;

	if (f == NULL) {
		return;
	}
	if (open->base_prev != NULL) {
		open->base_prev->base_next = open->base_next;
	} else {
		f->stream_opens = open->base_next;
	}
	if (open->base_next != NULL) {
		open->base_next->base_prev = open->base_prev;
	}
	open->base_file = NULL;
	open->base_prev = open->base_next = NULL;
	if (f->num_opens > 0 || f->stream_opens != NULL) {
		return;
	}
	if (f->delete_pending) {
		status = vfs_stream_base_fstat(open->fh, &st);
	}
	if (f->delete_pending && NT_STATUS_IS_OK(status)) {
		status = vfs_unlinkat(open->fh->vfs, open->name,
				      S_ISDIR(st.stx_mode) ? AT_REMOVEDIR : 0);
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("delete on close of %s failed: %s\n", open->name,
			   nt_errstr(status));
	}
	file_free(f);
}

/* The last close of a delete-pending file removes its name. */
static void file_delete(struct smbd_open *open)
{
	NTSTATUS status;

	if (open->is_dir) {
		dir_delete_vetoed(open);
	}
	/* a named stream goes alone; its file stays */
	status = open->fh->stream != NULL ? vfs_stream_remove(open->fh) :
		vfs_unlinkat(open->fh->vfs, open->name,
			     open->is_dir ? AT_REMOVEDIR : 0);
	if (NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED) &&
	    open->fh->stream == NULL && open->fh->vfs->nt_acls &&
	    (open->access_mask & SMB2_DELETE)) {
		/*
		 * An NT ACL granted DELETE (the directory's
		 * FILE_DELETE_CHILD) where the directory's mode does not
		 * let the user unlink: the daemon does it, as Samba does
		 */
		struct vfs_fh *dfh = vfs_fh_as_daemon(open, open->fh);

		status = dfh == NULL ? NT_STATUS_NO_MEMORY :
			vfs_unlinkat(dfh->vfs, open->name,
				     open->is_dir ? AT_REMOVEDIR : 0);
		talloc_free(dfh);
	}

	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("delete on close of %s failed: %s\n", open->name,
			   nt_errstr(status));
	}
}

/* Everyone watching the file for changes learns it is going. */
static void file_now_delete_pending(struct smbd_file *f)
{
	const struct smbd_state_hooks *hooks = &f->server->hooks;
	struct smbd_open *o = NULL;

	if (hooks->delete_pending == NULL) {
		return;
	}
	for (o = f->opens; o != NULL; o = o->file_next) {
		hooks->delete_pending(o);
	}
}

void smbd_file_detach(struct smbd_open *open)
{
	struct smbd_file *f = open->file;

	file_detach_base(open);
	if (f == NULL) {
		return;
	}
	if (open->delete_on_close) {
		f->delete_pending = true;
	}
	if (open->file_prev != NULL) {
		open->file_prev->file_next = open->file_next;
	} else {
		f->opens = open->file_next;
	}
	if (open->file_next != NULL) {
		open->file_next->file_prev = open->file_prev;
	}
	open->file = NULL;
	open->file_prev = open->file_next = NULL;
	/*
	 * Its locks and waits end; others' waits may now be granted.  After
	 * the unlink: a granted lock breaks the level II oplocks of the
	 * file's opens (commands/lock.c), and this one is closing.
	 */
	brl_owner_gone(f->brl, open);
	/* written through, or about to go: its directory's leases break */
	if (open->written || (f->delete_pending && f->num_opens == 1)) {
		smbd_lease_contend_parent(open, open->name);
	}
	/* a CREATE waiting for this open's oplock break looks again */
	smbd_oplock_open_gone(open, f);
	if (--f->num_opens > 0 || f->stream_opens != NULL) {
		/* open streams keep the file (file_detach_base) */
		if (open->delete_on_close) {
			file_now_delete_pending(f);
		}
		return;
	}
	if (f->delete_pending) {
		file_delete(open);
	}
	file_free(f);
}

NTSTATUS smbd_dir_check_empty(struct smbd_open *open)
{
	TALLOC_CTX *tmp = talloc_new(open);
	struct vfs_fh *fh = NULL;
	struct vfs_dir *dir = NULL;
	struct vfs_dirent ent;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_openat(tmp, open->tcon->vfs, open->name,
			    O_RDONLY | O_DIRECTORY, &fh, NULL);
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_opendir(tmp, fh, &dir);
	}
	/* with "delete veto files", vetoed names do not count (Samba) */
	while (NT_STATUS_IS_OK(status)) {
		status = vfs_readdir(dir, &ent);
		if (NT_STATUS_IS_OK(status) &&
		    !(smbd_delete_veto_files(fh->vfs) &&
		      smbd_name_vetoed(fh->vfs, ent.name))) {
			status = NT_STATUS_DIRECTORY_NOT_EMPTY;
		}
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_NO_MORE_FILES)) {
		status = NT_STATUS_OK;
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS smbd_file_set_delete_pending(struct smbd_open *open, bool on)
{
	NTSTATUS status;

	if ((open->access_mask & SMB2_DELETE) == 0) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (open->file == NULL || open->name[0] == '\0') {
		return NT_STATUS_CANNOT_DELETE;         /* the share root */
	}
	if (on && open->is_dir) {
		status = smbd_dir_check_empty(open);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	open->file->delete_pending = on;
	if (on) {
		file_now_delete_pending(open->file);
		smbd_lease_contend_handle(open);        /* others lose H */
	}
	if (!on) {
		/* clearing it also clears what DELETE_ON_CLOSE asked */
		struct smbd_open *o = NULL;

		for (o = open->file->opens; o != NULL; o = o->file_next) {
			o->delete_on_close = false;
		}
	}
	return NT_STATUS_OK;
}

static bool same_share(const struct smbd_open *a, const struct smbd_open *b)
{
	return strcmp(a->fh->vfs->root_path, b->fh->vfs->root_path) == 0;
}

NTSTATUS smbd_file_renamed(struct smbd_open *open, const char *new_name)
{
	struct smbd_open *o = NULL;

	if (open->file == NULL) {
		return NT_STATUS_OK;
	}
	for (o = open->file->opens; o != NULL; o = o->file_next) {
		char *n = NULL;

		if (!same_share(o, open)) {
			continue;
		}
		n = talloc_strdup(o, new_name);
		if (n == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		talloc_free(o->name);
		o->name = n;
	}
	smbd_lease_contend_handle(open);                /* others lose H */
	return NT_STATUS_OK;
}

bool smbd_file_blocks_child_rename(struct smbd_server *server,
				   const struct statx *st)
{
	struct smbd_file *f = file_find(server, st);
	struct smbd_open *o = NULL;

	for (o = f != NULL ? f->opens : NULL; o != NULL; o = o->file_next) {
		if ((o->access_mask & SMBD_SHARE_MODE_ACCESS) == 0) {
			continue;
		}
		if ((o->access_mask & SMB2_DELETE) ||
		    !(o->share_access & SMB2_FILE_SHARE_DELETE)) {
			return true;
		}
	}
	return false;
}

static bool open_is_below(const struct smbd_open *o, const char *root,
			  const char *dir, size_t len)
{
	return strcmp(o->fh->vfs->root_path, root) == 0 &&
	       strncmp(o->name, dir, len) == 0 &&
	       (len == 0 || o->name[len] == '/');
}

bool smbd_file_open_below(struct smbd_tcon *tcon, const char *dir)
{
	struct smbd_server *server = tcon->session->conn->server;
	const char *root = tcon->vfs->root_path;
	size_t len = strlen(dir);
	size_t b;

	if (server->files == NULL) {
		return false;
	}
	for (b = 0; b < SMBD_FILE_BUCKETS; b++) {
		struct smbd_file *f = server->files[b];

		for (; f != NULL; f = f->next) {
			struct smbd_open *o = f->opens;

			for (; o != NULL; o = o->file_next) {
				if (o->name[0] != '\0' &&
				    open_is_below(o, root, dir, len)) {
					return true;
				}
			}
		}
	}
	return false;
}

struct brl_table *smbd_file_lock_table(struct smbd_open *open)
{
	struct smbd_file *f = open->file;

	if (f == NULL) {
		return NULL;
	}
	if (f->brl == NULL) {
		f->brl = brl_table_new(f);
	}
	return f->brl;
}

NTSTATUS smbd_lock_check_io(struct smbd_open *open, uint64_t offset,
			    uint64_t length, bool write)
{
	if (open->file == NULL ||
	    !brl_io_conflict(open->file->brl, open, offset, length, write)) {
		return NT_STATUS_OK;
	}
	return NT_STATUS_FILE_LOCK_CONFLICT;
}
