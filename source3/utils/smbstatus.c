/*
 * smbstatus: who is connected, what they use, what is open and locked,
 * in Samba's output shape (docs/admin.md):
 *   smbstatus [-b|-p] [-S] [-L] [--json] [-s CONFIGFILE]
 * asked from the running smbd over its control socket: exact at the
 * moment of asking, never parsed from logs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "source3/utils/ctl_client.h"

struct opts {
	bool sessions, shares, locks, json;
	const char *configfile;
};

static const char *get(const struct kvrec *r, const char *key)
{
	const char *v = kvrec_get(r, key);

	return v != NULL ? v : "";
}

static const char *dialect_name(const char *hex)
{
	unsigned long d = strtoul(hex, NULL, 16);

	switch (d) {
	case 0x0202: return "SMB2_02";
	case 0x0210: return "SMB2_10";
	case 0x0300: return "SMB3_00";
	case 0x0302: return "SMB3_02";
	case 0x0311: return "SMB3_11";
	}
	return "Unknown";
}

/* A Unix time as Samba's smbstatus writes it. */
static const char *when(const char *unix_time, char *buf, size_t len)
{
	time_t t = (time_t)strtoll(unix_time, NULL, 10);
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%a %b %e %H:%M:%S %Y %Z", &tm) == 0) {
		snprintf(buf, len, "%s", unix_time);
	}
	return buf;
}

/* The record of type with key == value, or NULL. */
static const struct kvrec *find(const struct kvrec *recs, size_t num,
				const char *type, const char *key,
				const char *value)
{
	size_t i;

	for (i = 0; i < num; i++) {
		if (strcmp(recs[i].type, type) == 0 &&
		    strcmp(get(&recs[i], key), value) == 0) {
			return &recs[i];
		}
	}
	return NULL;
}

static void text_sessions(const char *pid, const struct kvrec *recs,
			  size_t num)
{
	char machine[160];
	size_t i;

	printf("%-7s %-12s %-12s %-41s %-17s %-20s %-21s %s\n", "PID",
	       "Username", "Group", "Machine", "Protocol Version",
	       "Encryption", "Signing", "Bytes in/out");
	printf("----------------------------------------------------------"
	       "------------------------------------------------------------"
	       "------------------\n");
	for (i = 0; i < num; i++) {
		const struct kvrec *s = &recs[i], *c = NULL;

		if (strcmp(s->type, "session") != 0) {
			continue;
		}
		c = find(recs, num, "conn", "id", get(s, "conn"));
		snprintf(machine, sizeof(machine), "%s (%s:%s)",
			 c != NULL ? get(c, "addr") : "?",
			 c != NULL && strchr(get(c, "addr"), ':') != NULL ?
			 "ipv6" : "ipv4", c != NULL ? get(c, "peer") : "?");
		printf("%-7s %-12s %-12s %-41s %-17s %-20s %-21s %s/%s\n", pid,
		       get(s, "unix_user")[0] != '\0' ? get(s, "unix_user") :
		       "nobody", get(s, "group"), machine,
		       dialect_name(get(s, "dialect")), get(s, "encryption"),
		       get(s, "signing"), c != NULL ? get(c, "bytes_in") : "0",
		       c != NULL ? get(c, "bytes_out") : "0");
	}
}

static void text_shares(const char *pid, const struct kvrec *recs,
			size_t num)
{
	char t[64];
	size_t i;

	printf("\n%-12s %-7s %-13s %-32s %-12s %-12s\n", "Service", "pid",
	       "Machine", "Connected at", "Encryption", "Signing");
	printf("------------------------------------------------------------"
	       "---------------------------------\n");
	for (i = 0; i < num; i++) {
		const struct kvrec *r = &recs[i];

		if (strcmp(r->type, "tcon") != 0) {
			continue;
		}
		printf("%-12s %-7s %-13s %-32s %-12s %-12s\n", get(r, "share"),
		       pid, get(r, "machine"),
		       when(get(r, "connected"), t, sizeof(t)),
		       get(r, "encryption"), get(r, "signing"));
	}
}

