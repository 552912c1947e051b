/*
 * Access-control checks on smb.conf entries: nothing in smb.conf may
 * silently grant more than it says.
 *
 * Samba parameters that ringsmb does not implement are in one table
 * below.  The rule for each:
 *   - it restricts access (with the value given) and ringsmb cannot
 *     enforce it: an ERROR, so smbd refuses to start;
 *   - its Samba default is the restrictive choice, the value given only
 *     loosens, and ringsmb behaves as with the default: a WARNING;
 *   - a value ringsmb already behaves as: nothing.
 * Parameters not in this table and not in lp_params[] are "unknown"
 * (a warning): none of those may restrict access.
 *
 * Also: hosts allow / hosts deny entries are checked here, because an
 * entry that can never match is only harmless on the allowing side.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib/param/access.h"
#include "lib/param/param_private.h"

#define WHERE_GLOBAL 0x1
#define WHERE_SHARE  0x2
#define WHERE_ANY    (WHERE_GLOBAL | WHERE_SHARE)

struct lp_refused {
	const char *name;
	const char *const *synonyms;
	unsigned where;                 /* sections it is checked in */
	/* does this value restrict (ERROR) / loosen (WARNING)?  NULL: any */
	bool (*applies)(const char *value);
	enum lp_severity severity;
	const char *why;
};

#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ---- value predicates; an unparsable value counts as applying ---- */

static bool v_true(const char *v)
{
	bool b = true;

	return !lp_parse_bool(v, &b) || b;
}

static bool v_false(const char *v)
{
	bool b = false;

	return !lp_parse_bool(v, &b) || !b;
}

static bool v_nonempty(const char *v)
{
	return v[0] != '\0';
}

static bool v_octal_not(const char *v, long want)
{
	char *end = NULL;
	long m = strtol(v, &end, 8);

	return v[0] == '\0' || *end != '\0' || m != want;
}

static bool v_not_0777(const char *v)
{
	return v_octal_not(v, 0777);
}

static bool v_not_0(const char *v)
{
	return v_octal_not(v, 0);
}

static bool v_not_root(const char *v)
{
	return v[0] != '\0' && strcmp(v, "/") != 0;
}

static bool v_one_of(const char *v, const char *const *ok)
{
	for (; *ok != NULL; ok++) {
		if (lp_name_eq(v, *ok)) {
			return false;
		}
	}
	return true;
}

static bool v_security(const char *v)
{
	return v_one_of(v, NAMES("user", "auto"));
}

static bool v_server_role(const char *v)
{
	return v_one_of(v, NAMES("auto", "standalone", "standalone server"));
}

static bool v_ntlm_disabled(const char *v)
{
	return lp_name_eq(v, "disabled");
}

static bool v_not_file(const char *v)
{
	return !lp_name_eq(v, "file");
}

static bool v_not_zero(const char *v)
{
	return strcmp(v, "0") != 0;
}

/* A list that leaves out one of Samba's default items restricts. */
static bool v_drops_any(const char *v, const char *const *defaults)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	const char **l = lp_list_parse(tmp, v);
	bool drops = (l == NULL);
	size_t i;

	for (; !drops && *defaults != NULL; defaults++) {
		bool found = false;

		for (i = 0; l[i] != NULL && !found; i++) {
			found = strcasecmp(l[i], *defaults) == 0;
		}
		drops = !found;
	}
	talloc_free(tmp);
	return drops;
}

static bool v_enc_algs(const char *v)
{
	return v_drops_any(v, NAMES("AES-128-GCM", "AES-128-CCM",
				    "AES-256-GCM", "AES-256-CCM"));
}

static bool v_sign_algs(const char *v)
{
	return v_drops_any(v, NAMES("AES-128-GMAC", "AES-128-CMAC",
				    "HMAC-SHA256"));
}

/* ---- the table ---- */

