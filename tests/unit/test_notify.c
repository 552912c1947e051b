/*
 * Unit tests for change notification (source3/smbd/files/notify.c): the
 * CompletionFilter -> inotify mask mapping, FILE_NOTIFY_INFORMATION
 * encoding, the buffer-overflow -> NOTIFY_ENUM_DIR decisions, and the
 * watcher on a real directory (inotify) including WATCH_TREE, renames
 * and the watch bound.  The .c is included (smbd is a program).
 */
#include <stdlib.h>
#include <sys/stat.h>
#include "source3/smbd/files/notify.c"
#include "tests/unit/unit.h"

#define FN SMB2_FILE_NOTIFY_CHANGE_FILE_NAME
#define DN SMB2_FILE_NOTIFY_CHANGE_DIR_NAME

static void test_notify__filter_mask(void **state)
{
	uint32_t names = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO;

	assert_int_equal(smbd_notify_filter_mask(FN, false), names);
	assert_int_equal(smbd_notify_filter_mask(DN, false), names);
	assert_int_equal(smbd_notify_filter_mask(
		SMB2_FILE_NOTIFY_CHANGE_SIZE, false), IN_MODIFY);
	assert_int_equal(smbd_notify_filter_mask(
		SMB2_FILE_NOTIFY_CHANGE_LAST_WRITE, false),
		IN_MODIFY | IN_ATTRIB);
	assert_int_equal(smbd_notify_filter_mask(
		SMB2_FILE_NOTIFY_CHANGE_ATTRIBUTES, false), IN_ATTRIB);
	assert_int_equal(smbd_notify_filter_mask(
		SMB2_FILE_NOTIFY_CHANGE_EA, false), IN_ATTRIB);
	assert_int_equal(smbd_notify_filter_mask(
		SMB2_FILE_NOTIFY_CHANGE_SECURITY, false), IN_ATTRIB);
	/* a tree also follows directories, whatever the filter */
	assert_int_equal(smbd_notify_filter_mask(
		SMB2_FILE_NOTIFY_CHANGE_SIZE, true),
		IN_MODIFY | IN_CREATE | IN_MOVED_FROM | IN_MOVED_TO);
	/* no named streams: nothing to watch, not even for a tree */
	assert_int_equal(smbd_notify_filter_mask(
		SMB2_FILE_NOTIFY_CHANGE_STREAM_NAME |
		SMB2_FILE_NOTIFY_CHANGE_STREAM_SIZE |
		SMB2_FILE_NOTIFY_CHANGE_STREAM_WRITE, true), 0);
	assert_int_equal(smbd_notify_filter_mask(0, true), 0);
}

static void test_notify__event_filter(void **state)
{
	assert_int_equal(smbd_notify_event_filter(IN_CREATE), FN);
	assert_int_equal(smbd_notify_event_filter(IN_CREATE | IN_ISDIR), DN);
	assert_int_equal(smbd_notify_event_filter(IN_MOVED_TO | IN_ISDIR),
			 DN);
	assert_int_equal(smbd_notify_event_filter(IN_DELETE), FN);
	assert_int_equal(smbd_notify_event_filter(IN_MODIFY),
			 SMB2_FILE_NOTIFY_CHANGE_SIZE |
			 SMB2_FILE_NOTIFY_CHANGE_LAST_WRITE);
	assert_true(smbd_notify_event_filter(IN_ATTRIB) &
		    SMB2_FILE_NOTIFY_CHANGE_ATTRIBUTES);
	assert_false(smbd_notify_event_filter(IN_ATTRIB) & (FN | DN));
	assert_int_equal(smbd_notify_event_filter(IN_ACCESS), 0);
}

static uint8_t A16[] = { 'a', 0 };
static uint8_t BCD16[] = { 'b', 0, 'c', 0, 'd', 0 };

/* Entries 4-byte aligned, NextEntryOffset 0 on the last, not padded */
static void test_notify__encode_alignment(void **state)
{
	struct smbd_notify_change c[] = {
		{ SMBD_NOTIFY_ACTION_OLD_NAME, A16, sizeof(A16) },
		{ SMBD_NOTIFY_ACTION_NEW_NAME, BCD16, sizeof(BCD16) },
	};
	uint8_t *buf = NULL;
	size_t len = 0;

	assert_int_equal(smbd_notify_encoded_size(c, 2), 16 + 18);
	assert_true(NT_STATUS_IS_OK(smbd_notify_encode(*state, c, 2, 34,
						       &buf, &len)));
	assert_int_equal(len, 34);
	assert_int_equal(pull_le32(buf), 16);           /* 14 -> 16 */
	assert_int_equal(pull_le32(buf + 4), 4);
	assert_int_equal(pull_le32(buf + 8), 2);
	assert_memory_equal(buf + 12, A16, 2);
	assert_int_equal(pull_le16(buf + 14), 0);       /* padding */
	assert_int_equal(pull_le32(buf + 16), 0);       /* last */
	assert_int_equal(pull_le32(buf + 20), 5);
	assert_int_equal(pull_le32(buf + 24), 6);
	assert_memory_equal(buf + 28, BCD16, 6);
	talloc_free(buf);
}

