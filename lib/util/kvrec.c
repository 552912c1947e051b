/*
 * Key-value records (kvrec.h): writing and parsing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "lib/util/hexdigit.h"
#include "lib/util/kvrec.h"

/* Grows b->s to hold n more bytes and the NUL; false once it failed. */
static bool buf_room(struct kvrec_buf *b, TALLOC_CTX *mem_ctx, size_t n)
{
	size_t want = b->len + n + 1;
	size_t have = b->s != NULL ? talloc_get_size(b->s) : 0;
	char *s = NULL;

	if (b->failed) {
		return false;
	}
	if (want <= have) {
		return true;
	}
	if (want < 2 * have) {
		want = 2 * have;
	}
	s = b->s != NULL ? talloc_realloc(NULL, b->s, char, want) :
		talloc_array(mem_ctx, char, want);
	if (s == NULL) {
		b->failed = true;
		return false;
	}
	b->s = s;
	return true;
}

static void buf_put(struct kvrec_buf *b, TALLOC_CTX *mem_ctx, const char *p,
		    size_t n)
{
	if (!buf_room(b, mem_ctx, n)) {
		return;
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void kvrec_end(struct kvrec_buf *b, TALLOC_CTX *mem_ctx)
{
	if (b->len > 0 && b->s[b->len - 1] != '\n') {
		buf_put(b, mem_ctx, "\n", 1);
	}
}

void kvrec_raw(struct kvrec_buf *b, TALLOC_CTX *mem_ctx, const char *text)
{
	kvrec_end(b, mem_ctx);
	buf_put(b, mem_ctx, text, strlen(text));
}

void kvrec_begin(struct kvrec_buf *b, TALLOC_CTX *mem_ctx, const char *type)
{
	kvrec_end(b, mem_ctx);
	buf_put(b, mem_ctx, type, strlen(type));
}

/* value escaped into b */
static void put_escaped(struct kvrec_buf *b, const char *v)
{
	char esc[5];

	for (; *v != '\0'; v++) {
		unsigned char c = (unsigned char)*v;

		if (c == '\\') {
			buf_put(b, NULL, "\\\\", 2);
		} else if (c == '\t') {
			buf_put(b, NULL, "\\t", 2);
		} else if (c == '\n') {
			buf_put(b, NULL, "\\n", 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			buf_put(b, NULL, esc, 4);
		} else {
			buf_put(b, NULL, v, 1);
		}
	}
}

void kvrec_add(struct kvrec_buf *b, const char *key, const char *fmt, ...)
{
	char *v = NULL;
	va_list ap;

	if (b->failed || b->s == NULL) {
		b->failed = true;
		return;
	}
	va_start(ap, fmt);
	v = talloc_vasprintf(b->s, fmt, ap);
	va_end(ap);
	if (v == NULL) {
		b->failed = true;
		return;
	}
	buf_put(b, NULL, "\t", 1);
	buf_put(b, NULL, key, strlen(key));
	buf_put(b, NULL, "=", 1);
	put_escaped(b, v);
	talloc_free(v);
}

/* [p, end) unescaped into a new string; NULL on a bad escape or NUL */
static char *unescape(TALLOC_CTX *mem_ctx, const char *p, const char *end)
{
	char *out = talloc_array(mem_ctx, char, end - p + 1);
	size_t n = 0;
	int hi, lo;

	if (out == NULL) {
		return NULL;
	}
	while (p < end) {
		if (*p == '\0') {
			return NULL;
		}
		if (*p != '\\') {
			out[n++] = *p++;
			continue;
		}
		if (end - p < 2) {
			return NULL;
		}
		switch (p[1]) {
		case '\\': out[n++] = '\\'; p += 2; break;
		case 't': out[n++] = '\t'; p += 2; break;
		case 'n': out[n++] = '\n'; p += 2; break;
		case 'x':
			if (end - p < 4) {
				return NULL;
			}
			hi = hex_digit_value((unsigned char)p[2]);
			lo = hex_digit_value((unsigned char)p[3]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				return NULL;
			}
			out[n++] = (char)(hi << 4 | lo);
			p += 4;
			break;
		default:
			return NULL;
		}
	}
	out[n] = '\0';
	return out;
}

static bool key_valid(const char *p, const char *end)
{
	if (p == end) {
		return false;
	}
	for (; p < end; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_')) {
			return false;
		}
	}
	return true;
}

/* One line [p, end) into r; false if malformed */
static bool parse_line(TALLOC_CTX *mem_ctx, const char *p, const char *end,
		       struct kvrec *r)
{
	const char *tab = memchr(p, '\t', end - p);
	const char *f_end = tab != NULL ? tab : end;
	size_t n = 0;

	if (!key_valid(p, f_end)) {
		return false;
	}
	r->type = talloc_strndup(mem_ctx, p, f_end - p);
	r->fields = NULL;
	r->num_fields = 0;
	if (r->type == NULL) {
		return false;
	}
	while (tab != NULL) {
		const char *f = tab + 1, *eq = NULL;
		struct kvrec_field *fields = NULL;

		tab = memchr(f, '\t', end - f);
		f_end = tab != NULL ? tab : end;
		eq = memchr(f, '=', f_end - f);
		if (eq == NULL || !key_valid(f, eq)) {
			return false;
		}
		fields = talloc_realloc(mem_ctx, r->fields,
					struct kvrec_field, n + 1);
		if (fields == NULL) {
			return false;
		}
		r->fields = fields;
		fields[n].key = talloc_strndup(fields, f, eq - f);
		fields[n].value = unescape(fields, eq + 1, f_end);
		if (fields[n].key == NULL || fields[n].value == NULL) {
			return false;
		}
		r->num_fields = ++n;
	}
	return true;
}

int kvrec_parse(TALLOC_CTX *mem_ctx, const char *text, size_t len,
		struct kvrec **recs, size_t *num, char **err)
{
	const char *p = text, *end = text + len;
	struct kvrec *r = NULL;
	size_t n = 0, line = 0;

	*recs = NULL;
	*num = 0;
	*err = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *l_end = nl != NULL ? nl : end;
		struct kvrec *more = NULL;

		line++;
		if (l_end == p) {
			p = l_end + 1;
			continue;
		}
		more = talloc_realloc(mem_ctx, r, struct kvrec, n + 1);
		if (more == NULL) {
			*err = talloc_strdup(mem_ctx, "out of memory");
			talloc_free(r);
			return -1;
		}
		r = more;
		if (!parse_line(r, p, l_end, &r[n])) {
			*err = talloc_asprintf(mem_ctx,
					       "line %zu: not a record", line);
			talloc_free(r);
			return -1;
		}
		n++;
		p = nl != NULL ? nl + 1 : end;
	}
	*recs = r;
	*num = n;
	return 0;
}

const char *kvrec_get(const struct kvrec *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->num_fields; i++) {
		if (strcmp(r->fields[i].key, key) == 0) {
			return r->fields[i].value;
		}
	}
	return NULL;
}
