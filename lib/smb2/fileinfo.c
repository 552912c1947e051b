/*
 * File, file system and directory information encoders (MS-FSCC 2.4,
 * 2.5) and name matching (MS-FSA 2.1.4.4).  All integers little-endian.
 */
#include <string.h>
#include "lib/smb2/fileinfo.h"
#include "lib/smb2/cursor.h"
#include "lib/util/byteorder.h"

/* A writer over a buffer that was sized for the whole structure. */
struct fi_w {
	uint8_t *p;
	size_t pos;
};

static void w_u8(struct fi_w *w, uint8_t v)
{
	w->p[w->pos++] = v;
}

static void w_u16(struct fi_w *w, uint16_t v)
{
	push_le16(w->p + w->pos, v);
	w->pos += 2;
}

static void w_u32(struct fi_w *w, uint32_t v)
{
	push_le32(w->p + w->pos, v);
	w->pos += 4;
}

static void w_u64(struct fi_w *w, uint64_t v)
{
	push_le64(w->p + w->pos, v);
	w->pos += 8;
}

static void w_bytes(struct fi_w *w, const void *b, size_t n)
{
	if (n > 0) {
		memcpy(w->p + w->pos, b, n);
	}
	w->pos += n;
}

static void w_zero(struct fi_w *w, size_t n)
{
	memset(w->p + w->pos, 0, n);
	w->pos += n;
}

/* ---- file information classes (MS-FSCC 2.4) ---- */

#define FI_BASIC_SIZE		40
#define FI_STANDARD_SIZE	24
#define FI_INTERNAL_SIZE	8
#define FI_EA_SIZE		4
#define FI_ACCESS_SIZE		4
#define FI_NAME_FIXED		4
#define FI_POSITION_SIZE	8
#define FI_MODE_SIZE		4
#define FI_ALIGNMENT_SIZE	4
#define FI_ALL_FIXED		(FI_BASIC_SIZE + FI_STANDARD_SIZE + \
				 FI_INTERNAL_SIZE + FI_EA_SIZE + \
				 FI_ACCESS_SIZE + FI_POSITION_SIZE + \
				 FI_MODE_SIZE + FI_ALIGNMENT_SIZE + \
				 FI_NAME_FIXED)
/*
 * The least OutputBufferLength Windows takes for a class with a name
 * is sizeof() of its C structure, which holds the name's first WCHAR
 * and is padded to the structure's alignment (smbtorture
 * smb2.getinfo.qfile_buffercheck): below it INFO_LENGTH_MISMATCH,
 * above it a cut name is BUFFER_OVERFLOW.
 */
#define FI_ALL_MIN		104
#define FI_COMPRESSION_SIZE	16
#define FI_STREAM_MIN		32
#define FI_NETWORK_OPEN_SIZE	56
#define FI_ATTRIBUTE_TAG_SIZE	8
#define FI_STREAM_FIXED		24

/* The one stream a file has; directories have none. */
static const uint8_t fi_data_stream[] = {
	':', 0, ':', 0, '$', 0, 'D', 0, 'A', 0, 'T', 0, 'A', 0,
};

size_t smb2_fileinfo_min_size(uint8_t info_class)
{
	switch (info_class) {
	case SMB2_FILE_BASIC_INFORMATION:
		return FI_BASIC_SIZE;
	case SMB2_FILE_STANDARD_INFORMATION:
		return FI_STANDARD_SIZE;
	case SMB2_FILE_INTERNAL_INFORMATION:
		return FI_INTERNAL_SIZE;
	case SMB2_FILE_EA_INFORMATION:
		return FI_EA_SIZE;
	case SMB2_FILE_ACCESS_INFORMATION:
		return FI_ACCESS_SIZE;
	case SMB2_FILE_NAME_INFORMATION:
		return FI_NAME_FIXED;
	case SMB2_FILE_POSITION_INFORMATION:
		return FI_POSITION_SIZE;
	case SMB2_FILE_MODE_INFORMATION:
		return FI_MODE_SIZE;
	case SMB2_FILE_ALIGNMENT_INFORMATION:
		return FI_ALIGNMENT_SIZE;
	case SMB2_FILE_ALL_INFORMATION:
		return FI_ALL_MIN;
	case SMB2_FILE_NETWORK_OPEN_INFORMATION:
		return FI_NETWORK_OPEN_SIZE;
	case SMB2_FILE_ATTRIBUTE_TAG_INFORMATION:
		return FI_ATTRIBUTE_TAG_SIZE;
	case SMB2_FILE_STREAM_INFORMATION:
		return FI_STREAM_MIN;
	case SMB2_FILE_COMPRESSION_INFORMATION:
		return FI_COMPRESSION_SIZE;
	}
	return 0;
}

