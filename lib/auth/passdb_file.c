/*
 * The smbpasswd file: load, save atomically, reload when it changed, and
 * where it lives.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/auth/auth_private.h"
#include "lib/auth/passdb_private.h"
#include "lib/param/param.h"

/* ---- loading ---- */

static int set_err(TALLOC_CTX *mem_ctx, char **err, int ret,
		   const char *path, const char *what)
{
	if (err != NULL) {
		*err = talloc_asprintf(mem_ctx, "%s: %s%s%s", path,
				       what != NULL ? what : "",
				       what != NULL ? ": " : "",
				       strerror(-ret));
	}
	return ret;
}

/* Read a whole regular file into a wiped buffer; *buf NULL if missing. */
static int read_file(TALLOC_CTX *mem_ctx, const char *path, char **buf,
		     size_t *len, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t got = 0;
	int ret = 0;

	*buf = NULL;
	*len = 0;
	if (fd == -1) {
		return (errno == ENOENT) ? 0 : -errno;
	}
	if (fstat(fd, st) != 0) {
		ret = -errno;
	} else if (!S_ISREG(st->st_mode)) {
		ret = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	} else if (st->st_size > PASSDB_MAX_FILE) {
		ret = -EFBIG;
	} else if ((*buf = talloc_size(mem_ctx, st->st_size + 1)) == NULL) {
		ret = -ENOMEM;
	}
	if (*buf != NULL) {
		auth_keep_secret(*buf);
	}
	while (ret == 0 && got < (size_t)st->st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st->st_size - got);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			/* n == 0: the file shrank under us */
			ret = (n < 0) ? -errno : -EIO;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (ret != 0) {
		TALLOC_FREE(*buf);
	}
	*len = got;
	return ret;
}

/* Read path into a fresh passdb (file identity in st / have_stat). */
static int load_into(TALLOC_CTX *mem_ctx, const char *path,
		     struct passdb **out)
{
	struct passdb *db = passdb_new(mem_ctx, path);
	char *buf = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	if (db == NULL || (db->path = talloc_strdup(db, path)) == NULL) {
		talloc_free(db);
		return -ENOMEM;
	}
	ret = read_file(db, path, &buf, &len, &db->st);
	if (ret != 0) {
		talloc_free(db);
		return ret;
	}
	db->have_stat = (buf != NULL);
	passdb_parse_text(db, buf, len);
	TALLOC_FREE(buf);
	if (db->have_stat && (db->st.st_mode & 0077) != 0) {
		passdb_add_diag(db, 0, "mode %04o lets other users see the "
				"password hashes; smbpasswd writes it 0600",
				(unsigned)(db->st.st_mode & 07777));
	}
	*out = db;
	return 0;
}

int passdb_load(TALLOC_CTX *mem_ctx, const char *path, struct passdb **out,
		char **err)
{
	int ret = load_into(mem_ctx, path, out);

	if (ret != 0) {
		return set_err(mem_ctx, err, ret, path, NULL);
	}
	return 0;
}

/* ---- saving ---- */

static int write_all(int fd, const char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return (n < 0) ? -errno : -EIO;
		}
		done += (size_t)n;
	}
	return 0;
}

/* mkdir -p: missing parents get 0755, dir itself (the private dir) mode */
static int make_dir(char *dir, mode_t mode)
{
	char *slash = strrchr(dir, '/');
	struct stat st;
	int ret;

	if (stat(dir, &st) == 0) {
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	}
	if (errno != ENOENT) {
		return -errno;
	}
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		ret = make_dir(dir, 0755);
		*slash = '/';
		if (ret != 0) {
			return ret;
		}
	}
	if (mkdir(dir, mode) != 0 && errno != EEXIST) {
		return -errno;
	}
	return 0;
}

static char *dir_of(TALLOC_CTX *mem_ctx, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL) {
		return talloc_strdup(mem_ctx, ".");
	}
	if (slash == path) {
		return talloc_strdup(mem_ctx, "/");
	}
	return talloc_strndup(mem_ctx, path, (size_t)(slash - path));
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd == -1) {
		return -errno;
	}
	if (fsync(fd) != 0 && errno != EINVAL) {
		ret = -errno;
	}
	close(fd);
	return ret;
}

