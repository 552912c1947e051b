/*
 * Diagnostics collected while loading: a list in the order found, each
 * with its complete "FILE:LINE: text" message.
 */
#include <stdio.h>
#include <stdlib.h>
#include "lib/param/param_private.h"

/* a diagnostic and where it belongs in the input */
struct lp_diag_node {
	struct lp_diag pub;     /* first: the same pointer for talloc */
	unsigned seq;
	size_t idx;
};

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
	struct lp_diag_node *node = talloc_zero(parent, struct lp_diag_node);
	struct lp_diag *diag = &node->pub;

	if (node == NULL) {
		return NULL;
	}
	node->seq = d->seq;
	node->idx = d->num_total;
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

static int lp_diag_cmp(const void *a, const void *b)
{
	const struct lp_diag_node *x = *(const struct lp_diag_node *const *)a;
	const struct lp_diag_node *y = *(const struct lp_diag_node *const *)b;

	if (x->seq != y->seq) {
		return x->seq < y->seq ? -1 : 1;
	}
	return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

/*
 * Syntax problems are found while reading and meaning problems while
 * applying; sorting puts them back in the order of the file.  The new
 * first node becomes the owner of the others.
 */
struct lp_diag *lp_diags_sorted(struct lp_diags *d)
{
	struct lp_diag_node **v = NULL;
	struct lp_diag *p = NULL;
	size_t n = 0;
	size_t i;

	for (p = d->head; p != NULL; p = p->next) {
		n++;
	}
	v = talloc_array(NULL, struct lp_diag_node *, n);
	if (v == NULL) {
		return d->head;
	}
	for (i = 0, p = d->head; p != NULL; p = p->next) {
		v[i++] = (struct lp_diag_node *)p;
	}
	qsort(v, n, sizeof(v[0]), lp_diag_cmp);
	for (i = 0; i + 1 < n; i++) {
		v[i]->pub.next = &v[i + 1]->pub;
	}
	if (n > 0) {
		v[n - 1]->pub.next = NULL;
		d->head = &v[0]->pub;
		talloc_steal(d->mem_ctx, v[0]);
	}
	for (i = 1; i < n; i++) {
		talloc_steal(v[0], v[i]);
	}
	talloc_free(v);
	return d->head;
}
