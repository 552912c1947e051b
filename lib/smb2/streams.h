/*
 * Named streams on the wire (streams.c): the syntax of a stream name in
 * a CREATE or rename name (MS-FSCC 2.1.5.3 "Streams") and
 * FileStreamInformation (MS-FSCC 2.4.43).  Pure functions, no I/O.
 */
#ifndef RINGSMB_SMB2_STREAMS_H
#define RINGSMB_SMB2_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"

/* A stream name is at most 255 UTF-16 code units, as a file name. */
#define SMB2_STREAM_NAME_MAX_UNITS 255

struct smb2_stream_name {
	const char *name;       /* into the input; len 0: the default stream */
	size_t len;             /* bytes of UTF-8 */
	bool has_type;          /* ":$DATA" was spelled out */
};

/*
 * s[0..len) is what follows the first ':' of a name's last component
 * (UTF-8, need not be NUL-terminated): "name", "name:$DATA" (type
 * case-insensitive) or ":$DATA", the default stream.  Anything else is
 * OBJECT_NAME_INVALID: "" ("x:"), "name:", a type other than $DATA,
 * more colons, '/', '\' or NUL in the name, broken UTF-8, more than 255
 * UTF-16 units.  Windows allows every other character, control
 * characters and wildcards included (smbtorture smb2.streams.names2).
 */
NTSTATUS smb2_stream_name_parse(const char *s, size_t len,
				struct smb2_stream_name *out);

/* One entry of FileStreamInformation. */
struct smb2_stream_entry {
	const char *name;       /* UTF-8, without the ':' and ":$DATA" */
	uint64_t size;
	uint64_t allocation_size;
};

/*
 * FileStreamInformation (MS-FSCC 2.4.43) of n entries, each named
 * ":<name>:$DATA" (the default stream's name is empty: "::$DATA"),
 * 8-byte aligned, the last with NextEntryOffset 0.  More than max_len
 * is cut to max_len with BUFFER_OVERFLOW, as Windows and Samba answer
 * (smbtorture smb2.getinfo.qfile_buffercheck).  n == 0 is an empty
 * buffer.
 */
NTSTATUS smb2_stream_info_push(TALLOC_CTX *mem_ctx,
			       const struct smb2_stream_entry *e, size_t n,
			       uint32_t max_len, uint8_t **out,
			       size_t *out_len);

#endif
