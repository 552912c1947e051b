/*
 * FSCTL_QUERY_NETWORK_INTERFACE_INFO (MS-SMB2 3.3.5.15.11), what a
 * multichannel client asks first: the interfaces the server listens on.
 * A listener bound to an address gives that address's interface; one
 * bound to the wildcard address gives every interface of its family
 * that is up.  When "interfaces" is set, as in Samba only the interfaces
 * an entry names are given, with what the entry's keys say (Samba's
 * "10.0.0.1;speed=25000000000,capability=RSS,if_index=7", param.h:
 * struct lp_iface).  TCP only: never RDMA.  The port is 0, as Samba
 * sends it (clients connect to the port they already use).
 */
#include <arpa/inet.h>
#include <fnmatch.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/commands/ioctl.h"
#include "lib/param/param.h"

#define NET_IFACE_MAX		64
/* Without a speed in sysfs (loopback, virtual links): 1 Gbit/s */
#define NET_IFACE_DEFAULT_SPEED	1000000000ULL

struct iface_list {
	struct smb2_net_iface e[NET_IFACE_MAX];
	size_t n;
};

static uint64_t link_speed(const char *name)
{
	char path[64 + IF_NAMESIZE];
	long long mbit = -1;
	FILE *f = NULL;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", name);
	f = fopen(path, "re");
	if (f == NULL) {
		return NET_IFACE_DEFAULT_SPEED;
	}
	if (fscanf(f, "%lld", &mbit) != 1 || mbit <= 0) {
		mbit = -1;
	}
	fclose(f);
	return mbit > 0 ? (uint64_t)mbit * 1000000 : NET_IFACE_DEFAULT_SPEED;
}

/* The address of a sockaddr and its length (0: not IP). */
static const void *sa_addr(const struct sockaddr *sa, size_t *len)
{
	if (sa->sa_family == AF_INET) {
		*len = 4;
		return &((const struct sockaddr_in *)sa)->sin_addr;
	}
	if (sa->sa_family == AF_INET6) {
		*len = 16;
		return &((const struct sockaddr_in6 *)sa)->sin6_addr;
	}
	*len = 0;
	return NULL;
}

/*
 * The "interfaces" entry that names this interface address (the first
 * one, as Samba), parsed into *out; false: none does.  No "interfaces":
 * every interface counts, with nothing configured.
 */
static bool iface_configured(const char *const *entries,
			     const struct ifaddrs *ifa, struct lp_iface *out)
{
	size_t len = 0;
	const void *a = sa_addr(ifa->ifa_addr, &len);
	TALLOC_CTX *tmp = NULL;
	bool found = false;

	*out = (struct lp_iface) { .prefix = -1 };
	if (entries == NULL || entries[0] == NULL) {
		return true;
	}
	tmp = talloc_new(NULL);
	for (; *entries != NULL && !found; entries++) {
		bool fatal = false;

		talloc_free(lp_iface_parse(tmp, *entries, out, &fatal));
		if (fatal) {
			continue;
		}
		found = out->is_addr ?
			lp_iface_match_addr(out, ifa->ifa_addr->sa_family, a) :
			fnmatch(out->what, ifa->ifa_name, 0) == 0;
	}
	talloc_free(tmp);
	return found;
}

static void iface_add(struct iface_list *l, const struct ifaddrs *ifa,
		      const char *const *entries)
{
	struct smb2_net_iface e = {};
	struct lp_iface conf;
	size_t len = 0;
	const void *a = sa_addr(ifa->ifa_addr, &len);
	size_t i;

	if (!iface_configured(entries, ifa, &conf)) {
		return;
	}
	e.if_index = conf.if_index != 0 ? conf.if_index :
		     if_nametoindex(ifa->ifa_name);
	e.capability = (conf.caps & LP_IFACE_CAP_RSS) ? SMB2_NET_IFACE_RSS : 0;
	e.family = len == 4 ? SMB2_SOCKADDR_INET : SMB2_SOCKADDR_INET6;
	memcpy(e.addr, a, len);
	if (len == 16) {
		e.scope_id = ((const struct sockaddr_in6 *)ifa->ifa_addr)
			->sin6_scope_id;
	}
	for (i = 0; i < l->n; i++) {
		if (l->e[i].if_index == e.if_index &&
		    l->e[i].family == e.family &&
		    memcmp(l->e[i].addr, e.addr, 16) == 0) {
			return;		/* two listeners, one address */
		}
	}
	if (l->n < NET_IFACE_MAX && e.if_index != 0) {
		e.link_speed = conf.speed != 0 ? conf.speed :
			       link_speed(ifa->ifa_name);
		l->e[l->n++] = e;
	}
}

/* Interfaces matching one listening socket address. */
static void iface_match(struct iface_list *l, const struct ifaddrs *all,
			const struct sockaddr_storage *ss,
			const char *const *entries)
{
	const struct sockaddr *sa = (const struct sockaddr *)ss;
	size_t len = 0, ilen = 0;
	const void *want = sa_addr(sa, &len);
	static const uint8_t any[16];
	const struct ifaddrs *ifa = NULL;

	if (want == NULL) {
		return;
	}
	for (ifa = all; ifa != NULL; ifa = ifa->ifa_next) {
		const void *have = NULL;

		if (ifa->ifa_addr == NULL || !(ifa->ifa_flags & IFF_UP) ||
		    ifa->ifa_addr->sa_family != sa->sa_family) {
			continue;
		}
		have = sa_addr(ifa->ifa_addr, &ilen);
		if (memcmp(want, any, len) == 0 ||
		    memcmp(want, have, len) == 0) {
			iface_add(l, ifa, entries);
		}
	}
}

static void iface_collect(const struct smbd_server *server,
			  struct iface_list *l)
{
	const struct smbd_listener *li = NULL;
	struct ifaddrs *all = NULL;

	if (getifaddrs(&all) != 0) {
		return;
	}
	for (li = server->listeners; li != NULL; li = li->next) {
		struct sockaddr_storage ss = {};
		socklen_t slen = sizeof(ss);

		if (getsockname(li->fd, (struct sockaddr *)&ss, &slen) == 0) {
			iface_match(l, all, &ss,
				    (const char *const *)
				    server->lp->g.interfaces);
		}
	}
	freeifaddrs(all);
}

NTSTATUS smbd_fsctl_net_iface(struct smbd_ioctl *io)
{
	struct iface_list *l = NULL;
	uint8_t *out = NULL;
	NTSTATUS status = NT_STATUS_OK;

	l = talloc_zero(io->mem_ctx, struct iface_list);
	if (l == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	iface_collect(io->req->conn->server, l);
	if (l->n == 0) {
		status = NT_STATUS_NOT_SUPPORTED;
	} else if (io->max_out < l->n * SMB2_NET_IFACE_SIZE) {
		status = NT_STATUS_BUFFER_TOO_SMALL;
	} else if ((out = smbd_ioctl_output(io, l->n * SMB2_NET_IFACE_SIZE))
		   == NULL) {
		status = NT_STATUS_NO_MEMORY;
	} else {
		smb2_net_iface_push(l->e, l->n, out, io->out_len);
	}
	TALLOC_FREE(l);
	return status;
}
