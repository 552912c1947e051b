/*
 * Share access controls with Samba's semantics (docs/smb.conf.md,
 * docs/security.md): hosts allow/deny, user lists, veto/hide name lists,
 * the username map and %-substitutions.  Pure functions over strings;
 * the only system calls are the NSS lookups of
 * access_unix_user_in_group().  The daemon decides where they apply.
 */
#ifndef RINGSMB_PARAM_ACCESS_H
#define RINGSMB_PARAM_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>

/* ---- hosts allow / hosts deny (access_host.c) ---- */

/*
 * Whether a client at addr (numeric, as from getnameinfo/inet_ntop; an
 * IPv4-mapped IPv6 address "::ffff:1.2.3.4" counts as 1.2.3.4) may
 * connect.  Samba's rule:
 *   - the loopback addresses (127.0.0.1, ::1) are always allowed unless
 *     deny matches them and allow does not;
 *   - both lists empty: allowed;
 *   - allow only: allowed iff allow matches;
 *   - deny only: allowed iff deny does not match;
 *   - both: allowed if allow matches, else denied if deny matches, else
 *     allowed.
 * A list matches if an entry before its first "EXCEPT" matches and no
 * entry after it does.  Entries: "ALL" (and Samba's "FAIL"), addresses
 * (IPv4, IPv6, "[v6]"), networks "a.b.c.d/n", "a.b.c.d/m.a.s.k",
 * "fe80::/10", "[fe80::]/10", prefixes "150.203.", wildcards
 * "192.168.1.*".  ringsmb does no name lookups: "localhost" matches the
 * loopback addresses and every other name entry ("host", ".domain",
 * "LOCAL", "@netgroup") matches nothing.  An unparsable addr matches
 * only "ALL"/"FAIL" entries and the rule above.
 */
bool access_host_allowed(const char *const *allow, const char *const *deny,
			 const char *addr);

/* Does one entry match addr (no EXCEPT handling)? */
bool access_host_entry_match(const char *entry, const char *addr);

/*
 * An entry that can never be understood (e.g. "1.2.3.4/99", "300.1.2.3",
 * "fe80::zz"): a talloc'd message saying why, else NULL (also NULL when
 * out of memory: callers can't tell, and a message is only advice).
 */
char *access_host_entry_problem(TALLOC_CTX *mem_ctx, const char *entry);

/*
 * True for an entry that could only match through a host name lookup,
 * which ringsmb does not do ("badhost", ".example.com", "LOCAL",
 * "@netgroup"; not "localhost", "ALL", "EXCEPT", addresses, networks,
 * prefixes or wildcards).  Such an entry matches nothing: harmless where
 * a match allows, a silent grant where it denies (config checking).
 */
bool access_host_entry_needs_name(const char *entry);

/* ---- user lists (access_user.c) ---- */

typedef bool (*access_in_group_fn)(const char *user, const char *group,
				   void *private_data);

/*
 * valid users, invalid users, read list, write list, admin users: plain
 * names match case-insensitively (ASCII); "@g", "+g", "&g", "+&g" and
 * "&+g" mean members of the Unix group g, asked through in_group (NULL:
 * group entries match nothing).  ringsmb has no NIS netgroups, so '&'
 * means a Unix group too.  "%S"-style substitutions are done by the
 * caller before.  A NULL or empty list matches nothing.
 */
bool access_user_in_list(const char *user, const char *const *list,
			 access_in_group_fn in_group, void *private_data);

/*
 * NSS: user's primary group (getpwnam_r) or a supplementary membership
 * (getgrnam_r members, getgrouplist): the in_group for the daemon.
 * private_data is unused.  False when either name is unknown.
 */
bool access_unix_user_in_group(const char *user, const char *group,
			       void *private_data);

/* ---- veto files / hide files (access_namelist.c) ---- */

/*
 * Samba's "/pat1/pat2/" lists: entries separated by '/', so they may hold
 * blanks; empty entries are skipped, so "pat" without slashes is one
 * entry.  '*' matches any run of characters, '?' exactly one (UTF-8)
 * character.  Entries match the last component of a name.
 */
struct access_namelist;

/* NULL only on ENOMEM; "" (or NULL) gives an empty list */
struct access_namelist *access_namelist_parse(TALLOC_CTX *mem_ctx,
					      const char *spec);
size_t access_namelist_count(const struct access_namelist *l);
/* name: one path component; case_sensitive false folds ASCII letters */
bool access_namelist_match(const struct access_namelist *l,
			   const char *name, bool case_sensitive);

/* '*' and '?' (one UTF-8 character) wildcard match of a whole string */
bool access_wild_match(const char *pattern, const char *s,
		       bool case_sensitive);

/* ---- username map (access_usermap.c) ---- */

/*
 * Samba format: lines "unixname = smbname1 smbname2 \"quoted name\"
 * @group *"; a '!' before unixname stops the search after this line if
 * it matched; '#' and ';' start comment lines; a trailing '\' continues
 * a line; the last matching line wins unless a '!' line matched first.
 */
struct username_map;

/*
 * 0 ok; -1 when out of memory (*out NULL) or when a line was bad (*out
 * holds the good lines; the caller decides whether to use them).  Bad
 * lines are described as "NAME:LINE: what is wrong" in *problems, a
 * NULL-terminated talloc array on mem_ctx (NULL when there are none);
 * problems may be NULL.  text need not be NUL-terminated.
 */
int username_map_parse(TALLOC_CTX *mem_ctx, const char *name,
		       const char *text, size_t len,
		       struct username_map **out, char ***problems);
/* Number of lines understood */
size_t username_map_count(const struct username_map *map);
/*
 * The unix name for smb_name, or NULL if no line maps it; in_group for
 * "@group" entries ("+", "&" too, as in user lists).  Points into map.
 */
const char *username_map_lookup(const struct username_map *map,
				const char *smb_name,
				access_in_group_fn in_group,
				void *private_data);

/* ---- %-substitutions (access_subst.c) ---- */

/*
 * Samba's variables in share parameters:
 *   %U smb_user (the session user name as sent; characters other than
 *      letters, digits, non-ASCII bytes and " ._-" become '_', as Samba
 *      does, so it never holds a '/')
 *   %u unix_user     %G %g unix_group (primary group of %u)
 *   %H home          %S share      %P path (root of the share)
 *   %m client_name (NetBIOS name; the daemon has none and passes the
 *      address)      %M client_name too (we do no reverse lookups)
 *   %I client_addr   %J client_addr with '.' and ':' as '_'
 *   %L %N server_name             %D workgroup      %h hostname
 * NULL fields expand to "".  Any other "%X" is left as it is (and X is
 * looked at again, so "%%U" gives "%" then %U).  NULL only on ENOMEM.
 * Values are inserted verbatim otherwise: "." or ".." from %u in a path
 * is the caller's to refuse.
 */
struct access_subst {
	const char *smb_user, *unix_user, *unix_group, *home, *share,
		*client_addr, *client_name, *server_name, *workgroup,
		*hostname;
	const char *path;       /* %P; added after the first version */
};
char *access_substitute(TALLOC_CTX *mem_ctx, const char *s,
			const struct access_subst *v);

#endif