static const struct lp_refused lp_refused[] = {
	/* only the "username" list may connect */
	{ "only user", NULL, WHERE_ANY, v_true, LP_DIAG_ERROR,
	  "only the users of \"username\" would be let in" },
	/* the list "only user" restricts to; alone a hint, but written
	 * to restrict */
	{ "username", NAMES("user", "users"), WHERE_ANY, v_nonempty,
	  LP_DIAG_ERROR, "use \"valid users\" instead" },
	/* clients may change permissions through security descriptors
	 * (SET_INFO): these masks would limit which bits */
	{ "security mask", NULL, WHERE_ANY, v_not_0777, LP_DIAG_ERROR,
	  "clients could set any permission bit" },
	{ "directory security mask", NULL, WHERE_ANY, v_not_0777,
	  LP_DIAG_ERROR, "clients could set any permission bit" },
	{ "force security mode", NULL, WHERE_ANY, v_not_0, LP_DIAG_ERROR,
	  "these bits would not be forced on" },
	{ "force directory security mode", NULL, WHERE_ANY, v_not_0,
	  LP_DIAG_ERROR, "these bits would not be forced on" },
	/* new files would get create mask modes, not the parent's ACL */
	{ "inherit acls", NULL, WHERE_ANY, v_true, LP_DIAG_ERROR,
	  "new files would not take their parent's ACL" },
	/* ringsmb follows symlinks that stay inside the share */
	{ "follow symlinks", NULL, WHERE_ANY, v_false, LP_DIAG_ERROR,
	  "symlinks inside the share would still be followed" },
	/* Samba's default (no wide links) is what ringsmb always does:
	 * openat2(RESOLVE_BENEATH), docs/vfs.md */
	{ "wide links", NULL, WHERE_ANY, v_true, LP_DIAG_WARNING,
	  "links leaving the share are never followed" },
	{ "allow insecure wide links", NULL, WHERE_GLOBAL, v_true,
	  LP_DIAG_WARNING, "links leaving the share are never followed" },
	/* extra permission checks before a delete */
	{ "check parent directory delete on close", NULL, WHERE_ANY, v_true,
	  LP_DIAG_ERROR, "the parent directory would not be checked" },
	/* hiding: what the file says is hidden would be listed */
	{ "hide special files", NULL, WHERE_ANY, v_true, LP_DIAG_ERROR,
	  "special files would be listed" },
	{ "hide unwriteable files", NULL, WHERE_ANY, v_true, LP_DIAG_ERROR,
	  "unwriteable files would be listed" },
	{ "dont descend", NULL, WHERE_ANY, v_nonempty, LP_DIAG_ERROR,
	  "these directories would be listed" },
	/* a script's exit code decides whether the connection stays */
	{ "preexec close", NULL, WHERE_ANY, v_true, LP_DIAG_ERROR,
	  "no preexec script is run" },
	{ "root preexec close", NULL, WHERE_ANY, v_true, LP_DIAG_ERROR,
	  "no preexec script is run" },
	/* PAM account and session checks at logon */
	{ "obey pam restrictions", NULL, WHERE_GLOBAL, v_true, LP_DIAG_ERROR,
	  "PAM is not asked" },
	/* a print share takes print jobs only; ringsmb would serve the
	 * spool directory as a disk share */
	{ "printable", NAMES("print ok"), WHERE_ANY, v_true, LP_DIAG_ERROR,
	  "the share would be a readable disk share" },
	/* the parameters (valid users...) of another share would be lost */
	{ "copy", NULL, WHERE_SHARE, v_nonempty, LP_DIAG_ERROR,
	  "the copied share's parameters would be missing" },
	/* another file, or the registry, would be the configuration */
	{ "config file", NULL, WHERE_GLOBAL, v_nonempty, LP_DIAG_ERROR,
	  "that file would not be read" },
	{ "config backend", NULL, WHERE_GLOBAL, v_not_file, LP_DIAG_ERROR,
	  "only this file is read" },
	/* a chroot confines the whole server */
	{ "root directory", NAMES("root dir", "root"), WHERE_GLOBAL,
	  v_not_root, LP_DIAG_ERROR, "the server does not chroot" },
	/* the mapping would be skipped: users keep the name they sent */
	{ "username map script", NULL, WHERE_GLOBAL, v_nonempty,
	  LP_DIAG_ERROR, "the script is not run" },
	/* domain or AD logons: ringsmb would use its smbpasswd users */
	{ "security", NULL, WHERE_GLOBAL, v_security, LP_DIAG_ERROR,
	  "ringsmb is a standalone server (security = user)" },
	{ "server role", NULL, WHERE_GLOBAL, v_server_role, LP_DIAG_ERROR,
	  "ringsmb is a standalone server" },
	/* "disabled" refuses NTLM altogether; ringsmb logs on with NTLMv2
	 * only, which every other value (Samba's default too) allows */
	{ "ntlm auth", NULL, WHERE_GLOBAL, v_ntlm_disabled, LP_DIAG_ERROR,
	  "NTLMv2 logons would still be accepted" },
	/* Samba's defaults refuse these; so does ringsmb, always */
	{ "lanman auth", NULL, WHERE_GLOBAL, v_true, LP_DIAG_WARNING,
	  "LM logons are always refused" },
	{ "null passwords", NULL, WHERE_GLOBAL, v_true, LP_DIAG_WARNING,
	  "empty passwords are always refused" },
	{ "encrypt passwords", NULL, WHERE_GLOBAL, v_false, LP_DIAG_WARNING,
	  "plain-text passwords are always refused" },
	/* Samba's default, which ringsmb always does (docs/vfs.md); "no"
	 * would map attributes to mode bits instead */
	{ "store dos attributes", NULL, WHERE_ANY, v_false, LP_DIAG_WARNING,
	  "DOS attributes are always stored in user.DOSATTRIB" },
	/* Samba's max connections is per share; ringsmb's is global */
	{ "max connections", NULL, WHERE_SHARE, v_not_zero, LP_DIAG_ERROR,
	  "ringsmb limits connections only server-wide ([global])" },
	/* leaving out an algorithm would not stop ringsmb offering it */
	{ "server smb3 encryption algorithms", NULL, WHERE_GLOBAL,
	  v_enc_algs, LP_DIAG_ERROR,
	  "ringsmb offers every cipher it has" },
	{ "server smb3 signing algorithms", NULL, WHERE_GLOBAL, v_sign_algs,
	  LP_DIAG_ERROR, "ringsmb offers every signing algorithm it has" },
};

