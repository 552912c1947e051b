/*
 * Samba's security.NTACL codec and hashes (lib/dcerpc/xattr_ntacl*.c).
 *
 * Every vector comes from Samba 4.17 (Debian 12): "smbd_*" values were
 * written by smbd with "vfs objects = acl_xattr" after smbcacls changed
 * an ACL, and dumped with getxattr, together with the file's POSIX ACL;
 * "py_*" values were packed by Samba's own NDR library (python3-samba,
 * ndr_pack(xattr.NTACL)) for the versions 4.17 reads but does not
 * write, with the descriptor alone as ndr_pack(security.descriptor)
 * packs it.
 */
#include <string.h>
#include "tests/unit/unit.h"
#include "lib/dcerpc/xattr_ntacl.h"
#include "lib/smb2/eainfo.h"
#include "lib/util/byteorder.h"

/* smbd 4.17: file.txt after two smbcacls -a (uid 0, gid 0, mode 0100775) */
static const char smbd_file[] =
	"040004000000020004000200010062d70d7cbbb1f9f2ee47c7f2ddfdcdee2203"
	"43852a978863bd3c2e37e119acef000000000000000000000000000000000000"
	"0000000000000000000000000000706f7369785f61636c006a2524cf527ddd01"
	"5dd2b193e43b4dc35157ee98c7526c731dd3e007cf250e67358da2c7ca90748e"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"01000480b4000000d000000000000000ec000000010500000000000515000000"
	"c9436c623b4818ee400eab1de8030000010500000000000515000000c9436c62"
	"3b4818ee400eab1d010200000200900005000000010018000200000001020000"
	"00000005200000002102000000001400a9001200010100000000000100000000"
	"00001400a900120001010000000000050b00000000002400a900120001050000"
	"0000000515000000c9436c623b4818ee400eab1d0102000000002400ff011f00"
	"010500000000000515000000c9436c623b4818ee400eab1de8030000";

static const char smbd_file_acl[] =
	"0200000001000700ffffffff020007000000000004000500ffffffff08000500"
	"0000000010000700ffffffff20000500ffffffff";

/*
 * smb_acl_wrapper blobs made by Samba's ndr_push_smb_acl_wrapper
 * (libndr-samba4, through ctypes) from each file's POSIX ACL, uid, gid
 * and mode; their SHA-256 is the stored sys_acl_hash.
 */
static const char smbd_file_wrapper[] =
	"000002000000000000000000000000000000000000000000fd81000006000000"
	"0600000000000000020002000700000001000100000000000000000000000000"
	"0700000000000000040004000500000003000300000000000000000000000000"
	"050000000000000006000600070000000500050005000000";

/* smbd 4.17: a directory after smbcacls -a OI|CI (mode 040775) */
static const char smbd_dir[] =
	"0400040000000200040002000100aae83dd1543f76caeafe45d3a4c7476391ff"
	"9180c6255a7f6dbde24866f149c8000000000000000000000000000000000000"
	"0000000000000000000000000000706f7369785f61636c00808643cf527ddd01"
	"0da4270ae6b917c1692ed2e29bf473082239edf9883d68cb10aecc5e00e7ee07"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"01000480b4000000d000000000000000ec000000010500000000000515000000"
	"c9436c623b4818ee400eab1de8030000010500000000000515000000c9436c62"
	"3b4818ee400eab1d010200000200a0000600000000031400a900120001010000"
	"0000000100000000000b1400ff011f00010100000000000300000000000b1400"
	"a900120001010000000000030100000000031400a90012000101000000000005"
	"0b00000000002400a9001200010500000000000515000000c9436c623b4818ee"
	"400eab1d0102000000002400ff011f00010500000000000515000000c9436c62"
	"3b4818ee400eab1de8030000";

static const char smbd_dir_acl[] =
	"0200000001000700ffffffff020007000000000004000500ffffffff08000500"
	"0000000010000700ffffffff20000500ffffffff";

static const char smbd_dir_dacl[] =
	"0200000001000700ffffffff020007000000000004000500ffffffff08000500"
	"0000000010000700ffffffff20000500ffffffff";

static const char smbd_dir_wrapper[] =
	"000002000400020000000000000000000000000000000000fd41000006000000"
	"0600000000000000020002000700000001000100000000000000000000000000"
	"0700000000000000040004000500000003000300000000000000000000000000"
	"0500000000000000060006000700000005000500050000000600000000000000"
	"0600000000000000020002000700000001000100000000000000000000000000"
	"0700000000000000040004000500000003000300000000000000000000000000"
	"050000000000000006000600070000000500050005000000";

