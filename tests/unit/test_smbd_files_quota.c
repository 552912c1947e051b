/*
 * The file layer without the wire: handle quotas and name rules
 * (fixture: smbd_files_fixture.h).
 */
#include "tests/unit/smbd_files_fixture.h"

/* ---- handle quotas (handles.h) ---- */

static size_t open_many(struct smbd_tcon *tcon, struct smbd_open **opens,
			size_t max, NTSTATUS *last)
{
	size_t n = 0;

	*last = NT_STATUS_OK;
	while (n < max) {
		*last = open_on(tcon, "f", (struct oreq){ R, SALL },
				&opens[n]);
		if (!NT_STATUS_IS_OK(*last)) {
			break;
		}
		n++;
	}
	return n;
}

static void close_all(struct smbd_open **opens, size_t n)
{
	while (n > 0) {
		n--;
		TALLOC_FREE(opens[n]);          /* a macro: no --n inside */
	}
}

static void test_handles__session_quota(void **state)
{
	struct fx *f = fx_new(*state,
			      "  smb2 max open files per session = 4\n");
	struct smbd_open *o[8] = {};
	NTSTATUS last;

	assert_int_equal(open_many(f->tcon, o, 8, &last), 4);
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_status(smbd_handles_check(f->session), TOO_MANY_OPENED_FILES);
	assert_true(smbd_handles_full(f->session));
	assert_null(smbd_open_new(f->tcon));
	assert_int_equal(f->session->num_handles, 4);
	assert_int_equal(f->conn->num_handles, 4);
	assert_int_equal(f->server->handles_total, 4);
	assert_int_equal(f->server->handles_untrusted, 0);
	TALLOC_FREE(o[3]);
	assert_status(smbd_handles_check(f->session), OK);
	o[3] = must_open(f->tcon, "f", (struct oreq){ R, SALL });
	close_all(o, 4);
	assert_int_equal(f->server->handles_total, 0);
	assert_int_equal(f->conn->num_handles, 0);
	fx_free(f);
}

/*
 * Guest sessions: their own quota, their client address's and the
 * untrusted total; a user session beside them is not limited by those.
 */
static void test_handles__untrusted_quotas(void **state)
{
	struct fx *f = fx_new(*state,
			      "  smb2 untrusted max open files = 2\n"
			      "  smb2 untrusted max open files per client = 3\n"
			      "  smb2 untrusted max open files total = 4\n");
	struct smbd_session *g1 = fx_session(f->conn, true);
	struct smbd_tcon *t1 = fx_tcon(f, g1, "sh");
	struct smbd_conn *c2 = fx_conn(f, "192.0.2.1");   /* same client */
	struct smbd_tcon *t2 = fx_tcon(f, fx_session(c2, true), "sh");
	struct smbd_conn *c3 = fx_conn(f, "198.51.100.7");
	struct smbd_tcon *t3 = fx_tcon(f, fx_session(c3, true), "sh");
	struct smbd_open *o1[4] = {}, *o2[4] = {}, *o3[4] = {}, *u[8] = {};
	NTSTATUS last;

	assert_int_equal(f->server->untrusted_budget, 4);
	assert_int_equal(open_many(t1, o1, 4, &last), 2);  /* per session */
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_int_equal(open_many(f->tcon, u, 8, &last), 8);
	assert_status(last, OK);                           /* the user's */
	assert_int_equal(open_many(t2, o2, 4, &last), 1);  /* per client */
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_int_equal(f->server->handles_untrusted, 3);
	assert_int_equal(open_many(t3, o3, 4, &last), 1);  /* in total */
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_int_equal(f->server->handles_untrusted, 4);
	assert_int_equal(f->server->handles_total, 12);
	TALLOC_FREE(o1[1]);
	assert_status(smbd_handles_check(t3->session), OK);
	assert_status(smbd_handles_check(t2->session), OK);
	close_all(o1, 1);
	close_all(o2, 1);
	close_all(o3, 1);
	close_all(u, 8);
	assert_int_equal(f->server->handles_untrusted, 0);
	assert_int_equal(f->server->handles_total, 0);
	fx_free(f);
}

