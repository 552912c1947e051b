/*
 * smbpasswd: manage the users in the smbpasswd file, with Samba's options
 * and messages (local mode only: it edits the file smbd reads; smbd
 * notices the change at the next session setup).
 *
 *   smbpasswd -a [-s] USER   add USER (who must have a Unix account, as in
 *                            Samba), or set the password if USER exists
 *   smbpasswd [-s] USER      set the password of an existing USER
 *   smbpasswd -x USER        delete
 *   smbpasswd -d USER        disable
 *   smbpasswd -e USER        enable
 *
 * Passwords come twice from the terminal (echo off), or with -s as two
 * lines of standard input.  Exit code 0 on success, 1 on any error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <termios.h>
#include <unistd.h>

#include "lib/auth/auth.h"
#include "lib/auth/passdb.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"

#define MAX_PASSWORD 256	/* bytes of UTF-8, as typed */

enum smbpasswd_action {
	ACTION_SET_PASSWORD = 0,	/* no option: change a password */
	ACTION_ADD,
	ACTION_DELETE,
	ACTION_DISABLE,
	ACTION_ENABLE,
};

struct smbpasswd_options {
	enum smbpasswd_action action;
	bool stdin_password;		/* -s */
	const char *config_file;	/* -c; NULL: the default */
	const char *user;
	int debug_level;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: smbpasswd [options] [username]\n"
		"  -a        add user (or set the password of an existing "
		"one)\n"
		"  -x        delete user\n"
		"  -d        disable user\n"
		"  -e        enable user\n"
		"  -s        use stdin for password prompt\n"
		"  -c FILE   use this smb.conf (default %s)\n"
		"  -D LEVEL  debug level\n"
		"  -h        print this usage message\n",
		lp_default_config_file());
}

static int set_action(struct smbpasswd_options *o, enum smbpasswd_action a)
{
	if (o->action != ACTION_SET_PASSWORD && o->action != a) {
		fprintf(stderr, "smbpasswd: -a, -x, -d and -e exclude each "
			"other\n");
		return -1;
	}
	o->action = a;
	return 0;
}

static int parse_option(struct smbpasswd_options *o, int c)
{
	switch (c) {
	case 'a':
		return set_action(o, ACTION_ADD);
	case 'x':
		return set_action(o, ACTION_DELETE);
	case 'd':
		return set_action(o, ACTION_DISABLE);
	case 'e':
		return set_action(o, ACTION_ENABLE);
	case 's':
		o->stdin_password = true;
		return 0;
	case 'c':
		o->config_file = optarg;
		return 0;
	case 'D':
		o->debug_level = atoi(optarg);
		return 0;
	case 'h':
		usage(stdout);
		exit(0);
	default:
		usage(stderr);
		return -1;
	}
}

/* The user running us, for "smbpasswd" without a name (like passwd). */
static const char *current_user(void)
{
	struct passwd *pw = getpwuid(getuid());

	return (pw != NULL) ? pw->pw_name : NULL;
}

