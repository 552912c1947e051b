/*
 * smb2bench options: smbclient's addressing (//HOST/SHARE, -p, -U, -N,
 * -W, -m, -e) and fio's job vocabulary, on the command line
 * (--bs=4k or --bs 4k) and in fio job files (jobfile.c).  Whatever is
 * not supported is refused by its name, never ignored.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source3/utils/smb2bench/smb2bench.h"
#include "source3/utils/smb2bench/options.h"

static const struct {
	const char *name;
	enum bench_rw rw;
} rw_names[] = {
	{ "read", RW_READ }, { "write", RW_WRITE },
	{ "randread", RW_RANDREAD }, { "randwrite", RW_RANDWRITE },
	{ "randrw", RW_RANDRW }, { "rw", RW_RW }, { "readwrite", RW_RW },
	{ "create", RW_CREATE }, { "stat", RW_STAT },
	{ "listdir", RW_LISTDIR }, { "connect", RW_CONNECT },
};

/* fio options people use that smb2bench v1 does not have, with why. */
static const struct {
	const char *name;
	const char *why;
} refused[] = {
	{ "ioengine", "smb2bench is its own engine (io_uring over SMB2)" },
	{ "direct", "not supported; SMB2 READ/WRITE have no O_DIRECT" },
	{ "group_reporting", "not supported; each job is reported" },
	{ "offset", "not supported" },
	{ "directory", "not supported; use --filename with a path (a "
		       "metadata mode's folder)" },
	{ "fsync", "not supported" },
	{ "rate", "not supported" },
	{ "bsrange", "not supported; one --bs" },
	{ "stonewall", "not supported; all jobs run at once" },
	{ "loops", "not supported" },
	{ "startdelay", "not supported" },
	{ "ramp_time", "not supported" },
	{ "norandommap", "not supported; random jobs visit every block once "
			 "per pass" },
	{ "do_verify", "not an option here: with --verify=pattern every READ "
		       "is checked and a write-only job reads back" },
};

const char *bench_rw_name(enum bench_rw rw)
{
	size_t i;

	for (i = 0; i < sizeof(rw_names) / sizeof(rw_names[0]); i++) {
		if (rw_names[i].rw == rw) {
			return rw_names[i].name;
		}
	}
	return "?";
}

bool bench_parse_size(const char *s, uint64_t *out)
{
	char *end = NULL;
	unsigned long long v;
	uint64_t mult = 1;

	if (s == NULL || !isdigit((unsigned char)s[0])) {
		return false;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0) {
		return false;
	}
	switch (tolower((unsigned char)*end)) {
	case 'k': mult = 1ULL << 10; end++; break;
	case 'm': mult = 1ULL << 20; end++; break;
	case 'g': mult = 1ULL << 30; end++; break;
	case 't': mult = 1ULL << 40; end++; break;
	default: break;
	}
	/* fio's default kb_base is 1024: 4k, 4ki, 4kb and 4kib all 4096 */
	if (mult > 1 && tolower((unsigned char)*end) == 'i') {
		end++;
	}
	if (tolower((unsigned char)*end) == 'b') {
		end++;
	}
	if (*end != '\0' || (v != 0 && mult > UINT64_MAX / v)) {
		return false;
	}
	*out = v * mult;
	return true;
}

bool bench_parse_time(const char *s, double *out)
{
	char *end = NULL;
	double v;

	if (s == NULL || !isdigit((unsigned char)s[0])) {
		return false;
	}
	v = strtod(s, &end);
	if (strcmp(end, "") == 0 || strcmp(end, "s") == 0) {
		*out = v;
	} else if (strcmp(end, "ms") == 0) {
		*out = v / 1000.0;
	} else if (strcmp(end, "m") == 0) {
		*out = v * 60.0;
	} else if (strcmp(end, "h") == 0) {
		*out = v * 3600.0;
	} else {
		return false;
	}
	return true;
}

static bool parse_uint(const char *s, unsigned lo, unsigned hi,
		       unsigned *out)
{
	char *end = NULL;
	unsigned long v;

	if (s == NULL || !isdigit((unsigned char)s[0])) {
		return false;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi) {
		return false;
	}
	*out = (unsigned)v;
	return true;
}

/* fio booleans: a bare flag, or =1/0, true/false. */
static bool parse_bool(const char *s, bool *out)
{
	if (s == NULL || strcmp(s, "1") == 0 || strcmp(s, "true") == 0) {
		*out = true;
	} else if (strcmp(s, "0") == 0 || strcmp(s, "false") == 0) {
		*out = false;
	} else {
		return false;
	}
	return true;
}

void job_opts_defaults(struct job_opts *j)
{
	*j = (struct job_opts){
		.rw = RW_READ, .rwmixread = 50, .bs = 4096, .iodepth = 1,
		.numjobs = 1, .randseed = 0x5eed, .nrfiles = 100,
	};
}

/* One setter per fio option: false for a value it does not take. */
typedef bool (*job_set_fn)(TALLOC_CTX *mem_ctx, struct job_opts *j,
			   const char *v);

static bool set_name(TALLOC_CTX *mem_ctx, struct job_opts *j, const char *v)
{
	j->name = talloc_strdup(mem_ctx, v != NULL ? v : "");
	return v != NULL && v[0] != '\0';
}

static bool set_rw(TALLOC_CTX *mem_ctx, struct job_opts *j, const char *v)
{
	size_t i;

	for (i = 0; v != NULL && i < sizeof(rw_names) / sizeof(rw_names[0]);
	     i++) {
		if (strcmp(v, rw_names[i].name) == 0) {
			j->rw = rw_names[i].rw;
			return true;
		}
	}
	return false;
}

