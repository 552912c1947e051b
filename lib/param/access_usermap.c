/*
 * The username map file (Samba's format, access.h): parsed from memory
 * into lines of "unix name <- SMB names", looked up in file order.
 */
#include <ctype.h>
#include <string.h>
#include "lib/param/access.h"
#include "lib/param/param_private.h"

struct um_line {
	const char *unix_name;
	const char **names;     /* NULL-terminated, never empty */
	bool stop;              /* '!': the search ends if this matched */
};

struct username_map {
	struct um_line *lines;
	size_t num;
};

struct um_parser {
	struct username_map *map;
	TALLOC_CTX *diag_ctx;
	const char *name;
	char **problems;        /* NULL-terminated, on diag_ctx */
	size_t num_problems;
	bool oom;
};

static void um_problem(struct um_parser *p, unsigned line, const char *what)
{
	char **v = NULL;
	char *msg = NULL;

	v = talloc_realloc(p->diag_ctx, p->problems, char *,
			   p->num_problems + 2);
	msg = (v != NULL) ? talloc_asprintf(v, "%s:%u: %s", p->name, line,
					    what) : NULL;
	if (v != NULL) {
		p->problems = v;
		v[p->num_problems] = NULL;
	}
	if (msg == NULL) {
		p->oom = true;
		return;
	}
	v[p->num_problems++] = msg;
	v[p->num_problems] = NULL;
}

/* ---- lines ---- */

struct um_text {
	const char *p;
	const char *end;
	unsigned line;          /* of the last physical line read */
};

/* One physical line, without its '\n'; *has_nul if it held a NUL */
static char *um_phys_line(TALLOC_CTX *mem_ctx, struct um_text *t,
			  bool *has_nul)
{
	const char *s = t->p;
	const char *nl = memchr(s, '\n', t->end - s);
	const char *e = (nl != NULL) ? nl : t->end;

	t->p = (nl != NULL) ? nl + 1 : t->end;
	t->line++;
	*has_nul = *has_nul || memchr(s, '\0', e - s) != NULL;
	if (e > s && e[-1] == '\r') {
		e--;
	}
	return talloc_strndup(mem_ctx, s, e - s);
}

static bool um_continues(char *buf)
{
	size_t len = strlen(buf);

	while (len > 0 && isspace((unsigned char)buf[len - 1])) {
		len--;
	}
	if (len == 0 || buf[len - 1] != '\\') {
		return false;
	}
	buf[len - 1] = '\0';
	return true;
}

/* A logical line (continuations joined); NULL at the end or on ENOMEM */
static char *um_logical_line(TALLOC_CTX *mem_ctx, struct um_text *t,
			     unsigned *first, bool *has_nul)
{
	char *buf = NULL;

	*has_nul = false;
	if (t->p >= t->end) {
		return NULL;
	}
	buf = um_phys_line(mem_ctx, t, has_nul);
	*first = t->line;
	while (buf != NULL && um_continues(buf) && t->p < t->end) {
		char *next = um_phys_line(mem_ctx, t, has_nul);

		buf = (next != NULL) ?
			talloc_asprintf_append(buf, " %s", next) : NULL;
	}
	return buf;
}

static char *um_trim(char *s)
{
	size_t len;

	while (isspace((unsigned char)*s)) {
		s++;
	}
	len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1])) {
		s[--len] = '\0';
	}
	return s;
}

static bool quotes_balanced(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++) {
		n += (*s == '"');
	}
	return n % 2 == 0;
}

/* ---- entries ---- */

static const char *um_line_check(char *line, char **unix_name, char **names,
				 bool *stop)
{
	char *eq = strchr(line, '=');

	if (eq == NULL) {
		return "expected \"unix name = SMB names\"";
	}
	*eq = '\0';
	*unix_name = um_trim(line);
	*stop = (*unix_name)[0] == '!';
	if (*stop) {
		*unix_name = um_trim(*unix_name + 1);
	}
	*names = um_trim(eq + 1);
	if ((*unix_name)[0] == '\0') {
		return "no unix name before '='";
	}
	if (!quotes_balanced(*names)) {
		return "a double quote is not closed";
	}
	return NULL;
}

