/*
 * File-system control codes (MS-FSCC 2.3, device type 0x0009) on an
 * open file: sparse files and zeroed ranges, allocated ranges,
 * compression (none on Linux, answered as Samba does), object ids and
 * reparse points (none).
 */
#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>
#include "lib/util/byteorder.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/brlock.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/commands/ioctl.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/dosmode.h"
#include "source3/smbd/files/filename.h"
#include "source3/smbd/files/open_files.h"

static bool may(const struct smbd_open *open, uint32_t access)
{
	return (open->access_mask & access) != 0;
}

/*
 * MS-FSA 2.1.5.9.38.  Any of write data, append or write attributes
 * will do, as in Samba.  The flag is FILE_ATTRIBUTE_SPARSE_FILE in the
 * stored DOS attributes (dosmode.c).  As on NTFS, only a sparse file has
 * holes a client sees: ZERO_DATA keeps a non-sparse file's range
 * allocated, and QUERY_ALLOCATED_RANGES reports all of a non-sparse file
 * (so clearing the flag makes the file read as allocated again).
 */
static bool is_sparse(struct smbd_open *open)
{
	struct smbd_dosmode dm;

	return NT_STATUS_IS_OK(smbd_dosmode_current(
			open->fh, smbd_filename_base(open->name), &dm)) &&
	       (dm.attrs & SMB2_FILE_ATTRIBUTE_SPARSE_FILE) != 0;
}

static NTSTATUS set_sparse_attr(struct smbd_open *open, bool sparse)
{
	struct smbd_dosmode dm;
	NTSTATUS status = smbd_dosmode_current(open->fh,
					       smbd_filename_base(open->name),
					       &dm);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (sparse == ((dm.attrs & SMB2_FILE_ATTRIBUTE_SPARSE_FILE) != 0)) {
		return NT_STATUS_OK;
	}
	dm.attrs ^= SMB2_FILE_ATTRIBUTE_SPARSE_FILE;
	return smbd_dosmode_store(open->fh, &dm);
}

static NTSTATUS fsctl_set_sparse(struct smbd_ioctl *io)
{
	bool sparse = false;
	NTSTATUS status;

	/* MS-FSA 2.1.5.9.38, as smbtorture's sparse_dir_flag checks */
	if (io->open->is_dir) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!may(io->open, SMB2_FILE_WRITE_DATA | SMB2_FILE_APPEND_DATA |
		 SMB2_FILE_WRITE_ATTRIBUTES)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	status = smb2_set_sparse_pull(io->r->input.data, io->r->input.len,
				      &sparse);
	if (NT_STATUS_IS_OK(status)) {
		status = set_sparse_attr(io->open, sparse);
	}
	return status;
}

/*
 * MS-FSCC 2.3.67: zero [FileOffset, BeyondFinalZero) without changing
 * the file size: a hole where the file system can punch one, zeroed
 * blocks where it can only do that.  A file not marked sparse gets its
 * blocks back (as NTFS keeps them, and Samba with "strict allocate"):
 * the range stays allocated, only zeroed.
 */
static NTSTATUS fsctl_set_zero_data(struct smbd_ioctl *io)
{
	struct smb2_zero_data z;
	NTSTATUS status;

	if (!may(io->open, SMB2_FILE_WRITE_DATA) || io->open->is_dir ||
	    io->open->fh->is_path_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	status = smb2_zero_data_pull(io->r->input.data, io->r->input.len,
				     &z);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (z.file_offset > z.beyond_final_zero ||
	    z.beyond_final_zero > INT64_MAX) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (z.file_offset == z.beyond_final_zero) {
		return NT_STATUS_OK;
	}
	/* zeroing is a write: other opens' locks apply */
	status = smbd_lock_check_io(io->open, z.file_offset,
				    z.beyond_final_zero - z.file_offset,
				    true);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* and it breaks level II oplocks (MS-FSA 2.1.5.10.39, 2.1.4.12) */
	smbd_oplock_contend_level2(io->open);
	status = vfs_fallocate(io->open->fh,
			       FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       z.file_offset,
			       z.beyond_final_zero - z.file_offset);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED)) {
		return vfs_fallocate(io->open->fh,
				     FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
				     z.file_offset,
				     z.beyond_final_zero - z.file_offset);
	}
	if (NT_STATUS_IS_OK(status) && !is_sparse(io->open)) {
		/* best effort: the data is zero either way */
		(void)vfs_fallocate(io->open->fh, FALLOC_FL_KEEP_SIZE,
				    z.file_offset,
				    z.beyond_final_zero - z.file_offset);
	}
	return status;
}

/* The data extents in [off, end), pushed while they fit. */
static NTSTATUS qar_walk(struct smbd_ioctl *io, uint64_t off, uint64_t end,
			 size_t *n)
{
	size_t max = io->out_len / SMB2_ALLOC_RANGE_SIZE;
	struct smb2_alloc_range ar;
	uint64_t start = 0, stop = 0;
	NTSTATUS status;

	while (off < end) {
		status = vfs_data_extent(io->open->fh, off, &start, &stop);
		if (NT_STATUS_EQUAL(status, NT_STATUS_END_OF_FILE) ||
		    (NT_STATUS_IS_OK(status) && start >= end)) {
			break;
		}
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		if (*n == max) {
			return NT_STATUS_BUFFER_OVERFLOW;
		}
		ar.file_offset = start;
		ar.length = (stop < end ? stop : end) - start;
		smb2_alloc_range_push(&ar, io->out + *n * SMB2_ALLOC_RANGE_SIZE,
				      SMB2_ALLOC_RANGE_SIZE);
		(*n)++;
		off = stop;
	}
	return NT_STATUS_OK;
}

