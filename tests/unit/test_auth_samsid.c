/*
 * lib/auth/samsid.c: SIDs as text, the SID file (both ways), algorithmic
 * RIDs and the uid <-> SID map.
 */
#include <string.h>
#include "tests/unit/unit.h"
#include "lib/auth/samsid.h"

static struct smb2_sid domain(void)
{
	return (struct smb2_sid) {
		.authority = 5, .num_auths = 4,
		.sub_auths = { 21, 1789179283u, 4278768628u, 1092633846u },
	};
}

static void test_samsid__sid_text(void **state)
{
	const char *text = "S-1-5-21-1789179283-4278768628-1092633846";
	struct smb2_sid sid, want = domain();
	char buf[SAMSID_SID_TEXT_MAX];
	static const char *const bad[] = {
		"", "S-1-", "S-2-5-21", "S-1-5-", "S-1-5--21", "S-1-5-21-",
		"S-1-x", "S-1-5-4294967296", "S-1-281474976710656",
		"S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16", "s-1-5-21",
		"S-1-5-21 ", " S-1-5-21", "S-1-5-+21", "S-1-5-2x",
	};
	size_t i;

	assert_true(samsid_sid_parse(text, strlen(text), &sid));
	assert_true(smb2_sid_equal(&sid, &want));
	assert_true(samsid_is_domain(&sid));
	samsid_sid_format(&sid, buf);
	assert_string_equal(buf, text);
	assert_true(samsid_sid_parse("S-1-1-0", 7, &sid));
	assert_int_equal(sid.num_auths, 1);
	assert_false(samsid_is_domain(&sid));
	assert_true(samsid_sid_parse("S-1-5", 5, &sid));
	assert_int_equal(sid.num_auths, 0);
	assert_true(samsid_sid_parse(
		"S-1-281474976710655-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15",
		55, &sid));
	assert_int_equal(sid.num_auths, 15);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(samsid_sid_parse(bad[i], strlen(bad[i]), &sid));
	}
	/* the length given is what counts, not a NUL */
	assert_false(samsid_sid_parse(text, 3, &sid));
}

static void test_samsid__random(void **state)
{
	const uint8_t rnd[12] = { 1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff,
				  0xff };
	struct smb2_sid sid;

	samsid_domain_from_random(&sid, rnd);
	assert_true(samsid_is_domain(&sid));
	assert_int_equal(sid.sub_auths[1], 1);
	assert_int_equal(sid.sub_auths[2], 2);
	assert_int_equal(sid.sub_auths[3], 0xffffffffu);
}

static const char *file_text =
	"# written by ringsmb-import-samba\n"
	"domain S-1-5-21-1789179283-4278768628-1092633846\n"
	"\n"
	"user alice 1000\r\n"
	"  user\tbob   1001  \n"
	"user carol 999\n"                      /* 6: below 1000 */
	"user alice 1002\n"                     /* 7: named twice */
	"user dave 1001\n"                      /* 8: RID twice */
	"user eve\n"                            /* 9: no RID */
	"user eve 12x\n"                        /* 10: bad RID */
	"user eve 1003 more\n"                  /* 11 */
	"domain S-1-5-21-1-2-3\n"               /* 12: second domain */
	"domain S-1-5-32\n"                     /* 13: not a domain */
	"group x 1004\n"                        /* 14: unknown */
	"domain\n"                              /* 15: missing value */
	"user frank 4294967295";                /* last line, no newline */

static void test_samsid__file_parse(void **state)
{
	struct samsid_file *f = samsid_file_parse(*state, "sids", file_text,
						  strlen(file_text));
	struct smb2_sid want = domain();

	assert_non_null(f);
	assert_true(f->have_domain);
	assert_true(smb2_sid_equal(&f->domain, &want));
	assert_int_equal(f->num_users, 3);
	assert_string_equal(f->users[0].name, "alice");
	assert_int_equal(f->users[0].rid, 1000);
	assert_string_equal(f->users[1].name, "bob");
	assert_int_equal(f->users[1].rid, 1001);
	assert_string_equal(f->users[2].name, "frank");
	assert_int_equal(f->users[2].rid, 4294967295u);
	assert_int_equal(f->num_diags, 10);
	assert_string_equal(f->diags[0], "sids:6: a RID below 1000 is one "
			    "of Samba's well-known accounts or groups; line "
			    "ignored");
	assert_string_equal(f->diags[1], "sids:7: user named twice; line "
			    "ignored");
	assert_string_equal(f->diags[2], "sids:8: RID given twice; line "
			    "ignored");
	assert_string_equal(f->diags[3], "sids:9: missing RID; line "
			    "ignored");
	assert_string_equal(f->diags[9], "sids:15: missing value; line "
			    "ignored");
	talloc_free(f);
}

