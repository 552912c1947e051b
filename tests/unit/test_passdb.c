/*
 * lib/auth/passdb.c: the smbpasswd file.  Parsing (valid, Samba-written
 * and malformed lines), lookups, editing, atomic saves and reloads.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "lib/auth/passdb.h"
#include "lib/param/param.h"

#define LM_NONE "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
/* MS-NLMP 4.2.2.1.2: NTOWFv1("Password") */
#define HASH_PASSWORD "A4F49C406510BDCAB6824EE7C30FD852"
#define HASH_OTHER "0123456789ABCDEF0123456789ABCDEF"

static size_t null_blocks;

/* unit_setup plus a leak check on the NULL context (passdb temporaries) */
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

static void hex_to_hash(const char *hex, uint8_t hash[16])
{
	size_t i;

	for (i = 0; i < 16; i++) {
		unsigned v = 0;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		hash[i] = (uint8_t)v;
	}
}

static struct passdb *parse(TALLOC_CTX *ctx, const char *text)
{
	struct passdb *db = passdb_parse_buffer(ctx, "t", text,
						strlen(text));

	assert_non_null(db);
	return db;
}

static size_t count_diags(const struct passdb *db)
{
	const struct passdb_diag *d = NULL;
	size_t n = 0;

	for (d = passdb_diags(db); d != NULL; d = d->next) {
		n++;
	}
	return n;
}

static bool has_diag(const struct passdb *db, const char *text)
{
	const struct passdb_diag *d = NULL;

	for (d = passdb_diags(db); d != NULL; d = d->next) {
		if (strstr(d->message, text) != NULL) {
			return true;
		}
	}
	return false;
}

static void assert_user(const struct passdb *db, const char *user,
			const char *hex, bool disabled)
{
	struct auth_user_entry e = { 0 };
	uint8_t want[16];

	hex_to_hash(hex, want);
	assert_int_equal(NT_STATUS_V(passdb_lookup(db, user, &e)), 0);
	assert_memory_equal(e.nt_hash, want, 16);
	assert_int_equal(e.disabled, disabled);
}

static void assert_status(const struct passdb *db, const char *user,
			  NTSTATUS want)
{
	struct auth_user_entry e = { 0 };

	assert_int_equal(NT_STATUS_V(passdb_lookup(db, user, &e)),
			 NT_STATUS_V(want));
}

/* A temporary directory; files inside are removed by rm_tree. */
static char *tmp_dir(TALLOC_CTX *ctx)
{
	char *dir = talloc_strdup(ctx, "/tmp/test_passdb.XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

static void rm_tree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", dir,
		 dir);
	assert_int_equal(system(cmd), 0);
}

static void write_text(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static char *read_text(TALLOC_CTX *ctx, const char *path)
{
	char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return talloc_strdup(ctx, buf);
}

static struct passdb *load_ok(TALLOC_CTX *ctx, const char *path)
{
	struct passdb *db = NULL;
	char *err = NULL;

	assert_int_equal(passdb_load(ctx, path, &db, &err), 0);
	assert_non_null(db);
	return db;
}

static void save_ok(TALLOC_CTX *ctx, struct passdb *db)
{
	char *err = NULL;

	if (passdb_save(db, ctx, &err) != 0) {
		fail_msg("save: %s", err);
	}
}

static size_t count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de = NULL;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		n += (de->d_name[0] != '.');
	}
	closedir(d);
	return n;
}

/* ---- NT hash ---- */

static void test_passdb__nt_hash_ms_nlmp(void **state)
{
	uint8_t hash[16], want[16];

	(void)state;
	hex_to_hash(HASH_PASSWORD, want);
	assert_int_equal(NT_STATUS_V(auth_nt_hash("Password", hash)), 0);
	assert_memory_equal(hash, want, 16);
}

/* ---- parsing ---- */