/*
 * MS-FSCC 2.3.51: the allocated ranges within the asked range and the
 * file: of a sparse file the data extents, of any other file all of it
 * (NTFS and Samba).  As many as fit with BUFFER_OVERFLOW when there are
 * more (as Windows; Samba answers BUFFER_TOO_SMALL with none).
 */
static NTSTATUS fsctl_query_allocated_ranges(struct smbd_ioctl *io)
{
	struct smb2_alloc_range q;
	struct statx st;
	uint64_t end = 0;
	size_t n = 0;
	NTSTATUS status;

	if (!may(io->open, SMB2_FILE_READ_DATA) || io->open->is_dir ||
	    io->open->fh->is_path_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	status = smb2_alloc_range_pull(io->r->input.data, io->r->input.len,
				       &q);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (q.file_offset > INT64_MAX || q.length > INT64_MAX - q.file_offset) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = vfs_fstat(io->open->fh, &st);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	end = q.file_offset + q.length;
	end = end < st.stx_size ? end : st.stx_size;
	if (smbd_ioctl_output(io, io->max_out -
			      io->max_out % SMB2_ALLOC_RANGE_SIZE) == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (is_sparse(io->open)) {
		status = qar_walk(io, q.file_offset, end, &n);
	} else if (q.file_offset < end) {
		struct smb2_alloc_range all = {
			.file_offset = q.file_offset,
			.length = end - q.file_offset,
		};

		status = NT_STATUS_BUFFER_OVERFLOW;
		if (io->out_len >= SMB2_ALLOC_RANGE_SIZE) {
			smb2_alloc_range_push(&all, io->out,
					      SMB2_ALLOC_RANGE_SIZE);
			n = 1;
			status = NT_STATUS_OK;
		}
	}
	io->out_len = n * SMB2_ALLOC_RANGE_SIZE;
	/* no ranges is success whatever the size; one that does not fit */
	if (NT_STATUS_EQUAL(status, NT_STATUS_BUFFER_OVERFLOW) && n == 0) {
		status = NT_STATUS_BUFFER_TOO_SMALL;
	}
	if (NT_STATUS_IS_ERR(status)) {
		io->have_output = false;
	}
	return status;
}

/* No compression on Linux file systems: "not compressed", as Samba. */
static NTSTATUS fsctl_get_compression(struct smbd_ioctl *io)
{
	uint8_t *out = NULL;

	/* Samba's answer to a short output buffer */
	if (io->max_out < sizeof(uint16_t)) {
		return NT_STATUS_INVALID_USER_BUFFER;
	}
	out = smbd_ioctl_output(io, sizeof(uint16_t));
	if (out == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	smb2_compression_push(SMB2_COMPRESSION_FORMAT_NONE, out, io->out_len);
	return NT_STATUS_OK;
}

/* Turning compression off is accepted, on is NOT_SUPPORTED (Samba). */
static NTSTATUS fsctl_set_compression(struct smbd_ioctl *io)
{
	uint16_t format = 0;
	NTSTATUS status;

	if (!may(io->open, SMB2_FILE_WRITE_DATA)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	status = smb2_compression_pull(io->r->input.data, io->r->input.len,
				       &format);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return format == SMB2_COMPRESSION_FORMAT_NONE ? NT_STATUS_OK :
		NT_STATUS_NOT_SUPPORTED;
}

/*
 * MS-FSCC 2.3.2, a type 1 buffer generated from the file's identity
 * (device and inode, as Samba does), so it is stable and unique on the
 * server without storing anything.  A short output buffer is
 * INVALID_PARAMETER as MS-FSCC says (Samba cuts the buffer).
 */
static NTSTATUS fsctl_object_id(struct smbd_ioctl *io)
{
	struct smb2_object_id oid = {};
	struct statx st;
	uint8_t *out = NULL;
	NTSTATUS status;

	if (io->max_out < SMB2_OBJECT_ID_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = vfs_fstat(io->open->fh, &st);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	push_le64(oid.object_id,
		  ((uint64_t)st.stx_dev_major << 32) | st.stx_dev_minor);
	push_le64(oid.object_id + 8, st.stx_ino);
	memcpy(oid.birth_object_id, oid.object_id, 16);
	memcpy(oid.birth_volume_id, io->req->conn->server->server_guid, 16);
	out = smbd_ioctl_output(io, SMB2_OBJECT_ID_SIZE);
	if (out == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	smb2_object_id_push(&oid, out, io->out_len);
	return NT_STATUS_OK;
}

NTSTATUS smbd_fsctl_filesys(struct smbd_ioctl *io)
{
	switch (io->r->ctl_code) {
	case FSCTL_SET_SPARSE:
		return fsctl_set_sparse(io);
	case FSCTL_SET_ZERO_DATA:
		return fsctl_set_zero_data(io);
	case FSCTL_QUERY_ALLOCATED_RANGES:
		return fsctl_query_allocated_ranges(io);
	case FSCTL_GET_COMPRESSION:
		return fsctl_get_compression(io);
	case FSCTL_SET_COMPRESSION:
		return fsctl_set_compression(io);
	case FSCTL_CREATE_OR_GET_OBJECT_ID:
		return fsctl_object_id(io);
	case FSCTL_GET_REPARSE_POINT:
		return NT_STATUS_NOT_A_REPARSE_POINT;	/* we make none */
	default:
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
}
