/*
 * Samba's standalone-server SIDs in memory (samsid.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/auth/samsid.h"

#define SAMSID_AUTH_NT		5
#define SAMSID_NT_NON_UNIQUE	21
#define SAMSID_DOMAIN_AUTHS	4       /* 21, x, y, z */

struct samsid_map {
	struct smb2_sid domain;
	struct samsid_user *by_uid;     /* sorted by uid */
	struct samsid_user *by_rid;     /* sorted by rid */
	size_t n;
};

static bool is_domain_sid(const struct smb2_sid *sid)
{
	return sid->authority == SAMSID_AUTH_NT &&
	       sid->num_auths == SAMSID_DOMAIN_AUTHS &&
	       sid->sub_auths[0] == SAMSID_NT_NON_UNIQUE;
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

bool samsid_is_domain(const struct smb2_sid *sid)
{
	return is_domain_sid(sid);
}

void samsid_domain_from_random(struct smb2_sid *out, const uint8_t rnd[12])
{
	*out = (struct smb2_sid) {
		.authority = SAMSID_AUTH_NT, .num_auths = SAMSID_DOMAIN_AUTHS,
		.sub_auths = { SAMSID_NT_NON_UNIQUE, get_le32(rnd),
			       get_le32(rnd + 4), get_le32(rnd + 8) },
	};
}

/* A decimal number of [*p, end) up to max; *p moves past it. */
static bool dec(const char **p, const char *end, uint64_t max, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	if (s == end || *s < '0' || *s > '9') {
		return false;
	}
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		n = n * 10 + (uint64_t)(*s - '0');
		if (n > max) {
			return false;
		}
	}
	*p = s;
	*v = n;
	return true;
}

bool samsid_sid_parse(const char *s, size_t len, struct smb2_sid *out)
{
	const char *p = s, *end = s + len;
	struct smb2_sid sid = {};
	uint64_t v = 0;

	if (len < 4 || memcmp(s, "S-1-", 4) != 0) {
		return false;
	}
	p += 4;
	if (!dec(&p, end, (UINT64_C(1) << 48) - 1, &v)) {
		return false;
	}
	sid.authority = v;
	while (p < end) {
		if (*p != '-' || sid.num_auths == SMB2_SID_MAX_SUBAUTH) {
			return false;
		}
		p++;
		if (!dec(&p, end, UINT32_MAX, &v)) {
			return false;
		}
		sid.sub_auths[sid.num_auths++] = (uint32_t)v;
	}
	*out = sid;
	return true;
}

void samsid_sid_format(const struct smb2_sid *sid,
		       char buf[SAMSID_SID_TEXT_MAX])
{
	size_t used = (size_t)snprintf(buf, SAMSID_SID_TEXT_MAX, "S-1-%llu",
				       (unsigned long long)sid->authority);
	uint8_t i;

	for (i = 0; i < sid->num_auths && i < SMB2_SID_MAX_SUBAUTH &&
	     used < SAMSID_SID_TEXT_MAX; i++) {
		used += (size_t)snprintf(buf + used,
					 SAMSID_SID_TEXT_MAX - used, "-%u",
					 sid->sub_auths[i]);
	}
}

/* ---- the SID file ---- */

struct sf_parse {
	struct samsid_file *f;
	const char *name;
	size_t cap_users, cap_diags;
	bool oom;
};

static void sf_diag(struct sf_parse *ps, unsigned line, const char *what)
{
	struct samsid_file *f = ps->f;
	char *d;

	if (f->num_diags == ps->cap_diags) {
		const char **n;

		ps->cap_diags = ps->cap_diags == 0 ? 8 : 2 * ps->cap_diags;
		n = talloc_realloc(f, f->diags, const char *, ps->cap_diags);
		if (n == NULL) {
			ps->oom = true;
			return;
		}
		f->diags = n;
	}
	d = talloc_asprintf(f, "%s:%u: %s; line ignored", ps->name, line,
			    what);
	if (d == NULL) {
		ps->oom = true;
		return;
	}
	f->diags[f->num_diags++] = d;
}

/* The next blank-separated word of [*p, end); *p moves past it. */
static bool sf_word(const char **p, const char *end, const char **w,
		    size_t *wlen)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t')) {
		s++;
	}
	*w = s;
	while (s < end && *s != ' ' && *s != '\t') {
		s++;
	}
	*wlen = (size_t)(s - *w);
	*p = s;
	return *wlen > 0;
}

static bool sf_name_ok(const char *w, size_t len)
{
	size_t i;

	if (len == 0 || len > SAMSID_MAX_NAME) {
		return false;
	}
	for (i = 0; i < len; i++) {
		if ((unsigned char)w[i] < 0x20 || w[i] == 0x7f) {
			return false;
		}
	}
	return true;
}

