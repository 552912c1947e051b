/*
 * Samba-style log levels.  0 = errors, 1 = warnings, 2 = notices,
 * 3 = info, 5+ = debug.  Client-caused errors log at 3 or above (never 0:
 * a client must not be able to flood the log).
 */
#ifndef RINGSMB_DEBUG_H
#define RINGSMB_DEBUG_H

#include <stdbool.h>
#include <stdarg.h>

struct debug_settings {
	int level;
	const char *file;       /* NULL: stderr */
};

/* Process-wide, set once at start-up and on reload (SIGHUP). */
void debug_setup(int level, const char *logfile);
int debug_level(void);
void debug_msg(int level, const char *location, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define DEBUG_STR2(x) #x
#define DEBUG_STR(x) DEBUG_STR2(x)
#define DBG_LOC __FILE__ ":" DEBUG_STR(__LINE__)

#define DBG_AT(lvl, ...) do { \
	if (debug_level() >= (lvl)) { \
		debug_msg((lvl), DBG_LOC, __VA_ARGS__); \
	} \
} while (0)

#define DBG_ERR(...)     DBG_AT(0, __VA_ARGS__)
#define DBG_WARNING(...) DBG_AT(1, __VA_ARGS__)
#define DBG_NOTICE(...)  DBG_AT(2, __VA_ARGS__)
#define DBG_INFO(...)    DBG_AT(3, __VA_ARGS__)
#define DBG_DEBUG(...)   DBG_AT(5, __VA_ARGS__)

#endif
