/*
 * smb.conf syntax: text to sections of "key = value" entries (struct
 * lp_raw), with includes expanded.  Nothing here knows parameter names
 * except "include"; lp_apply() gives the entries their meaning.
 *
 * As in Samba: comments are whole lines starting with '#' or ';'; a line
 * whose last non-blank character is '\' continues on the next line;
 * values are trimmed; a repeated section adds to the earlier one; the
 * section an include leaves open stays open after it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/param/param_private.h"

#define LP_MAX_INCLUDE_DEPTH 16
#define LP_MAX_FILE_SIZE (16 * 1024 * 1024)
#define LP_MAX_SHARE_NAME 80

struct lp_reader {
	struct lp_raw *raw;
	size_t cur;                     /* index of the open section */
	struct lp_diags *diags;
	/* real paths of the files being read, to refuse include loops */
	const char *stack[LP_MAX_INCLUDE_DEPTH + 1];
	unsigned depth;
	unsigned seq;
};

struct lp_text {
	const char *name;
	const char *p;
	const char *end;
	unsigned line;
	unsigned *seq;          /* physical lines read, over all files */
};

static void lp_read_text(struct lp_reader *rd, struct lp_text *t);

/* ---- lines ---- */

/* The next physical line, trimmed; NULL at the end of the text. */
static char *lp_phys_line(TALLOC_CTX *mem_ctx, struct lp_text *t)
{
	const char *s = t->p;
	const char *nl = NULL;
	const char *nul = NULL;
	const char *e = NULL;

	if (t->p >= t->end) {
		return NULL;
	}
	nl = memchr(s, '\n', t->end - s);
	e = (nl != NULL) ? nl : t->end;
	t->p = (nl != NULL) ? nl + 1 : t->end;
	/* a NUL ends the line here, before trimming looks at its end */
	nul = memchr(s, '\0', e - s);
	e = (nul != NULL) ? nul : e;
	t->line++;
	(*t->seq)++;
	while (s < e && isspace((unsigned char)*s)) {
		s++;
	}
	while (e > s && isspace((unsigned char)e[-1])) {
		e--;
	}
	return talloc_strndup(mem_ctx, s, e - s);
}

static bool lp_continues(char *buf)
{
	size_t len = strlen(buf);

	if (len == 0 || buf[len - 1] != '\\') {
		return false;
	}
	do {
		buf[--len] = '\0';
	} while (len > 0 && isspace((unsigned char)buf[len - 1]));
	return true;
}

/* Joins continuation lines; NULL when out of memory. */
static char *lp_join_continued(TALLOC_CTX *mem_ctx, struct lp_text *t,
			       char *buf)
{
	while (buf != NULL && lp_continues(buf)) {
		char *next = lp_phys_line(mem_ctx, t);

		if (next == NULL) {
			/* at the end: no value may end in '\', or it
			 * could not be written back (testparm) */
			while (lp_continues(buf)) {
			}
			break;
		}
		if (next[0] != '\0') {
			buf = talloc_asprintf_append(
				buf, "%s%s", buf[0] != '\0' ? " " : "", next);
		}
		talloc_free(next);
	}
	return buf;
}

/*
 * The next logical line (comments and blank lines skipped, continuations
 * joined) and the number of its first line; NULL at the end.
 */
static char *lp_logical_line(TALLOC_CTX *mem_ctx, struct lp_text *t,
			     unsigned *lineno)
{
	char *buf = NULL;

	while ((buf = lp_phys_line(mem_ctx, t)) != NULL) {
		if (buf[0] != '\0' && buf[0] != '#' && buf[0] != ';') {
			*lineno = t->line;
			return lp_join_continued(mem_ctx, t, buf);
		}
		talloc_free(buf);
	}
	return NULL;
}

static char *lp_trim(char *s)
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

/* ---- sections ---- */

static struct lp_section *lp_cur(struct lp_reader *rd)
{
	return &rd->raw->sections[rd->cur];
}

static bool lp_section_find(struct lp_reader *rd, const char *name)
{
	size_t i;

	for (i = 0; i < rd->raw->num_sections; i++) {
		if (strcasecmp(rd->raw->sections[i].name, name) == 0) {
			rd->cur = i;
			return true;
		}
	}
	return false;
}

static bool lp_section_add(struct lp_reader *rd, const char *name,
			   const struct lp_text *t, unsigned line)
{
	struct lp_raw *raw = rd->raw;
	struct lp_section sec = {
		.name = talloc_strdup(raw, name),
		.file = talloc_strdup(raw, t->name),
		.line = line,
		.seq = rd->diags->seq,
	};
	struct lp_section *s = NULL;

	if (sec.name != NULL && sec.file != NULL) {
		s = talloc_realloc(raw, raw->sections, struct lp_section,
				   raw->num_sections + 1);
	}
	if (s == NULL) {
		return false;
	}
	raw->sections = s;
	s[raw->num_sections] = sec;
	rd->cur = raw->num_sections++;
	return true;
}

