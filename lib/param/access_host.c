/*
 * hosts allow / hosts deny with Samba's semantics (access.h).  Entries are
 * matched against the numeric client address only: ringsmb does no name
 * lookups, so name entries match nothing (except "localhost").
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib/param/access.h"

struct host_addr {
	int family;             /* AF_INET or AF_INET6 */
	uint8_t b[16];          /* network order; 4 bytes used for IPv4 */
};

static const uint8_t v4_mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
};

static size_t addr_len(const struct host_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

/* "::ffff:a.b.c.d" is a.b.c.d (Samba bug 5311: IPv4 lists on v6 sockets) */
static void addr_unmap(struct host_addr *a)
{
	if (a->family == AF_INET6 &&
	    memcmp(a->b, v4_mapped_prefix, sizeof(v4_mapped_prefix)) == 0) {
		memmove(a->b, a->b + 12, 4);
		memset(a->b + 4, 0, 12);
		a->family = AF_INET;
	}
}

/* s, s_len: an address, maybe "[v6]" or "v6%zone"; no unmapping */
static bool addr_parse_n(const char *s, size_t s_len, struct host_addr *a)
{
	char buf[INET6_ADDRSTRLEN + 1];
	char *zone = NULL;

	if (s_len >= 2 && s[0] == '[' && s[s_len - 1] == ']') {
		s++;
		s_len -= 2;
	}
	if (s_len == 0 || s_len >= sizeof(buf)) {
		return false;
	}
	memcpy(buf, s, s_len);
	buf[s_len] = '\0';
	*a = (struct host_addr) { .family = AF_INET };
	if (inet_pton(AF_INET, buf, a->b) == 1) {
		return true;
	}
	zone = strchr(buf, '%');
	if (zone != NULL && zone != buf && strchr(buf, ':') != NULL) {
		*zone = '\0';
	}
	a->family = AF_INET6;
	return inet_pton(AF_INET6, buf, a->b) == 1;
}

static bool addr_parse(const char *s, struct host_addr *a)
{
	if (!addr_parse_n(s, strlen(s), a)) {
		return false;
	}
	addr_unmap(a);
	return true;
}

static bool addr_is_loopback(const struct host_addr *a)
{
	static const uint8_t v6_loopback[16] = { [15] = 1 };
	static const uint8_t v4_loopback[4] = { 127, 0, 0, 1 };

	if (a->family == AF_INET) {
		return memcmp(a->b, v4_loopback, 4) == 0;
	}
	return memcmp(a->b, v6_loopback, 16) == 0;
}

/* ---- the client, in the forms entries are compared with ---- */

struct host_client {
	const char *raw;                /* as the caller gave it */
	bool ok;                        /* addr parsed */
	struct host_addr addr;          /* unmapped */
	char text[INET6_ADDRSTRLEN];    /* addr, canonical text */
};

static void client_init(struct host_client *c, const char *raw)
{
	*c = (struct host_client) { .raw = raw != NULL ? raw : "" };
	c->ok = addr_parse(c->raw, &c->addr);
	if (!c->ok ||
	    inet_ntop(c->addr.family, c->addr.b, c->text,
		      sizeof(c->text)) == NULL) {
		c->ok = false;
		c->text[0] = '\0';
	}
}

/* ---- networks: "net/prefixlen", "net/mask" ---- */

struct host_net {
	struct host_addr net;
	uint8_t mask[16];
};

static bool all_digits(const char *s)
{
	if (*s == '\0') {
		return false;
	}
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s)) {
			return false;
		}
	}
	return true;
}

static void mask_from_prefix(uint8_t *mask, unsigned bits)
{
	unsigned i;

	memset(mask, 0, 16);
	for (i = 0; i < bits / 8; i++) {
		mask[i] = 0xff;
	}
	if (bits % 8 != 0) {
		mask[i] = (uint8_t)(0xff << (8 - bits % 8));
	}
}

/*
 * An IPv4-mapped network "::ffff:10.0.0.0/104" becomes 10.0.0.0/8, so it
 * matches the unmapped clients; with a prefix below 96 it stays IPv6.
 */
