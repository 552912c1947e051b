/*
 * smb2bench's command line: smbclient's addressing and SMB options, fio's
 * job options as --key=value or --key value, and job files (any
 * argument that is neither an option nor //HOST/SHARE).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source3/utils/smb2bench/options.h"

/* Long options that take no value (a following argument is not theirs). */
static const char *const flags[] = {
	"time_based", "signing", "encrypt", "help", "no-pass", "read-copy",
	"compound", NULL,
};

static const struct {
	const char *name;
	uint16_t dialect;
} dialects[] = {
	{ "SMB2_02", SMB2_DIALECT_0202 }, { "SMB2_10", SMB2_DIALECT_0210 },
	{ "SMB3", SMB2_DIALECT_0311 }, { "SMB3_00", SMB2_DIALECT_0300 },
	{ "SMB3_02", SMB2_DIALECT_0302 }, { "SMB3_11", SMB2_DIALECT_0311 },
};

static const struct {
	const char *name;
	uint16_t cipher;
} ciphers[] = {
	{ "aes-128-gcm", SMB2_ENCRYPTION_AES128_GCM },
	{ "aes-128-ccm", SMB2_ENCRYPTION_AES128_CCM },
	{ "aes-256-gcm", SMB2_ENCRYPTION_AES256_GCM },
	{ "aes-256-ccm", SMB2_ENCRYPTION_AES256_CCM },
};

void bench_usage(FILE *f)
{
	fprintf(f,
"usage: smb2bench //HOST/SHARE [-p PORT] (-U [DOMAIN\\]USER%%PASS | -N)\n"
"                 [SMB options] [fio options] [jobfile.fio ...]\n"
"SMB options (as smbclient):\n"
"  -p, --port PORT          TCP port (445)\n"
"  -U, --user [DOM\\]USER[%%PASS]  user (password also from $PASSWD)\n"
"  -N, --no-pass            anonymous (guest) session\n"
"  -W, --workgroup DOMAIN   the user's domain\n"
"  -m, --max-protocol P     SMB2_02 SMB2_10 SMB3_00 SMB3_02 SMB3_11\n"
"      --signing            sign even if the server does not require it\n"
"  -e, --encrypt[=CIPHER]   aes-128-gcm (default) aes-128-ccm aes-256-gcm\n"
"                           aes-256-ccm\n"
"fio options (--key=value or --key value; also in job files):\n"
"  --name NAME --rw read|write|randread|randwrite|randrw|rw\n"
"  --rwmixread PCT --bs SIZE --iodepth N --numjobs N --size SIZE\n"
"  --runtime SECONDS --time_based --filename NAME --randseed N\n"
"  --verify=pattern         write a known pattern, check every read\n"
"  --output-format normal|json   --eta auto|always|never\n"
"  --server-pid PID         also report the server's CPU per GiB\n"
"  --read-copy              copy every READ payload to user memory (by\n"
"                           default unchecked payloads of 64 KiB or more\n"
"                           are dropped in the kernel: MSG_TRUNC)\n"
"Multichannel (SMB 3.x, a user session):\n"
"  --channels N             N connections bound to each job's session\n"
"  --channel-addrs A,B,...  connect them to these addresses (default: the\n"
"                           server's FSCTL_QUERY_NETWORK_INTERFACE_INFO)\n"
"Metadata modes (one operation at a time per job, docs/bench.md):\n"
"  --rw create|stat|listdir|connect  on --nrfiles N files (100) in the\n"
"                           job's folder (--filename)\n"
"  --compound               stat sends CREATE + QUERY_INFO + CLOSE as one\n"
"                           related compound, as Windows does\n");
}

static bool is_flag(const char *key)
{
	size_t i;

	for (i = 0; flags[i] != NULL; i++) {
		if (strcmp(key, flags[i]) == 0) {
			return true;
		}
	}
	return false;
}

/* //HOST/SHARE or \\HOST\SHARE */
static bool parse_unc(TALLOC_CTX *mem_ctx, const char *s,
		      struct smb_opts *o)
{
	char *copy = talloc_strdup(mem_ctx, s + 2);
	char *slash = NULL, *p = NULL;

	for (p = copy; p != NULL && *p != '\0'; p++) {
		if (*p == '\\') {
			*p = '/';
		}
	}
	slash = copy != NULL ? strchr(copy, '/') : NULL;
	if (slash == NULL || slash == copy || slash[1] == '\0' ||
	    strchr(slash + 1, '/') != NULL) {
		return false;
	}
	*slash = '\0';
	o->host = copy;
	o->share = slash + 1;
	return true;
}

