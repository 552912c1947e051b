/*
 * lib/param: include files (relative paths, loops, missing and
 * unreadable files) and the testparm dump (format and round trip).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tests/unit/param_test_util.h"

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

/* "type:option" lines: kept per share for modules, [global]'s default */
static void test_dump__parametric(void **state)
{
	TALLOC_CTX *ctx = *state;
	static const char conf[] =
		"[global]\nerror:ops = pwrite\nA:B = 1\n"
		"[s]\npath = /s\nerror:nth = 3\nerror: OPS = fsync\n"
		"[t]\npath = /t\n";
	struct loaded l = load(ctx, conf);
	const struct lp_share *s = share(&l, "s");
	const struct lp_share *t = share(&l, "t");
	char *text = dump_text(ctx, l.lp, false);
	char *many = talloc_strdup(ctx, "[m]\npath = /m\n");
	int i;

	assert_int_equal(l.ret, 0);
	assert_null(l.diags);
	assert_string_equal(lp_parametric_get(s, "error", "ops"), "fsync");
	assert_string_equal(lp_parametric_get(s, "Error", "n_th"), "3");
	assert_string_equal(lp_parametric_get(s, "a", "b"), "1");
	assert_string_equal(lp_parametric_get(t, "error", "ops"), "pwrite");
	assert_null(lp_parametric_get(t, "error", "nth"));
	assert_null(lp_parametric_get(t, "error", ""));
	assert_non_null(strstr(text, "\terror:ops = pwrite\n\tA:B = 1\n"));
	/* a share lists its own, not those it inherits */
	assert_non_null(strstr(text, "\terror:ops = fsync\n\terror:nth = 3"
			       "\n\n[t]"));
	assert_null(strstr(strstr(text, "[t]"), ":"));
	round_trip(ctx, conf, false);
	round_trip(ctx, conf, true);
	unload(&l);
	for (i = 0; i < LP_MAX_PARAMETRIC + 1; i++) {
		many = talloc_asprintf_append(many, "x:o%d = %d\n", i, i);
	}
	l = load(ctx, many);
	assert_int_equal(l.ret, 0);
	assert_int_equal(count_diags(l.diags), 1);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "more than 256 in one section"));
	assert_int_equal(share(&l, "m")->num_parametric, LP_MAX_PARAMETRIC);
	unload(&l);
	talloc_free(text);
	talloc_free(many);
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

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	static const struct CMUnitTest tests[] = {
		T(test_include__relative_to_including_file),
		T(test_include__loop_detected),
		T(test_include__missing_and_bad),
		T(test_dump__round_trip),
		T(test_dump__parametric),
		T(test_dump__format),
	};

	int ret;

	talloc_enable_null_tracking();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	talloc_disable_null_tracking();
	return ret;
}