/* Lines as Samba 4 writes them, plus forms Samba accepts. */
static const char samba_file[] =
	"# smbpasswd written by Samba\n"
	"\n"
	"alice:1000:" LM_NONE ":" HASH_PASSWORD ":[U          ]:"
	"LCT-5F5E1000:\n"
	"bob:1001:AAD3B435B51404EEAAD3B435B51404EE:"
	"0123456789abcdef0123456789ABCDEF:[DU         ]:LCT-00000001:\n"
	"carol:1002:" LM_NONE ":" HASH_OTHER ":[UX         ]:LCT-6543210F\n"
	"dave:1003:NO PASSWORDXXXXXXXXXXXXXXXXXXXXX:NO PASSWORDXXXXXXXXXXXXXX"
	"XXXXXXX:[NU         ]:LCT-00000000:\n"
	"host$:1004:" LM_NONE ":" HASH_OTHER ":[W          ]:LCT-00000000:\r\n"
	"erin:1005:" LM_NONE ":" HASH_OTHER ":[UL]:\n"
	"  # indented comment\n"
	"frank:4294967295:" LM_NONE ":" HASH_OTHER ":[U          ]:";

static void test_passdb__parse_samba_lines(void **state)
{
	struct passdb *db = parse(*state, samba_file);

	assert_int_equal(count_diags(db), 0);
	assert_int_equal(passdb_num_users(db), 7);
	assert_user(db, "alice", HASH_PASSWORD, false);
	assert_user(db, "bob", HASH_OTHER, true);	/* D */
	assert_user(db, "carol", HASH_OTHER, false);
	assert_user(db, "erin", HASH_OTHER, true);	/* L: locked */
	assert_user(db, "frank", HASH_OTHER, false);
	/* no password: null passwords are not supported */
	assert_status(db, "dave", NT_STATUS_LOGON_FAILURE);
	/* a workstation trust account is no user */
	assert_status(db, "host$", NT_STATUS_LOGON_FAILURE);
	assert_status(db, "nobody", NT_STATUS_NO_SUCH_USER);
	assert_status(db, "# smbpasswd written by Samba",
		      NT_STATUS_NO_SUCH_USER);
	talloc_free(db);
}

static void test_passdb__parse_empty(void **state)
{
	struct passdb *db = passdb_parse_buffer(*state, "t", "", 0);

	assert_non_null(db);
	assert_int_equal(passdb_num_users(db), 0);
	assert_null(passdb_diags(db));
	assert_status(db, "alice", NT_STATUS_NO_SUCH_USER);
	talloc_free(db);
}

static const struct {
	const char *line;
	const char *diag;
} bad_lines[] = {
	{ "a:1:" LM_NONE ":0123456789ABCDEF0123456789ABCDE:[U ]:", "NT hash" },
	{ "a:1:" LM_NONE ":0123456789ABCDEF0123456789ABCDEG:[U ]:", "NT hash" },
	{ "a:1:" LM_NONE ":0123456789ABCDEF0123456789ABCDEF0:[U ]:",
	  "NT hash" },
	/* no ':' between NT hash and flags */
	{ "a:1:" LM_NONE ":" HASH_OTHER "[U ]:", "NT hash" },
	{ "a:1:" LM_NONE ":" HASH_OTHER, "missing fields" },
	{ "a:1:" LM_NONE, "missing fields" },
	{ "alice", "missing fields" },
	{ "a:1:XX:" HASH_OTHER ":[U ]:", "LM hash" },
	{ "a:-1:" LM_NONE ":" HASH_OTHER ":[U ]:", "uid" },
	{ "a:4294967296:" LM_NONE ":" HASH_OTHER ":[U ]:", "uid" },
	{ "a::" LM_NONE ":" HASH_OTHER ":[U ]:", "uid" },
	{ "a:1:" LM_NONE ":" HASH_OTHER ":U:", "flags" },
	{ "a:1:" LM_NONE ":" HASH_OTHER ":[U?]:", "flags" },
	{ "a:1:" LM_NONE ":" HASH_OTHER ":[U           ]:", "flags" },
	{ "a:1:" LM_NONE ":" HASH_OTHER ":[U]:LCT-:", "change time" },
	{ "a:1:" LM_NONE ":" HASH_OTHER ":[U]:LCT-123456789:", "change time" },
	{ "a:1:" LM_NONE ":" HASH_OTHER ":[U]:1234:", "change time" },
	{ "a:1:" LM_NONE ":" HASH_OTHER ":[U]:LCT-1:x", "after the last" },
	{ "a:1:" LM_NONE ":" HASH_OTHER ":[U]:LCT-1:::", "after the last" },
	{ ":1:" LM_NONE ":" HASH_OTHER ":[U]:", "user name" },
	{ "a\tb:1:" LM_NONE ":" HASH_OTHER ":[U]:", "user name" },
	{ "\xff:1:" LM_NONE ":" HASH_OTHER ":[U]:", "user name" },
};