static void fi_basic(struct fi_w *w, const struct smb2_file_meta *m)
{
	w_u64(w, m->create_time);
	w_u64(w, m->access_time);
	w_u64(w, m->write_time);
	w_u64(w, m->change_time);
	w_u32(w, m->attributes);
	w_u32(w, 0);            /* Reserved */
}

static void fi_standard(struct fi_w *w, const struct smb2_file_meta *m)
{
	w_u64(w, m->allocation_size);
	w_u64(w, m->end_of_file);
	w_u32(w, m->nlink);
	w_u8(w, m->delete_pending ? 1 : 0);
	w_u8(w, m->is_dir ? 1 : 0);
	w_u16(w, 0);            /* Reserved */
}

static void fi_name(struct fi_w *w, const struct smb2_name16 *name)
{
	w_u32(w, (uint32_t)name->len);
	w_bytes(w, name->data, name->len);
}

/* FILE_ALL_INFORMATION: the fixed classes in order, then the name. */
static void fi_all(struct fi_w *w, const struct smb2_file_meta *m,
		   const struct smb2_name16 *name)
{
	fi_basic(w, m);
	fi_standard(w, m);
	w_u64(w, m->file_id);
	w_u32(w, m->ea_size);
	w_u32(w, m->access_mask);
	w_u64(w, m->position);
	w_u32(w, m->mode);
	w_u32(w, m->alignment);
	fi_name(w, name);
}

static void fi_network_open(struct fi_w *w, const struct smb2_file_meta *m)
{
	w_u64(w, m->create_time);
	w_u64(w, m->access_time);
	w_u64(w, m->write_time);
	w_u64(w, m->change_time);
	w_u64(w, m->allocation_size);
	w_u64(w, m->end_of_file);
	w_u32(w, m->attributes);
	w_u32(w, 0);            /* Reserved */
}

static void fi_stream(struct fi_w *w, const struct smb2_file_meta *m)
{
	if (m->is_dir) {
		return;
	}
	w_u32(w, 0);            /* NextEntryOffset: the only entry */
	w_u32(w, sizeof(fi_data_stream));
	w_u64(w, m->end_of_file);
	w_u64(w, m->allocation_size);
	w_bytes(w, fi_data_stream, sizeof(fi_data_stream));
}

static size_t fi_full_size(uint8_t info_class, const struct smb2_file_meta *m,
			   const struct smb2_name16 *name)
{
	switch (info_class) {
	case SMB2_FILE_ALL_INFORMATION:
		return FI_ALL_FIXED + name->len;
	case SMB2_FILE_NAME_INFORMATION:
		return FI_NAME_FIXED + name->len;
	case SMB2_FILE_STREAM_INFORMATION:
		return m->is_dir ? 0 : FI_STREAM_FIXED + sizeof(fi_data_stream);
	}
	return smb2_fileinfo_min_size(info_class);
}

static void fi_encode(struct fi_w *w, uint8_t info_class,
		      const struct smb2_file_meta *m,
		      const struct smb2_name16 *name)
{
	switch (info_class) {
	case SMB2_FILE_BASIC_INFORMATION:
		fi_basic(w, m);
		break;
	case SMB2_FILE_STANDARD_INFORMATION:
		fi_standard(w, m);
		break;
	case SMB2_FILE_INTERNAL_INFORMATION:
		w_u64(w, m->file_id);
		break;
	case SMB2_FILE_EA_INFORMATION:
		w_u32(w, m->ea_size);
		break;
	case SMB2_FILE_ACCESS_INFORMATION:
		w_u32(w, m->access_mask);
		break;
	case SMB2_FILE_NAME_INFORMATION:
		fi_name(w, name);
		break;
	case SMB2_FILE_POSITION_INFORMATION:
		w_u64(w, m->position);
		break;
	case SMB2_FILE_MODE_INFORMATION:
		w_u32(w, m->mode);
		break;
	case SMB2_FILE_ALIGNMENT_INFORMATION:
		w_u32(w, m->alignment);
		break;
	case SMB2_FILE_ALL_INFORMATION:
		fi_all(w, m, name);
		break;
	case SMB2_FILE_NETWORK_OPEN_INFORMATION:
		fi_network_open(w, m);
		break;
	case SMB2_FILE_ATTRIBUTE_TAG_INFORMATION:
		w_u32(w, m->attributes);
		w_u32(w, 0);    /* ReparseTag */
		break;
	case SMB2_FILE_STREAM_INFORMATION:
		fi_stream(w, m);
		break;
	case SMB2_FILE_COMPRESSION_INFORMATION:
		/* uncompressed: CompressedFileSize = size (MS-FSCC 2.4.9) */
		w_u64(w, m->end_of_file);
		w_zero(w, FI_COMPRESSION_SIZE - 8);
		break;
	}
}