static void text_locks(const char *pid, const struct kvrec *recs, size_t num)
{
	char t[64], devino[48];
	size_t i, n = 0;

	for (i = 0; i < num; i++) {
		const struct kvrec *r = &recs[i];

		if (strcmp(r->type, "open") != 0) {
			continue;
		}
		if (n++ == 0) {
			printf("\nLocked files:\n");
			printf("Pid          User(ID)   DenyMode   Access      "
			       "R/W        Oplock           SharePath   Name   "
			       "Time\n");
			printf("-----------------------------------------------"
			       "---------------------------------------------"
			       "------\n");
		}
		printf("%-11s  %-9s  %-10s %-10s  %-10s %-14s   %s   %s   %s\n",
		       pid, get(r, "uid"), get(r, "deny"), get(r, "access"),
		       get(r, "rw"), get(r, "oplock"), get(r, "path"),
		       get(r, "name")[0] != '\0' ? get(r, "name") : ".",
		       when(get(r, "opened"), t, sizeof(t)));
	}
	if (n == 0) {
		fprintf(stderr, "No locked files\n");
	}
	printf("\n");
	for (i = 0, n = 0; i < num; i++) {
		const struct kvrec *r = &recs[i];

		if (strcmp(r->type, "lock") != 0) {
			continue;
		}
		if (n++ == 0) {
			printf("Byte range locks:\n");
			printf("Pid        dev:inode       R/W  start     size"
			       "      SharePath               Name\n");
			printf("-----------------------------------------------"
			       "---------------------------------\n");
		}
		snprintf(devino, sizeof(devino), "%s:%s", get(r, "dev"),
			 get(r, "ino"));
		printf("%-10s %-15s %-4s %-9s %-9s %-24s %-24s\n", pid, devino,
		       get(r, "type"), get(r, "start"), get(r, "size"),
		       get(r, "path"), get(r, "name"));
	}
}

/* ---- JSON: a small writer, strings escaped per RFC 8259 ---- */

struct jw {
	int depth;
	bool first[16];
};

static void jw_str_value(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			printf("\\%c", c);
		} else if (c < 0x20) {
			printf("\\u%04x", c);
		} else {
			putchar(c);
		}
	}
	putchar('"');
}

static void jw_sep(struct jw *w, const char *key)
{
	if (!w->first[w->depth]) {
		putchar(',');
	}
	w->first[w->depth] = false;
	printf("\n%*s", 2 * w->depth, "");
	if (key != NULL) {
		jw_str_value(key);
		printf(": ");
	}
}

static void jw_open(struct jw *w, const char *key, char brace)
{
	jw_sep(w, key);
	putchar(brace);
	w->depth++;
	w->first[w->depth] = true;
}

static void jw_close(struct jw *w, char brace)
{
	bool empty = w->first[w->depth];

	w->depth--;
	if (!empty) {
		printf("\n%*s", 2 * w->depth, "");
	}
	putchar(brace);
}

static void jw_str(struct jw *w, const char *key, const char *v)
{
	jw_sep(w, key);
	jw_str_value(v);
}

static void jw_num(struct jw *w, const char *key, const char *v)
{
	char *end = NULL;

	jw_sep(w, key);
	(void)strtoull(v, &end, 0);
	if (v[0] == '\0' || *end != '\0') {
		jw_str_value(v);        /* not a number: keep it a string */
	} else {
		printf("%llu", strtoull(v, NULL, 0));
	}
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_sep(w, key);
	printf(v ? "true" : "false");
}

static void json_crypto(struct jw *w, const char *key, const char *v)
{
	bool partial = strncmp(v, "partial(", 8) == 0;
	char cipher[64] = "";

	if (partial) {
		snprintf(cipher, sizeof(cipher), "%.*s", (int)strlen(v) - 9,
			 v + 8);
	} else if (strcmp(v, "-") != 0) {
		snprintf(cipher, sizeof(cipher), "%s", v);
	}
	jw_open(w, key, '{');
	jw_str(w, "cipher", cipher);
	jw_str(w, "degree", cipher[0] == '\0' ? "none" :
	       partial ? "partial" : "full");
	jw_close(w, '}');
}

