/*
 * libFuzzer harness: what ringsmb takes from Samba's secrets.tdb and
 * passdb.tdb (lib/auth/samsid.c).  The input is split at its first NUL
 * into a tdb key and its value, which go to samsid_rid_record and, the
 * value alone, to samsid_dom_sid_parse; the whole input, read as (uid,
 * rid) pairs, builds a map.  Checked: a parsed domain SID pushes back
 * to the same bytes; a record's name lies inside the value; every user
 * of the map maps back to the uid it came from, and no SID to two uids.
 * Seed corpus: tests/fuzz/corpus/samsid/ (Samba 4.17's records).
 */
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "lib/auth/samsid.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void check_map(const uint8_t *data, size_t size)
{
	static const struct smb2_sid dom = {
		.authority = 5, .num_auths = 4,
		.sub_auths = { 21, 1, 2, 3 },
	};
	size_t n = size / 8, i;
	struct samsid_user *u = calloc(n > 0 ? n : 1, sizeof(*u));
	struct samsid_map *map;

	if (u == NULL) {
		return;
	}
	for (i = 0; i < n; i++) {
		u[i] = (struct samsid_user) { .uid = le32(data + 8 * i),
					      .rid = le32(data + 8 * i + 4) };
	}
	map = samsid_map_new(NULL, &dom, u, n);
	if (map == NULL) {
		abort();
	}
	for (i = 0; i < n; i++) {
		struct smb2_sid sid;
		uint32_t uid = 0;

		if (samsid_uid_to_sid(map, u[i].uid, &sid) &&
		    (!samsid_sid_to_uid(map, &sid, &uid) ||
		     uid != u[i].uid)) {
			abort();
		}
	}
	talloc_free(map);
	free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t klen = nul != NULL ? (size_t)(nul - data) + 1 : size;
	const uint8_t *val = data + klen;
	size_t vlen = size - klen;
	uint8_t back[SAMSID_DOM_SID_SIZE];
	struct smb2_sid sid;
	const char *name = NULL;
	uint32_t rid = 0;

	if (samsid_rid_record(data, klen, val, vlen, &rid, &name) &&
	    (name != (const char *)val ||
	     strlen(name) + 1 != vlen)) {
		abort();
	}
	if (samsid_dom_sid_parse(data, size, &sid)) {
		samsid_dom_sid_push(&sid, back);
		/* only the bytes the SID uses; Samba leaves the rest 0 */
		if (memcmp(back, data, 8 + 4 * (size_t)sid.num_auths) != 0) {
			abort();
		}
	}
	check_map(data, size);
	return 0;
}
