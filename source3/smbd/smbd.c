/*
 * smbd: the ringsmb daemon.  Command line as Samba's smbd.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/server.h"

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
		"  -F, --foreground        do not daemonize\n"
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

static int daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid == -1) {
		return -1;
	}
	if (pid > 0) {
		_exit(0);
	}
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
	return 0;
}

static void write_pidfile(TALLOC_CTX *mem_ctx, const struct loadparm *lp)
{
	const char *dir = lp->g.pid_directory;
	char *path = talloc_asprintf(mem_ctx, "%s/smbd.pid", dir);
	FILE *f = NULL;

	if (path == NULL) {
		return;
	}
	(void)mkdir(dir, 0755);
	f = fopen(path, "w");
	if (f == NULL) {
		DBG_WARNING("cannot write pid file %s: %s\n", path,
			    strerror(errno));
		return;
	}
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
}

int main(int argc, char **argv)
{
	struct smbd_options o = { .debuglevel = -1 };
	TALLOC_CTX *top = talloc_new(NULL);
	struct smbd_server *server = NULL;
	int ret;

	if (parse_args(argc, argv, &o) != 0) {
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	server = smbd_server_new(top, o.configfile, o.debuglevel,
				 o.debug_stdout || o.foreground);
	if (server == NULL) {
		talloc_free(top);
		return 1;
	}
	if (!o.foreground && daemonize() != 0) {
		DBG_ERR("cannot daemonize: %s\n", strerror(errno));
		return 1;
	}
	if (!o.foreground) {
		write_pidfile(top, server->lp);
	}
	ret = smbd_server_run(server);
	talloc_free(top);
	return ret;
}
