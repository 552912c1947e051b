/*
 * Unit tests for case-insensitive lookup (source3/smbd/files/casefold.c): the
 * comparison, and the component resolver against a scratch share through
 * the VFS.  The .c is included because smbd is a program.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "source3/smbd/files/casefold.c"
#include "source3/smbd/files/casefold_dirs.c"
#include "source3/smbd/files/local_fs.c"
#include "tests/unit/unit.h"

/* base/sh is the share, base/sh2 a sibling outside it */
struct tree {
	char base[64];
	char share[96];
	TALLOC_CTX *mem;        /* the event context and the VFS */
};

static void touch(const struct tree *t, const char *name)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", t->share, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static void mkdir_in(const struct tree *t, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", t->share, name);
	assert_int_equal(mkdir(p, 0755), 0);
}

static struct vfs_handle *tree_make(TALLOC_CTX *ctx, struct tree *t)
{
	struct tevent_context *ev = NULL;
	struct vfs_handle *vfs = NULL;
	char p[256];

	t->mem = talloc_new(ctx);
	ev = tevent_context_init(t->mem);
	assert_non_null(ev);
	strcpy(t->base, "/tmp/ringsmb-cf-XXXXXX");
	assert_non_null(mkdtemp(t->base));
	snprintf(t->share, sizeof(t->share), "%s/sh", t->base);
	assert_int_equal(mkdir(t->share, 0755), 0);
	snprintf(p, sizeof(p), "%s/sh2", t->base);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/sh2/secret", t->base);
	assert_int_equal(close(open(p, O_WRONLY | O_CREAT, 0644)), 0);
	mkdir_in(t, "dir");
	mkdir_in(t, "dir/sub");
	touch(t, "dir/sub/file.bin");
	assert_true(NT_STATUS_IS_OK(vfs_connect_path(t->mem, ev, "sh", t->share,
						     NULL, false, &vfs)));
	return vfs;
}

static void tree_remove(struct tree *t)
{
	char cmd[160];

	TALLOC_FREE(t->mem);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->base);
	assert_int_equal(system(cmd), 0);
}

static void expect(TALLOC_CTX *ctx, struct vfs_handle *vfs, const char *in,
		   const char *want)
{
	char *out = NULL;

	assert_true(NT_STATUS_IS_OK(casefold_resolve(ctx, vfs, in, &out)));
	assert_string_equal(out, want);
	talloc_free(out);
}

static void test_casefold__equal(void **state)
{
	(void)state;
	assert_true(casefold_equal("readme.txt", "README.TXT"));
	assert_true(casefold_equal("", ""));
	assert_false(casefold_equal("readme", "readme."));
	assert_false(casefold_equal("a", "b"));
	assert_false(casefold_equal("a[", "A{"));       /* not letters */
	/* Latin-1: E acute, Y diaeresis (upper is outside Latin-1) */
	assert_true(casefold_equal("\xc3\x89t\xc3\xa9", "\xc3\xa9T\xc3\x89"));
	assert_true(casefold_equal("\xc3\xbf", "\xc5\xb8"));
	/* Greek final sigma, sigma and capital sigma share a key */
	assert_true(casefold_equal("\xcf\x82", "\xce\xa3"));
	assert_true(casefold_equal("\xcf\x83", "\xce\xa3"));
	/* Cyrillic de; Kelvin sign is k */
	assert_true(casefold_equal("\xd0\x94", "\xd0\xb4"));
	assert_true(casefold_equal("\xe2\x84\xaa", "k"));
	/* no expansions: sharp s is not "ss" */
	assert_false(casefold_equal("stra\xc3\x9f" "e", "STRASSE"));
	/* a byte that is not UTF-8 matches only itself */
	assert_true(casefold_equal("\xff" "a", "\xff" "A"));
	assert_false(casefold_equal("\xff", "\xfe"));
	assert_false(casefold_equal("\xc3", "\xc3\x89"));
}