/* [DOMAIN\ or DOMAIN/]USER[%PASS] */
static void parse_user(TALLOC_CTX *mem_ctx, const char *s,
		       struct smb_opts *o)
{
	char *u = talloc_strdup(mem_ctx, s);
	char *sep = strpbrk(u, "\\/");
	char *pct = NULL;

	if (sep != NULL) {
		*sep = '\0';
		o->domain = u;
		u = sep + 1;
	}
	pct = strchr(u, '%');
	if (pct != NULL) {
		*pct = '\0';
		o->password = pct + 1;
	}
	o->user = u;
}

static bool set_dialect(const char *v, struct smb_opts *o)
{
	size_t i;

	for (i = 0; v != NULL && i < sizeof(dialects) / sizeof(dialects[0]);
	     i++) {
		if (strcasecmp(v, dialects[i].name) == 0) {
			o->max_dialect = dialects[i].dialect;
			return true;
		}
	}
	return false;
}

static bool set_cipher(const char *v, struct smb_opts *o)
{
	size_t i;

	if (v == NULL) {
		o->cipher = SMB2_ENCRYPTION_AES128_GCM;
		return true;
	}
	for (i = 0; i < sizeof(ciphers) / sizeof(ciphers[0]); i++) {
		if (strcasecmp(v, ciphers[i].name) == 0) {
			o->cipher = ciphers[i].cipher;
			return true;
		}
	}
	return false;
}

static bool set_addrs(TALLOC_CTX *mem_ctx, const char *v, struct smb_opts *o)
{
	char *copy = talloc_strdup(mem_ctx, v), *save = NULL, *a = NULL;

	o->num_channel_addrs = 0;
	for (a = strtok_r(copy, ",", &save); a != NULL;
	     a = strtok_r(NULL, ",", &save)) {
		o->channel_addrs = talloc_realloc(mem_ctx, o->channel_addrs,
						  char *,
						  o->num_channel_addrs + 1);
		o->channel_addrs[o->num_channel_addrs++] = a;
	}
	return o->num_channel_addrs > 0;
}

/* --channels, --channel-addrs; 0 if key is neither. */
static int set_channel_opt(TALLOC_CTX *mem_ctx, struct bench_opts *o,
			   const char *key, const char *v, const char **why)
{
	int n = 0;

	if (strcmp(key, "channels") == 0) {
		*why = "a number of channels, 1 to 32";
		n = v != NULL ? atoi(v) : 0;
		o->smb.channels = (unsigned)n;
		return n >= 1 && n <= 32 ? 1 : -1;
	}
	if (strcmp(key, "channel-addrs") == 0) {
		*why = "addresses separated by commas";
		return v != NULL && set_addrs(mem_ctx, v, &o->smb) ? 1 : -1;
	}
	return 0;
}

/* The options that are not fio job options; 0 if key is not one. */
static int set_global(TALLOC_CTX *mem_ctx, struct bench_opts *o,
		      const char *key, const char *v, const char **why)
{
	unsigned u = 0;
	int r = set_channel_opt(mem_ctx, o, key, v, why);

	if (r != 0) {
		return r;
	}
	if (strcmp(key, "port") == 0) {
		*why = "a port number";
		return (v != NULL && (u = (unsigned)atoi(v)) > 0 && u < 65536) ?
			       (o->smb.port = u, 1) : -1;
	}
	if (strcmp(key, "user") == 0) {
		*why = "[DOMAIN\\]USER[%PASS]";
		if (v == NULL || v[0] == '\0') {
			return -1;
		}
		parse_user(mem_ctx, v, &o->smb);
		return 1;
	}
	if (strcmp(key, "no-pass") == 0) {
		o->smb.anonymous = true;
		return 1;
	}
	if (strcmp(key, "workgroup") == 0) {
		*why = "a domain name";
		o->smb.domain = talloc_strdup(mem_ctx, v != NULL ? v : "");
		return v != NULL ? 1 : -1;
	}
	if (strcmp(key, "max-protocol") == 0) {
		*why = "SMB2_02, SMB2_10, SMB3_00, SMB3_02 or SMB3_11";
		return set_dialect(v, &o->smb) ? 1 : -1;
	}
	if (strcmp(key, "signing") == 0) {
		o->smb.signing = true;
		return 1;
	}
	if (strcmp(key, "compound") == 0) {
		o->smb.compound = true;
		return 1;
	}
	if (strcmp(key, "read-copy") == 0) {
		o->smb.read_copy = true;
		return 1;
	}
	if (strcmp(key, "encrypt") == 0) {
		*why = "aes-128-gcm, aes-128-ccm, aes-256-gcm or aes-256-ccm";
		return set_cipher(v, &o->smb) ? 1 : -1;
	}
	if (strcmp(key, "output-format") == 0) {
		*why = "normal or json";
		if (v != NULL && strcmp(v, "json") == 0) {
			o->fmt = FMT_JSON;
		} else if (v != NULL && strcmp(v, "normal") == 0) {
			o->fmt = FMT_NORMAL;
		} else {
			return -1;
		}
		return 1;
	}
	if (strcmp(key, "eta") == 0) {
		*why = "auto, always or never";
		if (v == NULL) {
			return -1;
		}
		o->progress = strcmp(v, "always") == 0 ? 1 :
			      strcmp(v, "never") == 0 ? 0 :
			      strcmp(v, "auto") == 0 ? -1 : -2;
		return o->progress == -2 ? -1 : 1;
	}
	if (strcmp(key, "server-pid") == 0) {
		*why = "a process id";
		return (v != NULL && (o->server_pid = atol(v)) > 0) ? 1 : -1;
	}
	return 0;
}

