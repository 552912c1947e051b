/*
 * Share access controls at TREE_CONNECT, with Samba's names and Samba's
 * behaviour (share_access.h, docs/security.md).
 *
 * Names in the lists are matched against the Unix account the session
 * acts as (after the username map; the guest account for guests), and
 * "@group", "+group", "&group" against its Unix groups.  %-substitutions
 * in the list entries are expanded first, as Samba does.
 */
#include <string.h>
#include <strings.h>
#include "lib/param/access.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "source3/smbd/session/identity.h"
#include "source3/smbd/session/share_access.h"

bool smbd_host_allowed(const struct loadparm *lp, const char *addr)
{
	return access_host_allowed(
		(const char *const *)lp->share_defaults.hosts_allow,
		(const char *const *)lp->share_defaults.hosts_deny, addr);
}

static void subst_values(const struct smbd_session *s,
			 const struct lp_share *share,
			 struct access_subst *v)
{
	const struct smbd_conn *conn = s->conn;
	const struct loadparm *lp = conn->server->lp;
	const struct smbd_unix_user *u = s->unix_user;

	*v = (struct access_subst) {
		.smb_user = s->user,
		.unix_user = u != NULL ? u->name : NULL,
		.unix_group = u != NULL ? u->group_name : NULL,
		.home = u != NULL ? u->home : NULL,
		.share = share->name,
		.path = share->path,
		.client_addr = conn->addr,
		.client_name = conn->addr,
		.server_name = lp->g.netbios_name,
		.workgroup = lp->g.workgroup,
		.hostname = lp->g.netbios_name,
	};
}

/* One list with its %-substitutions done (NULL only on ENOMEM). */
static const char **subst_list(TALLOC_CTX *mem_ctx, const char **list,
			       const struct access_subst *v)
{
	size_t n = 0;
	const char **out = NULL;
	size_t i;

	while (list != NULL && list[n] != NULL) {
		n++;
	}
	out = talloc_zero_array(mem_ctx, const char *, n + 1);
	for (i = 0; out != NULL && i < n; i++) {
		out[i] = strchr(list[i], '%') == NULL ? list[i] :
			access_substitute(out, list[i], v);
		if (out[i] == NULL) {
			return NULL;
		}
	}
	return out;
}

struct list_check {
	TALLOC_CTX *mem_ctx;
	const char *user;
	struct access_subst v;
	bool failed;            /* out of memory: deny */
};

static bool in_list(struct list_check *c, const char **list)
{
	const char **l = NULL;

	if (list == NULL || list[0] == NULL) {
		return false;
	}
	l = subst_list(c->mem_ctx, list, &c->v);
	if (l == NULL) {
		c->failed = true;
		return false;
	}
	return access_user_in_list(c->user, l, access_unix_user_in_group,
				   NULL);
}

static NTSTATUS user_lists(struct list_check *c,
			   const struct lp_share *share,
			   struct smbd_share_grant *grant)
{
	if (in_list(c, share->invalid_users)) {
		DBG_NOTICE("share [%s]: %s is in invalid users\n",
			   share->name, c->user);
		return NT_STATUS_ACCESS_DENIED;
	}
	if (share->valid_users != NULL && share->valid_users[0] != NULL &&
	    !in_list(c, share->valid_users)) {
		DBG_NOTICE("share [%s]: %s is not in valid users\n",
			   share->name, c->user);
		return NT_STATUS_ACCESS_DENIED;
	}
	grant->read_only = share->read_only;
	if (in_list(c, share->read_list)) {
		grant->read_only = true;
	}
	if (in_list(c, share->write_list)) {
		grant->read_only = false;       /* write list wins */
	}
	grant->as_root = !grant->as_guest && in_list(c, share->admin_users);
	return c->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

NTSTATUS smbd_share_access(const struct smbd_session *s,
			   const struct lp_share *share,
			   struct smbd_share_grant *grant)
{
	const struct smbd_conn *conn = s->conn;
	struct list_check c = { .mem_ctx = talloc_new(NULL) };
	bool guest = s->guest || s->anonymous;
	NTSTATUS status;