static void test_notify__encode_does_not_fit(void **state)
{
	struct smbd_notify_change c[] = {
		{ SMBD_NOTIFY_ACTION_ADDED, BCD16, sizeof(BCD16) },
	};
	uint8_t *buf = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_EQUAL(smbd_notify_encode(*state, c, 1, 17,
						       &buf, &len),
				    NT_STATUS_NOTIFY_ENUM_DIR));
	assert_null(buf);
	assert_int_equal(len, 0);
	assert_true(NT_STATUS_EQUAL(smbd_notify_encode(*state, c, 1, 0, &buf,
						       &len),
				    NT_STATUS_NOTIFY_ENUM_DIR));
	/* nothing to say is not an empty success either */
	assert_true(NT_STATUS_EQUAL(smbd_notify_encode(*state, c, 0, 100,
						       &buf, &len),
				    NT_STATUS_NOTIFY_ENUM_DIR));
	assert_true(NT_STATUS_IS_OK(smbd_notify_encode(*state, c, 1, 18,
						       &buf, &len)));
	assert_int_equal(len, 18);
	talloc_free(buf);
}

/* A watcher without inotify: only its buffer. */
static struct smbd_notify_watcher *bare_watcher(TALLOC_CTX *mem_ctx,
						uint32_t max_buffer)
{
	struct smbd_notify_watcher *w = talloc_zero(
		mem_ctx, struct smbd_notify_watcher);

	assert_non_null(w);
	w->filter = FN | DN;
	w->max_buffer = max_buffer;
	return w;
}

static void test_notify__buffer_overflow_is_enum_dir(void **state)
{
	struct smbd_notify_watcher *w = bare_watcher(*state, 36);
	uint8_t *buf = NULL;
	size_t len = 0;

	change_add(w, SMBD_NOTIFY_ACTION_ADDED, "", "one", false);     /* 18 */
	assert_false(w->overflow);
	change_add(w, SMBD_NOTIFY_ACTION_ADDED, "", "two", false);     /* 20+18 */
	assert_true(w->overflow);
	assert_int_equal(w->num_changes, 0);
	change_add(w, SMBD_NOTIFY_ACTION_ADDED, "", "x", false);       /* dropped */
	assert_true(smbd_notify_pending(w));
	assert_true(NT_STATUS_EQUAL(smbd_notify_take(w, *state, 65536, &buf,
						     &len),
				    NT_STATUS_NOTIFY_ENUM_DIR));
	/* reported once; then it buffers again */
	assert_false(smbd_notify_pending(w));
	change_add(w, SMBD_NOTIFY_ACTION_REMOVED, "sub/dir", "f", false);
	assert_true(NT_STATUS_IS_OK(smbd_notify_take(w, *state, 65536, &buf,
						     &len)));
	assert_int_equal(len, 12 + 2 * strlen("sub\\dir\\f"));
	assert_int_equal(buf[12 + 6], '\\');
	talloc_free(buf);
	talloc_free(w);
}

/* What is buffered but does not fit the request is ENUM_DIR, and gone. */
static void test_notify__take_larger_than_request(void **state)
{
	struct smbd_notify_watcher *w = bare_watcher(*state, 1000);
	uint8_t *buf = NULL;
	size_t len = 0;

	change_add(w, SMBD_NOTIFY_ACTION_ADDED, "", "abcdef", false);
	assert_true(NT_STATUS_EQUAL(smbd_notify_take(w, *state, 16, &buf,
						     &len),
				    NT_STATUS_NOTIFY_ENUM_DIR));
	assert_false(smbd_notify_pending(w));
	talloc_free(w);
}

static void test_notify__coalesce_and_count_bound(void **state)
{
	struct smbd_notify_watcher *w = bare_watcher(*state, 65536);
	char name[16];
	int i;

	change_add(w, SMBD_NOTIFY_ACTION_MODIFIED, "", "f", false);
	change_add(w, SMBD_NOTIFY_ACTION_MODIFIED, "", "f", false);
	assert_int_equal(w->num_changes, 1);
	for (i = 0; i < SMBD_NOTIFY_MAX_CHANGES; i++) {
		snprintf(name, sizeof(name), "%d", i);
		change_add(w, SMBD_NOTIFY_ACTION_ADDED, "", name, false);
	}
	assert_true(w->overflow);
	talloc_free(w);
}

