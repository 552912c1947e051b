/*
 * The world of fuzz_server (fuzz_server_env.h): temporary directory,
 * configuration, a server per input, the fake clock, leak checks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "lib/auth/auth.h"
#include "lib/util/unix_token.h"
#include "source3/smbd/server/conn.h"
#include "source3/smbd/server/server.h"
#include "tests/fuzz/fuzz_server_env.h"

/* A loop that runs this many passes without idling is a hang. */
#define FZ_MAX_PASSES 200000

static struct {
	char dir[64];
	char conf[128];
	char share[128];
	char noop[128];
	char crypt[128];
	int base_fds;
	bool ready;
	/* the fake clock */
	int64_t offset_us;
	int real_wait_ms;               /* -1: never wait */
	bool idle;                      /* the last epoll_wait found nothing */
} fz = { .real_wait_ms = -1 };

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "fuzz_server: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* ---- the fake clock: what tevent calls ---- */

int epoll_wait(int epfd, struct epoll_event *events, int maxevents,
	       int timeout)
{
	int t = 0;
	long ret;

	if (fz.real_wait_ms >= 0) {
		t = timeout >= 0 && timeout < fz.real_wait_ms ?
			timeout : fz.real_wait_ms;
	}
	ret = syscall(SYS_epoll_pwait, epfd, events, maxevents, t, NULL, 8);
	fz.idle = ret == 0;
	return (int)ret;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	struct timespec ts;
	int64_t us;

	(void)tz;
	clock_gettime(CLOCK_REALTIME, &ts);
	us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 + fz.offset_us;
	tv->tv_sec = us / 1000000;
	tv->tv_usec = us % 1000000;
	return 0;
}

/* ---- set up once ---- */

/*
 * Descriptors open, but those on /dev/null: the log file, which debug.c
 * opens on a first line and keeps for the process (a small cache of log
 * files, by design).
 */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e = NULL;
	int n = 0;

	if (d == NULL) {
		fz_fail("opendir /proc/self/fd: %s", strerror(errno));
	}
	while ((e = readdir(d)) != NULL) {
		char path[300], target[64];
		ssize_t len;

		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d)) {
			continue;
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = '\0';
		n += strcmp(target, "/dev/null") != 0;
	}
	closedir(d);
	return n;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0) {
		(void)remove(path);
	}
	return 0;
}

/* What a leak report shows: every descriptor and what it is. */
static void list_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e = NULL;

	while (d != NULL && (e = readdir(d)) != NULL) {
		char path[300], target[256];
		ssize_t n;

		if (e->d_name[0] == '.') {
			continue;
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "  fd %s -> %s\n", e->d_name, target);
	}
	if (d != NULL) {
		closedir(d);
	}
}

