/*
 * Logging: classes and their levels, the line, the backends it goes to,
 * and the client a thread serves (debug.h, docs/logging.md).
 *
 * These are process-wide settings, as in Samba: set at start-up, on
 * SIGHUP and by smbcontrol, while worker threads log.  Levels are
 * atomics read without a lock; everything else is under debug_lock.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#include <time.h>
#include <unistd.h>
#include "lib/util/debug_private.h"

pthread_mutex_t debug_lock = PTHREAD_MUTEX_INITIALIZER;

int debug_class_levels[DBGC_COUNT] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};
_Static_assert(DBGC_COUNT == 11, "debug_class_levels: one 1 per class");

static const char *const class_names[DBGC_COUNT] = {
	[DBGC_ALL] = "all",
	[DBGC_SMB2] = "smb2",
	[DBGC_SMB2_CREDITS] = "smb2_credits",
	[DBGC_RPC_SRV] = "rpc_srv",
	[DBGC_PASSDB] = "passdb",
	[DBGC_AUTH] = "auth",
	[DBGC_AUTH_AUDIT] = "auth_audit",
	[DBGC_VFS] = "vfs",
	[DBGC_QUOTA] = "quota",
	[DBGC_ACLS] = "acls",
	[DBGC_LOCKING] = "locking",
};

/* Samba's LIST_SEP */
#define DEBUG_SEP " \t,;\n\r"

const char *debug_class_name(enum debug_class c)
{
	return c < DBGC_COUNT ? class_names[c] : "?";
}

static int class_lookup(const char *name, size_t len)
{
	int i;

	for (i = 0; i < DBGC_COUNT; i++) {
		if (strlen(class_names[i]) == len &&
		    strncasecmp(class_names[i], name, len) == 0) {
			return i;
		}
	}
	return -1;
}

static bool parse_level(const char *s, int *out)
{
	char *end = NULL;
	long v;

	if (!isdigit((unsigned char)s[0])) {
		return false;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > DEBUG_MAX_LEVEL) {
		return false;
	}
	*out = (int)v;
	return true;
}

/* "class:N"; Samba's per-class "@file" suffix is not supported */
static bool parse_class_item(const char *tok, int explicit[DBGC_COUNT])
{
	const char *colon = strchr(tok, ':');
	int c, level;

	if (colon == NULL) {
		return false;
	}
	c = class_lookup(tok, (size_t)(colon - tok));
	if (c < 0 || !parse_level(colon + 1, &level)) {
		return false;
	}
	explicit[c] = level;
	return true;
}

static void note_unknown(char *unknown, size_t len, const char *tok)
{
	if (unknown != NULL && len > 0 && unknown[0] == '\0') {
		snprintf(unknown, len, "%s", tok);
	}
}

/*
 * As Samba's debug_parse_levels: a leading number is the `all` level
 * (none: 0), then class:N items.  A class not named follows `all`.
 */
bool debug_parse_levels(const char *s, int levels[DBGC_COUNT],
			char *unknown, size_t unknown_len)
{
	int explicit[DBGC_COUNT];
	char *copy = strdup(s != NULL ? s : "");
	char *tok = NULL, *save = NULL;
	bool ok = true;
	int i;

	if (copy == NULL) {
		return false;
	}
	if (unknown != NULL && unknown_len > 0) {
		unknown[0] = '\0';
	}
	for (i = 0; i < DBGC_COUNT; i++) {
		explicit[i] = -1;
	}
	tok = strtok_r(copy, DEBUG_SEP, &save);
	if (tok != NULL && strchr(tok, ':') == NULL) {
		ok = parse_level(tok, &explicit[DBGC_ALL]);
		tok = strtok_r(NULL, DEBUG_SEP, &save);
	}
	for (; ok && tok != NULL; tok = strtok_r(NULL, DEBUG_SEP, &save)) {
		if (!parse_class_item(tok, explicit)) {
			note_unknown(unknown, unknown_len, tok);
		}
	}
	free(copy);
	if (explicit[DBGC_ALL] < 0) {
		explicit[DBGC_ALL] = 0;
	}
	for (i = 0; ok && i < DBGC_COUNT; i++) {
		levels[i] = explicit[i] >= 0 ? explicit[i] : explicit[DBGC_ALL];
	}
	return ok;
}

static void store_levels(const int levels[DBGC_COUNT])
{
	int i;

	for (i = 0; i < DBGC_COUNT; i++) {
		__atomic_store_n(&debug_class_levels[i], levels[i],
				 __ATOMIC_RELAXED);
	}
}