static void test_passdb__malformed_lines(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		char *text = talloc_asprintf(*state, "# c\n%s\n"
					     "ok:1:%s:%s:[U]:\n",
					     bad_lines[i].line, LM_NONE,
					     HASH_OTHER);
		struct passdb *db = parse(*state, text);

		if (count_diags(db) != 1 || !has_diag(db, "t:2: ") ||
		    !has_diag(db, bad_lines[i].diag)) {
			fail_msg("line %zu '%s': %s", i, bad_lines[i].line,
				 passdb_diags(db) ? passdb_diags(db)->message
						  : "no diagnostic");
		}
		assert_int_equal(passdb_num_users(db), 1);
		assert_user(db, "ok", HASH_OTHER, false);
		assert_status(db, "a", NT_STATUS_NO_SUCH_USER);
		talloc_free(db);
		talloc_free(text);
	}
}

static void test_passdb__huge_line(void **state)
{
	size_t n = 100000;
	char *text = talloc_size(*state, n + 200);
	struct passdb *db = NULL;

	memset(text, 'a', n);
	snprintf(text + n, 200, ":1:%s:%s:[U]:\nb:2:%s:%s:[U]:\n", LM_NONE,
		 HASH_OTHER, LM_NONE, HASH_OTHER);
	db = parse(*state, text);
	assert_int_equal(count_diags(db), 1);
	assert_true(has_diag(db, "t:1: line longer than 1024 bytes"));
	assert_int_equal(passdb_num_users(db), 1);
	assert_user(db, "b", HASH_OTHER, false);
	talloc_free(db);
	talloc_free(text);
}

static void test_passdb__nul_bytes(void **state)
{
	static const char text[] =
		"a\0b:1:" LM_NONE ":" HASH_OTHER ":[U]:\n"
		"c:1:" LM_NONE ":" HASH_OTHER ":[U]:\0\n"
		"ok:1:" LM_NONE ":" HASH_OTHER ":[U]:\n";
	struct passdb *db = passdb_parse_buffer(*state, "t", text,
						sizeof(text) - 1);

	assert_non_null(db);
	assert_int_equal(count_diags(db), 2);
	assert_true(has_diag(db, "t:1: NUL byte"));
	assert_true(has_diag(db, "t:2: NUL byte"));
	assert_int_equal(passdb_num_users(db), 1);
	assert_status(db, "a", NT_STATUS_NO_SUCH_USER);
	assert_status(db, "c", NT_STATUS_NO_SUCH_USER);
	talloc_free(db);
}

static void test_passdb__duplicate_user(void **state)
{
	struct passdb *db = parse(*state,
		"alice:1:" LM_NONE ":" HASH_PASSWORD ":[U]:\n"
		"ALICE:2:" LM_NONE ":" HASH_OTHER ":[U]:\n");

	assert_int_equal(count_diags(db), 1);
	assert_true(has_diag(db, "t:2: duplicate entry for user alice "
			     "(first at line 1)"));
	assert_user(db, "alice", HASH_PASSWORD, false);
	talloc_free(db);
}

