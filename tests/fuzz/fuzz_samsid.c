/*
 * libFuzzer harness: the SID file (lib/auth/samsid.c) and SIDs as text.
 * The input is parsed as a SID file: every user found has a name of
 * 1-256 bytes without control characters and a RID of at least 1000,
 * no name or RID twice, and the file formatted from what was parsed
 * parses back to the same domain and users with no diagnostics.  The
 * input is also parsed as one SID: formatted, it reads back the same.
 * Its bytes, read as (uid, rid) pairs, build a map in which every user
 * maps back to the uid it came from.
 * Seed corpus: tests/fuzz/corpus/samsid/.
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

static void check_file(const char *text, size_t size)
{
	struct samsid_file *f = samsid_file_parse(NULL, "f", text, size);
	struct samsid_file *g;
	char *again;
	size_t i, j;

	if (f == NULL) {
		abort();
	}
	for (i = 0; i < f->num_users; i++) {
		size_t n = strlen(f->users[i].name);

		if (n == 0 || n > SAMSID_MAX_NAME ||
		    f->users[i].rid < SAMSID_RID_MIN) {
			abort();
		}
		for (j = 0; j < i; j++) {
			if (strcmp(f->users[i].name, f->users[j].name) == 0 ||
			    f->users[i].rid == f->users[j].rid) {
				abort();
			}
		}
	}
	if (f->have_domain) {
		again = samsid_file_format(f, &f->domain, f->users,
					   f->num_users);
		g = again != NULL ? samsid_file_parse(f, "g", again,
						      strlen(again)) : NULL;
		if (g == NULL || !g->have_domain || g->num_diags != 0 ||
		    !smb2_sid_equal(&g->domain, &f->domain) ||
		    g->num_users != f->num_users) {
			abort();
		}
		for (i = 0; i < g->num_users; i++) {
			if (strcmp(g->users[i].name, f->users[i].name) != 0 ||
			    g->users[i].rid != f->users[i].rid) {
				abort();
			}
		}
	}
	talloc_free(f);
}

static void check_sid(const char *text, size_t size)
{
	char buf[SAMSID_SID_TEXT_MAX];
	struct smb2_sid sid, back;

	if (samsid_sid_parse(text, size, &sid)) {
		samsid_sid_format(&sid, buf);
		if (!samsid_sid_parse(buf, strlen(buf), &back) ||
		    !smb2_sid_equal(&sid, &back)) {
			abort();
		}
	}
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
	check_file((const char *)data, size);
	check_sid((const char *)data, size);
	check_map(data, size);
	return 0;
}
