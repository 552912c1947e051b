/*
 * Helpers shared by the test_vfs_* programs (SHARED in tests/unit/wscript
 * links vfs_test_util.c into each): a scratch tree holding a share and a
 * sibling directory outside it, and a VFS connected to the share.
 */
#ifndef RINGSMB_TESTS_UNIT_VFS_TEST_UTIL_H
#define RINGSMB_TESTS_UNIT_VFS_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <tevent.h>
#include "tests/unit/unit.h"
#include "source3/modules/vfs.h"

/* A scratch tree: base/sh is the share, base/sh2 a sibling. */
struct tree {
	char base[64];
	char share[96];
	char sib[96];
};

/* path (created or truncated) holding the len bytes of data. */
void write_file(const char *path, const void *data, size_t len);
/* A fresh tree: sh/a ("hello"), sh/d/f ("inner") and sh2/secret. */
void tree_make(struct tree *t);
/* The symbolic link sh/name pointing at target. */
void tree_link(struct tree *t, const char *target, const char *name);
void tree_remove(struct tree *t);
/* The share at path with the VFS modules objects; fails the test if not. */
struct vfs_handle *connect_share(TALLOC_CTX *ctx,
				 struct tevent_context *ev,
				 const char *path,
				 const char *const *objects,
				 bool uring);

/* Runs the loop until req's callback ran (never inside its _send). */
void wait_done(struct tevent_context *ev, struct tevent_req *req);

#endif