/* A session that becomes (un)trusted takes its handles with it. */
static void test_handles__reclass(void **state)
{
	struct fx *f = fx_new(*state,
			      "  smb2 untrusted max open files = 2\n");
	struct smbd_open *o[4] = {};
	NTSTATUS last;

	assert_int_equal(open_many(f->tcon, o, 3, &last), 3);
	smbd_handles_reclass(f->session, true);
	assert_true(f->session->handles_untrusted);
	assert_int_equal(f->server->handles_untrusted, 3);
	assert_status(smbd_handles_check(f->session), TOO_MANY_OPENED_FILES);
	smbd_handles_reclass(f->session, true);         /* no change */
	assert_int_equal(f->server->handles_untrusted, 3);
	TALLOC_FREE(o[2]);
	assert_int_equal(f->server->handles_untrusted, 2);
	smbd_handles_reclass(f->session, false);
	assert_int_equal(f->server->handles_untrusted, 0);
	assert_status(smbd_handles_check(f->session), OK);
	close_all(o, 2);
	assert_int_equal(f->server->handles_total, 0);
	fx_free(f);
}

/* 'max open files' and the per-connection cap apply to every session */
static void test_handles__server_and_conn_budget(void **state)
{
	struct fx *f = fx_new(*state, "  max open files = 3\n");
	struct smbd_session *s2 = fx_session(f->conn, false);
	struct smbd_tcon *t2 = fx_tcon(f, s2, "sh");
	struct smbd_open *o[4] = {}, *p[4] = {};
	NTSTATUS last;

	assert_int_equal(f->server->handle_budget, 3);
	assert_int_equal(f->server->untrusted_budget, 0);  /* a quarter */
	assert_int_equal(open_many(f->tcon, o, 2, &last), 2);
	assert_int_equal(open_many(t2, p, 4, &last), 1);
	assert_status(last, TOO_MANY_OPENED_FILES);
	assert_status(smbd_handles_check(f->session), TOO_MANY_OPENED_FILES);
	close_all(p, 1);
	close_all(o, 2);

	f->server->max_handles_per_conn = 2;
	assert_int_equal(open_many(t2, p, 4, &last), 2);
	assert_status(last, TOO_MANY_OPENED_FILES);
	close_all(p, 2);
	fx_free(f);
}

/* ---- names (filename.c, share_names.c) ---- */

static NTSTATUS convert(TALLOC_CTX *ctx, const char *utf8, char **path,
			bool *is_stream)
{
	uint8_t *u = NULL;
	size_t len = 0;
	struct smb2_blob b;
	NTSTATUS status = smb2_utf8_to_utf16(ctx, utf8, strlen(utf8), &u,
					     &len);

	assert_status(status, OK);
	b = (struct smb2_blob){ u, len };
	*path = NULL;
	status = smbd_filename_convert(ctx, &b, path, is_stream);
	talloc_free(u);
	return status;
}

