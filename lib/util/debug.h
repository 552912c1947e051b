/*
 * Samba-style logging (docs/logging.md).
 *
 * Levels: 0 = errors, 1 = warnings, 2 = notices, 3 = info, 5+ = debug.
 * Client-caused errors log at 3 or above (never 0: a client must not be
 * able to flood the log).
 *
 * Each line belongs to a class; a class has its own level, which is the
 * `all` level unless `log level` names it ("1 auth_audit:3").  The lines
 * go to the backends of `logging` (file, syslog, systemd).  The file
 * name may hold %m, %I and %U: a line logged while a connection's events
 * run goes to that connection's file (debug_client_enter below).
 */
#ifndef RINGSMB_DEBUG_H
#define RINGSMB_DEBUG_H

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>

/* Samba's class names where Samba has the class (debug.c: the names) */
enum debug_class {
	DBGC_ALL = 0,           /* "all": every plain DBG_* line */
	DBGC_SMB2,              /* pipeline and commands */
	DBGC_SMB2_CREDITS,
	DBGC_RPC_SRV,           /* IPC$ pipes */
	DBGC_PASSDB,
	DBGC_AUTH,              /* NTLMSSP, SPNEGO */
	DBGC_AUTH_AUDIT,        /* one line per logon, refused tree connects */
	DBGC_VFS,
	DBGC_QUOTA,
	DBGC_ACLS,
	DBGC_LOCKING,           /* share modes, byte-range locks, oplocks */
	DBGC_COUNT
};

#define DEBUG_MAX_LEVEL 100

/* Where lines go: `logging`, and the file (NULL: standard error). */
struct debug_settings {
	const char *levels;     /* "log level": "N class:N ..."; NULL: "1" */
	const char *file;       /* template, may hold %m %I %U; NULL: stderr */
	const char *logging;    /* "file syslog@1 ..."; NULL or "": file */
	long max_size_kib;      /* rotate at this size; 0 = never */
};

/*
 * Start-up and reload (SIGHUP): replaces all settings.  Errors in the
 * strings (already refused by lib/param) leave the defaults.
 */
void debug_configure(const struct debug_settings *s);
/* The older entry point: one level for every class, one file. */
void debug_setup(int level, const char *logfile);

/*
 * Levels in `log level` syntax ("3 auth:5 passdb:10"), at run time
 * (smbcontrol smbd debug).  A class named with no number of its own
 * follows the first number.  Returns false, with *err (talloc'ed on
 * mem_ctx) saying why, for a malformed string; nothing changes then.
 * Unknown class names are skipped and named in *err, returning true.
 */
bool debug_set_levels(void *mem_ctx, const char *levels, char **err);
/* The current levels in the same syntax (talloc'ed). */
char *debug_get_levels(void *mem_ctx);

/*
 * Parsing alone: levels[DBGC_COUNT] receives each class's level.
 * *unknown: the first unknown class item, or NULL.  Returns false for a
 * malformed string.
 */
bool debug_parse_levels(const char *s, int levels[DBGC_COUNT],
			char *unknown, size_t unknown_len);
/* `logging` syntax; *bad receives the first bad item. */
bool debug_parse_logging(const char *s, char *bad, size_t bad_len);
const char *debug_class_name(enum debug_class c);

/*
 * Levels are read without a lock: a relaxed atomic load per check, so
 * DBG_* on a hot path costs one load and a compare.
 */
extern int debug_class_levels[DBGC_COUNT];

static inline int debug_class_level(enum debug_class c)
{
	return __atomic_load_n(&debug_class_levels[c], __ATOMIC_RELAXED);
}

static inline int debug_level(void)
{
	return debug_class_level(DBGC_ALL);
}

void debug_msg_class(enum debug_class cls, int level, const char *location,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void debug_msg(int level, const char *location, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The client a thread is serving, for %m %I %U in `log file`.  A
 * connection owns one (debug_client_new); the code that runs the
 * connection's events enters it and leaves it again:
 *
 *	struct debug_scope scope;
 *	debug_client_enter(conn->log_client, &scope);
 *	... handle the event ...
 *	debug_scope_leave(&scope);
 *
 * Entering holds a reference, so a connection freed inside its own
 * handler (or by another worker while this one waits for the ring)
 * leaves nothing dangling.  When `log file` has no %, entering is one
 * load and a branch.
 */
struct debug_client;
struct debug_ident;
struct debug_scope {
	struct debug_ident *prev;
	struct debug_ident *held;
};

/* addr: the client's IP address (%I, and %m as for SMB2 over 445) */
struct debug_client *debug_client_new(void *mem_ctx, const char *addr);
/* %U from now on: the user of the connection's latest logon */
void debug_client_set_user(struct debug_client *c, const char *user);
void debug_client_enter(struct debug_client *c, struct debug_scope *s);
void debug_scope_leave(struct debug_scope *s);

/*
 * Asynchronous work carries the client on: what the thread serves when
 * the work is started (a counted reference, NULL if none), entered
 * again when it completes (lib/uring does so for every ring operation).
 */
struct debug_ident *debug_ident_capture(void);
void debug_ident_release(struct debug_ident *id);
void debug_ident_enter(struct debug_ident *id, struct debug_scope *s);

#define DEBUG_STR2(x) #x
#define DEBUG_STR(x) DEBUG_STR2(x)
#define DBG_LOC __FILE__ ":" DEBUG_STR(__LINE__)

#define DBGC_AT(cls, lvl, ...) do { \
	if (debug_class_level(cls) >= (lvl)) { \
		debug_msg_class((cls), (lvl), DBG_LOC, __VA_ARGS__); \
	} \
} while (0)

#define DBG_AT(lvl, ...) DBGC_AT(DBGC_ALL, lvl, __VA_ARGS__)

#define DBG_ERR(...)     DBG_AT(0, __VA_ARGS__)
#define DBG_WARNING(...) DBG_AT(1, __VA_ARGS__)
#define DBG_NOTICE(...)  DBG_AT(2, __VA_ARGS__)
#define DBG_INFO(...)    DBG_AT(3, __VA_ARGS__)
#define DBG_DEBUG(...)   DBG_AT(5, __VA_ARGS__)

#endif