static const char *short_option(char c)
{
	switch (c) {
	case 'p': return "port";
	case 'U': return "user";
	case 'N': return "no-pass";
	case 'W': return "workgroup";
	case 'm': return "max-protocol";
	case 'e': return "encrypt";
	case 'h': return "help";
	default: return NULL;
	}
}

struct cmdline {
	TALLOC_CTX *mem_ctx;
	struct bench_opts *o;
	struct job_opts *job;	/* the command line's job, or defaults */
	const char **files;
	size_t num_files;
	bool help;
	char *err;
};

/* One option; *used says whether the next argument was its value. */
static bool one_option(struct cmdline *cl, const char *key, const char *v,
		       const char *shown)
{
	const char *why = NULL;
	int r;

	if (strcmp(key, "help") == 0) {
		cl->help = true;
		return true;
	}
	r = set_global(cl->mem_ctx, cl->o, key, v, &why);
	if (r == 0) {
		r = job_opts_set(cl->mem_ctx, cl->job, key, v, &why);
	}
	if (r == 0) {
		cl->err = bench_unknown(cl->mem_ctx, shown, key);
		return false;
	}
	if (r < 0) {
		cl->err = talloc_asprintf(cl->mem_ctx,
					  "bad value '%s' for %s: want %s",
					  v != NULL ? v : "", shown, why);
		return false;
	}
	return true;
}

/* Argument i; returns how many arguments it used, 0 on error. */
static int one_arg(struct cmdline *cl, int argc, char **argv, int i)
{
	const char *a = argv[i];
	const char *next = i + 1 < argc ? argv[i + 1] : NULL;
	char *key = NULL, *eq = NULL;

	if (strncmp(a, "//", 2) == 0 || strncmp(a, "\\\\", 2) == 0) {
		if (!parse_unc(cl->mem_ctx, a, &cl->o->smb)) {
			cl->err = talloc_asprintf(cl->mem_ctx,
						  "bad share '%s': want "
						  "//HOST/SHARE", a);
			return 0;
		}
		return 1;
	}
	if (a[0] == '-' && a[1] != '-' && a[1] != '\0') {
		const char *name = short_option(a[1]);

		if (name == NULL) {
			cl->err = bench_unknown(cl->mem_ctx, a, a);
			return 0;
		}
		if (is_flag(name)) {
			return one_option(cl, name, a[2] ? a + 2 : NULL, a) ?
				       1 : 0;
		}
		if (a[2] != '\0') {	/* -Uuser%pass, -p445 */
			return one_option(cl, name, a + 2, a) ? 1 : 0;
		}
		return one_option(cl, name, next, a) ? 2 : 0;
	}
	if (a[0] == '-' && a[1] == '-') {
		key = talloc_strdup(cl->mem_ctx, a + 2);
		eq = strchr(key, '=');
		if (eq != NULL) {
			*eq = '\0';
			return one_option(cl, key, eq + 1, a) ? 1 : 0;
		}
		if (is_flag(key) || bench_refused_why(key) != NULL) {
			return one_option(cl, key, NULL, a) ? 1 : 0;
		}
		return one_option(cl, key, next, a) ? 2 : 0;
	}
	cl->files = talloc_realloc(cl->mem_ctx, cl->files, const char *,
				   cl->num_files + 1);
	cl->files[cl->num_files++] = a;
	return 1;
}

