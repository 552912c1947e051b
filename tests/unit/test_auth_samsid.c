/*
 * lib/auth/samsid.c: Samba's domain SID as secrets.tdb stores it, the
 * tdbsam RID index records, algorithmic RIDs and the uid <-> SID map.
 */
#include <string.h>
#include "tests/unit/unit.h"
#include "lib/auth/samsid.h"

/* S-1-5-21-1789179283-4278768628-1092633846 as Samba 4.17 stored it */
static const uint8_t samba_blob[SAMSID_DOM_SID_SIZE] = {
	0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x15, 0x00, 0x00, 0x00,
	0x93, 0xb5, 0xa4, 0x6a,         /* 1789179283 */
	0xf4, 0xd3, 0x08, 0xff,         /* 4278768628 */
	0xf6, 0x44, 0x20, 0x41,         /* 1092633846 */
};

static struct smb2_sid domain(void)
{
	return (struct smb2_sid) {
		.authority = 5, .num_auths = 4,
		.sub_auths = { 21, 1789179283u, 4278768628u, 1092633846u },
	};
}

static void test_samsid__dom_sid(void **state)
{
	struct smb2_sid sid, want = domain();
	uint8_t out[SAMSID_DOM_SID_SIZE], bad[SAMSID_DOM_SID_SIZE];

	assert_true(samsid_dom_sid_parse(samba_blob, sizeof(samba_blob),
					 &sid));
	assert_true(smb2_sid_equal(&sid, &want));
	samsid_dom_sid_push(&sid, out);
	assert_memory_equal(out, samba_blob, sizeof(out));

	/* the wrong size, revision, count, or not a domain SID */
	assert_false(samsid_dom_sid_parse(samba_blob, 67, &sid));
	assert_false(samsid_dom_sid_parse(NULL, 68, &sid));
	memcpy(bad, samba_blob, sizeof(bad));
	bad[0] = 2;
	assert_false(samsid_dom_sid_parse(bad, sizeof(bad), &sid));
	memcpy(bad, samba_blob, sizeof(bad));
	bad[1] = 16;
	assert_false(samsid_dom_sid_parse(bad, sizeof(bad), &sid));
	bad[1] = 5;                     /* S-1-5-21-x-y-z-0: a user SID */
	assert_false(samsid_dom_sid_parse(bad, sizeof(bad), &sid));
	memcpy(bad, samba_blob, sizeof(bad));
	bad[8] = 32;                    /* S-1-5-32-...: BUILTIN */
	assert_false(samsid_dom_sid_parse(bad, sizeof(bad), &sid));
	memcpy(bad, samba_blob, sizeof(bad));
	bad[7] = 1;                     /* S-1-1-21-... */
	assert_false(samsid_dom_sid_parse(bad, sizeof(bad), &sid));
}

static void test_samsid__random_and_key(void **state)
{
	const uint8_t rnd[12] = { 1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff,
				  0xff };
	struct smb2_sid sid;
	uint8_t out[SAMSID_DOM_SID_SIZE];
	struct smb2_sid back;
	char *key;

	samsid_domain_from_random(&sid, rnd);
	assert_int_equal(sid.num_auths, 4);
	assert_int_equal(sid.authority, 5);
	assert_int_equal(sid.sub_auths[0], 21);
	assert_int_equal(sid.sub_auths[1], 1);
	assert_int_equal(sid.sub_auths[2], 2);
	assert_int_equal(sid.sub_auths[3], 0xffffffffu);
	samsid_dom_sid_push(&sid, out);
	assert_true(samsid_dom_sid_parse(out, sizeof(out), &back));
	assert_true(smb2_sid_equal(&sid, &back));

	key = samsid_secrets_key(*state, "fileserver1");
	assert_string_equal(key, "SECRETS/SID/FILESERVER1");
	talloc_free(key);
}

#define REC(k, d) (const uint8_t *)(k), sizeof(k) - 1, \
		  (const uint8_t *)(d), sizeof(d)

static void test_samsid__rid_record(void **state)
{
	uint32_t rid = 0;
	const char *name = NULL;

	/* Samba's key with and without its NUL; data is "name\0" */
	assert_true(samsid_rid_record(REC("RID_000003e8", "alice"), &rid,
				      &name));
	assert_int_equal(rid, 1000);
	assert_string_equal(name, "alice");
	assert_true(samsid_rid_record((const uint8_t *)"RID_ffffffff", 13,
				      (const uint8_t *)"b", 2, &rid, &name));
	assert_int_equal(rid, 0xffffffffu);

	/* other records and lying ones */
	assert_false(samsid_rid_record(REC("USER_alice", "x"), &rid, &name));
	assert_false(samsid_rid_record(REC("RID_COUNTER", "x"), &rid, &name));
	assert_false(samsid_rid_record(REC("RID_000003E8", "a"), &rid, &name));
	assert_false(samsid_rid_record(REC("RID_000003e", "a"), &rid, &name));
	assert_false(samsid_rid_record(REC("RID_000003e8x", "a"), &rid,
				       &name));
	assert_false(samsid_rid_record(REC("RID_0000 3e8", "a"), &rid,
				       &name));
	/* no NUL at the end, an empty name, a NUL inside */
	assert_false(samsid_rid_record((const uint8_t *)"RID_000003e8", 12,
				       (const uint8_t *)"alice", 5, &rid,
				       &name));
	assert_false(samsid_rid_record(REC("RID_000003e8", ""), &rid, &name));
	assert_false(samsid_rid_record(REC("RID_000003e8", "al\0ice"), &rid,
				       &name));
	assert_false(samsid_rid_record(NULL, 12, (const uint8_t *)"a", 2,
				       &rid, &name));
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
		T(dom_sid),
		T(random_and_key),
		T(rid_record),
		T(algorithmic),
		T(map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
