/*
 * lib/param/access.h: hosts allow/deny, user lists, NSS groups, veto/hide
 * name lists, the username map and %-substitutions.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "lib/param/access.h"

#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })
static const char *const empty_list[] = { NULL };

static size_t null_blocks;

/* unit_setup plus a check on the NULL context (temporaries live there) */
static int setup(void **state)
{
	null_blocks = talloc_total_blocks(NULL);
	return unit_setup(state);
}

static int teardown(void **state)
{
	int ret = unit_teardown(state);

	if (talloc_total_blocks(NULL) != null_blocks) {
		print_error("talloc leak on the NULL context: %zu blocks\n",
			    talloc_total_blocks(NULL) - null_blocks);
		return -1;
	}
	return ret;
}

/* ---- hosts: single entries ---- */

static void test_host__addresses(void **state)
{
	assert_true(access_host_entry_match("10.1.2.3", "10.1.2.3"));
	assert_false(access_host_entry_match("10.1.2.3", "10.1.2.4"));
	assert_true(access_host_entry_match("fe80::1", "FE80:0::1"));
	assert_true(access_host_entry_match("[fe80::1]", "fe80::1"));
	assert_false(access_host_entry_match("fe80::1", "10.1.2.3"));
	/* mapped client against an IPv4 entry and the other way round */
	assert_true(access_host_entry_match("1.2.3.4", "::ffff:1.2.3.4"));
	assert_true(access_host_entry_match("::ffff:1.2.3.4", "1.2.3.4"));
	/* a zone on the client address */
	assert_true(access_host_entry_match("fe80::1", "fe80::1%eth0"));
}

static void test_host__keywords(void **state)
{
	assert_true(access_host_entry_match("ALL", "10.0.0.1"));
	assert_true(access_host_entry_match("all", "::1"));
	assert_true(access_host_entry_match("FAIL", "10.0.0.1"));
	assert_true(access_host_entry_match("localhost", "127.0.0.1"));
	assert_true(access_host_entry_match("LOCALHOST", "::1"));
	assert_true(access_host_entry_match("localhost",
					    "::ffff:127.0.0.1"));
	assert_false(access_host_entry_match("localhost", "127.0.0.2"));
	/* names: no lookups */
	assert_false(access_host_entry_match("LOCAL", "fe80::1"));
	assert_false(access_host_entry_match("LOCAL", "10.0.0.1"));
	assert_false(access_host_entry_match("server1", "10.0.0.1"));
	assert_false(access_host_entry_match(".example.com", "10.0.0.1"));
	assert_false(access_host_entry_match("@netgroup", "10.0.0.1"));
	assert_false(access_host_entry_match("EXCEPT", "10.0.0.1"));
}

static void test_host__networks(void **state)
{
	assert_true(access_host_entry_match("150.203.5.0/24",
					    "150.203.5.77"));
	assert_false(access_host_entry_match("150.203.5.0/24",
					     "150.203.6.77"));
	assert_true(access_host_entry_match("150.203.15.0/255.255.255.0",
					    "150.203.15.1"));
	assert_false(access_host_entry_match("150.203.15.0/255.255.255.0",
					     "150.203.16.1"));
	assert_true(access_host_entry_match("10.0.0.0/0", "192.168.1.1"));
	assert_true(access_host_entry_match("10.1.2.3/32", "10.1.2.3"));
	assert_false(access_host_entry_match("10.1.2.3/32", "10.1.2.2"));
	assert_true(access_host_entry_match("10.0.0.0/9", "10.127.0.1"));
	assert_false(access_host_entry_match("10.0.0.0/9", "10.128.0.1"));
	assert_true(access_host_entry_match("fe80::/10", "fe80::1234"));
	assert_true(access_host_entry_match("fe80::/10", "febf::1"));
	assert_false(access_host_entry_match("fe80::/10", "fec0::1"));
	assert_true(access_host_entry_match("[fe80::]/10", "fe80::1"));
	assert_true(access_host_entry_match("2001:db8::/32",
					    "2001:db8:ffff::1"));
	assert_false(access_host_entry_match("fe80::/10", "10.0.0.1"));
	assert_false(access_host_entry_match("10.0.0.0/8", "fe80::1"));
	/* mapped network written as IPv6 */
	assert_true(access_host_entry_match("::ffff:10.0.0.0/104",
					    "10.9.9.9"));
	assert_true(access_host_entry_match("::ffff:10.0.0.0/255.0.0.0",
					    "::ffff:10.9.9.9"));
	/* broken networks match nothing */
	assert_false(access_host_entry_match("10.0.0.0/33", "10.0.0.1"));
	assert_false(access_host_entry_match("10.0.0.0/", "10.0.0.1"));
	assert_false(access_host_entry_match("x/8", "10.0.0.1"));
	assert_false(access_host_entry_match("10.0.0.0/ffff::", "10.0.0.1"));
	assert_false(access_host_entry_match("10.0.0.0/8", "garbage"));
}

