/*
 * lib/param: smb.conf syntax, parameter names and values, diagnostics,
 * includes, the embedded default and the testparm dump.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "tests/unit/unit.h"
#include "lib/param/param.h"

static size_t null_blocks;

/* unit_setup plus a check that nothing leaks on the NULL context either
 * (lib/param uses talloc_new(NULL) for temporaries) */
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

struct loaded {
	struct loadparm *lp;
	struct lp_diag *diags;
	int ret;
};

static struct loaded load(TALLOC_CTX *ctx, const char *text)
{
	struct loaded l = { NULL, NULL, 0 };

	l.ret = lp_load_buffer(ctx, "t.conf", text, strlen(text), &l.lp,
			       &l.diags);
	assert_non_null(l.lp);
	return l;
}

static void unload(struct loaded *l)
{
	TALLOC_FREE(l->lp);
	TALLOC_FREE(l->diags);
}

static size_t count_diags(const struct lp_diag *d)
{
	size_t n = 0;

	for (; d != NULL; d = d->next) {
		n++;
	}
	return n;
}

static const struct lp_diag *find_diag(const struct lp_diag *d,
				       enum lp_severity sev, const char *text)
{
	for (; d != NULL; d = d->next) {
		if (d->severity == sev && strstr(d->message, text) != NULL) {
			return d;
		}
	}
	return NULL;
}

static const struct lp_share *share(const struct loaded *l, const char *n)
{
	const struct lp_share *s = lp_find_share(l->lp, n);

	assert_non_null(s);
	return s;
}

/* ---- syntax ---- */

static void test_read__sections(void **state)
{
	struct loaded l = load(*state,
		"[global]\nworkgroup = W1\n"
		"[a]\npath = /a\n"
		"[b]\npath = /b\n"
		"[A]\ncomment = merged\n"
		"[ global ]\nserver string = s\n");

	assert_int_equal(l.ret, 0);
	assert_null(l.diags);
	assert_int_equal(l.lp->num_shares, 2);
	assert_string_equal(l.lp->shares[0]->name, "a");
	assert_string_equal(l.lp->shares[0]->comment, "merged");
	assert_string_equal(l.lp->shares[1]->path, "/b");
	assert_string_equal(l.lp->g.workgroup, "W1");
	assert_string_equal(l.lp->g.server_string, "s");
	unload(&l);
}

static void test_read__params_before_any_section_are_global(void **state)
{
	struct loaded l = load(*state, "workgroup = EARLY\n[s]\npath = /s\n");

	assert_int_equal(l.ret, 0);
	assert_string_equal(l.lp->g.workgroup, "EARLY");
	unload(&l);
}

static void test_read__comments(void **state)
{
	struct loaded l = load(*state,
		"# comment\n; another\n   # indented\n\t;tab\n\n"
		"[s]\n# path = /wrong\npath = /right\n"
		"comment = a # not a comment\n");

	assert_int_equal(l.ret, 0);
	assert_null(l.diags);
	assert_string_equal(share(&l, "s")->path, "/right");
	assert_string_equal(share(&l, "s")->comment, "a # not a comment");
	unload(&l);
}

static void test_read__continuation(void **state)
{
	struct loaded l = load(*state,
		"[s]\npath = /s\n"
		"comment = one \\\n   two\\\n three\n"
		"vfs objects = a \\\n b\n"
		"read only = maybe\n");
	const struct lp_share *s = share(&l, "s");

	assert_int_equal(l.ret, -1);
	assert_string_equal(s->comment, "one two three");
	assert_string_equal(s->vfs_objects[0], "a");
	assert_string_equal(s->vfs_objects[1], "b");
	/* line numbers still count physical lines */
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR, "t.conf:8:"));
	unload(&l);
}

/* fuzzer finds: a value must never end in '\' (testparm could not
 * write it back), whether from an escaped end or a NUL in the line */
static void test_read__no_value_ends_in_backslash(void **state)
{
	static const char nul[] = "[s]\npath = /s\ncomment = a\\\r\0x\n";
	struct loaded l = load(*state, "[s]\npath = /s\ncomment = a\\\\");
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;

	assert_string_equal(share(&l, "s")->comment, "a");
	unload(&l);
	lp_load_buffer(*state, "t.conf", nul, sizeof(nul) - 1, &lp, &diags);
	assert_string_equal(lp_find_share(lp, "s")->comment, "a");
	talloc_free(lp);
	talloc_free(diags);
}

static void test_read__crlf_and_no_final_newline(void **state)
{
	struct loaded l = load(*state, "[s]\r\npath = /s\r\nread only = no");

	assert_int_equal(l.ret, 0);
	assert_string_equal(share(&l, "s")->path, "/s");
	assert_false(share(&l, "s")->read_only);
	unload(&l);
}

