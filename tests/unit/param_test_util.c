/*
 * Helpers shared by the test_param_* programs (tests/unit/wscript).
 */
#include <string.h>
#include "tests/unit/param_test_util.h"

static size_t null_blocks;

int setup(void **state)
{
	null_blocks = talloc_total_blocks(NULL);
	return unit_setup(state);
}

int teardown(void **state)
{
	int ret = unit_teardown(state);

	if (talloc_total_blocks(NULL) != null_blocks) {
		print_error("talloc leak on the NULL context: %zu blocks\n",
			    talloc_total_blocks(NULL) - null_blocks);
		return -1;
	}
	return ret;
}

struct loaded load(TALLOC_CTX *ctx, const char *text)
{
	struct loaded l = { NULL, NULL, 0 };

	l.ret = lp_load_buffer(ctx, "t.conf", text, strlen(text), &l.lp,
			       &l.diags);
	assert_non_null(l.lp);
	return l;
}

void unload(struct loaded *l)
{
	TALLOC_FREE(l->lp);
	TALLOC_FREE(l->diags);
}

size_t count_diags(const struct lp_diag *d)
{
	size_t n = 0;

	for (; d != NULL; d = d->next) {
		n++;
	}
	return n;
}

const struct lp_diag *find_diag(const struct lp_diag *d,
				enum lp_severity sev, const char *text)
{
	for (; d != NULL; d = d->next) {
		if (d->severity == sev && strstr(d->message, text) != NULL) {
			return d;
		}
	}
	return NULL;
}

const struct lp_share *share(const struct loaded *l, const char *n)
{
	const struct lp_share *s = lp_find_share(l->lp, n);

	assert_non_null(s);
	return s;
}

