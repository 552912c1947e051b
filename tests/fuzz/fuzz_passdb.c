/*
 * libFuzzer harness for the smbpasswd file parser (lib/auth/passdb_text.c).
 * Any input must parse without crashing or leaking, and the database must
 * survive a format and reparse: formatting is idempotent after one pass
 * (what smbpasswd writes is what smbd reads back), with the same users.
 * Lookups and edits run on whatever was parsed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/auth/passdb.h"

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_passdb: %s\n", what);
		abort();
	}
}

static struct passdb *reparse(TALLOC_CTX *ctx, const struct passdb *db,
			      char **text, size_t *len)
{
	struct passdb *again = NULL;

	check(passdb_format(db, ctx, text, len) == 0, "format failed");
	again = passdb_parse_buffer(ctx, "again", *text, *len);
	check(again != NULL, "reparse failed");
	return again;
}

static void check_round_trip(TALLOC_CTX *ctx, const struct passdb *db)
{
	struct passdb *db2 = NULL, *db3 = NULL;
	char *t1 = NULL, *t2 = NULL, *t3 = NULL;
	size_t l1 = 0, l2 = 0, l3 = 0;

	db2 = reparse(ctx, db, &t1, &l1);
	db3 = reparse(ctx, db2, &t2, &l2);
	check(passdb_format(db3, ctx, &t3, &l3) == 0, "format failed");
	check(passdb_num_users(db2) == passdb_num_users(db),
	      "user count changed on reparse");
	check(l2 == l3 && memcmp(t2, t3, l2) == 0,
	      "format not idempotent");
}

static void edit(struct passdb *db)
{
	static const uint8_t hash[16] = { 1, 2, 3 };
	struct auth_user_entry e = { 0 };
	size_t n = passdb_num_users(db);

	(void)passdb_lookup(db, "alice", &e);
	(void)passdb_lookup(db, "ALICE", &e);
	if (passdb_add(db, "fuzz", 1, hash) == 0) {
		check(passdb_num_users(db) == n + 1, "add did not count");
		check(NT_STATUS_IS_OK(passdb_lookup(db, "FUZZ", &e)),
		      "added user not found");
		check(passdb_set_disabled(db, "fuzz", true) == 0, "disable");
		check(passdb_delete(db, "fuzz") == 0, "delete");
		check(passdb_num_users(db) == n, "delete did not count");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct passdb *db = passdb_parse_buffer(ctx, "fuzz",
						(const char *)data, size);

	check(db != NULL, "parse failed");
	check_round_trip(ctx, db);
	edit(db);
	check_round_trip(ctx, db);
	talloc_free(ctx);
	return 0;
}