static void test_read__bad_lines(void **state)
{
	struct loaded l = load(*state, "[s\npath = /s\njunk\n= x\n[]\n");

	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
				  "t.conf:1: missing ']'"));
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:3: ignoring badly formed line"));
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING, "t.conf:4:"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
				  "t.conf:5: empty section name"));
	unload(&l);
}

/* [homes] is a share (served per user); [printers] is ignored */
static void test_read__homes_printers_ignored(void **state)
{
	struct loaded l = load(*state,
		"[homes]\nread only = no\n"
		"[printers]\npath = /p\n[s]\npath = /s\n");

	assert_int_equal(l.ret, 0);
	assert_int_equal(l.lp->num_shares, 2);
	assert_non_null(lp_find_share(l.lp, "homes"));
	assert_true(lp_find_share(l.lp, "homes")->available);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:3: section [printers]"));
	/* nothing about the ignored section's contents */
	assert_int_equal(count_diags(l.diags), 1);
	unload(&l);
}

/* every prefix of a valid file loads without crashing or leaking */
static void test_read__truncations(void **state)
{
	const char *text =
		"[global]\n\tsmb ports = 445 139\n\tinclude = /nonexistent\n"
		"\tserver min protocol = SMB2\n\tlog level = 2 auth:5\n"
		"[data]\n\tpath = /srv/data\n\twriteable = yes\n"
		"\tcomment = a \\\n\t  b\n\tvfs objects = \"x y\", z\n";
	size_t len = strlen(text);
	size_t i;

	for (i = 0; i <= len; i++) {
		char *copy = (char *)guard_dup(text, i);
		struct loadparm *lp = NULL;
		struct lp_diag *diags = NULL;

		lp_load_buffer(*state, "t.conf", copy, i, &lp, &diags);
		assert_non_null(lp);
		talloc_free(lp);
		talloc_free(diags);
		guard_free((uint8_t *)copy);
	}
}

static void test_read__binary_garbage(void **state)
{
	static const char bin[] = "[\0]\n\xff\xfe = \0\n[s]\npath\0 = /x\n"
				  "\\\n\\";
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;

	lp_load_buffer(*state, "t.conf", bin, sizeof(bin), &lp, &diags);
	assert_non_null(lp);
	talloc_free(lp);
	talloc_free(diags);
}

/* ---- names ---- */

static void test_names__case_space_underscore(void **state)
{
	struct loaded l = load(*state,
		"[a]\npath=/a\nREAD_ONLY = no\n"
		"[b]\npath=/b\nReadOnly = no\nGuest  Ok = yes\n"
		"[c]\npath=/c\nread_only=no\n  guest_ok  =  yes  \n"
		"[g]\npath=/g\nSERVERSMBENCRYPT = required\n");

	assert_int_equal(l.ret, 0);
	assert_null(l.diags);
	assert_false(share(&l, "a")->read_only);
	assert_false(share(&l, "b")->read_only);
	assert_true(share(&l, "b")->guest_ok);
	assert_false(share(&l, "c")->read_only);
	assert_true(share(&l, "c")->guest_ok);
	assert_int_equal(share(&l, "g")->smb_encrypt, LP_SMB_REQUIRED);
	unload(&l);
}

static void test_names__synonyms(void **state)
{
	struct loaded l = load(*state,
		"[global]\ndebuglevel = 4\nmax protocol = SMB3_02\n"
		"min protocol = SMB2_10\nlock dir = /l\nsmb encrypt = desired\n"
		"[s]\ndirectory = /s\npublic = yes\nbrowsable = no\n"
		"vfs object = x\n");
	const struct lp_share *s = share(&l, "s");

	assert_int_equal(l.ret, 0);
	assert_null(l.diags);
	assert_int_equal(l.lp->g.log_level, 4);
	assert_int_equal(l.lp->g.server_max_protocol, LP_DIALECT_SMB3_02);
	assert_int_equal(l.lp->g.server_min_protocol, LP_DIALECT_SMB2_10);
	assert_string_equal(l.lp->g.lock_directory, "/l");
	assert_int_equal(l.lp->g.smb_encrypt, LP_SMB_DESIRED);
	assert_int_equal(s->smb_encrypt, LP_SMB_DESIRED);
	assert_string_equal(s->path, "/s");
	assert_true(s->guest_ok);
	assert_false(s->browseable);
	assert_string_equal(s->vfs_objects[0], "x");
	unload(&l);
}