/* An attribute change of a name whose ADDED waits is not news. */
static void test_notify__attrib_after_added_dropped(void **state)
{
	struct smbd_notify_watcher *w = bare_watcher(*state, 65536);

	change_add(w, SMBD_NOTIFY_ACTION_ADDED, "", "new", false);
	change_add(w, SMBD_NOTIFY_ACTION_MODIFIED, "", "new", true);
	assert_int_equal(w->num_changes, 1);
	/* another name, or a write (not attrib_only), is reported */
	change_add(w, SMBD_NOTIFY_ACTION_MODIFIED, "", "old", true);
	change_add(w, SMBD_NOTIFY_ACTION_MODIFIED, "", "new", false);
	assert_int_equal(w->num_changes, 3);
	talloc_free(w);
}

/* --- against a real directory ---------------------------------------- */

struct fixture {
	struct tevent_context *ev;
	struct smbd_notify_ctx *ctx;
	char dir[64];
	int fd;
	int calls;
};

static void fixture_fn(struct smbd_notify_watcher *w, void *priv)
{
	struct fixture *f = priv;

	f->calls++;
}

static struct fixture *fixture_new(TALLOC_CTX *mem_ctx, size_t max_watches)
{
	struct fixture *f = talloc_zero(mem_ctx, struct fixture);

	assert_non_null(f);
	f->ev = tevent_context_init(f);
	assert_non_null(f->ev);
	f->ctx = smbd_notify_ctx_new(f, f->ev, max_watches);
	if (f->ctx == NULL) {
		skip();         /* no inotify here */
	}
	snprintf(f->dir, sizeof(f->dir), "/tmp/ringsmb-notify-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->fd = open(f->dir, O_PATH | O_DIRECTORY);
	assert_true(f->fd >= 0);
	return f;
}

static void fixture_free(struct fixture *f)
{
	char cmd[128];

	close(f->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	talloc_free(f);
}

static void at(struct fixture *f, const char *fmt, const char *name,
	       char *out, size_t len)
{
	snprintf(out, len, "%s/", f->dir);
	snprintf(out + strlen(out), len - strlen(out), fmt, name);
}

static void touch_file(struct fixture *f, const char *name)
{
	char p[256];
	int fd;

	at(f, "%s", name, p, sizeof(p));
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static void make_dir(struct fixture *f, const char *name)
{
	char p[256];

	at(f, "%s", name, p, sizeof(p));
	assert_int_equal(mkdir(p, 0755), 0);
}

/* Runs the loop until the watcher was told, or 5 s. */
static void wait_calls(struct fixture *f, int calls)
{
	int i;

	for (i = 0; i < 50 && f->calls < calls; i++) {
		tevent_loop_once(f->ev);
	}
	assert_int_equal(f->calls, calls);
}

static void expect_one(struct smbd_notify_watcher *w, TALLOC_CTX *mem_ctx,
		       uint32_t action, const char *name)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	char *got = NULL;

	assert_true(NT_STATUS_IS_OK(smbd_notify_take(w, mem_ctx, 4096, &buf,
						     &len)));
	assert_int_equal(pull_le32(buf), 0);
	assert_int_equal(pull_le32(buf + 4), action);
	assert_true(NT_STATUS_IS_OK(smb2_utf16_to_utf8(
		mem_ctx, buf + 12, pull_le32(buf + 8), &got)));
	assert_string_equal(got, name);
	talloc_free(got);
	talloc_free(buf);
}

static void test_notify__inotify_added_and_renamed(void **state)
{
	struct fixture *f = fixture_new(*state, 16);
	struct smbd_notify_watcher *w = NULL;
	char a[256], b[256];
	uint8_t *buf = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smbd_notify_watch(
		f, f->ctx, f->fd, NULL, FN, false, 4096, fixture_fn, f, &w)));
	touch_file(f, "x.txt");
	wait_calls(f, 1);
	expect_one(w, *state, SMBD_NOTIFY_ACTION_ADDED, "x.txt");
	at(f, "%s", "x.txt", a, sizeof(a));
	at(f, "%s", "y.txt", b, sizeof(b));
	assert_int_equal(rename(a, b), 0);
	wait_calls(f, 2);
	assert_true(NT_STATUS_IS_OK(smbd_notify_take(w, *state, 4096, &buf,
						     &len)));
	assert_int_equal(pull_le32(buf + 4), SMBD_NOTIFY_ACTION_OLD_NAME);
	assert_int_equal(pull_le32(buf + pull_le32(buf) + 4),
			 SMBD_NOTIFY_ACTION_NEW_NAME);
	talloc_free(buf);
	talloc_free(w);
	assert_int_equal(f->ctx->num_watches, 0);
	fixture_free(f);
}

