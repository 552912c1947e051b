/*
 * The open-file table (open_files.c): opens by persistent and volatile id,
 * and their metadata.
 */
#ifndef RINGSMB_SMBD_OPEN_FILES_H
#define RINGSMB_SMBD_OPEN_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "lib/smb2/fileinfo.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/dosmode.h"

/*
 * Opens per tree connect (docs/architecture.md, "Limits"); then
 * TOO_MANY_OPENED_FILES
 */
#define SMBD_MAX_OPENS_PER_TCON 16384

struct smbd_open *smbd_open_new(struct smbd_tcon *tcon);
struct smbd_open *smbd_open_find(struct smbd_tcon *tcon, uint64_t persistent,
				 uint64_t volatile_id);

/* Fills what the encoders need from statx (DOS attributes as Samba). */
void smbd_meta_from_statx(const struct statx *st, const char *base,
			  struct smb2_file_meta *m);

/* Meta of an open, including the per-open fields (access, mode). */
NTSTATUS smbd_open_meta(struct smbd_open *open, struct smb2_file_meta *m);

#endif