static void json_sessions(struct jw *w, const char *pid,
			  const struct kvrec *recs, size_t num)
{
	size_t i;

	jw_open(w, "sessions", '{');
	for (i = 0; i < num; i++) {
		const struct kvrec *s = &recs[i], *c = NULL;

		if (strcmp(s->type, "session") != 0) {
			continue;
		}
		c = find(recs, num, "conn", "id", get(s, "conn"));
		jw_open(w, get(s, "id"), '{');
		jw_str(w, "session_id", get(s, "id"));
		jw_open(w, "server_id", '{');
		jw_num(w, "pid", pid);
		jw_num(w, "connection", get(s, "conn"));
		jw_close(w, '}');
		jw_num(w, "uid", get(s, "uid"));
		jw_num(w, "gid", get(s, "gid"));
		jw_str(w, "username", get(s, "unix_user"));
		jw_str(w, "groupname", get(s, "group"));
		jw_str(w, "account", get(s, "user"));
		jw_bool(w, "guest", strcmp(get(s, "guest"), "1") == 0);
		jw_bool(w, "anonymous", strcmp(get(s, "anonymous"), "1") == 0);
		jw_str(w, "remote_machine", c != NULL ? get(c, "addr") : "");
		jw_str(w, "hostname", c != NULL ? get(c, "peer") : "");
		jw_str(w, "session_dialect", dialect_name(get(s, "dialect")));
		json_crypto(w, "encryption", get(s, "encryption"));
		json_crypto(w, "signing", get(s, "signing"));
		jw_str(w, "channels", get(s, "channels"));
		jw_num(w, "bytes_in", c != NULL ? get(c, "bytes_in") : "0");
		jw_num(w, "bytes_out", c != NULL ? get(c, "bytes_out") : "0");
		jw_num(w, "logged_on_at", get(s, "started"));
		jw_close(w, '}');
	}
	jw_close(w, '}');
}

static void json_tcons(struct jw *w, const struct kvrec *recs, size_t num)
{
	char key[64];
	size_t i;

	jw_open(w, "tcons", '{');
	for (i = 0; i < num; i++) {
		const struct kvrec *r = &recs[i];

		if (strcmp(r->type, "tcon") != 0) {
			continue;
		}
		snprintf(key, sizeof(key), "%s/%s", get(r, "session"),
			 get(r, "id"));
		jw_open(w, key, '{');
		jw_str(w, "service", get(r, "share"));
		jw_str(w, "share_path", get(r, "path"));
		jw_num(w, "tcon_id", get(r, "id"));
		jw_str(w, "session_id", get(r, "session"));
		jw_str(w, "machine", get(r, "machine"));
		jw_num(w, "connected_at", get(r, "connected"));
		jw_num(w, "open_files", get(r, "opens"));
		json_crypto(w, "encryption", get(r, "encryption"));
		json_crypto(w, "signing", get(r, "signing"));
		jw_close(w, '}');
	}
	jw_close(w, '}');
}

