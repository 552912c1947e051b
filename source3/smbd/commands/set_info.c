/*
 * SET_INFO (MS-SMB2 3.3.5.21) for file information classes, with the
 * object-store rules of MS-FSA 2.1.5.14.  Everything is synchronous VFS
 * work; the result is posted, never returned inside _send.  A rename
 * that breaks other leases' handle caching waits for their
 * acknowledgments first (async, as a CREATE waits for a break).
 *
 * File system and quota information: NOT_SUPPORTED (nothing is accepted
 * and ignored).  EAs: ea.c.  Security descriptors: secdesc.c.  Renames
 * and hard links: commands/set_info_name.c.
 */
#include <fcntl.h>
#include <string.h>
#include "lib/util/debug.h"
#include "lib/util/nttime.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/write_time.h"
#include "source3/smbd/files/ea.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/secdesc.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/commands/set_info.h"
#include "source3/smbd/files/dosmode.h"
#include "source3/smbd/files/filename.h"

/* Settable classes MS-FSCC documents that ringsmb does not implement */
static bool si_known_file_class(uint8_t c)
{
	switch (c) {
	case SMB2_FILE_PIPE_INFORMATION:
	case SMB2_FILE_MAILSLOT_SET_INFORMATION:
	case SMB2_FILE_OBJECT_ID_INFORMATION:
	case SMB2_FILE_QUOTA_INFORMATION:
	case SMB2_FILE_TRACKING_INFORMATION:
	case SMB2_FILE_VALID_DATA_LENGTH_INFORMATION:
	case SMB2_FILE_SHORT_NAME_INFORMATION:
	case SMB2_FILE_IO_PRIORITY_HINT_INFORMATION:
	case SMB2_FILE_SFIO_RESERVE_INFORMATION:
	case SMB2_FILE_RENAME_INFORMATION_EX:
	case SMB2_FILE_CASE_SENSITIVE_INFORMATION:
	case SMB2_FILE_LINK_INFORMATION_EX:
		return true;
	}
	return false;
}

static bool si_known_fs_class(uint8_t c)
{
	return c == SMB2_FS_LABEL_INFORMATION ||
	       c == SMB2_FS_CONTROL_INFORMATION ||
	       c == SMB2_FS_OBJECT_ID_INFORMATION;
}

NTSTATUS si_need(const struct si_ctx *s, uint32_t access)
{
	return (s->open->access_mask & access) == access ?
		NT_STATUS_OK : NT_STATUS_ACCESS_DENIED;
}

/* ---- FileBasicInformation (MS-FSA 2.1.5.14.2) ---- */

static bool si_time_given(uint64_t t)
{
	return t != SMB2_SETINFO_TIME_KEEP && t != SMB2_SETINFO_TIME_STOP &&
	       t != SMB2_SETINFO_TIME_RESUME;
}

/* Negative times other than -1 and -2 are invalid. */
static bool si_time_ok(uint64_t t)
{
	return t <= INT64_MAX || !si_time_given(t);
}

static struct timespec si_timespec(uint64_t t)
{
	struct timespec omit = { .tv_nsec = UTIME_OMIT };

	return si_time_given(t) ? nttime_to_timespec(t) : omit;
}

