/*
 * Unit tests for the EA list codecs, the security descriptor encoder and
 * the 8.3 short names (lib/smb2/ea_codec.c, secdesc_codec.c,
 * shortname.c), and the mode <-> SD mapping of source3/smbd/files/secdesc.c
 * (included, h2o's t/00unit style, with vfs_fstat stubbed).
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"
#include "lib/smb2/eainfo.h"
#include "lib/util/byteorder.h"
#include "source3/smbd/files/secdesc.c"

/* secdesc.c's VFS calls; the tests use the pure functions */
NTSTATUS vfs_fstat(struct vfs_fh *fh, struct statx *st)
{
	return NT_STATUS_NOT_SUPPORTED;
}

NTSTATUS vfs_fchmod(struct vfs_fh *fh, mode_t mode)
{
	return NT_STATUS_NOT_SUPPORTED;
}

/* and its NT ACL branch (ntacl.c, tested through the server) */
bool smbd_ntacl_share(const struct smbd_tcon *tcon)
{
	return false;
}

NTSTATUS smbd_ntacl_set(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			struct vfs_fh *fh, const struct smb2_secdesc *sd,
			uint32_t secinfo)
{
	return NT_STATUS_NOT_SUPPORTED;
}

NTSTATUS smbd_ntacl_query(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			  uint32_t secinfo, uint8_t **out, size_t *out_len)
{
	return NT_STATUS_NOT_SUPPORTED;
}

/* ---- FILE_FULL_EA_INFORMATION lists ---- */

/*
 * Two entries: "EAONE" = "VALUE1" (8+5+1+6 = 20, already aligned) and
 * "SecondEA" = "ValueTwo" (8+8+1+8 = 25), the last without padding.
 */
static const uint8_t two_eas[] = {
	20, 0, 0, 0, 0x00, 5, 6, 0,
	'E', 'A', 'O', 'N', 'E', 0, 'V', 'A', 'L', 'U', 'E', '1',
	0, 0, 0, 0, 0x80, 8, 8, 0,
	'S', 'e', 'c', 'o', 'n', 'd', 'E', 'A', 0,
	'V', 'a', 'l', 'u', 'e', 'T', 'w', 'o',
};

static NTSTATUS pull_guarded(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			     size_t len, bool names, size_t *count)
{
	uint8_t *g = guard_dup(buf, len);
	struct smb2_ea *eas = NULL;
	NTSTATUS status = names ?
		smb2_ea_names_pull(mem_ctx, g, len, &eas, count) :
		smb2_ea_list_pull(mem_ctx, g, len, &eas, count);

	talloc_free(eas);
	guard_free(g);
	return status;
}

static void test_ea__pull_two(void **state)
{
	struct smb2_ea *eas = NULL;
	size_t n = 0;

	assert_true(NT_STATUS_IS_OK(smb2_ea_list_pull(
		*state, two_eas, sizeof(two_eas), &eas, &n)));
	assert_int_equal(n, 2);
	assert_int_equal(eas[0].name_len, 5);
	assert_memory_equal(eas[0].name, "EAONE", 6);   /* NUL-terminated */
	assert_int_equal(eas[0].value_len, 6);
	assert_memory_equal(eas[0].value, "VALUE1", 6);
	assert_int_equal(eas[1].flags, SMB2_FILE_NEED_EA);
	assert_string_equal(eas[1].name, "SecondEA");
	assert_memory_equal(eas[1].value, "ValueTwo", 8);
	assert_int_equal(smb2_ea_list_size(eas, n), sizeof(two_eas));
	talloc_free(eas);
}

/* Every prefix of a valid list is refused, never read past. */
static void test_ea__every_truncation(void **state)
{
	size_t n = 0, len;

	for (len = 0; len < sizeof(two_eas); len++) {
		assert_true(NT_STATUS_EQUAL(
			pull_guarded(*state, two_eas, len, false, &n),
			NT_STATUS_INVALID_PARAMETER));
	}
	assert_true(NT_STATUS_IS_OK(
		pull_guarded(*state, two_eas, sizeof(two_eas), false, &n)));
	assert_int_equal(n, 2);
}

static void expect_bad(void **state, const uint8_t *b, size_t len)
{
	size_t n = 0;

	assert_true(NT_STATUS_EQUAL(pull_guarded(*state, b, len, false, &n),
				    NT_STATUS_INVALID_PARAMETER));
}

