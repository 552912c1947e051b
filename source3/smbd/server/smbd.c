/*
 * smbd: the ringsmb daemon.  Command line as Samba's smbd.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/server/server.h"

struct smbd_options {
	bool foreground;
	bool debug_stdout;
	int debuglevel;                 /* -1: from the config */
	const char *configfile;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smbd [OPTIONS]\n"
		"  -F, --foreground        do not daemonize (logs still go to the log file)\n"
		"  -s, --configfile=FILE   use FILE as smb.conf\n"
		"  -d, --debuglevel=N      log level (overrides 'log level')\n"
		"      --debug-stdout      log to stdout (stderr) not a file\n"
		"  -b, --build-options     print build options\n"
		"  -V, --version           print the version\n"
		"  -h, --help              this help\n");
}

static void print_build_options(void)
{
	printf("ringsmb smbd %s\n", RINGSMB_VERSION);
	printf("Paths:\n   CONFIGFILE: %s\n   PRIVATE_DIR: %s\n"
	       "   PIDDIR: %s\n", lp_default_config_file(),
	       LP_DEFAULT_PRIVATE_DIR, LP_DEFAULT_PID_DIR);
	printf("Features: io_uring (probed at run time), SMB 2.0.2-3.1.1\n");
}

static int parse_args(int argc, char **argv, struct smbd_options *o)
{
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'F' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "configfile", required_argument, NULL, 's' },
		{ "debuglevel", required_argument, NULL, 'd' },
		{ "debug-stdout", no_argument, NULL, 'S' },
		{ "build-options", no_argument, NULL, 'b' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "Fis:d:SbVh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'F':
			o->foreground = true;
			break;
		case 'i':
			o->foreground = true;
			o->debug_stdout = true;
			break;
		case 's':
			o->configfile = optarg;
			break;
		case 'd':
			o->debuglevel = (int)strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || o->debuglevel < 0) {
				fprintf(stderr, "smbd: invalid debug level "
					"'%s'\n", optarg);
				return -1;
			}
			break;
		case 'S':
			o->debug_stdout = true;
			break;
		case 'b':
			print_build_options();
			exit(0);
		case 'V':
			printf("Version %s (ringsmb)\n", RINGSMB_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "smbd: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	return 0;
}

/*
 * Forks; the parent waits until the child reports that it serves (or
 * failed), so that 'smbd' exits non-zero when the daemon cannot start.
 * Returns the fd the child reports on, or -1.
 */
static int daemonize(void)
{
	int p[2];
	char c = 1;
	pid_t pid;
	int fd;

	if (pipe2(p, O_CLOEXEC) != 0 || (pid = fork()) == -1) {
		return -1;
	}
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1) {
			c = 1;
		}
		_exit(c == 0 ? 0 : 1);
	}
	close(p[0]);
	if (setsid() == -1) {
		return -1;
	}
	fd = open("/dev/null", O_RDWR);
	if (fd != -1) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2) {
			close(fd);
		}
	}
	return p[1];
}

static void daemon_ready(int fd, bool ok)
{
	char c = ok ? 0 : 1;

	if (fd != -1) {
		(void)!write(fd, &c, 1);
		close(fd);
	}
}

/* mkdir -p; errors show up when the file in it cannot be created */
static void mkdir_p(const char *dir)
{
	char buf[4096];
	char *p = NULL;

	snprintf(buf, sizeof(buf), "%s", dir);
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p == '/') {
			*p = '\0';
			(void)mkdir(buf, 0755);
			*p = '/';
		}
	}
	(void)mkdir(buf, 0755);
}

static void write_pidfile(TALLOC_CTX *mem_ctx, const struct loadparm *lp)
{
	const char *dir = lp->g.pid_directory;
	char *path = talloc_asprintf(mem_ctx, "%s/smbd.pid", dir);
	FILE *f = NULL;
	int fd;

	if (path == NULL) {
		return;
	}
	mkdir_p(dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f == NULL) {
		DBG_WARNING("cannot write pid file %s: %s\n", path,
			    strerror(errno));
		return;
	}
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
}

/*
 * glibc's malloc serves a request above its mmap threshold with fresh
 * pages from mmap, and moves that threshold as chunks are freed, and
 * gives the top of the heap back above its trim threshold.  For the 8
 * MiB receive buffers of large WRITEs that made every few PDUs start on
 * pages the kernel had to fault in and zero (37-53 thousand faults per
 * GiB put measured, and runs of whole GiBs at half speed: the "bimodal
 * put" of docs/performance.md).  Fixed thresholds keep them in the heap
 * and reused; what the heap keeps is handed back when the server is
 * quiet (server.c, idle_trim).
 */
#define SMBD_MALLOC_MMAP	(32 * 1024 * 1024)
#define SMBD_MALLOC_TRIM	(64 * 1024 * 1024)

static void smbd_malloc_tuning(void)
{
	(void)mallopt(M_MMAP_THRESHOLD, SMBD_MALLOC_MMAP);
	(void)mallopt(M_TRIM_THRESHOLD, SMBD_MALLOC_TRIM);
}

/* As Samba: every connection needs descriptors; use what we may. */
static void raise_nofile_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	struct smbd_options o = { .debuglevel = -1 };
	TALLOC_CTX *top = talloc_new(NULL);
	struct smbd_server *server = NULL;
	int ready_fd = -1;
	int ret;

	if (parse_args(argc, argv, &o) != 0) {
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	/*
	 * As Samba: modes of what clients create come from the share's
	 * create mask etc. alone (docs/security.md); the daemon's own files
	 * are created with explicit modes.
	 */
	umask(0);
	raise_nofile_limit();
	smbd_malloc_tuning();
	server = smbd_server_new(top, o.configfile, o.debuglevel,
				 o.debug_stdout);
	if (server == NULL) {
		talloc_free(top);
		return 1;
	}
	if (!o.foreground) {
		ready_fd = daemonize();
		if (ready_fd == -1) {
			DBG_ERR("cannot daemonize: %s\n", strerror(errno));
			return 1;
		}
	}
	if (smbd_server_start(server) != 0) {
		daemon_ready(ready_fd, false);
		talloc_free(top);
		return 1;
	}
	if (!o.foreground) {
		write_pidfile(top, server->lp);
	}
	daemon_ready(ready_fd, true);
	ret = smbd_server_run(server);
	talloc_free(top);
	return ret;
}