/* Every prefix of a valid file, placed against a guard page. */
static void test_passdb__every_truncation(void **state)
{
	size_t len = strlen(samba_file), i;

	for (i = 0; i <= len; i++) {
		uint8_t *p = guard_dup(samba_file, i);
		struct passdb *db = passdb_parse_buffer(*state, "t",
							(const char *)p, i);

		assert_non_null(db);
		assert_true(passdb_num_users(db) <= 7);
		talloc_free(db);
		guard_free(p);
	}
}

/* ---- lookups ---- */

static void test_passdb__lookup_case_insensitive(void **state)
{
	struct passdb *db = parse(*state,
		"Alice:1:" LM_NONE ":" HASH_PASSWORD ":[U]:\n"
		"\xc3\xa4rger:2:" LM_NONE ":" HASH_OTHER ":[U]:\n");

	assert_user(db, "alice", HASH_PASSWORD, false);
	assert_user(db, "ALICE", HASH_PASSWORD, false);
	assert_user(db, "aLiCe", HASH_PASSWORD, false);
	assert_user(db, "\xc3\x84RGER", HASH_OTHER, false);	/* Ä */
	assert_status(db, "alic", NT_STATUS_NO_SUCH_USER);
	assert_status(db, "alice ", NT_STATUS_NO_SUCH_USER);
	assert_status(db, "", NT_STATUS_NO_SUCH_USER);
	assert_status(db, "\xff", NT_STATUS_NO_SUCH_USER);
	talloc_free(db);
}

static void test_passdb__user_lookup_callback(void **state)
{
	struct passdb *db = parse(*state,
		"alice:1:" LM_NONE ":" HASH_PASSWORD ":[DU]:\n");
	const struct auth_user_lookup *l = passdb_user_lookup(db);
	struct auth_user_entry e = { 0 };
	uint8_t want[16];

	hex_to_hash(HASH_PASSWORD, want);
	/* a buffer has no file: the reload fails, the lookup still works */
	assert_int_equal(NT_STATUS_V(l->fn(l->private_data, "ALICE",
					   "WORKGROUP", &e)), 0);
	assert_memory_equal(e.nt_hash, want, 16);
	assert_true(e.disabled);
	assert_int_equal(NT_STATUS_V(l->fn(l->private_data, "bob", "",
					   &e)),
			 NT_STATUS_V(NT_STATUS_NO_SUCH_USER));
	talloc_free(db);
}

/* ---- editing and formatting ---- */

static void test_passdb__edit_in_memory(void **state)
{
	struct passdb *db = parse(*state, "");
	uint8_t h[16];
	uint32_t uid = 0;
	uint16_t acb = 0;

	hex_to_hash(HASH_PASSWORD, h);
	assert_int_equal(passdb_add(db, "alice", 1000, h), 0);
	assert_int_equal(passdb_add(db, "ALICE", 1000, h), -EEXIST);
	assert_int_equal(passdb_add(db, "", 1, h), -EINVAL);
	assert_int_equal(passdb_add(db, "a:b", 1, h), -EINVAL);
	assert_int_equal(passdb_add(db, "a\nb", 1, h), -EINVAL);
	assert_int_equal(passdb_add(db, "\xc3", 1, h), -EINVAL);
	assert_false(passdb_valid_name("a:b"));
	assert_true(passdb_valid_name("alice"));
	assert_int_equal(passdb_set_disabled(db, "Alice", true), 0);
	assert_user(db, "alice", HASH_PASSWORD, true);
	assert_int_equal(passdb_get_info(db, "alice", &uid, &acb), 0);
	assert_int_equal(uid, 1000);
	assert_int_equal(acb, PASSDB_ACB_NORMAL | PASSDB_ACB_DISABLED);
	assert_int_equal(passdb_set_disabled(db, "alice", false), 0);
	hex_to_hash(HASH_OTHER, h);
	assert_int_equal(passdb_set_password(db, "alice", h), 0);
	assert_user(db, "alice", HASH_OTHER, false);
	assert_int_equal(passdb_set_password(db, "bob", h), -ENOENT);
	assert_int_equal(passdb_set_disabled(db, "bob", true), -ENOENT);
	assert_int_equal(passdb_delete(db, "bob"), -ENOENT);
	assert_int_equal(passdb_delete(db, "ALICE"), 0);
	assert_int_equal(passdb_num_users(db), 0);
	assert_status(db, "alice", NT_STATUS_NO_SUCH_USER);
	talloc_free(db);
}