/* RELIABILITY 34: Next misaligned, past the end, too small, no NUL */
static void test_ea__bad_next(void **state)
{
	uint8_t b[sizeof(two_eas)];

	memcpy(b, two_eas, sizeof(b));
	push_le32(b, 22);                       /* misaligned */
	expect_bad(state, b, sizeof(b));
	push_le32(b, 48);                       /* past the end */
	expect_bad(state, b, sizeof(b));
	push_le32(b, 0xFFFFFFFC);               /* "backwards" by wrapping */
	expect_bad(state, b, sizeof(b));
	push_le32(b, 4);                        /* entry smaller than 8 */
	expect_bad(state, b, sizeof(b));
	push_le32(b, 40);                       /* next's fixed part cut */
	expect_bad(state, b, sizeof(b));
	memcpy(b, two_eas, sizeof(b));
	b[13] = 'X';                            /* name not NUL-terminated */
	expect_bad(state, b, sizeof(b));
	memcpy(b, two_eas, sizeof(b));
	b[6] = 7;                               /* value past its entry */
	expect_bad(state, b, sizeof(b));
}

/* 10,000 entries parse in one pass each; the walk cannot loop. */
static void test_ea__ten_thousand(void **state)
{
	size_t count = 10000, n = 0, i;
	uint8_t *b = talloc_zero_size(*state, count * 12);
	struct smb2_ea *eas = NULL;

	for (i = 0; i < count; i++) {
		uint8_t *e = b + 12 * i;

		push_le32(e, i + 1 < count ? 12 : 0);
		e[5] = 1;                       /* name "a", no value */
		e[8] = 'a';
	}
	assert_true(NT_STATUS_IS_OK(smb2_ea_list_pull(*state, b, count * 12,
						      &eas, &n)));
	assert_int_equal(n, count);
	assert_int_equal(smb2_ea_list_size(eas, n), count * 12 - 2);
	talloc_free(eas);
	talloc_free(b);
}

static void test_ea__names(void **state)
{
	static const uint8_t names[] = {
		12, 0, 0, 0, 5, 'E', 'A', 'O', 'N', 'E', 0, 0,
		0, 0, 0, 0, 3, 'x', 'y', 'z', 0,
	};
	struct smb2_ea *eas = NULL;
	size_t n = 0, len;

	assert_true(NT_STATUS_IS_OK(smb2_ea_names_pull(
		*state, names, sizeof(names), &eas, &n)));
	assert_int_equal(n, 2);
	assert_string_equal(eas[0].name, "EAONE");
	assert_string_equal(eas[1].name, "xyz");
	talloc_free(eas);
	for (len = 0; len < sizeof(names); len++) {
		assert_true(NT_STATUS_EQUAL(
			pull_guarded(*state, names, len, true, &n),
			NT_STATUS_INVALID_PARAMETER));
	}
}

static void test_ea__push(void **state)
{
	struct smb2_ea *eas = NULL;
	uint8_t *out = NULL;
	size_t n = 0, len = 0, pushed = 0;

	assert_true(NT_STATUS_IS_OK(smb2_ea_list_pull(
		*state, two_eas, sizeof(two_eas), &eas, &n)));
	/* the whole list: byte-exact */
	assert_true(NT_STATUS_IS_OK(smb2_ea_list_push(
		*state, eas, n, 1000, false, &out, &len, &pushed)));
	assert_int_equal(pushed, 2);
	assert_int_equal(len, sizeof(two_eas));
	assert_memory_equal(out, two_eas, len);
	TALLOC_FREE(out);
	/* room for the first only: its Next is 0 */
	assert_true(NT_STATUS_IS_OK(smb2_ea_list_push(
		*state, eas, n, 44, false, &out, &len, &pushed)));
	assert_int_equal(pushed, 1);
	assert_int_equal(len, 20);
	assert_int_equal(pull_le32(out), 0);
	TALLOC_FREE(out);
	/* single entry asked for */
	assert_true(NT_STATUS_IS_OK(smb2_ea_list_push(
		*state, eas, n, 1000, true, &out, &len, &pushed)));
	assert_int_equal(pushed, 1);
	TALLOC_FREE(out);
	/* not even the first */
	assert_true(NT_STATUS_IS_OK(smb2_ea_list_push(
		*state, eas, n, 19, false, &out, &len, &pushed)));
	assert_int_equal(pushed, 0);
	assert_int_equal(len, 0);
	TALLOC_FREE(out);
	talloc_free(eas);
}

