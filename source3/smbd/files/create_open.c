/*
 * The file-layer half of CREATE (MS-FSA 2.1.5.1): open an existing file
 * or directory, or create one, as the disposition says, with the share
 * modes of every other open checked before anything on disk changes.
 * Synchronous: the VFS namespace ops are (vfs_default).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>
#include "lib/util/unix_token.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/casefold.h"
#include "source3/smbd/files/durable.h"
#include "source3/smbd/files/kernel_oplock.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/mangle.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dosmode.h"
#include "source3/smbd/files/filename.h"
#include "source3/smbd/files/ntacl.h"
#include "source3/smbd/files/open_files.h"
#include "source3/smbd/files/read_map.h"

/* Access bits that need the file's data, as opposed to its metadata */
#define CREATE_DATA_ACCESS (SMB2_FILE_READ_DATA | SMB2_FILE_EXECUTE)
/* Access bits that need a writable fd */
#define CREATE_WRITE_ACCESS (SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA)

static bool disp_truncates(uint32_t disp)
{
	return disp == SMB2_FILE_SUPERSEDE || disp == SMB2_FILE_OVERWRITE ||
	       disp == SMB2_FILE_OVERWRITE_IF;
}

static bool disp_creates(uint32_t disp)
{
	return disp != SMB2_FILE_OPEN && disp != SMB2_FILE_OVERWRITE;
}

/*
 * A missing name: PATH_NOT_FOUND when a directory on the way is missing
 * or is not a directory, else NAME_NOT_FOUND.
 */
static NTSTATUS refine_not_found(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
				 const char *path, NTSTATUS status)
{
	const char *slash = strrchr(path, '/');
	struct vfs_fh *parent = NULL;
	char *dir = NULL;

	if (NT_STATUS_EQUAL(status, NT_STATUS_NOT_A_DIRECTORY)) {
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	}
	if (!NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND) ||
	    slash == NULL) {
		return status;
	}
	dir = talloc_strndup(mem_ctx, path, (size_t)(slash - path));
	if (dir == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (!NT_STATUS_IS_OK(vfs_openat(mem_ctx, tcon->vfs, dir,
					O_PATH | O_DIRECTORY, &parent,
					NULL))) {
		status = NT_STATUS_OBJECT_PATH_NOT_FOUND;
	}
	talloc_free(parent);
	talloc_free(dir);
	return status;
}

static bool is_not_found(NTSTATUS status)
{
	return NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND) ||
	       NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_PATH_NOT_FOUND);
}

/*
 * Open what exists.  Writing (or truncating) needs a writable fd;
 * directories are never opened for writing; an open for attributes only
 * falls back to O_PATH when the file is not readable (e.g. mode 0).  On
 * a kernel oplocks share it is O_PATH at once: a real open would break
 * the lease behind another open's oplock, which a stat open must not.
 */
static NTSTATUS open_existing(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			      const struct smbd_create_params *p,
			      struct smbd_create_result *out)
{
	bool write = (p->access & CREATE_WRITE_ACCESS) ||
		     disp_truncates(p->disposition);
	int flags = write ? O_RDWR : O_RDONLY;

	if (!write && (p->access & ~SMBD_OPLOCK_STAT_ACCESS) == 0 &&
	    smbd_kernel_oplocks(tcon->share)) {
		return vfs_openat(mem_ctx, tcon->vfs, p->path, O_PATH,
				  &out->fh, &out->st);
	}
	NTSTATUS status = vfs_openat(mem_ctx, tcon->vfs, p->path, flags,
				     &out->fh, &out->st);

