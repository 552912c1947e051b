/*
 * QUERY_INFO (MS-SMB2 3.3.5.20): file and file system classes, EAs
 * (ea.c) and security descriptors synthesized from the mode
 * (secdesc.c).  Quotas (InfoType QUOTA) are not implemented
 * (NOT_SUPPORTED, docs/vfs.md).
 */
#include <string.h>
#include <sys/statvfs.h>
#include "lib/smb2/eainfo.h"
#include "lib/smb2/streams.h"
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/files/mangle.h"
#include "source3/smbd/commands/pipe.h"
#include "source3/smbd/files/casefold.h"
#include "source3/smbd/files/ea.h"
#include "source3/smbd/files/secdesc.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/filename.h"
#include "source3/smbd/files/open_files.h"

/* Samba reports 512-byte sectors whatever the device has */
#define QI_BYTES_PER_SECTOR 512

/*
 * Classes MS-FSCC documents that we do not implement: NOT_SUPPORTED
 * (MS-SMB2 3.3.5.20.1); a number it does not know: INVALID_INFO_CLASS.
 */
static bool qi_known_file_class(uint8_t c)
{
	switch (c) {
	case SMB2_FILE_OBJECT_ID_INFORMATION:
	case SMB2_FILE_REPARSE_POINT_INFORMATION:
	case SMB2_FILE_ID_INFORMATION:
	case SMB2_FILE_PIPE_INFORMATION:
	case SMB2_FILE_PIPE_LOCAL_INFORMATION:
	case SMB2_FILE_PIPE_REMOTE_INFORMATION:
		return true;
	}
	return false;
}

static bool qi_known_fs_class(uint8_t c)
{
	return c == SMB2_FS_DRIVER_PATH_INFORMATION ||
	       c == SMB2_FS_VOLUME_FLAGS_INFORMATION;
}

/*
 * The classes MS-SMB2 3.3.5.20.1 refuses without FILE_READ_ATTRIBUTES
 * (the pipe ones too, but we have no pipes).  FullEa checks FILE_READ_EA
 * in ea.c, security descriptors READ_CONTROL in secdesc.c.
 */
static bool qi_needs_read_attributes(uint8_t c)
{
	switch (c) {
	case SMB2_FILE_BASIC_INFORMATION:
	case SMB2_FILE_ALL_INFORMATION:
	case SMB2_FILE_NETWORK_OPEN_INFORMATION:
	case SMB2_FILE_ATTRIBUTE_TAG_INFORMATION:
		return true;
	}
	return false;
}

/* FILE_NAME_INFORMATION with its first WCHAR: Windows' least buffer */
#define QI_ALT_NAME_MIN 8

/*
 * The 8.3 name of the open's last component (lib/smb2/shortname.c):
 * the name itself when it is 8.3 already, else a stable hash-based one.
 * The share root has none.
 */