static bool um_add(struct username_map *map, const char *unix_name,
		   const char **names, bool stop)
{
	struct um_line *lines = talloc_realloc(map, map->lines, struct um_line,
					       map->num + 1);

	if (lines == NULL) {
		return false;
	}
	map->lines = lines;
	lines[map->num] = (struct um_line) {
		.unix_name = talloc_strdup(map, unix_name),
		.names = talloc_steal(map, names),
		.stop = stop,
	};
	if (lines[map->num].unix_name == NULL) {
		return false;
	}
	map->num++;
	return true;
}

static void um_parse_line(struct um_parser *p, char *line, unsigned lineno)
{
	char *unix_name = NULL;
	char *names_s = NULL;
	const char **names = NULL;
	const char *why = NULL;
	bool stop = false;

	line = um_trim(line);
	if (line[0] == '\0' || line[0] == '#' || line[0] == ';') {
		return;
	}
	why = um_line_check(line, &unix_name, &names_s, &stop);
	if (why != NULL) {
		um_problem(p, lineno, why);
		return;
	}
	names = lp_list_parse(p->map, names_s);
	if (names == NULL) {
		p->oom = true;
	} else if (names[0] == NULL) {
		um_problem(p, lineno, "no SMB names after '='");
		talloc_free(names);
	} else if (!um_add(p->map, unix_name, names, stop)) {
		p->oom = true;
	}
}

static void um_parse_text(struct um_parser *p, struct um_text *t)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	unsigned lineno = 0;
	bool has_nul = false;
	char *line = NULL;

	while (!p->oom && tmp != NULL &&
	       (line = um_logical_line(tmp, t, &lineno, &has_nul)) != NULL) {
		if (has_nul) {
			um_problem(p, lineno, "a NUL byte in the line");
		} else {
			um_parse_line(p, line, lineno);
		}
		talloc_free(line);
	}
	/* NULL before the end: out of memory */
	p->oom = p->oom || tmp == NULL || t->p < t->end;
	talloc_free(tmp);
}

int username_map_parse(TALLOC_CTX *mem_ctx, const char *name,
		       const char *text, size_t len,
		       struct username_map **out, char ***problems)
{
	struct um_parser p = {
		.map = talloc_zero(mem_ctx, struct username_map),
		.diag_ctx = mem_ctx,
		.name = name != NULL ? name : "",
	};
	struct um_text t = { .p = text, .end = text + len };

	if (p.map != NULL) {
		um_parse_text(&p, &t);
	}
	if (p.map == NULL || p.oom) {
		TALLOC_FREE(p.map);
		p.oom = true;
	}
	*out = p.map;
	if (problems != NULL) {
		*problems = p.problems;
	} else {
		TALLOC_FREE(p.problems);
	}
	return (p.oom || p.num_problems > 0) ? -1 : 0;
}

size_t username_map_count(const struct username_map *map)
{
	return map != NULL ? map->num : 0;
}

static bool um_line_matches(const struct um_line *l, const char *smb_name,
			    access_in_group_fn in_group, void *private_data)
{
	const char **n = NULL;

	for (n = l->names; *n != NULL; n++) {
		const char *one[2] = { *n, NULL };

		if (strcmp(*n, "*") == 0 ||
		    access_user_in_list(smb_name, one, in_group,
					private_data)) {
			return true;
		}
	}
	return false;
}

const char *username_map_lookup(const struct username_map *map,
				const char *smb_name,
				access_in_group_fn in_group,
				void *private_data)
{
	const char *found = NULL;
	size_t i;

	for (i = 0; map != NULL && smb_name != NULL && i < map->num; i++) {
		const struct um_line *l = &map->lines[i];

		if (um_line_matches(l, smb_name, in_group, private_data)) {
			found = l->unix_name;
			if (l->stop) {
				break;
			}
		}
	}
	return found;
}
