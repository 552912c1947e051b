/*
 * systemd's notification protocol without libsystemd: sd_notify.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "lib/util/sd_notify.h"

/*
 * $NOTIFY_SOCKET as an address.  A path is sent with its terminating
 * NUL; an abstract name ('@' first) is a NUL and the name, no
 * terminator: its length is part of the name.
 */
static int notify_address(const char *name, struct sockaddr_un *sun,
			  socklen_t *len)
{
	size_t n = strlen(name);

	if (name[0] != '/' && name[0] != '@') {
		return -EAFNOSUPPORT;   /* vsock:, or garbage */
	}
	if (n >= sizeof(sun->sun_path)) {
		return -ENAMETOOLONG;
	}
	*sun = (struct sockaddr_un){ .sun_family = AF_UNIX };
	memcpy(sun->sun_path, name, n);
	if (name[0] == '@') {
		sun->sun_path[0] = '\0';
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else {
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				   n + 1);
	}
	return 0;
}

int sd_notify_state(const char *state)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun;
	socklen_t len = 0;
	size_t n = strlen(state);
	ssize_t sent;
	int fd, ret;

	if (name == NULL || name[0] == '\0') {
		return 0;
	}
	ret = notify_address(name, &sun, &len);
	if (ret != 0) {
		return ret;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		return -errno;
	}
	sent = sendto(fd, state, n, MSG_NOSIGNAL, (struct sockaddr *)&sun,
		      len);
	ret = sent == -1 ? -errno : (sent == (ssize_t)n ? 0 : -EMSGSIZE);
	close(fd);
	return ret;
}

int sd_notify_reloading(void)
{
	struct timespec ts;
	char buf[64];

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
		return sd_notify_state("RELOADING=1");
	}
	snprintf(buf, sizeof(buf), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ULL +
		 (unsigned long long)ts.tv_nsec / 1000ULL);
	return sd_notify_state(buf);
}