static void test_notify__inotify_tree(void **state)
{
	struct fixture *f = fixture_new(*state, 16);
	struct smbd_notify_watcher *w = NULL;

	make_dir(f, "a");
	make_dir(f, "a/b");
	assert_true(NT_STATUS_IS_OK(smbd_notify_watch(
		f, f->ctx, f->fd, NULL, FN | DN, true, 4096, fixture_fn, f, &w)));
	assert_int_equal(smbd_notify_num_watches(w), 3);
	touch_file(f, "a/b/deep.txt");
	wait_calls(f, 1);
	expect_one(w, *state, SMBD_NOTIFY_ACTION_ADDED, "a\\b\\deep.txt");
	/* a new directory is watched as it appears */
	make_dir(f, "a/c");
	wait_calls(f, 2);
	expect_one(w, *state, SMBD_NOTIFY_ACTION_ADDED, "a\\c");
	assert_int_equal(smbd_notify_num_watches(w), 4);
	touch_file(f, "a/c/new.txt");
	wait_calls(f, 3);
	expect_one(w, *state, SMBD_NOTIFY_ACTION_ADDED, "a\\c\\new.txt");
	/* the server's context goes first: the watcher is detached */
	TALLOC_FREE(f->ctx);
	assert_int_equal(smbd_notify_num_watches(w), 0);
	talloc_free(w);
	fixture_free(f);
}

/* Past the watch bound the watcher says ENUM_DIR instead of missing. */
static void test_notify__watch_bound_is_enum_dir(void **state)
{
	struct fixture *f = fixture_new(*state, 2);
	struct smbd_notify_watcher *w = NULL;
	uint8_t *buf = NULL;
	size_t len = 0;

	make_dir(f, "d1");
	make_dir(f, "d2");
	make_dir(f, "d3");
	assert_true(NT_STATUS_IS_OK(smbd_notify_watch(
		f, f->ctx, f->fd, NULL, FN, true, 4096, fixture_fn, f, &w)));
	assert_true(f->ctx->num_watches <= 2);
	assert_true(smbd_notify_pending(w));
	assert_true(NT_STATUS_EQUAL(smbd_notify_take(w, *state, 4096, &buf,
						     &len),
				    NT_STATUS_NOTIFY_ENUM_DIR));
	talloc_free(w);
	assert_int_equal(f->ctx->num_watches, 0);
	fixture_free(f);
}

/* Two watchers of one directory share its inotify watch. */
static void test_notify__shared_watch(void **state)
{
	struct fixture *f = fixture_new(*state, 16);
	struct smbd_notify_watcher *w1 = NULL;
	struct smbd_notify_watcher *w2 = NULL;

	assert_true(NT_STATUS_IS_OK(smbd_notify_watch(
		f, f->ctx, f->fd, NULL, FN, false, 4096, fixture_fn, f, &w1)));
	assert_true(NT_STATUS_IS_OK(smbd_notify_watch(
		f, f->ctx, f->fd, NULL, SMB2_FILE_NOTIFY_CHANGE_SIZE, false, 4096,
		fixture_fn, f, &w2)));
	assert_int_equal(f->ctx->num_watches, 1);
	touch_file(f, "s.txt");
	wait_calls(f, 1);
	/* only the FILE_NAME watcher hears of a new name */
	assert_true(smbd_notify_pending(w1));
	assert_false(smbd_notify_pending(w2));
	talloc_free(w1);
	assert_int_equal(f->ctx->num_watches, 1);
	talloc_free(w2);
	assert_int_equal(f->ctx->num_watches, 0);
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, unit_setup, unit_teardown)
		T(test_notify__filter_mask),
		T(test_notify__event_filter),
		T(test_notify__encode_alignment),
		T(test_notify__encode_does_not_fit),
		T(test_notify__buffer_overflow_is_enum_dir),
		T(test_notify__take_larger_than_request),
		T(test_notify__coalesce_and_count_bound),
		T(test_notify__attrib_after_added_dropped),
		T(test_notify__inotify_added_and_renamed),
		T(test_notify__inotify_tree),
		T(test_notify__watch_bound_is_enum_dir),
		T(test_notify__shared_watch),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
