/*
 * Opening by 8.3 short name (docs/vfs.md, "8.3 names"): a CREATE of a
 * missing name that has the shape of the short names ringsmb hands out
 * (lib/smb2/shortname.c) finds the directory entry whose short name it
 * is; a short name ringsmb reported whose file has gone since stands
 * for its long name still (a bounded cache of recent answers, as
 * Samba's mangle cache), so a client that deletes by short name and
 * recreates by it gets the long name back (smbtorture smb2.mangle).
 */
#ifndef RINGSMB_SMBD_MANGLE_H
#define RINGSMB_SMBD_MANGLE_H

#include <stdbool.h>
#include <talloc.h>
#include "source3/smbd/smbd.h"

/* Entries the cache keeps, the oldest going first. */
#define SMBD_MANGLE_CACHE_SIZE	1024

/* name (one component) has the shape of a short name ringsmb makes */
bool smbd_mangle_is_short(const char *name);

/*
 * The client learned path's short name (FileAlternateNameInformation):
 * remember it, so the short name keeps naming it.
 */
void smbd_mangle_remember(struct smbd_tcon *tcon, const char *path);

/*
 * path's last component is a short name: *out is the path of the entry
 * it names (*on_disk true), or of the long name it was handed out for
 * (*on_disk false: the file is gone), or NULL when it names nothing.
 * Errors: NO_MEMORY only.
 */
NTSTATUS smbd_mangle_resolve(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			     const char *path, char **out, bool *on_disk);

#endif
