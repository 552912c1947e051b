/*
 * testparm: check an smb.conf and print the configuration it gives, as
 * Samba's testparm does.  Exit code 1 when the file has errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "lib/param/param.h"
/* --parameter-list walks the table itself (the man page is made from it) */
#include "lib/param/param_private.h"

struct testparm_options {
	bool suppress_prompt;
	bool verbose;
	bool parameter_list;
	const char *config_file;        /* NULL: the default path */
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: testparm [OPTION...] [CONFIGFILE]\n"
		"  -s, --suppress-prompt   do not wait for enter before "
		"the dump\n"
		"  -v, --verbose           also show parameters with their "
		"default value\n"
		"      --parameter-list    every parameter, tab-separated: name, "
		"scope,\n"
		"                          default, synonyms, inverted "
		"synonyms, type\n"
		"  -h, --help              this help\n"
		"Without CONFIGFILE: %s\n", lp_default_config_file());
}

static int parse_args(int argc, char **argv, struct testparm_options *o)
{
	static const struct option longopts[] = {
		{ "suppress-prompt", no_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "parameter-list", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "svh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->suppress_prompt = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'P':
			o->parameter_list = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return -1;
	}
	o->config_file = (optind < argc) ? argv[optind] : NULL;
	return 0;
}

static void print_diags(const struct lp_diag *d)
{
	for (; d != NULL; d = d->next) {
		fprintf(stderr, "%s%s\n",
			d->severity == LP_DIAG_ERROR ? "ERROR: " : "WARNING: ",
			d->message);
	}
}

static void dump(const struct loadparm *lp, const struct testparm_options *o)
{
	if (!o->suppress_prompt) {
		fprintf(stderr, "Press enter to see a dump of your service "
			"definitions\n");
		fflush(stderr);
		(void)getchar();
	}
	fprintf(stderr, "\n");
	lp_dump(stdout, lp, o->verbose);
}

static void print_names(const char *const *names)
{
	size_t i;

	for (i = 0; names != NULL && names[i] != NULL; i++) {
		printf("%s%s", i > 0 ? ", " : "", names[i]);
	}
}

/*
 * The table as data, one line a parameter, for docs/man/mkconfman.py
 * (smb.conf(5)) and the test that docs/smb.conf.md names every one.
 * A NULL default is computed at run time.
 */
static int parameter_list(TALLOC_CTX *mem_ctx)
{
	size_t i;

	for (i = 0; i < lp_num_params; i++) {
		const struct lp_param *p = &lp_params[i];
		char *type = lp_value_expected(mem_ctx, p);

		printf("%s\t%s\t%s\t", p->name,
		       p->scope & LP_SCOPE_SHARE ? "share" : "global",
		       p->def != NULL ? p->def : "(computed)");
		print_names(p->synonyms);
		printf("\t");
		print_names(p->inverted);
		printf("\t%s\n", type != NULL ? type : "");
		TALLOC_FREE(type);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* No file argument and nothing at the default path: what smbd would use */
static int show_embedded_default(TALLOC_CTX *mem_ctx,
				 const struct testparm_options *o)
{
	struct loadparm *lp = lp_load_default(mem_ctx);

	if (lp == NULL) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	fprintf(stderr, "%s does not exist: smbd uses the embedded default "
		"configuration\n", lp_default_config_file());
	fprintf(stderr, "Loaded services file OK.\n");
	dump(lp, o);
	return 0;
}

static int testparm(TALLOC_CTX *mem_ctx, const struct testparm_options *o)
{
	const char *file = o->config_file;
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;

	if (file == NULL) {
		file = lp_default_config_file();
	}
	fprintf(stderr, "Load smb config files from %s\n", file);
	if (o->config_file == NULL && access(file, F_OK) != 0) {
		return show_embedded_default(mem_ctx, o);
	}
	if (lp_load_file(mem_ctx, file, &lp, &diags) != 0) {
		print_diags(diags);
		fprintf(stderr, "Error loading services.\n");
		return 1;
	}
	print_diags(diags);
	fprintf(stderr, "Loaded services file OK.\n");
	dump(lp, o);
	return 0;
}

int main(int argc, char **argv)
{
	struct testparm_options o = { .config_file = NULL };
	TALLOC_CTX *mem_ctx = NULL;
	int ret;

	if (parse_args(argc, argv, &o) != 0) {
		return 1;
	}
	mem_ctx = talloc_new(NULL);
	if (mem_ctx == NULL) {
		return 1;
	}
	ret = o.parameter_list ? parameter_list(mem_ctx) :
		testparm(mem_ctx, &o);
	talloc_free(mem_ctx);
	return ret;
}
