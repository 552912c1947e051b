/*
 * Client names to share-relative paths and back (filename.c).
 */
#ifndef RINGSMB_SMBD_FILENAME_H
#define RINGSMB_SMBD_FILENAME_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "lib/smb2/fileinfo.h"
#include "source3/smbd/smbd.h"

/*
 * A CREATE name (UTF-16LE) as a share-relative, '/'-separated UTF-8 path
 * ("" for the root), checked the way Windows and Samba check it:
 *   leading '\'                           INVALID_PARAMETER
 *   NUL, bad UTF-16                        INVALID_PARAMETER
 *   empty component, wildcards,
 *   control characters, '/', too long,
 *   `..` above the root, bad stream syntax OBJECT_NAME_INVALID
 *   a named stream (x:s, x:s:$DATA)        OBJECT_NAME_NOT_FOUND
 * `x::$DATA` names the default stream of x (*is_stream set).  Stream
 * syntax: lib/smb2/streams.h.  A `.`
 * component is dropped (`d\.\f` is `d/f`) and `..` that stays inside
 * the share is resolved here; symlinks are left to the VFS.
 */
NTSTATUS smbd_filename_convert(TALLOC_CTX *mem_ctx,
			       const struct smb2_blob *name16, char **path,
			       bool *is_stream);

/*
 * The same, with named streams: `x:s` and `x:s:$DATA` give path x and
 * *stream "s" (on mem_ctx; NULL for none or the default stream).
 */
NTSTATUS smbd_filename_convert_stream(TALLOC_CTX *mem_ctx,
				      const struct smb2_blob *name16,
				      char **path, bool *is_stream,
				      char **stream);

/* The last component of a path ("" for the root). */
const char *smbd_filename_base(const char *path);

/* "\dir\file" in UTF-16LE, as FileNameInformation carries it. */
NTSTATUS smbd_filename_wire(TALLOC_CTX *mem_ctx, const char *path,
			    struct smb2_name16 *out);

#endif
