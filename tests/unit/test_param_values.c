/*
 * lib/param: parameter values and their defaults, diagnostics (file,
 * line and parameter, in file order), shares inheriting [global], and
 * the embedded default configuration.
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/param_test_util.h"

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

/* Samba's --option: after the file's [global], share defaults too */
static void test_default__cmdline_options(void **state)
{
	const char *const opts[] = { "smb ports = 4999", "read only=yes",
				     NULL };
	const char *const bad[] = { "nonsense", NULL };
	const char *const bad_value[] = { "smb ports=notaport", NULL };
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;

	assert_int_equal(lp_load_with_options(*state, NULL, opts, &lp,
					      &diags), 0);
	assert_null(diags);
	assert_int_equal(lp->g.num_smb_ports, 1);
	assert_int_equal(lp->g.smb_ports[0], 4999);
	/* the share sets its own read only: the file wins there */
	assert_false(lp_find_share(lp, "share")->read_only);
	TALLOC_FREE(lp);

	assert_int_equal(lp_load_with_options(*state, NULL, bad, &lp,
					      &diags), -1);
	assert_non_null(diags);
	assert_string_equal(diags->message,
			    "--option: \"nonsense\": expected name=value");
	TALLOC_FREE(lp);
	TALLOC_FREE(diags);
	assert_int_equal(lp_load_with_options(*state, NULL, bad_value, &lp,
					      &diags), -1);
	assert_non_null(strstr(diags->message, "--option"));
	assert_non_null(strstr(diags->message, "smb ports"));
	TALLOC_FREE(lp);
	TALLOC_FREE(diags);
}

/* log level keeps its classes; an unknown class warns where it is */
static void test_logging__log_level_classes(void **state)
{
	struct loaded l = load(*state, "log level = 0 auth_audit:3\n"
			       "log level = 2 winbind:5 passdb:4\n");

	assert_int_equal(l.ret, 0);
	assert_int_equal(l.lp->g.log_level, 2);
	assert_string_equal(l.lp->g.log_levels, "2 winbind:5 passdb:4");
	assert_int_equal(count_diags(l.diags), 1);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:2: parameter \"log level\": "
				  "unknown debug class or malformed item "
				  "\"winbind:5\""));
	unload(&l);
	l = load(*state, "log level = loud\n");
	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
				  "t.conf:1: invalid value \"loud\" for "
				  "parameter \"log level\""));
	unload(&l);
}

/* logging takes Samba's backends; anything else stops the load */
static void test_logging__backends(void **state)
{
	struct loaded l = load(*state, "logging = syslog@1 file\n"
			       "max log size = 0\n");

	assert_int_equal(l.ret, 0);
	assert_null(l.diags);
	assert_string_equal(l.lp->g.logging, "syslog@1 file");
	assert_int_equal(l.lp->g.max_log_size, 0);
	unload(&l);
	l = load(*state, "\nlogging = file lttng\n");
	assert_int_equal(l.ret, -1);
	assert_non_null(find_diag(l.diags, LP_DIAG_ERROR,
				  "t.conf:2: invalid value \"file lttng\" "
				  "for parameter \"logging\": expected "
				  "backends from file, syslog and systemd"));
	unload(&l);
	l = load(*state, "");
	assert_string_equal(l.lp->g.logging, "");
	assert_string_equal(l.lp->g.log_levels, "1");
	assert_int_equal(l.lp->g.max_log_size, 5000);
	unload(&l);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	static const struct CMUnitTest tests[] = {
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
		T(test_default__cmdline_options),
		T(test_logging__log_level_classes),
		T(test_logging__backends),
	};

	int ret;

	talloc_enable_null_tracking();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	talloc_disable_null_tracking();
	return ret;
}