static void test_names__convert(void **state)
{
	static const struct {
		const char *in;
		const char *out;        /* NULL: status */
		const char *status;
		bool stream;
	} cases[] = {
		{ "", "", "NT_STATUS_OK" },
		{ "a", "a", "NT_STATUS_OK" },
		{ "d\\f", "d/f", "NT_STATUS_OK" },
		{ "d\\", "d", "NT_STATUS_OK" },
		{ "d\\..\\f", "f", "NT_STATUS_OK" },
		{ "d\\.\\f", "d/f", "NT_STATUS_OK" },
		{ "a::$DATA", "a", "NT_STATUS_OK", true },
		{ "d\\a::$data", "d/a", "NT_STATUS_OK", true },
		{ "\\a", NULL, "NT_STATUS_INVALID_PARAMETER" },
		{ "..", NULL, "NT_STATUS_OBJECT_PATH_SYNTAX_BAD" },
		{ "a\\..\\..\\b", NULL, "NT_STATUS_OBJECT_PATH_SYNTAX_BAD" },
		{ "a\\\\b", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a*", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a?b", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a<b", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		/* '/' separates, as in Samba */
		{ "a/b", "a/b", "NT_STATUS_OK" },
		{ "d/..\\f", "f", "NT_STATUS_OK" },
		{ "/a", NULL, "NT_STATUS_INVALID_PARAMETER" },
		{ "a//b", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a/../../b", NULL, "NT_STATUS_OBJECT_PATH_SYNTAX_BAD" },
		{ "a:s/t", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a\x01", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a:b\\c", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a:", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a::$FOO", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ ":s", NULL, "NT_STATUS_OBJECT_NAME_INVALID" },
		{ "a:s", NULL, "NT_STATUS_OBJECT_NAME_NOT_FOUND" },
		{ "a:s:$DATA", NULL, "NT_STATUS_OBJECT_NAME_NOT_FOUND" },
	};
	TALLOC_CTX *ctx = *state;
	char long_name[300];
	char *path = NULL;
	bool is_stream = false;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		NTSTATUS status = convert(ctx, cases[i].in, &path,
					  &is_stream);

		if (strcmp(nt_errstr(status), cases[i].status) != 0) {
			fail_msg("\"%s\": %s, want %s", cases[i].in,
				 nt_errstr(status), cases[i].status);
		}
		if (cases[i].out != NULL) {
			assert_string_equal(path, cases[i].out);
			assert_int_equal(is_stream, cases[i].stream);
		}
		TALLOC_FREE(path);
	}
	/* a component of 255 bytes is fine, 256 is not */
	memset(long_name, 'x', 256);
	long_name[255] = '\0';
	assert_status(convert(ctx, long_name, &path, &is_stream), OK);
	assert_int_equal(strlen(path), 255);
	TALLOC_FREE(path);
	long_name[255] = 'x';
	long_name[256] = '\0';
	assert_status(convert(ctx, long_name, &path, &is_stream),
		      OBJECT_NAME_INVALID);
	assert_string_equal(smbd_filename_base("a/b/c"), "c");
	assert_string_equal(smbd_filename_base("c"), "c");
	assert_string_equal(smbd_filename_base(""), "");
}

static void test_names__wire(void **state)
{
	static const uint8_t want[] = { '\\', 0, 'd', 0, '\\', 0, 'f', 0 };
	struct smb2_name16 n = {};

	assert_status(smbd_filename_wire(*state, "d/f", &n), OK);
	assert_int_equal(n.len, sizeof(want));
	assert_memory_equal(n.data, want, sizeof(want));
	talloc_free((void *)n.data);
}

/* veto files, hide files, hide dot files = no (share [sh]) */
static void test_names__veto_and_hide(void **state)
{
	struct fx *f = fx_new(*state, "");
	struct vfs_handle *vfs = f->tcon->vfs;
	struct smbd_tcon *plain = fx_tcon(f, f->session, "nooplocks");
	const uint32_t ARCH = SMB2_FILE_ATTRIBUTE_ARCHIVE;
	const uint32_t HID = SMB2_FILE_ATTRIBUTE_HIDDEN;

	assert_true(smbd_name_vetoed(vfs, "x.tmp"));
	assert_true(smbd_name_vetoed(vfs, "secret"));
	assert_true(smbd_name_vetoed(vfs, "SECRET"));  /* case-insensitive */
	assert_false(smbd_name_vetoed(vfs, "x.tmpl"));
	assert_false(smbd_name_vetoed(vfs, "f"));
	assert_false(smbd_name_vetoed(plain->vfs, "x.tmp"));
	assert_status(smbd_path_vetoed(vfs, "d/secret/x"),
		      OBJECT_PATH_NOT_FOUND);
	assert_status(smbd_path_vetoed(vfs, "d/a.tmp"),
		      OBJECT_NAME_NOT_FOUND);
	assert_status(smbd_path_vetoed(vfs, "d/f"), OK);
	assert_status(smbd_path_vetoed(plain->vfs, "d/secret/x"), OK);

	assert_int_equal(smbd_names_attributes(vfs, "hello", ARCH, false),
			 ARCH | HID);
	assert_int_equal(smbd_names_attributes(vfs, ".dot", ARCH | HID,
					       false), ARCH);
	assert_int_equal(smbd_names_attributes(vfs, ".dot", ARCH | HID,
					       true), ARCH | HID);
	assert_int_equal(smbd_names_attributes(vfs, "x", 0, false),
			 SMB2_FILE_ATTRIBUTE_NORMAL);
	/* "hide dot files" is on by default */
	assert_int_equal(smbd_names_attributes(plain->vfs, ".dot",
					       ARCH | HID, false),
			 ARCH | HID);
	/* and over stored attributes, as Samba's dos_mode_from_name */
	assert_int_equal(smbd_names_attributes(plain->vfs, ".dot", ARCH,
					       true), ARCH | HID);
	assert_int_equal(smbd_names_attributes(plain->vfs, ".dot",
					       SMB2_FILE_ATTRIBUTE_NORMAL,
					       true), HID);
	assert_int_equal(smbd_names_attributes(plain->vfs, "..", 0, true),
			 SMB2_FILE_ATTRIBUTE_NORMAL);
	assert_false(smbd_name_listed(vfs, vfs->root_fd, "x.tmp"));
	assert_true(smbd_name_listed(vfs, vfs->root_fd, "f"));
	assert_false(smbd_delete_veto_files(vfs));
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_handles__session_quota),
		T(test_handles__untrusted_quotas),
		T(test_handles__reclass),
		T(test_handles__server_and_conn_budget),
		T(test_names__convert),
		T(test_names__wire),
		T(test_names__veto_and_hide),
	};

	talloc_set_log_stderr();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
