/*
 * Writing a configuration back in smb.conf form (testparm).  Values are
 * compared as formatted text, so "differs from the default" needs no
 * per-type code.
 */
#include <string.h>
#include "lib/param/param_private.h"

static void lp_dump_param(FILE *f, const struct lp_param *p,
			  const void *base, const void *def_base,
			  bool show_defaults)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	char *v = lp_value_format(tmp, p, base);
	char *def = lp_value_format(tmp, p, def_base);

	if (v != NULL && def != NULL &&
	    (show_defaults || strcmp(v, def) != 0)) {
		fprintf(f, "\t%s = %s\n", p->name, v);
	}
	talloc_free(tmp);
}

static void lp_dump_global(FILE *f, const struct loadparm *lp,
			   const struct loadparm *defaults, bool show_defaults)
{
	size_t i;

	fprintf(f, "# Global parameters\n[global]\n");
	for (i = 0; i < lp_num_params; i++) {
		const struct lp_param *p = &lp_params[i];
		bool global = (p->scope == LP_SCOPE_GLOBAL);

		lp_dump_param(f, p, global ? (const void *)&lp->g :
			      &lp->share_defaults,
			      global ? (const void *)&defaults->g :
			      &defaults->share_defaults, show_defaults);
	}
	lp_parametric_dump(f, &lp->share_defaults, NULL, show_defaults);
}

static void lp_dump_share(FILE *f, const struct loadparm *lp,
			  const struct lp_share *s, bool show_defaults)
{
	size_t i;

	fprintf(f, "\n[%s]\n", s->name);
	for (i = 0; i < lp_num_params; i++) {
		if (lp_params[i].scope & LP_SCOPE_SHARE) {
			lp_dump_param(f, &lp_params[i], s, &lp->share_defaults,
				      show_defaults);
		}
	}
	lp_parametric_dump(f, s, &lp->share_defaults, show_defaults);
}

void lp_dump(FILE *f, const struct loadparm *lp, bool show_defaults)
{
	struct loadparm *defaults = lp_new_defaults(NULL);
	size_t i;

	if (defaults == NULL) {
		return;
	}
	lp_dump_global(f, lp, defaults, show_defaults);
	for (i = 0; i < lp->num_shares; i++) {
		lp_dump_share(f, lp, lp->shares[i], show_defaults);
	}
	talloc_free(defaults);
}
