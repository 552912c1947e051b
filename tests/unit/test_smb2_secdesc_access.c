/*
 * The access check and inheritance of lib/smb2/secdesc_access.c
 * (MS-DTYP 2.5.3.2, 2.5.3.4): rights per ACE order, deny before allow,
 * the owner's implicit rights and OWNER RIGHTS, generic mapping, and
 * the ACEs a new file or directory inherits.
 */
#include "tests/unit/unit.h"
#include "lib/smb2/secdesc_access.h"
#include "lib/smb2/smb2_const.h"

#define READ	SMB2_RIGHTS_FILE_READ
#define ALL	SMB2_RIGHTS_FILE_ALL
#define RA	SMB2_FILE_READ_ATTRIBUTES

static struct smb2_sid unix_sid(uint32_t kind, uint32_t id)
{
	return (struct smb2_sid) { .num_auths = 2, .authority = 22,
				   .sub_auths = { kind, id } };
}

static const struct smb2_sid *alice(void)
{
	static struct smb2_sid s;

	s = unix_sid(1, 1000);
	return &s;
}

static struct smb2_ace ace(uint8_t type, uint8_t flags, uint32_t mask,
			   struct smb2_sid sid)
{
	return (struct smb2_ace) { .type = type, .flags = flags,
				   .mask = mask, .sid = sid };
}

/* alice, her group 1000, Everyone */
static struct smb2_token token(struct smb2_sid sids[3])
{
	sids[0] = unix_sid(1, 1000);
	sids[1] = unix_sid(2, 1000);
	sids[2] = smb2_sid_well_known(SMB2_SID_AUTH_WORLD, 0);
	return (struct smb2_token) { .sids = sids, .num_sids = 3 };
}

static void test_secdesc_access__no_dacl(void **state)
{
	struct smb2_sid sids[3];
	struct smb2_token t = token(sids);
	struct smb2_secdesc sd = {};

	assert_int_equal(smb2_secdesc_granted(&sd, &t), ALL);
	sd.has_dacl = true;
	sd.null_dacl = true;
	assert_int_equal(smb2_secdesc_granted(&sd, &t), ALL);
	sd.null_dacl = false;           /* empty DACL: nothing */
	assert_int_equal(smb2_secdesc_granted(&sd, &t), RA);
}

static void test_secdesc_access__deny_first(void **state)
{
	struct smb2_sid sids[3];
	struct smb2_token t = token(sids);
	struct smb2_ace aces[2] = {
		ace(SMB2_ACE_ACCESS_DENIED, 0, SMB2_FILE_WRITE_DATA,
		    unix_sid(1, 1000)),
		ace(SMB2_ACE_ACCESS_ALLOWED, 0, ALL,
		    smb2_sid_well_known(SMB2_SID_AUTH_WORLD, 0)),
	};
	struct smb2_secdesc sd = { .has_dacl = true, .aces = aces,
				   .num_aces = 2 };

	assert_int_equal(smb2_secdesc_granted(&sd, &t),
			 ALL & ~SMB2_FILE_WRITE_DATA);
	/* the other order: the allow decided first, the deny too late */
	aces[0] = aces[1];
	aces[1] = ace(SMB2_ACE_ACCESS_DENIED, 0, SMB2_FILE_WRITE_DATA,
		      unix_sid(1, 1000));
	assert_int_equal(smb2_secdesc_granted(&sd, &t), ALL);
}

static void test_secdesc_access__owner_rights(void **state)
{
	struct smb2_sid sids[3];
	struct smb2_token t = token(sids);
	struct smb2_ace aces[2] = {
		ace(SMB2_ACE_ACCESS_ALLOWED, 0, READ, unix_sid(1, 2000)),
	};
	struct smb2_secdesc sd = { .owner = alice(), .has_dacl = true,
				   .aces = aces, .num_aces = 1 };
	struct smb2_sid other = unix_sid(1, 7);

	/* the owner may read and change the DACL whatever it says */
	assert_int_equal(smb2_secdesc_granted(&sd, &t),
			 RA | SMB2_READ_CONTROL | SMB2_WRITE_DAC);
	/* ... unless OWNER RIGHTS says what the owner gets */
	aces[1] = ace(SMB2_ACE_ACCESS_ALLOWED, 0, SMB2_FILE_READ_DATA,
		      smb2_sid_well_known(SMB2_SID_AUTH_CREATOR,
					  SMB2_SID_OWNER_RIGHTS));
	sd.num_aces = 2;
	assert_int_equal(smb2_secdesc_granted(&sd, &t),
			 RA | SMB2_FILE_READ_DATA);
	/* not the owner: neither */
	sd.owner = &other;
	assert_int_equal(smb2_secdesc_granted(&sd, &t), RA);
}

static void test_secdesc_access__generic_and_inherit_only(void **state)
{
	struct smb2_sid sids[3];
	struct smb2_token t = token(sids);
	struct smb2_ace aces[2] = {
		ace(SMB2_ACE_ACCESS_ALLOWED, SMB2_ACE_INHERIT_ONLY, ALL,
		    unix_sid(1, 1000)),
		ace(SMB2_ACE_ACCESS_ALLOWED, 0, SMB2_GENERIC_READ,
		    unix_sid(2, 1000)),
	};
	struct smb2_secdesc sd = { .has_dacl = true, .aces = aces,
				   .num_aces = 2 };

	assert_int_equal(smb2_secdesc_granted(&sd, &t), READ);
	assert_int_equal(smb2_access_map_generic(SMB2_GENERIC_ALL |
						 SMB2_DELETE), ALL);
}

static const struct smb2_ace *find(const struct smb2_secdesc *sd,
				   size_t i)
{
	assert_true(i < sd->num_aces);
	return &sd->aces[i];
}

