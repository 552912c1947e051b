/*
 * libFuzzer harness: vfs_error's options (source3/modules/vfs_error.c),
 * what a share's "error:OPTION = value" lines give it.  The input is
 * lines of "option=value"; whatever is accepted leaves the configuration
 * in range, and the decision that follows keeps its promises: no call
 * fails before the nth, never more than error:times, only selected ops.
 * Seed corpus: tests/fuzz/corpus/vfs_error/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "source3/modules/vfs_error.h"

static void check_config(const struct vfs_error_config *c)
{
	if (c->nth < 1 || c->err < 1 || c->err > 4095 ||
	    c->delay_ms > 60000 || c->probability < 0.0 ||
	    c->probability > 1.0 ||
	    (c->ops & ~((1u << VFS_ERROR_NUM_OPS) - 1)) != 0 ||
	    (c->log != NULL && c->log[0] != '/')) {
		abort();
	}
}

static void check_decisions(const struct vfs_error_config *c)
{
	struct vfs_error_counter k;
	uint64_t fired = 0, calls = 0;
	unsigned i;

	vfs_error_counter_init(&k, c);
	for (i = 0; i < 200; i++) {
		enum vfs_error_op op = i % (VFS_ERROR_NUM_OPS + 1);
		bool f = vfs_error_fires(c, &k, op);
		bool selected = op < VFS_ERROR_NUM_OPS &&
			(c->ops & (1u << op)) != 0;

		calls += selected;
		if (f && (!selected || calls < c->nth)) {
			abort();
		}
		fired += f;
	}
	if (fired != k.fired || calls != k.calls ||
	    (c->times != 0 && fired > c->times)) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *text = talloc_strndup(ctx, (const char *)data, size);
	struct vfs_error_config c;
	char *line = NULL, *save = NULL;

	if (text == NULL) {
		talloc_free(ctx);
		return 0;
	}
	vfs_error_config_init(&c);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		const char *why = NULL;

		if (eq == NULL) {
			continue;
		}
		*eq = '\0';
		if (!vfs_error_config_set(ctx, &c, line, eq + 1, &why) &&
		    why == NULL) {
			abort();
		}
		check_config(&c);
	}
	check_decisions(&c);
	talloc_free(ctx);
	return 0;
}