static bool lp_section_ignored(struct lp_reader *rd, const char *name,
			       const struct lp_text *t, unsigned line)
{
	if (strcasecmp(name, "printers") == 0) {
		lp_diag_add(rd->diags, LP_DIAG_WARNING, t->name, line,
			    "section [%s] is not supported: ignored", name);
		return true;
	}
	if (strlen(name) > LP_MAX_SHARE_NAME) {
		lp_diag_add(rd->diags, LP_DIAG_ERROR, t->name, line,
			    "share name longer than %d characters",
			    LP_MAX_SHARE_NAME);
		return true;
	}
	if (strcasecmp(name, "IPC$") == 0) {
		lp_diag_add(rd->diags, LP_DIAG_WARNING, t->name, line,
			    "section [%s] is reserved: ignored", name);
		return true;
	}
	return false;
}

static void lp_section_line(struct lp_reader *rd, char *line,
			    const struct lp_text *t, unsigned lineno)
{
	char *close = strchr(line, ']');
	char *name = NULL;
	bool ignored = false;

	if (close == NULL) {
		lp_diag_add(rd->diags, LP_DIAG_ERROR, t->name, lineno,
			    "missing ']' in section header");
		return;
	}
	*close = '\0';
	name = lp_trim(line + 1);
	if (name[0] == '\0') {
		lp_diag_add(rd->diags, LP_DIAG_ERROR, t->name, lineno,
			    "empty section name");
		return;
	}
	ignored = lp_section_ignored(rd, name, t, lineno);
	if (lp_section_find(rd, name)) {
		return;
	}
	if (!lp_section_add(rd, name, t, lineno)) {
		lp_diag_add(rd->diags, LP_DIAG_ERROR, t->name, lineno,
			    "out of memory");
		return;
	}
	lp_cur(rd)->ignored = ignored;
}

/* ---- entries and includes ---- */

static void lp_entry_add(struct lp_reader *rd, const char *key,
			 const char *value, const struct lp_text *t,
			 unsigned line)
{
	struct lp_section *s = lp_cur(rd);
	struct lp_entry e = {
		.key = talloc_strdup(rd->raw, key),
		.value = talloc_strdup(rd->raw, value),
		.file = talloc_strdup(rd->raw, t->name),
		.line = line,
		.seq = rd->diags->seq,
	};
	struct lp_entry *entries = NULL;

	if (e.key != NULL && e.value != NULL && e.file != NULL) {
		entries = talloc_realloc(rd->raw, s->entries, struct lp_entry,
					 s->num_entries + 1);
	}
	if (entries == NULL) {
		lp_diag_add(rd->diags, LP_DIAG_ERROR, t->name, line,
			    "out of memory");
		return;
	}
	s->entries = entries;
	entries[s->num_entries++] = e;
}

static int lp_read_all(int fd, char *buf, size_t size, size_t *got)
{
	ssize_t n = 0;

	*got = 0;
	while (*got < size && (n = read(fd, buf + *got, size - *got)) > 0) {
		*got += n;
	}
	return n < 0 ? -errno : 0;
}

/*
 * Reads a regular file of bounded size; -errno on failure, -EINVAL for
 * something that is not a regular file (a FIFO or /dev/zero must not
 * hang or exhaust us).
 */
static int lp_slurp(TALLOC_CTX *mem_ctx, const char *path, char **data,
		    size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *buf = NULL;
	int ret = 0;

	if (fd == -1) {
		return -errno;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		ret = -EINVAL;
	} else if (st.st_size > LP_MAX_FILE_SIZE) {
		ret = -EFBIG;
	} else if ((buf = talloc_array(mem_ctx, char, st.st_size + 1)) ==
		   NULL) {
		ret = -ENOMEM;
	} else {
		ret = lp_read_all(fd, buf, st.st_size + 1, len);
	}
	close(fd);
	/* one byte more than stat said: it grew, or it is in /proc */
	if (ret == 0 && *len > (size_t)st.st_size) {
		ret = -EAGAIN;
	}
	if (ret != 0) {
		talloc_free(buf);
		return ret;
	}
	*data = buf;
	return 0;
}

static const char *lp_read_error(int ret)
{
	switch (ret) {
	case -EINVAL:
		return "not a regular file";
	case -EFBIG:
		return "larger than 16 MiB";
	case -EAGAIN:
		return "it changed while being read";
	default:
		return strerror(-ret);
	}
}

static char *lp_include_path(TALLOC_CTX *mem_ctx, const char *from,
			     const char *value)
{
	const char *slash = strrchr(from, '/');

	if (value[0] == '/' || slash == NULL) {
		return talloc_strdup(mem_ctx, value);
	}
	return talloc_asprintf(mem_ctx, "%.*s/%s", (int)(slash - from), from,
			       value);
}

static bool lp_in_stack(struct lp_reader *rd, const char *real)
{
	unsigned i;

	for (i = 0; i < rd->depth; i++) {
		if (rd->stack[i] != NULL && strcmp(rd->stack[i], real) == 0) {
			return true;
		}
	}
	return false;
}