static bool net_parse_prefix(struct host_net *n, const char *bits_s)
{
	unsigned long bits;
	size_t max = addr_len(&n->net) * 8;

	if (strlen(bits_s) > 3) {
		return false;
	}
	bits = strtoul(bits_s, NULL, 10);
	if (bits > max) {
		return false;
	}
	if (n->net.family == AF_INET6 && bits >= 96 &&
	    memcmp(n->net.b, v4_mapped_prefix, 12) == 0) {
		addr_unmap(&n->net);
		bits -= 96;
	}
	mask_from_prefix(n->mask, (unsigned)bits);
	return true;
}

/* Returns NULL, or what is wrong with entry as a network. */
static const char *net_parse(const char *entry, const char *slash,
			     struct host_net *n)
{
	struct host_addr m;

	*n = (struct host_net) { .net.family = AF_INET };
	if (!addr_parse_n(entry, slash - entry, &n->net)) {
		return "the part before '/' is not an IP address";
	}
	if (all_digits(slash + 1)) {
		return net_parse_prefix(n, slash + 1) ? NULL :
			"the prefix length is larger than the address";
	}
	addr_unmap(&n->net);
	if (!addr_parse(slash + 1, &m) || m.family != n->net.family) {
		return "the part after '/' is neither a prefix length nor a "
			"netmask of the same address family";
	}
	memcpy(n->mask, m.b, 16);
	return NULL;
}

static bool net_match(const struct host_net *n, const struct host_addr *a)
{
	size_t i;

	if (a->family != n->net.family) {
		return false;
	}
	for (i = 0; i < addr_len(a); i++) {
		if ((a->b[i] & n->mask[i]) != (n->net.b[i] & n->mask[i])) {
			return false;
		}
	}
	return true;
}

/* ---- entries ---- */

static bool is_keyword_all(const char *entry)
{
	return strcasecmp(entry, "ALL") == 0 ||
		strcasecmp(entry, "FAIL") == 0;
}

static bool is_except(const char *entry)
{
	return strcasecmp(entry, "EXCEPT") == 0;
}

static bool has_wildcard(const char *entry)
{
	return strpbrk(entry, "*?") != NULL;
}

static size_t entry_len(const char *entry)
{
	return strlen(entry);
}

/* "150.203." : matches the addresses whose text starts with it */
static bool is_prefix(const char *entry)
{
	size_t len = entry_len(entry);

	return len > 0 && entry[len - 1] == '.' && entry[0] != '.';
}

static bool prefix_match(const char *entry, const struct host_client *c)
{
	size_t len = entry_len(entry);

	return (c->ok && strncasecmp(c->text, entry, len) == 0) ||
		strncasecmp(c->raw, entry, len) == 0;
}

static bool wild_match(const char *entry, const struct host_client *c)
{
	return (c->ok && access_wild_match(entry, c->text, false)) ||
		access_wild_match(entry, c->raw, false);
}

static bool client_entry_match(const char *entry,
			       const struct host_client *c)
{
	const char *slash = strchr(entry, '/');
	struct host_addr a;
	struct host_net n;

	if (is_keyword_all(entry)) {
		return true;
	}
	if (strcasecmp(entry, "localhost") == 0) {
		return c->ok && addr_is_loopback(&c->addr);
	}
	if (slash != NULL) {
		return c->ok && net_parse(entry, slash, &n) == NULL &&
			net_match(&n, &c->addr);
	}
	if (is_prefix(entry)) {
		return prefix_match(entry, c);
	}
	if (has_wildcard(entry)) {
		return wild_match(entry, c);
	}
	if (addr_parse(entry, &a)) {
		return c->ok && a.family == c->addr.family &&
			memcmp(a.b, c->addr.b, addr_len(&a)) == 0;
	}
	return false;           /* a name: we do no lookups */
}

bool access_host_entry_match(const char *entry, const char *addr)
{
	struct host_client c;

	client_init(&c, addr);
	return client_entry_match(entry, &c);
}

