/*
 * Listening sockets: 'interfaces' x 'smb ports', IPv4 and IPv6.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/server/server.h"
#include "source3/smbd/session/share_access.h"
#include "source3/smbd/server/listener.h"
#include "source3/smbd/server/conn.h"

#define SMBD_ACCEPT_BACKOFF_SECS 1

static int listener_destructor(struct smbd_listener *l)
{
	if (l->fd != -1) {
		close(l->fd);
	}
	DLIST_REMOVE_SIMPLE(l->server->listeners, l);
	return 0;
}

static void format_peer(const struct sockaddr_storage *ss, char *buf,
			size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;
		inet_ntop(AF_INET, &in->sin_addr, addr, sizeof(addr));
		port = ntohs(in->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)ss;
		inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof(addr));
		port = ntohs(in6->sin6_port);
	}
	snprintf(buf, len, "%s:%u", addr, port);
}

static void listener_resume(struct tevent_context *ev,
			    struct tevent_timer *te, struct timeval now,
			    void *private_data)
{
	struct smbd_listener *l = private_data;

	l->backoff = NULL;
	tevent_fd_set_flags(l->fde, TEVENT_FD_READ);
}

/*
 * Out of descriptors or memory: the listening socket stays readable, so
 * stop watching it for a second instead of spinning (and log once).
 */
static void listener_backoff(struct smbd_listener *l, int err)
{
	if (l->backoff != NULL) {
		return;
	}
	DBG_WARNING("accept: %s; not accepting for %d s\n", strerror(err),
		    SMBD_ACCEPT_BACKOFF_SECS);
	tevent_fd_set_flags(l->fde, 0);
	l->backoff = tevent_add_timer(l->server->ev, l,
				      tevent_timeval_current_ofs(
					      SMBD_ACCEPT_BACKOFF_SECS, 0),
				      listener_resume, l);
	if (l->backoff == NULL) {
		tevent_fd_set_flags(l->fde, TEVENT_FD_READ);
	}
}

static void listener_accept(struct tevent_context *ev, struct tevent_fd *fde,
			    uint16_t flags, void *private_data)
{
	struct smbd_listener *l = private_data;
	struct smbd_server *server = l->server;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char peer[64];
	char addr[48];
	int one = 1;
	int fd;

	fd = accept4(l->fd, (struct sockaddr *)&ss, &sl,
		     SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd == -1) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			listener_backoff(l, errno);
		} else if (errno != EAGAIN && errno != EINTR) {
			DBG_INFO("accept: %s\n", strerror(errno));
		}
		return;
	}
	format_peer(&ss, peer, sizeof(peer));
	smbd_peer_addr(peer, addr, sizeof(addr));
	if (!smbd_host_allowed(server->lp, addr)) {
		DBG_NOTICE("%s: refused by hosts allow/deny\n", peer);
		close(fd);
		return;
	}
	if (server->lp->g.max_connections > 0 &&
	    server->num_conns >= (size_t)server->lp->g.max_connections) {
		DBG_NOTICE("%s: refused, 'max connections' (%d) reached\n",
			   peer, server->lp->g.max_connections);
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (smbd_conn_new(server, fd, peer) == NULL) {
		close(fd);
	}
}

static int listen_on(struct smbd_server *server, const struct sockaddr *sa,
		     socklen_t salen, const char *what)
{
	struct smbd_listener *l = talloc_zero(server, struct smbd_listener);
	int one = 1;

	if (l == NULL) {
		return -1;
	}
	l->server = server;
	l->fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC |
		       SOCK_NONBLOCK, 0);
	DLIST_ADD_SIMPLE(server->listeners, l);
	talloc_set_destructor(l, listener_destructor);
	if (l->fd == -1) {
		goto fail;
	}
	setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6) {
		setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			   sizeof(one));
	}
	if (bind(l->fd, sa, salen) != 0 || listen(l->fd, 128) != 0) {
		goto fail;
	}
	l->fde = tevent_add_fd(server->ev, l, l->fd, TEVENT_FD_READ,
			       listener_accept, l);
	if (l->fde == NULL) {
		goto fail;
	}
	DBG_NOTICE("listening on %s\n", what);
	return 0;
fail:
	DBG_ERR("cannot listen on %s: %s\n", what, strerror(errno));
	talloc_free(l);
	return -1;
}

static int listen_addr(struct smbd_server *server, const char *addr,
		       uint16_t port)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	char what[128];

	snprintf(what, sizeof(what), "%s port %u", addr, port);
	if (inet_pton(AF_INET, addr, &in.sin_addr) == 1) {
		in.sin_port = htons(port);
		return listen_on(server, (void *)&in, sizeof(in), what);
	}
	if (inet_pton(AF_INET6, addr, &in6.sin6_addr) == 1) {
		in6.sin6_port = htons(port);
		return listen_on(server, (void *)&in6, sizeof(in6), what);
	}
	return -2;      /* not an address */
}

/*
 * An interface name ("lo", "eth0", "eth*"): listen on each address of
 * each interface it matches.
 */
static int listen_ifname(struct smbd_server *server, const char *name,
			 uint16_t port)
{
	struct ifaddrs *ifs = NULL, *i = NULL;
	char addr[INET6_ADDRSTRLEN];
	int n = 0;

	if (getifaddrs(&ifs) != 0) {
		return -1;
	}
	for (i = ifs; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL ||
		    fnmatch(name, i->ifa_name, 0) != 0) {
			continue;
		}
		if (i->ifa_addr->sa_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)
					     (void *)i->ifa_addr)->sin_addr,
				  addr, sizeof(addr));
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)
					      (void *)i->ifa_addr)->sin6_addr,
				  addr, sizeof(addr));
		} else {
			continue;
		}
		if (listen_addr(server, addr, port) == 0) {
			n++;
		}
	}
	freeifaddrs(ifs);
	return n > 0 ? 0 : -1;
}

/*
 * One "interfaces" entry (param.h: lp_iface_parse; testparm has reported
 * what does not parse): "10.0.0.1/24" listens on the address, a name on
 * its interfaces' addresses; the ";key=value" part is for
 * FSCTL_QUERY_NETWORK_INTERFACE_INFO.
 */
static int listen_interface(struct smbd_server *server, const char *entry,
			    uint16_t port)
{
	struct lp_iface iface;
	bool fatal = false;
	char *problem = lp_iface_parse(server, entry, &iface, &fatal);

	TALLOC_FREE(problem);
	if (fatal) {
		DBG_ERR("interfaces: cannot use \"%s\"\n", entry);
		return -1;
	}
	if (iface.is_addr) {
		return listen_addr(server, iface.what, port);
	}
	return listen_ifname(server, iface.what, port);
}

int smbd_listeners_open(struct smbd_server *server)
{
	const struct lp_global *g = &server->lp->g;
	size_t p;
	int ok = 0, failed = 0;

	for (p = 0; p < g->num_smb_ports; p++) {
		uint16_t port = g->smb_ports[p];
		if (g->bind_interfaces_only && g->interfaces != NULL &&
		    g->interfaces[0] != NULL) {
			const char **i;
			for (i = g->interfaces; *i != NULL; i++) {
				if (listen_interface(server, *i, port) == 0) {
					ok++;
				} else {
					failed++;
				}
			}
			continue;
		}
		if (listen_addr(server, "0.0.0.0", port) == 0) {
			ok++;
		}
		if (listen_addr(server, "::", port) == 0) {
			ok++;
		}
	}
	if (ok == 0) {
		DBG_ERR("no listening socket could be opened\n");
		return -1;
	}
	return 0;
}