static void test_ea__name_valid(void **state)
{
	char long_name[300];

	assert_true(smb2_ea_name_valid("EAONE", 5));
	assert_true(smb2_ea_name_valid("a.b-c_d", 7));
	assert_false(smb2_ea_name_valid("", 0));
	assert_false(smb2_ea_name_valid("a*b", 3));
	assert_false(smb2_ea_name_valid("a:b", 3));
	assert_false(smb2_ea_name_valid("a\\b", 3));
	assert_false(smb2_ea_name_valid("a\tb", 3));
	assert_false(smb2_ea_name_valid("a|b", 3));
	memset(long_name, 'a', sizeof(long_name));
	assert_true(smb2_ea_name_valid(long_name, 255));
	assert_false(smb2_ea_name_valid(long_name, 256));
}

/* ---- security descriptors ---- */

/*
 * Mode 0640, uid 1000, gid 100, OWNER|GROUP|DACL, computed by hand from
 * MS-DTYP 2.4.6: header, S-1-22-1-1000, S-1-22-2-100, DACL of three
 * ACCESS_ALLOWED ACEs: owner rw- = GENERIC_READ|GENERIC_WRITE
 * (0x0012019F), group r-- = 0x00120089, Everyone --- = 0.
 */
static const uint8_t sd_0640[] = {
	0x01, 0x00, 0x04, 0x80,                 /* rev, ctl SR|DACL */
	0x14, 0, 0, 0, 0x24, 0, 0, 0,           /* owner 20, group 36 */
	0, 0, 0, 0, 0x34, 0, 0, 0,              /* no SACL, DACL 52 */
	0x01, 0x02, 0, 0, 0, 0, 0, 0x16, 0x01, 0, 0, 0, 0xE8, 0x03, 0, 0,
	0x01, 0x02, 0, 0, 0, 0, 0, 0x16, 0x02, 0, 0, 0, 0x64, 0, 0, 0,
	0x02, 0x00, 0x4C, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x18, 0x00, 0x9F, 0x01, 0x12, 0x00,
	0x01, 0x02, 0, 0, 0, 0, 0, 0x16, 0x01, 0, 0, 0, 0xE8, 0x03, 0, 0,
	0x00, 0x00, 0x18, 0x00, 0x89, 0x00, 0x12, 0x00,
	0x01, 0x02, 0, 0, 0, 0, 0, 0x16, 0x02, 0, 0, 0, 0x64, 0, 0, 0,
	0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x01, 0, 0, 0, 0, 0, 0x01, 0x00, 0, 0, 0,
};

static struct statx stat_of(mode_t mode, uint32_t uid, uint32_t gid)
{
	struct statx st = {};

	st.stx_mode = S_IFREG | mode;
	st.stx_uid = uid;
	st.stx_gid = gid;
	return st;
}

static void test_sd__exact(void **state)
{
	struct statx st = stat_of(0640, 1000, 100);
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smbd_secdesc_from_stat(
		*state, NULL, &st, SMB2_OWNER_SECURITY_INFORMATION |
		SMB2_GROUP_SECURITY_INFORMATION |
		SMB2_DACL_SECURITY_INFORMATION, &out, &len)));
	assert_int_equal(len, sizeof(sd_0640));
	assert_memory_equal(out, sd_0640, len);
	talloc_free(out);
}

static void test_sd__parts(void **state)
{
	struct statx st = stat_of(0755, 0, 0);
	uint8_t *out = NULL;
	size_t len = 0;

	/* nothing asked for: the bare header */
	assert_true(NT_STATUS_IS_OK(smbd_secdesc_from_stat(*state, NULL, &st, 0,
							   &out, &len)));
	assert_int_equal(len, SMB2_SD_HEADER_SIZE);
	assert_int_equal(pull_le16(out + 2), SMB2_SD_SELF_RELATIVE);
	TALLOC_FREE(out);
	/* the owner only */
	assert_true(NT_STATUS_IS_OK(smbd_secdesc_from_stat(
		*state, NULL, &st, SMB2_OWNER_SECURITY_INFORMATION, &out, &len)));
	assert_int_equal(len, 36);
	assert_int_equal(pull_le32(out + 4), 20);
	assert_int_equal(pull_le32(out + 8), 0);
	assert_int_equal(pull_le32(out + 16), 0);
	TALLOC_FREE(out);
	/* rwx maps to FILE_ALL_ACCESS */
	assert_int_equal(smbd_secdesc_rights(7), 0x001F01FF);
	assert_int_equal(smbd_secdesc_rights(5), 0x001200A9);
	assert_int_equal(smbd_secdesc_rights(0), 0);
}

