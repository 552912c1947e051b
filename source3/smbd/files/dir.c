/*
 * Directory enumeration state for QUERY_DIRECTORY (MS-SMB2 3.3.5.18,
 * MS-FSA 2.1.5.6.3).  Entries stream from the VFS (getdents64 in
 * chunks), so memory does not grow with the directory; the state kept on
 * the open is the pattern, how far the "." and ".." entries got, and at
 * most one entry that was read but did not fit in the last response.
 */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include "lib/param/param.h"
#include "lib/smb2/eainfo.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/write_time.h"
#include "source3/smbd/files/share_names.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/dosmode.h"
#include "source3/smbd/files/open_files.h"

struct smbd_dir {
	struct vfs_dir *vdir;
	char *pattern;          /* NULL until the first query */
	int dots;               /* "." and ".." sent so far: 0..2 */
	char *pending;          /* read, matched, not yet sent */
	unsigned char pending_type;
	unsigned char type;     /* DT_* of the name dir_next gave */
	uint64_t matched;       /* entries sent since the (re)start */
	bool ended;
	bool xattrs;            /* false once the fs refused user xattrs */
};

static NTSTATUS dir_state(struct smbd_open *open, struct smbd_dir **out)
{
	struct smbd_dir *d = open->dir_state;
	NTSTATUS status;

	if (d != NULL) {
		*out = d;
		return NT_STATUS_OK;
	}
	d = talloc_zero(open, struct smbd_dir);
	if (d == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_opendir(d, open->fh, &d->vdir);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(d);
		return status;
	}
	d->xattrs = true;
	open->dir_state = d;
	*out = d;
	return NT_STATUS_OK;
}