/* Encode whole, then cut to max_len: what MS-FSA does for long names. */
static NTSTATUS fi_finish(TALLOC_CTX *mem_ctx, uint8_t *buf, size_t full,
			  uint32_t max_len, uint8_t **out, size_t *out_len)
{
	NTSTATUS status = NT_STATUS_OK;

	if (full > max_len) {
		full = max_len;
		status = NT_STATUS_BUFFER_OVERFLOW;
	}
	*out = buf;
	*out_len = full;
	return status;
}

NTSTATUS smb2_fileinfo_push(TALLOC_CTX *mem_ctx, uint8_t info_class,
			    const struct smb2_file_meta *m,
			    const struct smb2_name16 *name, uint32_t max_len,
			    uint8_t **out, size_t *out_len)
{
	static const struct smb2_name16 empty = { .data = NULL, .len = 0 };
	size_t min = smb2_fileinfo_min_size(info_class);
	size_t full = 0;
	struct fi_w w = {};

	if (min == 0) {
		return NT_STATUS_INVALID_INFO_CLASS;
	}
	if (max_len < min) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	if (name == NULL) {
		name = &empty;
	}
	full = fi_full_size(info_class, m, name);
	/* one spare byte: a 0-byte result is still a valid talloc chunk */
	w.p = talloc_zero_size(mem_ctx, full + 1);
	if (w.p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	fi_encode(&w, info_class, m, name);
	return fi_finish(mem_ctx, w.p, full, max_len, out, out_len);
}

/* ---- SET_INFO input buffers (MS-FSCC 2.4) ---- */

#define SI_BASIC_SIZE		40      /* with the 4 reserved bytes */
#define SI_U64_SIZE		8
#define SI_U32_SIZE		4
#define SI_DISPOSITION_SIZE	1
#define SI_RENAME_FIXED		20      /* FILE_RENAME_INFORMATION_TYPE_2 */

static NTSTATUS si_basic(struct smb2_cur *c, struct smb2_setinfo *out)
{
	if (smb2_cur_left(c) < SI_BASIC_SIZE) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	out->basic.create_time = smb2_cur_u64(c);
	out->basic.access_time = smb2_cur_u64(c);
	out->basic.write_time = smb2_cur_u64(c);
	out->basic.change_time = smb2_cur_u64(c);
	out->basic.attributes = smb2_cur_u32(c);
	return NT_STATUS_OK;
}

static NTSTATUS si_u64(struct smb2_cur *c, struct smb2_setinfo *out)
{
	if (smb2_cur_left(c) < SI_U64_SIZE) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	out->value = smb2_cur_u64(c);
	return NT_STATUS_OK;
}

static NTSTATUS si_u32(struct smb2_cur *c, struct smb2_setinfo *out)
{
	if (smb2_cur_left(c) < SI_U32_SIZE) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	out->flags = smb2_cur_u32(c);
	return NT_STATUS_OK;
}

/* FileDispositionInformation: one BOOLEAN, any non-zero value is TRUE */
static NTSTATUS si_disposition(struct smb2_cur *c, struct smb2_setinfo *out)
{
	if (smb2_cur_left(c) < SI_DISPOSITION_SIZE) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	out->flags = smb2_cur_u8(c) != 0 ? SMB2_FILE_DISPOSITION_DELETE : 0;
	return NT_STATUS_OK;
}

/*
 * FileRenameInformation / FileLinkInformation, the SMB2 form (MS-FSCC
 * 2.4.37.2, 2.4.21.2): ReplaceIfExists, 7 reserved bytes, RootDirectory,
 * FileNameLength, FileName.  The name must lie inside the buffer.
 */
static NTSTATUS si_rename(struct smb2_cur *c, struct smb2_setinfo *out)
{
	uint32_t name_len = 0;

	if (smb2_cur_left(c) < SI_RENAME_FIXED) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	out->rename.replace_if_exists = smb2_cur_u8(c) != 0;
	smb2_cur_skip(c, 7);
	out->rename.root_directory = smb2_cur_u64(c);
	name_len = smb2_cur_u32(c);
	if (name_len == 0 || name_len % 2 != 0 ||
	    name_len > smb2_cur_left(c)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->rename.name.data = smb2_cur_bytes(c, name_len);
	out->rename.name.len = name_len;
	return NT_STATUS_OK;
}

NTSTATUS smb2_setinfo_pull(uint8_t info_class, const uint8_t *buf,
			   size_t len, struct smb2_setinfo *out)
{
	struct smb2_cur c = smb2_cur_init(buf, len);

	*out = (struct smb2_setinfo) { .info_class = info_class };
	switch (info_class) {
	case SMB2_FILE_BASIC_INFORMATION:
		return si_basic(&c, out);
	case SMB2_FILE_END_OF_FILE_INFORMATION:
	case SMB2_FILE_ALLOCATION_INFORMATION:
	case SMB2_FILE_POSITION_INFORMATION:
		return si_u64(&c, out);
	case SMB2_FILE_MODE_INFORMATION:
	case SMB2_FILE_DISPOSITION_INFORMATION_EX:
		return si_u32(&c, out);
	case SMB2_FILE_DISPOSITION_INFORMATION:
		return si_disposition(&c, out);
	case SMB2_FILE_RENAME_INFORMATION:
	case SMB2_FILE_LINK_INFORMATION:
		return si_rename(&c, out);
	}
	return NT_STATUS_INVALID_INFO_CLASS;
}

/* ---- file system information classes (MS-FSCC 2.5) ---- */

#define FS_VOLUME_FIXED		18
#define FS_SIZE_SIZE		24
#define FS_DEVICE_SIZE		8
#define FS_ATTRIBUTE_FIXED	12
#define FS_FULL_SIZE_SIZE	32
#define FS_SECTOR_SIZE_SIZE	28
#define FS_CONTROL_SIZE		48
#define FS_OBJECT_ID_SIZE	64
/* sizeof() with the first WCHAR of the name, as for the file classes */
#define FS_VOLUME_MIN		24
#define FS_ATTRIBUTE_MIN	16
/* FileFsControlInformation: no quota limit */
#define FS_QUOTA_NONE		UINT64_MAX

#define FS_DEVICE_DISK			0x00000007
#define FS_DEVICE_READ_ONLY_DEVICE	0x00000002
#define FS_DEVICE_IS_MOUNTED		0x00000020

#define FS_CASE_SENSITIVE_SEARCH	0x00000001
#define FS_CASE_PRESERVED_NAMES		0x00000002
#define FS_UNICODE_ON_DISK		0x00000004
#define FS_SUPPORTS_SPARSE_FILES	0x00000040
#define FS_NAMED_STREAMS		0x00040000
#define FS_READ_ONLY_VOLUME		0x00080000

#define FS_SSINFO_ALIGNED_DEVICE		0x00000001
#define FS_SSINFO_PARTITION_ALIGNED_ON_DEVICE	0x00000002

#define FS_MAX_COMPONENT_NAME	255

/* What Samba reports too: clients know NTFS semantics best. */
static const uint8_t fs_name[] = { 'N', 0, 'T', 0, 'F', 0, 'S', 0 };

size_t smb2_fsinfo_min_size(uint8_t info_class)
{
	switch (info_class) {
	case SMB2_FS_VOLUME_INFORMATION:
		return FS_VOLUME_MIN;
	case SMB2_FS_SIZE_INFORMATION:
		return FS_SIZE_SIZE;
	case SMB2_FS_DEVICE_INFORMATION:
		return FS_DEVICE_SIZE;
	case SMB2_FS_ATTRIBUTE_INFORMATION:
		return FS_ATTRIBUTE_MIN;
	case SMB2_FS_CONTROL_INFORMATION:
		return FS_CONTROL_SIZE;
	case SMB2_FS_OBJECT_ID_INFORMATION:
		return FS_OBJECT_ID_SIZE;
	case SMB2_FS_FULL_SIZE_INFORMATION:
		return FS_FULL_SIZE_SIZE;
	case SMB2_FS_SECTOR_SIZE_INFORMATION:
		return FS_SECTOR_SIZE_SIZE;
	}
	return 0;
}

static void fs_volume(struct fi_w *w, const struct smb2_fs_meta *m)
{
	w_u64(w, m->volume_create_time);
	w_u32(w, m->serial_number);
	w_u32(w, (uint32_t)m->label.len);
	w_u8(w, 0);             /* SupportsObjects */
	w_u8(w, 0);             /* Reserved */
	w_bytes(w, m->label.data, m->label.len);
}

static void fs_attribute(struct fi_w *w, const struct smb2_fs_meta *m)
{
	uint32_t attrs = FS_CASE_PRESERVED_NAMES | FS_UNICODE_ON_DISK |
			 FS_SUPPORTS_SPARSE_FILES;

	if (m->case_sensitive) {
		attrs |= FS_CASE_SENSITIVE_SEARCH;
	}
	if (m->read_only) {
		attrs |= FS_READ_ONLY_VOLUME;
	}
	if (m->named_streams) {
		attrs |= FS_NAMED_STREAMS;
	}
	w_u32(w, attrs);
	w_u32(w, FS_MAX_COMPONENT_NAME);
	w_u32(w, sizeof(fs_name));
	w_bytes(w, fs_name, sizeof(fs_name));
}

static void fs_device(struct fi_w *w, const struct smb2_fs_meta *m)
{
	uint32_t chars = FS_DEVICE_IS_MOUNTED;

	if (m->read_only) {
		chars |= FS_DEVICE_READ_ONLY_DEVICE;
	}
	w_u32(w, FS_DEVICE_DISK);
	w_u32(w, chars);
}

static void fs_sector_size(struct fi_w *w, const struct smb2_fs_meta *m)
{
	w_u32(w, m->bytes_per_sector);  /* LogicalBytesPerSector */
	w_u32(w, m->bytes_per_sector);  /* PhysicalBytesPerSectorForAtomicity */
	w_u32(w, m->bytes_per_sector);  /* ...ForPerformance */
	w_u32(w, m->bytes_per_sector);  /* FileSystemEffective...Atomicity */
	w_u32(w, FS_SSINFO_ALIGNED_DEVICE |
		 FS_SSINFO_PARTITION_ALIGNED_ON_DEVICE);
	w_u32(w, 0);                    /* ByteOffsetForSectorAlignment */
	w_u32(w, 0);                    /* ByteOffsetForPartitionAlignment */
}

/*
 * FileFsControlInformation (MS-FSCC 2.5.2) of a volume without quotas:
 * no filtering thresholds, default threshold and limit "none",
 * FileSystemControlFlags 0 (quotas neither tracked nor enforced).
 */
static void fs_control(struct fi_w *w)
{
	w_u64(w, 0);            /* FreeSpaceStartFiltering */
	w_u64(w, 0);            /* FreeSpaceThreshold */
	w_u64(w, 0);            /* FreeSpaceStopFiltering */
	w_u64(w, FS_QUOTA_NONE);        /* DefaultQuotaThreshold */
	w_u64(w, FS_QUOTA_NONE);        /* DefaultQuotaLimit */
	w_u32(w, 0);            /* FileSystemControlFlags */
	w_u32(w, 0);            /* Padding */
}

static void fs_encode(struct fi_w *w, uint8_t info_class,
		      const struct smb2_fs_meta *m)
{
	switch (info_class) {
	case SMB2_FS_VOLUME_INFORMATION:
		fs_volume(w, m);
		break;
	case SMB2_FS_SIZE_INFORMATION:
		w_u64(w, m->total_units);
		w_u64(w, m->caller_avail_units);
		w_u32(w, m->sectors_per_unit);
		w_u32(w, m->bytes_per_sector);
		break;
	case SMB2_FS_DEVICE_INFORMATION:
		fs_device(w, m);
		break;
	case SMB2_FS_ATTRIBUTE_INFORMATION:
		fs_attribute(w, m);
		break;
	case SMB2_FS_FULL_SIZE_INFORMATION:
		w_u64(w, m->total_units);
		w_u64(w, m->caller_avail_units);
		w_u64(w, m->actual_avail_units);
		w_u32(w, m->sectors_per_unit);
		w_u32(w, m->bytes_per_sector);
		break;
	case SMB2_FS_SECTOR_SIZE_INFORMATION:
		fs_sector_size(w, m);
		break;
	case SMB2_FS_CONTROL_INFORMATION:
		fs_control(w);
		break;
	case SMB2_FS_OBJECT_ID_INFORMATION:
		w_bytes(w, m->object_id, sizeof(m->object_id));
		w_zero(w, FS_OBJECT_ID_SIZE - sizeof(m->object_id));
		break;
	}
}

NTSTATUS smb2_fsinfo_push(TALLOC_CTX *mem_ctx, uint8_t info_class,
			  const struct smb2_fs_meta *m, uint32_t max_len,
			  uint8_t **out, size_t *out_len)
{
	size_t min = smb2_fsinfo_min_size(info_class);
	size_t full = min;
	struct fi_w w = {};

	if (min == 0) {
		return NT_STATUS_INVALID_INFO_CLASS;
	}
	if (max_len < min) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	if (info_class == SMB2_FS_VOLUME_INFORMATION) {
		full = FS_VOLUME_FIXED + m->label.len;
	} else if (info_class == SMB2_FS_ATTRIBUTE_INFORMATION) {
		full = FS_ATTRIBUTE_FIXED + sizeof(fs_name);
	}
	w.p = talloc_zero_size(mem_ctx, full);
	if (w.p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	fs_encode(&w, info_class, m);
	return fi_finish(mem_ctx, w.p, full, max_len, out, out_len);
}

/* ---- directory entries (MS-FSCC 2.4.8, .14, .17, .21, .26, .34, .35) ---- */

#define DE_DIRECTORY_FIXED	64
#define DE_FULL_FIXED		68
#define DE_BOTH_FIXED		94
#define DE_NAMES_FIXED		12
#define DE_ID_BOTH_FIXED	104
#define DE_ID_FULL_FIXED	80
#define DE_ID_EXTD_FIXED	88	/* 2.4.21: 128-bit FileId */
#define DE_SHORT_NAME_BYTES	24

size_t smb2_dirent_fixed_size(uint8_t info_class)
{
	switch (info_class) {
	case SMB2_FILE_DIRECTORY_INFORMATION:
		return DE_DIRECTORY_FIXED;
	case SMB2_FILE_FULL_DIRECTORY_INFORMATION:
		return DE_FULL_FIXED;
	case SMB2_FILE_BOTH_DIRECTORY_INFORMATION:
		return DE_BOTH_FIXED;
	case SMB2_FILE_NAMES_INFORMATION:
		return DE_NAMES_FIXED;
	case SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION:
		return DE_ID_BOTH_FIXED;
	case SMB2_FILE_ID_FULL_DIRECTORY_INFORMATION:
		return DE_ID_FULL_FIXED;
	case SMB2_FILE_ID_EXTD_DIRECTORY_INFORMATION:
		return DE_ID_EXTD_FIXED;
	}
	return 0;
}

void smb2_dirlist_init(struct smb2_dirlist *l, uint8_t info_class,
		       uint8_t *buf, size_t max)
{
	*l = (struct smb2_dirlist) {
		.buf = buf, .max = max, .info_class = info_class,
	};
}

/* From NextEntryOffset to FileNameLength: shared by all but Names. */
static void de_common(struct fi_w *w, const struct smb2_file_meta *m,
		      size_t name_len)
{
	w_u32(w, 0);            /* NextEntryOffset, set by the next entry */
	w_u32(w, 0);            /* FileIndex: undefined order, so 0 */
	w_u64(w, m->create_time);
	w_u64(w, m->access_time);
	w_u64(w, m->write_time);
	w_u64(w, m->change_time);
	w_u64(w, m->end_of_file);
	w_u64(w, m->allocation_size);
	w_u32(w, m->attributes);
	w_u32(w, (uint32_t)name_len);
}

static void de_encode(struct fi_w *w, uint8_t info_class,
		      const struct smb2_file_meta *m,
		      const struct smb2_name16 *name)
{
	if (info_class == SMB2_FILE_NAMES_INFORMATION) {
		w_u32(w, 0);
		w_u32(w, 0);
		w_u32(w, (uint32_t)name->len);
		w_bytes(w, name->data, name->len);
		return;
	}
	de_common(w, m, name->len);
	if (info_class == SMB2_FILE_DIRECTORY_INFORMATION) {
		w_bytes(w, name->data, name->len);
		return;
	}
	w_u32(w, m->ea_size);
	if (info_class == SMB2_FILE_ID_EXTD_DIRECTORY_INFORMATION) {
		w_u32(w, 0);    /* ReparsePointTag: none are served */
		w_u64(w, m->file_id);
		w_u64(w, 0);    /* the FileId's upper 64 bits */
	} else if (info_class == SMB2_FILE_ID_FULL_DIRECTORY_INFORMATION) {
		w_u32(w, 0);    /* Reserved */
		w_u64(w, m->file_id);
	} else if (info_class != SMB2_FILE_FULL_DIRECTORY_INFORMATION) {
		/* Both, IdBoth: ShortNameLength, Reserved1, ShortName */
		size_t sl = m->short_name != NULL ?
			strnlen(m->short_name, DE_SHORT_NAME_BYTES / 2) : 0;
		size_t i;

		w_u8(w, (uint8_t)(2 * sl));
		w_u8(w, 0);
		for (i = 0; i < sl; i++) {
			w_u16(w, (uint8_t)m->short_name[i]);
		}
		w_zero(w, DE_SHORT_NAME_BYTES - 2 * sl);
		if (info_class == SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION) {
			w_u16(w, 0);    /* Reserved2 */
			w_u64(w, m->file_id);
		}
	}
	w_bytes(w, name->data, name->len);
}

bool smb2_dirlist_add(struct smb2_dirlist *l, const struct smb2_file_meta *m,
		      const struct smb2_name16 *name)
{
	size_t fixed = smb2_dirent_fixed_size(l->info_class);
	size_t ofs = l->count == 0 ? 0 : (l->len + 7) & ~(size_t)7;
	struct fi_w w = {};

	if (fixed == 0 || ofs > l->max || fixed > l->max - ofs ||
	    name->len > l->max - ofs - fixed) {
		return false;
	}
	memset(l->buf + l->len, 0, ofs - l->len);
	w.p = l->buf + ofs;
	de_encode(&w, l->info_class, m, name);
	if (l->count > 0) {
		push_le32(l->buf + l->last, (uint32_t)(ofs - l->last));
	}
	l->last = ofs;
	l->len = ofs + w.pos;
	l->count++;
	return true;
}

/* ---- name matching (MS-FSA 2.1.4.4) ---- */

/* Longest name matched: Linux names are at most 255 bytes. */
#define NM_MAX_NAME	1024
/*
 * Longest pattern, in tokens after folding runs of '*': a longer one
 * cannot match a 255-byte name in any useful way, and the bound keeps
 * matching at O(512 * 256) steps per name whatever a client sends.
 */
#define NM_MAX_PATTERN	512

#define NM_DOS_STAR	'<'
#define NM_DOS_QM	'>'
#define NM_DOS_DOT	'"'

/* One code point from UTF-8; an invalid byte stands for itself. */
static uint32_t nm_next(const unsigned char **sp)
{
	const unsigned char *s = *sp;
	uint32_t c = s[0];
	int n = 0;
	int i;

	if (c >= 0xF0 && c < 0xF8) {
		n = 3;
		c &= 0x07;
	} else if (c >= 0xE0) {
		n = c < 0xF0 ? 2 : 0;
		c &= 0x0F;
	} else if (c >= 0xC0) {
		n = 1;
		c &= 0x1F;
	}
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*sp = s + 1;
			return s[0];
		}
		c = (c << 6) | (s[i] & 0x3F);
	}
	*sp = s + 1 + n;
	return n == 0 ? s[0] : c;
}

static uint32_t nm_fold(uint32_t c)
{
	return (c >= 'a' && c <= 'z') ? c - ('a' - 'A') : c;
}

/* Decodes at most max code points; false if s is longer. */
static bool nm_decode(const char *s, uint32_t *out, size_t max, size_t *n,
		      bool fold_stars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k = 0;

	while (*p != '\0') {
		uint32_t c = nm_next(&p);

		if (fold_stars && c == '*' && k > 0 && out[k - 1] == '*') {
			continue;
		}
		if (k == max) {
			return false;
		}
		out[k++] = nm_fold(c);
	}
	*n = k;
	return true;
}

/* Index of the last '.' in the name, or n if there is none. */
static size_t nm_last_dot(const uint32_t *name, size_t n)
{
	size_t i = n;

	while (i-- > 0) {
		if (name[i] == '.') {
			return i;
		}
	}
	return n;
}

/* First set position at or after from, or n + 1. */
static size_t nm_first(const uint8_t *set, size_t from, size_t n)
{
	while (from <= n && !set[from]) {
		from++;
	}
	return from;
}

static void nm_fill(uint8_t *set, size_t lo, size_t hi)
{
	while (lo <= hi) {
		set[lo++] = 1;
	}
}

/*
 * '*' reaches every position from the first one set.  DOS_STAR does the
 * same but stops at the final '.' of the name (it may consume that dot,
 * nothing after it); past the final dot it behaves like '*'.
 */
static void nm_star(uint32_t p, size_t n, size_t dot, const uint8_t *cur,
		    uint8_t *nxt)
{
	size_t i0 = nm_first(cur, 0, n);
	size_t i1 = 0;

	if (i0 > n) {
		return;
	}
	if (p == '*' || dot == n) {
		nm_fill(nxt, i0, n);
		return;
	}
	if (i0 <= dot) {
		nm_fill(nxt, i0, dot + 1);
	}
	i1 = nm_first(cur, dot + 1, n);
	if (i1 <= n) {
		nm_fill(nxt, i1, n);
	}
}

/* DOS_QM: one character, or nothing at a '.' or at the end. */
static void nm_dos_qm(const uint32_t *name, size_t n, size_t i, uint8_t *nxt)
{
	if (i == n) {
		nxt[i] = 1;
	} else if (name[i] == '.') {
		nxt[i] = 1;
		if (i + 1 == n) {
			nxt[i + 1] = 1;
		}
	} else {
		nxt[i + 1] = 1;
	}
}

/* DOS_DOT: a '.', or nothing once the name is used up. */
static void nm_dos_dot(const uint32_t *name, size_t n, size_t i,
		       uint8_t *nxt)
{
	if (i == n) {
		nxt[i] = 1;
	} else if (name[i] == '.') {
		nxt[i + 1] = 1;
	}
}

/*
 * Positions reachable from cur by one pattern token.  A position i means
 * "name[0..i) has been consumed".
 */
static void nm_step(uint32_t p, const uint32_t *name, size_t n, size_t dot,
		    const uint8_t *cur, uint8_t *nxt)
{
	size_t i;

	memset(nxt, 0, n + 1);
	if (p == '*' || p == NM_DOS_STAR) {
		nm_star(p, n, dot, cur, nxt);
		return;
	}
	for (i = 0; i <= n; i++) {
		if (!cur[i]) {
			continue;
		}
		if (p == '?') {
			if (i < n) {
				nxt[i + 1] = 1;
			}
		} else if (p == NM_DOS_QM) {
			nm_dos_qm(name, n, i, nxt);
		} else if (p == NM_DOS_DOT) {
			nm_dos_dot(name, n, i, nxt);
		} else if (i < n && name[i] == p) {
			nxt[i + 1] = 1;
		}
	}
}

static bool nm_any(const uint8_t *set, size_t n)
{
	size_t i;

	for (i = 0; i <= n; i++) {
		if (set[i]) {
			return true;
		}
	}
	return false;
}

bool smb2_name_has_wildcard(const char *pattern)
{
	return strpbrk(pattern, "*?<>\"") != NULL;
}

bool smb2_name_match(const char *pattern, const char *name)
{
	uint32_t pat[NM_MAX_PATTERN];
	uint32_t nm[NM_MAX_NAME];
	uint8_t a[NM_MAX_NAME + 1], b[NM_MAX_NAME + 1];
	uint8_t *cur = a, *nxt = b;
	size_t np = 0, nn = 0, dot, k;

	if (pattern[0] == '\0' || strcmp(pattern, "*") == 0) {
		return true;
	}
	if (!nm_decode(pattern, pat, NM_MAX_PATTERN, &np, true) ||
	    !nm_decode(name, nm, NM_MAX_NAME, &nn, false)) {
		return false;
	}
	dot = nm_last_dot(nm, nn);
	memset(cur, 0, nn + 1);
	cur[0] = 1;
	for (k = 0; k < np; k++) {
		uint8_t *t = NULL;

		nm_step(pat[k], nm, nn, dot, cur, nxt);
		t = cur;
		cur = nxt;
		nxt = t;
		if (!nm_any(cur, nn)) {
			return false;
		}
	}
	return cur[nn] != 0;
}