/* LM hashes are dropped, flags in Samba's order, comments kept. */
static void test_passdb__format(void **state)
{
	struct passdb *db = parse(*state,
		"# keep me\n"
		"bob:1001:AAD3B435B51404EEAAD3B435B51404EE:"
		"0123456789abcdef0123456789abcdef:[UD]:LCT-1:\n"
		"broken line\n"
		"dave:7:" LM_NONE ":NO PASSWORDXXXXXXXXXXXXXXXXXXXXX:[NU]:\n");
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(passdb_format(db, *state, &text, &len), 0);
	assert_string_equal(text,
		"# keep me\n"
		"bob:1001:" LM_NONE ":" HASH_OTHER ":[DU         ]:"
		"LCT-00000001:\n"
		"broken line\n"
		"dave:7:" LM_NONE ":NO PASSWORDXXXXXXXXXXXXXXXXXXXXX:"
		"[NU         ]:LCT-00000000:\n");
	assert_int_equal(len, strlen(text));
	talloc_free(text);
	talloc_free(db);
}

/* ---- files ---- */

static void test_passdb__missing_file_is_empty(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	char *dir = tmp_dir(t);
	char *path = talloc_asprintf(t, "%s/none", dir);
	struct passdb *db = load_ok(t, path);

	assert_int_equal(passdb_num_users(db), 0);
	talloc_free(db);
	rm_tree(dir);
	talloc_free(t);
}

static void test_passdb__unreadable_file(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	char *dir = tmp_dir(t);
	struct passdb *db = NULL;
	char *err = NULL;

	assert_int_equal(passdb_load(t, dir, &db, &err), -EISDIR);
	assert_null(db);
	assert_non_null(strstr(err, dir));
	assert_non_null(strstr(err, strerror(EISDIR)));
	talloc_free(err);
	rm_tree(dir);
	talloc_free(t);
}

