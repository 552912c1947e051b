/*
 * lib/uring personalities (SQEs run with the credentials registered) and
 * the per-thread identity switch they rely on (lib/util/unix_token.h).
 * Skips without io_uring or without the right to switch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/util/unix_token.h"
#include "tests/unit/uring_test_util.h"

/* ---- personalities: SQEs run with the credentials registered ---- */

struct open_args {
	const char *path;
};

static void openat_prep(struct io_uring_sqe *sqe, void *private_data)
{
	const struct open_args *a = private_data;

	io_uring_prep_openat(sqe, AT_FDCWD, a->path, O_RDONLY | O_CLOEXEC, 0);
}

static int32_t open_via_ring(struct tevent_context *ev, struct uring *ring,
			     const char *path)
{
	struct open_args a = { .path = path };
	struct tevent_req *req = uring_req_send(ev, ev, ring, openat_prep, &a,
						NULL);
	int32_t res = -1;
	int done = 0;

	tevent_req_set_callback(req, count_done, &done);
	WAIT_UNTIL(ev, done == 1);
	assert_int_equal(uring_req_recv(req, &res), 0);
	talloc_free(req);
	if (res >= 0) {
		close(res);
	}
	return res;
}

/*
 * A root-only file: the ring opens it as the daemon, refuses it under the
 * personality of nobody, and opens it again once the personality is
 * reset; the thread stays root throughout.
 */
static void test_uring__personality(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	struct unix_token nobody = { .uid = 65534, .gid = 65534 };
	char path[] = "/tmp/test_uring_pers.XXXXXX";
	int fd = -1;
	int id;

	RING_OR_SKIP(ev, ring);
	if (!unix_token_can_switch()) {
		talloc_free(ev);
		skip();
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0600), 0);
	close(fd);
	assert_int_equal(unix_token_become(&nobody), 0);
	id = uring_personality_register(ring);
	unix_token_unbecome_full();
	assert_true(id > 0);
	assert_int_equal(geteuid(), 0);

	assert_true(open_via_ring(ev, ring, path) >= 0);
	assert_int_equal(uring_set_personality(ring, (uint16_t)id), 0);
	assert_int_equal(open_via_ring(ev, ring, path), -EACCES);
	assert_int_equal(geteuid(), 0);
	assert_int_equal(uring_set_personality(ring, 0), id);
	assert_true(open_via_ring(ev, ring, path) >= 0);
	assert_int_equal(uring_personality_unregister(ring, (uint16_t)id), 0);
	unlink(path);
	talloc_free(ev);
}

/* ---- several rings: only the ring's own thread registers ---- */

struct other_thread {
	struct uring *ring;
	bool owner;
	int reg;
};

static void *other_thread_main(void *arg)
{
	struct other_thread *o = arg;

	o->owner = uring_is_owner(o->ring);
	o->reg = uring_personality_register(o->ring);
	return NULL;
}

/*
 * The workers' rule (docs/architecture.md, "Workers"): a ring is its
 * thread's; another thread is no owner, and the kernel refuses it a
 * personality on a SINGLE_ISSUER ring (EEXIST), which is why each worker
 * registers its own (vfs_ring_personality).
 */
static void test_uring__owner_thread(void **state)
{
	struct uring *ring = NULL;
	struct tevent_context *ev = test_ev(*state, MODE_RING, &ring);
	struct other_thread o = { .reg = 0 };
	pthread_t th;
	int id;

	RING_OR_SKIP(ev, ring);
	assert_true(uring_is_owner(ring));
	assert_false(uring_is_owner(NULL));
	o.ring = ring;
	assert_int_equal(pthread_create(&th, NULL, other_thread_main, &o), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_false(o.owner);
	assert_true(o.reg < 0);
	id = uring_personality_register(ring);
	assert_true(id > 0);
	assert_int_equal(uring_personality_unregister(ring, (uint16_t)id), 0);
	talloc_free(ev);
}

/* The switch is per thread and comes back to root. */
static void test_uring__token_become(void **state)
{
	gid_t groups[] = { 65534, 100, 100, 7 };
	struct unix_token t = { .uid = 65534, .gid = 65534,
				.groups = groups };
	struct unix_token nobody_only = { .uid = 65534, .gid = 100 };
	gid_t now[8];

	if (!unix_token_can_switch()) {
		skip();
	}
	t.ngroups = unix_token_normalize_groups(groups, 4);
	assert_int_equal(t.ngroups, 3);
	assert_int_equal(groups[0], 7);
	assert_int_equal(groups[2], 65534);
	assert_true(unix_token_in_group(&t, 100));
	assert_false(unix_token_in_group(&t, 0));
	assert_int_equal(unix_token_become(&t), 0);
	assert_int_equal(geteuid(), 65534);
	assert_int_equal(getegid(), 65534);
	assert_int_equal(getuid(), 0);         /* real id: the way back */
	assert_int_equal(getgroups(8, now), 3);
	assert_int_equal(faccessat(AT_FDCWD, "/root", W_OK, AT_EACCESS), -1);
	/* back to uid 0: root again; the groups stay for the next switch */
	unix_token_unbecome();
	assert_int_equal(geteuid(), 0);
	assert_int_equal(faccessat(AT_FDCWD, "/root", W_OK, AT_EACCESS), 0);
	assert_int_equal(getegid(), 65534);
	t.serial = 7;
	assert_int_equal(unix_token_become(&t), 0);
	assert_int_equal(geteuid(), 65534);
	unix_token_unbecome();
	/* same serial: only the uid changes; another token sets groups */
	assert_int_equal(unix_token_become(&t), 0);
	assert_int_equal(getgroups(8, now), 3);
	unix_token_unbecome();
	nobody_only.serial = 8;
	assert_int_equal(unix_token_become(&nobody_only), 0);
	assert_int_equal(getgroups(8, now), 0);
	assert_int_equal(getegid(), 100);
	unix_token_unbecome_full();
	assert_int_equal(geteuid(), 0);
	assert_int_equal(getegid(), 0);
	assert_int_equal(getgroups(8, now), 0);
}

#define T(name) cmocka_unit_test_setup_teardown(test_uring__##name, \
						unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(personality),
		T(owner_thread),
		T(token_become),
	};

	if (getenv("TEST_FILTER") != NULL) {
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
