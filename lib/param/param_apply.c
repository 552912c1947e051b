/*
 * Giving the raw sections their meaning: defaults first, then [global]
 * (all of it, wherever it appears, so share parameters set there are the
 * defaults of every share as in Samba), then each share on a copy of
 * those defaults.
 */
#include <ctype.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "lib/param/param_private.h"

struct lp_target {
	TALLOC_CTX *owner;
	void *base;
};

static bool lp_set(const struct lp_param *p, struct lp_target tgt,
		   const char *value, bool invert, const char **warning)
{
	return lp_value_parse(tgt.owner, p, tgt.base, value, invert, warning);
}

/* A parameter in [global]: global, share default, or both. */
static bool lp_set_global(struct loadparm *lp, const struct lp_param *p,
			  const char *value, bool invert, const char **warning)
{
	struct lp_param gp = *p;
	struct lp_target g = { lp, &lp->g };
	struct lp_target sd = { lp, &lp->share_defaults };

	if (p->scope == LP_SCOPE_GLOBAL) {
		return lp_set(p, g, value, invert, warning);
	}
	if (!lp_set(p, sd, value, invert, warning)) {
		return false;
	}
	if (p->scope & LP_SCOPE_GLOBAL) {
		gp.offset = p->goffset;
		return lp_set(&gp, g, value, invert, warning);
	}
	return true;
}

static void lp_default_netbios_name(struct loadparm *lp)
{
	char host[256] = "";
	size_t i;

	if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0' ||
	    host[0] == '.') {
		strcpy(host, "RINGSMB");
	}
	host[strcspn(host, ".")] = '\0';
	host[15] = '\0';
	for (i = 0; host[i] != '\0'; i++) {
		host[i] = toupper((unsigned char)host[i]);
	}
	lp->g.netbios_name = talloc_strdup(lp, host);
}

struct loadparm *lp_new_defaults(TALLOC_CTX *mem_ctx)
{
	struct loadparm *lp = talloc_zero(mem_ctx, struct loadparm);
	const char *warning = NULL;
	size_t i;
	bool ok = lp != NULL;

	for (i = 0; ok && i < lp_num_params; i++) {
		if (lp_params[i].def != NULL) {
			ok = lp_set_global(lp, &lp_params[i], lp_params[i].def,
					   false, &warning);
		}
	}
	if (ok) {
		lp_default_netbios_name(lp);
		lp->config_file = talloc_strdup(lp, "");
		ok = lp->g.netbios_name != NULL && lp->config_file != NULL;
	}
	if (!ok) {
		TALLOC_FREE(lp);
	}
	return lp;
}

static void lp_report_value(const struct lp_param *p,
			    const struct lp_entry *e, bool ok,
			    const char *warning, struct lp_diags *d)
{
	char *exp = NULL;

	if (ok) {
		if (warning != NULL) {
			lp_diag_add(d, LP_DIAG_WARNING, e->file, e->line,
				    "parameter \"%s\": %s", e->key, warning);
		}
		return;
	}
	exp = lp_value_expected(d->mem_ctx, p);
	lp_diag_add(d, LP_DIAG_ERROR, e->file, e->line,
		    "invalid value \"%s\" for parameter \"%s\": expected %s",
		    e->value, e->key, exp != NULL ? exp : "something else");
	talloc_free(exp);
}

/* "type:option = value": kept for the module (param_parametric.c) */
static void lp_apply_parametric(struct loadparm *lp, struct lp_share *share,
				const struct lp_entry *e, struct lp_diags *d)
{
	TALLOC_CTX *owner = share != NULL ? (TALLOC_CTX *)share : lp;
	int ret = lp_parametric_set(owner, share != NULL ? share :
				    &lp->share_defaults, e->key, e->value);

	if (ret == 1) {
		lp_diag_add(d, LP_DIAG_WARNING, e->file, e->line,
			    "parametric option \"%s\": more than %d in one "
			    "section: ignored", e->key, LP_MAX_PARAMETRIC);
	} else if (ret < 0) {
		lp_diag_add(d, LP_DIAG_ERROR, e->file, e->line,
			    "parametric option \"%s\": out of memory",
			    e->key);
	}
}