/* Empties dir (keeps dir itself). */
static void empty_dir(const char *dir)
{
	(void)nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup_at_exit(void)
{
	char priv[160];

	unix_token_unbecome_full();
	empty_dir(fz.dir);
	snprintf(priv, sizeof(priv), "%s", fz.dir);
	(void)rmdir(priv);
}

static void write_conf(void)
{
	FILE *f = fopen(fz.conf, "w");
	const char *debug = getenv("FUZZ_SERVER_DEBUG");

	if (f == NULL) {
		fz_fail("cannot write %s: %s", fz.conf, strerror(errno));
	}
	fprintf(f,
		"[global]\n"
		"netbios name = FUZZ\n"
		"workgroup = WORKGROUP\n"
		"map to guest = bad user\n"
		"restrict anonymous = 0\n"
		"smb2 workers = 1\n"
		"smb2 crypto threads = 0\n"
		"log level = %s\n"
		"log file = /dev/null\n"
		"max log size = 0\n"
		"pid directory = %s\n"
		"private dir = %s/private\n"
		"lock directory = %s/lock\n"
		"smb passwd file = %s/private/smbpasswd\n"
		"metrics listen = \n"
		"oplock break timeout = 35\n"
		"[share]\n"
		"path = %s\n"
		"read only = no\n"
		"guest ok = yes\n"
		"ea support = yes\n"
		"durable handles = yes\n"
		"[noop]\n"
		"path = %s\n"
		"read only = no\n"
		"guest ok = yes\n"
		"vfs objects = noop\n"
		"[crypt]\n"
		"path = %s\n"
		"read only = no\n"
		"guest ok = no\n"
		"smb encrypt = required\n",
		debug != NULL ? debug : "0", fz.dir, fz.dir, fz.dir,
		fz.dir, fz.share, fz.noop, fz.crypt);
	fclose(f);
}

/*
 * The one real user (FZ_USER, FZ_PASSWORD), in the smbpasswd format
 * lib/auth/passdb_text.c reads: name:uid:LM:NT:[flags]:LCT-time:.  The
 * name is an existing Unix account: identity.c maps a logon to the
 * account of that name.
 */
static void write_smbpasswd(void)
{
	uint8_t nt[AUTH_NT_HASH_SIZE];
	char path[160];
	FILE *f = NULL;
	unsigned i;

	if (!NT_STATUS_IS_OK(auth_nt_hash(FZ_PASSWORD, nt))) {
		fz_fail("cannot hash the password");
	}
	snprintf(path, sizeof(path), "%s/private/smbpasswd", fz.dir);
	f = fopen(path, "w");
	if (f == NULL) {
		fz_fail("cannot write %s: %s", path, strerror(errno));
	}
	fprintf(f, "%s:%u:%s:", FZ_USER, FZ_USER_UID,
		"XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX");
	for (i = 0; i < sizeof(nt); i++) {
		fprintf(f, "%02X", nt[i]);
	}
	fprintf(f, ":[U          ]:LCT-00000000:\n");
	fclose(f);
}

void fz_env_init(void)
{
	char sub[160];

	if (fz.ready) {
		return;
	}
	snprintf(fz.dir, sizeof(fz.dir), "/tmp/fuzz_server.XXXXXX");
	if (mkdtemp(fz.dir) == NULL) {
		fz_fail("mkdtemp: %s", strerror(errno));
	}
	/* guests act as 'nobody' when we run as root: let them write */
	(void)chmod(fz.dir, 0755);
	snprintf(fz.conf, sizeof(fz.conf), "%s/smb.conf", fz.dir);
	snprintf(fz.share, sizeof(fz.share), "%s/share", fz.dir);
	snprintf(fz.noop, sizeof(fz.noop), "%s/noop", fz.dir);
	snprintf(fz.crypt, sizeof(fz.crypt), "%s/crypt", fz.dir);
	snprintf(sub, sizeof(sub), "%s/private", fz.dir);
	(void)mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/lock", fz.dir);
	(void)mkdir(sub, 0755);
	(void)mkdir(fz.share, 0777);
	(void)chmod(fz.share, 0777);
	(void)mkdir(fz.noop, 0777);
	(void)chmod(fz.noop, 0777);
	(void)mkdir(fz.crypt, 0777);
	(void)chmod(fz.crypt, 0777);
	write_conf();
	write_smbpasswd();
	atexit(cleanup_at_exit);
	fz.ready = true;
}

/* ---- one server per input ---- */

void fz_env_up(struct fz_env *env, bool use_uring)
{
	static const char *no_uring[] = { "io_uring=no", NULL };

	*env = (struct fz_env){ .client_fd = { -1, -1 },
				.use_uring = use_uring };
	fz.offset_us = 0;
	/*
	 * Counted per input, not once: libFuzzer itself opens pipes to
	 * llvm-symbolizer between inputs (NEW_FUNC lines).
	 */
	fz.base_fds = count_fds();
	env->top = talloc_new(NULL);
	env->server = smbd_server_new(env->top, &(struct smbd_cmdline){
		.configfile = fz.conf,
		.debuglevel = -1,
		.log_stderr = getenv("FUZZ_SERVER_DEBUG") != NULL,
		.options = use_uring ? NULL : no_uring,
	});
	if (env->server == NULL ||
	    smbd_server_start_embedded(env->server) != 0) {
		fz_fail("the server does not start (FUZZ_SERVER_DEBUG=10 "
			"shows why)");
	}
	fz_env_connect(env, 0);
}

void fz_env_connect(struct fz_env *env, unsigned i)
{
	static const char *const peers[FZ_CONNS] = { "fuzz:1", "fuzz:2" };
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0, sv) != 0) {
		fz_fail("socketpair: %s", strerror(errno));
	}
	env->conn[i] = smbd_conn_new(env->server, sv[0], peers[i]);
	if (env->conn[i] == NULL) {
		fz_fail("smbd_conn_new failed");
	}
	env->client_fd[i] = sv[1];
}