/* smbd 4.17: a local file after smbcacls -S (three ACEs) */
static const char smbd_f2[] =
	"040004000000020004000200010062d70d7cbbb1f9f2ee47c7f2ddfdcdee2203"
	"43852a978863bd3c2e37e119acef000000000000000000000000000000000000"
	"0000000000000000000000000000706f7369785f61636c002c7ea63b537ddd01"
	"5dd2b193e43b4dc35157ee98c7526c731dd3e007cf250e67358da2c7ca90748e"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"01000480b4000000d000000000000000e0000000010500000000000515000000"
	"c9436c623b4818ee400eab1de803000001020000000000160200000000000000"
	"030058000300000000001400a900120001010000000000010000000000001800"
	"a90012000102000000000016020000000000000000002400ff011f0001050000"
	"0000000515000000c9436c623b4818ee400eab1de8030000";

/* smbd 4.17: a local directory without a default ACL, after smbcacls -S */
static const char smbd_d2[] =
	"040004000000020004000200010062d70d7cbbb1f9f2ee47c7f2ddfdcdee2203"
	"43852a978863bd3c2e37e119acef000000000000000000000000000000000000"
	"0000000000000000000000000000706f7369785f61636c00ca8cb83b537ddd01"
	"4b7554fdb8bb140722a45438c49c6a7f7323c5ce53246aa9ea44d3ac7ddbb24a"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"01000480b4000000d000000000000000e0000000010500000000000515000000"
	"c9436c623b4818ee400eab1de803000001020000000000160200000000000000"
	"030058000300000000001400a900120001010000000000010000000000001800"
	"a90012000102000000000016020000000000000000002400ff011f0001050000"
	"0000000515000000c9436c623b4818ee400eab1de8030000";

static const char smbd_d2_acl[] =
	"0200000001000700ffffffff020007000000000004000500ffffffff08000500"
	"0000000010000700ffffffff20000500ffffffff";

static const char smbd_d2_wrapper[] =
	"000002000400020000000000000000000000000000000000fd41000006000000"
	"0600000000000000020002000700000001000100000000000000000000000000"
	"0700000000000000040004000500000003000300000000000000000000000000"
	"0500000000000000060006000700000005000500050000000000000000000000"
	"0000000000000000";

/*
 * The SDs Samba's POSIX mapping (vfs_default) gives these two; hashing
 * them gives the stored hash.  fs_sd_dir is what python3-samba's
 * smbd.get_nt_acl returned on a share without acl_xattr; for the file it
 * returned the owner ACEs as 0x1e01ff, smbd hashed them with DELETE
 * (0x1f01ff, as here): docs/vfs.md.
 */
static const char fs_sd_file[] =
	"0100049014000000300000000000000040000000010500000000000515000000"
	"c9436c623b4818ee400eab1de803000001020000000000160200000000000000"
	"020094000500000000002400ff011f00010500000000000515000000c9436c62"
	"3b4818ee400eab1de803000000001800a9001200010200000000001602000000"
	"0000000000001800a90012000102000000000016020000000000000000002400"
	"ff011f00010500000000000515000000c9436c623b4818ee400eab1de8030000"
	"00001400a9001200010100000000000100000000";

static const char fs_sd_dir[] =
	"0100049014000000300000000000000040000000010500000000000515000000"
	"c9436c623b4818ee400eab1de803000001020000000000160200000000000000"
	"0200bc000700000000032400ff011f00010500000000000515000000c9436c62"
	"3b4818ee400eab1de803000000031800a9001200010200000000001602000000"
	"0000000000031400a900120001010000000000010000000000001800a9001200"
	"0102000000000016020000000000000000002400ff011f000105000000000005"
	"15000000c9436c623b4818ee400eab1de8030000000b1400ff011f0001010000"
	"0000000300000000000b1400a9001200010100000000000301000000";

/*
 * v1: O:S-1-5-21-1-2-3-1000 G:S-1-5-21-1-2-3-513
 * D:PAI(A;OICI;FA;;;S-1-5-21-1-2-3-1000)(D;ID;WD;;;BU)(A;;0x1200a9;;;WD)
 * (control PROTECTED|AUTO_INHERITED, inheritance flags, a DENY)
 */
static const char py_v1_sd[] =
	"010004941400000030000000000000004c000000010500000000000515000000"
	"010000000200000003000000e803000001050000000000051500000001000000"
	"020000000300000001020000040058000300000000032400ff01000001050000"
	"0000000515000000010000000200000003000000e80300000110180000000400"
	"0102000000000005200000002102000000001400a90012000101000000000001"
	"00000000";

