/*
 * Opening a named stream (MS-FSA 2.1.5.1, "file:stream"): the file is
 * opened first, as Samba opens its base file, with no access and full
 * sharing, so it takes no part in share modes or oplocks and a stream
 * open never breaks the file's oplock (smbtorture smb2.oplock.batch26,
 * smb2.kernel-oplocks).  It is created when the disposition creates and
 * it is missing, as Windows does.  The stream itself is then its own
 * object for share modes, oplocks and leases: its statx, from the VFS,
 * carries an inode number of its own (vfs_streams_xattr.c).
 */
#include <fcntl.h>
#include <unistd.h>
#include "source3/modules/vfs.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/ntacl.h"
#include "source3/smbd/files/share_mode.h"

#define STREAM_READ_ACCESS (SMB2_FILE_READ_DATA | SMB2_FILE_EXECUTE)
#define STREAM_WRITE_ACCESS (SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA)

static bool stream_disp_truncates(uint32_t disp)
{
	return disp == SMB2_FILE_SUPERSEDE || disp == SMB2_FILE_OVERWRITE ||
	       disp == SMB2_FILE_OVERWRITE_IF;
}

/* The file under the stream: opened or created, no access, all shared. */
static NTSTATUS stream_open_base(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
				 const struct smbd_create_params *p,
				 struct smbd_create_result *base)
{
	struct smbd_create_params bp = {
		.path = p->path,
		.access = 0,
		.share_access = SMB2_FILE_SHARE_READ | SMB2_FILE_SHARE_WRITE |
			SMB2_FILE_SHARE_DELETE,
		.disposition = p->disposition == SMB2_FILE_OPEN ||
			p->disposition == SMB2_FILE_OVERWRITE ?
			SMB2_FILE_OPEN : SMB2_FILE_OPEN_IF,
		.options = p->options & ~(SMB2_FILE_DELETE_ON_CLOSE |
					  SMB2_FILE_NON_DIRECTORY_FILE),
		.attributes = p->attributes,
		.read_only_share = p->read_only_share,
		.oplock_request = SMB2_OPLOCK_LEVEL_NONE,
		.may_wait = p->may_wait,
		.retry = p->retry,
	};

	return smbd_create_open(mem_ctx, tcon, &bp, base);
}

/*
 * The user's rights on the file decide what the stream may be opened
 * for (the kernel checks them again on every xattr access).
 */
static NTSTATUS stream_check_access(const struct smbd_create_params *p,
				    struct vfs_fh *base)
{
	int mode = 0;

	if (p->access & STREAM_READ_ACCESS) {
		mode |= R_OK;
	}
	if ((p->access & STREAM_WRITE_ACCESS) ||
	    stream_disp_truncates(p->disposition) ||
	    p->disposition != SMB2_FILE_OPEN) {
		mode |= W_OK;
	}
	return mode != 0 ? vfs_faccess(base, mode) : NT_STATUS_OK;
}

static int stream_open_flags(uint32_t disp)
{
	switch (disp) {
	case SMB2_FILE_OPEN:
	case SMB2_FILE_OVERWRITE:
		return 0;
	case SMB2_FILE_CREATE:
		return O_CREAT | O_EXCL;
	}
	return O_CREAT;
}

/* Share modes, oplocks, leases of the stream, then the overwrite. */
static NTSTATUS stream_use(struct smbd_tcon *tcon,
			   const struct smbd_create_params *p,
			   struct smbd_create_result *out, bool created)
{
	struct smbd_server *server = tcon->session->conn->server;
	NTSTATUS status = smbd_file_check(server, &out->st, p->access,
					  p->share_access);

	status = smbd_create_open_oplock(tcon, p, out, status);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (created) {
		out->action = SMB2_FILE_CREATED;
		return NT_STATUS_OK;
	}
	out->action = SMB2_FILE_OPENED;
	if (!stream_disp_truncates(p->disposition)) {
		return NT_STATUS_OK;
	}
	status = vfs_ftruncate(out->fh, 0);
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_fstat(out->fh, &out->st);
	}
	out->action = p->disposition == SMB2_FILE_SUPERSEDE ?
		SMB2_FILE_SUPERSEDED : SMB2_FILE_OVERWRITTEN;
	return status;
}

NTSTATUS smbd_stream_create_open(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
				 const struct smbd_create_params *p,
				 struct smbd_create_result *out)
{
	struct smbd_create_result base = { .fh = NULL };
	struct smbd_create_params sp = *p;
	bool created = false;
	NTSTATUS status;

	if (!tcon->vfs->streams) {
		/* what Samba says on a file system without streams */
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	status = stream_open_base(mem_ctx, tcon, p, &base);
	if (NT_STATUS_IS_OK(status)) {
		status = stream_check_access(p, base.fh);
	}
	if (NT_STATUS_IS_OK(status) && smbd_ntacl_share(tcon)) {
		/* the file's descriptor governs its streams */
		sp.path = base.path != NULL ? base.path : p->path;
		status = smbd_create_check_ntacl(tcon, &sp, &base);
		out->ntacl_checked = base.ntacl_checked;
		out->access_set = base.access_set;
		out->access = base.access;
		out->granted = base.granted;
		p = &sp;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_stream_open(mem_ctx, base.fh, p->stream,
					 stream_open_flags(p->disposition),
					 &out->fh, &out->st, &created);
	}
	if (NT_STATUS_IS_OK(status)) {
		out->path = base.path;
		status = stream_use(tcon, p, out, created);
	}
	if (!NT_STATUS_IS_OK(status) && base.fh != NULL &&
	    base.action == SMB2_FILE_CREATED &&
	    !NT_STATUS_EQUAL(status, NT_STATUS_PENDING)) {
		/* the file was made for this stream only: it goes too */
		(void)vfs_unlinkat(tcon->vfs, base.path ? base.path : p->path,
				   S_ISDIR(base.st.stx_mode) ? AT_REMOVEDIR : 0);
	}
	TALLOC_FREE(base.fh);
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(out->fh);
	}
	return status;
}