static void test_names__inverted_synonyms(void **state)
{
	struct loaded l = load(*state,
		"[a]\npath=/a\nwriteable = yes\n"
		"[b]\npath=/b\nwritable = no\n"
		"[c]\npath=/c\nwrite ok = true\n"
		"[d]\npath=/d\nread only = no\nwriteable = no\n");

	assert_int_equal(l.ret, 0);
	assert_false(share(&l, "a")->read_only);
	assert_true(share(&l, "b")->read_only);
	assert_false(share(&l, "c")->read_only);
	assert_true(share(&l, "d")->read_only);        /* last one wins */
	unload(&l);
}

/* ---- values ---- */

static void test_values__bools(void **state)
{
	static const struct {
		const char *text;
		bool value;
	} cases[] = {
		{ "yes", true }, { "YES", true }, { "Yes", true },
		{ "true", true }, { "TRUE", true }, { "1", true },
		{ "on", true }, { "On", true },
		{ "no", false }, { "NO", false }, { "false", false },
		{ "False", false }, { "0", false }, { "off", false },
		{ "OFF", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = talloc_asprintf(*state, "[s]\npath = /s\n"
					     "guest ok = %s\n", cases[i].text);
		struct loaded l = load(*state, text);

		assert_int_equal(l.ret, 0);
		assert_int_equal(share(&l, "s")->guest_ok, cases[i].value);
		unload(&l);
		talloc_free(text);
	}
}

static void test_values__bad_bools(void **state)
{
	static const char *const bad[] = { "maybe", "", "2", "yess", "y" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = talloc_asprintf(*state, "io_uring = %s\n",
					     bad[i]);
		struct loaded l = load(*state, text);

		assert_int_equal(l.ret, -1);
		unload(&l);
		talloc_free(text);
	}
}

static void test_values__lists(void **state)
{
	struct loaded l = load(*state,
		"[global]\nsmb ports = 445, 139\t8445\n"
		"interfaces = eth0 192.168.1.1/24,lo\n"
		"[s]\npath=/s\nvfs objects = a, b  \"c d\",e\n"
		"valid users = alice @staff\n");
	const struct lp_share *s = share(&l, "s");

	assert_int_equal(l.ret, 0);
	assert_int_equal(l.lp->g.num_smb_ports, 3);
	assert_int_equal(l.lp->g.smb_ports[0], 445);
	assert_int_equal(l.lp->g.smb_ports[1], 139);
	assert_int_equal(l.lp->g.smb_ports[2], 8445);
	assert_string_equal(l.lp->g.interfaces[0], "eth0");
	assert_string_equal(l.lp->g.interfaces[1], "192.168.1.1/24");
	assert_string_equal(l.lp->g.interfaces[2], "lo");
	assert_null(l.lp->g.interfaces[3]);
	assert_string_equal(s->vfs_objects[0], "a");
	assert_string_equal(s->vfs_objects[1], "b");
	assert_string_equal(s->vfs_objects[2], "c d");
	assert_string_equal(s->vfs_objects[3], "e");
	assert_null(s->vfs_objects[4]);
	assert_string_equal(s->valid_users[1], "@staff");
	unload(&l);
}

static void test_values__protocols(void **state)
{
	static const struct {
		const char *param, *text;
		uint16_t dialect;
	} cases[] = {
		{ "server min protocol", "SMB2", LP_DIALECT_SMB2_02 },
		{ "server max protocol", "SMB2", LP_DIALECT_SMB2_10 },
		{ "server min protocol", "SMB3", LP_DIALECT_SMB3_00 },
		{ "server max protocol", "SMB3", LP_DIALECT_SMB3_11 },
		{ "server min protocol", "smb2_02", LP_DIALECT_SMB2_02 },
		{ "server max protocol", "SMB2_10", LP_DIALECT_SMB2_10 },
		{ "server max protocol", "SMB3_00", LP_DIALECT_SMB3_00 },
		{ "server max protocol", "SMB3_02", LP_DIALECT_SMB3_02 },
		{ "server max protocol", "SMB3_11", LP_DIALECT_SMB3_11 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = talloc_asprintf(*state, "%s = %s\n",
					     cases[i].param, cases[i].text);
		struct loaded l = load(*state, text);
		bool is_max = strstr(cases[i].param, "max") != NULL;

		assert_int_equal(l.ret, 0);
		assert_int_equal(is_max ? l.lp->g.server_max_protocol :
				 l.lp->g.server_min_protocol,
				 cases[i].dialect);
		unload(&l);
		talloc_free(text);
	}
}

static void test_values__smb1_clamped(void **state)
{
	struct loaded l = load(*state, "server min protocol = NT1\n"
			       "server max protocol = LANMAN2\n");

	assert_int_equal(l.ret, 0);
	assert_int_equal(l.lp->g.server_min_protocol, LP_DIALECT_SMB2_02);
	assert_int_equal(l.lp->g.server_max_protocol, LP_DIALECT_SMB2_02);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:1: parameter \"server min protocol\""
				  ": SMB1 is never served"));
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING, "t.conf:2:"));
	unload(&l);
}