static void test_host__prefixes_and_wildcards(void **state)
{
	assert_true(access_host_entry_match("150.203.", "150.203.4.1"));
	assert_false(access_host_entry_match("150.203.", "150.20.4.1"));
	assert_false(access_host_entry_match("150.203.", "1.150.203.4"));
	assert_true(access_host_entry_match("150.203.",
					    "::ffff:150.203.4.1"));
	assert_true(access_host_entry_match("192.168.1.*", "192.168.1.9"));
	assert_false(access_host_entry_match("192.168.1.*", "192.168.2.9"));
	assert_true(access_host_entry_match("192.168.1.?", "192.168.1.9"));
	assert_false(access_host_entry_match("192.168.1.?",
					     "192.168.1.19"));
	assert_true(access_host_entry_match("FE80::*", "fe80::abcd"));
	assert_true(access_host_entry_match("*", "anything"));
}

/* ---- hosts: the allow/deny rule ---- */

static void test_host__rule_empty_lists(void **state)
{
	assert_true(access_host_allowed(NULL, NULL, "10.0.0.1"));
	assert_true(access_host_allowed(empty_list, empty_list, "10.0.0.1"));
	assert_true(access_host_allowed(NULL, NULL, "not an address"));
}

static void test_host__rule_allow_only(void **state)
{
	const char *const *allow = L("10.0.0.0/8", "fe80::/10");

	assert_true(access_host_allowed(allow, NULL, "10.2.3.4"));
	assert_true(access_host_allowed(allow, empty_list, "fe80::9"));
	assert_false(access_host_allowed(allow, NULL, "11.2.3.4"));
	assert_false(access_host_allowed(allow, NULL, "2001:db8::1"));
	assert_false(access_host_allowed(allow, NULL, ""));
	assert_false(access_host_allowed(allow, NULL, NULL));
	assert_false(access_host_allowed(L("server1"), NULL, "10.0.0.1"));
}

static void test_host__rule_deny_only(void **state)
{
	const char *const *deny = L("10.0.0.0/8");

	assert_false(access_host_allowed(NULL, deny, "10.2.3.4"));
	assert_false(access_host_allowed(empty_list, deny,
					 "::ffff:10.2.3.4"));
	assert_true(access_host_allowed(NULL, deny, "11.2.3.4"));
	assert_false(access_host_allowed(NULL, L("ALL"), "11.2.3.4"));
}

static void test_host__rule_both(void **state)
{
	const char *const *allow = L("10.1.0.0/16");
	const char *const *deny = L("10.0.0.0/8");

	assert_true(access_host_allowed(allow, deny, "10.1.2.3"));
	assert_false(access_host_allowed(allow, deny, "10.2.2.3"));
	assert_true(access_host_allowed(allow, deny, "11.2.2.3"));
	/* the classic: allow a net, deny everything else */
	assert_false(access_host_allowed(allow, L("ALL"), "11.2.2.3"));
	assert_true(access_host_allowed(allow, L("ALL"), "10.1.9.9"));
}