/* RELIABILITY 35: SubAuthorityCount > 15 is refused both ways. */
static void test_sd__subauth_limit(void **state)
{
	struct smb2_sid sid = { .num_auths = 16, .authority = 5 };
	struct smb2_secdesc sd = { .owner = &sid };
	uint8_t raw[8 + 4 * 16] = { 1, 16, 0, 0, 0, 0, 0, 5 };
	uint8_t ok[16] = { 1, 2, 0, 0, 0, 0, 0, 22, 1, 0, 0, 0, 7, 0, 0, 0 };
	struct smb2_sid got;
	uint8_t *out = NULL;
	size_t len = 0, used = 0, n;

	assert_true(NT_STATUS_EQUAL(smb2_secdesc_push(*state, &sd, &out,
						      &len),
				    NT_STATUS_INVALID_PARAMETER));
	assert_true(NT_STATUS_EQUAL(smb2_sid_pull(raw, sizeof(raw), &got,
						  &used),
				    NT_STATUS_INVALID_PARAMETER));
	assert_true(NT_STATUS_IS_OK(smb2_sid_pull(ok, sizeof(ok), &got,
						  &used)));
	assert_int_equal(used, 16);
	assert_int_equal(got.authority, 22);
	assert_int_equal(got.sub_auths[1], 7);
	for (n = 0; n < sizeof(ok); n++) {
		uint8_t *g = guard_dup(ok, n);

		assert_true(NT_STATUS_EQUAL(smb2_sid_pull(g, n, &got, &used),
					    NT_STATUS_INVALID_PARAMETER));
		guard_free(g);
	}
}

/* ---- parsing SDs (RELIABILITY 35) ---- */

#define SD_ALL (SMB2_OWNER_SECURITY_INFORMATION | \
		SMB2_GROUP_SECURITY_INFORMATION | \
		SMB2_DACL_SECURITY_INFORMATION)

static NTSTATUS sd_pull_guarded(TALLOC_CTX *mem_ctx, const uint8_t *buf,
				size_t len, struct smb2_secdesc *sd)
{
	uint8_t *g = guard_dup(buf, len);
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	NTSTATUS status = smb2_secdesc_pull(tmp, g, len, sd);

	talloc_free(tmp);               /* *sd is only looked at, not kept */
	guard_free(g);
	return status;
}

/* What the query answers parses back to the same owner, group and DACL. */
static void test_sd__pull_roundtrip(void **state)
{
	struct statx st = stat_of(0750, 1000, 100);
	struct smb2_secdesc sd;
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(smbd_secdesc_from_stat(
		*state, NULL, &st, SD_ALL, &out, &len)));
	assert_true(NT_STATUS_IS_OK(smb2_secdesc_pull(*state, out, len,
						      &sd)));
	assert_non_null(sd.owner);
	assert_int_equal(sd.owner->authority, 22);
	assert_int_equal(sd.owner->sub_auths[1], 1000);
	assert_int_equal(sd.group->sub_auths[0], 2);
	assert_int_equal(sd.group->sub_auths[1], 100);
	assert_true(sd.has_dacl);
	assert_false(sd.null_dacl);
	assert_int_equal(sd.num_aces, 3);
	assert_int_equal(sd.aces[0].mask, 0x001F01FF);
	assert_int_equal(sd.aces[1].mask, 0x001200A9);
	assert_int_equal(sd.aces[2].mask, 0);
	assert_int_equal(sd.aces[2].sid.authority, 1);
	assert_int_equal(smbd_secdesc_dacl_mode(&sd, NULL, 1000, 100), 0750);
	talloc_free((void *)sd.owner);
	talloc_free((void *)sd.group);
	talloc_free((void *)sd.aces);
	talloc_free(out);
}