static void test_values__min_above_max(void **state)
{
	struct loaded l = load(*state, "server min protocol = SMB3\n"
			       "server max protocol = SMB2\n");

	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
				  "server min protocol SMB3_00 is higher"));
	unload(&l);
}

static void test_values__enums_and_ints(void **state)
{
	struct loaded l = load(*state,
		"map to guest = bad password\nserver signing = mandatory\n"
		"restrict anonymous = 2\nmax connections = 100\n"
		"deadtime = 15\nlog level = 3 auth:5 passdb:10\n"
		"netbios name = myhost\nmax log size = 1000\n");

	assert_int_equal(l.ret, 0);
	assert_int_equal(l.lp->g.map_to_guest, LP_MAP_TO_GUEST_BAD_PASSWORD);
	assert_int_equal(l.lp->g.server_signing, LP_SMB_REQUIRED);
	assert_int_equal(l.lp->g.restrict_anonymous, 2);
	assert_int_equal(l.lp->g.max_connections, 100);
	assert_int_equal(l.lp->g.deadtime, 15);
	assert_int_equal(l.lp->g.log_level, 3);
	assert_string_equal(l.lp->g.netbios_name, "MYHOST");
	assert_int_equal(l.lp->g.max_log_size, 1000);
	unload(&l);
}

static void test_values__defaults(void **state)
{
	struct loaded l = load(*state, "");
	const struct lp_global *g = &l.lp->g;

	assert_int_equal(l.ret, 0);
	assert_null(l.diags);
	assert_int_equal(l.lp->num_shares, 0);
	assert_int_equal(g->num_smb_ports, 1);
	assert_int_equal(g->smb_ports[0], 445);
	assert_null(g->interfaces[0]);
	assert_false(g->bind_interfaces_only);
	assert_int_equal(g->server_min_protocol, LP_DIALECT_SMB2_02);
	assert_int_equal(g->server_max_protocol, LP_DIALECT_SMB3_11);
	assert_int_equal(g->map_to_guest, LP_MAP_TO_GUEST_NEVER);
	assert_string_equal(g->workgroup, "WORKGROUP");
	assert_true(g->io_uring);
	assert_int_equal(g->max_connections, 0);
	assert_int_equal(g->server_signing, LP_SMB_DEFAULT);
	assert_int_equal(g->restrict_anonymous, 0);
	assert_string_equal(g->private_dir, LP_DEFAULT_PRIVATE_DIR);
	assert_string_equal(g->pid_directory, LP_DEFAULT_PID_DIR);
	assert_string_equal(g->guest_account, "nobody");
	assert_true(strlen(g->netbios_name) >= 1);
	assert_true(strlen(g->netbios_name) <= 15);
	assert_true(l.lp->share_defaults.read_only);
	assert_false(l.lp->share_defaults.guest_ok);
	assert_true(l.lp->share_defaults.browseable);
	assert_true(l.lp->share_defaults.available);
	unload(&l);
}

/* ---- diagnostics ---- */

static void test_diag__unknown_param_warns(void **state)
{
	struct loaded l = load(*state, "[global]\nfrobnicate = 3\n"
			       "[s]\npath = /s\nalso unknown = x\n");

	assert_int_equal(l.ret, 0);
	assert_int_equal(count_diags(l.diags), 2);
	assert_string_equal(l.diags->message,
			    "t.conf:2: unknown parameter \"frobnicate\": "
			    "ignored");
	assert_int_equal(l.diags->severity, LP_DIAG_WARNING);
	assert_string_equal(l.diags->file, "t.conf");
	assert_int_equal(l.diags->line, 2);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:5: unknown parameter "
				  "\"also unknown\""));
	unload(&l);
}

