/*
 * Loading entry points, the embedded default configuration and share
 * lookup.
 */
#include <string.h>
#include <strings.h>
#include "lib/param/param_private.h"

/* docs/smb.conf.md: with no smb.conf, one guest share on ./share,
 * reachable only from this machine. */
static const char lp_embedded_default[] =
	"[global]\n"
	"\tsmb ports = 4445\n"
	"\tinterfaces = 127.0.0.1\n"
	"\tbind interfaces only = yes\n"
	"\tmap to guest = Bad User\n"
	"\n"
	"[share]\n"
	"\tpath = ./share\n"
	"\tguest ok = yes\n"
	"\tread only = no\n";

const char *lp_embedded_default_text(void)
{
	return lp_embedded_default;
}

const char *lp_default_config_file(void)
{
	return LP_DEFAULT_CONFIG_FILE;
}

static int lp_finish(TALLOC_CTX *mem_ctx, struct lp_raw *raw,
		     const char *name, struct lp_diags *d,
		     struct loadparm **out)
{
	*out = (raw != NULL) ? lp_apply(mem_ctx, raw, name, d) : NULL;
	talloc_free(raw);
	return (*out == NULL || d->num_errors > 0) ? -1 : 0;
}

int lp_load_buffer(TALLOC_CTX *mem_ctx, const char *name,
		   const char *text, size_t len,
		   struct loadparm **out, struct lp_diag **diags)
{
	struct lp_diags d;
	struct lp_raw *raw = NULL;
	int ret;

	lp_diags_init(&d, mem_ctx);
	raw = lp_raw_read_buffer(NULL, name, text, len, &d);
	ret = lp_finish(mem_ctx, raw, name, &d, out);
	*diags = lp_diags_sorted(&d);
	return ret;
}

int lp_load_file(TALLOC_CTX *mem_ctx, const char *path,
		 struct loadparm **out, struct lp_diag **diags)
{
	struct lp_diags d;
	struct lp_raw *raw = NULL;
	int ret;

	lp_diags_init(&d, mem_ctx);
	raw = lp_raw_read_file(NULL, path, &d);
	ret = lp_finish(mem_ctx, raw, path, &d, out);
	*diags = lp_diags_sorted(&d);
	return ret;
}

struct loadparm *lp_load_default(TALLOC_CTX *mem_ctx)
{
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;
	int ret;

	ret = lp_load_buffer(mem_ctx, "(embedded default)",
			     lp_embedded_default, strlen(lp_embedded_default),
			     &lp, &diags);
	/* the embedded text is tested to load without diagnostics */
	talloc_free(diags);
	if (ret != 0) {
		TALLOC_FREE(lp);
	}
	return lp;
}

const struct lp_share *lp_find_share(const struct loadparm *lp,
				     const char *name)
{
	size_t i;

	for (i = 0; i < lp->num_shares; i++) {
		if (strcasecmp(lp->shares[i]->name, name) == 0) {
			return lp->shares[i];
		}
	}
	return NULL;
}