static void test_casefold__lower(void **state)
{
	char *s = casefold_lower(*state, "\xc3\x89" "COLE.TXT\xff");

	assert_string_equal(s, "\xc3\xa9" "cole.txt\xff");
	talloc_free(s);
}

static void test_casefold__resolve_hits(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tree t;
	struct vfs_handle *vfs = tree_make(ctx, &t);

	expect(ctx, vfs, "dir/sub/file.bin", "dir/sub/file.bin");
	expect(ctx, vfs, "DIR/Sub/FILE.BIN", "dir/sub/file.bin");
	expect(ctx, vfs, "", "");
	/* several that differ only in case: the bytewise-least */
	touch(&t, "dir/readme");
	touch(&t, "dir/Readme");
	touch(&t, "dir/README");
	expect(ctx, vfs, "dir/rEADME", "dir/README");
	expect(ctx, vfs, "Dir/readme", "dir/readme");   /* exact wins */
	tree_remove(&t);
}

static void test_casefold__resolve_missing(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tree t;
	struct vfs_handle *vfs = tree_make(ctx, &t);

	/* a missing middle component keeps the rest as spelled */
	expect(ctx, vfs, "DIR/None/FILE.BIN", "dir/None/FILE.BIN");
	expect(ctx, vfs, "X/Sub", "X/Sub");
	/* a new name under existing directories */
	expect(ctx, vfs, "Dir/SUB/New.Txt", "dir/sub/New.Txt");
	/* a file used as a directory is not looked into */
	expect(ctx, vfs, "dir/sub/FILE.BIN/x", "dir/sub/file.bin/x");
	tree_remove(&t);
}

static NTSTATUS try_open(TALLOC_CTX *ctx, struct vfs_handle *vfs,
			 const char *path)
{
	struct vfs_fh *fh = NULL;
	NTSTATUS status = vfs_openat(ctx, vfs, path, O_RDONLY, &fh, NULL);

	TALLOC_FREE(fh);
	return status;
}