static void test_secdesc_access__inherit(void **state)
{
	struct smb2_sid owner = unix_sid(1, 1000), group = unix_sid(2, 1000);
	struct smb2_sid co = smb2_sid_well_known(SMB2_SID_AUTH_CREATOR,
						 SMB2_SID_CREATOR_OWNER);
	struct smb2_sid world = smb2_sid_well_known(SMB2_SID_AUTH_WORLD, 0);
	struct smb2_ace aces[3] = {
		ace(SMB2_ACE_ACCESS_ALLOWED, SMB2_ACE_OBJECT_INHERIT |
		    SMB2_ACE_CONTAINER_INHERIT, ALL, unix_sid(1, 5)),
		ace(SMB2_ACE_ACCESS_ALLOWED, SMB2_ACE_OBJECT_INHERIT |
		    SMB2_ACE_CONTAINER_INHERIT | SMB2_ACE_INHERIT_ONLY,
		    SMB2_GENERIC_ALL, co),
		ace(SMB2_ACE_ACCESS_ALLOWED, SMB2_ACE_CONTAINER_INHERIT,
		    0x001200A9, world),
	};
	struct smb2_secdesc parent = { .has_dacl = true, .aces = aces,
				       .num_aces = 3 }, out;
	TALLOC_CTX *tmp = talloc_new(*state);

	/* a file: the OI ACEs, no flags, CREATOR OWNER replaced */
	assert_true(smb2_secdesc_inherit(tmp, &parent, false, &owner,
					 &group, &out));
	assert_true(out.has_dacl);
	assert_int_equal(out.num_aces, 2);
	assert_int_equal(find(&out, 0)->flags, 0);
	assert_true(smb2_sid_equal(&find(&out, 1)->sid, &owner));
	assert_int_equal(find(&out, 1)->mask, SMB2_GENERIC_ALL);
	assert_int_equal(out.control, 0);

	/* the parent auto-inherited: INHERITED marks */
	parent.control = SMB2_SD_DACL_AUTO_INHERITED;
	assert_true(smb2_secdesc_inherit(tmp, &parent, false, &owner,
					 &group, &out));
	assert_int_equal(find(&out, 0)->flags, SMB2_ACE_INHERITED);
	assert_int_equal(out.control, SMB2_SD_DACL_AUTO_INHERITED);
	parent.control = 0;

	/* a directory: CREATOR OWNER twice (the owner's, inherit-only) */
	assert_true(smb2_secdesc_inherit(tmp, &parent, true, &owner,
					 &group, &out));
	assert_int_equal(out.num_aces, 4);
	assert_int_equal(find(&out, 0)->flags, SMB2_ACE_OBJECT_INHERIT |
			 SMB2_ACE_CONTAINER_INHERIT);
	assert_true(smb2_sid_equal(&find(&out, 1)->sid, &owner));
	assert_int_equal(find(&out, 1)->flags, 0);
	assert_true(smb2_sid_equal(&find(&out, 2)->sid, &co));
	assert_int_equal(find(&out, 2)->flags, SMB2_ACE_OBJECT_INHERIT |
			 SMB2_ACE_CONTAINER_INHERIT | SMB2_ACE_INHERIT_ONLY);
	assert_int_equal(find(&out, 2)->mask, SMB2_GENERIC_ALL);
	assert_int_equal(find(&out, 3)->flags, SMB2_ACE_CONTAINER_INHERIT);

	/* NO_PROPAGATE: reaches the child without inheritance flags */
	aces[2].flags |= SMB2_ACE_NO_PROPAGATE;
	assert_true(smb2_secdesc_inherit(tmp, &parent, true, &owner,
					 &group, &out));
	assert_int_equal(find(&out, 3)->flags, 0);
	/* OI only: for the directory's files (inherit-only) */
	aces[2].flags = SMB2_ACE_OBJECT_INHERIT;
	assert_true(smb2_secdesc_inherit(tmp, &parent, true, &owner,
					 &group, &out));
	assert_int_equal(find(&out, 3)->flags, SMB2_ACE_OBJECT_INHERIT |
			 SMB2_ACE_INHERIT_ONLY);
	talloc_free(tmp);
}

static void test_secdesc_access__inherit_nothing(void **state)
{
	struct smb2_sid owner = unix_sid(1, 1000), group = unix_sid(2, 1000);
	struct smb2_ace aces[2] = {
		ace(SMB2_ACE_ACCESS_ALLOWED, 0, ALL, unix_sid(1, 5)),
		ace(SMB2_ACE_ACCESS_ALLOWED, SMB2_ACE_CONTAINER_INHERIT, ALL,
		    unix_sid(1, 6)),
	};
	struct smb2_secdesc parent = { .has_dacl = true, .aces = aces,
				       .num_aces = 2 }, out;
	TALLOC_CTX *tmp = talloc_new(*state);

	/* a file: no OI ACE, nothing */
	assert_true(smb2_secdesc_inherit(tmp, &parent, false, &owner,
					 &group, &out));
	assert_false(out.has_dacl);
	/* no parent descriptor */
	assert_true(smb2_secdesc_inherit(tmp, NULL, true, &owner, &group,
					 &out));
	assert_false(out.has_dacl);
	/* a duplicate comes once */
	aces[0] = aces[1];
	assert_true(smb2_secdesc_inherit(tmp, &parent, true, &owner,
					 &group, &out));
	assert_int_equal(out.num_aces, 1);
	talloc_free(tmp);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_secdesc_access__no_dacl),
		T(test_secdesc_access__deny_first),
		T(test_secdesc_access__owner_rights),
		T(test_secdesc_access__generic_and_inherit_only),
		T(test_secdesc_access__inherit),
		T(test_secdesc_access__inherit_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