static void test_diag__bad_value_names_file_line_param(void **state)
{
	struct loaded l = load(*state,
		"[global]\nrestrict anonymous = 3\nsmb ports = 70000\n"
		"map to guest = sometimes\nnetbios name = "
		"abcdefghijklmnopq\nmax connections = -1\n"
		"[s]\npath = /s\nread only = maybe\n");

	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
		"t.conf:9: invalid value \"maybe\" for parameter "
		"\"read only\": expected a boolean (yes/no)"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
		"t.conf:2: invalid value \"3\" for parameter "
		"\"restrict anonymous\": expected an integer from 0 to 2"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
		"t.conf:3: invalid value \"70000\" for parameter "
		"\"smb ports\""));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
		"t.conf:4: invalid value \"sometimes\" for parameter "
		"\"map to guest\": expected one of Never, Bad User, "
		"Bad Password, Bad Uid"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR, "t.conf:5:"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR, "t.conf:6:"));
	/* the bad values left the defaults in place */
	assert_true(share(&l, "s")->read_only);
	assert_int_equal(l.lp->g.smb_ports[0], 445);
	unload(&l);
}

static void test_diag__global_param_in_share(void **state)
{
	struct loaded l = load(*state, "[s]\npath = /s\nworkgroup = X\n");

	assert_int_equal(l.ret, 0);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:3: global parameter \"workgroup\" "
				  "in share [s]"));
	assert_string_equal(l.lp->g.workgroup, "WORKGROUP");
	unload(&l);
}

static void test_diag__in_file_order(void **state)
{
	struct loaded l = load(*state, "a = 1\n[homes]\n[s]\npath=/s\nb=2\n"
			       "junk\n");
	const struct lp_diag *d = l.diags;

	assert_int_equal(count_diags(d), 3);
	assert_int_equal(d->line, 1);
	assert_int_equal(d->next->line, 5);
	assert_int_equal(d->next->next->line, 6);
	unload(&l);
}

static void test_diag__share_without_path(void **state)
{
	struct loaded l = load(*state, "[s]\ncomment = no path\n");

	assert_int_equal(l.ret, 0);
	assert_false(share(&l, "s")->available);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:1: share [s] has no path"));
	unload(&l);
}

/* ---- shares ---- */

static void test_share__global_defaults_inherited(void **state)
{
	struct loaded l = load(*state,
		"[global]\nread only = no\nvfs objects = io_uring\n"
		"[a]\npath = /a\n"
		"[b]\npath = /b\nread only = yes\nvfs objects =\n"
		"[global]\nguest ok = yes\nserver smb encrypt = required\n");

	assert_int_equal(l.ret, 0);
	assert_false(share(&l, "a")->read_only);
	assert_string_equal(share(&l, "a")->vfs_objects[0], "io_uring");
	/* [global] is applied as a whole, wherever it appears */
	assert_true(share(&l, "a")->guest_ok);
	assert_int_equal(share(&l, "a")->smb_encrypt, LP_SMB_REQUIRED);
	assert_int_equal(l.lp->g.smb_encrypt, LP_SMB_REQUIRED);
	assert_true(share(&l, "b")->read_only);
	assert_null(share(&l, "b")->vfs_objects[0]);
	unload(&l);
}

static void test_share__strict_sync(void **state)
{
	struct loaded l = load(*state,
		"[a]\npath = /a\n"
		"[b]\npath = /b\nstrict sync = no\n");

	assert_int_equal(l.ret, 0);
	assert_true(share(&l, "a")->strict_sync);       /* Samba's default */
	assert_false(share(&l, "b")->strict_sync);
	unload(&l);
}

static void test_share__find_case_insensitive(void **state)
{
	struct loaded l = load(*state, "[Data]\npath = /d\n");

	assert_non_null(lp_find_share(l.lp, "data"));
	assert_non_null(lp_find_share(l.lp, "DATA"));
	assert_ptr_equal(lp_find_share(l.lp, "dAtA"), l.lp->shares[0]);
	assert_null(lp_find_share(l.lp, "dat"));
	assert_null(lp_find_share(l.lp, "global"));
	unload(&l);
}

/* ---- embedded default ---- */

static void test_default__embedded(void **state)
{
	struct loadparm *lp = lp_load_default(*state);
	const struct lp_share *s = NULL;
	struct loaded l;

	assert_non_null(lp);
	assert_int_equal(lp->g.num_smb_ports, 1);
	assert_int_equal(lp->g.smb_ports[0], 4445);
	assert_string_equal(lp->g.interfaces[0], "127.0.0.1");
	assert_null(lp->g.interfaces[1]);
	assert_true(lp->g.bind_interfaces_only);
	assert_int_equal(lp->g.map_to_guest, LP_MAP_TO_GUEST_BAD_USER);
	assert_int_equal(lp->num_shares, 1);
	s = lp_find_share(lp, "share");
	assert_non_null(s);
	assert_string_equal(s->path, "./share");
	assert_true(s->guest_ok);
	assert_false(s->read_only);
	assert_true(s->available);
	talloc_free(lp);

	/* the text itself is clean */
	l = load(*state, lp_embedded_default_text());
	assert_int_equal(l.ret, 0);
	assert_null(l.diags);
	unload(&l);
	assert_string_equal(lp_default_config_file(),
			    RINGSMB_PREFIX "/etc/smb.conf");
}