static void test_host__rule_except(void **state)
{
	const char *const *allow = L("150.203.", "EXCEPT", "150.203.6.66");
	const char *const *deny = L("ALL", "EXCEPT", "10.0.0.0/8",
				    "fe80::/10");

	assert_true(access_host_allowed(allow, NULL, "150.203.6.65"));
	assert_false(access_host_allowed(allow, NULL, "150.203.6.66"));
	assert_false(access_host_allowed(allow, NULL, "150.204.6.66"));
	assert_true(access_host_allowed(NULL, deny, "10.9.9.9"));
	assert_true(access_host_allowed(NULL, deny, "fe80::1"));
	assert_false(access_host_allowed(NULL, deny, "11.9.9.9"));
	assert_false(access_host_allowed(NULL, deny, "2001:db8::1"));
	/* except with nothing before it matches nothing; nothing after it
	 * excepts nothing; a second EXCEPT is only skipped */
	assert_false(access_host_allowed(L("EXCEPT", "ALL"), NULL,
					 "10.0.0.1"));
	assert_true(access_host_allowed(L("ALL", "EXCEPT"), NULL,
					"10.0.0.1"));
	assert_false(access_host_allowed(L("ALL", "EXCEPT", "EXCEPT",
					   "10.0.0.1"), NULL, "10.0.0.1"));
}

static void test_host__rule_loopback(void **state)
{
	/* Samba: loopback is allowed unless denied (and not allowed) */
	assert_true(access_host_allowed(L("10.0.0.0/8"), NULL, "127.0.0.1"));
	assert_true(access_host_allowed(L("10.0.0.0/8"), NULL, "::1"));
	assert_false(access_host_allowed(NULL, L("ALL"), "127.0.0.1"));
	assert_false(access_host_allowed(L("10.0.0.0/8"), L("127.0.0.1"),
					 "127.0.0.1"));
	assert_true(access_host_allowed(L("127.0.0.1"), L("ALL"),
					"127.0.0.1"));
	assert_false(access_host_allowed(NULL, L("localhost"),
					 "::ffff:127.0.0.1"));
	assert_true(access_host_allowed(L("localhost"), L("ALL"), "::1"));
}

static void test_host__odd_clients(void **state)
{
	const char *const *allow = L("10.0.0.0/8");

	assert_false(access_host_allowed(allow, NULL, "10.0.0"));
	assert_false(access_host_allowed(allow, NULL, "[10.0.0.1"));
	assert_false(access_host_allowed(allow, NULL,
		"1111:2222:3333:4444:5555:6666:7777:8888:9999"));
	assert_true(access_host_allowed(NULL, allow, "garbage"));
	/* a name entry never matches, even a client "named" like it */
	assert_false(access_host_allowed(L("garbage"), NULL, "garbage"));
}

static void test_host__problems(void **state)
{
	static const char *const bad[] = {
		"1.2.3.4/99", "1.2.3.4/", "1.2.3.4/1234", "x.y/8",
		"1.2.3.4/255.0.0", "1.2.3.4/ffff::", "fe80::/129",
		"300.1.2.3", "1.2.3", "1.2.3.4.5", "150..", "256.1.",
		"1.2.3.4.", "fe80::zz", "1:2:3", "ho$t", "@", "a b",
	};
	static const char *const good[] = {
		"1.2.3.4", "1.2.3.4/0", "1.2.3.4/32", "10.0.0.0/255.0.0.0",
		"fe80::/10", "[fe80::]/10", "::1", "[::1]", "150.203.",
		"150.", "1.2.3.", "ALL", "EXCEPT", "FAIL", "LOCAL", "localhost",
		"server1", "host-2.example.com", ".example.com", "@netgroup",
		"192.168.*", "example.com.", "::ffff:10.0.0.0/104",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *m = access_host_entry_problem(*state, bad[i]);

		if (m == NULL) {
			fail_msg("no problem found in \"%s\"", bad[i]);
		}
		assert_non_null(strstr(m, bad[i]));
		talloc_free(m);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char *m = access_host_entry_problem(*state, good[i]);

		if (m != NULL) {
			fail_msg("\"%s\": %s", good[i], m);
		}
	}
}

