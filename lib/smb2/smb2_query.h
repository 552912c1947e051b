/*
 * IOCTL (MS-SMB2 2.2.31, 2.2.32), QUERY_DIRECTORY (2.2.33, 2.2.34),
 * CHANGE_NOTIFY (2.2.35, 2.2.36) with its FILE_NOTIFY_INFORMATION entries,
 * QUERY_INFO and SET_INFO (2.2.37 - 2.2.40): ioctl_codec.c, query_codec.c,
 * notify_codec.c.  Part of lib/smb2/smb2.h; include that.
 */
#ifndef RINGSMB_SMB2_QUERY_H
#define RINGSMB_SMB2_QUERY_H

#include "lib/smb2/smb2_frame.h"

/* ------------------------------------------------------------------ */
/* IOCTL (MS-SMB2 2.2.31, 2.2.32)                                       */

#define SMB2_0_IOCTL_IS_FSCTL	0x00000001

/* IOCTL response Buffer offset from the header: 64 + 48. */
#define SMB2_IOCTL_RSP_BUFFER_OFFSET	0x70

struct smb2_ioctl_req {
	uint32_t ctl_code;
	struct smb2_file_id file_id;
	struct smb2_blob input;
	uint32_t max_input_response;
	struct smb2_blob output;	/* rarely used by clients */
	uint32_t max_output_response;
	uint32_t flags;
};

NTSTATUS smb2_ioctl_req_pull(const struct smb2_pdu *pdu,
			     struct smb2_ioctl_req *out);

struct smb2_ioctl_rsp {
	uint32_t ctl_code;
	struct smb2_file_id file_id;
	struct smb2_blob input;		/* echoed input, usually empty */
	struct smb2_blob output;
	uint32_t flags;
};

/* Input at 0x70, output 8-aligned after it; empty → offset 0x70 too. */
uint8_t *smb2_ioctl_rsp_push(TALLOC_CTX *mem_ctx,
			     const struct smb2_ioctl_rsp *in, size_t *len);

/* ------------------------------------------------------------------ */
/* QUERY_DIRECTORY (MS-SMB2 2.2.33, 2.2.34)                             */

#define SMB2_RESTART_SCANS		0x01
#define SMB2_RETURN_SINGLE_ENTRY	0x02
#define SMB2_INDEX_SPECIFIED		0x04
#define SMB2_REOPEN			0x10

/* OutputBufferOffset of the 9-byte responses: 64 + 8. */
#define SMB2_OUTBUF_RSP_OFFSET	0x48

struct smb2_query_directory_req {
	uint8_t file_information_class;
	uint8_t flags;
	uint32_t file_index;
	struct smb2_file_id file_id;
	uint32_t output_buffer_length;
	struct smb2_blob name;	/* pattern, UTF-16LE bytes, even length */
};

NTSTATUS smb2_query_directory_req_pull(const struct smb2_pdu *pdu,
				       struct smb2_query_directory_req *out);

/*
 * QUERY_DIRECTORY, CHANGE_NOTIFY and QUERY_INFO responses share one
 * layout: StructureSize 9, OutputBufferOffset 0x48, OutputBufferLength,
 * the buffer (empty → a pad byte).
 */
uint8_t *smb2_query_directory_rsp_push(TALLOC_CTX *mem_ctx,
				       const struct smb2_blob *output,
				       size_t *len);
uint8_t *smb2_change_notify_rsp_push(TALLOC_CTX *mem_ctx,
				     const struct smb2_blob *output,
				     size_t *len);
uint8_t *smb2_query_info_rsp_push(TALLOC_CTX *mem_ctx,
				  const struct smb2_blob *output,
				  size_t *len);

/* ------------------------------------------------------------------ */
/* CHANGE_NOTIFY (MS-SMB2 2.2.35)                                       */

#define SMB2_WATCH_TREE	0x0001

struct smb2_change_notify_req {
	uint16_t flags;
	uint32_t output_buffer_length;
	struct smb2_file_id file_id;
	uint32_t completion_filter;
};

NTSTATUS smb2_change_notify_req_pull(const struct smb2_pdu *pdu,
				     struct smb2_change_notify_req *out);

/* FILE_NOTIFY_INFORMATION (MS-FSCC 2.7.1): the output buffer's entries */
#define SMB2_NOTIFY_INFO_HDR_SIZE	12

/* Action */
#define SMB2_NOTIFY_ACTION_ADDED		1
#define SMB2_NOTIFY_ACTION_REMOVED		2
#define SMB2_NOTIFY_ACTION_MODIFIED		3
#define SMB2_NOTIFY_ACTION_RENAMED_OLD_NAME	4
#define SMB2_NOTIFY_ACTION_RENAMED_NEW_NAME	5

struct smb2_notify_info {
	uint32_t action;
	const uint8_t *name;	/* UTF-16LE, relative, '\'-separated */
	size_t name_len;
};

/*
 * The size of a list of list_len bytes once an entry with a name of
 * name_len bytes is appended (the entry that was last gets its padding);
 * from 0, the size of one entry.  SIZE_MAX if that does not fit a size_t.
 */
size_t smb2_notify_info_list_add(size_t list_len, size_t name_len);

/*
 * One entry at buf: NextEntryOffset 0 if last, else the entry's size
 * padded to 4 (the padding zeroed).  Returns the bytes written, padding
 * included; 0 if they do not fit in len or the name cannot be described.
 */
size_t smb2_notify_info_push(const struct smb2_notify_info *in, bool last,
			     uint8_t *buf, size_t len);

/*
 * The entry at *ofs, then *ofs moves to the next one, or to len after
 * the last (for tests and the fuzzer: clients parse this, we build it).
 * A header or name past len, an odd FileNameLength, a NextEntryOffset
 * that is not 4-aligned, points into the entry or past the end →
 * INVALID_PARAMETER.
 */
NTSTATUS smb2_notify_info_pull(const uint8_t *buf, size_t len, size_t *ofs,
			       struct smb2_notify_info *out);

/* ------------------------------------------------------------------ */
/* QUERY_INFO (MS-SMB2 2.2.37, 2.2.38), SET_INFO (2.2.39, 2.2.40)       */

/* InfoType */
#define SMB2_INFO_FILE		0x01
#define SMB2_INFO_FILESYSTEM	0x02
#define SMB2_INFO_SECURITY	0x03
#define SMB2_INFO_QUOTA		0x04

/* QUERY_INFO Flags */
#define SMB2_SL_RESTART_SCAN		0x00000001
#define SMB2_SL_RETURN_SINGLE_ENTRY	0x00000002
#define SMB2_SL_INDEX_SPECIFIED		0x00000004

struct smb2_query_info_req {
	uint8_t info_type;
	uint8_t file_info_class;
	uint32_t output_buffer_length;
	struct smb2_blob input;
	uint32_t additional_information;
	uint32_t flags;
	struct smb2_file_id file_id;
};

NTSTATUS smb2_query_info_req_pull(const struct smb2_pdu *pdu,
				  struct smb2_query_info_req *out);

struct smb2_set_info_req {
	uint8_t info_type;
	uint8_t file_info_class;
	struct smb2_blob buffer;
	uint32_t additional_information;
	struct smb2_file_id file_id;
};

NTSTATUS smb2_set_info_req_pull(const struct smb2_pdu *pdu,
				struct smb2_set_info_req *out);

/* The 2-byte body: StructureSize 2. */
uint8_t *smb2_set_info_rsp_push(TALLOC_CTX *mem_ctx, size_t *len);

#endif
