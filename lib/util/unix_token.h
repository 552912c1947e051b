/*
 * A Unix identity (uid, gid, supplementary groups) and switching the
 * calling thread to it and back (docs/security.md).
 *
 * Every file-system access of a client request runs as the client's Unix
 * account, so the kernel's own checks (mode bits, POSIX ACLs, quotas,
 * setuid clearing on write) apply.  Through the ring that is a ring
 * personality per token (lib/uring, uring_personality_register); around a
 * synchronous call it is this switch.
 *
 * The switch uses the raw per-thread system calls (SYS_setresuid,
 * SYS_setresgid, SYS_setgroups): glibc's wrappers change every thread of
 * the process, and the crypto pool's threads must stay as they are.  Only
 * the effective ids change; the real and saved ids stay root, which is
 * what lets unix_token_unbecome() switch back.
 */
#ifndef RINGSMB_UNIX_TOKEN_H
#define RINGSMB_UNIX_TOKEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define UNIX_TOKEN_MORE_RINGS 16

struct unix_token {
	uid_t uid;
	gid_t gid;
	uint32_t ngroups;
	gid_t *groups;          /* ngroups entries, sorted, no duplicates */
	/*
	 * The ring personality registered for these credentials, or 0
	 * (none: ring operations of this token go through the switch), and
	 * the ring it is registered on: ids are per ring, so on any other
	 * ring (another worker's) the switch is used too.
	 */
	uint16_t personality;
	const void *personality_ring;
	/*
	 * On other rings (other workers'), registered by each ring's own
	 * thread when it first needs one (vfs_ring_personality); id 0:
	 * registration failed there, use the switch.  Released with those
	 * rings.
	 */
	struct {
		const void *ring;
		uint16_t id;
	} more_personalities[UNIX_TOKEN_MORE_RINGS];
	/*
	 * Unique per distinct token (identity.c numbers them from 1): lets a
	 * thread that still has this token's groups skip setting them
	 * again.  0: always set them.
	 */
	uint64_t serial;
};

/* Most supplementary groups a token carries (Linux NGROUPS_MAX). */
#define UNIX_TOKEN_MAX_GROUPS 65536

/*
 * Whether this process can switch identities at all: its effective uid is
 * 0.  A daemon started as another user serves every client as itself
 * (and says so at startup).
 */
bool unix_token_can_switch(void);

/*
 * Switches the calling thread's effective ids to t.  0, or -errno with
 * the thread back as it was.  Every successful call must be followed by
 * unix_token_unbecome() before the event loop runs anything else.
 */
int unix_token_become(const struct unix_token *t);

/*
 * Back to root: the effective uid 0, which is what every permission
 * check looks at (root passes them all); inside unix_token_hold, a
 * thread that is the held token stays it.  The gid and groups of the last
 * token stay until another token needs different ones or
 * unix_token_unbecome_full() resets them: setting them costs two system
 * calls per switch, and a session's calls switch to the same token again
 * and again (docs/performance.md, "Identity").  A failure here would
 * leave the daemon running as a client: it aborts the process.
 */
void unix_token_unbecome(void);

/*
 * The root euid for a call the daemon makes with its own rights, inside
 * a hold as outside (outside one the thread is root already: no system
 * call).  Pair it with unix_token_unbecome() like a become.
 */
int unix_token_become_root(void);

/*
 * Hold t over a stretch of calls (one request's synchronous part): the
 * first become(t) inside switches the thread, and it stays t after each
 * unbecome() until the release, so the pairs after the first cost
 * nothing; a stretch that makes no call for t (a READ of an open
 * descriptor) makes no switch at all.  A become of another token, or
 * unix_token_become_root, switches for that call; its unbecome goes to
 * root (the next become(t) takes t again).  Only tokens with a serial;
 * not nested (false: nothing held, the pairs switch as usual).
 * unix_token_release ends it as root.  A failure anywhere leaves the
 * thread root and the hold gone: never more rights than asked for.
 */
bool unix_token_hold(const struct unix_token *t);
void unix_token_release(bool held);

/*
 * Back to root entirely (gid 0, no groups), for the daemon's own file
 * creation (logs), so that nothing it creates carries a client's group.
 */
void unix_token_unbecome_full(void);

/* Same uid, gid and groups (personality ignored). */
bool unix_token_equal(const struct unix_token *a,
		      const struct unix_token *b);

/* Sorts and de-duplicates groups in place; returns the new count. */
uint32_t unix_token_normalize_groups(gid_t *groups, uint32_t n);

/* A member of gid, as primary or supplementary group. */
bool unix_token_in_group(const struct unix_token *t, gid_t gid);

#endif