static void test_host__needs_name(void **state)
{
	assert_true(access_host_entry_needs_name("server1"));
	assert_true(access_host_entry_needs_name(".example.com"));
	assert_true(access_host_entry_needs_name("LOCAL"));
	assert_true(access_host_entry_needs_name("@netgroup"));
	assert_true(access_host_entry_needs_name("*.example.com"));
	assert_true(access_host_entry_needs_name("example.com."));
	assert_false(access_host_entry_needs_name("localhost"));
	assert_false(access_host_entry_needs_name("ALL"));
	assert_false(access_host_entry_needs_name("except"));
	assert_false(access_host_entry_needs_name("10.0.0.1"));
	assert_false(access_host_entry_needs_name("fe80::1"));
	assert_false(access_host_entry_needs_name("10.0.0.0/8"));
	assert_false(access_host_entry_needs_name("150.203."));
	assert_false(access_host_entry_needs_name("192.168.1.*"));
	assert_false(access_host_entry_needs_name("fe80::*"));
}

/* ---- user lists ---- */

struct member {
	const char *user, *group;
};

static const struct member members[] = {
	{ "alice", "staff" }, { "bob", "staff" }, { "carol", "admins" },
	{ NULL, NULL },
};

static bool fake_in_group(const char *user, const char *group, void *priv)
{
	const struct member *m = NULL;
	int *calls = priv;

	if (calls != NULL) {
		(*calls)++;
	}
	for (m = members; m->user != NULL; m++) {
		if (strcmp(m->user, user) == 0 && strcmp(m->group, group) == 0) {
			return true;
		}
	}
	return false;
}

static void test_users__names(void **state)
{
	const char *const *l = L("alice", "Bob");

	assert_true(access_user_in_list("alice", l, NULL, NULL));
	assert_true(access_user_in_list("ALICE", l, NULL, NULL));
	assert_true(access_user_in_list("bob", l, NULL, NULL));
	assert_false(access_user_in_list("carol", l, NULL, NULL));
	assert_false(access_user_in_list("alic", l, NULL, NULL));
	assert_false(access_user_in_list("alice", NULL, NULL, NULL));
	assert_false(access_user_in_list("alice", empty_list, NULL, NULL));
	assert_false(access_user_in_list(NULL, l, NULL, NULL));
	assert_true(access_user_in_list("a b", L("A B"), NULL, NULL));
}

static void test_users__groups(void **state)
{
	static const char *const forms[] = {
		"@staff", "+staff", "&staff", "+&staff", "&+staff",
	};
	int calls = 0;
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const char *one[2] = { forms[i], NULL };

		assert_true(access_user_in_list("alice", one, fake_in_group,
						&calls));
		assert_false(access_user_in_list("carol", one, fake_in_group,
						 &calls));
	}
	assert_int_equal(calls, 10);
	/* no in_group: group entries match nothing */
	assert_false(access_user_in_list("alice", L("@staff"), NULL, NULL));
	/* an empty group name is never asked about */
	calls = 0;
	assert_false(access_user_in_list("alice", L("@", "+", "&+"),
					 fake_in_group, &calls));
	assert_int_equal(calls, 0);
	/* a group entry does not match a user of that name */
	assert_false(access_user_in_list("staff", L("@staff"), fake_in_group,
					 NULL));
	assert_true(access_user_in_list("carol", L("bob", "@admins"),
					fake_in_group, NULL));
}

static void test_users__unix_groups(void **state)
{
	struct passwd *pw = getpwuid(0);
	struct group *gr = NULL;
	char *root = NULL;
	char *rootgroup = NULL;
	const char *one[2] = { NULL, NULL };
	char *at = NULL;

	if (pw == NULL || (gr = getgrgid(pw->pw_gid)) == NULL) {
		skip();
	}
	root = talloc_strdup(*state, pw->pw_name);
	rootgroup = talloc_strdup(*state, gr->gr_name);
	assert_true(access_unix_user_in_group(root, rootgroup, NULL));
	assert_false(access_unix_user_in_group(root,
		"no-such-group-rsmbtest", NULL));
	assert_false(access_unix_user_in_group("no-such-user-rsmbtest",
					       rootgroup, NULL));
	assert_false(access_user_in_list(root, L("+no-such-group-rsmbtest"),
					 access_unix_user_in_group, NULL));
	at = talloc_asprintf(*state, "@%s", rootgroup);
	one[0] = at;
	assert_true(access_user_in_list(root, one, access_unix_user_in_group,
					NULL));
	talloc_free(at);
	talloc_free(root);
	talloc_free(rootgroup);
}