/* First query, RESTART_SCANS or REOPEN: start over with the pattern. */
static NTSTATUS dir_restart(struct smbd_dir *d, const char *pattern,
			    bool rewind)
{
	NTSTATUS status = NT_STATUS_OK;

	if (rewind) {
		status = vfs_rewinddir(d->vdir);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	TALLOC_FREE(d->pattern);
	TALLOC_FREE(d->pending);
	d->pattern = talloc_strdup(d, pattern[0] != '\0' ? pattern : "*");
	d->dots = 0;
	d->matched = 0;
	d->ended = false;
	return d->pattern != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/* "." is the directory; ".." its parent, or itself at the share root. */
static NTSTATUS dir_dot_meta(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			     int which, struct smb2_file_meta *m)
{
	const char *slash = strrchr(open->name, '/');
	const char *name = which == 0 ? "." : "..";
	struct vfs_fh *fh = open->fh;
	struct statx st;
	char *path = NULL;
	NTSTATUS status;

	if (which != 0 && open->name[0] != '\0') {
		path = talloc_strndup(mem_ctx, open->name,
				      slash ? (size_t)(slash - open->name) : 0);
		if (path == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		status = vfs_openat(mem_ctx, open->tcon->vfs, path,
				    O_PATH | O_DIRECTORY, &fh, &st);
		talloc_free(path);
	} else {
		status = vfs_fstat(fh, &st);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_meta_from_fh(fh, &st, name, m);
	}
	if (fh != open->fh) {
		talloc_free(fh);
	}
	return status;
}

/* An entry's metadata with its stored DOS attributes. */
static NTSTATUS dir_entry_meta_fs(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			       struct smbd_dir *d, const char *name,
			       struct smb2_file_meta *m)
{
	char *path = NULL;
	NTSTATUS status;

	if (d->dots < 2) {
		return dir_dot_meta(mem_ctx, open, d->dots, m);
	}
	if (d->type == DT_REG || d->type == DT_DIR) {
		return smbd_meta_in_dir(open->fh, open->name, name,
					&d->xattrs, m);
	}
	path = open->name[0] == '\0' ? talloc_strdup(mem_ctx, name) :
		talloc_asprintf(mem_ctx, "%s/%s", open->name, name);
	if (path == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = smbd_meta_at(mem_ctx, open->tcon->vfs, path, name,
			      &d->xattrs, m);
	talloc_free(path);
	return status;
}

/*
 * And the write time a handle holds (write_time.h), for an entry on the
 * directory's own file system.
 */
static NTSTATUS dir_entry_meta(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			       struct smbd_dir *d, const char *name,
			       struct smb2_file_meta *m)
{
	NTSTATUS status = dir_entry_meta_fs(mem_ctx, open, d, name, m);
	struct statx st = { .stx_ino = m->file_id };

	if (NT_STATUS_IS_OK(status) && open->file != NULL &&
	    open->tcon->session->conn->server->write_times_held > 0) {
		st.stx_dev_major = (uint32_t)(open->file->dev >> 32);
		st.stx_dev_minor = (uint32_t)open->file->dev;
		smbd_write_time_meta(open->tcon->session->conn->server, &st,
				     m);
	}
	return status;
}

/* The next candidate name: the dots, a left-over entry, then readdir. */
static NTSTATUS dir_next(struct smbd_dir *d, const char **name)
{
	struct vfs_dirent ent;
	NTSTATUS status;

	d->type = DT_UNKNOWN;
	if (d->dots < 2) {
		*name = d->dots == 0 ? "." : "..";
		return NT_STATUS_OK;
	}
	if (d->pending != NULL) {
		*name = d->pending;
		d->type = d->pending_type;
		return NT_STATUS_OK;
	}
	status = vfs_readdir(d->vdir, &ent);
	if (NT_STATUS_IS_OK(status)) {
		*name = ent.name;
		d->type = ent.type;
	}
	return status;
}

/* After the entry `name` was sent (or skipped): step past it. */
static void dir_consumed(struct smbd_dir *d, const char *name)
{
	if (d->dots < 2) {
		d->dots++;
	} else if (name == d->pending) {
		TALLOC_FREE(d->pending);
	}
}

/*
 * Adds one entry; false if it did not fit (it stays pending).  Entries
 * that vanished or are symlinks leaving the share are skipped: *added
 * stays false but the call succeeds.
 */
static NTSTATUS dir_add(TALLOC_CTX *tmp, struct smbd_open *open,
			struct smbd_dir *d, struct smb2_dirlist *l,
			const char *name, bool *added, bool *full)
{
	struct smb2_name16 n16 = {};
	struct smb2_file_meta m = {};
	char shortname[SMB2_SHORT_NAME_MAX];
	uint8_t *u = NULL;
	NTSTATUS status;

	*added = *full = false;
	if (d->dots >= 2 &&
	    !smbd_name_listed(open->tcon->vfs, open->fh->fd, name)) {
		return NT_STATUS_OK;    /* veto files, hide unreadable */
	}
	status = dir_entry_meta(tmp, open, d, name, &m);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NO_MEMORY)) {
		return status;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return NT_STATUS_OK;
	}
	/* names that are not valid UTF-8 cannot be sent: skipped */
	if (!NT_STATUS_IS_OK(smb2_utf8_to_utf16(tmp, name, strlen(name), &u,
						&n16.len))) {
		return NT_STATUS_OK;
	}
	n16.data = u;
	/*
	 * With "mangled names = yes" (as Samba 4.17: not by default) the
	 * 8.3 name of a name that is not one already, as NTFS with short
	 * names lists it: the name FileAlternateNameInformation gives and a
	 * CREATE by short name finds (mangle.c)
	 */
	if (open->tcon->share->mangled_names == LP_MANGLED_YES &&
	    (l->info_class == SMB2_FILE_BOTH_DIRECTORY_INFORMATION ||
	     l->info_class == SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION) &&
	    d->dots >= 2 && !smb2_name_is_83(name)) {
		smb2_short_name(name, shortname);
		m.short_name = shortname;
	}
	if (!smb2_dirlist_add(l, &m, &n16)) {
		*full = true;
		if (d->dots >= 2 && name != d->pending) {
			d->pending = talloc_strdup(d, name);
			if (d->pending == NULL) {
				return NT_STATUS_NO_MEMORY;
			}
			d->pending_type = d->type;
		}
		return NT_STATUS_OK;
	}
	*added = true;
	return NT_STATUS_OK;
}

/* Fills l until it is full, the directory ends, or one entry if asked. */
static NTSTATUS dir_fill(TALLOC_CTX *tmp, struct smbd_open *open,
			 struct smbd_dir *d, struct smb2_dirlist *l,
			 bool single, bool *full)
{
	for (;;) {
		const char *name = NULL;
		bool added = false;
		NTSTATUS status = dir_next(d, &name);

		if (!NT_STATUS_IS_OK(status)) {
			return status;          /* NO_MORE_FILES at the end */
		}
		if (smb2_name_match(d->pattern, name)) {
			status = dir_add(tmp, open, d, l, name, &added, full);
			if (!NT_STATUS_IS_OK(status) || *full) {
				return status;
			}
		}
		dir_consumed(d, name);
		if (added) {
			d->matched++;
			if (single) {
				return NT_STATUS_OK;
			}
		}
	}
}

NTSTATUS smbd_dir_query(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			const struct smbd_dir_query *q, uint8_t **out,
			size_t *out_len)
{
	struct smbd_dir *d = NULL;
	struct smb2_dirlist l;
	bool full = false;
	bool held = false;
	TALLOC_CTX *tmp = NULL;
	NTSTATUS status = dir_state(open, &d);

	if (NT_STATUS_IS_OK(status) &&
	    (d->pattern == NULL ||
	     (q->flags & (SMB2_RESTART_SCANS | SMB2_REOPEN)))) {
		status = dir_restart(d, q->pattern, d->pattern != NULL);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (d->ended) {
		return NT_STATUS_NO_MORE_FILES;
	}
	tmp = talloc_new(mem_ctx);
	*out = talloc_size(mem_ctx, q->max_len + 1);
	if (tmp == NULL || *out == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	smb2_dirlist_init(&l, q->info_class, *out, q->max_len);
	/* one switch for the whole batch, not several per entry */
	held = vfs_hold(open->tcon->vfs);
	status = dir_fill(tmp, open, d, &l,
			  (q->flags & SMB2_RETURN_SINGLE_ENTRY) != 0, &full);
	vfs_release(held);
	talloc_free(tmp);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NO_MORE_FILES)) {
		d->ended = true;
		status = NT_STATUS_OK;
	}
	if (NT_STATUS_IS_OK(status) && l.count == 0) {
		status = full ? NT_STATUS_INFO_LENGTH_MISMATCH :
			(d->matched == 0 ? NT_STATUS_NO_SUCH_FILE :
			 NT_STATUS_NO_MORE_FILES);
	}
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(*out);
		return status;
	}
	*out_len = l.len;
	return NT_STATUS_OK;
}
