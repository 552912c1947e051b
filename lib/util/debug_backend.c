/*
 * The syslog and systemd backends of `logging` (Samba's names).
 *
 * systemd: journald's native protocol, one datagram per line to
 * /run/systemd/journal/socket (the format of systemd's
 * journal-native-protocol document); no libsystemd.  Tests point it at
 * their own socket with RINGSMB_JOURNAL_SOCKET.  If journald is not
 * there, the lines go to standard error instead, saying so once.
 *
 * Everything here runs under debug_lock.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>
#include "lib/util/debug_private.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define IDENT "smbd"

static bool syslog_open;
static int journal_fd = -1;
static bool journal_failed;
static struct sockaddr_un journal_addr;

/* Samba's debug_level_to_priority */
int debug_syslog_priority(int level)
{
	static const int prio[] = {
		LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_INFO,
	};

	return level >= 0 && level < 5 ? prio[level] : LOG_DEBUG;
}

void debug_syslog_write(int level, const char *location, const char *msg)
{
	if (!syslog_open) {
		openlog(IDENT, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		syslog_open = true;
	}
	syslog(debug_syslog_priority(level), "%s: %s", location, msg);
}

struct jbuf {
	char *buf;
	size_t len;
	size_t n;               /* what it needs, may be > len */
};

static void jput(struct jbuf *b, const void *p, size_t len)
{
	if (b->n < b->len) {
		size_t room = b->len - b->n;

		memcpy(b->buf + b->n, p, len < room ? len : room);
	}
	b->n += len;
}

/* NAME=value\n, or NAME\n<le64 length>value\n if value has a newline */
static void jfield(struct jbuf *b, const char *name, const char *value,
		   size_t vlen)
{
	uint8_t le[8];
	uint64_t v = vlen;
	int i;

	jput(b, name, strlen(name));
	if (memchr(value, '\n', vlen) == NULL) {
		jput(b, "=", 1);
		jput(b, value, vlen);
		jput(b, "\n", 1);
		return;
	}
	for (i = 0; i < 8; i++) {
		le[i] = (uint8_t)(v >> (8 * i));
	}
	jput(b, "\n", 1);
	jput(b, le, sizeof(le));
	jput(b, value, vlen);
	jput(b, "\n", 1);
}

size_t debug_journal_format(char *buf, size_t len, int level,
			    const char *location, const char *msg)
{
	struct jbuf b = { .buf = buf, .len = len };
	const char *colon = strrchr(location, ':');
	size_t file_len = colon != NULL ? (size_t)(colon - location) :
		strlen(location);
	size_t msg_len = strlen(msg);
	char prio[4];

	/* the line's own newline is not part of the message */
	if (msg_len > 0 && msg[msg_len - 1] == '\n') {
		msg_len--;
	}
	snprintf(prio, sizeof(prio), "%d", debug_syslog_priority(level));
	jfield(&b, "MESSAGE", msg, msg_len);
	jfield(&b, "PRIORITY", prio, strlen(prio));
	jfield(&b, "SYSLOG_IDENTIFIER", IDENT, strlen(IDENT));
	jfield(&b, "CODE_FILE", location, file_len);
	if (colon != NULL) {
		jfield(&b, "CODE_LINE", colon + 1, strlen(colon + 1));
	}
	return b.n;
}

static bool journal_connect(void)
{
	const char *path = getenv("RINGSMB_JOURNAL_SOCKET");

	if (path == NULL || path[0] == '\0') {
		path = JOURNAL_SOCKET;
	}
	journal_addr.sun_family = AF_UNIX;
	snprintf(journal_addr.sun_path, sizeof(journal_addr.sun_path), "%s",
		 path);
	/* non-blocking: a stuck journald drops lines, never stalls us */
	journal_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    0);
	return journal_fd != -1;
}

static void journal_fall_back(int err)
{
	char buf[256];
	int n;

	journal_failed = true;
	n = snprintf(buf, sizeof(buf), "logging = systemd: cannot send to "
		     "%s: %s; logging to standard error\n",
		     journal_addr.sun_path, strerror(err));
	if (n > 0) {
		(void)!write(2, buf, (size_t)n < sizeof(buf) ? (size_t)n :
			     sizeof(buf) - 1);
	}
}

static void journal_stderr(int level, const char *location, const char *msg)
{
	char buf[1200];
	int n = snprintf(buf, sizeof(buf), "<%d>%s: %s%s",
			 debug_syslog_priority(level), location, msg,
			 msg[0] != '\0' && msg[strlen(msg) - 1] == '\n' ?
			 "" : "\n");

	if (n > 0) {
		(void)!write(2, buf, (size_t)n < sizeof(buf) ? (size_t)n :
			     sizeof(buf) - 1);
	}
}

void debug_journal_write(int level, const char *location, const char *msg)
{
	char buf[2048];
	size_t n;

	if (!journal_failed && journal_fd == -1 && !journal_connect()) {
		journal_fall_back(errno);
	}
	if (journal_failed) {
		journal_stderr(level, location, msg);
		return;
	}
	n = debug_journal_format(buf, sizeof(buf), level, location, msg);
	if (n > sizeof(buf)) {
		n = sizeof(buf);        /* cannot happen: lines are < 1 KiB */
	}
	if (sendto(journal_fd, buf, n, MSG_NOSIGNAL,
		   (struct sockaddr *)&journal_addr,
		   sizeof(journal_addr)) == -1 && errno != EAGAIN) {
		journal_fall_back(errno);
		journal_stderr(level, location, msg);
	}
}

/* on reconfiguration: journald may have come (or gone) */
void debug_backends_close(void)
{
	if (journal_fd != -1) {
		close(journal_fd);
		journal_fd = -1;
	}
	journal_failed = false;
	if (syslog_open) {
		closelog();
		syslog_open = false;
	}
}