/* ---- includes ---- */

struct tmpdir {
	char path[64];
};

static void write_file(const struct tmpdir *t, const char *name,
		       const char *text)
{
	char path[256];
	FILE *f = NULL;

	snprintf(path, sizeof(path), "%s/%s", t->path, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void tmpdir_make(struct tmpdir *t)
{
	char sub[128];

	strcpy(t->path, "/tmp/test_param.XXXXXX");
	assert_non_null(mkdtemp(t->path));
	snprintf(sub, sizeof(sub), "%s/sub", t->path);
	assert_int_equal(mkdir(sub, 0700), 0);
}

static void tmpdir_remove(struct tmpdir *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->path);
	assert_int_equal(system(cmd), 0);
}

static struct loaded load_file(TALLOC_CTX *ctx, const struct tmpdir *t,
			       const char *name)
{
	struct loaded l = { NULL, NULL, 0 };
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", t->path, name);
	l.ret = lp_load_file(ctx, path, &l.lp, &l.diags);
	assert_non_null(l.lp);
	return l;
}

static void test_include__relative_to_including_file(void **state)
{
	struct tmpdir t;
	struct loaded l;

	tmpdir_make(&t);
	write_file(&t, "smb.conf", "[global]\ninclude = sub/a.conf\n"
		   "workgroup = AFTER\n");
	/* a.conf's own include is relative to sub/, and the section it
	 * opens stays open after it, as in Samba */
	write_file(&t, "sub/a.conf", "workgroup = INC\ninclude = b.conf\n");
	write_file(&t, "sub/b.conf", "[s]\npath = /s\n");
	write_file(&t, "smb2.conf", "[s]\ninclude = sub/c.conf\n");
	write_file(&t, "sub/c.conf", "path = /c\n");
	l = load_file(*state, &t, "smb.conf");
	assert_int_equal(l.ret, 0);
	assert_string_equal(share(&l, "s")->path, "/s");
	/* "workgroup = AFTER" landed in [s], where it is not allowed */
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "smb.conf:3: global parameter"));
	assert_int_equal(count_diags(l.diags), 1);
	assert_string_equal(l.lp->g.workgroup, "INC");
	unload(&l);
	l = load_file(*state, &t, "smb2.conf");
	assert_string_equal(share(&l, "s")->path, "/c");
	unload(&l);
	tmpdir_remove(&t);
}

static void test_include__loop_detected(void **state)
{
	struct tmpdir t;
	struct loaded l;

	tmpdir_make(&t);
	write_file(&t, "a.conf", "include = b.conf\n");
	write_file(&t, "b.conf", "\n\ninclude = a.conf\n");
	write_file(&t, "self.conf", "include = ./self.conf\n");
	l = load_file(*state, &t, "a.conf");
	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
				  "b.conf:3: include loop"));
	unload(&l);
	l = load_file(*state, &t, "self.conf");
	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR, "include loop"));
	unload(&l);
	tmpdir_remove(&t);
}

static void test_include__missing_and_bad(void **state)
{
	struct tmpdir t;
	struct loaded l;

	tmpdir_make(&t);
	write_file(&t, "a.conf", "include = nothere.conf\ninclude = sub\n"
		   "include = /dev/zero\n");
	l = load_file(*state, &t, "a.conf");
	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "a.conf:1: can't find include file"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
				  "a.conf:2: cannot read include file"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
				  "a.conf:3: cannot read include file"));
	unload(&l);
	l = load_file(*state, &t, "missing.conf");
	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR, "cannot read"));
	unload(&l);
	tmpdir_remove(&t);
}

/* ---- dump ---- */

static char *dump_text(TALLOC_CTX *ctx, const struct loadparm *lp,
		       bool show_defaults)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *text = NULL;

	assert_non_null(f);
	lp_dump(f, lp, show_defaults);
	fclose(f);
	text = talloc_strndup(ctx, buf, len);
	free(buf);
	return text;
}

static void round_trip(TALLOC_CTX *ctx, const char *conf, bool all)
{
	struct loaded a = load(ctx, conf);
	char *d1 = dump_text(ctx, a.lp, all);
	struct loaded b = load(ctx, d1);
	char *d2 = dump_text(ctx, b.lp, all);
	char *v1 = dump_text(ctx, a.lp, true);
	char *v2 = dump_text(ctx, b.lp, true);

	assert_int_equal(b.ret, 0);
	assert_null(b.diags);
	assert_string_equal(d1, d2);
	assert_string_equal(v1, v2);
	assert_int_equal(a.lp->num_shares, b.lp->num_shares);
	unload(&a);
	unload(&b);
	talloc_free(d1);
	talloc_free(d2);
	talloc_free(v1);
	talloc_free(v2);
}

