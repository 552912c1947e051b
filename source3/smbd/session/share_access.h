/*
 * Samba's share access controls, decided at TREE_CONNECT (and the
 * global host list at accept): docs/security.md.
 */
#ifndef RINGSMB_SMBD_SHARE_ACCESS_H
#define RINGSMB_SMBD_SHARE_ACCESS_H

#include "source3/smbd/smbd.h"

/* What a tree connect of a session to a share may do. */
struct smbd_share_grant {
	bool read_only;         /* read only / read list / write list */
	bool as_root;           /* admin users */
	bool as_guest;          /* guest only: the guest account */
};

/*
 * ACCESS_DENIED when hosts allow/deny, guest ok, invalid users or valid
 * users refuse the session; else *grant says how it may use the share.
 */
NTSTATUS smbd_share_access(const struct smbd_session *s,
			   const struct lp_share *share,
			   struct smbd_share_grant *grant);

/* [global] hosts allow / hosts deny for a new connection from addr. */
bool smbd_host_allowed(const struct loadparm *lp, const char *addr);

/*
 * The share a tree connect names: the share itself, or for [homes] a
 * copy (on mem_ctx) named after the user with the user's home as path
 * (or the [homes] path with %S / %U substituted).  NULL: no such share.
 */
const struct lp_share *smbd_share_lookup(TALLOC_CTX *mem_ctx,
					 const struct smbd_session *s,
					 const char *name);

#endif