static bool name_in(const char *key, const struct lp_refused *r)
{
	const char *const *s = NULL;

	if (lp_name_eq(key, r->name)) {
		return true;
	}
	for (s = r->synonyms; s != NULL && *s != NULL; s++) {
		if (lp_name_eq(key, *s)) {
			return true;
		}
	}
	return false;
}

static const struct lp_refused *refused_find(const char *key,
					     unsigned where)
{
	size_t i;

	for (i = 0; i < sizeof(lp_refused) / sizeof(lp_refused[0]); i++) {
		if ((lp_refused[i].where & where) &&
		    name_in(key, &lp_refused[i])) {
			return &lp_refused[i];
		}
	}
	return NULL;
}

bool lp_check_refused(bool in_share, const struct lp_entry *e,
		      struct lp_diags *d)
{
	const struct lp_refused *r = refused_find(
		e->key, in_share ? WHERE_SHARE : WHERE_GLOBAL);

	if (r == NULL) {
		return false;
	}
	if (r->applies != NULL && !r->applies(e->value)) {
		/* as ringsmb behaves: accepted, if it is a known one */
		return lp_param_find(e->key, &(bool){ false }) == NULL;
	}
	if (r->severity == LP_DIAG_ERROR) {
		lp_diag_add(d, LP_DIAG_ERROR, e->file, e->line,
			    "parameter \"%s\" restricts access and ringsmb "
			    "cannot enforce it: %s", e->key, r->why);
	} else {
		lp_diag_add(d, LP_DIAG_WARNING, e->file, e->line,
			    "parameter \"%s\" is not supported: ignored "
			    "(%s)", e->key, r->why);
	}
	return true;
}