static const char py_v1[] =
	"0100010000000200010004941c00000038000000000000005400000001050000"
	"0000000515000000010000000200000003000000e80300000105000000000005"
	"1500000001000000020000000300000001020000040058000300000000032400"
	"ff010000010500000000000515000000010000000200000003000000e8030000"
	"01101800000004000102000000000005200000002102000000001400a9001200"
	"010100000000000100000000";

/* v2: O:BA D:(A;;FA;;;SY) S:(AU;SAFA;FA;;;WD): no group, a SACL */
static const char py_v2_sd[] =
	"0100148014000000000000002400000040000000010200000000000520000000"
	"2002000004001c000100000002c01400ff010000010100000000000100000000"
	"04001c000100000000001400ff010000010100000000000512000000";

static const char py_v2[] =
	"020002000000020004000200a0a1a2a3a4a5a6a7a8a9aaabacadaeaf01001480"
	"3000000000000000400000005c00000001020000000000052000000020020000"
	"04001c000100000002c01400ff01000001010000000000010000000004001c00"
	"0100000000001400ff010000010100000000000512000000";

/*
 * v3: O:SY G:SY D:(OA;CI;RP;bf967aba-...;bf967a86-...;AU)(A;;FA;;;SY):
 * an object ACE with both GUIDs
 */
static const char py_v3_sd[] =
	"010004801400000020000000000000002c000000010100000000000512000000"
	"0101000000000005120000000400540002000000050238001000000003000000"
	"ba7a96bfe60dd011a28500aa003049e2867a96bfe60dd011a28500aa003049e2"
	"01010000000000050b00000000001400ff010000010100000000000512000000";

static const char py_v3[] =
	"0300030000000200040002000100000102030405060708090a0b0c0d0e0f1011"
	"12131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031"
	"32333435363738393a3b3c3d3e3f000001000480640000007000000000000000"
	"7c00000001010000000000051200000001010000000000051200000004005400"
	"02000000050238001000000003000000ba7a96bfe60dd011a28500aa003049e2"
	"867a96bfe60dd011a28500aa003049e201010000000000050b00000000001400"
	"ff010000010100000000000512000000";

/* v4: O:S-1-22-1-1000 G:S-1-22-2-1000 and a NULL DACL (DACL_PRESENT, 0) */
static const char py_v4_sd[] =
	"0100048014000000240000000000000000000000010200000000001601000000"
	"e8030000010200000000001602000000e8030000";

static const char py_v4[] =
	"0400040000000200040002000100000102030405060708090a0b0c0d0e0f1011"
	"12131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031"
	"32333435363738393a3b3c3d3e3f677066735f6e6673345f61636c0000000000"
	"00000000fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4"
	"e3e2e1e0dfdedddcdbdad9d8d7d6d5d4d3d2d1d0cfcecdcccbcac9c8c7c6c5c4"
	"c3c2c1c001000480b8000000c800000000000000000000000102000000000016"
	"01000000e8030000010200000000001602000000e8030000";


#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const all_values[] = {
	smbd_file, smbd_dir, smbd_f2, smbd_d2, py_v1, py_v2, py_v3, py_v4,
};

#define MACHINE_SID	21, 1651262409, 3994568763u, 497749568

static void pull_ok(TALLOC_CTX *ctx, const char *hex, struct xattr_ntacl *x)
{
	size_t n = 0;
	uint8_t *b = unhex(ctx, hex, &n);
	uint8_t *g = guard_dup(b, n);

	assert_true(NT_STATUS_IS_OK(xattr_ntacl_pull(ctx, g, n, x)));
	/* the description points into the input: keep it readable */
	if (x->description_len > 0) {
		x->description = b + (x->description - g);
	}
	guard_free(g);
}

static void assert_sid(const struct smb2_sid *sid, uint64_t auth, int n, ...)
{
	va_list ap;
	int i;

	assert_non_null(sid);
	assert_int_equal(sid->authority, auth);
	assert_int_equal(sid->num_auths, n);
	va_start(ap, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(sid->sub_auths[i], va_arg(ap, unsigned int));
	}
	va_end(ap);
}

/* Every value pushes back to the bytes Samba wrote. */
static void test_ntacl__push_is_samba_bytes(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	size_t i;

	for (i = 0; i < N_OF(all_values); i++) {
		struct xattr_ntacl x;
		size_t n = 0, m = 0;
		uint8_t *want = unhex(t, all_values[i], &n);
		uint8_t *got = NULL;

		pull_ok(t, all_values[i], &x);
		assert_true(NT_STATUS_IS_OK(
			xattr_ntacl_push(t, &x, &got, &m)));
		assert_int_equal(m, n);
		assert_memory_equal(got, want, n);
	}
	talloc_free(t);
}