/* Every prefix of a valid SD is refused, never read past. */
static void test_sd__every_truncation(void **state)
{
	struct statx st = stat_of(0644, 1000, 100);
	struct smb2_secdesc sd;
	uint8_t *out = NULL;
	size_t len = 0, n;

	assert_true(NT_STATUS_IS_OK(smbd_secdesc_from_stat(
		*state, NULL, &st, SD_ALL, &out, &len)));
	for (n = 0; n < len; n++) {
		assert_true(NT_STATUS_EQUAL(
			sd_pull_guarded(*state, out, n, &sd),
			NT_STATUS_INVALID_SECURITY_DESCR));
	}
	assert_true(NT_STATUS_IS_OK(sd_pull_guarded(*state, out, len, &sd)));
	talloc_free(out);
}

struct sd_bad_case {
	const char *what;
	size_t patch_at;                /* 0: no patch */
	uint32_t value;
	int width;                      /* 1, 2 or 4 bytes */
};

/*
 * Each case patches the SD of a 0644 file (owner at 20, group at 36,
 * DACL at 52: AclSize 76, ACEs of 24, 24 and 20 bytes at 60, 84, 108).
 */
static void test_sd__bad(void **state)
{
	static const struct sd_bad_case cases[] = {
		{ "revision 2", 0 + 0, 2, 1 },
		{ "owner offset past end", 4, 0x1000, 4 },
		{ "owner offset inside header", 4, 4, 4 },
		{ "dacl offset near 2^32", 16, 0xFFFFFFF0, 4 },
		{ "dacl offset at the end", 16, 128, 4 },
		{ "owner SubAuthorityCount 16", 21, 16, 1 },
		{ "owner SubAuthorityCount 255", 21, 255, 1 },
		{ "owner SID revision 0", 20, 0, 1 },
		{ "ACL revision 1", 52, 1, 1 },
		{ "ACL revision 5", 52, 5, 1 },
		{ "AclSize past end", 54, 77, 2 },
		{ "AclSize 65535", 54, 65535, 2 },
		{ "AclSize below header", 54, 4, 2 },
		{ "AceCount 65535", 56, 65535, 2 },
		{ "AceCount 5", 56, 5, 2 },
		{ "AceSize 0", 62, 0, 2 },
		{ "AceSize past ACL", 62, 69, 2 },
		{ "last ACE's AceSize past ACL", 110, 24, 2 },
		{ "ACE SubAuthorityCount 16", 69, 16, 1 },
		{ "ACE SID longer than AceSize", 69, 3, 1 },
	};
	struct statx st = stat_of(0644, 1000, 100);
	struct smb2_secdesc sd;
	uint8_t *out = NULL;
	size_t len = 0, i;

	assert_true(NT_STATUS_IS_OK(smbd_secdesc_from_stat(
		*state, NULL, &st, SD_ALL, &out, &len)));
	assert_int_equal(len, 128);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sd_bad_case *c = &cases[i];
		uint8_t *b = talloc_memdup(*state, out, len);

		if (c->width == 1) {
			b[c->patch_at] = (uint8_t)c->value;
		} else if (c->width == 2) {
			push_le16(b + c->patch_at, (uint16_t)c->value);
		} else {
			push_le32(b + c->patch_at, c->value);
		}
		if (!NT_STATUS_EQUAL(sd_pull_guarded(*state, b, len, &sd),
				     NT_STATUS_INVALID_SECURITY_DESCR)) {
			fail_msg("accepted: %s", c->what);
		}
		talloc_free(b);
	}
	talloc_free(out);
}

/* ACL revisions 2 to 4 are all valid, as for Windows (smbcacls sends 3). */
static void test_sd__acl_revisions(void **state)
{
	struct statx st = stat_of(0644, 1000, 100);
	struct smb2_secdesc sd;
	uint8_t *out = NULL;
	size_t len = 0;
	uint8_t rev;

	assert_true(NT_STATUS_IS_OK(smbd_secdesc_from_stat(
		*state, NULL, &st, SD_ALL, &out, &len)));
	for (rev = 2; rev <= 4; rev++) {
		out[52] = rev;          /* the DACL's AclRevision */
		/* (sd points into a guarded copy that is gone by now) */
		assert_true(NT_STATUS_IS_OK(sd_pull_guarded(*state, out, len,
							    &sd)));
		assert_true(sd.has_dacl && !sd.null_dacl);
		assert_int_equal(sd.num_aces, 3);
	}
	talloc_free(out);
}