/* Write text to a new temporary file next to path; its name in *tmp. */
static int write_temp(const char *path, const char *text, size_t len,
		      char *tmp, const char **what)
{
	int fd, ret;

	*what = "cannot create a temporary file";
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd == -1) {
		return -errno;
	}
	*what = "cannot write the temporary file";
	ret = (fchmod(fd, 0600) != 0) ? -errno : write_all(fd, text, len);
	if (ret == 0 && fsync(fd) != 0) {
		ret = -errno;
	}
	if (close(fd) != 0 && ret == 0) {
		ret = -errno;
	}
	if (ret == 0 && rename(tmp, path) != 0) {
		*what = "cannot rename the temporary file over it";
		ret = -errno;
	}
	if (ret != 0) {
		unlink(tmp);
	}
	return ret;
}

static int save_text(struct passdb *db, TALLOC_CTX *tmp_ctx,
		     const char *text, size_t len, const char **what)
{
	char *dir = dir_of(tmp_ctx, db->path);
	char *tmp = talloc_asprintf(tmp_ctx, "%s.tmpXXXXXX", db->path);
	int ret;

	if (dir == NULL || tmp == NULL) {
		return -ENOMEM;
	}
	*what = "cannot create its directory";
	ret = make_dir(dir, 0700);
	if (ret == 0) {
		ret = write_temp(db->path, text, len, tmp, what);
	}
	if (ret == 0) {
		*what = "cannot sync its directory";
		ret = sync_dir(dir);
	}
	if (ret == 0 && stat(db->path, &db->st) == 0) {
		db->have_stat = true;
	}
	return ret;
}

int passdb_save(struct passdb *db, TALLOC_CTX *mem_ctx, char **err)
{
	TALLOC_CTX *tmp_ctx = NULL;
	const char *what = NULL;
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (db->path == NULL) {
		return set_err(mem_ctx, err, -EINVAL, db->name, "not a file");
	}
	tmp_ctx = talloc_new(NULL);
	if (tmp_ctx == NULL) {
		return set_err(mem_ctx, err, -ENOMEM, db->path, NULL);
	}
	ret = passdb_format(db, tmp_ctx, &text, &len);
	if (ret == 0) {
		ret = save_text(db, tmp_ctx, text, len, &what);
	}
	talloc_free(tmp_ctx);
	if (ret != 0) {
		return set_err(mem_ctx, err, ret, db->path, what);
	}
	return 0;
}

/* ---- reloading ---- */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int passdb_reload_if_changed(struct passdb *db, TALLOC_CTX *mem_ctx,
			     char **err)
{
	struct passdb *fresh = NULL;
	struct stat st;
	int ret;

	if (db->path == NULL) {
		return set_err(mem_ctx, err, -EINVAL, db->name, "not a file");
	}
	if (stat(db->path, &st) != 0) {
		if (errno != ENOENT) {
			return set_err(mem_ctx, err, -errno, db->path, NULL);
		}
		if (!db->have_stat) {
			return 0;
		}
	} else if (db->have_stat && same_file(&st, &db->st)) {
		return 0;
	}
	ret = load_into(NULL, db->path, &fresh);
	if (ret != 0) {
		return set_err(mem_ctx, err, ret, db->path, NULL);
	}
	talloc_free(db->data);
	db->data = talloc_move(db, &fresh->data);
	db->st = fresh->st;
	db->have_stat = fresh->have_stat;
	db->generation++;
	talloc_free(fresh);
	return 1;
}

char *passdb_path_from_config(TALLOC_CTX *mem_ctx,
			      const char *smb_passwd_file,
			      const char *private_dir)
{
	if (smb_passwd_file != NULL &&
	    strcmp(smb_passwd_file, LP_DEFAULT_SMB_PASSWD) != 0) {
		return talloc_strdup(mem_ctx, smb_passwd_file);
	}
	if (private_dir == NULL) {
		private_dir = LP_DEFAULT_PRIVATE_DIR;
	}
	return talloc_asprintf(mem_ctx, "%s/smbpasswd", private_dir);
}