static int parse_args(int argc, char **argv, struct smbpasswd_options *o)
{
	int c;

	while ((c = getopt(argc, argv, "axdesc:D:h")) != -1) {
		if (parse_option(o, c) != 0) {
			return -1;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return -1;
	}
	o->user = (optind < argc) ? argv[optind] : NULL;
	if (o->user == NULL && o->action == ACTION_SET_PASSWORD) {
		o->user = current_user();
	}
	if (o->user == NULL) {
		fprintf(stderr, "smbpasswd: no user name given\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* ---- passwords ---- */

/* One line from f without its newline; -1 on EOF, error or overflow. */
static int read_line(FILE *f, char *buf, size_t size)
{
	size_t len;

	if (fgets(buf, (int)size, f) == NULL) {
		return -1;
	}
	len = strlen(buf);
	if (len > 0 && buf[len - 1] == '\n') {
		buf[--len] = '\0';
	} else if (!feof(f)) {
		explicit_bzero(buf, size);
		return -1;	/* longer than the buffer */
	}
	if (len > 0 && buf[len - 1] == '\r') {
		buf[--len] = '\0';
	}
	return 0;
}

/* Prompt on the terminal and read one line with echo off. */
static int read_tty_password(FILE *tty, const char *prompt, char *buf,
			     size_t size)
{
	struct termios old, noecho;
	int fd = fileno(tty);
	int ret;

	fprintf(tty, "%s", prompt);
	fflush(tty);
	if (tcgetattr(fd, &old) != 0) {
		return -1;
	}
	noecho = old;
	noecho.c_lflag &= ~(tcflag_t)ECHO;
	noecho.c_lflag |= ECHONL;
	(void)tcsetattr(fd, TCSAFLUSH, &noecho);
	ret = read_line(tty, buf, size);
	(void)tcsetattr(fd, TCSAFLUSH, &old);
	return ret;
}

static int read_one(const struct smbpasswd_options *o, FILE *in,
		    const char *prompt, char *buf, size_t size)
{
	if (o->stdin_password) {
		return read_line(in, buf, size);
	}
	return read_tty_password(in, prompt, buf, size);
}

/* The new password, typed twice; its NT hash in hash. */
static int get_new_password_hash(const struct smbpasswd_options *o,
				 uint8_t hash[AUTH_NT_HASH_SIZE])
{
	char pw1[MAX_PASSWORD + 2], pw2[MAX_PASSWORD + 2];
	FILE *in = o->stdin_password ? stdin : fopen("/dev/tty", "r+e");
	int ret = -1;

	if (in == NULL) {
		fprintf(stderr, "smbpasswd: no terminal to read the password "
			"from (use -s to read it from standard input)\n");
		return -1;
	}
	if (read_one(o, in, "New SMB password:", pw1, sizeof(pw1)) != 0 ||
	    read_one(o, in, "Retype new SMB password:", pw2,
		     sizeof(pw2)) != 0) {
		fprintf(stderr, "Unable to get new password.\n");
	} else if (strcmp(pw1, pw2) != 0) {
		fprintf(stderr, "Mismatch - password unchanged.\n");
	} else if (!NT_STATUS_IS_OK(auth_nt_hash(pw1, hash))) {
		fprintf(stderr, "smbpasswd: the password is not valid "
			"UTF-8\n");
	} else {
		ret = 0;
	}
	explicit_bzero(pw1, sizeof(pw1));
	explicit_bzero(pw2, sizeof(pw2));
	if (in != stdin) {
		fclose(in);
	}
	return ret;
}

/* ---- the file ---- */

static char *passdb_file(TALLOC_CTX *mem_ctx,
			 const struct smbpasswd_options *o)
{
	const char *file = o->config_file;
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;

	if (file == NULL && access(lp_default_config_file(), F_OK) != 0) {
		lp = lp_load_default(mem_ctx);
	} else {
		file = (file != NULL) ? file : lp_default_config_file();
		if (lp_load_file(mem_ctx, file, &lp, &diags) != 0) {
			fprintf(stderr, "Can't load %s - run testparm to "
				"debug it\n", file);
			return NULL;
		}
	}
	if (lp == NULL) {
		fprintf(stderr, "smbpasswd: out of memory\n");
		return NULL;
	}
	return passdb_path_from_config(mem_ctx, lp->g.smb_passwd_file,
				       lp->g.private_dir);
}

/*
 * Serialize smbpasswd runs: an exclusive lock on the file's directory
 * for the load-edit-save sequence (the file itself is replaced by
 * rename, so it cannot carry the lock).  No directory yet: no lock.
 */
static int lock_dir(const char *path)
{
	char *dir = strdup(path);
	char *slash = (dir != NULL) ? strrchr(dir, '/') : NULL;
	int fd;

	if (slash != NULL) {
		*(slash == dir ? slash + 1 : slash) = '\0';
	}
	fd = open(slash != NULL ? dir : ".", O_RDONLY | O_DIRECTORY |
		  O_CLOEXEC);
	free(dir);
	if (fd != -1 && flock(fd, LOCK_EX) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static struct passdb *load(TALLOC_CTX *mem_ctx, const char *path)
{
	const struct passdb_diag *d = NULL;
	struct passdb *db = NULL;
	char *err = NULL;

	if (passdb_load(mem_ctx, path, &db, &err) != 0) {
		fprintf(stderr, "Failed to open the user database %s\n",
			err != NULL ? err : path);
		return NULL;
	}
	for (d = passdb_diags(db); d != NULL; d = d->next) {
		fprintf(stderr, "WARNING: %s\n", d->message);
	}
	return db;
}

static int save(TALLOC_CTX *mem_ctx, struct passdb *db)
{
	char *err = NULL;

	if (passdb_save(db, mem_ctx, &err) != 0) {
		fprintf(stderr, "Failed to write the user database %s\n",
			err != NULL ? err : "");
		return -1;
	}
	return 0;
}

/* ---- actions ---- */

static int no_such_user(const char *user)
{
	fprintf(stderr, "Failed to find entry for user %s.\n", user);
	return -1;
}

/*
 * The uid of user's Unix account, as Samba: an SMB user must be a Unix
 * user (smbd runs its file access as that account).  getpwnam_r with a
 * buffer grown on ERANGE.
 */
static int unix_uid(const char *user, uint32_t *uid)
{
	long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t size = (hint > 0 && hint < (1 << 20)) ? (size_t)hint : 1024;
	struct passwd pw, *res = NULL;
	int ret = ERANGE;

	while (ret == ERANGE && size <= (1 << 22)) {
		char *buf = malloc(size);

		if (buf == NULL) {
			ret = ENOMEM;
			break;
		}
		ret = getpwnam_r(user, &pw, buf, size, &res);
		if (ret == 0 && res != NULL) {
			*uid = (uint32_t)pw.pw_uid;
		}
		free(buf);
		size *= 2;
	}
	if (ret != 0 || res == NULL) {
		fprintf(stderr, "Failed to find a Unix account for %s\n"
			"Failed to add entry for user %s.\n", user, user);
		return -1;
	}
	return 0;
}

static int edit_error(int ret, const char *user)
{
	if (ret == -ENOENT) {
		return no_such_user(user);
	}
	if (ret == -EINVAL) {
		fprintf(stderr, "smbpasswd: invalid user name '%s' (1 to %d "
			"bytes of UTF-8, no ':' or control characters)\n",
			user, PASSDB_MAX_NAME);
	} else {
		fprintf(stderr, "smbpasswd: %s\n", strerror(-ret));
	}
	return -1;
}

/* -a or no action: a new password for o->user; *added if it is new */
static int set_password(struct passdb *db, const struct smbpasswd_options *o,
			bool *added)
{
	uint8_t hash[AUTH_NT_HASH_SIZE];
	uint32_t uid = 0;
	uint16_t acb = 0;
	int ret;

	*added = (passdb_get_info(db, o->user, &uid, &acb) != 0);
	if (*added && o->action != ACTION_ADD) {
		return no_such_user(o->user);
	}
	/* say so before prompting for a password */
	if (*added && !passdb_valid_name(o->user)) {
		return edit_error(-EINVAL, o->user);
	}
	if (*added && unix_uid(o->user, &uid) != 0) {
		return -1;
	}
	if (get_new_password_hash(o, hash) != 0) {
		return -1;
	}
	if (*added) {
		ret = passdb_add(db, o->user, uid, hash);
	} else {
		ret = passdb_set_password(db, o->user, hash);
	}
	explicit_bzero(hash, sizeof(hash));
	return (ret != 0) ? edit_error(ret, o->user) : 0;
}

static int run_action(TALLOC_CTX *mem_ctx, struct passdb *db,
		      const struct smbpasswd_options *o)
{
	static const char *const done[] = {
		[ACTION_ADD] = "Added", [ACTION_DELETE] = "Deleted",
		[ACTION_DISABLE] = "Disabled", [ACTION_ENABLE] = "Enabled",
	};
	bool added = false;
	int ret = 0;

	switch (o->action) {
	case ACTION_DELETE:
		ret = passdb_delete(db, o->user);
		break;
	case ACTION_DISABLE:
	case ACTION_ENABLE:
		ret = passdb_set_disabled(db, o->user,
					  o->action == ACTION_DISABLE);
		break;
	case ACTION_ADD:
	case ACTION_SET_PASSWORD:
		if (set_password(db, o, &added) != 0) {
			return -1;
		}
		break;
	}
	if (ret != 0) {
		return edit_error(ret, o->user);
	}
	if (save(mem_ctx, db) != 0) {
		return -1;
	}
	/* like Samba: a new password for an existing user is silent */
	if (o->action != ACTION_SET_PASSWORD &&
	    (o->action != ACTION_ADD || added)) {
		printf("%s user %s.\n", done[o->action], o->user);
	}
	return 0;
}

static int smbpasswd(TALLOC_CTX *mem_ctx, const struct smbpasswd_options *o)
{
	struct passdb *db = NULL;
	char *path = passdb_file(mem_ctx, o);
	int lock_fd, ret = -1;

	if (path == NULL) {
		return -1;
	}
	DBG_INFO("user database: %s\n", path);
	lock_fd = lock_dir(path);
	db = load(mem_ctx, path);
	if (db != NULL) {
		ret = run_action(mem_ctx, db, o);
	}
	TALLOC_FREE(db);
	if (lock_fd != -1) {
		close(lock_fd);
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct smbpasswd_options o = { .debug_level = 0 };
	TALLOC_CTX *mem_ctx = NULL;
	int ret;

	if (parse_args(argc, argv, &o) != 0) {
		return 1;
	}
	debug_setup(o.debug_level, NULL);
	mem_ctx = talloc_new(NULL);
	if (mem_ctx == NULL) {
		fprintf(stderr, "smbpasswd: out of memory\n");
		return 1;
	}
	ret = smbpasswd(mem_ctx, &o);
	talloc_free(mem_ctx);
	return (ret == 0) ? 0 : 1;
}