/* DACL_PRESENT with offset 0 is a NULL DACL; without the bit, no DACL. */
static void test_sd__null_dacl(void **state)
{
	uint8_t hdr[SMB2_SD_HEADER_SIZE] = { 1, 0, 0x04, 0x80 };
	struct smb2_secdesc sd;
	struct smb2_secdesc null = { .has_dacl = true, .null_dacl = true };
	uint8_t *out = NULL;
	size_t len = 0;

	assert_true(NT_STATUS_IS_OK(sd_pull_guarded(*state, hdr,
						    sizeof(hdr), &sd)));
	assert_true(sd.has_dacl && sd.null_dacl);
	assert_null(sd.owner);
	assert_int_equal(smbd_secdesc_dacl_mode(&sd, NULL, 1, 1), 0777);
	hdr[2] = 0;
	assert_true(NT_STATUS_IS_OK(sd_pull_guarded(*state, hdr,
						    sizeof(hdr), &sd)));
	assert_false(sd.has_dacl);
	assert_true(NT_STATUS_IS_OK(smb2_secdesc_push(*state, &null, &out,
						      &len)));
	assert_int_equal(len, SMB2_SD_HEADER_SIZE);
	assert_int_equal(pull_le16(out + 2), 0x8004);
	assert_int_equal(pull_le32(out + 16), 0);
	talloc_free(out);
}

/* ---- DACL -> mode ---- */

#define U(id) { .num_auths = 2, .authority = 22, .sub_auths = { 1, id } }
#define G(id) { .num_auths = 2, .authority = 22, .sub_auths = { 2, id } }
#define WORLD { .num_auths = 1, .authority = 1 }
#define AUTH_USERS { .num_auths = 1, .authority = 5, .sub_auths = { 11 } }
#define ALLOW(sid, m) { SMB2_ACE_ACCESS_ALLOWED, 0, m, sid }
#define DENY(sid, m) { SMB2_ACE_ACCESS_DENIED, 0, m, sid }

struct sd_mode_case {
	const char *what;
	struct smb2_ace aces[4];
	size_t n;
	mode_t mode;
};

