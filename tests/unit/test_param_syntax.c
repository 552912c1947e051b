/*
 * lib/param: smb.conf syntax (sections, comments, continuations, bad
 * lines, truncations, binary garbage) and parameter names (case, spaces,
 * underscores, synonyms).
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/param_test_util.h"

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
	};

	int ret;

	talloc_enable_null_tracking();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	talloc_disable_null_tracking();
	return ret;
}
