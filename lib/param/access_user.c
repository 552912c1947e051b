/*
 * User lists (valid users, invalid users, read list, write list, admin
 * users) and the NSS group membership test the daemon gives them.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "lib/param/access.h"

/*
 * The group name in a list entry, or NULL for a plain name.  Samba:
 * '@' netgroup then Unix group, '+' Unix group, '&' netgroup, "+&" and
 * "&+" both; without netgroups every form is a Unix group.
 */
static const char *entry_group(const char *entry)
{
	if (entry[0] == '@') {
		return entry + 1;
	}
	if ((entry[0] == '+' && entry[1] == '&') ||
	    (entry[0] == '&' && entry[1] == '+')) {
		return entry + 2;
	}
	if (entry[0] == '+' || entry[0] == '&') {
		return entry + 1;
	}
	return NULL;
}

static bool entry_match(const char *entry, const char *user,
			access_in_group_fn in_group, void *private_data)
{
	const char *group = entry_group(entry);

	if (group == NULL) {
		return strcasecmp(entry, user) == 0;
	}
	return group[0] != '\0' && in_group != NULL &&
		in_group(user, group, private_data);
}

bool access_user_in_list(const char *user, const char *const *list,
			 access_in_group_fn in_group, void *private_data)
{
	if (user == NULL) {
		return false;
	}
	for (; list != NULL && *list != NULL; list++) {
		if (entry_match(*list, user, in_group, private_data)) {
			return true;
		}
	}
	return false;
}

/* ---- NSS ---- */

/* Starting size of the getpw*_r / getgr*_r buffers; doubled on ERANGE */
static size_t nss_bufsize(int name)
{
	long n = sysconf(name);

	return (n > 0 && n < (1 << 20)) ? (size_t)n : 1024;
}

#define NSS_MAX_BUF (1 << 22)

/* getpwnam_r with a growing talloc buffer; false if unknown or failed */
static bool nss_pw(TALLOC_CTX *mem_ctx, const char *name, struct passwd *pw)
{
	size_t size = nss_bufsize(_SC_GETPW_R_SIZE_MAX);
	struct passwd *res = NULL;
	int ret = ERANGE;

	while (ret == ERANGE && size <= NSS_MAX_BUF) {
		char *buf = talloc_array(mem_ctx, char, size);

		if (buf == NULL) {
			return false;
		}
		ret = getpwnam_r(name, pw, buf, size, &res);
		size *= 2;
	}
	return ret == 0 && res != NULL;
}

static bool nss_gr(TALLOC_CTX *mem_ctx, const char *name, struct group *gr)
{
	size_t size = nss_bufsize(_SC_GETGR_R_SIZE_MAX);
	struct group *res = NULL;
	int ret = ERANGE;

	while (ret == ERANGE && size <= NSS_MAX_BUF) {
		char *buf = talloc_array(mem_ctx, char, size);

		if (buf == NULL) {
			return false;
		}
		ret = getgrnam_r(name, gr, buf, size, &res);
		size *= 2;
	}
	return ret == 0 && res != NULL;
}

static bool gr_has_member(const struct group *gr, const char *user)
{
	char **m = NULL;

	for (m = gr->gr_mem; m != NULL && *m != NULL; m++) {
		if (strcmp(*m, user) == 0) {
			return true;
		}
	}
	return false;
}

/* getgrouplist: memberships NSS knows but gr_mem does not list (LDAP) */
static bool grouplist_has(TALLOC_CTX *mem_ctx, const struct passwd *pw,
			  gid_t gid)
{
	int n = 64;
	int i;

	for (;;) {
		gid_t *gids = talloc_array(mem_ctx, gid_t, n);
		int got = n;

		if (gids == NULL) {
			return false;
		}
		if (getgrouplist(pw->pw_name, pw->pw_gid, gids, &got) != -1) {
			for (i = 0; i < got; i++) {
				if (gids[i] == gid) {
					return true;
				}
			}
			return false;
		}
		if (got <= n || got > 65536) {
			return false;
		}
		n = got;
	}
}

bool access_unix_user_in_group(const char *user, const char *group,
			       void *private_data)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct passwd pw;
	struct group gr;
	bool ret = false;

	(void)private_data;
	if (tmp != NULL && nss_pw(tmp, user, &pw) && nss_gr(tmp, group, &gr)) {
		ret = pw.pw_gid == gr.gr_gid ||
			gr_has_member(&gr, pw.pw_name) ||
			grouplist_has(tmp, &pw, gr.gr_gid);
	}
	talloc_free(tmp);
	return ret;
}