static void test_sd__dacl_mode(void **state)
{
	static const struct sd_mode_case cases[] = {
		{ "empty DACL", {}, 0, 0 },
		{ "owner full", { ALLOW(U(1000), 0x001F01FF) }, 1, 0700 },
		{ "owner, group, world as queried",
		  { ALLOW(U(1000), 0x001F01FF), ALLOW(G(100), 0x001200A9),
		    ALLOW(WORLD, 0x00120089) }, 3, 0754 },
		{ "GENERIC_ALL", { ALLOW(U(1000), 0x10000000) }, 1, 0700 },
		{ "GENERIC_READ|GENERIC_EXECUTE",
		  { ALLOW(G(100), 0xA0000000) }, 1, 0050 },
		{ "write via APPEND_DATA alone",
		  { ALLOW(U(1000), 0x00000004) }, 1, 0200 },
		{ "READ_ATTRIBUTES|SYNCHRONIZE map to nothing",
		  { ALLOW(U(1000), 0x00100080) }, 1, 0 },
		{ "delete-on-close-perms dir ACE 0x1f01bf",
		  { ALLOW(U(1000), 0x001F01BF) }, 1, 0700 },
		{ "Everyone alone fills owner and group",
		  { ALLOW(WORLD, 0x00120089) }, 1, 0444 },
		{ "owner named: Everyone does not add to it",
		  { ALLOW(U(1000), 0x00120089), ALLOW(WORLD, 0x001F01FF) },
		  2, 0477 },
		{ "deny before allow removes the bit",
		  { DENY(U(1000), 0x00000002), ALLOW(U(1000), 0x001F01FF) },
		  2, 0500 },
		{ "deny after allow changes nothing",
		  { ALLOW(U(1000), 0x001F01FF), DENY(U(1000), 0x00000002) },
		  2, 0700 },
		{ "another user, a non-Unix SID: ignored",
		  { ALLOW(U(1001), 0x001F01FF), ALLOW(AUTH_USERS, 0x001F01FF),
		    ALLOW(G(100), 0x00120089) }, 3, 0040 },
		{ "inherit-only ACE ignored",
		  { { SMB2_ACE_ACCESS_ALLOWED, SMB2_ACE_INHERIT_ONLY | 0x03,
		      0x001F01FF, U(1000) } }, 1, 0 },
		{ "unknown ACE type ignored",
		  { { 0x05, 0, 0x001F01FF, U(1000) } }, 1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct smb2_secdesc sd = {
			.has_dacl = true, .aces = cases[i].aces,
			.num_aces = cases[i].n,
		};
		mode_t got = smbd_secdesc_dacl_mode(&sd, NULL, 1000, 100);

		if (got != cases[i].mode) {
			fail_msg("%s: 0%o, want 0%o", cases[i].what,
				 (unsigned)got, (unsigned)cases[i].mode);
		}
	}
}

/* Every mode survives query -> set: the DACL maps back exactly. */
static void test_sd__mode_roundtrip(void **state)
{
	unsigned m;

	for (m = 0; m <= 0777; m++) {
		struct statx st = stat_of(m, 7, 8);
		struct smb2_secdesc sd;
		uint8_t *out = NULL;
		size_t len = 0;

		assert_true(NT_STATUS_IS_OK(smbd_secdesc_from_stat(
			*state, NULL, &st, SD_ALL, &out, &len)));
		assert_true(NT_STATUS_IS_OK(smb2_secdesc_pull(
			out, out, len, &sd)));
		assert_int_equal(smbd_secdesc_dacl_mode(&sd, NULL, 7, 8), m);
		talloc_free(out);
	}
}

/* ---- 8.3 names ---- */

static void assert_83_shape(const char *s)
{
	const char *dot = strchr(s, '.');

	assert_true(smb2_name_is_83(s));
	assert_non_null(strchr(s, '~'));
	assert_true(strlen(s) <= 12);
	assert_true(dot == NULL || strlen(dot + 1) <= 3);
}

static void test_shortname__already_83(void **state)
{
	char out[SMB2_SHORT_NAME_MAX];

	smb2_short_name("abc.txt", out);
	assert_string_equal(out, "ABC.TXT");
	smb2_short_name("README", out);
	assert_string_equal(out, "README");
	assert_false(smb2_name_is_83("toolongname.txt"));
	assert_false(smb2_name_is_83("a.b.c"));
	assert_false(smb2_name_is_83("a b.txt"));
	assert_false(smb2_name_is_83("abc."));
	assert_false(smb2_name_is_83(".abc"));
}

static void test_shortname__long(void **state)
{
	char a[SMB2_SHORT_NAME_MAX], b[SMB2_SHORT_NAME_MAX];

	smb2_short_name("Long File Name.html", a);
	assert_83_shape(a);
	assert_memory_equal(a, "LONGF~", 6);
	assert_string_equal(a + 8, ".HTM");
	/* stable */
	smb2_short_name("Long File Name.html", b);
	assert_string_equal(a, b);
	/* another long name with the same prefix differs in the hash */
	smb2_short_name("Long File Name2.html", b);
	assert_83_shape(b);
	assert_string_not_equal(a, b);
	smb2_short_name(".profile", a);
	assert_83_shape(a);
	assert_memory_equal(a, "PROFI~", 6);
	smb2_short_name("a.b.c", a);
	assert_83_shape(a);
	assert_memory_equal(a, "AB~", 3);
	assert_string_equal(a + 5, ".C");
	smb2_short_name("\xc3\xa9t\xc3\xa9.txt", a);    /* été.txt */
	assert_83_shape(a);
	assert_memory_equal(a, "T~", 2);
	smb2_short_name("***", a);
	assert_83_shape(a);
	assert_int_equal(a[0], '_');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, unit_setup, unit_teardown)
		T(test_ea__pull_two),
		T(test_ea__every_truncation),
		T(test_ea__bad_next),
		T(test_ea__ten_thousand),
		T(test_ea__names),
		T(test_ea__push),
		T(test_ea__name_valid),
		T(test_sd__exact),
		T(test_sd__parts),
		T(test_sd__subauth_limit),
		T(test_sd__pull_roundtrip),
		T(test_sd__every_truncation),
		T(test_sd__bad),
		T(test_sd__acl_revisions),
		T(test_sd__null_dacl),
		T(test_sd__dacl_mode),
		T(test_sd__mode_roundtrip),
		T(test_shortname__already_83),
		T(test_shortname__long),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