static void test_ntacl__smbd_fields(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	const char *const vals[] = { smbd_file, smbd_dir, smbd_f2, smbd_d2 };
	static const uint8_t zero[32];
	size_t i;

	for (i = 0; i < N_OF(vals); i++) {
		struct xattr_ntacl x;

		pull_ok(t, vals[i], &x);
		assert_int_equal(x.version, 4);
		assert_int_equal(x.hash_type, XATTR_NTACL_HASH_SHA256);
		assert_int_equal(x.description_len, 9);
		assert_memory_equal(x.description, "posix_acl", 9);
		/* 4.17 stores the time of the store (later Samba: 0) */
		assert_true(x.time > 0x01d9000000000000ULL);
		/* SHA-256 in a 64-byte field */
		assert_memory_equal(x.hash + 32, zero, 32);
		assert_memory_equal(x.sys_acl_hash + 32, zero, 32);
	}
	talloc_free(t);
}

/* The descriptors smbcacls left, read as a client would. */
static void test_ntacl__smbd_sd(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct smb2_secdesc sd;
	struct xattr_ntacl x;

	pull_ok(t, smbd_file, &x);
	assert_int_equal(pull_le16(x.sd + 2), 0x8004);  /* SR|DACL_PRESENT */
	assert_true(NT_STATUS_IS_OK(
		smb2_secdesc_pull(t, x.sd, x.sd_len, &sd)));
	assert_sid(sd.owner, 5, 5, MACHINE_SID, 1000);
	assert_sid(sd.group, 5, 5, MACHINE_SID, 513);
	assert_true(sd.has_dacl);
	assert_false(sd.has_sacl);
	assert_int_equal(sd.num_aces, 5);
	assert_int_equal(sd.aces[0].type, SMB2_ACE_ACCESS_DENIED);
	assert_int_equal(sd.aces[0].mask, 0x2);
	assert_sid(&sd.aces[0].sid, 5, 2, 32, 545);
	assert_int_equal(sd.aces[1].mask, 0x1200a9);
	assert_sid(&sd.aces[1].sid, 1, 1, 0);
	assert_sid(&sd.aces[2].sid, 5, 1, 11);
	assert_int_equal(sd.aces[4].mask, 0x1f01ff);
	assert_sid(&sd.aces[4].sid, 5, 5, MACHINE_SID, 1000);

	/*
	 * smbcacls -S builds its DACL with AclRevision 3 and Samba stores
	 * it as it came: the codec keeps it, and lib/smb2's SD parser takes
	 * revisions 2 to 4 as Windows does
	 */
	pull_ok(t, smbd_f2, &x);
	assert_int_equal(x.sd[pull_le32(x.sd + 16)], 3);
	assert_true(NT_STATUS_IS_OK(smb2_secdesc_pull(t, x.sd, x.sd_len,
						      &sd)));
	assert_true(sd.has_dacl);
	talloc_free(t);
}

/* The offsets in the value count from its start; the SD's from its own. */
static void test_ntacl__python_sd(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	const char *const vals[] = { py_v1, py_v2, py_v3, py_v4 };
	const char *const sds[] = { py_v1_sd, py_v2_sd, py_v3_sd, py_v4_sd };
	size_t i;

	for (i = 0; i < N_OF(vals); i++) {
		struct xattr_ntacl x;
		size_t n = 0;
		uint8_t *want = unhex(t, sds[i], &n);

		pull_ok(t, vals[i], &x);
		assert_int_equal(x.version, i + 1);
		assert_int_equal(x.sd_len, n);
		assert_memory_equal(x.sd, want, n);
	}
	talloc_free(t);
}

static void test_ntacl__python_fields(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct xattr_ntacl x;
	struct smb2_secdesc sd;
	size_t i;

	pull_ok(t, py_v2, &x);
	for (i = 0; i < XATTR_NTACL_V2_HASH_SIZE; i++) {
		assert_int_equal(x.hash[i], 0xa0 + i);
	}
	assert_true(NT_STATUS_IS_OK(
		smb2_secdesc_pull(t, x.sd, x.sd_len, &sd)));
	assert_true(sd.has_sacl);
	assert_null(sd.group);

	pull_ok(t, py_v3, &x);
	assert_int_equal(x.hash_type, 1);
	for (i = 0; i < XATTR_NTACL_HASH_SIZE; i++) {
		assert_int_equal(x.hash[i], i);
	}

	pull_ok(t, py_v4, &x);
	assert_int_equal(x.description_len, 13);
	assert_memory_equal(x.description, "gpfs_nfs4_acl", 13);
	assert_int_equal(x.time, 0);
	for (i = 0; i < XATTR_NTACL_HASH_SIZE; i++) {
		assert_int_equal(x.sys_acl_hash[i], 0xff - i);
	}
	assert_true(NT_STATUS_IS_OK(
		smb2_secdesc_pull(t, x.sd, x.sd_len, &sd)));
	assert_true(sd.has_dacl);
	assert_true(sd.null_dacl);
	talloc_free(t);
}