static void test_samsid__file_edges(void **state)
{
	char line[SAMSID_MAX_LINE + 40];
	struct samsid_file *f;
	static const char nul[] = "domain S-1-5-21-1-2-3\nuser a\0b 1000\n";

	/* empty: no domain, nothing wrong */
	f = samsid_file_parse(*state, "e", "", 0);
	assert_non_null(f);
	assert_false(f->have_domain);
	assert_int_equal(f->num_diags, 0);
	talloc_free(f);
	/* a NUL inside a line; a line too long */
	f = samsid_file_parse(*state, "n", nul, sizeof(nul) - 1);
	assert_int_equal(f->num_users, 0);
	assert_int_equal(f->num_diags, 1);
	talloc_free(f);
	memset(line, 'x', sizeof(line));
	memcpy(line, "user ", 5);
	f = samsid_file_parse(*state, "l", line, sizeof(line));
	assert_int_equal(f->num_users, 0);
	assert_int_equal(f->num_diags, 1);
	talloc_free(f);
}

static void test_samsid__file_format(void **state)
{
	const struct smb2_sid dom = domain();
	const struct samsid_file_user users[] = {
		{ "alice", 1000 }, { "bob", 3012 },
	};
	char *text = samsid_file_format(*state, &dom, users, 2);
	struct samsid_file *f;

	assert_non_null(text);
	assert_non_null(strstr(text, "\ndomain S-1-5-21-1789179283-"
			       "4278768628-1092633846\nuser alice 1000\n"
			       "user bob 3012\n"));
	f = samsid_file_parse(*state, "x", text, strlen(text));
	assert_true(f->have_domain && smb2_sid_equal(&f->domain, &dom));
	assert_int_equal(f->num_users, 2);
	assert_int_equal(f->num_diags, 0);
	assert_int_equal(f->users[1].rid, 3012);
	talloc_free(f);
	talloc_free(text);
}

static void test_samsid__algorithmic(void **state)
{
	uint32_t rid = 0;

	/* Samba: uid * 2 + algorithmic rid base */
	assert_true(samsid_algorithmic_rid(1005, 1000, &rid));
	assert_int_equal(rid, 3010);
	assert_true(samsid_algorithmic_rid(0, 1000, &rid));
	assert_int_equal(rid, 1000);
	assert_false(samsid_algorithmic_rid(0x7fffffffu, 1000, &rid));
	assert_false(samsid_algorithmic_rid(0xfffffffeu, 1000, &rid));
}

static void test_samsid__map(void **state)
{
	const struct smb2_sid dom = domain();
	/* tdbsam's first; then algorithmic ones that collide with them */
	const struct samsid_user users[] = {
		{ .uid = 1005, .rid = 1000 },
		{ .uid = 1006, .rid = 1001 },
		{ .uid = 1005, .rid = 3010 },   /* uid given twice: dropped */
		{ .uid = 7, .rid = 1001 },      /* RID given twice: dropped */
		{ .uid = 8, .rid = 1016 },
	};
	struct samsid_map *map = samsid_map_new(*state, &dom, users, 5),
		*empty = NULL;
	struct smb2_sid sid, other;
	uint32_t uid = 0;

	assert_non_null(map);
	assert_int_equal(samsid_map_num_users(map), 3);
	assert_true(smb2_sid_equal(samsid_map_domain(map), &dom));

	assert_true(samsid_uid_to_sid(map, 1005, &sid));
	assert_int_equal(sid.num_auths, 5);
	assert_int_equal(sid.sub_auths[4], 1000);
	assert_true(samsid_sid_to_uid(map, &sid, &uid));
	assert_int_equal(uid, 1005);
	assert_true(samsid_uid_to_sid(map, 8, &sid));
	assert_int_equal(sid.sub_auths[4], 1016);
	/* the losers of a collision are not users of the domain */
	assert_false(samsid_uid_to_sid(map, 7, &sid));
	sid.sub_auths[4] = 3010;
	assert_false(samsid_sid_to_uid(map, &sid, &uid));
	sid.sub_auths[4] = 1001;
	assert_true(samsid_sid_to_uid(map, &sid, &uid));
	assert_int_equal(uid, 1006);

	/* Domain Users is not a user; another domain is nobody */
	assert_true(samsid_map_compose(map, SAMSID_RID_USERS, &other));
	assert_false(samsid_sid_to_uid(map, &other, &uid));
	other = sid;
	other.sub_auths[3]++;
	assert_false(samsid_sid_to_uid(map, &other, &uid));
	other = dom;                    /* the domain itself */
	assert_false(samsid_sid_to_uid(map, &other, &uid));
	other = (struct smb2_sid) { .authority = 22, .num_auths = 2,
				    .sub_auths = { 1, 1005 } };
	assert_false(samsid_sid_to_uid(map, &other, &uid));

	/* no map: nobody */
	assert_false(samsid_uid_to_sid(NULL, 1005, &sid));
	assert_false(samsid_sid_to_uid(NULL, &sid, &uid));
	assert_int_equal(samsid_map_num_users(NULL), 0);
	/* only a domain SID makes a map */
	assert_null(samsid_map_new(*state, &other, users, 5));
	empty = samsid_map_new(*state, &dom, NULL, 0);
	assert_non_null(empty);
	assert_false(samsid_uid_to_sid(empty, 1005, &sid));
	talloc_free(empty);
	talloc_free(map);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(test_samsid__##name, \
						unit_setup, unit_teardown)
	const struct CMUnitTest tests[] = {
		T(sid_text),
		T(random),
		T(file_parse),
		T(file_edges),
		T(file_format),
		T(algorithmic),
		T(map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
