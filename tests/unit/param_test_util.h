/*
 * Helpers shared by the test_param_* programs (SHARED in
 * tests/unit/wscript links param_test_util.c into each): setup and
 * teardown with a leak check on the NULL context, and smb.conf text
 * loaded with its diagnostics.
 */
#ifndef RINGSMB_TESTS_UNIT_PARAM_TEST_UTIL_H
#define RINGSMB_TESTS_UNIT_PARAM_TEST_UTIL_H

#include "tests/unit/unit.h"
#include "lib/param/param.h"

/*
 * unit_setup/unit_teardown plus a check that nothing leaks on the NULL
 * context either (lib/param uses talloc_new(NULL) for temporaries); each
 * main() runs the tests with talloc_enable_null_tracking().
 */
int setup(void **state);
int teardown(void **state);

struct loaded {
	struct loadparm *lp;
	struct lp_diag *diags;
	int ret;
};

/* text loaded as the file "t.conf". */
struct loaded load(TALLOC_CTX *ctx, const char *text);
void unload(struct loaded *l);
size_t count_diags(const struct lp_diag *d);
/* The first diagnostic of severity sev containing text, or NULL. */
const struct lp_diag *find_diag(const struct lp_diag *d,
				enum lp_severity sev, const char *text);
/* The share named n; fails the test if there is none. */
const struct lp_share *share(const struct loaded *l, const char *n);

#endif