bool debug_set_levels(void *mem_ctx, const char *s, char **err)
{
	int levels[DBGC_COUNT];
	char unknown[64];

	if (err != NULL) {
		*err = NULL;
	}
	if (!debug_parse_levels(s, levels, unknown, sizeof(unknown))) {
		if (err != NULL) {
			*err = talloc_asprintf(mem_ctx, "malformed log level "
					       "\"%s\": expected a level from "
					       "0 to %d, then CLASS:LEVEL "
					       "items", s, DEBUG_MAX_LEVEL);
		}
		return false;
	}
	/* two setters at once: one wins whole */
	pthread_mutex_lock(&debug_lock);
	store_levels(levels);
	pthread_mutex_unlock(&debug_lock);
	if (unknown[0] != '\0' && err != NULL) {
		*err = talloc_asprintf(mem_ctx, "unknown debug class or "
				       "malformed item \"%s\" (ignored)",
				       unknown);
	}
	return true;
}

char *debug_get_levels(void *mem_ctx)
{
	int all = debug_class_level(DBGC_ALL);
	char *s = talloc_asprintf(mem_ctx, "%d", all);
	int i;

	for (i = DBGC_ALL + 1; s != NULL && i < DBGC_COUNT; i++) {
		int l = debug_class_level(i);

		if (l != all) {
			s = talloc_asprintf_append_buffer(s, " %s:%d",
							  class_names[i], l);
		}
	}
	return s;
}

/* ---- backends ---- */

enum debug_backend { DEBUG_FILE, DEBUG_SYSLOG, DEBUG_SYSTEMD, DEBUG_NB };

static const char *const backend_names[DEBUG_NB] = {
	[DEBUG_FILE] = "file",
	[DEBUG_SYSLOG] = "syslog",
	[DEBUG_SYSTEMD] = "systemd",
};

/* the highest level each backend takes; -1: off (under debug_lock) */
static int backend_level[DEBUG_NB] = { DEBUG_MAX_LEVEL, -1, -1 };

/* "name" or "name@N" */
static bool parse_backend(const char *tok, int out[DEBUG_NB])
{
	const char *at = strchr(tok, '@');
	size_t len = at != NULL ? (size_t)(at - tok) : strlen(tok);
	int level = DEBUG_MAX_LEVEL;
	int b;

	if (at != NULL && !parse_level(at + 1, &level)) {
		return false;
	}
	for (b = 0; b < DEBUG_NB; b++) {
		if (strlen(backend_names[b]) == len &&
		    strncasecmp(backend_names[b], tok, len) == 0) {
			out[b] = level;
			return true;
		}
	}
	return false;
}

static bool parse_logging(const char *s, int out[DEBUG_NB], char *bad,
			  size_t bad_len)
{
	char *copy = strdup(s != NULL ? s : "");
	char *tok = NULL, *save = NULL;
	bool any = false, ok = true;
	int b;

	if (copy == NULL) {
		return false;
	}
	for (b = 0; b < DEBUG_NB; b++) {
		out[b] = -1;
	}
	for (tok = strtok_r(copy, DEBUG_SEP, &save); ok && tok != NULL;
	     tok = strtok_r(NULL, DEBUG_SEP, &save)) {
		ok = parse_backend(tok, out);
		any = true;
		if (!ok && bad != NULL && bad_len > 0) {
			snprintf(bad, bad_len, "%s", tok);
		}
	}
	free(copy);
	if (!any) {
		/* Samba: no `logging` means the file */
		out[DEBUG_FILE] = DEBUG_MAX_LEVEL;
	}
	return ok;
}

bool debug_parse_logging(const char *s, char *bad, size_t bad_len)
{
	int levels[DEBUG_NB];

	return parse_logging(s, levels, bad, bad_len);
}

void debug_configure(const struct debug_settings *s)
{
	int levels[DBGC_COUNT];
	int backends[DEBUG_NB];

	if (!debug_parse_levels(s->levels != NULL ? s->levels : "1", levels,
				NULL, 0)) {
		debug_parse_levels("1", levels, NULL, 0);
	}
	if (!parse_logging(s->logging, backends, NULL, 0)) {
		parse_logging(NULL, backends, NULL, 0);
	}
	pthread_mutex_lock(&debug_lock);
	store_levels(levels);
	memcpy(backend_level, backends, sizeof(backend_level));
	debug_file_configure(s->file, s->max_size_kib);
	debug_backends_close();
	pthread_mutex_unlock(&debug_lock);
}

void debug_setup(int level, const char *logfile)
{
	char levels[16];
	struct debug_settings s = {
		.levels = levels,
		.file = logfile,
	};

	snprintf(levels, sizeof(levels), "%d", level);
	debug_configure(&s);
}

/* ---- the line ---- */

#define DEBUG_LINE_MAX 1024

/* "[date time.usec, level] location: " */
static size_t line_header(char *buf, size_t len, int level,
			  const char *location)
{
	struct timespec ts;
	struct tm tm;
	size_t n;
	int r;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "[%Y/%m/%d %H:%M:%S", &tm);
	r = snprintf(buf + n, len - n, ".%06ld, %d] %s: ",
		     ts.tv_nsec / 1000, level, location);
	if (r > 0 && (size_t)r < len - n) {
		n += (size_t)r;
	}
	return n;
}

