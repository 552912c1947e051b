/*
 * Server-side copy (MS-SMB2 3.3.5.15.5, 3.3.5.15.6): a resume key names
 * an open, COPYCHUNK copies ranges of it into the IOCTL's open without
 * the data passing through the client, and through the kernel alone
 * where copy_file_range(2) can (vfs_copy_range).
 *
 * The resume key is the open's persistent and volatile ids followed by
 * 8 zero bytes, as Samba makes it; the source is looked up among the
 * opens of the requesting session, on any of its tree connects, so a
 * key is useless to another session.
 */
#include <string.h>
#include "lib/util/debug.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/brlock.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/commands/ioctl.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

/* The server's limits (ServerSideCopyMax*, as Windows and Samba) */
#define COPYCHUNK_MAX_CHUNKS		256
#define COPYCHUNK_MAX_CHUNK_LEN		(1024 * 1024)
#define COPYCHUNK_MAX_TOTAL_LEN		(16 * 1024 * 1024)

NTSTATUS smbd_fsctl_resume_key(struct smbd_ioctl *io)
{
	uint8_t key[SMB2_RESUME_KEY_LEN] = {};
	uint8_t *out = NULL;

	if (io->open == NULL) {
		return NT_STATUS_FILE_CLOSED;
	}
	/* 3.3.5.15.5 (Samba 4.17 answers BUFFER_TOO_SMALL) */
	if (io->max_out < SMB2_RESUME_KEY_RSP_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	smb2_resume_key_push(io->open->persistent_id, io->open->volatile_id,
			     key);
	out = smbd_ioctl_output(io, SMB2_RESUME_KEY_RSP_SIZE);
	if (out == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	smb2_resume_key_rsp_push(key, out, io->out_len);
	return NT_STATUS_OK;
}

static struct smbd_open *resume_key_lookup(struct smbd_session *session,
					   const uint8_t *key)
{
	uint64_t persistent = 0;
	uint64_t volatile_id = 0;
	struct smbd_tcon *t = NULL;
	struct smbd_open *o = NULL;

	smb2_resume_key_pull(key, &persistent, &volatile_id);
	for (t = session->tcons; t != NULL; t = t->next) {
		o = smbd_open_find(t, persistent, volatile_id);
		if (o != NULL) {
			return o;
		}
	}
	return NULL;
}

/* 3.3.5.15.6.2: too many chunks, a chunk empty or too long, too much */
static bool copychunk_within_limits(const struct smb2_copychunk_copy *cc)
{
	struct smb2_copychunk ch;
	uint64_t total = 0;
	uint32_t i;

	if (cc->chunk_count > COPYCHUNK_MAX_CHUNKS) {
		return false;
	}
	for (i = 0; i < cc->chunk_count; i++) {
		smb2_copychunk_get(cc, i, &ch);
		if (ch.length == 0 || ch.length > COPYCHUNK_MAX_CHUNK_LEN) {
			return false;
		}
		total += ch.length;
	}
	return total <= COPYCHUNK_MAX_TOTAL_LEN;
}

/*
 * 3.3.5.15.6: the access the two opens need, in Samba's order.  The
 * source is read as an executable image may be: FILE_READ_DATA or
 * FILE_EXECUTE (smbtorture smb2.ioctl.copy_chunk_bad_access, which
 * Windows and Samba pass).  The resume key itself needs no access.
 */
static NTSTATUS copychunk_check_opens(uint32_t code,
				      const struct smbd_open *src,
				      const struct smbd_open *dst)
{
	if (!(dst->access_mask &
	      (SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA))) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (code == FSCTL_SRV_COPYCHUNK &&
	    !(dst->access_mask & SMB2_FILE_READ_DATA)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (!(src->access_mask & (SMB2_FILE_READ_DATA | SMB2_FILE_EXECUTE))) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (src->is_dir || dst->is_dir || src->fh->is_path_only ||
	    dst->fh->is_path_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

static NTSTATUS copychunk_reply(struct smbd_ioctl *io, NTSTATUS status,
				const struct smb2_copychunk_rsp *cr)
{
	uint8_t *out = smbd_ioctl_output(io, SMB2_COPYCHUNK_RSP_SIZE);

	if (out == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	smb2_copychunk_rsp_push(cr, out, io->out_len);
	return status;
}

/*
 * One chunk.  The source must hold the whole range (Samba and Windows
 * refuse a chunk past its end with INVALID_VIEW_SIZE); the size is read
 * again per chunk because an earlier chunk may have grown the file.
 */
static NTSTATUS copy_one_chunk(struct smbd_open *src, struct smbd_open *dst,
			       const struct smb2_copychunk *ch)
{
	struct statx st;
	uint64_t copied = 0;
	NTSTATUS status = vfs_fstat(src->fh, &st);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (ch->source_offset > st.stx_size ||
	    ch->length > st.stx_size - ch->source_offset) {
		return NT_STATUS_INVALID_VIEW_SIZE;
	}
	/* a copy reads and writes: other opens' locks apply as to I/O */
	status = smbd_lock_check_io(src, ch->source_offset, ch->length,
				    false);
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_lock_check_io(dst, ch->target_offset,
					    ch->length, true);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* the target's level II holders, as for WRITE (MS-FSA 2.1.5.3) */
	smbd_oplock_contend_level2(dst);
	status = vfs_copy_range(src->fh, ch->source_offset, dst->fh,
				ch->target_offset, ch->length, &copied);
	if (NT_STATUS_IS_OK(status) && copied != ch->length) {
		/* the source shrank meanwhile */
		status = NT_STATUS_INVALID_VIEW_SIZE;
	}
	return status;
}

/* Errors from here on carry the counts so far (3.3.5.15.6) */
static NTSTATUS copy_chunks(struct smbd_ioctl *io, struct smbd_open *src,
			    const struct smb2_copychunk_copy *cc)
{
	struct smb2_copychunk_rsp cr = {};
	struct smb2_copychunk ch;
	NTSTATUS status = NT_STATUS_OK;
	uint32_t i;

	for (i = 0; i < cc->chunk_count; i++) {
		smb2_copychunk_get(cc, i, &ch);
		status = copy_one_chunk(src, io->open, &ch);
		if (!NT_STATUS_IS_OK(status)) {
			DBG_INFO("copychunk %u of %u: %s\n", i,
				 cc->chunk_count, nt_errstr(status));
			break;
		}
		cr.chunks_written++;
		cr.total_bytes_written += ch.length;
	}
	return copychunk_reply(io, status, &cr);
}

NTSTATUS smbd_fsctl_copychunk(struct smbd_ioctl *io)
{
	static const struct smb2_copychunk_rsp limits = {
		.chunks_written = COPYCHUNK_MAX_CHUNKS,
		.chunk_bytes_written = COPYCHUNK_MAX_CHUNK_LEN,
		.total_bytes_written = COPYCHUNK_MAX_TOTAL_LEN,
	};
	struct smb2_copychunk_copy cc;
	struct smbd_open *src = NULL;
	NTSTATUS status;

	if (io->open == NULL) {
		return NT_STATUS_FILE_CLOSED;
	}
	if (io->max_out < SMB2_COPYCHUNK_RSP_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* a ChunkCount the input cannot hold fails here, before any loop */
	status = smb2_copychunk_copy_pull(io->r->input.data,
					  io->r->input.len, &cc);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* Samba 4.17 drops the connection on an unknown key */
	src = resume_key_lookup(io->req->session, cc.source_key);
	if (src == NULL) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	status = copychunk_check_opens(io->r->ctl_code, src, io->open);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!copychunk_within_limits(&cc)) {
		return copychunk_reply(io, NT_STATUS_INVALID_PARAMETER,
				       &limits);
	}
	return copy_chunks(io, src, &cc);
}