static void test_passdb__save_load_round_trip(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	char *dir = tmp_dir(t);
	char *path = talloc_asprintf(t, "%s/private/sub/smbpasswd", dir);
	char *pdir = talloc_asprintf(t, "%s/private/sub", dir);
	struct passdb *db = load_ok(t, path);
	uint8_t h[16];
	struct stat st;

	hex_to_hash(HASH_PASSWORD, h);
	assert_int_equal(passdb_add(db, "alice", 1000, h), 0);
	assert_int_equal(passdb_add(db, "bob", 1001, h), 0);
	assert_int_equal(passdb_add(db, "carol", 1002, h), 0);
	assert_int_equal(passdb_set_disabled(db, "bob", true), 0);
	assert_int_equal(passdb_delete(db, "carol"), 0);
	save_ok(t, db);
	talloc_free(db);

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(pdir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* no temporary file left */
	assert_int_equal(count_dir(pdir), 1);

	db = load_ok(t, path);
	assert_int_equal(count_diags(db), 0);
	assert_int_equal(passdb_num_users(db), 2);
	assert_user(db, "alice", HASH_PASSWORD, false);
	assert_user(db, "bob", HASH_PASSWORD, true);
	assert_status(db, "carol", NT_STATUS_NO_SUCH_USER);
	talloc_free(db);
	rm_tree(dir);
	talloc_free(t);
}

static void test_passdb__save_keeps_other_lines(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	char *dir = tmp_dir(t);
	char *path = talloc_asprintf(t, "%s/smbpasswd", dir);
	struct passdb *db = NULL;
	char *text = NULL;
	uint8_t h[16];

	write_text(path, "# admin note\nbad line\n"
		   "bob:1:" LM_NONE ":" HASH_OTHER ":[U          ]:"
		   "LCT-00000001:\n", 0600);
	db = load_ok(t, path);
	assert_int_equal(count_diags(db), 1);
	hex_to_hash(HASH_PASSWORD, h);
	assert_int_equal(passdb_add(db, "alice", 5, h), 0);
	save_ok(t, db);
	text = read_text(t, path);
	assert_non_null(strstr(text, "# admin note\nbad line\nbob:1:" LM_NONE
			       ":" HASH_OTHER ":[U          ]:LCT-00000001:\n"
			       "alice:5:" LM_NONE ":" HASH_PASSWORD
			       ":[U          ]:LCT-"));
	talloc_free(text);
	talloc_free(db);
	rm_tree(dir);
	talloc_free(t);
}

static void test_passdb__world_readable_warning(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	char *dir = tmp_dir(t);
	char *path = talloc_asprintf(t, "%s/smbpasswd", dir);
	struct passdb *db = NULL;

	write_text(path, "", 0644);
	db = load_ok(t, path);
	assert_int_equal(count_diags(db), 1);
	assert_true(has_diag(db, "mode 0644"));
	talloc_free(db);
	rm_tree(dir);
	talloc_free(t);
}

static const char two_users[] =
	"alice:1:" LM_NONE ":" HASH_PASSWORD ":[U          ]:LCT-00000001:\n"
	"bob:2:" LM_NONE ":" HASH_OTHER ":[U          ]:LCT-00000001:\n";

/* A save that fails leaves the old file and no temporary file. */
static void test_passdb__save_fails_atomically(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	char *dir = tmp_dir(t);
	char *path = talloc_asprintf(t, "%s/smbpasswd", dir);
	struct passdb *db = NULL;
	struct rlimit old, small = { 16, 16 };
	char *err = NULL, *text = NULL;
	uint8_t h[16];
	int ret;

	write_text(path, two_users, 0600);
	db = load_ok(t, path);
	hex_to_hash(HASH_OTHER, h);
	assert_int_equal(passdb_add(db, "carol", 3, h), 0);

	/* a write that fails half-way (works as root, unlike chmod) */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	ret = passdb_save(db, t, &err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);

	assert_int_equal(ret, -EFBIG);
	assert_non_null(strstr(err, path));
	text = read_text(t, path);
	assert_string_equal(text, two_users);
	assert_int_equal(count_dir(dir), 1);
	talloc_free(text);
	talloc_free(err);
	talloc_free(db);
	rm_tree(dir);
	talloc_free(t);
}

/*
 * The save into a 0500 directory: 0 when it failed with EACCES and said
 * which file.  The caller owns dir (or is its owner's child below).
 */
static int save_into_readonly_dir(struct passdb *db, const char *dir,
				  const char *path)
{
	char *err = NULL;
	int ret;

	if (chmod(dir, 0500) != 0) {
		return 2;
	}
	ret = passdb_save(db, NULL, &err);
	ret = ret == -EACCES && err != NULL && strstr(err, path) != NULL ?
		0 : 1;
	talloc_free(err);
	return ret;
}

/*
 * Root writes into 0500 directories, so as root the save runs in a child
 * that has become the directory's owner, an unprivileged uid (nobody's).
 */
#define UNPRIVILEGED_ID 65534

static void save_readonly_unprivileged(struct passdb *db, const char *dir,
				       const char *path)
{
	int status = 0;
	pid_t pid;

	assert_int_equal(chown(dir, UNPRIVILEGED_ID, UNPRIVILEGED_ID), 0);
	assert_int_equal(chown(path, UNPRIVILEGED_ID, UNPRIVILEGED_ID), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) != 0 ||
		    setresgid(UNPRIVILEGED_ID, UNPRIVILEGED_ID,
			      UNPRIVILEGED_ID) != 0 ||
		    setresuid(UNPRIVILEGED_ID, UNPRIVILEGED_ID,
			      UNPRIVILEGED_ID) != 0) {
			_exit(3);
		}
		_exit(save_into_readonly_dir(db, dir, path));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_passdb__save_fails_readonly_dir(void **state)
{
	TALLOC_CTX *t = NULL;
	char *dir = NULL, *path = NULL, *text = NULL;
	struct passdb *db = NULL;

	t = talloc_new(*state);
	dir = tmp_dir(t);
	path = talloc_asprintf(t, "%s/smbpasswd", dir);
	write_text(path, two_users, 0600);
	db = load_ok(t, path);
	assert_int_equal(passdb_delete(db, "alice"), 0);
	if (geteuid() == 0) {
		save_readonly_unprivileged(db, dir, path);
	} else {
		assert_int_equal(save_into_readonly_dir(db, dir, path), 0);
	}
	text = read_text(t, path);
	assert_string_equal(text, two_users);
	assert_int_equal(count_dir(dir), 1);
	talloc_free(text);
	talloc_free(db);
	rm_tree(dir);
	talloc_free(t);
}

static void test_passdb__save_buffer_db(void **state)
{
	struct passdb *db = parse(*state, "");
	char *err = NULL;

	assert_int_equal(passdb_save(db, *state, &err), -EINVAL);
	talloc_free(err);
	talloc_free(db);
}

static void test_passdb__reload_if_changed(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	char *dir = tmp_dir(t);
	char *path = talloc_asprintf(t, "%s/smbpasswd", dir);
	struct passdb *db = load_ok(t, path);
	const struct auth_user_lookup *l = passdb_user_lookup(db);
	struct auth_user_entry e = { 0 };
	char *err = NULL;

	assert_int_equal(passdb_reload_if_changed(db, t, &err), 0);
	write_text(path, two_users, 0600);
	assert_int_equal(passdb_reload_if_changed(db, t, &err), 1);
	assert_user(db, "bob", HASH_OTHER, false);
	assert_int_equal(passdb_reload_if_changed(db, t, &err), 0);

	/* what smbpasswd -x does, seen by the daemon's next lookup */
	write_text(path, "alice:1:" LM_NONE ":" HASH_PASSWORD ":[U]:\n",
		   0600);
	assert_int_equal(NT_STATUS_V(l->fn(l->private_data, "bob", "", &e)),
			 NT_STATUS_V(NT_STATUS_NO_SUCH_USER));
	assert_user(db, "alice", HASH_PASSWORD, false);

	/* our own save is no change */
	save_ok(t, db);
	assert_int_equal(passdb_reload_if_changed(db, t, &err), 0);

	/* removed: empty */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(passdb_reload_if_changed(db, t, &err), 1);
	assert_int_equal(passdb_num_users(db), 0);
	assert_int_equal(passdb_reload_if_changed(db, t, &err), 0);
	talloc_free(db);
	rm_tree(dir);
	talloc_free(t);
}

static void test_passdb__path_from_config(void **state)
{
	char *p = passdb_path_from_config(*state, "/etc/x/smbpasswd",
					  "/priv");

	assert_string_equal(p, "/etc/x/smbpasswd");
	talloc_free(p);
	p = passdb_path_from_config(*state, LP_DEFAULT_SMB_PASSWD,
				    "/priv");
	assert_string_equal(p, "/priv/smbpasswd");
	talloc_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(test_passdb__##name, \
						setup, teardown)
		T(nt_hash_ms_nlmp),
		T(parse_samba_lines),
		T(parse_empty),
		T(malformed_lines),
		T(huge_line),
		T(nul_bytes),
		T(duplicate_user),
		T(every_truncation),
		T(lookup_case_insensitive),
		T(user_lookup_callback),
		T(edit_in_memory),
		T(format),
		T(missing_file_is_empty),
		T(unreadable_file),
		T(save_load_round_trip),
		T(save_keeps_other_lines),
		T(world_readable_warning),
		T(save_fails_atomically),
		T(save_fails_readonly_dir),
		T(save_buffer_db),
		T(reload_if_changed),
		T(path_from_config),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
