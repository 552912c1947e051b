/*
 * The file backend: `log file` with %m %I %U, `max log size`.
 *
 * Samba runs one process per client, so %m in `log file` simply names
 * that process's file.  ringsmb is one process: a line goes to the file
 * of the client whose events the thread runs (debug_client_enter), and
 * lines of no client (start-up, listeners, signals) to the file named
 * with the values Samba's parent smbd has: %m = "smbd", %I = "0.0.0.0",
 * %U = "".  Client files open on their first line; at most
 * DEBUG_MAX_OPEN_FILES stay open, the least recently used is closed.
 *
 * Everything here runs under debug_lock.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "lib/util/debug_private.h"

struct log_file {
	char *path;             /* NULL: standard error, or a free slot */
	int fd;
	off_t size;             /* as far as we wrote it */
	unsigned long used;     /* for the LRU */
};

static char *file_tmpl;         /* NULL: standard error */
static off_t max_size;          /* bytes; 0: never rotate */
static struct log_file main_file = { .fd = 2 };
static struct log_file cache[DEBUG_MAX_OPEN_FILES];
static unsigned long tick;
static bool open_failure_told;

/* Samba's parent smbd: set_remote_machine_name("smbd"), no peer yet */
#define DAEMON_MACHINE "smbd"
#define DAEMON_ADDR "0.0.0.0"

bool debug_path_per_client(const char *tmpl)
{
	const char *p = tmpl;

	while (p != NULL && (p = strchr(p, '%')) != NULL) {
		if (p[1] == 'm' || p[1] == 'I' || p[1] == 'U') {
			return true;
		}
		p += p[1] != '\0' ? 2 : 1;
	}
	return false;
}

/*
 * Letters, digits and "-_.:@+" stay, anything else becomes '_'; so do
 * leading dots, so "..", "." or ".hidden" cannot be a path component.
 */
void debug_sanitize_name(char *out, size_t len, const char *in, bool lower)
{
	bool leading = true;
	size_t i;

	for (i = 0; len > 0 && i < len - 1 && i < DEBUG_NAME_MAX &&
	     in[i] != '\0'; i++) {
		unsigned char ch = (unsigned char)in[i];

		leading = leading && ch == '.';
		if (leading ||
		    (!isalnum(ch) && strchr("-_.:@+", ch) == NULL)) {
			ch = '_';
		}
		out[i] = lower ? (char)tolower(ch) : (char)ch;
	}
	if (len > 0) {
		out[i] = '\0';
	}
}

static const char *subst_value(char code, const char *machine,
			       const char *addr, const char *user,
			       bool *lower)
{
	/* Samba lower-cases the machine and user names */
	*lower = code != 'I';
	switch (code) {
	case 'm':
		return machine;
	case 'I':
		return addr;
	case 'U':
		return user;
	default:
		return NULL;
	}
}

bool debug_expand_path(char *out, size_t len, const char *tmpl,
		       const char *machine, const char *addr,
		       const char *user)
{
	char val[DEBUG_NAME_MAX + 1];
	size_t n = 0;
	const char *p = NULL;

	for (p = tmpl; *p != '\0'; p++) {
		bool lower = false;
		const char *v = p[0] == '%' ?
			subst_value(p[1], machine, addr, user, &lower) : NULL;
		size_t vlen;

		if (v == NULL) {
			if (n + 1 >= len) {
				return false;
			}
			out[n++] = *p;
			continue;
		}
		debug_sanitize_name(val, sizeof(val), v, lower);
		vlen = strlen(val);
		if (n + vlen >= len) {
			return false;
		}
		memcpy(out + n, val, vlen);
		n += vlen;
		p++;
	}
	if (n >= len) {
		return false;
	}
	out[n] = '\0';
	return true;
}

/*
 * A line may come while this thread acts as a user (vfs_identity.c
 * switches the thread's credentials with the raw system calls, which
 * leave the saved uid 0).  Log files are root's: they are created and
 * rotated as root, and the thread is given its identity back.
 */
struct debug_creds {
	uid_t euid;
	gid_t egid;
	bool switched;
};

static void files_as_root(struct debug_creds *c)
{
	c->euid = geteuid();
	c->egid = getegid();
	c->switched = false;
	if (c->euid == 0 && c->egid == 0) {
		return;
	}
	if (syscall(SYS_setresuid, -1, 0, -1) != 0) {
		return;         /* not root at all: as we are */
	}
	(void)syscall(SYS_setresgid, -1, 0, -1);
	c->switched = true;
}

static void files_as_before(const struct debug_creds *c)
{
	if (!c->switched) {
		return;
	}
	/* the gid first: changing it needs the root euid */
	(void)syscall(SYS_setresgid, -1, c->egid, -1);
	(void)syscall(SYS_setresuid, -1, c->euid, -1);
}

static int open_log(const char *path)
{
	struct debug_creds creds;
	int fd;

	files_as_root(&creds);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	files_as_before(&creds);
	return fd;
}

static void file_close(struct log_file *f)
{
	if (f->fd > 2) {
		close(f->fd);
	}
	free(f->path);
	f->path = NULL;
	f->fd = -1;
	f->size = 0;
}

