/*
 * Talking to smbd's control socket (ctl_client.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib/param/param.h"
#include "source3/smbd/server/control.h"
#include "source3/utils/ctl_client.h"

/* An answer larger than this is not one smbd would send. */
#define CTL_MAX_ANSWER (256u << 20)
#define CTL_TIMEOUT_MS 30000

static struct loadparm *load(TALLOC_CTX *mem_ctx, const char *prog,
			     const char *configfile)
{
	const char *file = configfile != NULL ? configfile :
		lp_default_config_file();
	struct loadparm *lp = NULL;
	struct lp_diag *d = NULL;

	if (configfile == NULL && access(file, F_OK) != 0) {
		return lp_load_default(mem_ctx);
	}
	if (lp_load_file(mem_ctx, file, &lp, &d) != 0) {
		for (; d != NULL; d = d->next) {
			fprintf(stderr, "%s: %s\n", prog, d->message);
		}
		fprintf(stderr, "%s: cannot load %s\n", prog, file);
		return NULL;
	}
	return lp;
}

static int connect_to(const char *prog, const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "%s: socket path too long: %s\n", prog, path);
		return -1;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		int err = errno;

		fprintf(stderr, "%s: cannot reach smbd at %s: %s%s\n", prog,
			path, strerror(err),
			err == ENOENT || err == ECONNREFUSED ?
			" (is smbd running?)" : err == EACCES ?
			" (only root may ask)" : "");
		if (fd >= 0) {
			close(fd);
		}
		return -1;
	}
	return fd;
}

/*
 * The request line; without SIGPIPE: smbd closes at once on a caller
 * it does not answer.
 */
static int send_line(const char *prog, int fd, const char *line)
{
	char *buf = talloc_asprintf(NULL, "%s\n", line);
	size_t len, off = 0;
	ssize_t n;

	if (buf == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	len = strlen(buf);
	while (off < len) {
		n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			fprintf(stderr, "%s: smbd closed the connection%s: "
				"%s\n", prog, errno == EPIPE ||
				errno == ECONNRESET ?
				" (it answers root only)" : "",
				strerror(errno));
			talloc_free(buf);
			return -1;
		}
		off += (size_t)n;
	}
	talloc_free(buf);
	return 0;
}

/* Everything smbd sends until it closes; NULL on errors (said). */
static char *read_all(TALLOC_CTX *mem_ctx, const char *prog, int fd,
		      size_t *len)
{
	size_t have = 0, size = 65536;
	char *buf = talloc_array(mem_ctx, char, size);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	while (buf != NULL) {
		if (have + 1 == size) {
			size *= 2;
			buf = size <= CTL_MAX_ANSWER ?
				talloc_realloc(mem_ctx, buf, char, size) :
				NULL;
			continue;
		}
		if (poll(&p, 1, CTL_TIMEOUT_MS) != 1) {
			fprintf(stderr, "%s: smbd did not answer\n", prog);
			return NULL;
		}
		n = read(fd, buf + have, size - 1 - have);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && errno == ECONNRESET) {
			n = 0;          /* refused before it read the request */
		}
		if (n < 0) {
			fprintf(stderr, "%s: read: %s\n", prog,
				strerror(errno));
			return NULL;
		}
		if (n == 0) {
			buf[have] = '\0';
			*len = have;
			return buf;
		}
		have += (size_t)n;
	}
	fprintf(stderr, "%s: answer too large or out of memory\n", prog);
	return NULL;
}

int ctl_request(TALLOC_CTX *mem_ctx, const char *prog, const char *configfile,
		const char *line, struct kvrec **recs, size_t *num)
{
	const char *path = NULL;
	struct loadparm *lp = load(mem_ctx, prog, configfile);
	char *answer = NULL, *nl = NULL, *err = NULL;
	size_t len = 0;
	int fd;

	if (lp == NULL) {
		return 1;
	}
	path = talloc_asprintf(mem_ctx, "%s/%s", lp->g.lock_directory,
			       SMBD_CONTROL_SOCKET);
	fd = path != NULL ? connect_to(prog, path) : -1;
	if (fd < 0) {
		return 1;
	}
	if (send_line(prog, fd, line) != 0) {
		close(fd);
		return 1;
	}
	answer = read_all(mem_ctx, prog, fd, &len);
	close(fd);
	if (answer == NULL) {
		return 1;
	}
	nl = memchr(answer, '\n', len);
	if (nl == NULL) {
		fprintf(stderr, "%s: smbd closed the connection without an "
			"answer (it answers root only)\n", prog);
		return 1;
	}
	*nl = '\0';
	if (strncmp(answer, "error ", 6) == 0) {
		fprintf(stderr, "%s: smbd: %s\n", prog, answer + 6);
		return 1;
	}
	if (strcmp(answer, "ok") != 0) {
		fprintf(stderr, "%s: unexpected answer \"%s\"\n", prog, answer);
		return 1;
	}
	if (kvrec_parse(mem_ctx, nl + 1, len - (size_t)(nl + 1 - answer), recs,
			num, &err) != 0) {
		fprintf(stderr, "%s: smbd's answer: %s\n", prog, err);
		return 1;
	}
	return 0;
}