/* Sets one entry of [global] (share == NULL) or of a share. */
static void lp_apply_entry(struct loadparm *lp, struct lp_share *share,
			   const struct lp_entry *e, struct lp_diags *d)
{
	bool invert = false;
	const struct lp_param *p = lp_param_find(e->key, &invert);
	struct lp_target t = { share, share };
	const char *warning = NULL;
	bool ok;

	d->seq = e->seq;
	if (lp_check_refused(share != NULL, e, d)) {
		return;
	}
	if (p == NULL && lp_parametric_name(e->key)) {
		lp_apply_parametric(lp, share, e, d);
		return;
	}
	if (p == NULL) {
		lp_diag_add(d, LP_DIAG_WARNING, e->file, e->line,
			    "unknown parameter \"%s\": ignored", e->key);
		return;
	}
	if (share != NULL && !(p->scope & LP_SCOPE_SHARE)) {
		lp_diag_add(d, LP_DIAG_WARNING, e->file, e->line,
			    "global parameter \"%s\" in share [%s]: ignored",
			    e->key, share->name);
		return;
	}
	ok = (share != NULL) ? lp_set(p, t, e->value, invert, &warning) :
		lp_set_global(lp, p, e->value, invert, &warning);
	lp_report_value(p, e, ok, warning, d);
	if (ok) {
		lp_check_value(p, e, d);
	}
}

static void lp_apply_section(struct loadparm *lp, struct lp_share *share,
			     const struct lp_section *sec, struct lp_diags *d)
{
	size_t i;

	for (i = 0; i < sec->num_entries; i++) {
		lp_apply_entry(lp, share, &sec->entries[i], d);
	}
}

static struct lp_share *lp_share_add(struct loadparm *lp,
				     const struct lp_section *sec)
{
	struct lp_share **shares = talloc_realloc(lp, lp->shares,
						  struct lp_share *,
						  lp->num_shares + 1);
	struct lp_share *share = NULL;

	if (shares == NULL) {
		return NULL;
	}
	lp->shares = shares;
	share = talloc(shares, struct lp_share);
	if (share == NULL) {
		return NULL;
	}
	*share = lp->share_defaults;
	share->name = talloc_strdup(share, sec->name);
	if (share->name == NULL) {
		talloc_free(share);
		return NULL;
	}
	shares[lp->num_shares++] = share;
	return share;
}

static void lp_check_share(struct lp_share *s, const struct lp_section *sec,
			   struct lp_diags *d)
{
	d->seq = sec->seq;
	/* [homes] without a path serves each user's home directory */
	if (s->available && s->path[0] == '\0' &&
	    strcasecmp(s->name, "homes") != 0) {
		lp_diag_add(d, LP_DIAG_WARNING, sec->file, sec->line,
			    "share [%s] has no path: made unavailable",
			    s->name);
		s->available = false;
	}
}

static void lp_check_protocols(struct loadparm *lp, struct lp_diags *d)
{
	d->seq = UINT_MAX;
	if (lp->g.server_min_protocol > lp->g.server_max_protocol) {
		lp_diag_add(d, LP_DIAG_ERROR, lp->config_file, 0,
			    "server min protocol %s is higher than server "
			    "max protocol %s",
			    lp_dialect_name(lp->g.server_min_protocol),
			    lp_dialect_name(lp->g.server_max_protocol));
	}
}

struct loadparm *lp_apply(TALLOC_CTX *mem_ctx, const struct lp_raw *raw,
			  const char *config_file, struct lp_diags *d)
{
	struct loadparm *lp = lp_new_defaults(mem_ctx);
	size_t i;

	if (lp == NULL ||
	    (lp->config_file = talloc_strdup(lp, config_file)) == NULL) {
		TALLOC_FREE(lp);
		return NULL;
	}
	lp_apply_section(lp, NULL, &raw->sections[0], d);
	for (i = 1; i < raw->num_sections; i++) {
		const struct lp_section *sec = &raw->sections[i];
		struct lp_share *share = NULL;

		if (sec->ignored) {
			continue;
		}
		share = lp_share_add(lp, sec);
		if (share == NULL) {
			TALLOC_FREE(lp);
			return NULL;
		}
		lp_apply_section(lp, share, sec, d);
		lp_check_share(share, sec, d);
	}
	lp_check_protocols(lp, d);
	return lp;
}
