/*
 * SET_INFO FileRenameInformation and FileLinkInformation, the SMB2 forms
 * (MS-SMB2 3.3.5.21.1; MS-FSA 2.1.5.14.11, 2.1.5.14.6).  The new name is
 * relative to the share root (RootDirectory must be 0) and goes through
 * the same checks as a CREATE name; the VFS resolves both names beneath
 * the share root.
 *
 * An existing target is replaced only when ReplaceIfExists is set, and
 * never when it is a directory, open, or read-only (ACCESS_DENIED, as
 * MS-FSA says).  A directory with anything open below it is not renamed
 * (ACCESS_DENIED, as Windows and Samba answer), nor a file with a named
 * stream open.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "lib/smb2/streams.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/casefold.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/share_names.h"
#include "source3/smbd/commands/set_info.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/dosmode.h"
#include "source3/smbd/files/filename.h"
#include "source3/smbd/files/open_files.h"

/* The new name as a share-relative path. */
static NTSTATUS sn_target(struct si_ctx *s, char **path)
{
	struct smb2_blob name = {
		.data = s->in->rename.name.data,
		.len = s->in->rename.name.len,
	};
	bool is_stream = false;
	NTSTATUS status;

	if (s->in->rename.root_directory != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* clients strip the leading '\' for SMB2; tolerate one */
	if (name.len >= 2 && name.data[0] == '\\' && name.data[1] == 0) {
		name.data += 2;
		name.len -= 2;
	}
	status = smbd_filename_convert(s->tmp, &name, path, &is_stream);
	if (NT_STATUS_IS_OK(status) && (*path)[0] == '\0') {
		status = NT_STATUS_OBJECT_NAME_INVALID;  /* the share root */
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_path_vetoed(s->open->tcon->vfs, *path);
	}
	return status;
}

/*
 * In a case-insensitive share (casefold.c) a target missing as spelled
 * is looked for as CREATE looks: its directories are taken as they are
 * on disk, and a name differing only in case from an existing one is
 * that one, so the checks below see it.  The exception is the renamed
 * file itself: "a" to "A" is a case-only rename and keeps the new
 * spelling.  A link always sees the existing name.
 */
static NTSTATUS sn_fold(struct si_ctx *s, bool rename, char **to)
{
	struct vfs_handle *vfs = s->open->tcon->vfs;
	const char *base = smbd_filename_base(*to);
	struct vfs_fh *fh = NULL;
	char *found = NULL;
	NTSTATUS status;

	if (!casefold_share(s->open->tcon->share)) {
		return NT_STATUS_OK;
	}
	status = vfs_openat(s->tmp, vfs, *to, O_PATH, &fh, NULL);
	TALLOC_FREE(fh);
	if (!NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND)) {
		return NT_STATUS_OK;    /* there as spelled, or unreachable */
	}
	status = casefold_resolve(s->tmp, vfs, *to, &found);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (rename && strcmp(found, s->open->name) == 0) {
		const char *fbase = smbd_filename_base(found);

		*to = talloc_asprintf(s->tmp, "%.*s%s",
				      (int)(fbase - found), found, base);
		return *to != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	*to = found;
	return NT_STATUS_OK;
}

static bool sn_same_file(const struct statx *a, const struct statx *b)
{
	return a->stx_ino == b->stx_ino &&
	       a->stx_dev_major == b->stx_dev_major &&
	       a->stx_dev_minor == b->stx_dev_minor;
}

/* May the existing target be replaced? */
static NTSTATUS sn_replaceable(struct si_ctx *s, struct vfs_fh *fh,
			       const char *path, const struct statx *st,
			       const struct statx *src)
{
	struct smbd_server *server = s->req->conn->server;
	struct smbd_dosmode dm = {};
	NTSTATUS status;

	if (S_ISDIR(st->stx_mode) || sn_same_file(st, src)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	/* any open of it that takes part in sharing */
	if (!NT_STATUS_IS_OK(smbd_file_check(server, st, SMB2_DELETE, 0))) {
		return NT_STATUS_ACCESS_DENIED;
	}
	status = smbd_dosmode_current(fh, smbd_filename_base(path), &dm);
	if (NT_STATUS_IS_OK(status) &&
	    (dm.attrs & SMB2_FILE_ATTRIBUTE_READONLY)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

/*
 * What is at the target now.  Nothing reachable there: OK with *exists
 * false, and the kernel has the last word (RENAME_NOREPLACE).
 */
static NTSTATUS sn_target_check(struct si_ctx *s, const char *path,
				bool *exists)
{
	struct vfs_fh *fh = NULL;
	struct statx st, src;
	NTSTATUS status = vfs_fstat(s->open->fh, &src);

	*exists = false;
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = vfs_openat(s->tmp, s->open->tcon->vfs, path, O_PATH, &fh,
			    &st);
	if (!NT_STATUS_IS_OK(status)) {
		return NT_STATUS_OK;
	}
	*exists = true;
	if (!s->in->rename.replace_if_exists) {
		return NT_STATUS_OBJECT_NAME_COLLISION;
	}
	return sn_replaceable(s, fh, path, &st, &src);
}

/*
 * The source is open, so a missing name means the target's directory is
 * missing (MS-FSA: OBJECT_PATH_NOT_FOUND).
 */
static NTSTATUS sn_path_status(NTSTATUS status)
{
	return NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND) ?
		NT_STATUS_OBJECT_PATH_NOT_FOUND : status;
}

/*
 * Opens of the directory the file is in may keep it from being renamed
 * (smbd_file_blocks_child_rename): SHARING_VIOLATION.
 */
static NTSTATUS sn_parent_check(struct si_ctx *s)
{
	const char *slash = strrchr(s->open->name, '/');
	char *dir = talloc_strndup(s->tmp, s->open->name,
				   slash ? (size_t)(slash - s->open->name) : 0);
	struct vfs_fh *fh = NULL;
	struct statx st;
	NTSTATUS status;

	if (dir == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_openat(dir, s->open->tcon->vfs, dir, O_PATH | O_DIRECTORY,
			    &fh, &st);
	if (NT_STATUS_IS_OK(status) &&
	    smbd_file_blocks_child_rename(s->req->conn->server, &st)) {
		status = NT_STATUS_SHARING_VIOLATION;
	}
	talloc_free(dir);
	return status;
}

/*
 * DELETE access on the open; every other open of the file must share
 * delete (else SHARING_VIOLATION), as must the opens of its directory;
 * nothing open below a directory.
 */
static NTSTATUS sn_rename_check(struct si_ctx *s)
{
	const struct smbd_open *o = NULL;
	NTSTATUS status = si_need(s, SMB2_DELETE);

	if (NT_STATUS_IS_OK(status) && s->open->name[0] == '\0') {
		status = NT_STATUS_ACCESS_DENIED;       /* the share root */
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* every open is in the file table since its CREATE */
	for (o = s->open->file->opens; o != NULL; o = o->file_next) {
		if (o != s->open &&
		    (o->share_access & SMB2_FILE_SHARE_DELETE) == 0) {
			return NT_STATUS_SHARING_VIOLATION;
		}
	}
	if (s->open->is_dir &&
	    smbd_file_open_below(s->open->tcon, s->open->name)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	/* nor a file with an open stream (smb2.streams.basefile-rename-...) */
	if (s->open->file->stream_opens != NULL) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return sn_parent_check(s);
}

/*
 * ":name" renames a named stream within its file (MS-FSA 2.1.5.14.11):
 * the open must be one of a named stream; an existing target is
 * OBJECT_NAME_COLLISION, and with ReplaceIfExists INVALID_PARAMETER, as
 * Samba 4.17 answers (smbtorture smb2.streams.names).
 */
static NTSTATUS sn_stream_rename(struct si_ctx *s)
{
	const struct smb2_name16 *name = &s->in->rename.name;
	struct smb2_stream_name sn;
	struct vfs_stream *list = NULL;
	char *to = NULL, *new_name = NULL;
	size_t n = 0, i;
	NTSTATUS status = smb2_utf16_to_utf8(s->tmp, name->data, name->len,
					     &to);

	if (NT_STATUS_IS_OK(status)) {
		status = smb2_stream_name_parse(to + 1, strlen(to + 1), &sn);
	}
	if (NT_STATUS_IS_OK(status) &&
	    (s->open->fh->stream == NULL || sn.len == 0)) {
		/* to or from the unnamed stream: not offered */
		status = NT_STATUS_INVALID_PARAMETER;
	}
	if (NT_STATUS_IS_OK(status)) {
		new_name = talloc_strndup(s->tmp, sn.name, sn.len);
		status = new_name != NULL ? vfs_stream_list(s->tmp, s->open->fh,
							   &list, &n) :
			NT_STATUS_NO_MEMORY;
	}
	for (i = 0; NT_STATUS_IS_OK(status) && i < n; i++) {
		if (strcasecmp(list[i].name, new_name) == 0 &&
		    strcasecmp(list[i].name, s->open->fh->stream) != 0) {
			status = s->in->rename.replace_if_exists ?
				NT_STATUS_INVALID_PARAMETER :
				NT_STATUS_OBJECT_NAME_COLLISION;
		}
	}
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_stream_rename(s->open->fh, new_name, false);
	}
	return status;
}

static bool sn_is_stream_name(const struct smb2_name16 *name)
{
	return name->len >= 2 && name->data[0] == ':' && name->data[1] == 0;
}

NTSTATUS si_rename(struct si_ctx *s)
{
	bool replace = s->in->rename.replace_if_exists;
	bool exists = false;
	char *to = NULL;
	NTSTATUS status = sn_rename_check(s);

	if (NT_STATUS_IS_OK(status) &&
	    sn_is_stream_name(&s->in->rename.name)) {
		return sn_stream_rename(s);
	}
	if (NT_STATUS_IS_OK(status) && s->open->fh->stream != NULL) {
		return NT_STATUS_INVALID_PARAMETER;     /* stream -> file */
	}
	if (NT_STATUS_IS_OK(status)) {
		status = sn_target(s, &to);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = sn_fold(s, true, &to);
	}
	if (!NT_STATUS_IS_OK(status) || strcmp(to, s->open->name) == 0) {
		return status;          /* the same name: nothing to do */
	}
	status = sn_target_check(s, to, &exists);
	/* other leases' H first: set_info.c waits for the acks */
	if (NT_STATUS_IS_OK(status) && smbd_lease_contend_rename(s->open) &&
	    s->req->may_go_async) {
		return NT_STATUS_PENDING;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_renameat(s->open->tcon->vfs, s->open->name, to,
				      replace ? 0 : RENAME_NOREPLACE);
		status = sn_path_status(status);
	}
	if (NT_STATUS_IS_OK(status)) {
		/* out of one directory, into another (or the same) */
		smbd_lease_contend_parent(s->open, s->open->name);
		smbd_lease_contend_parent(s->open, to);
		status = smbd_file_renamed(s->open, to);
	}
	return status;
}

/*
 * A hard link needs no access on the open, but a writable share; a
 * replaced target is removed first (link(2) cannot replace).
 */
NTSTATUS si_link(struct si_ctx *s)
{
	struct vfs_handle *vfs = s->open->tcon->vfs;
	bool exists = false;
	char *to = NULL;
	NTSTATUS status = NT_STATUS_OK;

	if (s->open->tcon->read_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (s->open->is_dir) {
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	}
	status = sn_target(s, &to);
	if (NT_STATUS_IS_OK(status)) {
		status = sn_fold(s, false, &to);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = sn_target_check(s, to, &exists);
	}
	if (NT_STATUS_IS_OK(status) && exists) {
		status = vfs_unlinkat(vfs, to, 0);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = sn_path_status(vfs_linkat(vfs, s->open->name, to));
	}
	if (NT_STATUS_IS_OK(status)) {
		smbd_lease_contend_parent(s->open, to); /* a new entry */
	}
	return status;
}