/*
 * Reads path as if its text stood here.  Returns 0, or -errno if it could
 * not be read (a missing include is only a warning, as in Samba).
 */
static int lp_read_nested(struct lp_reader *rd, TALLOC_CTX *tmp,
			  const char *path, const char *real)
{
	struct lp_text sub = { .name = path, .seq = &rd->seq };
	char *data = NULL;
	size_t len = 0;
	int ret = lp_slurp(tmp, path, &data, &len);

	if (ret != 0) {
		return ret;
	}
	sub.p = data;
	sub.end = data + len;
	rd->stack[rd->depth++] = real;
	lp_read_text(rd, &sub);
	rd->depth--;
	return 0;
}

static void lp_include(struct lp_reader *rd, const char *value,
		       const struct lp_text *t, unsigned line)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	char *path = lp_include_path(tmp, t->name, value);
	char *real = (path != NULL) ? realpath(path, NULL) : NULL;
	int ret = 0;

	if (path == NULL) {
		lp_diag_add(rd->diags, LP_DIAG_ERROR, t->name, line,
			    "out of memory");
	} else if (value[0] == '\0') {
		lp_diag_add(rd->diags, LP_DIAG_WARNING, t->name, line,
			    "include of an empty file name: ignored");
	} else if (rd->depth >= LP_MAX_INCLUDE_DEPTH ||
		   (real != NULL && lp_in_stack(rd, real))) {
		lp_diag_add(rd->diags, LP_DIAG_ERROR, t->name, line,
			    "include loop: \"%s\" is already being read "
			    "(or includes nest deeper than %d)", value,
			    LP_MAX_INCLUDE_DEPTH);
	} else if ((ret = lp_read_nested(rd, tmp, path, real)) == -ENOENT) {
		lp_diag_add(rd->diags, LP_DIAG_WARNING, t->name, line,
			    "can't find include file \"%s\": ignored", path);
	} else if (ret != 0) {
		lp_diag_add(rd->diags, LP_DIAG_ERROR, t->name, line,
			    "cannot read include file \"%s\": %s", path,
			    lp_read_error(ret));
	}
	free(real);
	talloc_free(tmp);
}

static void lp_param_line(struct lp_reader *rd, char *line,
			  const struct lp_text *t, unsigned lineno)
{
	char *eq = strchr(line, '=');
	char *key = NULL;

	if (eq == NULL || eq == line) {
		lp_diag_add(rd->diags, LP_DIAG_WARNING, t->name, lineno,
			    "ignoring badly formed line (not [section] or "
			    "name = value)");
		return;
	}
	*eq = '\0';
	key = lp_trim(line);
	if (lp_cur(rd)->ignored) {
		return;
	}
	if (lp_name_eq(key, "include")) {
		lp_include(rd, lp_trim(eq + 1), t, lineno);
		return;
	}
	lp_entry_add(rd, key, lp_trim(eq + 1), t, lineno);
}

static void lp_read_text(struct lp_reader *rd, struct lp_text *t)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	unsigned lineno = 0;
	char *line = NULL;

	while ((line = lp_logical_line(tmp, t, &lineno)) != NULL) {
		rd->diags->seq = *t->seq;
		if (line[0] == '[') {
			lp_section_line(rd, line, t, lineno);
		} else {
			lp_param_line(rd, line, t, lineno);
		}
		talloc_free(line);
	}
	talloc_free(tmp);
}

/* ---- entry points ---- */

static struct lp_raw *lp_raw_new(TALLOC_CTX *mem_ctx, struct lp_reader *rd,
				 struct lp_diags *diags)
{
	struct lp_text none = { .name = "", .seq = &rd->seq };

	*rd = (struct lp_reader) { .diags = diags };
	rd->raw = talloc_zero(mem_ctx, struct lp_raw);
	if (rd->raw == NULL || !lp_section_add(rd, "global", &none, 0)) {
		TALLOC_FREE(rd->raw);
	}
	return rd->raw;
}

struct lp_raw *lp_raw_read_buffer(TALLOC_CTX *mem_ctx, const char *name,
				  const char *text, size_t len,
				  struct lp_diags *diags)
{
	struct lp_reader rd;
	struct lp_text t = { .name = name, .p = text, .end = text + len };

	if (lp_raw_new(mem_ctx, &rd, diags) == NULL) {
		return NULL;
	}
	t.seq = &rd.seq;
	lp_read_text(&rd, &t);
	return rd.raw;
}

struct lp_raw *lp_raw_read_file(TALLOC_CTX *mem_ctx, const char *path,
				struct lp_diags *diags)
{
	struct lp_reader rd;
	char *real = realpath(path, NULL);
	int ret;

	if (lp_raw_new(mem_ctx, &rd, diags) == NULL) {
		free(real);
		return NULL;
	}
	ret = lp_read_nested(&rd, rd.raw, path, real);
	if (ret != 0) {
		lp_diag_add(diags, LP_DIAG_ERROR, path, 0, "cannot read: %s",
			    lp_read_error(ret));
	}
	free(real);
	return rd.raw;
}
