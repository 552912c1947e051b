/*
 * Named streams through the VFS stack (source3/modules/vfs_stream.c,
 * vfs_streams_xattr.c): Samba's on-disk layout, stream handles as their
 * own objects, the stack without the module, and vfs_io_uring above it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <tevent.h>
#include "tests/unit/vfs_test_util.h"

static const char *const sx[] = { "streams_xattr", NULL };
static const char *const uring_sx[] = { "io_uring", "streams_xattr", NULL };

static NTSTATUS put(struct tevent_context *ev, struct vfs_fh *fh,
		    const char *data, uint64_t off)
{
	struct tevent_req *req = vfs_pwrite_send(fh, ev, fh, data,
						 strlen(data), off);
	size_t n = 0;
	NTSTATUS status;

	wait_done(ev, req);
	status = vfs_pwrite_recv(req, &n);
	talloc_free(req);
	return status;
}

static size_t get(struct tevent_context *ev, struct vfs_fh *fh, char *buf,
		  size_t len, uint64_t off)
{
	struct tevent_req *req = vfs_pread_send(fh, ev, fh, buf, len, off);
	size_t n = 0;

	wait_done(ev, req);
	assert_true(NT_STATUS_IS_OK(vfs_pread_recv(req, &n)));
	talloc_free(req);
	return n;
}

static ssize_t disk_value(struct tree *t, const char *xname, char *buf,
			  size_t len)
{
	char p[160];

	snprintf(p, sizeof(p), "%s/a", t->share);
	return getxattr(p, xname, buf, len);
}

static struct vfs_fh *open_base(TALLOC_CTX *ctx, struct vfs_handle *vfs)
{
	struct vfs_fh *base = NULL;

	assert_true(NT_STATUS_IS_OK(vfs_openat(ctx, vfs, "a", O_PATH, &base,
					       NULL)));
	return base;
}

static void run_layout(TALLOC_CTX *ctx, const char *const *objects,
		       bool uring)
{
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *base = NULL, *s = NULL;
	struct statx st, bst;
	bool created = false;
	char buf[64];

	tree_make(&t);
	vfs = connect_share(ctx, ev, t.share, objects, uring);
	assert_true(vfs->streams);
	base = open_base(ctx, vfs);
	assert_true(NT_STATUS_EQUAL(vfs_stream_open(ctx, base, "MyStream", 0,
						    &s, &st, &created),
				    NT_STATUS_OBJECT_NAME_NOT_FOUND));
	assert_true(NT_STATUS_IS_OK(vfs_stream_open(ctx, base, "MyStream",
						    O_CREAT, &s, &st,
						    &created)));
	assert_true(created);
	assert_int_equal(st.stx_size, 0);
	assert_true(S_ISREG(st.stx_mode));
	assert_true(NT_STATUS_IS_OK(vfs_fstat(base, &bst)));
	assert_true(st.stx_ino != bst.stx_ino);
	/* one NUL for an empty stream, Samba's layout */
	assert_int_equal(disk_value(&t, "user.DosStream.MyStream:$DATA",
				    buf, sizeof(buf)), 1);
	assert_true(NT_STATUS_IS_OK(put(ev, s, "hello", 0)));
	assert_true(NT_STATUS_IS_OK(put(ev, s, "XY", 7)));
	assert_int_equal(disk_value(&t, "user.DosStream.MyStream:$DATA",
				    buf, sizeof(buf)), 10);
	assert_memory_equal(buf, "hello\0\0XY\0", 10);
	assert_int_equal(get(ev, s, buf, sizeof(buf), 1), 8);
	assert_memory_equal(buf, "ello\0\0XY", 8);
	assert_int_equal(get(ev, s, buf, sizeof(buf), 9), 0);
	/* the file's own data is untouched */
	assert_true(NT_STATUS_IS_OK(vfs_fstat(base, &bst)));
	assert_int_equal(bst.stx_size, 5);
	assert_true(NT_STATUS_IS_OK(vfs_ftruncate(s, 3)));
	assert_true(NT_STATUS_IS_OK(vfs_fstat(s, &st)));
	assert_int_equal(st.stx_size, 3);
	talloc_free(s);
	talloc_free(base);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

static void test_vfs_streams__layout(void **state)
{
	run_layout(*state, sx, false);
}