/* The stored SD hash is that of the SD mapped from the POSIX ACL. */
static void test_ntacl__sd_hash(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	const char *const vals[] = { smbd_dir, smbd_file, smbd_f2 };
	const char *const fs[] = { fs_sd_dir, fs_sd_file, fs_sd_file };
	size_t i;

	for (i = 0; i < N_OF(vals); i++) {
		uint8_t hash[XATTR_NTACL_HASH_SIZE];
		struct xattr_ntacl x;
		size_t n = 0;
		uint8_t *sd = unhex(t, fs[i], &n);
		bool match = false;

		pull_ok(t, vals[i], &x);
		assert_true(NT_STATUS_IS_OK(xattr_ntacl_sd_hash(sd, n, hash)));
		assert_memory_equal(hash, x.hash, XATTR_NTACL_HASH_SIZE);
		assert_true(NT_STATUS_IS_OK(
			xattr_ntacl_sd_hash_verify(&x, sd, n, &match)));
		assert_true(match);
		/* the stored SD is not what is hashed */
		assert_true(NT_STATUS_IS_OK(xattr_ntacl_sd_hash_verify(
			&x, x.sd, x.sd_len, &match)));
		assert_false(match);
	}
	talloc_free(t);
}

struct sysacl_vec {
	const char *value, *acl, *dacl, *wrapper;
	bool dir;
};

static void sys_acl_check(TALLOC_CTX *ctx, const struct sysacl_vec *v)
{
	struct xattr_posix_acl acc, dfl = {};
	uint8_t hash[XATTR_NTACL_HASH_SIZE];
	struct xattr_ntacl x;
	size_t n = 0, wn = 0, bn = 0;
	uint8_t *b = unhex(ctx, v->acl, &n);
	uint8_t *want = unhex(ctx, v->wrapper, &wn);
	uint8_t *blob = NULL;
	uint32_t mode = v->dir ? 040775 : 0100775;

	assert_true(NT_STATUS_IS_OK(xattr_posix_acl_pull(ctx, b, n, &acc)));
	if (v->dacl != NULL) {
		b = unhex(ctx, v->dacl, &n);
		assert_true(NT_STATUS_IS_OK(
			xattr_posix_acl_pull(ctx, b, n, &dfl)));
	}
	assert_true(NT_STATUS_IS_OK(xattr_ntacl_sys_acl_blob(
		ctx, &acc, v->dir ? &dfl : NULL, 0, 0, mode, &blob, &bn)));
	assert_int_equal(bn, wn);
	assert_memory_equal(blob, want, wn);
	assert_true(NT_STATUS_IS_OK(xattr_ntacl_sys_acl_hash(
		&acc, v->dir ? &dfl : NULL, 0, 0, mode, hash)));
	pull_ok(ctx, v->value, &x);
	assert_memory_equal(hash, x.sys_acl_hash, XATTR_NTACL_HASH_SIZE);
	assert_int_equal(xattr_ntacl_verdict(&x, false, hash),
			 XATTR_NTACL_USE_STORED);
}

/* A directory without a default ACL hashes an empty one, not none. */
static void test_ntacl__sys_acl_hash(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const struct sysacl_vec vecs[] = {
		{ smbd_file, smbd_file_acl, NULL, smbd_file_wrapper, false },
		{ smbd_dir, smbd_dir_acl, smbd_dir_dacl, smbd_dir_wrapper,
		  true },
		{ smbd_d2, smbd_d2_acl, NULL, smbd_d2_wrapper, true },
	};
	size_t i;

	for (i = 0; i < N_OF(vecs); i++) {
		sys_acl_check(t, &vecs[i]);
	}
	talloc_free(t);
}

