/*
 * libFuzzer harness for the smb.conf parser (lib/param).  Any input must
 * load without crashing or leaking, and the configuration must survive a
 * dump and reload unchanged (what testparm prints is what smbd would
 * use).  Includes are followed like in smbd: they can only read regular
 * files of bounded size.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/param/param.h"

static char *dump(TALLOC_CTX *ctx, const struct loadparm *lp, bool all)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *text = NULL;

	if (f == NULL) {
		abort();
	}
	lp_dump(f, lp, all);
	fclose(f);
	text = talloc_strndup(ctx, buf, len);
	free(buf);
	return text;
}

static void check_round_trip(TALLOC_CTX *ctx, const struct loadparm *lp)
{
	char *d1 = dump(ctx, lp, true);
	struct loadparm *again = NULL;
	struct lp_diag *diags = NULL;
	char *d2 = NULL;

	lp_load_buffer(ctx, "dump.conf", d1, strlen(d1), &again, &diags);
	if (again == NULL) {
		abort();
	}
	d2 = dump(ctx, again, true);
	if (strcmp(d1, d2) != 0) {
		fprintf(stderr, "dump changed on reload:\n%s\n---\n%s\n",
			d1, d2);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;

	lp_load_buffer(ctx, "fuzz.conf", (const char *)data, size, &lp,
		       &diags);
	if (lp != NULL) {
		check_round_trip(ctx, lp);
	}
	talloc_free(ctx);
	return 0;
}