/* ---- hosts allow / hosts deny ---- */

static bool is_except(const char *s)
{
	return strcasecmp(s, "EXCEPT") == 0;
}

/*
 * deny: whether a match of this entry denies (hosts deny before its
 * EXCEPT, hosts allow after it): a name entry that cannot match would
 * then let the host in.
 */
static void check_host_entry(const char *entry, bool deny,
			     const struct lp_entry *e, struct lp_diags *d)
{
	char *problem = access_host_entry_problem(d->mem_ctx, entry);

	if (problem != NULL) {
		lp_diag_add(d, LP_DIAG_ERROR, e->file, e->line,
			    "parameter \"%s\": %s", e->key, problem);
		talloc_free(problem);
		return;
	}
	if (!access_host_entry_needs_name(entry)) {
		return;
	}
	if (deny) {
		lp_diag_add(d, LP_DIAG_ERROR, e->file, e->line,
			    "parameter \"%s\": \"%s\" needs a host name "
			    "lookup, which ringsmb does not do: it would "
			    "deny nothing", e->key, entry);
	} else {
		lp_diag_add(d, LP_DIAG_WARNING, e->file, e->line,
			    "parameter \"%s\": \"%s\" needs a host name "
			    "lookup, which ringsmb does not do: it matches "
			    "nothing", e->key, entry);
	}
}

static void check_host_list(const struct lp_entry *e, bool is_deny,
			    struct lp_diags *d)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	const char **l = lp_list_parse(tmp, e->value);
	bool after_except = false;

	for (; l != NULL && *l != NULL; l++) {
		if (is_except(*l)) {
			after_except = true;
			continue;
		}
		check_host_entry(*l, is_deny != after_except, e, d);
	}
	talloc_free(tmp);
}

/*
 * interfaces: Samba ignores what it cannot parse; so does ringsmb, but it
 * says so.  Nothing here grants access (an entry only narrows where
 * smbd listens and what it advertises).
 */
static void check_interfaces(const struct lp_entry *e, struct lp_diags *d)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	const char **l = lp_list_parse(tmp, e->value);

	for (; l != NULL && *l != NULL; l++) {
		struct lp_iface iface;
		bool fatal = false;
		char *problem = lp_iface_parse(tmp, *l, &iface, &fatal);

		if (problem != NULL) {
			lp_diag_add(d, LP_DIAG_WARNING, e->file, e->line,
				    "parameter \"%s\": \"%s\": %s; %s",
				    e->key, *l, problem,
				    fatal ? "the entry is ignored" :
				    "that key is ignored");
		}
	}
	talloc_free(tmp);
}

void lp_check_value(const struct lp_param *p, const struct lp_entry *e,
		    struct lp_diags *d)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (strcmp(p->name, "metrics listen") == 0 && e->value[0] != '\0' &&
	    !lp_parse_listen_addr(e->value, &ss, &len)) {
		lp_diag_add(d, LP_DIAG_ERROR, e->file, e->line,
			    "parameter \"%s\": \"%s\" is not ADDRESS:PORT "
			    "(e.g. 127.0.0.1:9922)", e->key, e->value);
	} else if (strcmp(p->name, "interfaces") == 0) {
		check_interfaces(e, d);
	} else if (strcmp(p->name, "hosts allow") == 0) {
		check_host_list(e, false, d);
	} else if (strcmp(p->name, "hosts deny") == 0) {
		check_host_list(e, true, d);
	}
}
