/*
 * CREATE (MS-SMB2 3.3.5.9): the request's checks, its create contexts and
 * the response.  Opening or creating the file is the file layer's
 * (create_open.c); the new open joins the server-wide file table
 * (share_mode.c).  Synchronous, except when another open's oplock must
 * be broken first (oplock.c): then it waits async and runs again; the
 * result is posted, never returned inside _send.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/commands/pipe.h"
#include "source3/smbd/files/kernel_oplock.h"
#include "source3/smbd/files/handles.h"
#include "source3/smbd/session/budget.h"
#include "source3/smbd/files/channel_seq.h"
#include "source3/smbd/files/durable.h"
#include "source3/smbd/files/replay.h"
#include "source3/smbd/files/ea.h"
#include "source3/smbd/files/write_time.h"
#include "source3/smbd/files/ntacl.h"
#include "source3/smbd/files/secdesc.h"
#include "source3/smbd/session/session.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/share_names.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/dosmode.h"
#include "source3/smbd/files/filename.h"
#include "source3/smbd/files/open_files.h"


struct create_args {
	struct smb2_create_req r;
	struct smb2_durable_req dh;     /* DHnQ, DH2Q, DHnC, DH2C */
	bool has_lease;                 /* RqLs with OplockLevel LEASE */
	struct smbd_lease_req lease;
	bool retry;                     /* after waiting for a break */
	bool durable_granted;
	bool app_instance;              /* app_instance_id was given */
	uint8_t app_instance_id[16];
	int replay_oplock;              /* >= 0: a replay's OplockLevel */
	bool has_create_guid;           /* DH2Q with a non-zero CreateGuid */
	char *path;
	bool is_stream;
	char *stream;           /* x:s names stream s; NULL: none */
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
	if (opts & SMB2_FILE_OPTIONS_RESERVED) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (opts & (SMB2_FILE_OPEN_BY_FILE_ID | SMB2_FILE_RESERVE_OPFILTER |
		    SMB2_FILE_CREATE_TREE_CONNECTION)) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if ((opts & SMB2_FILE_DELETE_ON_CLOSE) &&
	    !(r->desired_access & (SMB2_DELETE | SMB2_GENERIC_ALL |
				   SMB2_MAXIMUM_ALLOWED))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/*
 * GENERIC_* to specific rights (MS-SMB2 2.2.13.1.1), MAXIMUM_ALLOWED to
 * max_access
 */
static uint32_t create_map_generic(uint32_t a, uint32_t max_access)
{
	return smb2_access_map_generic(a & ~SMB2_MAXIMUM_ALLOWED) |
	       ((a & SMB2_MAXIMUM_ALLOWED) ? max_access : 0);
}

/* Share-level access: a read-only share grants no write rights. */
static NTSTATUS create_check_access(struct smbd_tcon *tcon,
				    struct create_args *a)
{
	a->max_access = tcon->read_only ? SMBD_MAX_ACCESS_READ_ONLY :
		SMBD_FILE_ALL_ACCESS;
	a->access = create_map_generic(a->r.desired_access, a->max_access);
	/*
	 * Nothing at all, or bits no object has: what Windows and Samba
	 * deny (smbtorture smb2.create.gentest).  SYNCHRONIZE alone is a
	 * stat open and allowed (smb2.oplock.statopen1), although gentest
	 * expects it denied.
	 */
	if (a->r.desired_access == 0 ||
	    (a->r.desired_access & SMB2_ACCESS_MASK_INVALID)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (a->access & SMB2_ACCESS_SYSTEM_SECURITY) {
		return NT_STATUS_PRIVILEGE_NOT_HELD;
	}
	if (a->access & ~a->max_access) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if ((a->r.create_options & SMB2_FILE_DELETE_ON_CLOSE) &&
	    !(a->access & SMB2_DELETE)) {
		return NT_STATUS_ACCESS_DENIED; /* MAXIMUM_ALLOWED gave none */
	}
	/* after the access checks, as Windows (smbtorture gentest) */
	if (a->r.file_attributes & SMB2_FILE_ATTRIBUTES_CREATE_INVALID) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static bool create_is_reconnect(const struct create_args *a)
{
	return a->dh.v1_reconnect || a->dh.v2_reconnect;
}

/*
 * The durable contexts come first: a reconnect (DHnC, DH2C) ignores
 * every other field of the request (smbtorture durable-open.reopen2),
 * and DH2Q/DH2C are SMB 3.x only (MS-SMB2 3.3.5.9.10, 3.3.5.9.12).
 */
static NTSTATUS create_parse_durable(struct smbd_request *req,
				     struct create_args *a)
{
	NTSTATUS status = smb2_durable_req_pull(&a->r.contexts, &a->dh);

	if (NT_STATUS_IS_OK(status)) {
		status = smb2_app_instance_pull(&a->r.contexts,
						&a->app_instance,
						a->app_instance_id);
	}
	if (NT_STATUS_IS_OK(status) && req->conn->dialect < SMB2_DIALECT_0300) {
		a->dh.v2_request = false;
		a->dh.v2_reconnect = false;
	}
	if (!a->dh.v2_request) {
		a->app_instance = false;        /* only with DH2Q */
	}
	return status;
}

/*
 * RqLs (3.3.5.9.8, 3.3.5.9.11): only with OplockLevel LEASE (a durable
 * reconnect names its lease whatever the level, as smbtorture's
 * reopen1a-lease sends it), on 2.1 and later unless "smb2 leases = no"
 * (the connection's SMB2_GLOBAL_CAP_LEASING, as Samba), and where
 * oplocks are allowed; a v2 context on 2.1 is read as v1.  Otherwise
 * the context is ignored and no lease is granted.
 */
static NTSTATUS create_parse_lease(struct smbd_request *req,
				   struct create_args *a)
{
	size_t n = 0;
	const struct smb2_create_ctx *c = smb2_create_ctx_find(
		&a->r.contexts, SMB2_CREATE_TAG_RQLS, &n);
	struct smbd_lease_req *lr = &a->lease;
	struct smb2_lease l;
	NTSTATUS status;

	if (c == NULL ||
	    !(req->conn->server_caps & SMB2_GLOBAL_CAP_LEASING) ||
	    (a->r.requested_oplock_level != SMB2_OPLOCK_LEVEL_LEASE &&
	     !create_is_reconnect(a)) ||
	    !req->tcon->share->oplocks ||
	    /* Linux file leases cannot back SMB2 leases (Samba's rule) */
	    smbd_kernel_oplocks(req->tcon->share)) {
		return NT_STATUS_OK;
	}
	status = smb2_lease_pull(c, &l);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (req->conn->dialect < SMB2_DIALECT_0300) {
		l.version = 1;
	}
	a->has_lease = true;
	memcpy(lr->client_guid, req->conn->client_guid, 16);
	memcpy(lr->key, l.key, sizeof(lr->key));
	lr->state = l.state;
	lr->version = l.version;
	lr->dir_ok = (req->conn->server_caps &
		      SMB2_GLOBAL_CAP_DIRECTORY_LEASING) != 0;
	if (l.version == 2) {
		memcpy(lr->parent_key, l.parent_key, sizeof(lr->parent_key));
		lr->flags = l.flags;
		lr->epoch = l.epoch;
	}
	return NT_STATUS_OK;
}

static NTSTATUS create_parse(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			     struct create_args *a)
{
	NTSTATUS status = smb2_create_req_pull(req->pdu, &a->r);

	if (NT_STATUS_IS_OK(status)) {
		status = create_parse_durable(req, a);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_parse_lease(req, a);
	}
	if (NT_STATUS_IS_OK(status) && create_is_reconnect(a)) {
		return status;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_check_options(&a->r);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_filename_convert_stream(mem_ctx, &a->r.name,
						      &a->path, &a->is_stream,
						      &a->stream);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_path_vetoed(req->tcon->vfs, a->path);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_check_access(req->tcon, a);
	}
	return status;
}

/* ---- create contexts (MS-SMB2 3.3.5.9.x) ---- */

/*
 * Contexts that change what is opened are decided before opening:
 * extended attributes (ExtA) are checked by ea.c and applied to what
 * was created; there are no snapshots to open (TWrp).  A lease request
 * is not an error: none is granted (oplock level NONE).  Durable handle
 * contexts are parsed before (create_parse) and handled in durable.c.
 * A security descriptor (SecD) is parsed first and mapped to the mode
 * of what was created (secdesc.c).
 */
static NTSTATUS create_check_contexts(struct smbd_tcon *tcon,
				      const struct smb2_create_ctx_list *l)
{
	size_t n = 0;
	NTSTATUS status = smbd_ea_create_check(tcon, l);

	if (NT_STATUS_IS_OK(status)) {
		status = smbd_secdesc_create_check(l);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (smb2_create_ctx_find(l, SMB2_CREATE_TAG_TWRP, &n) != NULL) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	return NT_STATUS_OK;
}

/* AlSi (2.2.13.2.6): the allocation size for a new file */
static NTSTATUS create_alsi(const struct smb2_create_ctx_list *l,
			    uint64_t *size)
{
	size_t n = 0;
	const struct smb2_create_ctx *c = smb2_create_ctx_find(
		l, SMB2_CREATE_TAG_ALSI, &n);

	*size = 0;
	if (c == NULL) {
		return NT_STATUS_OK;
	}
	return smb2_alsi_pull(c, size);
}

static bool ctx_wanted(const struct create_args *a, const char *tag)
{
	size_t n = 0;

	return smb2_create_ctx_find(&a->r.contexts, tag, &n) != NULL;
}

/* MxAc (MS-SMB2 2.2.14.2.5): QueryStatus, MaximalAccess */
static bool create_mxac(TALLOC_CTX *mem_ctx, const struct create_args *a,
			struct smb2_create_ctx *ctx)
{
	const struct smb2_mxac_rsp m = {
		.query_status = 0, .maximal_access = a->max_access,
	};
	size_t len = 0;
	uint8_t *data = smb2_mxac_rsp_push(mem_ctx, &m, &len);

	if (data == NULL) {
		return false;
	}
	*ctx = (struct smb2_create_ctx) {
		.name = (const uint8_t *)SMB2_CREATE_TAG_MXAC, .name_len = 4,
		.data = data, .data_len = (uint32_t)len,
	};
	return true;
}

/* QFid (2.2.14.2.9): DiskFileId the inode, VolumeId the device */
static bool create_qfid(TALLOC_CTX *mem_ctx, const struct vfs_fh *fh,
			const struct statx *st, struct smb2_create_ctx *ctx)
{
	const struct smb2_qfid_rsp q = {
		.disk_file_id = vfs_file_index(fh, st),
		.volume_id = ((uint64_t)st->stx_dev_major << 32) |
			     st->stx_dev_minor,
	};
	size_t len = 0;
	uint8_t *data = smb2_qfid_rsp_push(mem_ctx, &q, &len);

	if (data == NULL) {
		return false;
	}
	*ctx = (struct smb2_create_ctx) {
		.name = (const uint8_t *)SMB2_CREATE_TAG_QFID, .name_len = 4,
		.data = data, .data_len = (uint32_t)len,
	};
	return true;
}

/* DHnQ (2.2.14.2.3) or DH2Q (2.2.14.2.12) response */
static bool create_durable_ctx(TALLOC_CTX *mem_ctx,
			       const struct smbd_durable *dh,
			       struct smb2_create_ctx *ctx)
{
	size_t len = 0;
	uint8_t *data = smb2_durable_rsp_push(mem_ctx, dh->v2,
					      dh->timeout_ms, 0, &len);

	if (data == NULL) {
		return false;
	}
	*ctx = (struct smb2_create_ctx) {
		.name = (const uint8_t *)(dh->v2 ? SMB2_CREATE_TAG_DH2Q :
					  SMB2_CREATE_TAG_DHNQ),
		.name_len = 4, .data = data, .data_len = len,
	};
	return true;
}

/* RqLs response (2.2.14.2.10, 2.2.14.2.11): the lease as it is now */
static bool create_lease_ctx(TALLOC_CTX *mem_ctx, const struct smbd_lease *l,
			     struct smb2_create_ctx *ctx)
{
	struct smb2_lease out;
	size_t len = 0;
	uint8_t *data = NULL;

	smbd_lease_response(l, &out);
	data = smb2_lease_push(mem_ctx, &out, &len);
	if (data == NULL) {
		return false;
	}
	*ctx = (struct smb2_create_ctx) {
		.name = (const uint8_t *)SMB2_CREATE_TAG_RQLS, .name_len = 4,
		.data = data, .data_len = len,
	};
	return true;
}

/* ---- the response ---- */

static NTSTATUS create_response(TALLOC_CTX *mem_ctx,
				const struct create_args *a,
				const struct smbd_open *open,
				const struct smbd_create_result *res,
				struct smbd_response *rsp)
{
	struct smb2_create_ctx ctx[4];
	struct smb2_file_meta m;
	size_t n = 0;
	struct smb2_create_rsp out = {
		.create_action = res->action,
		.oplock_level = a->replay_oplock >= 0 ? a->replay_oplock :
			open->lease != NULL ? SMB2_OPLOCK_LEVEL_LEASE :
			open->oplock_level,
		.file_id = { open->persistent_id, open->volatile_id },
	};

	smbd_meta_from_fh(res->fh != NULL ? res->fh : open->fh, &res->st,
			  smbd_filename_base(a->path), &m);
	smbd_write_time_meta(open->server, &res->st, &m);
	out.creation_time = m.create_time;
	out.last_access_time = m.access_time;
	out.last_write_time = m.write_time;
	out.change_time = m.change_time;
	out.allocation_size = m.allocation_size;
	out.end_of_file = m.end_of_file;
	out.file_attributes = m.attributes;
	if (ctx_wanted(a, SMB2_CREATE_TAG_MXAC) &&
	    !create_mxac(mem_ctx, a, &ctx[n++])) {
		return NT_STATUS_NO_MEMORY;
	}
	if (ctx_wanted(a, SMB2_CREATE_TAG_QFID) &&
	    !create_qfid(mem_ctx, open->fh, &res->st, &ctx[n++])) {
		return NT_STATUS_NO_MEMORY;
	}
	if (a->durable_granted &&
	    !create_durable_ctx(mem_ctx, open->durable, &ctx[n++])) {
		return NT_STATUS_NO_MEMORY;
	}
	if (open->lease != NULL && a->replay_oplock < 0 &&
	    !create_lease_ctx(mem_ctx, open->lease, &ctx[n++])) {
		return NT_STATUS_NO_MEMORY;
	}
	out.contexts = ctx;
	out.num_contexts = n;
	rsp->body = smb2_create_rsp_push(mem_ctx, &out, &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static NTSTATUS create_new_open(struct smbd_request *req,
				struct create_args *a,
				struct smbd_create_result *res,
				struct smbd_open **out)
{
	struct smbd_open *open = smbd_open_new(req->tcon);
	NTSTATUS status;

	if (open == NULL) {
		return smbd_handles_full(req->tcon->session) ?
			NT_STATUS_TOO_MANY_OPENED_FILES : NT_STATUS_NO_MEMORY;
	}
	open->fh = talloc_steal(open, res->fh);
	res->fh = NULL;
	open->name = talloc_steal(open, a->path);
	open->is_dir = S_ISDIR(res->st.stx_mode);
	open->access_mask = a->access;
	open->share_access = a->r.share_access;
	open->create_options = a->r.create_options;
	open->oplock_level = res->oplock_level;
	open->delete_on_close =
		(a->r.create_options & SMB2_FILE_DELETE_ON_CLOSE) != 0;
	status = smbd_file_attach(open, &res->st);
	/* rmdir as CREATE + DELETE_ON_CLOSE: refused now, as Samba does */
	if (NT_STATUS_IS_OK(status) && open->is_dir &&
	    open->delete_on_close && res->action != SMB2_FILE_CREATED) {
		status = smbd_dir_check_empty(open);
	}
	if (NT_STATUS_IS_OK(status) && res->lease_granted) {
		status = smbd_lease_attach(open, &a->lease, res->lease_state);
	}
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(open);
		return status;
	}
	if (open->delete_on_close) {
		smbd_lease_contend_handle(open);   /* others lose H */
	}
	if (res->action != SMB2_FILE_OPENED) {
		/* a new or overwritten entry: its directory's leases */
		smbd_lease_contend_parent(open, open->name);
	}
	a->durable_granted = smbd_durable_grant(
		open, &a->dh, res->action,
		a->app_instance ? a->app_instance_id : NULL);
	smbd_csn_init(open, smb2_hdr_channel_sequence(&req->pdu->hdr));
	if (a->has_create_guid) {
		/* not replayable on ENOMEM: the open itself is fine */
		if (smbd_replay_remember(open, a->dh.create_guid,
					 req->conn->client_guid,
					 res->action)) {
			open->replay->alloc_blocks = res->st.stx_blocks;
		}
	}
	*out = open;
	return NT_STATUS_OK;
}

static NTSTATUS create_do_open(struct create_args *a,
			       struct smbd_request *req,
			       struct smbd_create_result *res)
{
	struct smbd_create_params p = {
		.path = a->path,
		.is_stream = a->is_stream,
		.stream = a->stream,
		.access = a->access,
		.share_access = a->r.share_access,
		.disposition = a->r.create_disposition,
		.options = a->r.create_options,
		.attributes = a->r.file_attributes,
		.read_only_share = req->tcon->read_only,
		.oplock_request = a->r.requested_oplock_level,
		.lease = a->has_lease ? &a->lease : NULL,
		.may_wait = req->may_go_async,
		.retry = a->retry,
	};
	struct smb2_secdesc secd;
	bool has_secd = false;
	NTSTATUS status = create_check_contexts(req->tcon, &a->r.contexts);

	p.requested = create_map_generic(
		a->r.desired_access & ~SMB2_MAXIMUM_ALLOWED, 0);
	p.maximum_allowed = (a->r.desired_access & SMB2_MAXIMUM_ALLOWED) != 0;
	p.max_access = a->max_access;
	if (NT_STATUS_IS_OK(status) && smbd_ntacl_share(req->tcon)) {
		status = smbd_secdesc_create_get(a, &a->r.contexts, &secd,
						 &has_secd);
		p.secd = has_secd ? &secd : NULL;
		/* after the EAs, below; a stream's file gets it there */
		p.ntacl_by_caller = a->stream == NULL;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_alsi(&a->r.contexts, &p.allocation_size);
	}
	if (NT_STATUS_IS_OK(status) && a->has_lease) {
		/* a named stream is a file of its own for leases */
		const char *name = a->stream == NULL ? a->path :
			talloc_asprintf(a, "%s:%s", a->path, a->stream);

		status = name == NULL ? NT_STATUS_NO_MEMORY :
			smbd_lease_check_name(req->conn->server, &a->lease,
					      req->tcon->vfs->root_path, name);
	}
	if (NT_STATUS_IS_OK(status) &&
	    req->tcon->num_opens >= SMBD_MAX_OPENS_PER_TCON) {
		status = NT_STATUS_TOO_MANY_OPENED_FILES;
	}
	if (NT_STATUS_IS_OK(status)) {
		/* before the open takes a descriptor (files/handles.c) */
		status = smbd_handles_check(req->tcon->session);
	}
	if (NT_STATUS_IS_OK(status) && a->app_instance) {
		smbd_durable_app_instance(req->tcon, a->path,
					  a->app_instance_id);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_create_open(a, req->tcon, &p, res);
	}
	if (NT_STATUS_IS_OK(status) && res->access_set) {
		a->access = res->access;
	}
	if (NT_STATUS_IS_OK(status) && res->ntacl_checked) {
		a->max_access &= res->granted;
	}
	if (NT_STATUS_IS_OK(status) && res->path != NULL) {
		a->path = talloc_strdup(a, res->path);  /* the on-disk name */
		status = a->path ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_ea_create_apply(req->tcon, res->fh, res->action,
					      &a->r.contexts);
	}
	if (NT_STATUS_IS_OK(status) && p.ntacl_by_caller &&
	    res->action == SMB2_FILE_CREATED) {
		uint64_t blocks = res->st.stx_blocks;

		status = smbd_ntacl_create_apply(a, req->tcon, a->path, res->fh,
						 p.secd);
		if (NT_STATUS_IS_OK(status)) {
			status = vfs_fstat(res->fh, &res->st);
		}
		/*
		 * The response's AllocationSize is the file's before its
		 * descriptor was stored, as Samba answers: on ext4 the
		 * security.NTACL value can take a block of its own, which
		 * i_blocks counts (smb2.create.blob, durable-open)
		 */
		res->st.stx_blocks = blocks;
	} else if (NT_STATUS_IS_OK(status) && !smbd_ntacl_share(req->tcon)) {
		status = smbd_secdesc_create_apply(res->fh, res->action,
						   &a->r.contexts);
	}
	return status;
}

/*
 * DHnC/DH2C: the disconnected open comes back as it was (its oplock,
 * locks, position); the response carries no durable context, as on
 * Windows and Samba.
 */
static NTSTATUS create_reconnect(TALLOC_CTX *mem_ctx,
				 struct smbd_request *req,
				 struct create_args *a,
				 struct smbd_response *rsp,
				 struct smbd_open **out)
{
	struct smbd_create_result res = { .action = SMB2_FILE_OPENED };
	struct smbd_open *open = NULL;
	char *path = NULL;
	bool is_stream = false;
	NTSTATUS status;

	/* with a lease the name must be the open's (durable.c) */
	if (a->has_lease &&
	    !NT_STATUS_IS_OK(smbd_filename_convert(a, &a->r.name, &path,
						   &is_stream))) {
		path = NULL;
	}
	status = smbd_durable_reconnect(req->tcon, &a->dh,
					a->has_lease ? &a->lease : NULL,
					path, &open);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*out = open;
	/*
	 * A new session, none of the open's requests in flight: its channel
	 * sequence starts afresh at the reconnect's (a client that restarts
	 * at 0 must not find every WRITE stale).
	 */
	smbd_csn_init(open, smb2_hdr_channel_sequence(&req->pdu->hdr));
	a->path = open->name;
	a->max_access = req->tcon->read_only ? SMBD_MAX_ACCESS_READ_ONLY :
		SMBD_FILE_ALL_ACCESS;
	status = vfs_fstat(open->fh, &res.st);
	if (NT_STATUS_IS_OK(status)) {
		status = create_response(mem_ctx, a, open, &res, rsp);
	}
	return status;
}

/*
 * A replayed CREATE with DH2Q (MS-SMB2 3.3.5.9.10): the open it made is
 * answered again, unchanged; the OplockLevel (and with it the durable
 * context) is the one the replay asks for when that is lower, as
 * Windows does (smbtorture smb2.replay.replay-dhv2-oplock2).  The same
 * CreateGuid without the replay flag is a client's mistake:
 * DUPLICATE_OBJECTID (smb2.replay.replay6).  One whose CREATE is still
 * waiting for an oplock break: FILE_NOT_AVAILABLE, try again later
 * (dhv2-pending*).  true: answered (status in *status).
 */
/* The replayed open's answer, as it was given (create_replay). */
static bool create_replay_answer(TALLOC_CTX *mem_ctx, struct create_args *a,
				 struct smbd_open *open,
				 struct smbd_response *rsp,
				 struct smbd_open **out, NTSTATUS *status)
{
	struct smbd_create_result res = {
		.action = open->replay->create_action,
	};

	*status = vfs_fstat(open->fh, &res.st);
	if (NT_STATUS_IS_OK(*status)) {
		res.st.stx_blocks = open->replay->alloc_blocks;
		*status = create_response(mem_ctx, a, open, &res, rsp);
	}
	*out = NT_STATUS_IS_OK(*status) ? open : NULL;
	return true;
}

static bool create_replay(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			  struct create_args *a,
			  const struct smbd_replay_pending *self,
			  struct smbd_response *rsp, struct smbd_open **out,
			  NTSTATUS *status)
{
	struct smbd_open *open = NULL;
	uint8_t level;

	a->has_create_guid = a->dh.v2_request &&
			     smbd_replay_guid_valid(a->dh.create_guid);
	if (!a->has_create_guid) {
		return false;
	}
	if (smbd_replay_pending_find(req->session, a->dh.create_guid,
				     self) != NULL) {
		*status = NT_STATUS_FILE_NOT_AVAILABLE;
		return true;
	}
	open = smbd_replay_find(req->session, a->dh.create_guid);
	if (open == NULL || open->tcon != req->tcon) {
		return false;
	}
	if (!(req->pdu->hdr.flags & SMB2_FLAGS_REPLAY_OPERATION)) {
		*status = NT_STATUS_DUPLICATE_OBJECTID;
		return true;
	}
	if (open->lease != NULL || a->has_lease) {
		/*
		 * A lease is replayed with its own key, and answered with
		 * its state now; another key, or a lease for an oplock or
		 * the other way round, is refused (smb2.replay, Windows)
		 */
		if (open->lease == NULL || !a->has_lease ||
		    !smbd_lease_is(open->lease, &a->lease)) {
			*status = NT_STATUS_ACCESS_DENIED;
			return true;
		}
		a->durable_granted = open->durable != NULL;
		return create_replay_answer(mem_ctx, a, open, rsp, out,
					    status);
	}
	level = a->r.requested_oplock_level;
	if (level == SMB2_OPLOCK_LEVEL_LEASE || level > open->oplock_level) {
		level = open->oplock_level;
	}
	a->replay_oplock = level;
	a->durable_granted = level == SMB2_OPLOCK_LEVEL_BATCH &&
			     open->durable != NULL;
	return create_replay_answer(mem_ctx, a, open, rsp, out, status);
}

/*
 * What a CREATE waiting for an oplock break is known by: its CreateGuid
 * (a replay of it answers FILE_NOT_AVAILABLE meanwhile).
 */
struct create_pending {
	struct smbd_replay_pending *record;     /* NULL: none */
	bool has_create_guid;
	uint8_t create_guid[16];
};

/* NT_STATUS_PENDING: wait for an oplock break of the file *wait_st */
static NTSTATUS create_run(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			   struct smbd_response *rsp, struct statx *wait_st,
			   struct create_pending *pend, bool retry)
{
	struct create_args *a = talloc_zero(mem_ctx, struct create_args);
	struct smbd_create_result res = {};
	struct smbd_open *open = NULL;
	NTSTATUS status;

	if (a == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	a->replay_oplock = -1;
	a->retry = retry;
	status = create_parse(a, req, a);
	if (NT_STATUS_IS_OK(status) &&
	    create_replay(mem_ctx, req, a, pend->record, rsp, &open,
			  &status)) {
		req->created = open;
		talloc_free(a);
		return status;
	}
	if (NT_STATUS_IS_OK(status) && create_is_reconnect(a)) {
		status = create_reconnect(mem_ctx, req, a, rsp, &open);
		req->created = NT_STATUS_IS_OK(status) ? open : NULL;
		talloc_free(a);
		return status;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_do_open(a, req, &res);
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_PENDING)) {
		*wait_st = res.st;
		pend->has_create_guid = a->has_create_guid;
		memcpy(pend->create_guid, a->dh.create_guid,
		       sizeof(pend->create_guid));
		talloc_free(a);
		return status;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_new_open(req, a, &res, &open);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = create_response(mem_ctx, a, open, &res, rsp);
		if (!NT_STATUS_IS_OK(status)) {
			TALLOC_FREE(open);
		}
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: CREATE %s (disposition %u, options 0x%x, "
			 "access 0x%x, attributes 0x%x) failed: %s\n",
			 req->conn->peer, a->path ? a->path : "?",
			 a->r.create_disposition, a->r.create_options,
			 a->r.desired_access, a->r.file_attributes,
			 nt_errstr(status));
	}
	req->created = open;
	talloc_free(a);
	return status;
}

/*
 * ---- waiting for an oplock break (oplock.h) ----
 *
 * The CREATE goes async, and each time the file changes (an
 * acknowledgment, a timeout, a close) it runs again from the start, in
 * an immediate of its own, never inside the request or teardown that
 * woke it.  Its tree connect may go away meanwhile (TREE_DISCONNECT,
 * LOGOFF, a dropped connection): a watch hanging off the tcon says so.
 */
struct smb2_create_state {
	struct tevent_context *ev;
	struct tevent_req *result;
	struct smbd_request *req;
	struct smbd_tcon *tcon;         /* NULL once it went away */
	struct create_watch *watch;
	struct smbd_oplock_waiter *waiter;
	struct tevent_immediate *im;
	struct statx st;                /* the file a break is awaited on */
	struct create_pending pending;
	struct smbd_response rsp;
};

struct create_watch {
	struct smb2_create_state *state;
};

static void create_woken(void *private_data);
static void create_retry(struct tevent_context *ev,
			 struct tevent_immediate *im, void *private_data);
static bool create_cancel(struct tevent_req *result);

static void create_finish(struct tevent_req *result, NTSTATUS status)
{
	if (tevent_req_nterror(result, status)) {
		return;
	}
	tevent_req_done(result);
}

static int create_watch_destructor(struct create_watch *w)
{
	struct smb2_create_state *state = w->state;

	if (state != NULL) {
		state->tcon = NULL;
		state->watch = NULL;
		TALLOC_FREE(state->waiter);
		if (state->im != NULL) {
			tevent_schedule_immediate(state->im, state->ev,
						  create_retry, state->result);
		}
	}
	return 0;
}

static void create_cleanup(struct tevent_req *result,
			   enum tevent_req_state req_state)
{
	struct smb2_create_state *state = tevent_req_data(
		result, struct smb2_create_state);

	/*
	 * Freed while waiting (its connection went) with the session going
	 * on elsewhere: a replay on another channel must still be told to
	 * wait (replay.h, smbd_replay_pending_orphan).
	 */
	if (req_state == TEVENT_REQ_RECEIVED && state->waiter != NULL &&
	    state->tcon != NULL && state->pending.record != NULL) {
		smbd_replay_pending_orphan(state->pending.record, state->tcon,
					   &state->st);
		state->pending.record = NULL;
	}
	TALLOC_FREE(state->waiter);
	TALLOC_FREE(state->im);
	TALLOC_FREE(state->pending.record);
	if (state->watch != NULL) {
		state->watch->state = NULL;
		TALLOC_FREE(state->watch);
	}
}

/* Wait on the file; false: out of memory. */
static bool create_wait(struct tevent_req *result)
{
	struct smb2_create_state *state = tevent_req_data(
		result, struct smb2_create_state);
	struct smbd_tcon *tcon = state->req->tcon;

	if (state->im == NULL) {
		state->im = tevent_create_immediate(state);
	}
	if (state->watch == NULL) {
		state->watch = talloc_zero(tcon, struct create_watch);
		if (state->watch != NULL) {
			state->watch->state = state;
			talloc_set_destructor(state->watch,
					      create_watch_destructor);
		}
	}
	state->tcon = tcon;
	if (state->pending.has_create_guid && state->pending.record == NULL) {
		/* NULL on ENOMEM: a replay then runs as a new CREATE */
		state->pending.record = smbd_replay_pending_add(
			state, tcon->session, state->pending.create_guid);
	}
	state->waiter = smbd_oplock_wait(state, tcon->session->conn->server,
					 &state->st, create_woken, result);
	if (state->im == NULL || state->watch == NULL ||
	    state->waiter == NULL) {
		return false;
	}
	tevent_req_set_cancel_fn(result, create_cancel);
	return true;
}

struct tevent_req *smbd_create_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct smbd_request *req)
{
	struct smb2_create_state *state = NULL;
	struct tevent_req *result = NULL;
	NTSTATUS status;

	if (req->tcon->ipc) {
		return smbd_pipe_create_send(mem_ctx, ev, req);
	}
	result = tevent_req_create(mem_ctx, &state, struct smb2_create_state);
	if (result == NULL) {
		return NULL;
	}
	state->ev = ev;
	state->result = result;
	state->req = req;
	state->rsp.status = NT_STATUS_OK;
	tevent_req_set_cleanup_fn(result, create_cleanup);
	status = create_run(state, req, &state->rsp, &state->st,
			    &state->pending, false);
	if (NT_STATUS_EQUAL(status, NT_STATUS_PENDING)) {
		if (create_wait(result)) {
			req->go_async = true;
			return result;
		}
		status = NT_STATUS_NO_MEMORY;
	}
	create_finish(result, status);
	return tevent_req_post(result, ev);
}

/* From oplock.c, inside another request or an open's teardown. */
static void create_woken(void *private_data)
{
	struct tevent_req *result = talloc_get_type_abort(
		private_data, struct tevent_req);
	struct smb2_create_state *state = tevent_req_data(
		result, struct smb2_create_state);

	TALLOC_FREE(state->waiter);
	tevent_schedule_immediate(state->im, state->ev, create_retry, result);
}

static void create_retry(struct tevent_context *ev,
			 struct tevent_immediate *im, void *private_data)
{
	struct tevent_req *result = talloc_get_type_abort(
		private_data, struct tevent_req);
	struct smb2_create_state *state = tevent_req_data(
		result, struct smb2_create_state);
	NTSTATUS status = NT_STATUS_NETWORK_NAME_DELETED;

	if (state->tcon != NULL) {
		state->req->tcon = state->tcon;
		status = create_run(state, state->req, &state->rsp,
				    &state->st, &state->pending, true);
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_PENDING)) {
		if (create_wait(result)) {
			return;
		}
		status = NT_STATUS_NO_MEMORY;
	}
	tevent_req_set_cancel_fn(result, NULL);
	create_finish(result, status);
}

static bool create_cancel(struct tevent_req *result)
{
	struct smb2_create_state *state = tevent_req_data(
		result, struct smb2_create_state);

	TALLOC_FREE(state->waiter);
	TALLOC_FREE(state->im);
	tevent_req_set_cancel_fn(result, NULL);
	tevent_req_defer_callback(result, state->ev);
	tevent_req_nterror(result, NT_STATUS_CANCELLED);
	return true;
}

NTSTATUS smbd_create_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			  struct smbd_response *rsp)
{
	struct smb2_create_state *state = NULL;

	if (smbd_done_req(subreq)) {
		return smbd_done_recv(subreq, mem_ctx, rsp);   /* a pipe */
	}
	state = tevent_req_data(subreq, struct smb2_create_state);
	return smbd_response_recv(subreq, mem_ctx, &state->rsp, rsp);
}