/* ---- name lists ---- */

static void test_namelist__parse(void **state)
{
	struct access_namelist *l = access_namelist_parse(*state, "");

	assert_non_null(l);
	assert_int_equal(access_namelist_count(l), 0);
	assert_false(access_namelist_match(l, "x", true));
	talloc_free(l);
	l = access_namelist_parse(*state, NULL);
	assert_int_equal(access_namelist_count(l), 0);
	talloc_free(l);
	l = access_namelist_parse(*state, "//a b//c/");
	assert_int_equal(access_namelist_count(l), 2);
	assert_true(access_namelist_match(l, "a b", true));
	assert_true(access_namelist_match(l, "c", true));
	assert_false(access_namelist_match(l, "a", true));
	talloc_free(l);
	l = access_namelist_parse(*state, "no slashes");
	assert_int_equal(access_namelist_count(l), 1);
	assert_true(access_namelist_match(l, "no slashes", true));
	talloc_free(l);
	assert_false(access_namelist_match(NULL, "x", true));
	assert_int_equal(access_namelist_count(NULL), 0);
}

static void test_namelist__samba_examples(void **state)
{
	struct access_namelist *l = access_namelist_parse(*state,
		"/*Security*/*.tmp/*root*/.AppleDouble/");

	assert_true(access_namelist_match(l, "MySecurityFile", true));
	assert_true(access_namelist_match(l, "x.tmp", true));
	assert_true(access_namelist_match(l, ".tmp", true));
	assert_true(access_namelist_match(l, "root", true));
	assert_true(access_namelist_match(l, ".AppleDouble", true));
	assert_false(access_namelist_match(l, ".appledouble", true));
	assert_true(access_namelist_match(l, ".appledouble", false));
	assert_true(access_namelist_match(l, "X.TMP", false));
	assert_false(access_namelist_match(l, "X.TMP", true));
	assert_false(access_namelist_match(l, "x.tmpx", true));
	talloc_free(l);
}

static void test_namelist__wildcards(void **state)
{
	assert_true(access_wild_match("", "", true));
	assert_false(access_wild_match("", "a", true));
	assert_true(access_wild_match("*", "", true));
	assert_true(access_wild_match("**", "abc", true));
	assert_true(access_wild_match("a*c", "abbbc", true));
	assert_true(access_wild_match("a*b*c", "axxbyyc", true));
	assert_false(access_wild_match("a*b*c", "axxbyy", true));
	assert_true(access_wild_match("?", "x", true));
	assert_false(access_wild_match("?", "", true));
	assert_false(access_wild_match("??", "x", true));
	/* '?' is one character, however many UTF-8 bytes */
	assert_true(access_wild_match("?.txt", "\xc3\xa9.txt", true));
	assert_true(access_wild_match("?", "\xe2\x82\xac", true));
	assert_false(access_wild_match("??", "\xe2\x82\xac", true));
	assert_true(access_wild_match("*\xc3\xa9", "ab\xc3\xa9", true));
	/* only ASCII letters fold */
	assert_true(access_wild_match("ABC*", "abcdef", false));
	assert_false(access_wild_match("\xc3\x89", "\xc3\xa9", false));
	/* no blow-up on a pathological pattern */
	assert_false(access_wild_match("*a*a*a*a*a*a*a*a*a*b",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		true));
}

/* ---- username map ---- */

static struct username_map *map_ok(TALLOC_CTX *ctx, const char *text)
{
	struct username_map *m = NULL;
	char **problems = NULL;

	assert_int_equal(username_map_parse(ctx, "map", text, strlen(text),
					    &m, &problems), 0);
	assert_null(problems);
	assert_non_null(m);
	return m;
}