static void json_opens(struct jw *w, const struct kvrec *recs, size_t num)
{
	char key[64];
	size_t i;

	jw_open(w, "open_files", '{');
	for (i = 0; i < num; i++) {
		const struct kvrec *r = &recs[i];

		if (strcmp(r->type, "open") != 0) {
			continue;
		}
		snprintf(key, sizeof(key), "%s/%s", get(r, "session"),
			 get(r, "fid"));
		jw_open(w, key, '{');
		jw_str(w, "service_path", get(r, "path"));
		jw_str(w, "filename", get(r, "name"));
		jw_str(w, "share", get(r, "share"));
		jw_open(w, "fileid", '{');
		jw_num(w, "devid", get(r, "dev"));
		jw_num(w, "inode", get(r, "ino"));
		jw_close(w, '}');
		jw_str(w, "session_id", get(r, "session"));
		jw_num(w, "uid", get(r, "uid"));
		jw_str(w, "username", get(r, "user"));
		jw_str(w, "access_mask", get(r, "access"));
		jw_str(w, "share_access", get(r, "share_access"));
		jw_str(w, "deny_mode", get(r, "deny"));
		jw_str(w, "rw", get(r, "rw"));
		jw_str(w, "oplock", get(r, "oplock"));
		jw_bool(w, "durable", strcmp(get(r, "durable"), "1") == 0);
		jw_bool(w, "directory", strcmp(get(r, "dir"), "1") == 0);
		jw_num(w, "opened_at", get(r, "opened"));
		jw_close(w, '}');
	}
	jw_close(w, '}');
	jw_open(w, "byte_range_locks", '[');
	for (i = 0; i < num; i++) {
		const struct kvrec *r = &recs[i];

		if (strcmp(r->type, "lock") != 0) {
			continue;
		}
		jw_open(w, NULL, '{');
		jw_str(w, "share_path", get(r, "path"));
		jw_str(w, "file_name", get(r, "name"));
		jw_str(w, "session_id", get(r, "session"));
		jw_num(w, "fid", get(r, "fid"));
		jw_open(w, "fileid", '{');
		jw_num(w, "devid", get(r, "dev"));
		jw_num(w, "inode", get(r, "ino"));
		jw_close(w, '}');
		jw_str(w, "type", strcmp(get(r, "type"), "W") == 0 ?
		       "write" : "read");
		jw_num(w, "start", get(r, "start"));
		jw_num(w, "size", get(r, "size"));
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void json_all(const struct opts *o, const struct kvrec *server,
		     const struct kvrec *recs, size_t num)
{
	struct jw w = { .depth = 0, .first = { true } };
	char stamp[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S%z", &tm);
	putchar('{');
	w.depth = 1;
	w.first[1] = true;
	jw_str(&w, "timestamp", stamp);
	jw_str(&w, "version", get(server, "version"));
	jw_str(&w, "smb_conf", get(server, "config"));
	jw_num(&w, "pid", get(server, "pid"));
	if (o->sessions) {
		json_sessions(&w, get(server, "pid"), recs, num);
		jw_open(&w, "connections", '{');
		for (i = 0; i < num; i++) {
			const struct kvrec *c = &recs[i];

			if (strcmp(c->type, "conn") != 0) {
				continue;
			}
			jw_open(&w, get(c, "id"), '{');
			jw_str(&w, "peer", get(c, "peer"));
			jw_str(&w, "dialect", dialect_name(get(c, "dialect")));
			jw_num(&w, "worker", get(c, "worker"));
			jw_num(&w, "connected_at", get(c, "connected"));
			jw_num(&w, "bytes_in", get(c, "bytes_in"));
			jw_num(&w, "bytes_out", get(c, "bytes_out"));
			jw_close(&w, '}');
		}
		jw_close(&w, '}');
	}
	if (o->shares) {
		json_tcons(&w, recs, num);
	}
	if (o->locks) {
		json_opens(&w, recs, num);
	}
	jw_close(&w, '}');
	putchar('\n');
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: smbstatus [OPTION...]\n"
		"  -p, --processes       sessions only\n"
		"  -b, --brief           the same\n"
		"  -S, --shares          tree connects only\n"
		"  -L, --locks           open files and byte-range locks only\n"
		"  -j, --json            JSON output\n"
		"  -s, --configfile=FILE smb.conf to find smbd by\n"
		"  -h, --help            this help\n");
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "processes", no_argument, NULL, 'p' },
		{ "brief", no_argument, NULL, 'b' },
		{ "shares", no_argument, NULL, 'S' },
		{ "locks", no_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'j' },
		{ "configfile", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "pbSLjs:h", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
		case 'b':
			o->sessions = true;
			break;
		case 'S':
			o->shares = true;
			break;
		case 'L':
			o->locks = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 's':
			o->configfile = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "smbstatus: unexpected argument \"%s\"\n",
			argv[optind]);
		return -1;
	}
	if (!o->sessions && !o->shares && !o->locks) {
		o->sessions = o->shares = o->locks = true;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .configfile = NULL };
	TALLOC_CTX *mem_ctx = NULL;
	const struct kvrec *server = NULL;
	struct kvrec *recs = NULL;
	size_t num = 0;
	int ret;

	if (parse_args(argc, argv, &o) != 0) {
		return 1;
	}
	mem_ctx = talloc_new(NULL);
	ret = ctl_request(mem_ctx, "smbstatus", o.configfile, "status", &recs,
			  &num);
	if (ret != 0) {
		talloc_free(mem_ctx);
		return ret;
	}
	if (num > 0 && strcmp(recs[0].type, "server") == 0) {
		server = &recs[0];
	}
	if (server == NULL) {
		fprintf(stderr, "smbstatus: smbd's answer has no server "
			"record\n");
		talloc_free(mem_ctx);
		return 1;
	}
	if (o.json) {
		json_all(&o, server, recs, num);
	} else {
		printf("\nringsmb version %s\n", get(server, "version"));
		if (o.sessions) {
			text_sessions(get(server, "pid"), recs, num);
		}
		if (o.shares) {
			text_shares(get(server, "pid"), recs, num);
		}
		if (o.locks) {
			text_locks(get(server, "pid"), recs, num);
		}
	}
	talloc_free(mem_ctx);
	return 0;
}
