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
#include "lib/util/sd_notify.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/server/server.h"

#define SMBD_MAX_OPTIONS	64

struct smbd_options {
	bool foreground;
	bool debug_stdout;
	bool no_process_group;
	int debuglevel;                 /* -1: from the config */
	const char *configfile;
	const char *log_dir;            /* -l */
	const char *options[SMBD_MAX_OPTIONS + 1];   /* --option, NULL-ended */
	size_t num_options;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smbd [OPTIONS]\n"
		"  -D, --daemon            become a daemon (the default)\n"
		"  -F, --foreground        do not daemonize (logs still go to the log file)\n"
		"  -i, --interactive       foreground, logging to stderr\n"
		"  -s, --configfile=FILE   use FILE as smb.conf\n"
		"  -d, --debuglevel=N      log level (overrides 'log level')\n"
		"      --debug-stdout      log to stdout (stderr) not a file\n"
		"  -l, --log-basename=DIR  log to DIR/log.smbd (overrides 'log file')\n"
		"      --option=NAME=VALUE set an smb.conf [global] parameter\n"
		"      --no-process-group  do not start a new session as a daemon\n"
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
		{ "daemon", no_argument, NULL, 'D' },
		{ "foreground", no_argument, NULL, 'F' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "log-basename", required_argument, NULL, 'l' },
		{ "option", required_argument, NULL, 'o' },
		{ "no-process-group", no_argument, NULL, 'G' },
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

	while ((c = getopt_long(argc, argv, "DFis:d:l:SbVh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'D':
			break;          /* the default; -F wins, as in Samba */
		case 'F':
			o->foreground = true;
			break;
		case 'l':
			o->log_dir = optarg;
			break;
		case 'o':
			if (o->num_options == SMBD_MAX_OPTIONS) {
				fprintf(stderr, "smbd: more than %d --option\n",
					SMBD_MAX_OPTIONS);
				return -1;
			}
			o->options[o->num_options++] = optarg;
			break;
		case 'G':
			o->no_process_group = true;
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
static int daemonize(bool new_session, const char *log_hint)
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
		if (c != 0) {
			fprintf(stderr, "smbd: cannot start: see %s\n",
				log_hint);
		}
		_exit(c == 0 ? 0 : 1);
	}
	close(p[0]);
	if (new_session && setsid() == -1) {
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

/*
 * The pid file, as Samba keeps it: `pid directory`/smbd.pid, written in
 * the foreground too, write-locked (fcntl) for the life of the process
 * and removed at exit.  A pid file another live smbd holds means it is
 * already running: said on the terminal, and smbd stops.
 */
struct smbd_pidfile {
	char *path;
	int fd;
};

/* The pid of the process holding path's lock, 0 when none does. */
static pid_t pidfile_holder(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	pid_t pid = 0;

	if (fd >= 0) {
		if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) {
			pid = fl.l_pid;
		}
		close(fd);
	}
	return pid;
}

static char *pidfile_path(TALLOC_CTX *mem_ctx, const struct loadparm *lp)
{
	return talloc_asprintf(mem_ctx, "%s/smbd.pid", lp->g.pid_directory);
}

static void say_running(const char *path, pid_t pid)
{
	fprintf(stderr, "smbd: already running: process %ld holds %s\n",
		(long)pid, path);
	DBG_ERR("already running: process %ld holds %s\n", (long)pid, path);
}

/*
 * Takes the pid file; -1 when another process holds it.  A pid file
 * that cannot be written is logged and the server runs on, as before.
 */
static int pidfile_take(TALLOC_CTX *mem_ctx, const struct loadparm *lp,
			struct smbd_pidfile *pf)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char line[32];
	int fd, n;

	pf->fd = -1;
	pf->path = pidfile_path(mem_ctx, lp);
	if (pf->path == NULL) {
		return 0;
	}
	mkdir_p(lp->g.pid_directory);
	fd = open(pf->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		DBG_WARNING("cannot write pid file %s: %s\n", pf->path,
			    strerror(errno));
		TALLOC_FREE(pf->path);
		return 0;
	}
	if (fcntl(fd, F_SETLK, &fl) != 0) {
		pid_t holder = pidfile_holder(pf->path);

		close(fd);
		if (errno == EACCES || errno == EAGAIN) {
			say_running(pf->path, holder);
			TALLOC_FREE(pf->path);
			return -1;
		}
		TALLOC_FREE(pf->path);
		return 0;
	}
	n = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n) {
		DBG_WARNING("cannot write pid file %s: %s\n", pf->path,
			    strerror(errno));
	}
	pf->fd = fd;            /* the lock lives as long as the fd */
	return 0;
}

static void pidfile_release(struct smbd_pidfile *pf)
{
	if (pf->fd >= 0) {
		(void)unlink(pf->path);
		close(pf->fd);
		pf->fd = -1;
	}
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
	struct smbd_pidfile pf = { .fd = -1 };
	char *pidpath = NULL;
	pid_t holder = 0;
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
	server = smbd_server_new(top, &(struct smbd_cmdline) {
		.configfile = o.configfile, .debuglevel = o.debuglevel,
		.log_stderr = o.debug_stdout, .log_dir = o.log_dir,
		.options = o.options,
	});
	if (server == NULL) {
		fprintf(stderr, "smbd: cannot start: the configuration has "
			"errors (see above, or %s)\n", smbd_log_path(NULL));
		talloc_free(top);
		return 1;
	}
	/* before the fork, so that the terminal hears it */
	pidpath = pidfile_path(top, server->lp);
	holder = pidpath != NULL ? pidfile_holder(pidpath) : 0;
	if (holder != 0) {
		say_running(pidpath, holder);
		talloc_free(top);
		return 1;
	}
	if (!o.foreground) {
		/*
		 * A daemon's child is not the main process a service
		 * manager started, which drops its messages: send none
		 * (sd_notify.h).  Before any thread starts.
		 */
		(void)unsetenv("NOTIFY_SOCKET");
		ready_fd = daemonize(!o.no_process_group,
				     smbd_log_path(server));
		if (ready_fd == -1) {
			DBG_ERR("cannot daemonize: %s\n", strerror(errno));
			return 1;
		}
	}
	if (pidfile_take(top, server->lp, &pf) != 0 ||
	    smbd_server_start(server) != 0) {
		if (o.foreground) {
			fprintf(stderr, "smbd: cannot start: see %s\n",
				smbd_log_path(server));
		}
		pidfile_release(&pf);
		daemon_ready(ready_fd, false);
		talloc_free(top);
		return 1;
	}
	daemon_ready(ready_fd, true);
	/* systemd's Type=notify (docs/service.md): the listeners accept */
	sd_notify_state("READY=1\nSTATUS=ready");
	ret = smbd_server_run(server);
	sd_notify_state("STOPPING=1\nSTATUS=stopped");
	pidfile_release(&pf);
	talloc_free(top);
	return ret;
}
