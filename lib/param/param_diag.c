/*
 * Diagnostics collected while loading: a list in the order found, each
 * with its complete "FILE:LINE: text" message.
 */
#include <stdio.h>
#include "lib/param/param_private.h"

/* Stop collecting after this many: a binary file must not make us
 * allocate one message per garbage line. */
#define LP_MAX_DIAGS 1000

void lp_diags_init(struct lp_diags *d, TALLOC_CTX *mem_ctx)
{
	*d = (struct lp_diags) {
		.mem_ctx = mem_ctx, .head = NULL, .tail = &d->head,
	};
}

static struct lp_diag *lp_diag_new(struct lp_diags *d, enum lp_severity sev,
				   const char *file, unsigned line,
				   const char *text)
{
	/* all hang off the first, so freeing the list is one talloc_free */
	TALLOC_CTX *parent = (d->head != NULL) ? d->head : d->mem_ctx;
	struct lp_diag *diag = talloc_zero(parent, struct lp_diag);

	if (diag == NULL) {
		return NULL;
	}
	diag->severity = sev;
	diag->file = talloc_strdup(diag, file);
	diag->line = line;
	if (line != 0) {
		diag->message = talloc_asprintf(diag, "%s:%u: %s", file, line,
						text);
	} else {
		diag->message = talloc_asprintf(diag, "%s: %s", file, text);
	}
	if (diag->file == NULL || diag->message == NULL) {
		talloc_free(diag);
		return NULL;
	}
	return diag;
}

void lp_diag_add(struct lp_diags *d, enum lp_severity sev,
		 const char *file, unsigned line, const char *fmt, ...)
{
	struct lp_diag *diag = NULL;
	char *text = NULL;
	va_list ap;

	if (sev == LP_DIAG_ERROR) {
		d->num_errors++;
	}
	if (d->num_total++ == LP_MAX_DIAGS) {
		fmt = "too many problems: no more are reported";
		line = 0;
	} else if (d->num_total > LP_MAX_DIAGS) {
		return;
	}
	va_start(ap, fmt);
	text = talloc_vasprintf(d->mem_ctx, fmt, ap);
	va_end(ap);
	if (text != NULL) {
		diag = lp_diag_new(d, sev, file, line, text);
		talloc_free(text);
	}
	if (diag != NULL) {
		*d->tail = diag;
		d->tail = &diag->next;
	}
}