/* Samba's list_match: a match before the first EXCEPT, none after it */
static bool list_match(const char *const *list, const struct host_client *c)
{
	bool match = false;

	for (; list != NULL && *list != NULL && !is_except(*list); list++) {
		if (!match && client_entry_match(*list, c)) {
			match = true;
		}
	}
	if (!match || list == NULL || *list == NULL) {
		return match;
	}
	for (list++; *list != NULL; list++) {
		if (!is_except(*list) && client_entry_match(*list, c)) {
			return false;
		}
	}
	return true;
}

static bool list_empty(const char *const *list)
{
	return list == NULL || list[0] == NULL;
}

bool access_host_allowed(const char *const *allow, const char *const *deny,
			 const char *addr)
{
	struct host_client c;

	client_init(&c, addr);
	if (c.ok && addr_is_loopback(&c.addr)) {
		/* Samba: loopback only if denied and not also allowed */
		return !list_match(deny, &c) || list_match(allow, &c);
	}
	if (list_empty(allow) && list_empty(deny)) {
		return true;
	}
	if (list_empty(deny)) {
		return list_match(allow, &c);
	}
	if (list_empty(allow)) {
		return !list_match(deny, &c);
	}
	if (list_match(allow, &c)) {
		return true;
	}
	return !list_match(deny, &c);
}

/* ---- configuration checking ---- */

static bool host_name_chars(const char *s)
{
	if (*s == '\0') {
		return false;
	}
	for (; *s != '\0'; s++) {
		if (!isalnum((unsigned char)*s) && strchr("-._", *s) == NULL) {
			return false;
		}
	}
	return true;
}

static bool digits_and_dots(const char *s)
{
	return s[0] != '\0' && strspn(s, "0123456789.") == strlen(s);
}

/* "150.203." : 1 to 3 numbers 0..255, each followed by a dot */
static bool prefix_valid(const char *entry)
{
	const char *p = entry;
	int parts = 0;

	while (*p != '\0') {
		size_t n = strspn(p, "0123456789");

		if (n == 0 || n > 3 || p[n] != '.' || atoi(p) > 255) {
			return false;
		}
		p += n + 1;
		parts++;
	}
	return parts >= 1 && parts <= 3;
}

static const char *entry_problem(const char *entry)
{
	const char *slash = strchr(entry, '/');
	struct host_addr a;
	struct host_net n;

	if (slash != NULL) {
		return net_parse(entry, slash, &n);
	}
	if (is_keyword_all(entry) || is_except(entry) || has_wildcard(entry) ||
	    addr_parse(entry, &a)) {
		return NULL;
	}
	if (digits_and_dots(entry)) {
		if (is_prefix(entry)) {
			return prefix_valid(entry) ? NULL :
				"not a valid address prefix like 150.203.";
		}
		return "not a valid IPv4 address";
	}
	if (strchr(entry, ':') != NULL) {
		return "not a valid IPv6 address";
	}
	if (!host_name_chars(entry + (entry[0] == '@' || entry[0] == '.'))) {
		return "not an address, network or host name";
	}
	return NULL;
}

char *access_host_entry_problem(TALLOC_CTX *mem_ctx, const char *entry)
{
	const char *why = entry_problem(entry);

	if (why == NULL) {
		return NULL;
	}
	return talloc_asprintf(mem_ctx, "\"%s\": %s", entry, why);
}

/* Address wildcards hold only what addresses are made of. */
static bool wildcard_is_address(const char *entry)
{
	return strspn(entry, "0123456789abcdefABCDEF.:*?[]") == strlen(entry);
}

bool access_host_entry_needs_name(const char *entry)
{
	struct host_addr a;

	if (is_keyword_all(entry) || is_except(entry) ||
	    strcasecmp(entry, "localhost") == 0 ||
	    strchr(entry, '/') != NULL || addr_parse(entry, &a)) {
		return false;
	}
	if (has_wildcard(entry)) {
		return !wildcard_is_address(entry);
	}
	return !(is_prefix(entry) && digits_and_dots(entry));
}