static void tell(const char *fmt, const char *path, int err)
{
	char buf[PATH_MAX + 128];
	int n = snprintf(buf, sizeof(buf), fmt, path, strerror(err));

	if (n > 0) {
		(void)!write(main_file.fd, buf,
			     (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf));
	}
}

static bool file_open(struct log_file *f, const char *path)
{
	struct stat st;
	int fd = open_log(path);

	if (fd == -1) {
		if (!open_failure_told) {
			open_failure_told = true;
			tell("cannot open log file %s: %s\n", path, errno);
		}
		return false;
	}
	f->path = strdup(path);
	if (f->path == NULL) {
		close(fd);
		return false;
	}
	f->fd = fd;
	f->size = fstat(fd, &st) == 0 ? st.st_size : 0;
	f->used = ++tick;
	return true;
}

void debug_file_configure(const char *tmpl, long max_size_kib)
{
	char path[PATH_MAX];
	size_t i;
	bool per_client = false;

	file_close(&main_file);
	main_file.fd = 2;
	for (i = 0; i < DEBUG_MAX_OPEN_FILES; i++) {
		file_close(&cache[i]);
	}
	free(file_tmpl);
	file_tmpl = NULL;
	open_failure_told = false;
	max_size = max_size_kib > 0 ? (off_t)max_size_kib * 1024 : 0;
	if (tmpl != NULL && tmpl[0] != '\0') {
		file_tmpl = strdup(tmpl);
		per_client = debug_path_per_client(tmpl);
	}
	__atomic_store_n(&debug_per_client, per_client, __ATOMIC_RELAXED);
	/* the daemon's own file opens now: a bad path shows at start-up */
	if (file_tmpl != NULL &&
	    debug_expand_path(path, sizeof(path), file_tmpl, DAEMON_MACHINE,
			      DAEMON_ADDR, "") &&
	    !file_open(&main_file, path)) {
		main_file.fd = 2;
	}
}

/*
 * Samba's check_log_size: past `max log size`, NAME becomes NAME.old
 * (replacing it) and a new NAME starts.  The size we counted is checked
 * against the file's own, so several fds on one file (or someone
 * else's rotation) do not rotate twice.
 */
static void file_rotate(struct log_file *f)
{
	char old[PATH_MAX];
	struct debug_creds creds;
	struct stat st;
	int fd;

	if (fstat(f->fd, &st) != 0) {
		f->size = 0;
		return;
	}
	if (st.st_size < max_size) {
		f->size = st.st_size;
		return;
	}
	if (snprintf(old, sizeof(old), "%s.old", f->path) >= (int)sizeof(old)) {
		f->size = 0;
		return;
	}
	files_as_root(&creds);
	if (rename(f->path, old) != 0) {
		files_as_before(&creds);
		f->size = 0;    /* try again after another max_size */
		return;
	}
	fd = open(f->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd == -1) {
		/* as Samba: keep writing under the old name */
		(void)rename(old, f->path);
	}
	files_as_before(&creds);
	if (fd == -1) {
		f->size = 0;
		return;
	}
	close(f->fd);
	f->fd = fd;
	f->size = 0;
}

static struct log_file *cache_slot(void)
{
	struct log_file *lru = &cache[0];
	size_t i;

	for (i = 0; i < DEBUG_MAX_OPEN_FILES; i++) {
		if (cache[i].path == NULL) {
			return &cache[i];
		}
		if (cache[i].used < lru->used) {
			lru = &cache[i];
		}
	}
	file_close(lru);
	return lru;
}

static struct log_file *client_file(const struct debug_ident *c)
{
	char path[PATH_MAX];
	struct log_file *f = NULL;
	size_t i;

	/* SMB2 over port 445 has no NetBIOS name: %m is the address */
	if (!debug_expand_path(path, sizeof(path), file_tmpl, c->addr,
			       c->addr, c->user)) {
		return &main_file;
	}
	if (main_file.path != NULL && strcmp(path, main_file.path) == 0) {
		return &main_file;
	}
	for (i = 0; i < DEBUG_MAX_OPEN_FILES; i++) {
		if (cache[i].path != NULL && strcmp(cache[i].path, path) == 0) {
			cache[i].used = ++tick;
			return &cache[i];
		}
	}
	f = cache_slot();
	return file_open(f, path) ? f : &main_file;
}

void debug_file_write(const struct debug_ident *c, const char *line,
		      size_t len)
{
	struct log_file *f = &main_file;
	ssize_t n;

	if (c != NULL && file_tmpl != NULL && debug_per_client) {
		f = client_file(c);
	}
	n = write(f->fd, line, len);
	if (n <= 0 || f->path == NULL || max_size == 0) {
		return;
	}
	f->size += n;
	if (f->size >= max_size) {
		file_rotate(f);
	}
}

size_t debug_file_num_open(void)
{
	size_t i, n = main_file.path != NULL ? 1 : 0;

	pthread_mutex_lock(&debug_lock);
	for (i = 0; i < DEBUG_MAX_OPEN_FILES; i++) {
		n += cache[i].path != NULL ? 1 : 0;
	}
	pthread_mutex_unlock(&debug_lock);
	return n;
}