/* the message after the header, cut to fit, ending in one newline */
static size_t line_body(char *buf, size_t len, size_t n, const char *fmt,
			va_list ap)
{
	int r = vsnprintf(buf + n, len - n, fmt, ap);

	if (r > 0) {
		n += (size_t)r < len - n ? (size_t)r : len - n - 1;
	}
	if (n > 0 && buf[n - 1] != '\n') {
		if (n == len) {
			n--;
		}
		buf[n++] = '\n';
	}
	return n;
}

static void dispatch(int level, const char *location, const char *line,
		     size_t len, size_t hdr_len)
{
	char msg[DEBUG_LINE_MAX];
	const struct debug_ident *c = debug_ident_current();

	pthread_mutex_lock(&debug_lock);
	if (level <= backend_level[DEBUG_FILE]) {
		/* one write per line so concurrent writers do not interleave */
		debug_file_write(c, line, len);
	}
	if (level <= backend_level[DEBUG_SYSLOG] ||
	    level <= backend_level[DEBUG_SYSTEMD]) {
		/* syslog and journald keep their own time stamps */
		snprintf(msg, sizeof(msg), "%.*s", (int)(len - hdr_len - 1),
			 line + hdr_len);
		if (level <= backend_level[DEBUG_SYSLOG]) {
			debug_syslog_write(level, location, msg);
		}
		if (level <= backend_level[DEBUG_SYSTEMD]) {
			debug_journal_write(level, location, msg);
		}
	}
	pthread_mutex_unlock(&debug_lock);
}

static void debug_vmsg(int level, const char *location, const char *fmt,
		       va_list ap)
{
	char buf[DEBUG_LINE_MAX];
	size_t hdr = line_header(buf, sizeof(buf), level, location);
	size_t n = line_body(buf, sizeof(buf), hdr, fmt, ap);

	dispatch(level, location, buf, n, hdr);
}

void debug_msg_class(enum debug_class cls, int level, const char *location,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	debug_vmsg(level, location, fmt, ap);
	va_end(ap);
}

void debug_msg(int level, const char *location, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	debug_vmsg(level, location, fmt, ap);
	va_end(ap);
}

/* ---- the client a thread serves ---- */

static __thread struct debug_ident *current_ident;
/* does `log file` name a client (%m %I %U)?  (debug_file.c sets it) */
bool debug_per_client;

struct debug_ident *debug_ident_current(void)
{
	return current_ident;
}

static void ident_unref(struct debug_ident *id)
{
	if (__atomic_sub_fetch(&id->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		free(id);
	}
}

static int client_destructor(struct debug_client *c)
{
	ident_unref(c->ident);
	return 0;
}

/*
 * The ident lives in malloc'ed memory with a count, so a scope may
 * outlive the connection that owned it, on any thread.
 */
struct debug_client *debug_client_new(void *mem_ctx, const char *addr)
{
	struct debug_client *c = talloc(mem_ctx, struct debug_client);

	if (c == NULL) {
		return NULL;
	}
	c->ident = calloc(1, sizeof(*c->ident));
	if (c->ident == NULL) {
		talloc_free(c);
		return NULL;
	}
	c->ident->refs = 1;
	snprintf(c->ident->addr, sizeof(c->ident->addr), "%s", addr);
	talloc_set_destructor(c, client_destructor);
	return c;
}

void debug_client_set_user(struct debug_client *c, const char *user)
{
	if (c == NULL) {
		return;
	}
	pthread_mutex_lock(&debug_lock);
	snprintf(c->ident->user, sizeof(c->ident->user), "%s",
		 user != NULL ? user : "");
	pthread_mutex_unlock(&debug_lock);
}

void debug_ident_enter(struct debug_ident *id, struct debug_scope *s)
{
	s->prev = current_ident;
	s->held = NULL;
	if (id == NULL ||
	    !__atomic_load_n(&debug_per_client, __ATOMIC_RELAXED)) {
		return;
	}
	__atomic_add_fetch(&id->refs, 1, __ATOMIC_RELAXED);
	s->held = id;
	current_ident = id;
}

void debug_client_enter(struct debug_client *c, struct debug_scope *s)
{
	debug_ident_enter(c != NULL ? c->ident : NULL, s);
}

struct debug_ident *debug_ident_capture(void)
{
	struct debug_ident *id = current_ident;

	if (id != NULL) {
		__atomic_add_fetch(&id->refs, 1, __ATOMIC_RELAXED);
	}
	return id;
}

void debug_ident_release(struct debug_ident *id)
{
	if (id != NULL) {
		ident_unref(id);
	}
}

void debug_scope_leave(struct debug_scope *s)
{
	current_ident = s->prev;
	if (s->held != NULL) {
		ident_unref(s->held);
		s->held = NULL;
	}
}