static void test_dump__round_trip(void **state)
{
	static const char conf[] =
		"[global]\nsmb ports = 445 139\ninterfaces = lo eth0\n"
		"bind interfaces only = yes\nserver min protocol = SMB2_10\n"
		"server max protocol = SMB3_02\nlog level = 3 auth:5\n"
		"log file = /var/log/x\nmap to guest = bad uid\n"
		"netbios name = box\nworkgroup = WG\nserver string = hi there\n"
		"io_uring = no\nmax connections = 5\ndeadtime = 3\n"
		"server signing = auto\nrestrict anonymous = 1\n"
		"guest account = guest\nread only = no\n"
		"server smb encrypt = desired\n"
		"[data]\npath = /srv/data\nwriteable = no\npublic = yes\n"
		"vfs objects = \"with space\" b\nbrowseable = no\n"
		"comment = a comment\navailable = no\nvalid users = a b\n"
		"server smb encrypt = off\n"
		"[other]\npath = /o\n"
		"[nopath]\n";

	round_trip(*state, conf, false);
	round_trip(*state, conf, true);
	round_trip(*state, "", false);
	round_trip(*state, lp_embedded_default_text(), false);
}

static void test_dump__format(void **state)
{
	struct loaded l = load(*state, "[s]\npath = /s\nwriteable = yes\n");
	char *d = dump_text(*state, l.lp, false);

	assert_string_equal(d, "# Global parameters\n[global]\n\n"
			    "[s]\n\tpath = /s\n\tread only = no\n");
	talloc_free(d);
	d = dump_text(*state, l.lp, true);
	assert_non_null(strstr(d, "\tsmb ports = 445\n"));
	assert_non_null(strstr(d, "\tserver max protocol = SMB3_11\n"));
	assert_non_null(strstr(d, "\tmap to guest = Never\n"));
	talloc_free(d);
	unload(&l);
}

/* ---- access controls ringsmb cannot enforce (param_check.c) ---- */

static void assert_refused(TALLOC_CTX *ctx, const char *text,
			   const char *message)
{
	struct loaded l = load(ctx, text);
	const struct lp_diag *d = find_diag(l.diags, LP_DIAG_ERROR, message);

	if (d == NULL) {
		fail_msg("no error \"%s\" for:\n%s", message, text);
	}
	assert_int_equal(l.ret, -1);
	unload(&l);
}

static void assert_accepted(TALLOC_CTX *ctx, const char *text)
{
	struct loaded l = load(ctx, text);
	const struct lp_diag *d = NULL;

	for (d = l.diags; d != NULL; d = d->next) {
		if (d->severity == LP_DIAG_ERROR) {
			fail_msg("unexpected error \"%s\" for:\n%s",
				 d->message, text);
		}
	}
	assert_int_equal(l.ret, 0);
	unload(&l);
}

static void test_access__refused_names_file_line_param(void **state)
{
	assert_refused(*state, "[global]\n\n[s]\npath = /s\nonly user = yes\n",
		       "t.conf:5: parameter \"only user\" restricts access "
		       "and ringsmb cannot enforce it");
	assert_refused(*state, "[s]\npath = /s\nUser = bob\n",
		       "t.conf:3: parameter \"User\" restricts access");
}

static void test_access__refused_list(void **state)
{
	static const char *const share[] = {
		"only user = yes", "username = alice", "users = alice",
		"security mask = 0700", "directory security mask = 0755",
		"force security mode = 0600",
		"force directory security mode = 0700", "inherit acls = yes",
		"follow symlinks = no",
		("check parent directory delete on "
		 "close = yes"),
		"hide special files = yes",
		"hide unwriteable files = yes", "dont descend = /proc",
		"preexec close = yes", "root preexec close = yes",
		"printable = yes", "print ok = yes", "copy = other",
		"max connections = 3", "only user = maybe",
	};
	static const char *const global[] = {
		"obey pam restrictions = yes", "config file = /etc/x.conf",
		"config backend = registry", "root directory = /srv",
		"username map script = /bin/map", "security = ads",
		"server role = member server", "ntlm auth = disabled",
		"server smb3 encryption algorithms = AES-256-GCM",
		"server smb3 signing algorithms = AES-128-CMAC",
	};
	size_t i;

	for (i = 0; i < sizeof(share) / sizeof(share[0]); i++) {
		char *t = talloc_asprintf(*state, "[s]\npath = /s\n%s\n",
					  share[i]);

		assert_refused(*state, t, "restricts access");
		talloc_free(t);
	}
	for (i = 0; i < sizeof(global) / sizeof(global[0]); i++) {
		char *t = talloc_asprintf(*state, "[global]\n%s\n", global[i]);

		assert_refused(*state, t, "restricts access");
		talloc_free(t);
	}
}