static void test_usermap__samba_example(void **state)
{
	struct username_map *m = map_ok(*state,
		"# comment\n"
		"; another\n"
		"\n"
		"!root = admin administrator\n"
		"!tridge = \"Andrew Tridgell\"\n"
		"sys = @staff\n"
		"!guest = *\n"
		"never = anyone\n");

	assert_int_equal(username_map_count(m), 5);
	assert_string_equal(username_map_lookup(m, "Admin", NULL, NULL),
			    "root");
	assert_string_equal(username_map_lookup(m, "administrator", NULL,
						NULL), "root");
	assert_string_equal(username_map_lookup(m, "andrew tridgell", NULL,
						NULL), "tridge");
	/* '*' matches everybody, and '!' stops there */
	assert_string_equal(username_map_lookup(m, "anyone", NULL, NULL),
			    "guest");
	assert_string_equal(username_map_lookup(m, "alice", NULL, NULL),
			    "guest");
	talloc_free(m);
}

static void test_usermap__last_match_wins(void **state)
{
	struct username_map *m = map_ok(*state,
		"first = alice\n"
		"second = alice bob\n"
		"!third = bob\n"
		"fourth = bob\n");

	assert_string_equal(username_map_lookup(m, "alice", NULL, NULL),
			    "second");
	assert_string_equal(username_map_lookup(m, "bob", NULL, NULL),
			    "third");
	assert_null(username_map_lookup(m, "carol", NULL, NULL));
	assert_null(username_map_lookup(m, NULL, NULL, NULL));
	assert_null(username_map_lookup(NULL, "bob", NULL, NULL));
	talloc_free(m);
}

static void test_usermap__groups(void **state)
{
	struct username_map *m = map_ok(*state,
		"staffer = @staff\n"
		"boss = +admins\n");

	assert_string_equal(username_map_lookup(m, "alice", fake_in_group,
						NULL), "staffer");
	assert_string_equal(username_map_lookup(m, "carol", fake_in_group,
						NULL), "boss");
	assert_null(username_map_lookup(m, "alice", NULL, NULL));
	assert_null(username_map_lookup(m, "dave", fake_in_group, NULL));
	talloc_free(m);
}

static void test_usermap__syntax(void **state)
{
	static const char text[] =
		"  spaced   =   a,b\tc  \r\n"
		"! stopper = d\n"
		"cont = e \\\n"
		"  f\n"
		"last = g";
	struct username_map *m = map_ok(*state, text);

	assert_int_equal(username_map_count(m), 4);
	assert_string_equal(username_map_lookup(m, "b", NULL, NULL),
			    "spaced");
	assert_string_equal(username_map_lookup(m, "c", NULL, NULL),
			    "spaced");
	assert_string_equal(username_map_lookup(m, "d", NULL, NULL),
			    "stopper");
	assert_string_equal(username_map_lookup(m, "f", NULL, NULL),
			    "cont");
	assert_string_equal(username_map_lookup(m, "g", NULL, NULL),
			    "last");
	talloc_free(m);
	m = map_ok(*state, "");
	assert_int_equal(username_map_count(m), 0);
	talloc_free(m);
	m = map_ok(*state, "x = y \\");
	assert_string_equal(username_map_lookup(m, "y", NULL, NULL), "x");
	talloc_free(m);
}

static void test_usermap__bad_lines(void **state)
{
	static const char text[] =
		"good = a\n"
		"no equals sign\n"
		" = nobody\n"
		"! = b\n"
		"empty =\n"
		"quote = \"open\n"
		"nul = x\0y\n"
		"good2 = c\n";
	struct username_map *m = NULL;
	char **problems = NULL;

	assert_int_equal(username_map_parse(*state, "f.map", text,
					    sizeof(text) - 1, &m, &problems),
			 -1);
	assert_non_null(m);
	assert_int_equal(username_map_count(m), 2);
	assert_string_equal(username_map_lookup(m, "c", NULL, NULL),
			    "good2");
	assert_non_null(problems);
	assert_string_equal(problems[0],
		"f.map:2: expected \"unix name = SMB names\"");
	assert_string_equal(problems[1], "f.map:3: no unix name before '='");
	assert_string_equal(problems[2], "f.map:4: no unix name before '='");
	assert_string_equal(problems[3], "f.map:5: no SMB names after '='");
	assert_string_equal(problems[4],
		"f.map:6: a double quote is not closed");
	assert_string_equal(problems[5], "f.map:7: a NUL byte in the line");
	assert_null(problems[6]);
	talloc_free(problems);
	talloc_free(m);
	/* without a place for them, problems are still counted */
	assert_int_equal(username_map_parse(*state, "f.map", "bad\n", 4, &m,
					    NULL), -1);
	talloc_free(m);
}

