/*
 * Helpers shared by the test_vfs_* programs (tests/unit/wscript): the
 * scratch tree and the connected share.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/unit/vfs_test_util.h"

void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

void tree_make(struct tree *t)
{
	char p[256];

	strcpy(t->base, "/tmp/ringsmb-vfs-XXXXXX");
	assert_non_null(mkdtemp(t->base));
	snprintf(t->share, sizeof(t->share), "%s/sh", t->base);
	snprintf(t->sib, sizeof(t->sib), "%s/sh2", t->base);
	assert_int_equal(mkdir(t->share, 0755), 0);
	assert_int_equal(mkdir(t->sib, 0755), 0);
	snprintf(p, sizeof(p), "%s/secret", t->sib);
	write_file(p, "secret", 6);
	snprintf(p, sizeof(p), "%s/a", t->share);
	write_file(p, "hello", 5);
	snprintf(p, sizeof(p), "%s/d", t->share);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/d/f", t->share);
	write_file(p, "inner", 5);
}

void tree_link(struct tree *t, const char *target, const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", t->share, name);
	assert_int_equal(symlink(target, p), 0);
}

void tree_remove(struct tree *t)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->base);
	assert_int_equal(system(cmd), 0);
}

struct vfs_handle *connect_share(TALLOC_CTX *ctx,
				 struct tevent_context *ev,
				 const char *path,
				 const char *const *objects,
				 bool uring)
{
	struct vfs_handle *vfs = NULL;
	NTSTATUS status = vfs_connect_path(ctx, ev, "sh", path, objects,
					   uring, &vfs);

	assert_true(NT_STATUS_IS_OK(status));
	return vfs;
}

static void flag_done(struct tevent_req *req)
{
	bool *done = tevent_req_callback_data_void(req);

	*done = true;
}

/* Runs the loop until req's callback ran, which is never inside _send. */
void wait_done(struct tevent_context *ev, struct tevent_req *req)
{
	bool done = false;

	assert_non_null(req);
	tevent_req_set_callback(req, flag_done, &done);
	while (!done) {
		assert_int_equal(tevent_loop_once(ev), 0);
	}
}
