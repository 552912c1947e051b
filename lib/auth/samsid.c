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
#define SAMSID_RID_PREFIX	"RID_"
#define SAMSID_RID_KEY_LEN	12      /* "RID_" + 8 hex digits */

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

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

bool samsid_dom_sid_parse(const uint8_t *buf, size_t len,
			  struct smb2_sid *out)
{
	struct smb2_sid sid = {};
	size_t i;

	if (buf == NULL || len != SAMSID_DOM_SID_SIZE || buf[0] != 1 ||
	    buf[1] > SMB2_SID_MAX_SUBAUTH) {
		return false;
	}
	sid.num_auths = buf[1];
	for (i = 0; i < 6; i++) {
		sid.authority = sid.authority << 8 | buf[2 + i];
	}
	for (i = 0; i < sid.num_auths; i++) {
		sid.sub_auths[i] = get_le32(buf + 8 + 4 * i);
	}
	if (!is_domain_sid(&sid)) {
		return false;
	}
	*out = sid;
	return true;
}

void samsid_dom_sid_push(const struct smb2_sid *sid,
			 uint8_t out[SAMSID_DOM_SID_SIZE])
{
	size_t i;

	memset(out, 0, SAMSID_DOM_SID_SIZE);
	out[0] = 1;
	out[1] = sid->num_auths;
	for (i = 0; i < 6; i++) {
		out[2 + i] = sid->authority >> (8 * (5 - i));
	}
	for (i = 0; i < sid->num_auths && i < SMB2_SID_MAX_SUBAUTH; i++) {
		put_le32(out + 8 + 4 * i, sid->sub_auths[i]);
	}
}

void samsid_domain_from_random(struct smb2_sid *out, const uint8_t rnd[12])
{
	*out = (struct smb2_sid) {
		.authority = SAMSID_AUTH_NT, .num_auths = SAMSID_DOMAIN_AUTHS,
		.sub_auths = { SAMSID_NT_NON_UNIQUE, get_le32(rnd),
			       get_le32(rnd + 4), get_le32(rnd + 8) },
	};
}

char *samsid_secrets_key(TALLOC_CTX *mem_ctx, const char *netbios_name)
{
	char *key = talloc_asprintf(mem_ctx, "SECRETS/SID/%s", netbios_name);
	char *p;

	for (p = key; p != NULL && *p != '\0'; p++) {
		if (*p >= 'a' && *p <= 'z') {
			*p -= 'a' - 'A';
		}
	}
	return key;
}

static int hex_digit(uint8_t c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	return -1;
}

bool samsid_rid_record(const uint8_t *key, size_t key_len,
		       const uint8_t *data, size_t data_len, uint32_t *rid,
		       const char **name)
{
	uint32_t v = 0;
	size_t i;

	if (key == NULL || data == NULL) {
		return false;
	}
	/* the key is stored with its NUL (Samba's dbwrap_*_bystring) */
	if (key_len == SAMSID_RID_KEY_LEN + 1 &&
	    key[SAMSID_RID_KEY_LEN] == '\0') {
		key_len--;
	}
	if (key_len != SAMSID_RID_KEY_LEN ||
	    memcmp(key, SAMSID_RID_PREFIX, strlen(SAMSID_RID_PREFIX)) != 0) {
		return false;
	}
	for (i = strlen(SAMSID_RID_PREFIX); i < key_len; i++) {
		int d = hex_digit(key[i]);

		if (d < 0) {
			return false;
		}
		v = v << 4 | (uint32_t)d;
	}
	/* a name of at least one byte, NUL-terminated, no NUL inside */
	if (data_len < 2 || data[data_len - 1] != '\0' ||
	    memchr(data, '\0', data_len - 1) != NULL) {
		return false;
	}
	*rid = v;
	*name = (const char *)data;
	return true;
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