/* vfs_io_uring on top passes stream handles down */
static void test_vfs_streams__under_io_uring(void **state)
{
	run_layout(*state, uring_sx, true);
}

static void test_vfs_streams__names_list_rename(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *base = NULL, *s = NULL, *s2 = NULL;
	struct vfs_stream *list = NULL;
	struct statx st;
	bool created = false;
	size_t n = 0;
	char buf[8];
	char longname[240];

	tree_make(&t);
	vfs = connect_share(ctx, ev, t.share, sx, false);
	base = open_base(ctx, vfs);
	assert_true(NT_STATUS_IS_OK(vfs_stream_open(ctx, base, "One", O_CREAT,
						    &s, &st, &created)));
	/* another case is the same stream, with its stored spelling */
	assert_true(NT_STATUS_IS_OK(vfs_stream_open(ctx, base, "oNE", O_CREAT,
						    &s2, &st, &created)));
	assert_false(created);
	assert_string_equal(s2->stream, "One");
	TALLOC_FREE(s2);
	assert_true(NT_STATUS_EQUAL(vfs_stream_open(ctx, base, "one",
						    O_CREAT | O_EXCL, &s2, &st,
						    &created),
				    NT_STATUS_OBJECT_NAME_COLLISION));
	assert_true(NT_STATUS_IS_OK(put(ev, s, "12", 0)));
	assert_true(NT_STATUS_IS_OK(vfs_stream_list(ctx, base, &list, &n)));
	assert_int_equal(n, 1);
	assert_string_equal(list[0].name, "One");
	assert_int_equal(list[0].size, 2);
	talloc_free(list);
	assert_true(NT_STATUS_IS_OK(vfs_stream_rename(s, "Two", false)));
	assert_string_equal(s->stream, "Two");
	assert_int_equal(disk_value(&t, "user.DosStream.Two:$DATA", buf,
				    sizeof(buf)), 3);
	assert_int_equal(disk_value(&t, "user.DosStream.One:$DATA", buf,
				    sizeof(buf)), -1);
	assert_true(NT_STATUS_IS_OK(vfs_stream_remove(s)));
	assert_true(NT_STATUS_IS_OK(vfs_stream_list(ctx, base, &list, &n)));
	assert_int_equal(n, 0);
	/* too long for an xattr name (255 bytes with prefix and type) */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_true(NT_STATUS_EQUAL(vfs_stream_open(ctx, base, longname,
						    O_CREAT, &s2, &st,
						    &created),
				    NT_STATUS_NAME_TOO_LONG));
	/* the size limit */
	assert_true(NT_STATUS_IS_OK(vfs_stream_open(ctx, base, "big", O_CREAT,
						    &s2, &st, &created)));
	assert_true(NT_STATUS_EQUAL(put(ev, s2, "x", 65535),
				    NT_STATUS_ALLOTTED_SPACE_EXCEEDED));
	talloc_free(s2);
	talloc_free(s);
	talloc_free(base);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

/* vfs_default alone: no streams, an empty list */
static void test_vfs_streams__default_has_none(void **state)
{
	TALLOC_CTX *ctx = *state;
	struct tevent_context *ev = tevent_context_init(ctx);
	struct tree t;
	struct vfs_handle *vfs = NULL;
	struct vfs_fh *base = NULL, *s = NULL;
	struct vfs_stream *list = NULL;
	struct statx st;
	bool created = false;
	size_t n = 1;

	tree_make(&t);
	vfs = connect_share(ctx, ev, t.share, NULL, false);
	assert_false(vfs->streams);
	base = open_base(ctx, vfs);
	assert_true(NT_STATUS_EQUAL(vfs_stream_open(ctx, base, "s", O_CREAT,
						    &s, &st, &created),
				    NT_STATUS_NOT_SUPPORTED));
	assert_null(s);
	assert_true(NT_STATUS_IS_OK(vfs_stream_list(ctx, base, &list, &n)));
	assert_int_equal(n, 0);
	talloc_free(base);
	talloc_free(vfs);
	talloc_free(ev);
	tree_remove(&t);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)
	const struct CMUnitTest tests[] = {
		T(test_vfs_streams__layout),
		T(test_vfs_streams__under_io_uring),
		T(test_vfs_streams__names_list_rename),
		T(test_vfs_streams__default_has_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
