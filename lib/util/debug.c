/*
 * Logging with Samba-style levels to stderr or a log file.
 *
 * The level and log file are process-wide settings (like Samba's), set at
 * start-up and on SIGHUP from the event loop thread; they are the only
 * process state outside the server context.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/util/debug.h"

static int dbg_level = 1;
static int dbg_fd = 2;

void debug_setup(int level, const char *logfile)
{
	int fd = 2;

	dbg_level = level;
	if (logfile != NULL && logfile[0] != '\0') {
		fd = open(logfile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			  0644);
		if (fd == -1) {
			fprintf(stderr, "cannot open log file %s: %s\n",
				logfile, strerror(errno));
			fd = 2;
		}
	}
	if (dbg_fd != 2) {
		close(dbg_fd);
	}
	dbg_fd = fd;
}

int debug_level(void)
{
	return dbg_level;
}

void debug_msg(int level, const char *location, const char *fmt, ...)
{
	char buf[1024];
	struct timespec ts;
	struct tm tm;
	size_t n = 0;
	va_list ap;
	int r;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, sizeof(buf), "[%Y/%m/%d %H:%M:%S", &tm);
	r = snprintf(buf + n, sizeof(buf) - n, ".%06ld, %d] %s: ",
		     ts.tv_nsec / 1000, level, location);
	if (r > 0 && (size_t)r < sizeof(buf) - n) {
		n += (size_t)r;
	}
	va_start(ap, fmt);
	r = vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (r > 0) {
		n += (size_t)r < sizeof(buf) - n ? (size_t)r : sizeof(buf) - n - 1;
	}
	if (n > 0 && buf[n - 1] != '\n') {
		if (n == sizeof(buf)) {
			n--;
		}
		buf[n++] = '\n';
	}
	/* one write per line so concurrent writers do not interleave */
	(void)!write(dbg_fd, buf, n);
}
