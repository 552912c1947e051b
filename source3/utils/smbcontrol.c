/*
 * smbcontrol: send a message to the running smbd, with Samba's command
 * line (docs/admin.md):
 *   smbcontrol [-s CONFIGFILE] smbd MESSAGE [ARGUMENT...]
 * It reaches smbd through the control socket in the lock directory.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "source3/utils/ctl_client.h"

struct message {
	const char *name;
	int min_args, max_args;
	const char *usage;
};

static const struct message messages[] = {
	{ "ping", 0, 0, "ping: check that smbd answers" },
	{ "reload-config", 0, 0,
	  "reload-config: read smb.conf again (as SIGHUP)" },
	{ "debug", 1, 16,
	  "debug LEVEL [CLASS:LEVEL...]: set the log levels" },
	{ "debuglevel", 0, 0, "debuglevel: show the log levels" },
	{ "close-share", 1, 1,
	  "close-share NAME: disconnect the clients using share NAME" },
	{ "kill-client-ip", 1, 1,
	  "kill-client-ip ADDR: disconnect the clients from ADDR" },
	{ "shutdown", 0, 0, "shutdown: stop smbd" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: smbcontrol [-s CONFIGFILE] smbd MESSAGE "
		"[ARGUMENT...]\nMessages:\n");
	for (i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
		fprintf(f, "  %s\n", messages[i].usage);
	}
}

static void print_answer(const char *msg, const struct kvrec *recs,
			 size_t num)
{
	size_t i;

	for (i = 0; i < num; i++) {
		const struct kvrec *r = &recs[i];
		const char *pid = kvrec_get(r, "pid");

		if (strcmp(r->type, "pong") == 0) {
			printf("PONG from pid %s\n", pid != NULL ? pid : "?");
		} else if (strcmp(r->type, "debuglevel") == 0 &&
			   strcmp(msg, "debuglevel") == 0) {
			printf("PID %s: %s\n", pid != NULL ? pid : "?",
			       kvrec_get(r, "levels") ?: "?");
		} else if (strcmp(r->type, "debuglevel") == 0 &&
			   kvrec_get(r, "warning") != NULL) {
			fprintf(stderr, "smbcontrol: %s\n",
				kvrec_get(r, "warning"));
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "configfile", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct message *m = NULL;
	const char *configfile = NULL;
	TALLOC_CTX *mem_ctx = NULL;
	struct kvrec *recs = NULL;
	size_t i, num = 0;
	char *line = NULL;
	int c, nargs, ret;

	while ((c = getopt_long(argc, argv, "s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			configfile = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (argc - optind < 2) {
		usage(stderr);
		return 1;
	}
	if (strcmp(argv[optind], "smbd") != 0 &&
	    strcmp(argv[optind], "all") != 0) {
		fprintf(stderr, "smbcontrol: unknown destination \"%s\": "
			"ringsmb has one daemon, \"smbd\"\n", argv[optind]);
		return 1;
	}
	for (i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
		if (strcmp(argv[optind + 1], messages[i].name) == 0) {
			m = &messages[i];
		}
	}
	nargs = argc - optind - 2;
	if (m == NULL || nargs < m->min_args || nargs > m->max_args) {
		fprintf(stderr, "smbcontrol: %s \"%s\"\n", m == NULL ?
			"unknown message" : "wrong arguments for",
			argv[optind + 1]);
		usage(stderr);
		return 1;
	}
	mem_ctx = talloc_new(NULL);
	line = talloc_strdup(mem_ctx, m->name);
	for (c = optind + 2; c < argc && line != NULL; c++) {
		if (strchr(argv[c], '\n') != NULL) {
			fprintf(stderr, "smbcontrol: a newline in an "
				"argument\n");
			talloc_free(mem_ctx);
			return 1;
		}
		line = talloc_asprintf_append(line, " %s", argv[c]);
	}
	if (line == NULL) {
		talloc_free(mem_ctx);
		return 1;
	}
	ret = ctl_request(mem_ctx, "smbcontrol", configfile, line, &recs,
			  &num);
	if (ret == 0) {
		print_answer(m->name, recs, num);
	}
	talloc_free(mem_ctx);
	return ret;
}