static void test_ntacl__posix_acl(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint8_t v3[] = { 3, 0, 0, 0 };
	static const uint8_t odd[] = { 2, 0, 0, 0, 1, 0, 7, 0 };
	static const uint8_t tag[] = { 2, 0, 0, 0, 0x40, 0, 7, 0, 0, 0, 0, 0 };
	static const uint8_t empty[] = { 2, 0, 0, 0 };
	struct xattr_posix_ace m[3];
	struct xattr_posix_acl a;

	assert_false(NT_STATUS_IS_OK(
		xattr_posix_acl_pull(t, v3, sizeof(v3), &a)));
	assert_false(NT_STATUS_IS_OK(
		xattr_posix_acl_pull(t, odd, sizeof(odd), &a)));
	assert_false(NT_STATUS_IS_OK(
		xattr_posix_acl_pull(t, tag, sizeof(tag), &a)));
	assert_false(NT_STATUS_IS_OK(xattr_posix_acl_pull(t, v3, 3, &a)));
	assert_true(NT_STATUS_IS_OK(
		xattr_posix_acl_pull(t, empty, sizeof(empty), &a)));
	assert_int_equal(a.count, 0);
	xattr_posix_acl_from_mode(0100754, m);
	assert_int_equal(m[0].tag, XATTR_SMB_ACL_USER_OBJ);
	assert_int_equal(m[0].perm, 7);
	assert_int_equal(m[1].tag, XATTR_SMB_ACL_GROUP_OBJ);
	assert_int_equal(m[1].perm, 5);
	assert_int_equal(m[2].tag, XATTR_SMB_ACL_OTHER);
	assert_int_equal(m[2].perm, 4);
	talloc_free(t);
}

static void test_ntacl__sys_acl_bad_tag(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const struct xattr_posix_ace bad[] = { { .tag = 7 } };
	const struct xattr_posix_acl a = { .aces = bad, .count = 1 };
	uint8_t *blob = NULL;
	size_t n = 0;

	assert_true(NT_STATUS_EQUAL(
		xattr_ntacl_sys_acl_blob(t, &a, NULL, 0, 0, 0, &blob, &n),
		NT_STATUS_INVALID_PARAMETER));
	assert_null(blob);
	talloc_free(t);
}

enum now { NOW_NONE, NOW_OTHER, NOW_STORED };

struct verdict_row {
	const char *value;
	bool ignore_system_acls;
	bool hash_type_none;
	enum now now;                   /* the file's sys_acl_hash now */
	enum xattr_ntacl_verdict want;
};

/* Samba 4.17's validate_nt_acl_blob, step by step. */
static void test_ntacl__verdict(void **state)
{
	static const struct verdict_row rows[] = {
		{ py_v1, false, false, NOW_NONE, XATTR_NTACL_USE_STORED },
		{ py_v2, false, false, NOW_OTHER, XATTR_NTACL_USE_STORED },
		{ py_v3, false, false, NOW_NONE, XATTR_NTACL_CHECK_SD_HASH },
		{ py_v3, true, false, NOW_NONE, XATTR_NTACL_USE_STORED },
		{ py_v3, false, true, NOW_NONE, XATTR_NTACL_USE_FS },
		{ smbd_file, false, false, NOW_OTHER,
		  XATTR_NTACL_CHECK_SD_HASH },
		{ smbd_file, false, false, NOW_NONE,
		  XATTR_NTACL_CHECK_SD_HASH },
		{ smbd_file, false, false, NOW_STORED, XATTR_NTACL_USE_STORED },
		{ smbd_file, true, true, NOW_OTHER, XATTR_NTACL_USE_STORED },
	};
	TALLOC_CTX *t = talloc_new(*state);
	uint8_t other[XATTR_NTACL_HASH_SIZE] = { 1 };
	size_t i;

	for (i = 0; i < N_OF(rows); i++) {
		const struct verdict_row *r = &rows[i];
		struct xattr_ntacl x;
		const uint8_t *now = NULL;

		pull_ok(t, r->value, &x);
		if (r->hash_type_none) {
			x.hash_type = XATTR_NTACL_HASH_NONE;
		}
		now = r->now == NOW_OTHER ? other :
		      r->now == NOW_STORED ? x.sys_acl_hash : NULL;
		assert_int_equal(xattr_ntacl_verdict(&x, r->ignore_system_acls,
						     now), r->want);
	}
	talloc_free(t);
}

/*
 * Every prefix of every value is refused (the SD is last and every part
 * is needed), never read past its end.
 */
static void test_ntacl__truncations(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	size_t i, k;

	for (i = 0; i < N_OF(all_values); i++) {
		size_t n = 0;
		uint8_t *b = unhex(t, all_values[i], &n);

		for (k = 0; k < n; k++) {
			struct xattr_ntacl x;
			uint8_t *g = guard_dup(b, k);

			assert_false(NT_STATUS_IS_OK(
				xattr_ntacl_pull(t, g, k, &x)));
			assert_int_equal(x.version, 0);
			guard_free(g);
		}
	}
	talloc_free(t);
}

