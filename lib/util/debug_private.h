/*
 * lib/util/debug internals, shared by debug.c (levels, lines),
 * debug_file.c (the file backend) and debug_backend.c (syslog,
 * journald), and by tests/unit/test_debug.c.
 */
#ifndef RINGSMB_DEBUG_PRIVATE_H
#define RINGSMB_DEBUG_PRIVATE_H

#include <pthread.h>
#include <sys/types.h>
#include "lib/util/debug.h"

/*
 * One lock for everything below: the settings, the open files, the
 * clients' user names.  File lines are serialised by it, which costs
 * nothing the kernel does not already do: O_APPEND writes to one inode
 * take the inode's lock.
 */
extern pthread_mutex_t debug_lock;

/* ---- the client a thread serves (debug.c) ---- */

#define DEBUG_NAME_MAX 64

/*
 * What a client's lines are filed under.  Counted: the connection's
 * struct debug_client holds one reference, each debug_scope on it one.
 */
struct debug_ident {
	int refs;                       /* atomic */
	char addr[48];
	char user[DEBUG_NAME_MAX];      /* under debug_lock */
};

struct debug_client {
	struct debug_ident *ident;
};

struct debug_ident *debug_ident_current(void);
/* does `log file` name a client?  Read without the lock (atomic). */
extern bool debug_per_client;

/* ---- the file backend (debug_file.c), called under debug_lock ---- */

/* how many per-client files stay open; the least recently used closes */
#define DEBUG_MAX_OPEN_FILES 16

/*
 * tmpl with %m, %I, %U replaced by the values, each made safe to be
 * part of a file name ('/' and leading dots become '_', so no value can
 * climb out of the log directory).  Returns false if out is too small.
 */
bool debug_expand_path(char *out, size_t len, const char *tmpl,
		       const char *machine, const char *addr,
		       const char *user);
/* does tmpl hold a client substitution? */
bool debug_path_per_client(const char *tmpl);
/* the name a value takes in a path */
void debug_sanitize_name(char *out, size_t len, const char *in, bool lower);

void debug_file_configure(const char *tmpl, long max_size_kib);
void debug_file_write(const struct debug_ident *c, const char *line,
		      size_t len);
/* file name and size of the files open now, for tests */
size_t debug_file_num_open(void);

/* ---- syslog and journald (debug_backend.c), under debug_lock ---- */

int debug_syslog_priority(int level);
/*
 * A journald native-protocol datagram: one FIELD=value line each;
 * a value holding a newline is written as FIELD\n + 64-bit LE length +
 * value + \n.  Returns the length needed (as snprintf), buf may be
 * NULL when len is 0.
 */
size_t debug_journal_format(char *buf, size_t len, int level,
			    const char *location, const char *msg);
void debug_syslog_write(int level, const char *location, const char *msg);
void debug_journal_write(int level, const char *location, const char *msg);
void debug_backends_close(void);

#endif
