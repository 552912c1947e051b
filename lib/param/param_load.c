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

#define LP_OPTION_FILE	"--option"

/*
 * Command-line "name=value" options (Samba's --option) as entries at
 * the end of [global]: they win over the file's [global] and set share
 * parameters' defaults, as there.  A malformed one is an error.
 */
static void lp_add_options(struct lp_raw *raw, const char *const *options,
			   struct lp_diags *d)
{
	struct lp_section *g = raw != NULL && raw->num_sections > 0 ?
		&raw->sections[0] : NULL;
	size_t n = 0, i;

	while (options != NULL && options[n] != NULL) {
		n++;
	}
	if (g == NULL || n == 0) {
		return;
	}
	for (i = 0; i < n; i++) {
		const char *eq = strchr(options[i], '=');
		struct lp_entry *entries = NULL;
		struct lp_entry e = { .file = LP_OPTION_FILE, .seq = d->seq };
		char *key;

		if (eq == NULL || eq == options[i]) {
			lp_diag_add(d, LP_DIAG_ERROR, LP_OPTION_FILE, 0,
				    "\"%s\": expected name=value",
				    options[i]);
			continue;
		}
		key = talloc_strndup(raw, options[i],
				     (size_t)(eq - options[i]));
		e.value = talloc_strdup(raw, eq + 1);
		if (key != NULL) {
			/* blanks around the name, as in a file */
			char *end = key + strlen(key);

			while (end > key && (end[-1] == ' ' ||
					     end[-1] == '\t')) {
				*--end = '\0';
			}
			while (*key == ' ' || *key == '\t') {
				key++;
			}
		}
		e.key = key;
		if (e.key != NULL && e.value != NULL) {
			entries = talloc_realloc(raw, g->entries,
						 struct lp_entry,
						 g->num_entries + 1);
		}
		if (entries == NULL) {
			lp_diag_add(d, LP_DIAG_ERROR, LP_OPTION_FILE, 0,
				    "out of memory");
			return;
		}
		g->entries = entries;
		entries[g->num_entries++] = e;
	}
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
	return lp_load_with_options(mem_ctx, path, NULL, out, diags);
}

int lp_load_with_options(TALLOC_CTX *mem_ctx, const char *path,
			 const char *const *options, struct loadparm **out,
			 struct lp_diag **diags)
{
	struct lp_diags d;
	struct lp_raw *raw = NULL;
	const char *name = path != NULL ? path : "(embedded default)";
	int ret;

	lp_diags_init(&d, mem_ctx);
	raw = path != NULL ? lp_raw_read_file(NULL, path, &d) :
		lp_raw_read_buffer(NULL, name, lp_embedded_default,
				   strlen(lp_embedded_default), &d);
	lp_add_options(raw, options, &d);
	ret = lp_finish(mem_ctx, raw, name, &d, out);
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