	if (write && NT_STATUS_EQUAL(status, NT_STATUS_FILE_IS_A_DIRECTORY)) {
		status = vfs_openat(mem_ctx, tcon->vfs, p->path, O_RDONLY,
				    &out->fh, &out->st);
	}
	/* writing without reading: a write-only file opens write-only */
	if (write && NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED) &&
	    ((p->maximum_allowed ? p->requested : p->access) &
	     CREATE_DATA_ACCESS) == 0) {
		NTSTATUS wo = vfs_openat(mem_ctx, tcon->vfs, p->path,
					 O_WRONLY, &out->fh, &out->st);

		/* a directory refused for reading stays refused */
		if (!NT_STATUS_EQUAL(wo, NT_STATUS_FILE_IS_A_DIRECTORY)) {
			status = wo;
		}
	}
	/* MAXIMUM_ALLOWED takes what the kernel gives (narrow_maximum) */
	if (write && NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED) &&
	    p->maximum_allowed && !disp_truncates(p->disposition) &&
	    (p->requested & CREATE_WRITE_ACCESS) == 0) {
		status = vfs_openat(mem_ctx, tcon->vfs, p->path, O_RDONLY,
				    &out->fh, &out->st);
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED) &&
	    ((p->access & (CREATE_DATA_ACCESS | CREATE_WRITE_ACCESS)) == 0 ||
	     (p->maximum_allowed && !disp_truncates(p->disposition) &&
	      (p->requested & (CREATE_DATA_ACCESS |
			       CREATE_WRITE_ACCESS)) == 0))) {
		status = vfs_openat(mem_ctx, tcon->vfs, p->path, O_PATH,
				    &out->fh, &out->st);
	}
	return status;
}

/*
 * May the user delete the directory entry of path: write and search on
 * its directory, and with the sticky bit set, own the file or the
 * directory (what unlink(2) will check, asked before the open succeeds,
 * as Samba does).
 */
static bool parent_allows_delete(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
				 const char *path, const struct statx *st)
{
	const struct unix_token *t = tcon->vfs->token;
	const char *slash = strrchr(path, '/');
	char *dir = talloc_strndup(mem_ctx, path,
				   slash != NULL ? (size_t)(slash - path) : 0);
	struct vfs_fh *parent = NULL;
	struct statx pst;
	bool ok = false;

	if (dir != NULL &&
	    NT_STATUS_IS_OK(vfs_openat(dir, tcon->vfs, dir,
				       O_PATH | O_DIRECTORY, &parent, &pst)) &&
	    NT_STATUS_IS_OK(vfs_faccess(parent, W_OK | X_OK))) {
		ok = (pst.stx_mode & S_ISVTX) == 0 || t == NULL ||
		     t->uid == 0 || t->uid == st->stx_uid ||
		     t->uid == pst.stx_uid;
	}
	talloc_free(dir);
	return ok;
}

/*
 * DELETE as Samba maps Unix permissions to it: who may write the file,
 * or who may remove it from its directory and may read it (Samba asks
 * the file's own permissions for the rest of the access: a 0600 file of
 * another user cannot be deleted even from a world-writable directory).
 */
static NTSTATUS check_delete(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			     const struct smbd_create_params *p,
			     const struct smbd_create_result *out)
{
	if ((p->access & SMB2_DELETE) == 0 ||
	    NT_STATUS_IS_OK(vfs_faccess(out->fh, W_OK))) {
		return NT_STATUS_OK;
	}
	if (NT_STATUS_IS_OK(vfs_faccess(out->fh, R_OK)) &&
	    parent_allows_delete(mem_ctx, tcon, p->path, &out->st)) {
		return NT_STATUS_OK;
	}
	return NT_STATUS_ACCESS_DENIED;
}