struct edit {
	const char *name;
	const char *base;
	size_t ofs;
	uint8_t bytes[4];
	size_t n;
	NTSTATUS status;
};

#define P_BAD	NT_STATUS_INVALID_PARAMETER
#define SD_BAD	NT_STATUS_INVALID_SECURITY_DESCR

/*
 * py_v1 (172 bytes): the SD at 8, owner offset at 12 (0x1c), DACL
 * offset at 24 (0x54); the DACL: AclSize at 86, AceCount at 88; its
 * first ACE at 92 (AceSize at 94), that ACE's SID at 100.  py_v3: the
 * DACL at 124, its object ACE at 132 (AceSize at 134, flags word at
 * 140), the second ACE at 188.
 */
static const struct edit edits[] = {
	{ "version 0", py_v1, 0, { 0, 0, 0, 0 }, 4, P_BAD },
	{ "version 5", py_v1, 0, { 5, 0, 5, 0 }, 4, P_BAD },
	{ "version ffff", py_v1, 0, { 0xff, 0xff, 0xff, 0xff }, 4, P_BAD },
	{ "level != version", py_v1, 2, { 2, 0 }, 2, P_BAD },
	{ "v2 level 3", py_v2, 2, { 3, 0 }, 2, P_BAD },
	{ "NULL arm", py_v1, 4, { 0, 0, 0, 0 }, 4, P_BAD },
	{ "NULL sd", py_v3, 8, { 0, 0, 0, 0 }, 4, P_BAD },
	{ "owner in header", py_v1, 12, { 8 + 12 }, 4, SD_BAD },
	{ "owner before sd", py_v1, 12, { 4 }, 4, SD_BAD },
	{ "owner past end", py_v1, 12, { 0, 1 }, 4, SD_BAD },
	{ "owner misaligned", py_v1, 12, { 0x1e }, 4, SD_BAD },
	{ "owner huge", py_v1, 12, { 0xf0, 0xff, 0xff, 0xff }, 4, SD_BAD },
	{ "dacl at end", py_v1, 24, { 172 }, 4, SD_BAD },
	{ "AclSize past end", py_v1, 86, { 0x5c }, 2, SD_BAD },
	{ "AclSize 4", py_v1, 86, { 4, 0 }, 2, SD_BAD },
	{ "AceCount past AclSize", py_v1, 88, { 4 }, 1, SD_BAD },
	{ "AceCount 2001", py_v1, 88, { 0xd1, 0x07 }, 2, SD_BAD },
	{ "Sbz2 set", py_v1, 90, { 1 }, 1, SD_BAD },
	{ "AceSize past AclSize", py_v1, 94, { 0x60 }, 1, SD_BAD },
	{ "AceSize 0", py_v1, 94, { 0 }, 1, SD_BAD },
	{ "AceSize 6", py_v1, 94, { 6 }, 1, SD_BAD },
	{ "AceSize not 4-aligned", py_v1, 94, { 0x22 }, 1, SD_BAD },
	{ "AceSize short of its SID", py_v1, 94, { 0x20 }, 1, SD_BAD },
	{ "SID 16 sub-auths", py_v1, 101, { 16 }, 1, SD_BAD },
	{ "SID 255 sub-auths", py_v1, 101, { 255 }, 1, SD_BAD },
	{ "SID revision 2", py_v1, 100, { 2 }, 1, SD_BAD },
	{ "object part past AceSize", py_v3, 188, { 5 }, 1, SD_BAD },
	{ "GUIDs past AceSize", py_v3, 134, { 0x24 }, 1, SD_BAD },
	{ "SID read from a GUID", py_v3, 140, { 0 }, 1, SD_BAD },
	/* still valid: */
	{ "no owner", py_v1, 12, { 0 }, 4, NT_STATUS_OK },
	{ "owner = group", py_v1, 12, { 0x38 }, 1, NT_STATUS_OK },
	{ "AceCount 2", py_v1, 88, { 2 }, 1, NT_STATUS_OK },
	/* revisions are Samba's to keep; parts may overlap */
	{ "sd revision 2", py_v1, 8, { 2 }, 1, NT_STATUS_OK },
	{ "acl revision 9", py_v1, 84, { 9 }, 1, NT_STATUS_OK },
	{ "owner SID 15 sub-auths", py_v1, 29, { 15 }, 1, NT_STATUS_OK },
};

