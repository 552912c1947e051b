/*
 * "interfaces" entries in Samba's syntax (param.h: struct lp_iface):
 * the address, mask or name an entry names, and the multichannel keys
 * (speed, capability, if_index, options) after a ';'.
 *
 * Pure: no lookups, no interface probing.  The listeners (server/
 * listener.c) and FSCTL_QUERY_NETWORK_INTERFACE_INFO (commands/
 * ioctl_network.c) match the parsed entries against the kernel's list.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include "lib/param/param.h"

static bool iface_number(const char *s, uint64_t max, uint64_t *out);

bool lp_parse_listen_addr(const char *v, struct sockaddr_storage *ss,
			  socklen_t *len)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(v, ':');
	char host[INET6_ADDRSTRLEN + 2];
	size_t hlen;
	uint64_t port = 0;

	if (colon == NULL || !iface_number(colon + 1, 65535, &port) ||
	    port == 0) {
		return false;
	}
	hlen = (size_t)(colon - v);
	if (hlen >= 2 && v[0] == '[' && v[hlen - 1] == ']') {
		v++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof(host)) {
		return false;
	}
	memcpy(host, v, hlen);
	host[hlen] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		*len = sizeof(*in);
		return true;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return true;
	}
	return false;
}

/* A decimal number, all of s, no sign; false otherwise. */
static bool iface_number(const char *s, uint64_t max, uint64_t *out)
{
	char *end = NULL;
	unsigned long long v;

	if (s[0] < '0' || s[0] > '9') {
		return false;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max) {
		return false;
	}
	*out = v;
	return true;
}

/* "24" or "255.255.255.0" (IPv4 only) to a prefix length. */
static bool iface_mask(const char *s, int family, int *prefix)
{
	uint64_t n = 0;
	struct in_addr m;
	uint32_t bits;

	if (iface_number(s, family == AF_INET ? 32 : 128, &n)) {
		*prefix = (int)n;
		return true;
	}
	if (family != AF_INET || inet_pton(AF_INET, s, &m) != 1) {
		return false;
	}
	bits = ntohl(m.s_addr);
	*prefix = 0;
	while (bits & 0x80000000U) {
		(*prefix)++;
		bits <<= 1;
	}
	return bits == 0;       /* contiguous ones, then zeros */
}

/* One key=value; NULL or what is wrong with it. */
static char *iface_key(TALLOC_CTX *mem_ctx, char *kv, struct lp_iface *out)
{
	char *val = strchr(kv, '=');
	uint64_t n = 0;

	if (val == NULL) {
		return talloc_asprintf(mem_ctx, "\"%s\" is not key=value",
				       kv);
	}
	*val++ = '\0';
	if (strcasecmp(kv, "speed") == 0) {
		if (!iface_number(val, UINT64_MAX, &n) || n == 0) {
			return talloc_asprintf(mem_ctx, "speed \"%s\" is not a "
					       "number of bits per second",
					       val);
		}
		out->speed = n;
	} else if (strcasecmp(kv, "capability") == 0) {
		if (strcasecmp(val, "RSS") == 0) {
			out->caps |= LP_IFACE_CAP_RSS;
		} else if (strcasecmp(val, "RDMA") == 0) {
			return talloc_strdup(mem_ctx, "capability=RDMA: ringsmb "
					     "has no SMB Direct, it is not "
					     "advertised");
		} else {
			return talloc_asprintf(mem_ctx, "capability \"%s\" is "
					       "neither RSS nor RDMA", val);
		}
		out->caps_set = true;
	} else if (strcasecmp(kv, "if_index") == 0) {
		if (!iface_number(val, UINT32_MAX, &n) || n == 0) {
			return talloc_asprintf(mem_ctx, "if_index \"%s\" is not "
					       "a number from 1", val);
		}
		out->if_index = (uint32_t)n;
	} else if (strcasecmp(kv, "options") == 0) {
		if (strcasecmp(val, "dynamic") == 0) {
			return talloc_strdup(mem_ctx, "options=dynamic: ringsmb "
					     "opens its listeners at start "
					     "only");
		}
		if (strcasecmp(val, "nodynamic") != 0) {
			return talloc_asprintf(mem_ctx, "options \"%s\" is "
					       "neither dynamic nor nodynamic",
					       val);
		}
	} else {
		return talloc_asprintf(mem_ctx, "unknown key \"%s\" (known: "
				       "speed, capability, if_index, options)",
				       kv);
	}
	return NULL;
}

static char *iface_what(TALLOC_CTX *mem_ctx, char *what,
			struct lp_iface *out)
{
	char *slash = strchr(what, '/');

	out->prefix = -1;
	if (slash != NULL) {
		*slash++ = '\0';
	}
	if (what[0] == '\0' || strlen(what) >= sizeof(out->what)) {
		return talloc_asprintf(mem_ctx, "\"%s\" is not an address or "
				       "interface name", what);
	}
	strcpy(out->what, what);
	if (inet_pton(AF_INET, what, out->addr) == 1) {
		out->family = AF_INET;
	} else if (inet_pton(AF_INET6, what, out->addr) == 1) {
		out->family = AF_INET6;
	}
	out->is_addr = out->family != 0;
	if (slash != NULL &&
	    (!out->is_addr || !iface_mask(slash, out->family, &out->prefix))) {
		return talloc_asprintf(mem_ctx, "the mask \"%s\" needs an IP "
				       "address before it and is a prefix "
				       "length or a netmask", slash);
	}
	if (!out->is_addr && strpbrk(what, ":;=") != NULL) {
		return talloc_asprintf(mem_ctx, "\"%s\" is not an address or "
				       "interface name", what);
	}
	return NULL;
}

char *lp_iface_parse(TALLOC_CTX *mem_ctx, const char *entry,
		     struct lp_iface *out, bool *fatal)
{
	char *copy = talloc_strdup(mem_ctx, entry);
	char *keys = NULL, *kv = NULL, *save = NULL, *err = NULL;

	*out = (struct lp_iface) { .prefix = -1 };
	*fatal = true;
	if (copy == NULL) {
		return talloc_strdup(mem_ctx, "out of memory");
	}
	keys = strchr(copy, ';');
	if (keys != NULL) {
		*keys++ = '\0';
	}
	err = iface_what(mem_ctx, copy, out);
	if (err != NULL) {
		talloc_free(copy);
		return err;
	}
	*fatal = false;
	/* a refused key is reported (the first one), the others still apply */
	for (kv = keys == NULL ? NULL : strtok_r(keys, ",", &save);
	     kv != NULL; kv = strtok_r(NULL, ",", &save)) {
		char *e = iface_key(mem_ctx, kv, out);

		if (err == NULL) {
			err = e;
		} else {
			talloc_free(e);
		}
	}
	talloc_free(copy);
	return err;
}

bool lp_iface_match_addr(const struct lp_iface *e, int family,
			 const uint8_t *addr)
{
	int len = family == AF_INET ? 4 : 16;
	int bits = e->prefix < 0 ? len * 8 : e->prefix;
	int i;

	if (!e->is_addr || e->family != family) {
		return false;
	}
	for (i = 0; i < len && bits > 0; i++, bits -= 8) {
		uint8_t m = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));

		if ((e->addr[i] & m) != (addr[i] & m)) {
			return false;
		}
	}
	return true;
}