static void test_access__harmless_values_accepted(void **state)
{
	assert_accepted(*state,
		"[global]\n"
		"security = user\nserver role = standalone server\n"
		"ntlm auth = ntlmv2-only\nroot directory = /\n"
		"config backend = file\nobey pam restrictions = no\n"
		"server smb3 encryption algorithms = aes-128-gcm, "
		"AES-128-CCM AES-256-GCM AES-256-CCM\n"
		"lanman auth = yes\nnull passwords = yes\n"
		"wide links = yes\n"
		"[s]\npath = /s\nonly user = no\nusername =\n"
		"security mask = 0777\nforce security mode = 0\n"
		"follow symlinks = yes\ninherit acls = no\nmax connections = 0\n"
		"printable = no\ncopy =\n");
}

static void test_access__loosening_warns(void **state)
{
	struct loaded l = load(*state,
		"[global]\nlanman auth = yes\nencrypt passwords = no\n"
		"[s]\npath = /s\nwide links = yes\n");

	assert_int_equal(l.ret, 0);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:2: parameter \"lanman auth\" is not "
				  "supported: ignored"));
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "encrypt passwords"));
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING, "wide links"));
	assert_int_equal(count_diags(l.diags), 3);
	unload(&l);
}

static void test_access__hosts_entries(void **state)
{
	struct loaded l = load(*state,
		"[global]\nhosts allow = 10.0.0.0/8 1.2.3.4/99 server1 "
		"EXCEPT badhost\n"
		"[s]\npath = /s\nhosts deny = 300.1.2.3 .example.com "
		"10.0.0.0/8 localhost ALL EXCEPT LOCAL\n");

	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
		"t.conf:2: parameter \"hosts allow\": \"1.2.3.4/99\""));
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
		"t.conf:2: parameter \"hosts allow\": \"server1\" needs a "
		"host name lookup"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
		"\"badhost\" needs a host name lookup, which ringsmb does "
		"not do: it would deny nothing"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
		"t.conf:5: parameter \"hosts deny\": \"300.1.2.3\": not a "
		"valid IPv4 address"));
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
		"\".example.com\" needs a host name lookup"));
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
		"\"LOCAL\" needs a host name lookup"));
	assert_int_equal(count_diags(l.diags), 6);
	unload(&l);
	assert_accepted(*state, "[s]\npath = /s\nhosts allow = 150.203. "
			"fe80::/10 [::1] 192.168.1.* localhost\n"
			"hosts deny = ALL\n");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	static const struct CMUnitTest tests[] = {
		T(test_read__sections),
		T(test_read__params_before_any_section_are_global),
		T(test_read__comments),
		T(test_read__continuation),
		T(test_read__no_value_ends_in_backslash),
		T(test_read__crlf_and_no_final_newline),
		T(test_read__bad_lines),
		T(test_read__homes_printers_ignored),
		T(test_read__truncations),
		T(test_read__binary_garbage),
		T(test_names__case_space_underscore),
		T(test_names__synonyms),
		T(test_names__inverted_synonyms),
		T(test_values__bools),
		T(test_values__bad_bools),
		T(test_values__lists),
		T(test_values__protocols),
		T(test_values__smb1_clamped),
		T(test_values__min_above_max),
		T(test_values__enums_and_ints),
		T(test_values__defaults),
		T(test_diag__unknown_param_warns),
		T(test_diag__bad_value_names_file_line_param),
		T(test_diag__global_param_in_share),
		T(test_diag__in_file_order),
		T(test_diag__share_without_path),
		T(test_share__global_defaults_inherited),
		T(test_share__strict_sync),
		T(test_share__find_case_insensitive),
		T(test_default__embedded),
		T(test_include__relative_to_including_file),
		T(test_include__loop_detected),
		T(test_include__missing_and_bad),
		T(test_dump__round_trip),
		T(test_dump__format),
		T(test_access__refused_names_file_line_param),
		T(test_access__refused_list),
		T(test_access__harmless_values_accepted),
		T(test_access__loosening_warns),
		T(test_access__hosts_entries),
	};

	int ret;

	talloc_enable_null_tracking();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	talloc_disable_null_tracking();
	return ret;
}
