/*
 * Per-thread identity switching with the raw system calls
 * (lib/util/unix_token.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "lib/util/debug.h"
#include "lib/util/unix_token.h"

bool unix_token_can_switch(void)
{
	return geteuid() == 0;
}

static int raw_setgroups(size_t n, const gid_t *groups)
{
	return syscall(SYS_setgroups, n, groups) == 0 ? 0 : -errno;
}

static int raw_setresgid(gid_t egid)
{
	return syscall(SYS_setresgid, -1, egid, -1) == 0 ? 0 : -errno;
}

static int raw_setresuid(uid_t euid)
{
	return syscall(SYS_setresuid, -1, euid, -1) == 0 ? 0 : -errno;
}

/*
 * The serial of the token whose gid and groups this thread has now (0:
 * root's, or unknown).  Per thread, like the credentials themselves.
 */
static __thread uint64_t thread_groups_serial;

static void back_to_root_failed(void);

/*
 * The serial of the token whose uid this thread has now: 0 while it is
 * root, THREAD_UID_UNNAMED for a token without a serial.
 */
#define THREAD_UID_UNNAMED UINT64_MAX
static __thread uint64_t thread_uid_serial;

/* The token of unix_token_hold, or NULL: where an unbecome goes back to. */
static __thread const struct unix_token *thread_hold;

/*
 * Groups first and the uid last: changing groups and gid needs the
 * root euid we are about to give up.  A thread that has the token's uid
 * already (a hold, or the same token twice) makes no system call.
 */
int unix_token_become(const struct unix_token *t)
{
	int ret = 0;

	if (t->serial != 0 && t->serial == thread_uid_serial) {
		return 0;
	}
	if (thread_uid_serial != 0) {
		/* another user's uid: back to root to change groups */
		ret = raw_setresuid(0);
		if (ret != 0) {
			back_to_root_failed();
		}
		thread_uid_serial = 0;
	}
	if (t->serial == 0 || t->serial != thread_groups_serial) {
		thread_groups_serial = 0;
		ret = raw_setgroups(t->ngroups, t->groups);
		if (ret == 0) {
			ret = raw_setresgid(t->gid);
		}
		if (ret == 0) {
			thread_groups_serial = t->serial;
		}
	}
	if (ret == 0) {
		ret = raw_setresuid(t->uid);
	}
	if (ret != 0) {
		int err = ret;

		unix_token_unbecome_full();
		return err;
	}
	thread_uid_serial = t->serial != 0 ? t->serial : THREAD_UID_UNNAMED;
	return 0;
}

static void back_to_root_failed(void)
{
	DBG_ERR("cannot switch back to root: %s; stopping\n",
		strerror(errno));
	abort();
}

int unix_token_become_root(void)
{
	if (thread_uid_serial != 0) {
		if (raw_setresuid(0) != 0) {
			back_to_root_failed();
		}
		thread_uid_serial = 0;
	}
	return 0;
}

void unix_token_unbecome(void)
{
	if (thread_hold != NULL && thread_uid_serial == thread_hold->serial) {
		return;         /* stays the held user until the release */
	}
	unix_token_become_root();
}

void unix_token_unbecome_full(void)
{
	thread_hold = NULL;
	if (raw_setresuid(0) != 0 || raw_setresgid(0) != 0 ||
	    raw_setgroups(0, NULL) != 0) {
		back_to_root_failed();
	}
	thread_uid_serial = 0;
	thread_groups_serial = 0;
}

bool unix_token_hold(const struct unix_token *t)
{
	if (t == NULL || t->serial == 0 || thread_hold != NULL) {
		return false;
	}
	thread_hold = t;        /* taken by the first become(t), if any */
	return true;
}

void unix_token_release(bool held)
{
	if (held && thread_hold != NULL) {
		thread_hold = NULL;
		unix_token_become_root();
	}
}

bool unix_token_equal(const struct unix_token *a,
		      const struct unix_token *b)
{
	return a->uid == b->uid && a->gid == b->gid &&
	       a->ngroups == b->ngroups &&
	       (a->ngroups == 0 ||
		memcmp(a->groups, b->groups,
		       a->ngroups * sizeof(gid_t)) == 0);
}

static int gid_cmp(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a;
	gid_t y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t unix_token_normalize_groups(gid_t *groups, uint32_t n)
{
	uint32_t i;
	uint32_t out = 0;

	if (n == 0) {
		return 0;
	}
	qsort(groups, n, sizeof(gid_t), gid_cmp);
	for (i = 0; i < n; i++) {
		if (out == 0 || groups[out - 1] != groups[i]) {
			groups[out++] = groups[i];
		}
	}
	return out;
}

bool unix_token_in_group(const struct unix_token *t, gid_t gid)
{
	uint32_t i;

	if (t->gid == gid) {
		return true;
	}
	for (i = 0; i < t->ngroups; i++) {
		if (t->groups[i] == gid) {
			return true;
		}
	}
	return false;
}