static NTSTATUS si_basic_check(const struct si_ctx *s)
{
	const struct smb2_setinfo *in = s->in;
	uint32_t a = in->basic.attributes;

	if (!si_time_ok(in->basic.create_time) ||
	    !si_time_ok(in->basic.access_time) ||
	    !si_time_ok(in->basic.write_time) ||
	    !si_time_ok(in->basic.change_time)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((a & SMB2_FILE_ATTRIBUTE_DIRECTORY) && !s->open->is_dir) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((a & SMB2_FILE_ATTRIBUTE_TEMPORARY) && s->open->is_dir) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/* Attributes and creation time go to the xattr, if they change. */
static NTSTATUS si_basic_dosmode(struct si_ctx *s)
{
	const struct smb2_setinfo *in = s->in;
	struct smbd_dosmode dm = {};
	struct smbd_dosmode old = {};
	NTSTATUS status = smbd_dosmode_current(
		s->open->fh, smbd_filename_base(s->open->name), &dm);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	old = dm;
	if (in->basic.attributes != 0) {
		/* SPARSE_FILE is kept: only FSCTL_SET_SPARSE changes it */
		dm.attrs = (in->basic.attributes & SMBD_DOSMODE_STORED &
			    ~SMB2_FILE_ATTRIBUTE_SPARSE_FILE) |
			   (old.attrs & SMB2_FILE_ATTRIBUTE_SPARSE_FILE);
	}
	if (si_time_given(in->basic.create_time)) {
		dm.create_time = in->basic.create_time;
	}
	if (dm.attrs == old.attrs && dm.create_time == old.create_time) {
		return NT_STATUS_OK;
	}
	return smbd_dosmode_store(s->open->fh, &dm);
}

/*
 * Times of 0 leave the time alone.  -1 ("stop updating it for this
 * handle") and -2 ("resume") are accepted and also leave it alone: the
 * file system updates times itself (docs/protocol.md).  ChangeTime cannot
 * be set on Linux and is ignored, as Samba does.
 */
static NTSTATUS si_basic(struct si_ctx *s)
{
	struct timespec ts[2];
	NTSTATUS status = si_need(s, SMB2_FILE_WRITE_ATTRIBUTES);

	if (NT_STATUS_IS_OK(status)) {
		status = si_basic_check(s);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/*
	 * Converted once checked: a time past INT64_MAX overflowed the
	 * conversion's signed arithmetic (found by fuzz_server).
	 */
	ts[0] = si_timespec(s->in->basic.access_time);
	ts[1] = si_timespec(s->in->basic.write_time);
	/* any basic information, even all zero, settles a pending
	 * write-time update (Windows 2016, smb2.timestamps) */
	smbd_write_time_flush(s->open);
	if (ts[0].tv_nsec != UTIME_OMIT || ts[1].tv_nsec != UTIME_OMIT) {
		status = vfs_fntimes_writer(s->open->fh, ts);
	}
	if (NT_STATUS_IS_OK(status) && ts[1].tv_nsec != UTIME_OMIT) {
		smbd_write_time_user_set(s->open, s->in->basic.write_time);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = si_basic_dosmode(s);
	}
	return status;
}

/* ---- sizes (MS-FSA 2.1.5.14.4, 2.1.5.14.1) ---- */

static NTSTATUS si_size_check(const struct si_ctx *s)
{
	NTSTATUS status = si_need(s, SMB2_FILE_WRITE_DATA);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (s->open->is_dir || s->in->value > INT64_MAX) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* a size change breaks level II oplocks (MS-FSA 2.1.5.14.4) */
	smbd_oplock_contend_level2(s->open);
	return NT_STATUS_OK;
}

static NTSTATUS si_eof(struct si_ctx *s)
{
	NTSTATUS status = si_size_check(s);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = vfs_ftruncate(s->open->fh, s->in->value);
	if (NT_STATUS_IS_OK(status)) {
		smbd_write_time_flush(s->open);  /* a pending update: now */
	}
	return status;
}

/*
 * Below the end of file, AllocationSize truncates (Windows semantics);
 * above what is allocated, blocks are reserved without changing the
 * size.  A file system without fallocate simply does not reserve:
 * the allocation size is a hint.
 */
static NTSTATUS si_allocation(struct si_ctx *s)
{
	uint64_t want = s->in->value;
	struct statx st;
	NTSTATUS status = si_size_check(s);

	if (NT_STATUS_IS_OK(status)) {
		status = vfs_fstat(s->open->fh, &st);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (want < st.stx_size) {
		return vfs_ftruncate(s->open->fh, want);
	}
	if (want <= st.stx_blocks * 512) {
		return NT_STATUS_OK;
	}
	status = vfs_fallocate(s->open->fh, FALLOC_FL_KEEP_SIZE, 0, want);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED)) {
		status = NT_STATUS_OK;
	}
	return status;
}

/* ---- FileDispositionInformation(Ex) (MS-FSA 2.1.5.14.3) ---- */

static NTSTATUS si_delete(struct si_ctx *s, bool on, bool ignore_readonly)
{
	struct smbd_dosmode dm = {};
	NTSTATUS status = si_need(s, SMB2_DELETE);

	if (NT_STATUS_IS_OK(status) && on && !ignore_readonly) {
		status = smbd_dosmode_current(
			s->open->fh, smbd_filename_base(s->open->name), &dm);
		if (NT_STATUS_IS_OK(status) &&
		    (dm.attrs & SMB2_FILE_ATTRIBUTE_READONLY)) {
			status = NT_STATUS_CANNOT_DELETE;
		}
	}
	/*
	 * Other leases' H first, as for a rename: the delete waits for
	 * the acks (si_wait), so their holders may close first
	 */
	if (NT_STATUS_IS_OK(status) && on &&
	    smbd_lease_contend_rename(s->open) && s->req->may_go_async) {
		return NT_STATUS_PENDING;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_file_set_delete_pending(s->open, on);
	}
	return status;
}

#define SI_DISPOSITION_KNOWN (SMB2_FILE_DISPOSITION_DELETE | \
			      SMB2_FILE_DISPOSITION_POSIX_SEMANTICS | \
			      SMB2_FILE_DISPOSITION_FORCE_IMAGE_SECTION_CHECK | \
			      SMB2_FILE_DISPOSITION_ON_CLOSE | \
			      SMB2_FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE)
#define SI_DISPOSITION_DONE (SMB2_FILE_DISPOSITION_DELETE | \
			     SMB2_FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE)

