/*
 * CREATE (MS-SMB2 3.3.5.9).  This slice opens existing files and
 * directories; dispositions that would create or truncate answer
 * NOT_SUPPORTED on a writable share (docs/vfs.md) and ACCESS_DENIED on a
 * read-only one, as Samba does.  Opening is synchronous (vfs_default);
 * the result is posted, never returned inside _send.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include "lib/util/debug.h"
#include "lib/util/byteorder.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/smbd_files.h"

/* Access bits that need the file's data, as opposed to its metadata */
#define CREATE_DATA_ACCESS (SMB2_FILE_READ_DATA | SMB2_FILE_EXECUTE)
/* Access bits that need a writable fd */
#define CREATE_WRITE_ACCESS (SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA)

struct create_args {
	struct smb2_create_req r;
	char *path;
	bool is_stream;
	uint32_t access;                /* granted */
	uint32_t max_access;
};

/* ---- request checks (MS-SMB2 3.3.5.9, in its order) ---- */

static NTSTATUS create_check_options(const struct smb2_create_req *r)
{
	uint32_t opts = r->create_options;

	if (r->impersonation_level > SMB2_IMPERSONATION_DELEGATE) {
		return NT_STATUS_BAD_IMPERSONATION_LEVEL;
	}
	if (r->create_disposition > SMB2_FILE_OVERWRITE_IF) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((opts & SMB2_FILE_DIRECTORY_FILE) &&
	    (opts & SMB2_FILE_NON_DIRECTORY_FILE)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((opts & SMB2_FILE_DIRECTORY_FILE) &&
	    r->create_disposition != SMB2_FILE_OPEN &&
	    r->create_disposition != SMB2_FILE_CREATE &&
	    r->create_disposition != SMB2_FILE_OPEN_IF) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (opts & (SMB2_FILE_OPEN_BY_FILE_ID | SMB2_FILE_RESERVE_OPFILTER)) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if ((opts & SMB2_FILE_DELETE_ON_CLOSE) &&
	    !(r->desired_access & (SMB2_DELETE | SMB2_GENERIC_ALL))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/* GENERIC_* to specific rights (MS-SMB2 2.2.13.1.1) */
static uint32_t create_map_generic(uint32_t a, uint32_t max_access)
{
	uint32_t out = a & ~(SMB2_GENERIC_READ | SMB2_GENERIC_WRITE |
			     SMB2_GENERIC_EXECUTE | SMB2_GENERIC_ALL |
			     SMB2_MAXIMUM_ALLOWED);

	if (a & SMB2_GENERIC_READ) {
		out |= SMBD_FILE_GENERIC_READ;
	}
	if (a & SMB2_GENERIC_WRITE) {
		out |= SMBD_FILE_GENERIC_WRITE;
	}
	if (a & SMB2_GENERIC_EXECUTE) {
		out |= SMBD_FILE_GENERIC_EXECUTE;
	}
	if (a & SMB2_GENERIC_ALL) {
		out |= SMBD_FILE_ALL_ACCESS;
	}
	if (a & SMB2_MAXIMUM_ALLOWED) {
		out |= max_access;
	}
	return out;
}

/* Share-level access: a read-only share grants no write rights. */
static NTSTATUS create_check_access(struct smbd_tcon *tcon,
				    struct create_args *a)
{
	a->max_access = tcon->read_only ? SMBD_MAX_ACCESS_READ_ONLY :
		SMBD_FILE_ALL_ACCESS;
	a->access = create_map_generic(a->r.desired_access, a->max_access);
	if (a->access & SMB2_ACCESS_SYSTEM_SECURITY) {
		return NT_STATUS_PRIVILEGE_NOT_HELD;
	}
	if (a->access & ~a->max_access) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

static NTSTATUS create_parse(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			     struct create_args *a)
{
	NTSTATUS status = smb2_create_req_pull(req->pdu, &a->r);

	if (NT_STATUS_IS_OK(status)) {
		status = create_check_options(&a->r);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_filename_convert(mem_ctx, &a->r.name, &a->path,
					       &a->is_stream);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_check_access(req->tcon, a);
	}
	return status;
}

/* ---- opening ---- */

static bool create_would_write(uint32_t disposition)
{
	return disposition != SMB2_FILE_OPEN &&
	       disposition != SMB2_FILE_OPEN_IF;
}

/*
 * A missing file: NAME_NOT_FOUND, or PATH_NOT_FOUND when a directory on
 * the way is missing.  A disposition that would create it is refused.
 */
static NTSTATUS create_missing(struct smbd_tcon *tcon, struct create_args *a,
			       NTSTATUS status)
{
	uint32_t disp = a->r.create_disposition;

	if (disp == SMB2_FILE_OPEN || disp == SMB2_FILE_OVERWRITE) {
		return status;
	}
	return tcon->read_only ? NT_STATUS_ACCESS_DENIED :
		NT_STATUS_NOT_SUPPORTED;
}

static NTSTATUS create_refine_not_found(TALLOC_CTX *mem_ctx,
					struct smbd_tcon *tcon,
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

/*
 * Data access needs a readable fd; an open for attributes only falls
 * back to O_PATH when the file is not readable (e.g. mode 0).
 */
static NTSTATUS create_vfs_open(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
				struct create_args *a, struct vfs_fh **fh,
				struct statx *st)
{
	int flags = (a->access & CREATE_WRITE_ACCESS) ? O_RDWR : O_RDONLY;
	NTSTATUS status = vfs_openat(mem_ctx, tcon->vfs, a->path, flags, fh,
				     st);

	if (flags == O_RDWR &&
	    NT_STATUS_EQUAL(status, NT_STATUS_FILE_IS_A_DIRECTORY)) {
		/* directories are never opened for writing */
		status = vfs_openat(mem_ctx, tcon->vfs, a->path, O_RDONLY, fh,
				    st);
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED) &&
	    (a->access & CREATE_DATA_ACCESS) == 0) {
		status = vfs_openat(mem_ctx, tcon->vfs, a->path, O_PATH, fh,
				    st);
	}
	return status;
}

static NTSTATUS create_check_type(const struct create_args *a,
				  const struct statx *st)
{
	bool is_dir = S_ISDIR(st->stx_mode);

	if (!is_dir && !S_ISREG(st->stx_mode)) {
		/* FIFOs, sockets, devices are not served */
		return NT_STATUS_ACCESS_DENIED;
	}
	if (is_dir && (a->is_stream ||
		       (a->r.create_options & SMB2_FILE_NON_DIRECTORY_FILE))) {
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	}
	if (!is_dir && (a->r.create_options & SMB2_FILE_DIRECTORY_FILE)) {
		return NT_STATUS_NOT_A_DIRECTORY;
	}
	if (a->r.create_disposition == SMB2_FILE_CREATE) {
		return NT_STATUS_OBJECT_NAME_COLLISION;
	}
	if (create_would_write(a->r.create_disposition)) {
		/* overwrite/supersede truncate: a write */
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

static NTSTATUS create_open(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			    struct create_args *a, struct vfs_fh **fh,
			    struct statx *st)
{
	NTSTATUS status = create_vfs_open(mem_ctx, tcon, a, fh, st);

	if (!NT_STATUS_IS_OK(status)) {
		status = create_refine_not_found(mem_ctx, tcon, a->path,
						 status);
		if (NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND) ||
		    NT_STATUS_EQUAL(status,
				    NT_STATUS_OBJECT_PATH_NOT_FOUND)) {
			return create_missing(tcon, a, status);
		}
		return status;
	}
	status = create_check_type(a, st);
	if (NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED) &&
	    !tcon->read_only && S_ISREG(st->stx_mode)) {
		status = NT_STATUS_NOT_SUPPORTED;       /* later issue */
	}
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(*fh);
	}
	return status;
}

/* ---- the response ---- */

/* MxAc (MS-SMB2 2.2.14.2.5): QueryStatus, MaximalAccess */
static bool create_mxac(TALLOC_CTX *mem_ctx, const struct create_args *a,
			struct smb2_create_ctx *ctx)
{
	uint8_t *data = talloc_zero_size(mem_ctx, 8);

	if (data == NULL) {
		return false;
	}
	push_le32(data, 0);
	push_le32(data + 4, a->max_access);
	*ctx = (struct smb2_create_ctx) {
		.name = (const uint8_t *)SMB2_CREATE_TAG_MXAC, .name_len = 4,
		.data = data, .data_len = 8,
	};
	return true;
}

static NTSTATUS create_response(TALLOC_CTX *mem_ctx,
				const struct create_args *a,
				const struct smbd_open *open,
				const struct statx *st,
				struct smbd_response *rsp)
{
	struct smb2_create_ctx ctx[1];
	struct smb2_file_meta m;
	size_t n = 0;
	struct smb2_create_rsp out = {
		.create_action = SMB2_FILE_OPENED,
		.file_id = { open->persistent_id, open->volatile_id },
	};

	smbd_meta_from_statx(st, smbd_filename_base(a->path), &m);
	out.creation_time = m.create_time;
	out.last_access_time = m.access_time;
	out.last_write_time = m.write_time;
	out.change_time = m.change_time;
	out.allocation_size = m.allocation_size;
	out.end_of_file = m.end_of_file;
	out.file_attributes = m.attributes;
	/* unknown contexts are ignored; MxAc is cheap to answer */
	if (smb2_create_ctx_find(&a->r.contexts, SMB2_CREATE_TAG_MXAC,
				 &n) != NULL) {
		if (!create_mxac(mem_ctx, a, &ctx[0])) {
			return NT_STATUS_NO_MEMORY;
		}
		out.contexts = ctx;
		out.num_contexts = 1;
	}
	rsp->body = smb2_create_rsp_push(mem_ctx, &out, &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static NTSTATUS create_new_open(struct smbd_request *req,
				struct create_args *a, struct vfs_fh *fh,
				const struct statx *st, struct smbd_open **out)
{
	struct smbd_open *open = smbd_open_new(req->tcon);

	if (open == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	open->fh = talloc_steal(open, fh);
	open->name = talloc_steal(open, a->path);
	open->is_dir = S_ISDIR(st->stx_mode);
	open->access_mask = a->access;
	open->share_access = a->r.share_access;
	open->create_options = a->r.create_options;
	*out = open;
	return NT_STATUS_OK;
}

static NTSTATUS create_run(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			   struct smbd_response *rsp)
{
	struct create_args *a = talloc_zero(mem_ctx, struct create_args);
	struct smbd_open *open = NULL;
	struct vfs_fh *fh = NULL;
	struct statx st;
	NTSTATUS status;

	if (a == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = create_parse(a, req, a);
	if (NT_STATUS_IS_OK(status) &&
	    req->tcon->num_opens >= SMBD_MAX_OPENS_PER_TCON) {
		status = NT_STATUS_TOO_MANY_OPENED_FILES;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_open(a, req->tcon, a, &fh, &st);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_new_open(req, a, fh, &st, &open);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_response(mem_ctx, a, open, &st, rsp);
		if (!NT_STATUS_IS_OK(status)) {
			TALLOC_FREE(open);
		}
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: CREATE failed: %s\n", req->conn->peer,
			 nt_errstr(status));
	}
	req->created = open;
	talloc_free(a);
	return status;
}

struct tevent_req *smb2_create_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status = create_run(mem_ctx, req, &rsp);

	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

NTSTATUS smb2_create_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			  struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
