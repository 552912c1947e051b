/*
 * The VFS stack (source3/modules) and its share: opens and namespace
 * operations stay inside it whatever the links say (G10), and the
 * namespace and metadata operations themselves.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <tevent.h>
#include "tests/unit/vfs_test_util.h"

static NTSTATUS try_open(TALLOC_CTX *ctx, struct vfs_handle *vfs,
			 const char *path)
{
	struct vfs_fh *fh = NULL;
	NTSTATUS status = vfs_openat(ctx, vfs, path, O_RDONLY, &fh, NULL);

	TALLOC_FREE(fh);
	return status;
}

/* ---- confinement (RELIABILITY.md item 30, G10) ---- */

static void test_vfs__openat_confined(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	static const char *const refused[] = {
		"..", "../sh2/secret", "d/../../sh2/secret", "/etc/passwd",
		"root/etc/passwd", "up/sh2/secret", "sib/secret",
		"abs", "proc/etc/passwd", "upup/etc/passwd",
	};
	size_t i;

	tree_make(&t);
	tree_link(&t, "/", "root");
	tree_link(&t, "..", "up");
	tree_link(&t, "../../..", "upup");
	tree_link(&t, "../sh2", "sib");
	tree_link(&t, "/proc/self/root", "proc");
	tree_link(&t, "/etc/passwd", "abs");
	tree_link(&t, "d/f", "inside");
	tree_link(&t, "../a", "d/back");
	vfs = connect_share(ctx, ev, t.share, NULL, false);

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		NTSTATUS status = try_open(ctx, vfs, refused[i]);

		if (NT_STATUS_IS_OK(status)) {
			fail_msg("escape not refused: %s", refused[i]);
		}
	}
	assert_true(NT_STATUS_IS_OK(try_open(ctx, vfs, "")));
	assert_true(NT_STATUS_IS_OK(try_open(ctx, vfs, "a")));
	assert_true(NT_STATUS_IS_OK(try_open(ctx, vfs, "inside")));
	assert_true(NT_STATUS_IS_OK(try_open(ctx, vfs, "d/back")));
	assert_true(NT_STATUS_EQUAL(try_open(ctx, vfs, "nope"),
				    NT_STATUS_OBJECT_NAME_NOT_FOUND));
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs__statat_hides_escaping_links(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *root = NULL;
	struct statx st;

	tree_make(&t);
	tree_link(&t, "../sh2/secret", "sib");
	tree_link(&t, "a", "alias");
	vfs = connect_share(ctx, ev, t.share, NULL, false);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "", O_RDONLY,
					       &root, NULL)));
	assert_false(NT_STATUS_IS_OK(vfs_statat(root, "", "sib", &st)));
	assert_true(NT_STATUS_IS_OK(vfs_statat(root, "", "alias", &st)));
	assert_int_equal(st.stx_size, 5);
	assert_true(S_ISREG(st.stx_mode));
	assert_false(NT_STATUS_IS_OK(vfs_statat(root, "", "..", &st)));
	talloc_free(root);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs__unknown_module(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	static const char *const objs[] = { "io_uring", "bogus", NULL };
	struct vfs_handle *vfs = NULL;
	NTSTATUS status = vfs_connect_path(ctx, ev, "sh", "/tmp", objs, true,
					   &vfs);

	assert_false(NT_STATUS_IS_OK(status));
	assert_null(vfs);
	status = vfs_connect_path(ctx, ev, "sh", "/nonexistent/ringsmb",
				  NULL, true, &vfs);
	assert_false(NT_STATUS_IS_OK(status));
	talloc_free(ev);
}

/* ---- the namespace: create, mkdir, rename, link, unlink, confined ---- */

static bool exists_in(const struct tree *t, const char *name)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", t->share, name);
	return lstat(p, &st) == 0;
}

static void test_vfs__namespace_ops(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	struct statx st;

	tree_make(&t);
	vfs = connect_share(ctx, ev, t.share, NULL, false);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "d/new",
					       O_RDWR | O_CREAT | O_EXCL,
					       &fh, &st)));
	assert_int_equal(st.stx_mode & 07777, 0644);
	TALLOC_FREE(fh);
	assert_true(NT_STATUS_EQUAL(vfs_openat(ctx, vfs, "d/new",
					       O_RDWR | O_CREAT | O_EXCL,
					       &fh, NULL),
				    NT_STATUS_OBJECT_NAME_COLLISION));
	assert_true(NT_STATUS_IS_OK(vfs_mkdirat(vfs, "d/sub", 0755)));
	assert_true(NT_STATUS_IS_OK(vfs_renameat(vfs, "d/new", "d/sub/moved",
						 RENAME_NOREPLACE)));
	assert_false(exists_in(&t, "d/new"));
	assert_true(exists_in(&t, "d/sub/moved"));
	assert_true(NT_STATUS_EQUAL(vfs_renameat(vfs, "a", "d/f",
						 RENAME_NOREPLACE),
				    NT_STATUS_OBJECT_NAME_COLLISION));
	assert_true(NT_STATUS_IS_OK(vfs_linkat(vfs, "a", "d/hard")));
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "d/hard", O_RDONLY,
					       &fh, &st)));
	assert_int_equal(st.stx_nlink, 2);
	TALLOC_FREE(fh);
	assert_true(NT_STATUS_EQUAL(vfs_unlinkat(vfs, "d/sub", AT_REMOVEDIR),
				    NT_STATUS_DIRECTORY_NOT_EMPTY));
	assert_true(NT_STATUS_IS_OK(vfs_unlinkat(vfs, "d/sub/moved", 0)));
	assert_true(NT_STATUS_IS_OK(vfs_unlinkat(vfs, "d/sub", AT_REMOVEDIR)));
	assert_false(exists_in(&t, "d/sub"));
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

