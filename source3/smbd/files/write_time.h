/*
 * The delayed write-time update of Windows (MS-FSA 2.1.4.17 and what
 * Windows and Samba do, checked by smbtorture smb2.timestamps):
 * a handle's first WRITE does not move the file's LastWriteTime at once;
 * 2 seconds later it becomes the time then, and later WRITEs through
 * the same handle do not move it again until the handle closes, when it
 * becomes the close time if anything was written since.  FLUSH, setting
 * the end of file and any SET_INFO FileBasicInformation bring a pending
 * update forward to now.  A handle that set LastWriteTime itself never
 * updates it.  Linux moves mtime on every write, so while such an
 * update is pending or held the time clients see is kept here (per
 * file) and put on disk when the last handle holding it closes.
 */
#ifndef RINGSMB_SMBD_WRITE_TIME_H
#define RINGSMB_SMBD_WRITE_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/smb2/fileinfo.h"
#include "source3/smbd/smbd.h"

/* The delay of the first update after a handle's first WRITE, in us. */
#define SMBD_WRITE_TIME_DELAY_US	2000000

/* Before a WRITE through open is sent to the file (commands/write.c). */
void smbd_write_time_before_write(struct smbd_open *open);

/* FLUSH, SET_INFO of the end of file or of FileBasicInformation. */
void smbd_write_time_flush(struct smbd_open *open);

/* SET_INFO FileBasicInformation set LastWriteTime through open to nt. */
void smbd_write_time_user_set(struct smbd_open *open, uint64_t nt);

/* CLOSE of open (before its file detaches). */
void smbd_write_time_close(struct smbd_open *open);

/*
 * The write time (and ChangeTime, which follows it) clients see for the
 * file st is the statx of, in m: what is held here, if anything.
 */
void smbd_write_time_meta(struct smbd_server *server,
			  const struct statx *st, struct smb2_file_meta *m);

#endif