static NTSTATUS qi_alt_name(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			    const struct smb2_query_info_req *r,
			    uint8_t **out, size_t *out_len)
{
	const char *base = smbd_filename_base(open->name);
	char shortname[SMB2_SHORT_NAME_MAX];
	struct smb2_name16 name = {};
	struct smb2_file_meta m;
	uint8_t *u16 = NULL;
	NTSTATUS status;

	if (r->output_buffer_length < QI_ALT_NAME_MIN) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	if (base[0] == '\0') {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	smb2_short_name(base, shortname);
	smbd_mangle_remember(open->tcon, open->name);
	status = smb2_utf8_to_utf16(mem_ctx, shortname, strlen(shortname),
				    &u16, &name.len);
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_open_meta(open, &m);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	name.data = u16;
	/* same layout as FileNameInformation (MS-FSCC 2.4.5) */
	return smb2_fileinfo_push(mem_ctx, SMB2_FILE_NAME_INFORMATION, &m,
				  &name, r->output_buffer_length, out,
				  out_len);
}

/*
 * FileNormalizedNameInformation (MS-FSCC 2.4.30): FileNameInformation's
 * layout with the name as it is on disk, relative to the share root and
 * without the leading backslash, a stream's as "file:stream"; the
 * root's name is empty.  Only 3.1.1
 * has it: older dialects get NOT_SUPPORTED (MS-SMB2 3.3.5.20.1).
 */
static NTSTATUS qi_normalized_name(TALLOC_CTX *mem_ctx,
				   struct smbd_request *req,
				   const struct smb2_query_info_req *r,
				   uint8_t **out, size_t *out_len)
{
	struct smb2_name16 name = {};
	struct smb2_file_meta m;
	const char *path = req->open->name;
	NTSTATUS status;

	if (req->conn->dialect < SMB2_DIALECT_0311) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if (req->open->fh->stream != NULL) {
		/* a stream's: "file:stream" as stored (smb2.getinfo) */
		path = talloc_asprintf(mem_ctx, "%s:%s", path,
				       req->open->fh->stream);
		if (path == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	status = smbd_open_meta(req->open, &m);
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_filename_wire(mem_ctx, path, &name);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* smbd_filename_wire starts with one UTF-16 backslash: drop it */
	name.data += 2;
	name.len -= 2;
	return smb2_fileinfo_push(mem_ctx, SMB2_FILE_NAME_INFORMATION, &m,
				  &name, r->output_buffer_length, out, out_len);
}

/*
 * FileStreamInformation (MS-FSCC 2.4.43): the file's unnamed stream
 * "::$DATA" (not for a directory, as NTFS and Samba), then its named
 * streams in the VFS's order, whatever stream the handle is an open of.
 */
static NTSTATUS qi_streams(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			   const struct smb2_query_info_req *r, uint8_t **out,
			   size_t *out_len)
{
	struct smb2_stream_entry *e = NULL;
	struct vfs_stream *list = NULL;
	struct statx st;
	size_t n = 0, i, k = 0;
	NTSTATUS status = vfs_stream_base_fstat(open->fh, &st);

	if (NT_STATUS_IS_OK(status)) {
		status = vfs_stream_list(mem_ctx, open->fh, &list, &n);
	}
	if (NT_STATUS_IS_OK(status)) {
		e = talloc_zero_array(mem_ctx, struct smb2_stream_entry,
				      n + 1);
		status = e != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!S_ISDIR(st.stx_mode)) {
		e[k++] = (struct smb2_stream_entry){
			.name = "", .size = st.stx_size,
			.allocation_size = st.stx_blocks * 512,
		};
	}
	for (i = 0; i < n; i++) {
		e[k++] = (struct smb2_stream_entry){
			.name = list[i].name, .size = list[i].size,
			.allocation_size = list[i].size,
		};
	}
	return smb2_stream_info_push(mem_ctx, e, k, r->output_buffer_length,
				     out, out_len);
}

static NTSTATUS qi_file(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			const struct smb2_query_info_req *r, uint8_t **out,
			size_t *out_len)
{
	struct smbd_open *open = req->open;
	struct smb2_name16 name = {};
	struct smb2_file_meta m;
	NTSTATUS status;

	if (r->file_info_class == SMB2_FILE_NORMALIZED_NAME_INFORMATION) {
		return qi_normalized_name(mem_ctx, req, r, out, out_len);
	}
	if (r->file_info_class == SMB2_FILE_ALTERNATE_NAME_INFORMATION) {
		return qi_alt_name(mem_ctx, open, r, out, out_len);
	}
	if (r->file_info_class == SMB2_FILE_FULL_EA_INFORMATION) {
		return smbd_ea_query(mem_ctx, open, r, out, out_len);
	}
	if (r->file_info_class == SMB2_FILE_STREAM_INFORMATION &&
	    r->output_buffer_length >=
	    smb2_fileinfo_min_size(r->file_info_class)) {
		return qi_streams(mem_ctx, open, r, out, out_len);
	}
	if (smb2_fileinfo_min_size(r->file_info_class) == 0) {
		return qi_known_file_class(r->file_info_class) ?
			NT_STATUS_NOT_SUPPORTED : NT_STATUS_INVALID_INFO_CLASS;
	}
	if (qi_needs_read_attributes(r->file_info_class) &&
	    !(open->access_mask & SMB2_FILE_READ_ATTRIBUTES)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	status = smbd_open_meta(open, &m);
	if (NT_STATUS_IS_OK(status) &&
	    (r->file_info_class == SMB2_FILE_ALL_INFORMATION ||
	     r->file_info_class == SMB2_FILE_EA_INFORMATION)) {
		m.ea_size = smbd_ea_size(open->tcon, open->fh);
	}
	if (NT_STATUS_IS_OK(status) &&
	    (r->file_info_class == SMB2_FILE_ALL_INFORMATION ||
	     r->file_info_class == SMB2_FILE_NAME_INFORMATION)) {
		/* a stream's name is "file:stream", as Windows gives it */
		const char *path = open->fh->stream == NULL ? open->name :
			talloc_asprintf(mem_ctx, "%s:%s", open->name,
					open->fh->stream);

		status = path == NULL ? NT_STATUS_NO_MEMORY :
			smbd_filename_wire(mem_ctx, path, &name);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return smb2_fileinfo_push(mem_ctx, r->file_info_class, &m, &name,
				  r->output_buffer_length, out, out_len);
}

/* A stable serial number per share, as Samba derives it from the name. */
static uint32_t qi_serial(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++) {
		h = (h ^ (uint8_t)*s) * 16777619u;
	}
	return h;
}

/*
 * FileFsObjectIdInformation's ObjectId: a stable GUID-sized value per
 * share (four FNV-1a hashes of the name, each seeded differently).
 */
static void qi_object_id(const char *share, uint8_t id[16])
{
	uint32_t i;

	for (i = 0; i < 4; i++) {
		char seed[2] = { (char)('0' + i), '\0' };

		push_le32(id + 4 * i, qi_serial(share) ^ qi_serial(seed));
	}
}

static NTSTATUS qi_fs_meta(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			   struct smb2_fs_meta *m)
{
	const char *share = tcon->vfs->share_name;
	struct statvfs sv;
	uint8_t *label = NULL;
	uint64_t unit = 0;
	NTSTATUS status = vfs_statvfs(tcon->vfs, &sv);

	if (NT_STATUS_IS_OK(status)) {
		status = smb2_utf8_to_utf16(mem_ctx, share, strlen(share),
					    &label, &m->label.len);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	unit = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	m->label.data = label;
	m->volume_create_time = tcon->session->conn->server->start_time;
	m->serial_number = qi_serial(share);
	m->total_units = sv.f_blocks;
	m->caller_avail_units = sv.f_bavail;
	m->actual_avail_units = sv.f_bfree;
	m->bytes_per_sector = QI_BYTES_PER_SECTOR;
	m->sectors_per_unit = unit >= QI_BYTES_PER_SECTOR ?
		(uint32_t)(unit / QI_BYTES_PER_SECTOR) : 1;
	m->read_only = tcon->read_only;
	/*
	 * FILE_CASE_SENSITIVE_SEARCH says the file system can look names
	 * up by exact case (MS-FSCC 2.5.1), not that this share does: NTFS
	 * and Samba set it on every share, and smbtorture's
	 * smb2.streams.names3 runs only when it is set
	 */
	m->case_sensitive = true;
	m->named_streams = tcon->vfs->streams;
	qi_object_id(share, m->object_id);
	return NT_STATUS_OK;
}

static NTSTATUS qi_fs(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
		      const struct smb2_query_info_req *r, uint8_t **out,
		      size_t *out_len)
{
	struct smb2_fs_meta m = {};
	NTSTATUS status;

	if (smb2_fsinfo_min_size(r->file_info_class) == 0) {
		return qi_known_fs_class(r->file_info_class) ?
			NT_STATUS_NOT_SUPPORTED : NT_STATUS_INVALID_INFO_CLASS;
	}
	status = qi_fs_meta(mem_ctx, tcon, &m);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return smb2_fsinfo_push(mem_ctx, r->file_info_class, &m,
				r->output_buffer_length, out, out_len);
}

/*
 * A security descriptor that does not fit is BUFFER_TOO_SMALL with the
 * size it needs as the error response's 4 bytes of ErrorData (MS-SMB2
 * 2.2.2, 3.3.5.20.3); *out then holds those 4 bytes.
 */
static NTSTATUS qi_security(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			    const struct smb2_query_info_req *r,
			    uint8_t **out, size_t *out_len)
{
	NTSTATUS status = smbd_secdesc_query(mem_ctx, open,
					     r->additional_information, out,
					     out_len);

	if (!NT_STATUS_IS_OK(status) ||
	    *out_len <= r->output_buffer_length) {
		return status;
	}
	TALLOC_FREE(*out);
	*out = talloc_zero_size(mem_ctx, SMB2_ERROR_BUFFER_SIZE_LEN);
	if (*out == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*out_len = smb2_error_buffer_size_push((uint32_t)*out_len, *out,
					       SMB2_ERROR_BUFFER_SIZE_LEN);
	return NT_STATUS_BUFFER_TOO_SMALL;
}

static NTSTATUS qi_dispatch(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			    const struct smb2_query_info_req *r,
			    uint8_t **out, size_t *out_len)
{
	switch (r->info_type) {
	case SMB2_INFO_FILE:
		return qi_file(mem_ctx, req, r, out, out_len);
	case SMB2_INFO_FILESYSTEM:
		return qi_fs(mem_ctx, req->tcon, r, out, out_len);
	case SMB2_INFO_SECURITY:
		return qi_security(mem_ctx, req->open, r, out, out_len);
	case SMB2_INFO_QUOTA:
		return NT_STATUS_NOT_SUPPORTED;
	}
	return NT_STATUS_INVALID_PARAMETER;
}

/* BUFFER_OVERFLOW is a success with the truncated data in the body. */
static NTSTATUS qi_run(TALLOC_CTX *mem_ctx, struct smbd_request *req,
		       struct smbd_response *rsp)
{
	struct smb2_query_info_req r;
	struct smb2_blob output = {};
	uint8_t *buf = NULL;
	NTSTATUS status = smb2_query_info_req_pull(req->pdu, &r);

	if (NT_STATUS_IS_OK(status) &&
	    r.output_buffer_length > req->conn->max_transact) {
		status = NT_STATUS_INVALID_PARAMETER;
	}
	if (NT_STATUS_IS_OK(status) && req->open->pipe != NULL) {
		status = smbd_pipe_query_info(mem_ctx, req->open, &r, &buf,
					      &output.len);
	} else if (NT_STATUS_IS_OK(status)) {
		status = qi_dispatch(mem_ctx, req, &r, &buf, &output.len);
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_BUFFER_TOO_SMALL) &&
	    buf != NULL) {
		rsp->status = status;
		rsp->body = smb2_error_rsp_push(mem_ctx, buf, output.len,
						&rsp->body_len);
		talloc_free(buf);
		return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	if (NT_STATUS_IS_ERR(status)) {
		return status;
	}
	rsp->status = status;
	output.data = buf;
	rsp->body = smb2_query_info_rsp_push(mem_ctx, &output,
					     &rsp->body_len);
	talloc_free(buf);
	return rsp->body != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

struct tevent_req *smbd_query_info_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status = qi_run(mem_ctx, req, &rsp);

	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: QUERY_INFO: %s\n", req->conn->peer,
			 nt_errstr(status));
	}
	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

NTSTATUS smbd_query_info_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			      struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