static void test_usermap__truncations(void **state)
{
	static const char text[] =
		"root = admin \"a b\" @g\n!x = *\\\n y\n; c\n";
	size_t i;

	for (i = 0; i <= sizeof(text) - 1; i++) {
		uint8_t *g = guard_dup(text, i);
		struct username_map *m = NULL;
		char **problems = NULL;

		username_map_parse(*state, "t", (const char *)g, i, &m,
				   &problems);
		assert_non_null(m);
		(void)username_map_lookup(m, "admin", fake_in_group, NULL);
		talloc_free(m);
		talloc_free(problems);
		guard_free(g);
	}
}

/* ---- substitutions ---- */

static void test_subst__all(void **state)
{
	struct access_subst v = {
		.smb_user = "Alice", .unix_user = "alice",
		.unix_group = "staff", .home = "/home/alice",
		.share = "data", .client_addr = "10.0.0.7",
		.client_name = "10.0.0.7", .server_name = "SRV",
		.workgroup = "WG", .hostname = "srv.example.com",
		.path = "/srv/data",
	};
	char *s = access_substitute(*state,
		"%U %u %G %g %H %S %P %m %M %I %J %L %N %D %h", &v);

	assert_string_equal(s, "Alice alice staff staff /home/alice data "
			    "/srv/data 10.0.0.7 10.0.0.7 10.0.0.7 10_0_0_7 "
			    "SRV SRV WG srv.example.com");
	talloc_free(s);
}

static void test_subst__odd(void **state)
{
	struct access_subst v = { .smb_user = "../e/v:il\\x", .share = "s" };
	struct access_subst none = { .share = NULL };
	char *s = NULL;

	s = access_substitute(*state, "/srv/%U", &v);
	assert_string_equal(s, "/srv/.._e_v_il_x");
	talloc_free(s);
	s = access_substitute(*state, "%X %% %%S 100% %", &v);
	assert_string_equal(s, "%X %% %s 100% %");
	talloc_free(s);
	s = access_substitute(*state, "%U-%u-%S-%I-%T", &none);
	assert_string_equal(s, "----%T");
	talloc_free(s);
	s = access_substitute(*state, "", &v);
	assert_string_equal(s, "");
	talloc_free(s);
	s = access_substitute(*state, "plain", &v);
	assert_string_equal(s, "plain");
	talloc_free(s);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	static const struct CMUnitTest tests[] = {
		T(test_host__addresses),
		T(test_host__keywords),
		T(test_host__networks),
		T(test_host__prefixes_and_wildcards),
		T(test_host__rule_empty_lists),
		T(test_host__rule_allow_only),
		T(test_host__rule_deny_only),
		T(test_host__rule_both),
		T(test_host__rule_except),
		T(test_host__rule_loopback),
		T(test_host__odd_clients),
		T(test_host__problems),
		T(test_host__needs_name),
		T(test_users__names),
		T(test_users__groups),
		T(test_users__unix_groups),
		T(test_namelist__parse),
		T(test_namelist__samba_examples),
		T(test_namelist__wildcards),
		T(test_usermap__samba_example),
		T(test_usermap__last_match_wins),
		T(test_usermap__groups),
		T(test_usermap__syntax),
		T(test_usermap__bad_lines),
		T(test_usermap__truncations),
		T(test_subst__all),
		T(test_subst__odd),
	};
	int ret;

	talloc_enable_null_tracking();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	talloc_disable_null_tracking();
	return ret;
}