static void test_ntacl__bad_input(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	size_t i;

	for (i = 0; i < N_OF(edits); i++) {
		const struct edit *e = &edits[i];
		struct xattr_ntacl x;
		size_t n = 0;
		uint8_t *b = unhex(t, e->base, &n);
		uint8_t *g = NULL;
		NTSTATUS st;

		assert_true(e->ofs + e->n <= n);
		memcpy(b + e->ofs, e->bytes, e->n);
		g = guard_dup(b, n);
		st = xattr_ntacl_pull(t, g, n, &x);
		if (!NT_STATUS_EQUAL(st, e->status)) {
			fail_msg("%s: 0x%08x", e->name, (unsigned)st.v);
		}
		guard_free(g);
	}
	talloc_free(t);
}

/* A v4 description without its NUL runs to the end and fails there. */
static void test_ntacl__description_unterminated(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct xattr_ntacl x;
	size_t n = 0;
	uint8_t *b = unhex(t, py_v4, &n);

	memset(b + 78, 'a', n - 78);
	assert_true(NT_STATUS_EQUAL(xattr_ntacl_pull(t, b, n, &x),
				    NT_STATUS_INVALID_PARAMETER));
	talloc_free(t);
}

static void test_ntacl__push_refuses(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct xattr_ntacl x;
	uint8_t *out = NULL;
	size_t n = 0;

	pull_ok(t, py_v4, &x);
	x.version = 5;
	assert_true(NT_STATUS_EQUAL(xattr_ntacl_push(t, &x, &out, &n),
				    NT_STATUS_INVALID_PARAMETER));
	x.version = 0;
	assert_true(NT_STATUS_EQUAL(xattr_ntacl_push(t, &x, &out, &n),
				    NT_STATUS_INVALID_PARAMETER));
	x.version = 4;
	x.description = (const uint8_t *)"a\0b";
	x.description_len = 3;
	assert_true(NT_STATUS_EQUAL(xattr_ntacl_push(t, &x, &out, &n),
				    NT_STATUS_INVALID_PARAMETER));
	x.description_len = 0;
	x.sd_len = 19;
	assert_true(NT_STATUS_EQUAL(xattr_ntacl_push(t, &x, &out, &n),
				    NT_STATUS_INVALID_SECURITY_DESCR));
	x.sd = NULL;
	x.sd_len = 0;
	assert_true(NT_STATUS_EQUAL(xattr_ntacl_push(t, &x, &out, &n),
				    NT_STATUS_INVALID_SECURITY_DESCR));
	assert_null(out);
	talloc_free(t);
}

/*
 * An SD with two ACLs of 862 ACEs of 76 bytes each (SIDs with 15
 * sub-authorities): valid, but its value would be over the 64 KiB Samba
 * reads.
 */
static void test_ntacl__push_too_big(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	const size_t aces = 862, ace = 76, acl = 8 + aces * ace;
	size_t len = XATTR_NTACL_SD_HEADER + 2 * acl, i, extent = 0;
	uint8_t *sd = talloc_zero_size(t, len);
	struct xattr_ntacl x = { .version = 1, .sd = sd, .sd_len = len };
	uint8_t *out = NULL;
	size_t n = 0;

	assert_non_null(sd);
	sd[0] = 1;
	push_le16(sd + 2, 0x8014);
	for (i = 0; i < 2; i++) {
		size_t a = XATTR_NTACL_SD_HEADER + i * acl, k;

		push_le32(sd + 12 + 4 * i, (uint32_t)a);
		sd[a] = 2;
		push_le16(sd + a + 2, (uint16_t)acl);
		push_le32(sd + a + 4, (uint32_t)aces);
		for (k = 0; k < aces; k++) {
			uint8_t *e = sd + a + 8 + k * ace;

			push_le16(e + 2, (uint16_t)ace);
			e[8] = 1;
			e[9] = 15;
		}
	}
	assert_true(NT_STATUS_IS_OK(xattr_ntacl_sd_check(sd, len, &extent)));
	assert_int_equal(extent, len);
	assert_true(NT_STATUS_EQUAL(xattr_ntacl_push(t, &x, &out, &n),
				    NT_STATUS_INVALID_PARAMETER));
	assert_null(out);
	talloc_free(t);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ntacl__push_is_samba_bytes),
		T(test_ntacl__smbd_fields),
		T(test_ntacl__smbd_sd),
		T(test_ntacl__python_sd),
		T(test_ntacl__python_fields),
		T(test_ntacl__sd_hash),
		T(test_ntacl__sys_acl_hash),
		T(test_ntacl__posix_acl),
		T(test_ntacl__sys_acl_bad_tag),
		T(test_ntacl__verdict),
		T(test_ntacl__truncations),
		T(test_ntacl__bad_input),
		T(test_ntacl__description_unterminated),
		T(test_ntacl__push_refuses),
		T(test_ntacl__push_too_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