static bool load_jobfiles(struct cmdline *cl)
{
	size_t i;

	for (i = 0; i < cl->num_files; i++) {
		FILE *f = fopen(cl->files[i], "r");
		char *text = NULL;
		size_t len = 0;

		if (f == NULL) {
			cl->err = talloc_asprintf(cl->mem_ctx,
						  "%s: cannot open job file",
						  cl->files[i]);
			return false;
		}
		text = talloc_zero_array(cl->mem_ctx, char, 1 << 20);
		len = fread(text, 1, (1 << 20) - 1, f);
		fclose(f);
		text[len] = '\0';
		if (!bench_jobfile_parse(cl->mem_ctx, text, cl->files[i],
					 cl->job, cl->o, &cl->err)) {
			return false;
		}
	}
	return true;
}

/* What a metadata mode does not take, or NULL. */
static const char *meta_refuses(const struct job_opts *j,
				const struct smb_opts *smb)
{
	if (smb->compound && j->rw != RW_STAT) {
		return "--compound: only with --rw=stat";
	}
	if (!RW_IS_META(j->rw)) {
		return NULL;
	}
	if (j->iodepth > 1) {
		return "--iodepth: a metadata mode runs one operation at a "
		       "time per job; use --numjobs";
	}
	if (smb->channels > 1) {
		return "--channels: not with a metadata mode";
	}
	if (j->verify) {
		return "--verify: not with a metadata mode";
	}
	return NULL;
}

/* What a run needs, checked once everything is parsed. */
static bool check(struct cmdline *cl)
{
	struct bench_opts *o = cl->o;
	size_t i;

	if (o->smb.host == NULL) {
		cl->err = talloc_strdup(cl->mem_ctx,
					"no share given: want //HOST/SHARE");
		return false;
	}
	if (!o->smb.anonymous && o->smb.user == NULL) {
		cl->err = talloc_strdup(cl->mem_ctx,
					"no user: -U USER%PASS or -N");
		return false;
	}
	if (!o->smb.anonymous && o->smb.password == NULL) {
		o->smb.password = getenv("PASSWD");
		if (o->smb.password == NULL) {
			cl->err = talloc_strdup(cl->mem_ctx,
						"no password: -U USER%PASS "
						"or $PASSWD");
			return false;
		}
	}
	if (o->smb.anonymous && o->smb.cipher != 0) {
		cl->err = talloc_strdup(cl->mem_ctx, "--encrypt needs a user: "
					"an anonymous session has no keys");
		return false;
	}
	if (o->smb.channels > 1 && (o->smb.anonymous ||
				    o->smb.max_dialect < SMB2_DIALECT_0300)) {
		cl->err = talloc_strdup(cl->mem_ctx, o->smb.anonymous ?
					"--channels needs a user: a binding is "
					"signed with the session's key" :
					"--channels needs SMB 3.x: SMB 2.x has "
					"no multichannel");
		return false;
	}
	for (i = 0; i < o->num_jobs; i++) {
		const char *no = meta_refuses(&o->jobs[i], &o->smb);

		if (no != NULL) {
			cl->err = talloc_asprintf(cl->mem_ctx, "job %s: %s",
						  o->jobs[i].name, no);
			return false;
		}
		if (o->jobs[i].verify && o->jobs[i].bs % 8 != 0) {
			cl->err = talloc_asprintf(cl->mem_ctx,
						  "job %s: --verify=pattern "
						  "needs --bs a multiple of 8",
						  o->jobs[i].name);
			return false;
		}
	}
	return true;
}

bool bench_opts_parse(TALLOC_CTX *mem_ctx, int argc, char **argv,
		      struct bench_opts *out, bool *help, char **err)
{
	struct cmdline cl = { .mem_ctx = mem_ctx, .o = out };
	int i = 1, used = 0;

	*out = (struct bench_opts){ .progress = -1 };
	out->smb.port = 445;
	out->smb.channels = 1;
	out->smb.max_dialect = SMB2_DIALECT_0311;
	cl.job = talloc_zero(mem_ctx, struct job_opts);
	job_opts_defaults(cl.job);
	while (i < argc) {
		used = one_arg(&cl, argc, argv, i);
		if (used == 0) {
			*err = cl.err;
			return false;
		}
		i += used;
	}
	*help = cl.help;
	if (cl.help) {
		return true;
	}
	if (cl.num_files == 0) {
		if (cl.job->name == NULL) {
			cl.job->name = talloc_strdup(mem_ctx, "job");
		}
		out->jobs = cl.job;
		out->num_jobs = 1;
	} else {
		/* the command line's fio options are the files' defaults */
		if (!load_jobfiles(&cl)) {
			*err = cl.err;
			return false;
		}
	}
	if (!check(&cl)) {
		*err = cl.err;
		return false;
	}
	return true;
}
