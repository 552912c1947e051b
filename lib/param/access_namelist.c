/*
 * veto files / hide files: Samba's "/pat1/pat2/" name lists, and the
 * '*' / '?' wildcard match they (and host wildcards) use.
 */
#include <string.h>
#include "lib/param/access.h"

struct access_namelist {
	char **pats;
	size_t num;
};

/* Bytes in the UTF-8 character at s (1 for a stray continuation byte) */
static size_t u8_char_len(const char *s)
{
	unsigned char c = (unsigned char)s[0];
	size_t n = 1;

	if (c >= 0xc0) {
		while (n < 4 && ((unsigned char)s[n] & 0xc0) == 0x80) {
			n++;
		}
	}
	return n;
}

static char ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool char_eq(char a, char b, bool case_sensitive)
{
	return case_sensitive ? a == b : ascii_lower(a) == ascii_lower(b);
}

/*
 * Greedy with one backtrack point, the last '*': a later '*' makes an
 * earlier one's choice final, so this is O(len(p) * len(s)) at worst and
 * cannot recurse (fuzzed).
 */
bool access_wild_match(const char *p, const char *s, bool case_sensitive)
{
	const char *star_p = NULL;
	const char *star_s = NULL;

	while (*s != '\0') {
		if (*p == '*') {
			star_p = ++p;
			star_s = s;
		} else if (*p == '?') {
			p++;
			s += u8_char_len(s);
		} else if (*p != '\0' && char_eq(*p, *s, case_sensitive)) {
			p++;
			s++;
		} else if (star_p != NULL) {
			p = star_p;
			star_s += u8_char_len(star_s);
			s = star_s;
		} else {
			return false;
		}
	}
	while (*p == '*') {
		p++;
	}
	return *p == '\0';
}

static bool namelist_add(struct access_namelist *l, const char *start,
			 size_t len)
{
	char **pats = NULL;
	char *pat = NULL;

	pats = talloc_realloc(l, l->pats, char *, l->num + 1);
	if (pats == NULL) {
		return false;
	}
	l->pats = pats;
	pat = talloc_strndup(pats, start, len);
	if (pat == NULL) {
		return false;
	}
	pats[l->num++] = pat;
	return true;
}

struct access_namelist *access_namelist_parse(TALLOC_CTX *mem_ctx,
					      const char *spec)
{
	struct access_namelist *l = talloc_zero(mem_ctx,
						struct access_namelist);
	const char *p = (spec != NULL) ? spec : "";

	while (l != NULL && *p != '\0') {
		size_t len = strcspn(p, "/");

		if (len > 0 && !namelist_add(l, p, len)) {
			TALLOC_FREE(l);
			break;
		}
		p += len + (p[len] == '/');
	}
	return l;
}

size_t access_namelist_count(const struct access_namelist *l)
{
	return l != NULL ? l->num : 0;
}

bool access_namelist_match(const struct access_namelist *l,
			   const char *name, bool case_sensitive)
{
	size_t i;

	for (i = 0; l != NULL && i < l->num; i++) {
		if (access_wild_match(l->pats[i], name, case_sensitive)) {
			return true;
		}
	}
	return false;
}