static void sf_user(struct sf_parse *ps, unsigned line, const char *w,
		    size_t wlen, const char *r, size_t rlen)
{
	struct samsid_file *f = ps->f;
	const char *p = r;
	uint64_t rid = 0;
	size_t i;

	if (!sf_name_ok(w, wlen)) {
		sf_diag(ps, line, "bad user name");
		return;
	}
	if (!dec(&p, r + rlen, UINT32_MAX, &rid) || p != r + rlen) {
		sf_diag(ps, line, "bad RID");
		return;
	}
	if (rid < SAMSID_RID_MIN) {
		sf_diag(ps, line, "a RID below 1000 is one of Samba's "
			"well-known accounts or groups");
		return;
	}
	for (i = 0; i < f->num_users; i++) {
		if (strlen(f->users[i].name) == wlen &&
		    memcmp(f->users[i].name, w, wlen) == 0) {
			sf_diag(ps, line, "user named twice");
			return;
		}
		if (f->users[i].rid == rid) {
			sf_diag(ps, line, "RID given twice");
			return;
		}
	}
	if (f->num_users == ps->cap_users) {
		struct samsid_file_user *n;

		ps->cap_users = ps->cap_users == 0 ? 16 : 2 * ps->cap_users;
		n = talloc_realloc(f, f->users, struct samsid_file_user,
				   ps->cap_users);
		if (n == NULL) {
			ps->oom = true;
			return;
		}
		f->users = n;
	}
	f->users[f->num_users].name = talloc_strndup(f, w, wlen);
	if (f->users[f->num_users].name == NULL) {
		ps->oom = true;
		return;
	}
	f->users[f->num_users++].rid = (uint32_t)rid;
}

static void sf_line(struct sf_parse *ps, unsigned line, const char *s,
		    size_t len)
{
	const char *p = s, *end = s + len, *kw, *a, *b, *c;
	size_t kwlen, alen, blen, clen;
	struct smb2_sid sid;

	if (len > 0 && s[len - 1] == '\r') {
		end--;
	}
	if (!sf_word(&p, end, &kw, &kwlen) || kw[0] == '#') {
		return;                 /* blank or a comment */
	}
	if (len > SAMSID_MAX_LINE || memchr(s, '\0', len) != NULL) {
		sf_diag(ps, line, "line too long or with a NUL byte");
		return;
	}
	if (!sf_word(&p, end, &a, &alen)) {
		sf_diag(ps, line, "missing value");
		return;
	}
	if (kwlen == 6 && memcmp(kw, "domain", 6) == 0) {
		if (sf_word(&p, end, &c, &clen)) {
			sf_diag(ps, line, "more than one value");
		} else if (!samsid_sid_parse(a, alen, &sid) ||
			   !is_domain_sid(&sid)) {
			sf_diag(ps, line, "not a domain SID S-1-5-21-x-y-z");
		} else if (ps->f->have_domain) {
			sf_diag(ps, line, "a second domain");
		} else {
			ps->f->have_domain = true;
			ps->f->domain = sid;
		}
		return;
	}
	if (kwlen == 4 && memcmp(kw, "user", 4) == 0) {
		if (!sf_word(&p, end, &b, &blen)) {
			sf_diag(ps, line, "missing RID");
		} else if (sf_word(&p, end, &c, &clen)) {
			sf_diag(ps, line, "more than two values");
		} else {
			sf_user(ps, line, a, alen, b, blen);
		}
		return;
	}
	sf_diag(ps, line, "unknown entry (domain or user)");
}

struct samsid_file *samsid_file_parse(TALLOC_CTX *mem_ctx, const char *name,
				      const char *buf, size_t len)
{
	struct sf_parse ps = { .name = name };
	size_t pos = 0;
	unsigned line = 0;

	ps.f = talloc_zero(mem_ctx, struct samsid_file);
	if (ps.f == NULL) {
		return NULL;
	}
	while (pos < len && !ps.oom) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl != NULL ? (size_t)(nl - (buf + pos)) :
			len - pos;

		sf_line(&ps, ++line, buf + pos, ll);
		pos += ll + 1;
	}
	if (ps.oom) {
		TALLOC_FREE(ps.f);
	}
	return ps.f;
}

char *samsid_file_format(TALLOC_CTX *mem_ctx, const struct smb2_sid *domain,
			 const struct samsid_file_user *users, size_t n)
{
	char sid[SAMSID_SID_TEXT_MAX];
	char *out;
	size_t i;

	samsid_sid_format(domain, sid);
	out = talloc_asprintf(mem_ctx,
			      "# ringsmb: the users' SIDs "
			      "(docs/accounts.md \"SIDs\")\n"
			      "domain %s\n", sid);
	for (i = 0; out != NULL && i < n; i++) {
		out = talloc_asprintf_append_buffer(out, "user %s %u\n",
						    users[i].name,
						    users[i].rid);
	}
	return out;
}

