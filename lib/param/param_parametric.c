/*
 * Samba's parametric options, "TYPE:OPTION = value": names the parameter
 * table does not know that hold a ':', kept per share for the module named
 * TYPE (docs/smb.conf.md, "Parametric options").  Samba keeps them the same
 * way (lp_parm_const_string): a share's own value, else [global]'s.
 *
 * A share starts with the array of [global]'s options (shared, never
 * changed through the share); its first own option makes it a copy owned
 * by the share.  Sections hold at most LP_MAX_PARAMETRIC of them, so a
 * lookup or a replacement costs a bounded scan.
 */
#include <stdio.h>
#include <string.h>
#include "lib/param/param_private.h"

bool lp_parametric_name(const char *name)
{
	const char *colon = strchr(name, ':');

	return colon != NULL && colon != name && colon[1] != '\0';
}

static struct lp_parametric *lp_parametric_find(const struct lp_share *s,
						const char *name)
{
	size_t i;

	for (i = 0; i < s->num_parametric; i++) {
		if (lp_name_eq(s->parametric[i].name, name)) {
			return &s->parametric[i];
		}
	}
	return NULL;
}

/* The array as the owner's own, with room for one more. */
static bool lp_parametric_own(TALLOC_CTX *owner, struct lp_share *s)
{
	struct lp_parametric *p = NULL;

	if (s->parametric != NULL && talloc_parent(s->parametric) == owner) {
		p = talloc_realloc(owner, s->parametric, struct lp_parametric,
				   s->num_parametric + 1);
	} else {
		p = talloc_array(owner, struct lp_parametric,
				 s->num_parametric + 1);
		if (p != NULL && s->num_parametric > 0) {
			memcpy(p, s->parametric,
			       s->num_parametric * sizeof(*p));
		}
	}
	if (p == NULL) {
		return false;
	}
	s->parametric = p;
	return true;
}

int lp_parametric_set(TALLOC_CTX *owner, struct lp_share *s,
		      const char *name, const char *value)
{
	struct lp_parametric *p = lp_parametric_find(s, name);
	const char *v = talloc_strdup(owner, value);
	size_t idx = s->num_parametric;

	if (v == NULL) {
		return -1;
	}
	if (p != NULL) {
		idx = p - s->parametric;
	} else if (s->num_parametric >= LP_MAX_PARAMETRIC) {
		return 1;
	}
	if (!lp_parametric_own(owner, s)) {
		return -1;
	}
	if (idx == s->num_parametric) {
		s->parametric[idx].name = talloc_strdup(owner, name);
		if (s->parametric[idx].name == NULL) {
			return -1;
		}
		s->num_parametric++;
	}
	s->parametric[idx].value = v;
	return 0;
}

const char *lp_parametric_get(const struct lp_share *share,
			      const char *type, const char *option)
{
	char name[256];
	int n = snprintf(name, sizeof(name), "%s:%s", type, option);
	const struct lp_parametric *p = NULL;

	if (n < 0 || (size_t)n >= sizeof(name)) {
		return NULL;
	}
	p = lp_parametric_find(share, name);
	return p != NULL ? p->value : NULL;
}

/* defaults NULL: all of s's ([global]); else those s did not inherit */
void lp_parametric_dump(FILE *f, const struct lp_share *s,
			const struct lp_share *defaults, bool show_defaults)
{
	size_t i;

	for (i = 0; i < s->num_parametric; i++) {
		const struct lp_parametric *p = &s->parametric[i];
		const struct lp_parametric *d = NULL;

		if (defaults != NULL && !show_defaults) {
			d = lp_parametric_find(defaults, p->name);
		}
		if (d == NULL || strcmp(d->value, p->value) != 0) {
			fprintf(f, "\t%s = %s\n", p->name, p->value);
		}
	}
}