/* RELIABILITY.md item 30 / G10: a folded match never leaves the share */
static void test_casefold__resolve_confined(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tree t;
	struct vfs_handle *vfs = tree_make(ctx, &t);
	char p[512], target[256];
	char *out = NULL;

	snprintf(target, sizeof(target), "%s/sh2", t.base);
	snprintf(p, sizeof(p), "%s/out", t.share);
	assert_int_equal(symlink(target, p), 0);
	snprintf(p, sizeof(p), "%s/up", t.share);
	assert_int_equal(symlink("../sh2", p), 0);
	snprintf(p, sizeof(p), "%s/root", t.share);
	assert_int_equal(symlink("/", p), 0);
	snprintf(p, sizeof(p), "%s/in", t.share);
	assert_int_equal(symlink("dir/sub", p), 0);
	/* the link is found, but nothing beyond it is listed or opened */
	expect(ctx, vfs, "OUT/SECRET", "out/SECRET");
	expect(ctx, vfs, "Up/Secret", "up/Secret");
	expect(ctx, vfs, "ROOT/ETC/PASSWD", "root/ETC/PASSWD");
	assert_false(NT_STATUS_IS_OK(try_open(ctx, vfs, "out/SECRET")));
	assert_false(NT_STATUS_IS_OK(try_open(ctx, vfs, "up/Secret")));
	assert_false(NT_STATUS_IS_OK(try_open(ctx, vfs, "root/ETC/PASSWD")));
	/* even spelled right, a name beyond an escaping link stays refused */
	assert_true(NT_STATUS_IS_OK(casefold_resolve(ctx, vfs, "out/secret",
						     &out)));
	assert_false(NT_STATUS_IS_OK(try_open(ctx, vfs, out)));
	TALLOC_FREE(out);
	/* a link that stays inside works */
	expect(ctx, vfs, "IN/File.Bin", "in/file.bin");
	assert_true(NT_STATUS_IS_OK(try_open(ctx, vfs, "in/file.bin")));
	/* '..' never comes from a scan */
	expect(ctx, vfs, "dir/..", "dir/..");
	tree_remove(&t);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * 10,000 entries: a miss costs one scan per missing component (linear),
 * printed for docs/vfs.md; bounded generously for sanitizer builds.
 */
static void test_casefold__resolve_long_dir(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tree t;
	struct vfs_handle *vfs = tree_make(ctx, &t);
	char name[64];
	double t0, miss, hit;
	int i;

	for (i = 0; i < 10000; i++) {
		snprintf(name, sizeof(name), "dir/entry-%05d.dat", i);
		touch(&t, name);
	}
	t0 = now_ms();
	expect(ctx, vfs, "dir/NOT-THERE.DAT", "dir/NOT-THERE.DAT");
	miss = now_ms() - t0;
	t0 = now_ms();
	expect(ctx, vfs, "DIR/ENTRY-09999.DAT", "dir/entry-09999.dat");
	hit = now_ms() - t0;
	t0 = now_ms();
	expect(ctx, vfs, "dir/entry-09999.dat", "dir/entry-09999.dat");
	print_message("casefold: 10000 entries: miss %.2f ms, folded hit "
		      "%.2f ms, exact %.3f ms\n", miss, hit, now_ms() - t0);
	assert_true(miss < 2000 && hit < 2000);
	tree_remove(&t);
}

/* Is t's share on a file system whose directories casefold_dirs.c keeps? */
static bool tree_kept(const struct tree *t)
{
	int fd = open(t->share, O_RDONLY | O_DIRECTORY);
	bool kept;

	assert_true(fd >= 0);
	kept = smbd_local_fs(fd);
	close(fd);
	return kept;
}

/* A tree whose folders are kept, the cache emptied; else the test skips */
static struct vfs_handle *kept_tree(TALLOC_CTX *ctx, struct tree *t,
				    bool skip_anyway)
{
	struct vfs_handle *vfs = tree_make(ctx, t);

	if (!tree_kept(t) || skip_anyway) {
		tree_remove(t);
		skip();
	}
	casefold_dirs_reset();
	return vfs;
}

static void in_share(const struct tree *t, const char *name, char *p,
		     size_t len)
{
	snprintf(p, len, "%s/%s", t->share, name);
}

static void local_rename(const struct tree *t, const char *from,
			 const char *to)
{
	char a[512], b[512];

	in_share(t, from, a, sizeof(a));
	in_share(t, to, b, sizeof(b));
	assert_int_equal(rename(a, b), 0);
}

/*
 * A kept directory follows every change made beside the server: create,
 * rename within and across directories, link, unlink, mkdir, rmdir; and
 * the second miss in a directory is a hit, not a listing.
 */
static void test_casefold__kept_dir_follows_changes(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tree t;
	struct vfs_handle *vfs = tree_make(ctx, &t);
	struct casefold_dirs_counts c0, c1;
	char a[512], b[512];
	bool kept = tree_kept(&t);

	casefold_dirs_reset();
	casefold_dirs_counts(&c0);
	touch(&t, "dir/Alpha");
	expect(ctx, vfs, "dir/ALPHA", "dir/Alpha");
	expect(ctx, vfs, "dir/alpha", "dir/Alpha");
	expect(ctx, vfs, "dir/sub/FILE.BIN", "dir/sub/file.bin");
	casefold_dirs_counts(&c1);
	assert_int_equal(c1.lists - c0.lists, kept ? 2 : 0);
	assert_int_equal(c1.hits - c0.hits, kept ? 1 : 0);

	local_rename(&t, "dir/Alpha", "dir/Beta");
	expect(ctx, vfs, "dir/ALPHA", "dir/ALPHA");
	expect(ctx, vfs, "dir/beta", "dir/Beta");
	in_share(&t, "dir/Beta", a, sizeof(a));
	assert_int_equal(unlink(a), 0);
	expect(ctx, vfs, "dir/BETA", "dir/BETA");
	mkdir_in(&t, "dir/Gamma");
	expect(ctx, vfs, "dir/gamma/x", "dir/Gamma/x");
	in_share(&t, "dir/sub/file.bin", a, sizeof(a));
	in_share(&t, "dir/Linked", b, sizeof(b));
	assert_int_equal(link(a, b), 0);
	expect(ctx, vfs, "dir/LINKED", "dir/Linked");
	/* out of one kept directory into another */
	local_rename(&t, "dir/sub/file.bin", "dir/Moved.bin");
	expect(ctx, vfs, "dir/sub/FILE.BIN", "dir/sub/FILE.BIN");
	expect(ctx, vfs, "dir/moved.BIN", "dir/Moved.bin");
	/* a kept directory removed and made again is listed afresh */
	in_share(&t, "dir/Gamma", a, sizeof(a));
	expect(ctx, vfs, "dir/gamma/NEW", "dir/Gamma/NEW");
	assert_int_equal(rmdir(a), 0);
	mkdir_in(&t, "dir/Gamma");
	touch(&t, "dir/Gamma/New");
	expect(ctx, vfs, "dir/gamma/NEW", "dir/Gamma/New");
	/* case variants made beside a kept directory: the least still wins */
	touch(&t, "dir/Zed");
	expect(ctx, vfs, "dir/zED", "dir/Zed");
	touch(&t, "dir/ZED");
	expect(ctx, vfs, "dir/zED", "dir/ZED");
	in_share(&t, "dir/ZED", a, sizeof(a));
	assert_int_equal(unlink(a), 0);
	expect(ctx, vfs, "dir/zED", "dir/Zed");
	casefold_dirs_counts(&c1);
	assert_true(kept ? c1.hits - c0.hits >= 10 : c1.hits == c0.hits);
	tree_remove(&t);
}

/* More changes than inotify queues: everything is forgotten, not wrong */
static void test_casefold__kept_dir_overflow(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct casefold_dirs_counts c0, c1;
	char name[64];
	long queued = 16384;
	FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	long i;

	if (f != NULL) {
		assert_int_equal(fscanf(f, "%ld", &queued), 1);
		fclose(f);
	}
	vfs = kept_tree(ctx, &t, queued > 100000);
	expect(ctx, vfs, "dir/X", "dir/X");
	casefold_dirs_counts(&c0);
	for (i = 0; i < queued + 10; i++) {
		snprintf(name, sizeof(name), "dir/f%ld", i);
		touch(&t, name);
	}
	touch(&t, "dir/Last");
	expect(ctx, vfs, "dir/LAST", "dir/Last");
	expect(ctx, vfs, "dir/F7", "dir/f7");
	casefold_dirs_counts(&c1);
	assert_int_equal(c1.resets - c0.resets, 1);
	assert_int_equal(c1.lists - c0.lists, 1);
	tree_remove(&t);
}

/* More directories than are kept: the least recently used is listed again */
static void test_casefold__kept_dirs_bounded(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tree t;
	struct vfs_handle *vfs = kept_tree(ctx, &t, false);
	struct casefold_dirs_counts c0, c1;
	char name[64], want[64];
	int i;

	casefold_dirs_counts(&c0);
	for (i = 0; i < CFD_MAX_DIRS + 4; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		mkdir_in(&t, name);
		snprintf(name, sizeof(name), "D%d/X", i);
		snprintf(want, sizeof(want), "d%d/X", i);
		expect(ctx, vfs, name, want);
	}
	assert_true(cfd.ndirs <= CFD_MAX_DIRS);
	expect(ctx, vfs, "d0/Y", "d0/Y");       /* d0 was let go */
	casefold_dirs_counts(&c1);
	/* the share root and each dN, then d0 again */
	assert_int_equal(c1.lists - c0.lists, 1 + CFD_MAX_DIRS + 4 + 1);
	tree_remove(&t);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_casefold__equal),
		T(test_casefold__lower),
		T(test_casefold__resolve_hits),
		T(test_casefold__resolve_missing),
		T(test_casefold__resolve_confined),
		T(test_casefold__resolve_long_dir),
		T(test_casefold__kept_dir_follows_changes),
		T(test_casefold__kept_dir_overflow),
		T(test_casefold__kept_dirs_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