/*
 * POSIX semantics (the name goes at once), the image-section check and
 * ON_CLOSE are refused rather than half done.
 */
static NTSTATUS si_disposition(struct si_ctx *s)
{
	uint32_t f = s->in->flags;

	if (f & ~SI_DISPOSITION_KNOWN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (f & ~SI_DISPOSITION_DONE) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	return si_delete(s, (f & SMB2_FILE_DISPOSITION_DELETE) != 0,
			 (f & SMB2_FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE)
			 != 0);
}

/* ---- per-open state (MS-FSA 2.1.5.14.9, 2.1.5.14.8) ---- */

#define SI_SECTOR 512

static NTSTATUS si_position(struct si_ctx *s)
{
	uint64_t pos = s->in->value;

	if (pos > INT64_MAX ||
	    ((s->open->create_options &
	      SMB2_FILE_NO_INTERMEDIATE_BUFFERING) && pos % SI_SECTOR != 0)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	s->open->position = pos;
	return NT_STATUS_OK;
}

#define SI_MODE_SYNC (SMB2_FILE_SYNCHRONOUS_IO_ALERT | \
		      SMB2_FILE_SYNCHRONOUS_IO_NONALERT)
#define SI_MODE_SETTABLE (SMB2_FILE_WRITE_THROUGH | \
			  SMB2_FILE_SEQUENTIAL_ONLY)