/* Every namespace op refuses to act outside the share (G10). */
static void test_vfs__namespace_confined(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL;
	char p[256];
	struct stat st;

	tree_make(&t);
	tree_link(&t, "../sh2", "sib");
	tree_link(&t, "/", "root");
	tree_link(&t, "../sh2/created", "dangling_out");
	vfs = connect_share(ctx, ev, t.share, NULL, false);
	assert_false(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "sib/x",
						O_RDWR | O_CREAT, &fh, NULL)));
	assert_false(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "dangling_out",
						O_RDWR | O_CREAT, &fh, NULL)));
	assert_false(NT_STATUS_IS_OK(vfs_mkdirat(vfs, "sib/dir", 0755)));
	assert_false(NT_STATUS_IS_OK(vfs_mkdirat(vfs, "root/tmp/x", 0755)));
	assert_false(NT_STATUS_IS_OK(vfs_unlinkat(vfs, "sib/secret", 0)));
	assert_false(NT_STATUS_IS_OK(vfs_renameat(vfs, "sib/secret", "stolen",
						  0)));
	assert_false(NT_STATUS_IS_OK(vfs_renameat(vfs, "a", "sib/planted",
						  0)));
	assert_false(NT_STATUS_IS_OK(vfs_linkat(vfs, "sib/secret", "hl")));
	assert_false(NT_STATUS_IS_OK(vfs_unlinkat(vfs, "..", 0)));
	assert_false(NT_STATUS_IS_OK(vfs_mkdirat(vfs, "d/..", 0755)));
	/* the link itself is renamed, not what it points to */
	assert_true(NT_STATUS_IS_OK(vfs_renameat(vfs, "sib", "sib2", 0)));
	snprintf(p, sizeof(p), "%s/secret", t.sib);
	assert_int_equal(stat(p, &st), 0);
	snprintf(p, sizeof(p), "%s/created", t.sib);
	assert_int_not_equal(stat(p, &st), 0);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs__metadata_ops(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *fh = NULL, *pfh = NULL;
	struct timespec ts[2] = {
		{ .tv_sec = 1000000000, .tv_nsec = 5 },
		{ .tv_sec = 1200000000, .tv_nsec = 7 },
	};
	struct statx st;
	char buf[16];
	size_t got = 0;
	NTSTATUS status;

	tree_make(&t);
	vfs = connect_share(ctx, ev, t.share, NULL, false);
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_RDWR, &fh,
					       NULL)));
	assert_true(NT_STATUS_IS_OK(vfs_ftruncate(fh, 100)));
	assert_true(NT_STATUS_IS_OK(vfs_fstat(fh, &st)));
	assert_int_equal(st.stx_size, 100);
	assert_true(NT_STATUS_EQUAL(vfs_ftruncate(fh, UINT64_MAX),
				    NT_STATUS_INVALID_PARAMETER));
	assert_true(NT_STATUS_IS_OK(vfs_fallocate(fh, 0, 0, 200)));
	assert_true(NT_STATUS_IS_OK(vfs_fstat(fh, &st)));
	assert_int_equal(st.stx_size, 200);
	/* O_PATH handles: times and xattrs still work */
	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_PATH, &pfh,
					       NULL)));
	assert_true(NT_STATUS_IS_OK(vfs_fntimes(pfh, ts)));
	assert_true(NT_STATUS_IS_OK(vfs_fstat(fh, &st)));
	assert_int_equal(st.stx_mtime.tv_sec, 1200000000);
	assert_int_equal(st.stx_mtime.tv_nsec, 7);
	assert_int_equal(st.stx_atime.tv_sec, 1000000000);
	status = vfs_fsetxattr(pfh, "user.ringsmb.test", "0x20", 4, 0);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED)) {
		/* no user xattrs on this file system */
		skip();
	}
	assert_true(NT_STATUS_IS_OK(status));
	assert_true(NT_STATUS_IS_OK(vfs_fgetxattr(fh, "user.ringsmb.test",
						  buf, sizeof(buf), &got)));
	assert_int_equal(got, 4);
	assert_memory_equal(buf, "0x20", 4);
	assert_false(NT_STATUS_IS_OK(vfs_fgetxattr(pfh, "user.none", buf,
						   sizeof(buf), &got)));
	TALLOC_FREE(pfh);
	TALLOC_FREE(fh);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_vfs__openat_confined),
		T(test_vfs__statat_hides_escaping_links),
		T(test_vfs__unknown_module),
		T(test_vfs__namespace_ops),
		T(test_vfs__namespace_confined),
		T(test_vfs__metadata_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