bool samsid_algorithmic_rid(uint32_t uid, uint32_t base, uint32_t *rid)
{
	uint64_t v = (uint64_t)uid * 2 + base;

	if (v > UINT32_MAX) {
		return false;
	}
	*rid = (uint32_t)v;
	return true;
}

static int cmp_uid(const void *a, const void *b)
{
	const struct samsid_user *x = a, *y = b;

	return (x->uid > y->uid) - (x->uid < y->uid);
}

static int cmp_rid(const void *a, const void *b)
{
	const struct samsid_user *x = a, *y = b;

	return (x->rid > y->rid) - (x->rid < y->rid);
}

/* an entry and its place in the caller's list, for "the first wins" */
struct samsid_slot {
	struct samsid_user u;
	size_t idx;
};

static int slot_idx(const struct samsid_slot *x, const struct samsid_slot *y)
{
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_slot_uid(const void *a, const void *b)
{
	int c = cmp_uid(a, b);

	return c != 0 ? c : slot_idx(a, b);
}

static int cmp_slot_rid(const void *a, const void *b)
{
	int c = cmp_rid(a, b);

	return c != 0 ? c : slot_idx(a, b);
}

/*
 * Keeps, of the slots sorted by cmp (then by place), the first of each
 * key; returns how many are left, in place.
 */
static size_t slots_unique(struct samsid_slot *slots, size_t n,
			   int (*cmp)(const void *, const void *),
			   int (*key)(const void *, const void *))
{
	size_t i, j = 0;

	qsort(slots, n, sizeof(*slots), cmp);
	for (i = 0; i < n; i++) {
		if (j == 0 || key(&slots[j - 1].u, &slots[i].u) != 0) {
			slots[j++] = slots[i];
		}
	}
	return j;
}

struct samsid_map *samsid_map_new(TALLOC_CTX *mem_ctx,
				  const struct smb2_sid *domain,
				  const struct samsid_user *users, size_t n)
{
	struct samsid_map *map;
	struct samsid_slot *slots;
	size_t i;

	if (!is_domain_sid(domain)) {
		return NULL;
	}
	map = talloc_zero(mem_ctx, struct samsid_map);
	slots = map != NULL ?
		talloc_array(map, struct samsid_slot, n > 0 ? n : 1) : NULL;
	if (slots == NULL) {
		talloc_free(map);
		return NULL;
	}
	map->domain = *domain;
	for (i = 0; i < n; i++) {
		slots[i] = (struct samsid_slot) { .u = users[i], .idx = i };
	}
	/* a uid given twice, then a RID given twice: the first given wins */
	n = slots_unique(slots, n, cmp_slot_uid, cmp_uid);
	n = slots_unique(slots, n, cmp_slot_rid, cmp_rid);
	map->by_rid = talloc_array(map, struct samsid_user, n > 0 ? n : 1);
	map->by_uid = talloc_array(map, struct samsid_user, n > 0 ? n : 1);
	if (map->by_rid == NULL || map->by_uid == NULL) {
		talloc_free(map);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		map->by_rid[i] = map->by_uid[i] = slots[i].u;
	}
	qsort(map->by_uid, n, sizeof(*map->by_uid), cmp_uid);
	map->n = n;
	talloc_free(slots);
	return map;
}

const struct smb2_sid *samsid_map_domain(const struct samsid_map *map)
{
	return map != NULL ? &map->domain : NULL;
}

size_t samsid_map_num_users(const struct samsid_map *map)
{
	return map != NULL ? map->n : 0;
}

bool samsid_map_compose(const struct samsid_map *map, uint32_t rid,
			struct smb2_sid *out)
{
	if (map == NULL || map->domain.num_auths >= SMB2_SID_MAX_SUBAUTH) {
		return false;
	}
	*out = map->domain;
	out->sub_auths[out->num_auths++] = rid;
	return true;
}

bool samsid_uid_to_sid(const struct samsid_map *map, uint32_t uid,
		       struct smb2_sid *out)
{
	struct samsid_user key = { .uid = uid };
	const struct samsid_user *u;

	if (map == NULL) {
		return false;
	}
	u = bsearch(&key, map->by_uid, map->n, sizeof(key), cmp_uid);
	return u != NULL && samsid_map_compose(map, u->rid, out);
}

bool samsid_sid_to_uid(const struct samsid_map *map,
		       const struct smb2_sid *sid, uint32_t *uid)
{
	struct samsid_user key = {};
	const struct samsid_user *u;
	size_t i;

	if (map == NULL || sid->num_auths != map->domain.num_auths + 1 ||
	    sid->authority != map->domain.authority) {
		return false;
	}
	for (i = 0; i < map->domain.num_auths; i++) {
		if (sid->sub_auths[i] != map->domain.sub_auths[i]) {
			return false;
		}
	}
	key.rid = sid->sub_auths[i];
	u = bsearch(&key, map->by_rid, map->n, sizeof(key), cmp_rid);
	if (u == NULL) {
		return false;
	}
	*uid = u->uid;
	return true;
}
