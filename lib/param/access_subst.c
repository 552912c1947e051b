/*
 * Samba's %-variables in share parameters (access.h lists them).
 */
#include <ctype.h>
#include <string.h>
#include "lib/param/access.h"

static const char *or_empty(const char *s)
{
	return s != NULL ? s : "";
}

/* The value of %c, or NULL for a variable we do not know */
static const char *subst_value(char c, const struct access_subst *v)
{
	switch (c) {
	case 'U': return or_empty(v->smb_user);
	case 'u': return or_empty(v->unix_user);
	case 'G':
	case 'g': return or_empty(v->unix_group);
	case 'H': return or_empty(v->home);
	case 'S': return or_empty(v->share);
	case 'P': return or_empty(v->path);
	case 'm':
	case 'M': return or_empty(v->client_name);
	case 'I':
	case 'J': return or_empty(v->client_addr);
	case 'L':
	case 'N': return or_empty(v->server_name);
	case 'D': return or_empty(v->workgroup);
	case 'h': return or_empty(v->hostname);
	default: return NULL;
	}
}

/* Samba keeps letters, digits and " ._-" of a client-chosen user name */
static char safe_name_char(char c)
{
	if ((unsigned char)c >= 0x80 || isalnum((unsigned char)c) ||
	    strchr(" ._-", c) != NULL) {
		return c;
	}
	return '_';
}

static char *append_value(char *out, char var, const char *val)
{
	size_t start = strlen(out);
	size_t len = strlen(val);
	size_t i;

	out = talloc_realloc(NULL, out, char, start + len + 1);
	if (out == NULL) {
		return NULL;
	}
	for (i = 0; i < len; i++) {
		char c = val[i];

		if (var == 'U') {
			c = safe_name_char(c);
		} else if (var == 'J' && (c == '.' || c == ':')) {
			c = '_';
		}
		out[start + i] = c;
	}
	out[start + len] = '\0';
	return out;
}

char *access_substitute(TALLOC_CTX *mem_ctx, const char *s,
			const struct access_subst *v)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	char *out = (tmp != NULL) ? talloc_strdup(tmp, "") : NULL;

	while (out != NULL && *s != '\0') {
		const char *pct = strchr(s, '%');
		size_t lit = (pct != NULL) ? (size_t)(pct - s) + 1 : strlen(s);
		const char *val = (pct != NULL) ? subst_value(pct[1], v) : NULL;

		if (val != NULL) {
			lit--;          /* the '%' goes, the value comes */
		}
		out = talloc_strndup_append_buffer(out, s, lit);
		s += lit;
		if (out != NULL && val != NULL) {
			out = append_value(out, pct[1], val);
			s += 2;
		}
	}
	/* on ENOMEM the partial result is freed with tmp */
	out = talloc_steal(mem_ctx, out);
	talloc_free(tmp);
	return out;
}
