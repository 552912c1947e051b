/*
 * Directory enumeration for QUERY_DIRECTORY (dir.c).
 */
#ifndef RINGSMB_SMBD_DIR_H
#define RINGSMB_SMBD_DIR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "lib/smb2/fileinfo.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/open_files.h"

struct smbd_dir_query {
	uint8_t info_class;
	uint8_t flags;                  /* SMB2_RESTART_SCANS ... */
	const char *pattern;            /* UTF-8, "" = "*" */
	uint32_t max_len;               /* OutputBufferLength */
};

/*
 * One QUERY_DIRECTORY call on an open directory: fills *out (talloc'd on
 * mem_ctx) with as many entries as fit, resuming where the last call
 * stopped.  NO_SUCH_FILE when nothing ever matched, NO_MORE_FILES at the
 * end, INFO_LENGTH_MISMATCH when not even one entry fits.
 */
NTSTATUS smbd_dir_query(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			const struct smbd_dir_query *q, uint8_t **out,
			size_t *out_len);

#endif