static bool set_mixread(TALLOC_CTX *mem_ctx, struct job_opts *j,
			const char *v)
{
	return parse_uint(v, 0, 100, &j->rwmixread);
}

static bool set_mixwrite(TALLOC_CTX *mem_ctx, struct job_opts *j,
			 const char *v)
{
	unsigned u = 0;

	return parse_uint(v, 0, 100, &u) && (j->rwmixread = 100 - u, true);
}

static bool set_bs(TALLOC_CTX *mem_ctx, struct job_opts *j, const char *v)
{
	/* one size; fio's "4k,8k" read,write pairs are not supported */
	return bench_parse_size(v, &j->bs) && j->bs >= 1 &&
	       j->bs <= 8 * 1024 * 1024;
}

static bool set_iodepth(TALLOC_CTX *mem_ctx, struct job_opts *j,
			const char *v)
{
	return parse_uint(v, 1, 1024, &j->iodepth);
}

static bool set_numjobs(TALLOC_CTX *mem_ctx, struct job_opts *j,
			const char *v)
{
	return parse_uint(v, 1, 256, &j->numjobs);
}

static bool set_size(TALLOC_CTX *mem_ctx, struct job_opts *j, const char *v)
{
	return bench_parse_size(v, &j->size);
}

static bool set_runtime(TALLOC_CTX *mem_ctx, struct job_opts *j,
			const char *v)
{
	return bench_parse_time(v, &j->runtime);
}

static bool set_time_based(TALLOC_CTX *mem_ctx, struct job_opts *j,
			   const char *v)
{
	return parse_bool(v, &j->time_based);
}

static bool set_filename(TALLOC_CTX *mem_ctx, struct job_opts *j,
			 const char *v)
{
	j->filename = talloc_strdup(mem_ctx, v != NULL ? v : "");
	/* fio's "a:b" lists several files; one file per job here */
	return v != NULL && v[0] != '\0' && strchr(v, ':') == NULL;
}

static bool set_verify(TALLOC_CTX *mem_ctx, struct job_opts *j,
		       const char *v)
{
	bool on = true;

	if (v != NULL && strcmp(v, "pattern") == 0) {
		j->verify = true;
		return true;
	}
	return parse_bool(v, &on) && !on && (j->verify = false, true);
}

static bool set_randseed(TALLOC_CTX *mem_ctx, struct job_opts *j,
			 const char *v)
{
	unsigned u = 0;

	return parse_uint(v, 0, UINT32_MAX, &u) && (j->randseed = u, true);
}

static bool set_nrfiles(TALLOC_CTX *mem_ctx, struct job_opts *j,
			const char *v)
{
	return parse_uint(v, 1, 1000000, &j->nrfiles);
}

#define RW_WANT "read, write, randread, randwrite, randrw, rw, or the " \
		"metadata modes create, stat, listdir, connect"

static const struct {
	const char *name;
	job_set_fn set;
	const char *want;	/* for the message about a bad value */
} job_keys[] = {
	{ "name", set_name, "a name" },
	{ "rw", set_rw, RW_WANT },
	{ "readwrite", set_rw, RW_WANT },
	{ "rwmixread", set_mixread, "a percentage, 0 to 100" },
	{ "rwmixwrite", set_mixwrite, "a percentage, 0 to 100" },
	{ "bs", set_bs, "one size from 1 to 8m (fio syntax: 4k, 1m)" },
	{ "blocksize", set_bs, "one size from 1 to 8m (fio syntax: 4k, 1m)" },
	{ "iodepth", set_iodepth, "a number from 1 to 1024" },
	{ "numjobs", set_numjobs, "a number from 1 to 256" },
	{ "size", set_size, "a size (fio syntax: 100m, 1g)" },
	{ "runtime", set_runtime, "seconds (30, 30s, 500ms, 2m)" },
	{ "time_based", set_time_based, "nothing, 1 or 0" },
	{ "filename", set_filename, "one file name in the share" },
	{ "verify", set_verify, "pattern or 0 (crc32c, md5 ... are not "
				"supported: --verify=pattern checks every "
				"byte read)" },
	{ "randseed", set_randseed, "a number" },
	{ "nrfiles", set_nrfiles, "a number of files, 1 to 1000000" },
};

/* 1 set, 0 not a job option, -1 bad value (*why says what is wanted). */
int job_opts_set(TALLOC_CTX *mem_ctx, struct job_opts *j, const char *key,
		 const char *v, const char **why)
{
	size_t i;

	*why = NULL;
	for (i = 0; i < sizeof(job_keys) / sizeof(job_keys[0]); i++) {
		if (strcmp(key, job_keys[i].name) == 0) {
			*why = job_keys[i].want;
			return job_keys[i].set(mem_ctx, j, v) ? 1 : -1;
		}
	}
	return 0;
}

/* The reason key is refused, or NULL if it is simply unknown. */
const char *bench_refused_why(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (strcmp(key, refused[i].name) == 0) {
			return refused[i].why;
		}
	}
	return NULL;
}

/* "unsupported option <shown>: why" for a key that is not an option. */
char *bench_unknown(TALLOC_CTX *mem_ctx, const char *shown, const char *key)
{
	const char *why = bench_refused_why(key);

	return talloc_asprintf(mem_ctx, "unsupported option %s: %s", shown,
			       why != NULL ? why : "unknown to smb2bench");
}