/* Only WRITE_THROUGH and SEQUENTIAL_ONLY change; the sync bits cannot. */
static NTSTATUS si_mode(struct si_ctx *s)
{
	uint32_t mode = s->in->flags;
	uint32_t *opts = &s->open->create_options;

	if ((mode & ~(SI_MODE_SETTABLE | SI_MODE_SYNC)) != 0 ||
	    (mode & SI_MODE_SYNC) == SI_MODE_SYNC ||
	    (mode & SI_MODE_SYNC) != (*opts & SI_MODE_SYNC)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*opts = (*opts & ~SI_MODE_SETTABLE) | (mode & SI_MODE_SETTABLE);
	return NT_STATUS_OK;
}

/* ---- dispatch ---- */

/* Attributes, times or size set: the directory's leases (lease.h). */
static NTSTATUS si_entry_changed(struct si_ctx *s, NTSTATUS status)
{
	if (NT_STATUS_IS_OK(status)) {
		smbd_lease_contend_parent(s->open, s->open->name);
	}
	return status;
}

static NTSTATUS si_file_class(struct si_ctx *s)
{
	switch (s->in->info_class) {
	case SMB2_FILE_BASIC_INFORMATION:
		return si_entry_changed(s, si_basic(s));
	case SMB2_FILE_END_OF_FILE_INFORMATION:
		return si_entry_changed(s, si_eof(s));
	case SMB2_FILE_ALLOCATION_INFORMATION:
		return si_entry_changed(s, si_allocation(s));
	case SMB2_FILE_DISPOSITION_INFORMATION:
	case SMB2_FILE_DISPOSITION_INFORMATION_EX:
		return si_disposition(s);
	case SMB2_FILE_POSITION_INFORMATION:
		return si_position(s);
	case SMB2_FILE_MODE_INFORMATION:
		return si_mode(s);
	case SMB2_FILE_RENAME_INFORMATION:
		return si_rename(s);
	case SMB2_FILE_LINK_INFORMATION:
		return si_link(s);
	}
	return NT_STATUS_INVALID_INFO_CLASS;
}

/* FileFullEaInformation: ea.c (MS-SMB2 3.3.5.21.1) */
static NTSTATUS si_file(TALLOC_CTX *tmp, struct smbd_request *req,
			const struct smb2_set_info_req *r)
{
	struct smb2_setinfo in;
	struct si_ctx s = { .tmp = tmp, .req = req, .open = req->open,
			    .in = &in };
	NTSTATUS status;

	if (r->file_info_class == SMB2_FILE_FULL_EA_INFORMATION) {
		return smbd_ea_set_info(tmp, req->open, r->buffer.data,
					r->buffer.len);
	}
	status = smb2_setinfo_pull(r->file_info_class, r->buffer.data,
				   r->buffer.len, &in);
	if (NT_STATUS_EQUAL(status, NT_STATUS_INVALID_INFO_CLASS) &&
	    si_known_file_class(r->file_info_class)) {
		status = NT_STATUS_NOT_SUPPORTED;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return si_file_class(&s);
}

static NTSTATUS si_dispatch(TALLOC_CTX *tmp, struct smbd_request *req,
			    const struct smb2_set_info_req *r)
{
	switch (r->info_type) {
	case SMB2_INFO_FILE:
		return si_file(tmp, req, r);
	case SMB2_INFO_FILESYSTEM:
		return si_known_fs_class(r->file_info_class) ?
			NT_STATUS_NOT_SUPPORTED : NT_STATUS_INVALID_INFO_CLASS;
	case SMB2_INFO_SECURITY:
		return smbd_secdesc_set(tmp, req->open,
					r->additional_information,
					r->buffer.data, r->buffer.len);
	case SMB2_INFO_QUOTA:
		return NT_STATUS_NOT_SUPPORTED;
	}
	return NT_STATUS_INVALID_PARAMETER;
}

static NTSTATUS si_run(TALLOC_CTX *mem_ctx, struct smbd_request *req,
		       struct smbd_response *rsp)
{
	struct smb2_set_info_req r;
	TALLOC_CTX *tmp = NULL;
	NTSTATUS status = smb2_set_info_req_pull(req->pdu, &r);

	if (NT_STATUS_IS_OK(status) &&
	    r.buffer.len > req->conn->max_transact) {
		status = NT_STATUS_INVALID_PARAMETER;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	tmp = talloc_new(mem_ctx);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = si_dispatch(tmp, req, &r);
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	rsp->body = smb2_set_info_rsp_push(mem_ctx, &rsp->body_len);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/*
 * ---- a rename waiting for lease breaks (files/lease.c) ----
 *
 * Runs again from the start in an immediate each time the file's
 * leases change; a watch hanging off the open says when it is closed
 * meanwhile (its tcon, session and connection take it along).
 */
struct si_state {
	struct tevent_context *ev;
	struct tevent_req *result;
	struct smbd_request *req;
	struct smbd_open *open;         /* NULL once it went away */
	struct si_watch *watch;
	struct smbd_oplock_waiter *waiter;
	struct tevent_immediate *im;
	struct smbd_response rsp;
};

struct si_watch {
	struct si_state *state;
};

static void si_woken(void *private_data);
static void si_retry(struct tevent_context *ev, struct tevent_immediate *im,
		     void *private_data);
static bool si_cancel(struct tevent_req *result);

static int si_watch_destructor(struct si_watch *w)
{
	struct si_state *state = w->state;

	if (state != NULL) {
		state->open = NULL;
		state->watch = NULL;
		TALLOC_FREE(state->waiter);
		tevent_schedule_immediate(state->im, state->ev, si_retry,
					  state->result);
	}
	return 0;
}

static void si_cleanup(struct tevent_req *result,
		       enum tevent_req_state req_state)
{
	struct si_state *state = tevent_req_data(result, struct si_state);

	TALLOC_FREE(state->waiter);
	TALLOC_FREE(state->im);
	if (state->watch != NULL) {
		state->watch->state = NULL;
		TALLOC_FREE(state->watch);
	}
}

static bool si_wait(struct tevent_req *result)
{
	struct si_state *state = tevent_req_data(result, struct si_state);

	if (state->im == NULL) {
		state->im = tevent_create_immediate(state);
	}
	if (state->watch == NULL && state->im != NULL) {
		state->watch = talloc_zero(state->req->open, struct si_watch);
		if (state->watch != NULL) {
			state->watch->state = state;
			talloc_set_destructor(state->watch,
					      si_watch_destructor);
		}
	}
	state->open = state->req->open;
	state->waiter = smbd_oplock_wait_open(state, state->open, si_woken,
					      result);
	if (state->im == NULL || state->watch == NULL ||
	    state->waiter == NULL) {
		return false;
	}
	tevent_req_set_cancel_fn(result, si_cancel);
	return true;
}

static void si_finish(struct tevent_req *result, NTSTATUS status)
{
	struct si_state *state = tevent_req_data(result, struct si_state);

	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: SET_INFO: %s\n", state->req->conn->peer,
			 nt_errstr(status));
	}
	if (tevent_req_nterror(result, status)) {
		return;
	}
	tevent_req_done(result);
}

struct tevent_req *smbd_set_info_send(TALLOC_CTX *mem_ctx,
				      struct tevent_context *ev,
				      struct smbd_request *req)
{
	struct si_state *state = NULL;
	struct tevent_req *result = tevent_req_create(mem_ctx, &state,
						      struct si_state);
	NTSTATUS status;

	if (result == NULL) {
		return NULL;
	}
	state->ev = ev;
	state->result = result;
	state->req = req;
	state->rsp.status = NT_STATUS_OK;
	tevent_req_set_cleanup_fn(result, si_cleanup);
	status = si_run(state, req, &state->rsp);
	if (NT_STATUS_EQUAL(status, NT_STATUS_PENDING)) {
		if (si_wait(result)) {
			req->go_async = true;
			return result;
		}
		status = NT_STATUS_NO_MEMORY;
	}
	si_finish(result, status);
	return tevent_req_post(result, ev);
}

/* From lease.c or an open's teardown: only schedule the retry. */
static void si_woken(void *private_data)
{
	struct tevent_req *result = talloc_get_type_abort(
		private_data, struct tevent_req);
	struct si_state *state = tevent_req_data(result, struct si_state);

	TALLOC_FREE(state->waiter);
	tevent_schedule_immediate(state->im, state->ev, si_retry, result);
}

static void si_retry(struct tevent_context *ev, struct tevent_immediate *im,
		     void *private_data)
{
	struct tevent_req *result = talloc_get_type_abort(
		private_data, struct tevent_req);
	struct si_state *state = tevent_req_data(result, struct si_state);
	struct smbd_request *req = state->req;
	NTSTATUS status = NT_STATUS_FILE_CLOSED;

	if (state->open != NULL && state->open->tcon != NULL) {
		req->open = state->open;
		req->tcon = state->open->tcon;
		req->session = req->tcon->session;
		status = si_run(state, req, &state->rsp);
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_PENDING)) {
		if (si_wait(result)) {
			return;
		}
		status = NT_STATUS_NO_MEMORY;
	}
	tevent_req_set_cancel_fn(result, NULL);
	si_finish(result, status);
}

static bool si_cancel(struct tevent_req *result)
{
	struct si_state *state = tevent_req_data(result, struct si_state);

	TALLOC_FREE(state->waiter);
	TALLOC_FREE(state->im);
	tevent_req_set_cancel_fn(result, NULL);
	tevent_req_defer_callback(result, state->ev);
	tevent_req_nterror(result, NT_STATUS_CANCELLED);
	return true;
}

NTSTATUS smbd_set_info_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			    struct smbd_response *rsp)
{
	struct si_state *state = tevent_req_data(subreq, struct si_state);

	return smbd_response_recv(subreq, mem_ctx, &state->rsp, rsp);
}
