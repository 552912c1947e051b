/*
 * lib/param (param_check.c): access controls ringsmb cannot enforce are
 * refused with file, line and parameter; harmless values are accepted,
 * loosening ones warned about; "hosts allow/deny" entries checked.
 */
#include "tests/unit/param_test_util.h"

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

/* ringsmb always stores DOS attributes: yes is silent, no warns */
static void test_access__store_dos_attributes(void **state)
{
	struct loaded l = load(*state,
		"[global]\nstore dos attributes = yes\n"
		"[s]\npath = /s\nstore dos attributes = no\n");

	assert_int_equal(l.ret, 0);
	assert_non_null(find_diag(l.diags, LP_DIAG_WARNING,
				  "t.conf:5: parameter \"store dos "
				  "attributes\" is not supported: ignored"));
	assert_int_equal(count_diags(l.diags), 1);
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
		T(test_access__refused_names_file_line_param),
		T(test_access__refused_list),
		T(test_access__harmless_values_accepted),
		T(test_access__loosening_warns),
		T(test_access__store_dos_attributes),
		T(test_access__hosts_entries),
	};

	int ret;

	talloc_enable_null_tracking();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	talloc_disable_null_tracking();
	return ret;
}
