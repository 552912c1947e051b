/*
 * Unit tests for lib/util/debug*.c: `log level` strings with classes,
 * run-time level changes, %m %I %U in `log file` and what a hostile
 * value may not do to a path, rotation at `max log size`, the journald
 * datagram, `logging` backends.  Files go to a fresh temporary
 * directory per test; the assertions read them back.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>
#include "lib/util/debug_private.h"
#include "tests/unit/unit.h"

struct tmp {
	TALLOC_CTX *mem_ctx;
	char dir[64];
};

/* paths and file contents go on t->mem_ctx, freed in teardown */
static int tmp_setup(void **state)
{
	struct tmp *t = talloc_zero(NULL, struct tmp);

	assert_non_null(t);
	t->mem_ctx = talloc_new(t);
	snprintf(t->dir, sizeof(t->dir), "/tmp/test_debug.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	*state = t;
	return 0;
}

static void rm_tree(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* the debug clients are malloc'ed: ASan's leak check sees a lost one */
static int tmp_teardown(void **state)
{
	struct tmp *t = *state;

	debug_setup(1, NULL);
	rm_tree(t->dir);
	talloc_free(t);
	return 0;
}

static char *slurp(TALLOC_CTX *mem_ctx, const char *path)
{
	char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd == -1) {
		return NULL;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	return talloc_strdup(mem_ctx, buf);
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e = NULL;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		n += e->d_name[0] != '.' ? 1 : 0;
	}
	closedir(d);
	return n;
}

/* ---- levels ---- */

static void test_levels__number_and_classes(void **state)
{
	int l[DBGC_COUNT];
	char unknown[32];

	assert_true(debug_parse_levels("3 auth:5 passdb:10", l, unknown,
				       sizeof(unknown)));
	assert_string_equal(unknown, "");
	assert_int_equal(l[DBGC_ALL], 3);
	assert_int_equal(l[DBGC_AUTH], 5);
	assert_int_equal(l[DBGC_PASSDB], 10);
	/* a class not named follows all */
	assert_int_equal(l[DBGC_VFS], 3);
	assert_int_equal(l[DBGC_AUTH_AUDIT], 3);
}

static void test_levels__no_number_is_zero(void **state)
{
	int l[DBGC_COUNT];

	/* Samba: without a leading number, all is 0 */
	assert_true(debug_parse_levels("auth_audit:3", l, NULL, 0));
	assert_int_equal(l[DBGC_ALL], 0);
	assert_int_equal(l[DBGC_AUTH_AUDIT], 3);
	assert_int_equal(l[DBGC_SMB2], 0);
	/* all:N is the same as a leading N, for every unnamed class */
	assert_true(debug_parse_levels("all:4, locking:1", l, NULL, 0));
	assert_int_equal(l[DBGC_ALL], 4);
	assert_int_equal(l[DBGC_VFS], 4);
	assert_int_equal(l[DBGC_LOCKING], 1);
	assert_true(debug_parse_levels("", l, NULL, 0));
	assert_int_equal(l[DBGC_ALL], 0);
}

static void test_levels__unknown_class_named(void **state)
{
	int l[DBGC_COUNT];
	char unknown[32];

	assert_true(debug_parse_levels("2 winbind:9 AUTH:4 vfs:x", l, unknown,
				       sizeof(unknown)));
	assert_string_equal(unknown, "winbind:9");
	/* the rest still applies; names are case-insensitive */
	assert_int_equal(l[DBGC_AUTH], 4);
	assert_int_equal(l[DBGC_VFS], 2);
}

static void test_levels__malformed(void **state)
{
	int l[DBGC_COUNT];

	assert_false(debug_parse_levels("x", l, NULL, 0));
	assert_false(debug_parse_levels("101", l, NULL, 0));
	assert_false(debug_parse_levels("-1 auth:3", l, NULL, 0));
}

static void test_levels__set_at_run_time(void **state)
{
	struct tmp *t = *state;
	char *err = NULL;
	char *now = NULL;

	assert_true(debug_set_levels(t->mem_ctx, "3 auth:5", &err));
	assert_null(err);
	assert_int_equal(debug_level(), 3);
	assert_int_equal(debug_class_level(DBGC_AUTH), 5);
	assert_int_equal(debug_class_level(DBGC_PASSDB), 3);
	now = debug_get_levels(t->mem_ctx);
	assert_string_equal(now, "3 auth:5");

	/* a malformed string changes nothing and says why */
	assert_false(debug_set_levels(t->mem_ctx, "loud", &err));
	assert_non_null(err);
	assert_non_null(strstr(err, "loud"));
	assert_int_equal(debug_level(), 3);
	assert_int_equal(debug_class_level(DBGC_AUTH), 5);

	/* an unknown class is named, the rest applies */
	assert_true(debug_set_levels(t->mem_ctx, "0 tdb:3 passdb:2", &err));
	assert_non_null(strstr(err, "tdb:3"));
	assert_int_equal(debug_level(), 0);
	assert_int_equal(debug_class_level(DBGC_PASSDB), 2);
	assert_int_equal(debug_class_level(DBGC_AUTH), 0);
	TALLOC_FREE(err);
	TALLOC_FREE(now);
}

/* A class logs by its own level: audit lines survive log level 0. */
static void test_levels__class_gates_lines(void **state)
{
	struct tmp *t = *state;
	char path[128];
	char *log = NULL;
	struct debug_settings s = {
		.levels = "0 auth_audit:1",
		.file = path,
	};

	snprintf(path, sizeof(path), "%s/log.smbd", t->dir);
	debug_configure(&s);
	DBGC_AT(DBGC_AUTH_AUDIT, 1, "Auth: audit line\n");
	DBG_WARNING("plain level-1 line\n");
	DBG_ERR("level-0 line\n");
	DBGC_AT(DBGC_AUTH_AUDIT, 2, "audit level 2\n");
	log = slurp(t->mem_ctx, path);
	assert_non_null(log);
	assert_non_null(strstr(log, "Auth: audit line"));
	assert_non_null(strstr(log, "level-0 line"));
	assert_null(strstr(log, "plain level-1 line"));
	assert_null(strstr(log, "audit level 2"));
	talloc_free(log);
}

/* ---- %m %I %U ---- */

static void test_path__expand(void **state)
{
	char out[128];

	assert_true(debug_expand_path(out, sizeof(out), "/var/log/log.%m",
				      "192.0.2.7", "192.0.2.7", ""));
	assert_string_equal(out, "/var/log/log.192.0.2.7");
	assert_true(debug_expand_path(out, sizeof(out), "/l/%I-%U.%m%%x%d",
				      "smbd", "0.0.0.0", "Alice"));
	/* %U and %m lower-cased as Samba does; other % kept as written */
	assert_string_equal(out, "/l/0.0.0.0-alice.smbd%%x%d");
	assert_true(debug_expand_path(out, sizeof(out), "/l/log.%U",
				      "m", "a", ""));
	assert_string_equal(out, "/l/log.");
	assert_false(debug_expand_path(out, 8, "/var/log/log.%I", "m",
				       "192.0.2.7", ""));
	assert_true(debug_path_per_client("/x/log.%U"));
	assert_true(debug_path_per_client("/x/%I/log"));
	assert_false(debug_path_per_client("/x/log.%d"));
	assert_false(debug_path_per_client("/x/log.smbd"));
	assert_false(debug_path_per_client("/x/100%"));
}

static void test_path__sanitize(void **state)
{
	char out[256];

	/* no value may climb out of the directory or name a new one */
	assert_true(debug_expand_path(out, sizeof(out), "/l/%U", "m", "a",
				      ".."));
	assert_string_equal(out, "/l/__");
	assert_true(debug_expand_path(out, sizeof(out), "/l/%U/x", "m", "a",
				      "../../etc/passwd"));
	assert_string_equal(out, "/l/___.._etc_passwd/x");
	assert_true(debug_expand_path(out, sizeof(out), "/l/log.%U", "m", "a",
				      "a/b\\c d\ne\x01"));
	assert_string_equal(out, "/l/log.a_b_c_d_e_");
	assert_true(debug_expand_path(out, sizeof(out), "/l/%U", "m", "a",
				      ".hidden"));
	assert_string_equal(out, "/l/_hidden");
	/* IPv6 addresses keep their colons */
	assert_true(debug_expand_path(out, sizeof(out), "/l/log.%I", "m",
				      "fe80::1", ""));
	assert_string_equal(out, "/l/log.fe80::1");
	/* a long name is cut, not spilled */
	assert_true(debug_expand_path(out, sizeof(out), "/l/%U", "m", "a",
				      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_int_equal(strlen(out), 3 + DEBUG_NAME_MAX);
}

static char *path_in(struct tmp *t, const char *name)
{
	return talloc_asprintf(t->mem_ctx, "%s/%s", t->dir, name);
}

/* Lines of a client go to its file, lines of none to the daemon's. */
static void test_file__per_client(void **state)
{
	struct tmp *t = *state;
	char *tmpl = path_in(t, "log.%I.%U");
	struct debug_settings s = { .levels = "1", .file = tmpl };
	struct debug_client *a = NULL, *b = NULL;
	struct debug_scope sa, sb;
	char *log = NULL;

	debug_configure(&s);
	a = debug_client_new(t->mem_ctx, "192.0.2.7");
	b = debug_client_new(t->mem_ctx, "192.0.2.8");
	debug_client_set_user(b, "../Bob");
	DBG_WARNING("daemon line\n");
	debug_client_enter(a, &sa);
	DBG_WARNING("line of a\n");
	debug_client_enter(b, &sb);
	DBG_WARNING("line of b\n");
	debug_scope_leave(&sb);
	DBG_WARNING("a again\n");
	debug_scope_leave(&sa);
	DBG_WARNING("daemon again\n");

	log = slurp(t->mem_ctx, path_in(t, "log.0.0.0.0."));
	assert_non_null(log);
	assert_non_null(strstr(log, "daemon line"));
	assert_non_null(strstr(log, "daemon again"));
	assert_null(strstr(log, "line of"));
	log = slurp(t->mem_ctx, path_in(t, "log.192.0.2.7."));
	assert_non_null(log);
	assert_non_null(strstr(log, "line of a"));
	assert_non_null(strstr(log, "a again"));
	assert_null(strstr(log, "line of b"));
	log = slurp(t->mem_ctx, path_in(t, "log.192.0.2.8.___bob"));
	assert_non_null(log);
	assert_non_null(strstr(log, "line of b"));
	assert_int_equal(dir_entries(t->dir), 3);
	/* the mode is 0644 whatever the umask lets through */
	talloc_free(a);
	talloc_free(b);
}

/* A client freed while a handler still runs it stays usable. */
static void test_file__client_freed_in_scope(void **state)
{
	struct tmp *t = *state;
	struct debug_settings s = { .levels = "1",
				    .file = path_in(t, "log.%m") };
	TALLOC_CTX *conn = talloc_new(t->mem_ctx);
	struct debug_client *c = debug_client_new(conn, "192.0.2.9");
	struct debug_scope sc;
	char *log = NULL;

	debug_configure(&s);
	debug_client_enter(c, &sc);
	talloc_free(conn);
	DBG_WARNING("after the connection went\n");
	debug_scope_leave(&sc);
	log = slurp(t->mem_ctx, path_in(t, "log.192.0.2.9"));
	assert_non_null(log);
	assert_non_null(strstr(log, "after the connection went"));
}

/* More clients than open files: the least recently used closes. */
static void test_file__open_files_bounded(void **state)
{
	struct tmp *t = *state;
	struct debug_settings s = { .levels = "1",
				    .file = path_in(t, "log.%I") };
	struct debug_scope sc;
	char addr[32];
	char *log = NULL;
	int i;

	debug_configure(&s);
	for (i = 0; i < 3 * DEBUG_MAX_OPEN_FILES; i++) {
		struct debug_client *c = NULL;

		snprintf(addr, sizeof(addr), "10.0.0.%d", i);
		c = debug_client_new(t->mem_ctx, addr);
		debug_client_enter(c, &sc);
		DBG_WARNING("client %d\n", i);
		debug_scope_leave(&sc);
		talloc_free(c);
		assert_true(debug_file_num_open() <= DEBUG_MAX_OPEN_FILES + 1);
	}
	assert_int_equal(dir_entries(t->dir), 3 * DEBUG_MAX_OPEN_FILES + 1);
	log = slurp(t->mem_ctx, path_in(t, "log.10.0.0.0"));
	assert_non_null(strstr(log, "client 0\n"));
}

/* Without %, entering a client changes nothing: one file. */
static void test_file__no_percent_one_file(void **state)
{
	struct tmp *t = *state;
	struct debug_settings s = { .levels = "1",
				    .file = path_in(t, "log.smbd") };
	struct debug_client *c = debug_client_new(t->mem_ctx, "192.0.2.1");
	struct debug_scope sc;
	char *log = NULL;

	debug_configure(&s);
	debug_client_enter(c, &sc);
	assert_null(sc.held);
	DBG_WARNING("client line\n");
	debug_scope_leave(&sc);
	log = slurp(t->mem_ctx, path_in(t, "log.smbd"));
	assert_non_null(strstr(log, "client line"));
	assert_int_equal(dir_entries(t->dir), 1);
	talloc_free(c);
}

/* ---- max log size ---- */

static void test_rotate__at_max_size(void **state)
{
	struct tmp *t = *state;
	char *path = path_in(t, "log.smbd");
	char *old = path_in(t, "log.smbd.old");
	struct debug_settings s = { .levels = "1", .file = path,
				    .max_size_kib = 1 };
	char *log = NULL;
	int i;

	debug_configure(&s);
	for (i = 0; i < 10; i++) {
		DBG_WARNING("line %02d %s\n", i,
			    "................................................."
			    "...............................");
	}
	assert_true(file_size(old) >= 1024);
	/* a line was not cut by the rotation: .old ends with one */
	log = slurp(t->mem_ctx, old);
	assert_int_equal(log[strlen(log) - 1], '\n');
	assert_non_null(strstr(log, "line 00"));
	assert_true(file_size(path) < 1024);
	log = slurp(t->mem_ctx, path);
	assert_non_null(strstr(log, "line 09"));
	assert_null(strstr(log, "line 00"));
	/* a second rotation replaces the old .old */
	for (i = 10; i < 30; i++) {
		DBG_WARNING("line %02d %s\n", i,
			    "................................................."
			    "...............................");
	}
	log = slurp(t->mem_ctx, old);
	assert_null(strstr(log, "line 00"));
	assert_true(file_size(path) < 1024);
	assert_int_equal(dir_entries(t->dir), 2);
}

static void test_rotate__zero_is_unlimited(void **state)
{
	struct tmp *t = *state;
	char *path = path_in(t, "log.smbd");
	struct debug_settings s = { .levels = "1", .file = path,
				    .max_size_kib = 0 };
	int i;

	debug_configure(&s);
	for (i = 0; i < 40; i++) {
		DBG_WARNING("line %02d %s\n", i,
			    "................................................."
			    "...............................");
	}
	assert_true(file_size(path) > 4096);
	assert_int_equal(dir_entries(t->dir), 1);
}

/* Each client's file rotates on its own. */
static void test_rotate__per_client(void **state)
{
	struct tmp *t = *state;
	struct debug_settings s = { .levels = "1",
				    .file = path_in(t, "log.%I"),
				    .max_size_kib = 1 };
	struct debug_client *c = debug_client_new(t->mem_ctx, "192.0.2.5");
	struct debug_scope sc;
	int i;

	debug_configure(&s);
	debug_client_enter(c, &sc);
	for (i = 0; i < 20; i++) {
		DBG_WARNING("line %02d %s\n", i,
			    "................................................."
			    "...............................");
	}
	debug_scope_leave(&sc);
	assert_true(file_size(path_in(t, "log.192.0.2.5.old")) >= 1024);
	assert_int_equal(file_size(path_in(t, "log.0.0.0.0.old")), -1);
	talloc_free(c);
}

/* ---- journald, syslog, logging = ---- */

static void test_journal__fields(void **state)
{
	char buf[512];
	size_t n = debug_journal_format(buf, sizeof(buf), 1,
					"source3/smbd/x.c:42",
					"Auth: user [alice]\n");
	const char want[] =
		"MESSAGE=Auth: user [alice]\n"
		"PRIORITY=4\n"
		"SYSLOG_IDENTIFIER=smbd\n"
		"CODE_FILE=source3/smbd/x.c\n"
		"CODE_LINE=42\n";

	assert_int_equal(n, sizeof(want) - 1);
	assert_memory_equal(buf, want, n);
	/* the size is told even when the buffer is too small */
	assert_int_equal(debug_journal_format(NULL, 0, 1,
					      "source3/smbd/x.c:42",
					      "Auth: user [alice]\n"), n);
}

static void test_journal__newline_in_value(void **state)
{
	char buf[512];
	size_t n = debug_journal_format(buf, sizeof(buf), 7, "a.c:1",
					"two\nlines\n");
	const char want[] = "MESSAGE\n\x09\0\0\0\0\0\0\0two\nlines\n"
		"PRIORITY=7\n";

	assert_true(n > sizeof(want) - 1);
	assert_memory_equal(buf, want, sizeof(want) - 1);
}

static void test_journal__priorities(void **state)
{
	assert_int_equal(debug_syslog_priority(0), LOG_ERR);
	assert_int_equal(debug_syslog_priority(1), LOG_WARNING);
	assert_int_equal(debug_syslog_priority(2), LOG_NOTICE);
	assert_int_equal(debug_syslog_priority(3), LOG_INFO);
	assert_int_equal(debug_syslog_priority(5), LOG_DEBUG);
	assert_int_equal(debug_syslog_priority(10), LOG_DEBUG);
}

static void test_logging__parse(void **state)
{
	char bad[32] = "";

	assert_true(debug_parse_logging("file", bad, sizeof(bad)));
	assert_true(debug_parse_logging("", bad, sizeof(bad)));
	assert_true(debug_parse_logging("syslog@1 file systemd@3", bad,
					sizeof(bad)));
	assert_false(debug_parse_logging("file lttng", bad, sizeof(bad)));
	assert_string_equal(bad, "lttng");
	assert_false(debug_parse_logging("syslog@x", bad, sizeof(bad)));
	assert_string_equal(bad, "syslog@x");
}

/* logging = systemd to a socket of ours; file@1 keeps level 1 only */
static void test_logging__systemd_socket(void **state)
{
	struct tmp *t = *state;
	char *sock = path_in(t, "journal");
	char *file = path_in(t, "log.smbd");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct debug_settings s = { .levels = "3", .file = file,
				    .logging = "systemd file@1" };
	char buf[2048];
	ssize_t n;
	char *log = NULL;
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setenv("RINGSMB_JOURNAL_SOCKET", sock, 1);
	debug_configure(&s);
	DBG_INFO("to the journal\n");
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "MESSAGE=to the journal\n"));
	assert_non_null(strstr(buf, "PRIORITY=6\n"));
	assert_non_null(strstr(buf, "SYSLOG_IDENTIFIER=smbd\n"));
	assert_non_null(strstr(buf, "CODE_FILE="));
	assert_non_null(strstr(buf, "test_debug.c\nCODE_LINE="));
	DBG_WARNING("to both\n");
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	assert_true(n > 0);
	log = slurp(t->mem_ctx, file);
	assert_non_null(strstr(log, "to both"));
	assert_null(strstr(log, "to the journal"));
	unsetenv("RINGSMB_JOURNAL_SOCKET");
	close(fd);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, tmp_setup, tmp_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_levels__number_and_classes),
		T(test_levels__no_number_is_zero),
		T(test_levels__unknown_class_named),
		T(test_levels__malformed),
		T(test_levels__set_at_run_time),
		T(test_levels__class_gates_lines),
		T(test_path__expand),
		T(test_path__sanitize),
		T(test_file__per_client),
		T(test_file__client_freed_in_scope),
		T(test_file__open_files_bounded),
		T(test_file__no_percent_one_file),
		T(test_rotate__at_max_size),
		T(test_rotate__zero_is_unlimited),
		T(test_rotate__per_client),
		T(test_journal__fields),
		T(test_journal__newline_in_value),
		T(test_journal__priorities),
		T(test_logging__parse),
		T(test_logging__systemd_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
