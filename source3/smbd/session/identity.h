/*
 * Who a session acts as on disk (docs/security.md): a Unix account from
 * NSS, and the shared, reference-counted tokens of the server.
 *
 * Tokens are cached per (uid, gid, groups): every session and tree
 * connect with the same credentials shares one, and one ring personality
 * (registered while the thread holds those credentials).  A token goes,
 * and its personality is unregistered, when its last holder goes.
 */
#ifndef RINGSMB_SMBD_IDENTITY_H
#define RINGSMB_SMBD_IDENTITY_H

#include "lib/auth/auth.h"
#include "lib/auth/passdb.h"
#include "lib/util/unix_token.h"
#include "source3/smbd/smbd.h"

/* Distinct credential sets alive at once (logons beyond: refused). */
#define SMBD_MAX_IDENTITIES 4096

/* A Unix account as NSS gives it. */
struct smbd_unix_user {
	const char *name;
	uid_t uid;
	gid_t gid;
	const char *home;
	const char *group_name;         /* of gid; "" if it has none */
};

/* The server's cache; made once at start (after the ring). */
int smbd_identities_init(struct smbd_server *server);

/*
 * NSS lookup of a Unix account by name (getpwnam_r).  NO_SUCH_USER if
 * there is none.
 */
NTSTATUS smbd_unix_user_lookup(TALLOC_CTX *mem_ctx, const char *name,
			       struct smbd_unix_user **out);

/*
 * A token for an account, its supplementary groups from getgrouplist;
 * force_gid != (gid_t)-1 replaces the primary group (and joins it).
 * The returned holder is a talloc object on mem_ctx: freeing it drops
 * the reference.  NULL when out of memory or over the limit, or when
 * the daemon cannot switch identities (not root): then *token is NULL
 * and the call still succeeds (see smbd_identity_get's return).
 */
struct smbd_identity_ref;
NTSTATUS smbd_identity_get(TALLOC_CTX *mem_ctx, struct smbd_server *server,
			   const struct smbd_unix_user *u, gid_t force_gid,
			   struct smbd_identity_ref **out);

/* The token of a holder; NULL for no holder (act as the daemon). */
const struct unix_token *smbd_identity_token(
	const struct smbd_identity_ref *ref);

/*
 * Logon: the lookup given to lib/auth (username map, passdb, and a Unix
 * account required); the Unix name of a logon name.
 */
const struct auth_user_lookup *smbd_logon_users(struct smbd_server *server);
const char *smbd_logon_unix_name(const struct smbd_server *server,
				 const char *user);

/*
 * Sets s->unix_user and s->identity for a logon as user (guest: as the
 * guest account; guest and anonymous sessions are both that).
 * LOGON_FAILURE if there is no such Unix account.
 */
NTSTATUS smbd_session_identity(struct smbd_session *s, bool guest,
			       const char *user);

/*
 * The identity a tree connect of s to share uses: force user / force
 * group applied; as_root ("admin users"): uid 0 with the user's groups; as_guest
 * ("guest only"): the guest account.  NO_SUCH_USER
 * / NO_SUCH_GROUP when a forced account does not exist.
 */
NTSTATUS smbd_tcon_identity(TALLOC_CTX *mem_ctx,
			    const struct smbd_session *s,
			    const struct lp_share *share, bool as_root,
			    bool as_guest, struct smbd_identity_ref **out);

/* After a re-authentication: every tree connect of s follows its user. */
NTSTATUS smbd_session_tcons_follow(struct smbd_session *s);

/* Counters for tests and logs. */
size_t smbd_identities_count(const struct smbd_server *server);

#endif
