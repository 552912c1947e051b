/*
 * fio job files: "[global]" and "[jobname]" sections of "key=value" or
 * bare "key" lines, "#" and ";" comments.  Only the options smb2bench
 * has; any other line is refused with its file, line and name.
 */
#include <ctype.h>
#include <string.h>

#include "source3/utils/smb2bench/options.h"

struct jobfile {
	TALLOC_CTX *mem_ctx;
	const char *path;
	unsigned line;
	struct job_opts global;
	struct job_opts *cur;	/* &global or the last job */
	struct bench_opts *out;
	char **err;
};

static char *trim(char *s)
{
	char *end = NULL;

	while (isspace((unsigned char)*s)) {
		s++;
	}
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1])) {
		*--end = '\0';
	}
	return s;
}

static bool fail(struct jobfile *jf, const char *msg)
{
	*jf->err = talloc_asprintf(jf->mem_ctx, "%s:%u: %s", jf->path,
				   jf->line, msg);
	return false;
}

static bool section(struct jobfile *jf, char *s)
{
	char *end = strchr(s, ']');
	struct job_opts *jobs = NULL;

	if (end == NULL || end[1] != '\0' || end == s + 1) {
		return fail(jf, "bad section header");
	}
	*end = '\0';
	if (strcmp(s + 1, "global") == 0) {
		jf->cur = &jf->global;
		return true;
	}
	jobs = talloc_realloc(jf->mem_ctx, jf->out->jobs, struct job_opts,
			      jf->out->num_jobs + 1);
	if (jobs == NULL) {
		return fail(jf, "out of memory");
	}
	jf->out->jobs = jobs;
	jf->cur = &jobs[jf->out->num_jobs++];
	*jf->cur = jf->global;
	jf->cur->name = talloc_strdup(jf->mem_ctx, s + 1);
	return true;
}

static bool key_value(struct jobfile *jf, char *s)
{
	char *eq = strchr(s, '=');
	const char *why = NULL;
	char *key = s, *value = NULL;
	int r;

	if (eq != NULL) {
		*eq = '\0';
		key = trim(s);
		value = trim(eq + 1);
	}
	if (jf->cur == NULL) {
		return fail(jf, "option outside a section");
	}
	r = job_opts_set(jf->mem_ctx, jf->cur, key, value, &why);
	if (r == 0) {
		return fail(jf, bench_unknown(jf->mem_ctx, key, key));
	}
	if (r < 0) {
		return fail(jf, talloc_asprintf(jf->mem_ctx,
						"bad value '%s' for %s: want "
						"%s", value ? value : "", key,
						why));
	}
	return true;
}

bool bench_jobfile_parse(TALLOC_CTX *mem_ctx, const char *text,
			 const char *path, const struct job_opts *base,
			 struct bench_opts *out, char **err)
{
	struct jobfile jf = { .mem_ctx = mem_ctx, .path = path,
			      .global = *base, .out = out, .err = err };
	char *line = talloc_strdup(mem_ctx, text);
	size_t before = out->num_jobs;
	bool ok = true;

	while (ok && line != NULL && *line != '\0') {
		char *nl = strchr(line, '\n');
		char *s = NULL;

		if (nl != NULL) {
			*nl = '\0';
		}
		s = trim(line);
		jf.line++;
		if (*s != '\0' && *s != '#' && *s != ';') {
			ok = *s == '[' ? section(&jf, s) : key_value(&jf, s);
		}
		line = nl != NULL ? nl + 1 : NULL;
	}
	if (ok && out->num_jobs == before) {
		*err = talloc_asprintf(mem_ctx, "%s: no job section", path);
		ok = false;
	}
	return ok;
}
