/*
 * libFuzzer harness for the username map parser (lib/param/access.h).
 * Any input must parse without crashing or leaking; every problem must
 * name the file and a line; lookups run on whatever was parsed, with a
 * group callback that answers from the input, and a found unix name must
 * be one of the map's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/param/access.h"

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_usermap: %s\n", what);
		abort();
	}
}

/* members of a group: the names whose first letter is the group's */
static bool in_group(const char *user, const char *group, void *priv)
{
	(void)priv;
	return user[0] != '\0' && user[0] == group[0];
}

static void check_problems(char **problems)
{
	for (; problems != NULL && *problems != NULL; problems++) {
		check(strncmp(*problems, "fuzz.map:", 9) == 0,
		      "problem without the file name");
	}
}

static void lookups(const struct username_map *map)
{
	static const char *const names[] = {
		"alice", "ALICE", "root", "a b", "*", "@g", "", "guest",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *u = username_map_lookup(map, names[i], in_group,
						    NULL);

		check(u == NULL || u[0] != '\0', "empty unix name found");
		(void)username_map_lookup(map, names[i], NULL, NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct username_map *map = NULL;
	char **problems = NULL;
	int ret;

	ret = username_map_parse(ctx, "fuzz.map", (const char *)data, size,
				 &map, &problems);
	check(map != NULL, "parse failed");
	check((ret == 0) == (problems == NULL), "return code vs problems");
	check_problems(problems);
	lookups(map);
	talloc_free(ctx);
	return 0;
}
