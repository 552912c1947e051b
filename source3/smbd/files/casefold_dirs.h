/*
 * The names of recently looked-into directories, kept while inotify says
 * they have not changed (casefold_dirs.c says why and how).
 */
#ifndef RINGSMB_CASEFOLD_DIRS_H
#define RINGSMB_CASEFOLD_DIRS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"

struct vfs_fh;

/*
 * dir's entry matching name (casefold_equal; of several the bytewise-
 * least) in *found, or NULL when none matches.  dir is open for reading
 * as the user (that open is the permission check) and st is its statx.
 * Returns false, touching nothing, when dir is not kept and cannot be
 * (its file system is not known to report every change through inotify,
 * no inotify, no memory): the caller then lists dir itself.
 * *status is NO_MEMORY or OK.
 */
bool casefold_dirs_find(TALLOC_CTX *mem_ctx, struct vfs_fh *dir,
			const struct statx *st, const char *name,
			char **found, NTSTATUS *status);

/* What the cache did since the process started (tests, docs). */
struct casefold_dirs_counts {
	uint64_t hits;          /* answered from a kept directory */
	uint64_t lists;         /* directories listed to be kept */
	uint64_t resets;        /* inotify queue overflows */
};
void casefold_dirs_counts(struct casefold_dirs_counts *out);

/* Forget every directory (tests; a queue overflow does the same). */
void casefold_dirs_reset(void);

#endif