	*grant = (struct smbd_share_grant) { .read_only = true };
	if (c.mem_ctx == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (!access_host_allowed((const char *const *)share->hosts_allow,
				 (const char *const *)share->hosts_deny,
				 conn->addr)) {
		DBG_NOTICE("%s: share [%s] refused by hosts allow/deny\n",
			   conn->peer, share->name);
		talloc_free(c.mem_ctx);
		return NT_STATUS_ACCESS_DENIED;
	}
	if (guest && !share->guest_ok) {
		talloc_free(c.mem_ctx);
		return NT_STATUS_ACCESS_DENIED;
	}
	grant->as_guest = guest || (share->guest_only && share->guest_ok);
	c.user = grant->as_guest ? conn->server->lp->g.guest_account :
		(s->unix_user != NULL ? s->unix_user->name : "");
	subst_values(s, share, &c.v);
	status = user_lists(&c, share, grant);
	talloc_free(c.mem_ctx);
	return status;
}

/* ---- [homes] ---- */

/*
 * [homes] for the account `name` (any Unix account, as in Samba: who may
 * use it is up to the share's lists, e.g. "valid users = %S").
 */
static const struct lp_share *homes_share(TALLOC_CTX *mem_ctx,
					  const struct smbd_session *s,
					  const struct lp_share *homes,
					  const char *name)
{
	struct smbd_unix_user *u = NULL;
	struct lp_share *sh = NULL;
	struct access_subst v;

	if (!NT_STATUS_IS_OK(smbd_unix_user_lookup(mem_ctx, name, &u)) ||
	    u->home[0] == '\0') {
		talloc_free(u);
		return NULL;
	}
	sh = talloc(mem_ctx, struct lp_share);
	if (sh == NULL) {
		talloc_free(u);
		return NULL;
	}
	*sh = *homes;
	talloc_steal(sh, u);
	sh->name = talloc_strdup(sh, u->name);
	subst_values(s, sh, &v);
	sh->path = homes->path[0] == '\0' ? talloc_strdup(sh, u->home) :
		access_substitute(sh, homes->path, &v);
	if (sh->name == NULL || sh->path == NULL) {
		talloc_free(sh);
		return NULL;
	}
	return sh;
}

/*
 * A share whose path has %-substitutions (path = /srv/%U) is copied with
 * them expanded for this session.
 */
static const struct lp_share *subst_share(TALLOC_CTX *mem_ctx,
					  const struct smbd_session *s,
					  const struct lp_share *share)
{
	struct lp_share *sh = NULL;
	struct access_subst v;

	if (strchr(share->path, '%') == NULL) {
		return share;
	}
	sh = talloc(mem_ctx, struct lp_share);
	if (sh == NULL) {
		return NULL;
	}
	*sh = *share;
	subst_values(s, share, &v);
	sh->path = access_substitute(sh, share->path, &v);
	if (sh->path == NULL) {
		talloc_free(sh);
		return NULL;
	}
	return sh;
}

const struct lp_share *smbd_share_lookup(TALLOC_CTX *mem_ctx,
					 const struct smbd_session *s,
					 const char *name)
{
	const struct loadparm *lp = s->conn->server->lp;
	const struct lp_share *share = lp_find_share(lp, name);
	const struct lp_share *homes = lp_find_share(lp, "homes");

	if (share != NULL && share != homes) {
		return subst_share(mem_ctx, s, share);
	}
	if (homes == NULL) {
		return NULL;
	}
	if (strcasecmp(name, "homes") == 0) {
		if (s->unix_user == NULL || s->guest || s->anonymous) {
			return NULL;
		}
		name = s->unix_user->name;      /* one's own home */
	}
	return homes_share(mem_ctx, s, homes, name);
}
