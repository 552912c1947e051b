/*
 * File, file system and directory information encoders (MS-FSCC 2.4,
 * 2.5) and the name-in-expression matcher (MS-FSA 2.1.4.4).
 *
 * Pure functions: metadata in, little-endian bytes out.  The file layer
 * fills a struct smb2_file_meta from statx and converts names to
 * UTF-16LE; nothing here touches a file.
 */
#ifndef RINGSMB_SMB2_FILEINFO_H
#define RINGSMB_SMB2_FILEINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"
#include "lib/smb2/smb2.h"

/* What the encoders know about one file or directory. */
struct smb2_file_meta {
	uint64_t create_time;           /* NTTIME */
	uint64_t access_time;
	uint64_t write_time;
	uint64_t change_time;
	uint32_t attributes;            /* SMB2_FILE_ATTRIBUTE_* */
	uint64_t allocation_size;
	uint64_t end_of_file;
	uint32_t nlink;
	bool delete_pending;
	bool is_dir;
	uint64_t file_id;               /* IndexNumber: the inode */
	uint32_t ea_size;
	/* Both/IdBoth listings: the 8.3 name (ASCII, <= 12), NULL for none */
	const char *short_name;
	/* per open (QUERY_INFO only) */
	uint32_t access_mask;
	uint64_t position;
	uint32_t mode;                  /* FileModeInformation */
	uint32_t alignment;
};

/* A UTF-16LE string (no terminator), e.g. from smb2_utf8_to_utf16. */
struct smb2_name16 {
	const uint8_t *data;
	size_t len;                     /* bytes */
};

/*
 * FileAllInformation's fixed part and the other fixed sizes, from
 * MS-FSCC; the size a QUERY_INFO buffer must at least have.  0 for a
 * class not implemented here.
 */
size_t smb2_fileinfo_min_size(uint8_t info_class);
size_t smb2_fsinfo_min_size(uint8_t info_class);

/*
 * Encodes a file information class.  name is the path for
 * FileAllInformation (as MS-FSCC FileNameInformation holds it); other
 * classes ignore it.  The result, on mem_ctx, is truncated to max_len:
 *   OK                   the whole structure fitted
 *   BUFFER_OVERFLOW      variable part cut (MS-SMB2 3.3.5.20.1)
 *   INFO_LENGTH_MISMATCH max_len below the fixed part; nothing returned
 *   INVALID_INFO_CLASS   a class not implemented
 *   NO_MEMORY
 */
NTSTATUS smb2_fileinfo_push(TALLOC_CTX *mem_ctx, uint8_t info_class,
			    const struct smb2_file_meta *m,
			    const struct smb2_name16 *name, uint32_t max_len,
			    uint8_t **out, size_t *out_len);

/* What the file system classes need. */
struct smb2_fs_meta {
	uint64_t volume_create_time;    /* NTTIME */
	uint32_t serial_number;
	struct smb2_name16 label;       /* the share name */
	uint64_t total_units;           /* allocation units */
	uint64_t caller_avail_units;    /* f_bavail */
	uint64_t actual_avail_units;    /* f_bfree */
	uint32_t sectors_per_unit;
	uint32_t bytes_per_sector;
	bool read_only;
	bool case_sensitive;
	bool named_streams;             /* FILE_NAMED_STREAMS */
	uint8_t object_id[16];          /* FileFsObjectIdInformation */
};

/* As smb2_fileinfo_push, for SMB2_0_INFO_FILESYSTEM classes. */
NTSTATUS smb2_fsinfo_push(TALLOC_CTX *mem_ctx, uint8_t info_class,
			  const struct smb2_fs_meta *m, uint32_t max_len,
			  uint8_t **out, size_t *out_len);

/* ---- SET_INFO input buffers (MS-FSCC 2.4, MS-SMB2 3.3.5.21.1) ---- */

