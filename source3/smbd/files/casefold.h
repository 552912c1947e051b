/*
 * Case-insensitive name lookup (smb.conf "case sensitive" and "preserve
 * case"; docs/vfs.md "Case-insensitive lookup").
 *
 * The rule: two names match when they have the same number of characters
 * and each pair has the same key, key(c) = towlower(towupper(c)) in
 * glibc's C.UTF-8 locale (so ASCII, Latin-1 and every one-to-one mapping
 * glibc knows; no expansions such as sharp s to "ss").  A byte that is
 * not valid UTF-8 matches only itself.
 */
#ifndef RINGSMB_CASEFOLD_H
#define RINGSMB_CASEFOLD_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"

struct lp_share;
struct vfs_handle;

/* Do lookups in this share ignore case?  (auto and no: yes, for SMB2) */
bool casefold_share(const struct lp_share *share);
/* Are new names kept as the client spelled them? */
bool casefold_preserve(const struct lp_share *share);

/* a and b (UTF-8 names) are equal under the rule above */
bool casefold_equal(const char *a, const char *b);

/* A hash of name's keys: names that are casefold_equal hash alike */
uint32_t casefold_hash(const char *name);

/* name with each character lowered (towlower), for "preserve case = no" */
char *casefold_lower(TALLOC_CTX *mem_ctx, const char *name);

/*
 * The on-disk spelling of a share-relative path: each component that
 * does not exist as spelled is looked for in its parent directory
 * (opened beneath the share root through the VFS, one scan per
 * component); of several matches the bytewise-least wins.  From the
 * first component with no match on, or one that cannot be looked into
 * (not a directory, a link leaving the share, no permission), the rest
 * is kept as spelled: the caller's open then fails as it would have.
 * Errors: NO_MEMORY only.
 */
NTSTATUS casefold_resolve(TALLOC_CTX *mem_ctx, struct vfs_handle *vfs,
			  const char *path, char **out);

#endif