/* What the disposition, options and type allow (MS-FSA 2.1.5.1.2.1). */
static NTSTATUS check_existing(const struct smbd_create_params *p,
			       const struct statx *st)
{
	bool is_dir = S_ISDIR(st->stx_mode);

	if (!is_dir && !S_ISREG(st->stx_mode)) {
		/* FIFOs, sockets, devices are not served */
		return NT_STATUS_ACCESS_DENIED;
	}
	/* before the type: a mkdir over a file collides (smb2.mkdir) */
	if (p->disposition == SMB2_FILE_CREATE) {
		return NT_STATUS_OBJECT_NAME_COLLISION;
	}
	if (is_dir && (p->is_stream ||
		       (p->options & SMB2_FILE_NON_DIRECTORY_FILE))) {
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	}
	if (!is_dir && (p->options & SMB2_FILE_DIRECTORY_FILE)) {
		return NT_STATUS_NOT_A_DIRECTORY;
	}
	if (is_dir && disp_truncates(p->disposition)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (p->read_only_share && disp_truncates(p->disposition)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

/*
 * Overwriting a file whose stored attributes have HIDDEN or SYSTEM needs
 * them in the request's FileAttributes too (MS-FSA 2.1.5.1.2.1): else
 * ACCESS_DENIED, as Windows and Samba (smb2.openattr, smb2.dosmode).
 * Attributes a name earns ("hide files", "hide dot files") do not count,
 * and FILE_SUPERSEDE is not checked, both as in Samba 4.17
 * (open_match_attributes; tests/integration/test_create.py).
 */
static NTSTATUS check_overwrite_attributes(const struct smbd_create_params *p,
					   struct vfs_fh *fh)
{
	const uint32_t kept = SMB2_FILE_ATTRIBUTE_HIDDEN |
			      SMB2_FILE_ATTRIBUTE_SYSTEM;
	struct smbd_dosmode dm;

	if (!disp_truncates(p->disposition) ||
	    p->disposition == SMB2_FILE_SUPERSEDE || p->is_stream ||
	    !NT_STATUS_IS_OK(smbd_dosmode_get(fh, &dm))) {
		return NT_STATUS_OK;
	}
	if ((dm.attrs & kept & ~p->attributes) != 0) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

/* The READONLY attribute refuses writing and deleting (MS-FSA). */
static NTSTATUS check_readonly(const struct smbd_create_params *p,
			       struct vfs_fh *fh)
{
	struct smbd_dosmode dm;
	NTSTATUS status;

	/* nothing READONLY refuses: no need to read the attributes */
	if (!(p->options & SMB2_FILE_DELETE_ON_CLOSE) &&
	    !(p->access & CREATE_WRITE_ACCESS) &&
	    !disp_truncates(p->disposition)) {
		return NT_STATUS_OK;
	}
	status = smbd_dosmode_current(fh, smbd_filename_base(p->path), &dm);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = check_overwrite_attributes(p, fh);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if ((dm.attrs & SMB2_FILE_ATTRIBUTE_READONLY) == 0) {
		return NT_STATUS_OK;
	}
	if (p->options & SMB2_FILE_DELETE_ON_CLOSE) {
		return NT_STATUS_CANNOT_DELETE;
	}
	if ((p->access & CREATE_WRITE_ACCESS) ||
	    disp_truncates(p->disposition)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

/*
 * FileAttributes of a new or overwritten file (MS-FSA 2.1.5.1.2.1): what
 * the client asked for, plus ARCHIVE for files.  A new file gets a value
 * with its birth time, as Samba stores one at every create, so Samba
 * reads the same attributes and creation time later (docs/vfs.md); with
 * nothing beyond ARCHIVE that is best effort, as the statx-derived
 * default says the same to us on a file system without user xattrs.
 */
static NTSTATUS store_attributes(const struct smbd_create_params *p,
				 struct smbd_create_result *out, bool is_new)
{
	/* SPARSE_FILE comes only from FSCTL_SET_SPARSE (MS-FSA) */
	uint32_t attrs = p->attributes & SMBD_DOSMODE_STORED &
			 ~SMB2_FILE_ATTRIBUTE_SPARSE_FILE;
	NTSTATUS status;

	if (!S_ISDIR(out->st.stx_mode)) {
		attrs |= SMB2_FILE_ATTRIBUTE_ARCHIVE;
	}
	if (!is_new) {
		status = smbd_dosmode_set(out->fh, attrs);
	} else {
		status = smbd_dosmode_store_new(out->fh, &out->st, attrs);
		if ((attrs & ~SMB2_FILE_ATTRIBUTE_ARCHIVE) == 0) {
			status = NT_STATUS_OK;
		}
	}
	/*
	 * The xattr moved the change time: the CREATE answers with the
	 * times the file has from now on, or a replayed CREATE (and every
	 * QUERY_INFO) would disagree with it (smbtorture smb2.replay)
	 */
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_fstat(out->fh, &out->st);
	}
	return status;
}

/*
 * AlSi: reserve the space (MS-FSA: AllocationSize of a new or overwritten
 * file).  Best effort, as Samba: a file system without fallocate keeps
 * what it has.
 */
static void reserve_allocation(const struct smbd_create_params *p,
			       struct smbd_create_result *out)
{
	if (p->allocation_size == 0 || S_ISDIR(out->st.stx_mode)) {
		return;
	}
	if (NT_STATUS_IS_OK(vfs_fallocate(out->fh, FALLOC_FL_KEEP_SIZE, 0,
					  p->allocation_size))) {
		vfs_fstat(out->fh, &out->st);
	}
}

static NTSTATUS overwrite(const struct smbd_create_params *p,
			  struct smbd_create_result *out)
{
	NTSTATUS status = vfs_ftruncate(out->fh, 0);

	if (NT_STATUS_IS_OK(status)) {
		status = vfs_fstat(out->fh, &out->st);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = store_attributes(p, out, false);
	}
	if (NT_STATUS_IS_OK(status)) {
		reserve_allocation(p, out);
	}
	out->action = p->disposition == SMB2_FILE_SUPERSEDE ?
		SMB2_FILE_SUPERSEDED : SMB2_FILE_OVERWRITTEN;
	return status;
}

/*
 * The lease a new open may have (lease.c), and no oplock next to a
 * lease with handle caching (smbtorture smb2.lease.oplock).  A
 * directory has a lease only from a v2 context (SMB 3.x, directory
 * leasing announced), else neither.
 */
static void open_grant_lease(struct smbd_tcon *tcon,
			     const struct smbd_create_params *p,
			     struct smbd_create_result *out)
{
	struct smbd_server *server = tcon->session->conn->server;
	bool stat_open = (p->access & ~SMBD_OPLOCK_STAT_ACCESS) == 0 &&
		!disp_truncates(p->disposition);

	/* directories: v2 on a connection that negotiated directory leasing */
	if (p->lease != NULL &&
	    (!S_ISDIR(out->st.stx_mode) ||
	     (p->lease->version == 2 && p->lease->dir_ok))) {
		out->oplock_level = SMB2_OPLOCK_LEVEL_NONE;
		out->lease_granted = true;
		out->lease_state = smbd_lease_grant_state(
			server, &out->st, p->lease, stat_open,
			tcon->share->level2_oplocks);
	} else if (out->oplock_level != SMB2_OPLOCK_LEVEL_NONE &&
		   smbd_lease_file_has_handle(server, &out->st)) {
		out->oplock_level = SMB2_OPLOCK_LEVEL_NONE;
	}
}

/*
 * Oplocks (oplock.c): breaks go out before the share modes are final
 * and before a truncation; PENDING means wait for one and try again.
 */
NTSTATUS smbd_create_open_oplock(struct smbd_tcon *tcon,
				 const struct smbd_create_params *p,
				 struct smbd_create_result *out, NTSTATUS status)
{
	struct smbd_server *server = tcon->session->conn->server;
	bool lease_wait = false;

	if (!NT_STATUS_IS_OK(status) &&
	    !NT_STATUS_EQUAL(status, NT_STATUS_SHARING_VIOLATION)) {
		return status;
	}
	/*
	 * Going to delete it: other leases lose H and the open waits for
	 * the acks (as a rename does), so their holders may close first
	 */
	if (NT_STATUS_IS_OK(status) &&
	    (p->options & SMB2_FILE_DELETE_ON_CLOSE)) {
		lease_wait = smbd_lease_contend_delete(server, &out->st,
						       p->lease);
	}
	/* leases of other opens first, then oplocks: one pass of breaks */
	lease_wait |= smbd_lease_contend_open(
		server, &out->st, p->access, disp_truncates(p->disposition),
		NT_STATUS_EQUAL(status, NT_STATUS_SHARING_VIOLATION),
		p->lease, p->retry);
	status = smbd_oplock_open(tcon, &out->st, p->access, p->disposition,
				  p->oplock_request, S_ISDIR(out->st.stx_mode),
				  p->may_wait, status, &out->oplock_level);
	if (lease_wait && p->may_wait) {
		return NT_STATUS_PENDING;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	open_grant_lease(tcon, p, out);
	return status;
}

/*
 * An NT ACL share: the file's descriptor decides, before share modes
 * (MS-FSA 2.1.5.1.2.1); MAXIMUM_ALLOWED becomes what it grants.
 */
NTSTATUS smbd_create_check_ntacl(struct smbd_tcon *tcon,
				 struct smbd_create_params *p,
				 struct smbd_create_result *out)
{
	NTSTATUS status = smbd_ntacl_check_open(out->fh, tcon, p->path,
						out->fh, &out->st,
						p->requested,
						p->maximum_allowed,
						&out->granted);

	if (NT_STATUS_IS_OK(status) && p->maximum_allowed) {
		p->access = p->requested | (out->granted & p->max_access);
	}
	out->ntacl_checked = NT_STATUS_IS_OK(status);
	out->access_set = out->ntacl_checked;
	out->access = p->access;
	return status;
}

/*
 * MAXIMUM_ALLOWED on a file: no data rights the descriptor the kernel
 * gave cannot serve (open_existing fell back to a read-only or a
 * metadata-only open), beyond what was asked for explicitly.
 */
static void narrow_maximum(struct smbd_create_params *p,
			   struct smbd_create_result *out)
{
	uint32_t cannot = 0;
	int fl;

	if (!p->maximum_allowed || !S_ISREG(out->st.stx_mode)) {
		return;
	}
	fl = out->fh->is_path_only ? O_PATH : fcntl(out->fh->fd, F_GETFL);
	/*
	 * FILE_EXECUTE stays: the kernel's x bit, not the fd, says whether
	 * the user may execute, and Samba grants it from the ACL alone
	 */
	if (fl == -1 || (fl & O_PATH)) {
		cannot = SMB2_FILE_READ_DATA | CREATE_WRITE_ACCESS;
	} else if ((fl & O_ACCMODE) == O_RDONLY) {
		cannot = CREATE_WRITE_ACCESS;
	} else if ((fl & O_ACCMODE) == O_WRONLY) {
		cannot = SMB2_FILE_READ_DATA;
	}
	p->access &= ~(cannot & ~p->requested);
}

static NTSTATUS use_existing(struct smbd_tcon *tcon,
			     struct smbd_create_params *p,
			     struct smbd_create_result *out)
{
	struct smbd_server *server = tcon->session->conn->server;
	NTSTATUS status = check_existing(p, &out->st);

	if (NT_STATUS_IS_OK(status) && smbd_ntacl_share(tcon)) {
		status = smbd_create_check_ntacl(tcon, p, out);
	}
	if (NT_STATUS_IS_OK(status) && p->maximum_allowed) {
		narrow_maximum(p, out);
		out->access_set = true;
		out->access = p->access;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = check_readonly(p, out->fh);
	}
	if (NT_STATUS_IS_OK(status) && !smbd_ntacl_share(tcon)) {
		/* with NT ACLs the directory's DELETE_CHILD decided */
		status = check_delete(out->fh, tcon, p, out);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_file_check(server, &out->st, p->access,
					 p->share_access);
		status = smbd_create_open_oplock(tcon, p, out, status);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	out->action = SMB2_FILE_OPENED;
	if (disp_truncates(p->disposition)) {
		return overwrite(p, out);
	}
	return NT_STATUS_OK;
}

/*
 * open(2) answered EWOULDBLOCK: someone holds a lease on the file and
 * the kernel is breaking it (kernel_oplock.h).  Without opening it, see
 * what the open meets: our own oplock holder is broken as for any
 * conflicting open (the lease goes when its break ends) and PENDING
 * waits for it; a lease held outside smbd is waited for by polling,
 * bounded.  Whatever else the open would be refused is answered now.
 */
static NTSTATUS open_lease_blocked(TALLOC_CTX *mem_ctx,
				   struct smbd_tcon *tcon,
				   const struct smbd_create_params *p,
				   struct smbd_create_result *out,
				   bool *again)
{
	struct smbd_server *server = tcon->session->conn->server;
	NTSTATUS status = vfs_openat(mem_ctx, tcon->vfs, p->path, O_PATH,
				     &out->fh, &out->st);

	if (NT_STATUS_IS_OK(status) &&
	    smbd_read_map_yield(server, &out->st)) {
		/* the lease was our mapped reads': gone, open again */
		TALLOC_FREE(out->fh);
		*again = true;
		return NT_STATUS_NETWORK_BUSY;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = check_existing(p, &out->st);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_file_check(server, &out->st, p->access,
					 p->share_access);
		status = smbd_create_open_oplock(tcon, p, out, status);
	}
	TALLOC_FREE(out->fh);
	if (NT_STATUS_IS_OK(status)) {
		/* inside a compound the open cannot wait */
		status = p->may_wait ?
			smbd_kernel_oplock_blocked(server, &out->st) :
			NT_STATUS_SHARING_VIOLATION;
	}
	return status;
}

/*
 * "inherit permissions": a new file takes its directory's rw bits (no
 * setuid/setgid/sticky) plus the owner's x of the ARCHIVE attribute
 * (map archive), a new directory the directory's whole mode; create
 * mask and the forced modes do not apply (Samba).  Done by the owner
 * after creating, as the user.
 *
 * "inherit owner": the new file belongs to the directory's owner.  Only
 * root can give a file away: the daemon does it, for this file it just
 * created, as Samba does.
 */
static NTSTATUS inherit_from_parent(TALLOC_CTX *mem_ctx,
				    struct smbd_tcon *tcon, const char *path,
				    struct smbd_create_result *out)
{
	const char *slash = strrchr(path, '/');
	char *dir = talloc_strndup(mem_ctx, path,
				   slash != NULL ? (size_t)(slash - path) : 0);
	struct vfs_fh *parent = NULL;
	struct statx st;
	mode_t mode;
	NTSTATUS status;

	if (dir == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_openat(dir, tcon->vfs, dir, O_PATH | O_DIRECTORY,
			    &parent, &st);
	if (NT_STATUS_IS_OK(status) && tcon->share->inherit_permissions) {
		mode = S_ISDIR(out->st.stx_mode) ? st.stx_mode & 07777 :
			(st.stx_mode & 0666) |
			(tcon->share->map_archive ? S_IXUSR : 0);
		status = vfs_fchmod(out->fh, mode);
	}
	if (NT_STATUS_IS_OK(status) && tcon->share->inherit_owner) {
		/* root's right, even inside the request's hold */
		int ret = unix_token_become_root();

		ret = ret == 0 ? fchown(out->fh->fd, st.stx_uid, (gid_t)-1) : ret;
		unix_token_unbecome();
		if (ret != 0) {
			status = NT_STATUS_ACCESS_DENIED;
		}
	}
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_fstat(out->fh, &out->st);
	}
	talloc_free(dir);
	return status;
}

static NTSTATUS create_new(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			   const struct smbd_create_params *p,
			   struct smbd_create_result *out)
{
	NTSTATUS status;

	if ((p->options & SMB2_FILE_DELETE_ON_CLOSE) &&
	    (p->attributes & SMB2_FILE_ATTRIBUTE_READONLY)) {
		return NT_STATUS_CANNOT_DELETE; /* before it exists */
	}
	if (p->attributes & SMB2_FILE_ATTRIBUTE_ENCRYPTED) {
		/* no EFS: what a standalone Windows or Samba server says */
		return NT_STATUS_ACCESS_DENIED;
	}
	if (smbd_ntacl_share(tcon)) {
		status = smbd_ntacl_check_create(
			mem_ctx, tcon, p->path,
			(p->options & SMB2_FILE_DIRECTORY_FILE) != 0);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	if (p->options & SMB2_FILE_DIRECTORY_FILE) {
		status = vfs_mkdirat(tcon->vfs, p->path, tcon->vfs->dir_mode);
		if (NT_STATUS_IS_OK(status)) {
			status = vfs_openat(mem_ctx, tcon->vfs, p->path,
					    O_RDONLY | O_DIRECTORY, &out->fh,
					    &out->st);
		}
	} else {
		status = vfs_openat(mem_ctx, tcon->vfs, p->path,
				    O_RDWR | O_CREAT | O_EXCL, &out->fh,
				    &out->st);
	}
	out->action = SMB2_FILE_CREATED;
	if (NT_STATUS_IS_OK(status) && (tcon->share->inherit_permissions ||
					tcon->share->inherit_owner)) {
		status = inherit_from_parent(mem_ctx, tcon, p->path, out);
	}
	if (NT_STATUS_IS_OK(status)) {
		out->oplock_level = smbd_oplock_grant_new(
			tcon, p->oplock_request, S_ISDIR(out->st.stx_mode));
		open_grant_lease(tcon, p, out);
		status = store_attributes(p, out, true);
	}
	if (NT_STATUS_IS_OK(status)) {
		reserve_allocation(p, out);
	}
	/*
	 * The descriptor last: what it maps to may leave the user without
	 * the write permission the DOS attributes need
	 */
	if (NT_STATUS_IS_OK(status) && smbd_ntacl_share(tcon) &&
	    !p->ntacl_by_caller) {
		status = smbd_ntacl_create_apply(mem_ctx, tcon, p->path,
						 out->fh, p->secd);
		if (NT_STATUS_IS_OK(status)) {
			status = vfs_fstat(out->fh, &out->st);
		}
	}
	return status;
}

/*
 * "preserve case = no": a new name is lower-cased (Samba's "default
 * case = lower"); the directories above it are what is on disk.
 */
static NTSTATUS new_name_case(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			      struct smbd_create_params *q,
			      struct smbd_create_result *out)
{
	const char *base = smbd_filename_base(q->path);
	char *lower = NULL;
	char *path = NULL;

	if (casefold_preserve(tcon->share)) {
		return NT_STATUS_OK;
	}
	lower = casefold_lower(mem_ctx, base);
	if (lower != NULL) {
		path = talloc_asprintf(mem_ctx, "%.*s%s",
				       (int)(base - q->path), q->path, lower);
	}
	if (path == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	q->path = out->path = path;
	return NT_STATUS_OK;
}

/* The name is missing: create it if the disposition says so. */
static NTSTATUS open_missing(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			     struct smbd_create_params *q,
			     NTSTATUS status,
			     struct smbd_create_result *out)
{
	status = refine_not_found(mem_ctx, tcon, q->path, status);
	if (!is_not_found(status) || !disp_creates(q->disposition) ||
	    NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_PATH_NOT_FOUND)) {
		return status;
	}
	if (q->read_only_share) {
		/*
		 * Nothing is created on a read-only share; as in Samba the
		 * name stays missing (write access was refused earlier).
		 */
		return status;
	}
	status = new_name_case(mem_ctx, tcon, q, out);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return create_new(mem_ctx, tcon, q, out);
}

/*
 * A miss in a case-insensitive share (casefold.c): look for the name's
 * on-disk spelling and open that.  From here on q->path (and out->path)
 * is what is on disk as far as it exists, the client's spelling after;
 * so a new name under existing directories lands in them, and a name
 * differing only in case from an existing one opens that one.
 */
static NTSTATUS open_folded(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			    struct smbd_create_params *q, NTSTATUS status,
			    struct smbd_create_result *out)
{
	char *found = NULL;
	NTSTATUS s;

	if (!NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND) ||
	    !casefold_share(tcon->share)) {
		return status;
	}
	s = casefold_resolve(mem_ctx, tcon->vfs, q->path, &found);
	if (!NT_STATUS_IS_OK(s)) {
		return s;
	}
	if (strcmp(found, q->path) == 0) {
		talloc_free(found);
		return status;
	}
	q->path = out->path = found;
	return open_existing(mem_ctx, tcon, q, out);
}

/*
 * A miss on a name shaped as a short name (mangle.c): open the entry
 * it names; a short name of a file that has gone names its long name,
 * which open_missing then creates.
 */
static NTSTATUS open_mangled(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			     struct smbd_create_params *q, NTSTATUS status,
			     struct smbd_create_result *out)
{
	char *found = NULL;
	bool on_disk = false;
	NTSTATUS s;

	if (!NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND) ||
	    tcon->share->mangled_names == LP_MANGLED_NO ||
	    !smbd_mangle_is_short(smbd_filename_base(q->path))) {
		return status;
	}
	s = smbd_mangle_resolve(mem_ctx, tcon, q->path, &found, &on_disk);
	if (!NT_STATUS_IS_OK(s)) {
		return s;
	}
	if (found == NULL) {
		return status;
	}
	q->path = out->path = found;
	return on_disk ? open_existing(mem_ctx, tcon, q, out) : status;
}

NTSTATUS smbd_create_open(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			  const struct smbd_create_params *p,
			  struct smbd_create_result *out)
{
	struct smbd_create_params q = *p;
	NTSTATUS status = NT_STATUS_OK;
	int tries;

	out->path = NULL;
	if ((p->is_stream || p->stream != NULL) &&
	    (p->options & SMB2_FILE_DIRECTORY_FILE)) {
		return NT_STATUS_NOT_A_DIRECTORY;       /* a stream is data */
	}
	if (p->stream != NULL) {
		return smbd_stream_create_open(mem_ctx, tcon, p, out);
	}
	/* a name created or removed between our two steps: look again */
	for (tries = 0; tries < 3; tries++) {
		status = open_existing(mem_ctx, tcon, &q, out);
		status = open_folded(mem_ctx, tcon, &q, status, out);
		status = open_mangled(mem_ctx, tcon, &q, status, out);
		if (NT_STATUS_EQUAL(status, NT_STATUS_NETWORK_BUSY)) {
			bool again = false;

			status = open_lease_blocked(mem_ctx, tcon, &q, out,
						    &again);
			if (again && tries + 1 < 3) {
				q.path = p->path;
				out->path = NULL;
				continue;
			}
			if (again) {
				status = NT_STATUS_SHARING_VIOLATION;
			}
			break;
		}
		if (NT_STATUS_IS_OK(status) &&
		    smbd_durable_contend(tcon->session->conn->server,
					 &out->st, q.access, q.disposition)) {
			/* a disconnected open went (and maybe the name) */
			TALLOC_FREE(out->fh);
			status = NT_STATUS_SHARING_VIOLATION;
			q.path = p->path;
			out->path = NULL;
			continue;
		}
		if (NT_STATUS_IS_OK(status)) {
			status = use_existing(tcon, &q, out);
			break;
		}
		status = open_missing(mem_ctx, tcon, &q, status, out);
		if (!NT_STATUS_EQUAL(status,
				     NT_STATUS_OBJECT_NAME_COLLISION)) {
			break;
		}
		q.path = p->path;       /* and look for it afresh */
		out->path = NULL;
	}
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(out->fh);
		return status;
	}
	out->oplock_level = smbd_kernel_oplock_grant(tcon, out->fh, &out->st,
						     out->oplock_level);
	return status;
}