bool fz_env_conn_alive(struct fz_env *env, unsigned i)
{
	const struct smbd_conn *c = NULL;

	for (c = env->server->conns; c != NULL; c = c->next) {
		if (c == env->conn[i]) {
			return true;
		}
	}
	env->conn[i] = NULL;
	return false;
}

static bool any_conn_alive(struct fz_env *env)
{
	unsigned i;
	bool alive = false;

	for (i = 0; i < FZ_CONNS; i++) {
		alive = fz_env_conn_alive(env, i) || alive;
	}
	return alive;
}

static void loop_once(struct fz_env *env)
{
	if (tevent_loop_once(env->server->ev) != 0 && errno != EINTR) {
		fz_fail("tevent_loop_once: %s", strerror(errno));
	}
}

/*
 * Idle: two passes in a row whose epoll_wait found nothing ready (the
 * ring may submit at the end of a pass; the second pass sees what that
 * completed at once).
 */
unsigned fz_env_run_idle(struct fz_env *env)
{
	unsigned i, quiet = 0;

	for (i = 0; i < FZ_MAX_PASSES; i++) {
		fz.idle = false;
		loop_once(env);
		quiet = fz.idle ? quiet + 1 : 0;
		if (quiet == 2) {
			return i;
		}
	}
	fz_fail("hang: the event loop did not idle in %d passes",
		FZ_MAX_PASSES);
}

void fz_env_wait_real(struct fz_env *env, unsigned ms)
{
	fz.real_wait_ms = (int)ms;
	loop_once(env);
	fz.real_wait_ms = -1;
	fz_env_run_idle(env);
}

void fz_env_advance(struct fz_env *env, unsigned secs)
{
	fz.offset_us += (int64_t)secs * 1000000;
	fz_env_run_idle(env);
}

/* ---- tear down and check ---- */

static void check_server_empty(const struct smbd_server *s)
{
	if (s->conns != NULL || s->num_conns != 0) {
		fz_fail("leak: %zu connections after the client went",
			s->num_conns);
	}
	if (s->num_dying_sessions != 0) {
		fz_fail("leak: %zu sessions still dying",
			s->num_dying_sessions);
	}
	if (s->handles_total != 0 || s->handles_untrusted != 0) {
		fz_fail("leak: %zu handles (%zu untrusted) still counted",
			s->handles_total, s->handles_untrusted);
	}
	if (s->disconnected != NULL || s->num_disconnected != 0) {
		fz_fail("leak: %zu durable opens outlived their timeout",
			s->num_disconnected);
	}
	if (s->leases != NULL) {
		fz_fail("leak: a lease outlived every open");
	}
	if (s->replay_pending != NULL) {
		fz_fail("leak: a replay record outlived its CREATE");
	}
}

void fz_env_down(struct fz_env *env)
{
	unsigned i;
	int fds;

	for (i = 0; i < FZ_CONNS; i++) {
		if (env->client_fd[i] != -1) {
			close(env->client_fd[i]);
			env->client_fd[i] = -1;
		}
	}
	fz_env_run_idle(env);
	/* the kernel may still owe the ring the EOF; then timers */
	for (i = 0; i < 6 && any_conn_alive(env); i++) {
		if (i < 3) {
			fz_env_wait_real(env, 5);
		} else {
			fz_env_advance(env, 60);
		}
	}
	if (any_conn_alive(env)) {
		fz_fail("a connection outlived its client's close");
	}
	/* durable handles (at most 300 s), lease and oplock timers */
	for (i = 0; i < 4; i++) {
		fz_env_advance(env, 400);
	}
	check_server_empty(env->server);
	smbd_server_stop(env->server);
	unix_token_unbecome_full();
	talloc_free(env->server);
	env->server = NULL;
	if (talloc_total_blocks(env->top) != 1) {
		talloc_report_full(env->top, stderr);
		fz_fail("leak: talloc memory left beside the server");
	}
	TALLOC_FREE(env->top);
	empty_dir(fz.share);
	empty_dir(fz.noop);
	empty_dir(fz.crypt);
	fds = count_fds();
	if (fds != fz.base_fds) {
		list_fds();
		fz_fail("leak: %d descriptors open, %d before the input", fds,
			fz.base_fds);
	}
}