/* FileDispositionInformationEx Flags (MS-FSCC 2.4.12) */
#define SMB2_FILE_DISPOSITION_DELETE			0x00000001
#define SMB2_FILE_DISPOSITION_POSIX_SEMANTICS		0x00000002
#define SMB2_FILE_DISPOSITION_FORCE_IMAGE_SECTION_CHECK	0x00000004
#define SMB2_FILE_DISPOSITION_ON_CLOSE			0x00000008
#define SMB2_FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE	0x00000010

/* FileBasicInformation times: leave alone / stop / resume updating */
#define SMB2_SETINFO_TIME_KEEP		0
#define SMB2_SETINFO_TIME_STOP		UINT64_MAX
#define SMB2_SETINFO_TIME_RESUME	(UINT64_MAX - 1)

/*
 * One parsed SET_INFO buffer; which fields are set depends on the class:
 *   FileBasicInformation            basic
 *   FileEndOfFile / FileAllocation
 *   / FilePositionInformation       value
 *   FileDisposition(Ex), FileMode   flags (Disposition: 0 or DELETE)
 *   FileRename / FileLink           rename (name points into the input)
 */
struct smb2_setinfo {
	uint8_t info_class;
	struct {
		uint64_t create_time;   /* NTTIME, or a TIME_* above */
		uint64_t access_time;
		uint64_t write_time;
		uint64_t change_time;
		uint32_t attributes;    /* 0: leave alone */
	} basic;
	uint64_t value;
	uint32_t flags;
	struct {
		bool replace_if_exists;
		uint64_t root_directory;
		struct smb2_name16 name; /* UTF-16LE, even, non-empty */
	} rename;
};

/*
 * Parses the SET_INFO buffer of a file information class, each class
 * with its own length check:
 *   INVALID_INFO_CLASS    a class this parser does not know
 *   INFO_LENGTH_MISMATCH  shorter than the class's fixed part
 *   INVALID_PARAMETER     a name length that is 0, odd or past the end
 * Bytes after a fixed-size structure are ignored, as Windows does
 * (MS-FSA 2.1.5.14 only refuses a buffer that is too small).
 */
NTSTATUS smb2_setinfo_pull(uint8_t info_class, const uint8_t *buf,
			   size_t len, struct smb2_setinfo *out);

/* ---- directory enumeration (QUERY_DIRECTORY) ---- */

/* Fixed size of one entry before FileName; 0 if not supported. */
size_t smb2_dirent_fixed_size(uint8_t info_class);

/*
 * A QUERY_DIRECTORY output buffer being filled.  Entries are 8-byte
 * aligned; each NextEntryOffset points to the next entry, the last one
 * is 0 and no padding follows it (MS-FSCC 2.4).
 */
struct smb2_dirlist {
	uint8_t *buf;
	size_t max;                     /* OutputBufferLength */
	size_t len;                     /* end of the last entry */
	size_t last;                    /* offset of the last entry */
	size_t count;
	uint8_t info_class;
};

void smb2_dirlist_init(struct smb2_dirlist *l, uint8_t info_class,
		       uint8_t *buf, size_t max);

/*
 * Appends one entry.  false if it does not fit in what is left (the list
 * is unchanged, so the caller keeps the entry for the next call).
 */
bool smb2_dirlist_add(struct smb2_dirlist *l, const struct smb2_file_meta *m,
		      const struct smb2_name16 *name);

/*
 * Windows' name-in-expression matching (MS-FSA 2.1.4.4), on UTF-8:
 * '*' any run, '?' one character, and the DOS wildcards '<' (DOS_STAR),
 * '>' (DOS_QM) and '"' (DOS_DOT).  ASCII letters match without regard to
 * case; other characters exactly.  An empty pattern matches everything.
 * Runs in O(pattern * name) time whatever the pattern, no backtracking.
 */
bool smb2_name_match(const char *pattern, const char *name);

/* Whether a pattern has wildcards at all (else it names one entry). */
bool smb2_name_has_wildcard(const char *pattern);

#endif
