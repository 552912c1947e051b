/*
 * The users' SIDs from the SID file (sidmap.h, lib/auth/samsid.h): read
 * at start, at SIGHUP and, for the smbpasswd part, when that file
 * reloads.  Nothing of Samba's is linked in: Samba's own secrets.tdb and
 * passdb.tdb are imported by ringsmb-import-samba, which writes this
 * file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util/unix_token.h"
#include "lib/auth/passdb.h"
#include "lib/auth/samsid.h"
#include "lib/crypto/crypto.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "source3/smbd/session/sidmap.h"

#define SIDMAP_FILE	"sids"

struct smbd_sidmap {
	struct smb2_sid domain;
	struct samsid_user *named;      /* the file's users, in file order */
	size_t n_named;
	uint32_t rid_base;
	uint64_t passdb_gen;
};

static const char *private_dir(const struct smbd_server *server)
{
	const char *d = server->lp->g.private_dir;

	return d != NULL ? d : LP_DEFAULT_PRIVATE_DIR;
}

/* The whole file into *buf (NUL-terminated); -errno. */
static int read_small(TALLOC_CTX *mem_ctx, const char *path, char **buf,
		      size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	ssize_t got;
	int err;

	if (fd < 0) {
		return -errno;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > SAMSID_MAX_FILE) {
		err = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		close(fd);
		return err;
	}
	*buf = talloc_size(mem_ctx, (size_t)st.st_size + 1);
	if (*buf == NULL) {
		close(fd);
		return -ENOMEM;
	}
	got = read(fd, *buf, (size_t)st.st_size);
	err = got < 0 ? -errno : 0;
	close(fd);
	if (err != 0) {
		return err;
	}
	(*buf)[got] = '\0';
	*len = (size_t)got;
	return 0;
}

/* A new file with a new domain: mode 0600, written whole, then renamed. */
static bool make_file(struct smbd_server *server, const char *path,
		      struct smb2_sid *domain)
{
	const char *dir = private_dir(server);
	char *tmp = talloc_asprintf(server, "%s.tmpXXXXXX", path);
	char *text = NULL;
	uint8_t rnd[12];
	size_t len;
	int fd = -1;
	bool ok = false;

	if (tmp == NULL || crypto_random(rnd, sizeof(rnd)) != 0) {
		goto done;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		DBG_ERR("SIDs: cannot create %s: %s\n", dir, strerror(errno));
		goto done;
	}
	samsid_domain_from_random(domain, rnd);
	text = samsid_file_format(tmp, domain, NULL, 0);
	fd = text != NULL ? mkstemp(tmp) : -1;
	if (fd < 0) {
		DBG_ERR("SIDs: cannot write %s: %s\n", path, strerror(errno));
		goto done;
	}
	len = strlen(text);
	ok = fchmod(fd, 0600) == 0 && write(fd, text, len) == (ssize_t)len &&
	     fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	ok = ok && rename(tmp, path) == 0;
	if (!ok) {
		DBG_ERR("SIDs: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
done:
	talloc_free(tmp);
	return ok;
}

/*
 * The file's domain and named users (those with a Unix account); the
 * file made, with a new domain, when there is none.
 */
static bool load_file_root(struct smbd_server *server, struct smbd_sidmap *m)
{
	char *path = talloc_asprintf(m, "%s/%s", private_dir(server),
				     SIDMAP_FILE);
	struct samsid_file *f = NULL;
	char *buf = NULL;
	size_t len = 0, i;
	int ret;

	if (path == NULL) {
		return false;
	}
	ret = read_small(m, path, &buf, &len);
	if (ret == -ENOENT) {
		if (!make_file(server, path, &m->domain)) {
			return false;
		}
		DBG_NOTICE("SIDs: made %s with a new domain SID\n", path);
		return true;
	}
	if (ret != 0) {
		DBG_ERR("SIDs: cannot read %s: %s\n", path, strerror(-ret));
		return false;
	}
	f = samsid_file_parse(m, path, buf, len);
	if (f == NULL) {
		return false;
	}
	for (i = 0; i < f->num_diags; i++) {
		DBG_WARNING("%s\n", f->diags[i]);
	}
	if (!f->have_domain) {
		/* never overwrite what an admin wrote */
		DBG_ERR("SIDs: %s has no domain line\n", path);
		return false;
	}
	m->domain = f->domain;
	m->named = talloc_array(m, struct samsid_user,
				f->num_users > 0 ? f->num_users : 1);
	if (m->named == NULL) {
		return false;
	}
	for (i = 0; i < f->num_users; i++) {
		struct passwd pw, *res = NULL;
		char pwbuf[4096];

		if (getpwnam_r(f->users[i].name, &pw, pwbuf, sizeof(pwbuf),
			       &res) != 0 || res == NULL) {
			DBG_NOTICE("SIDs: %s: no Unix account %s: its RID "
				   "is not used\n", path, f->users[i].name);
			continue;
		}
		m->named[m->n_named++] = (struct samsid_user) {
			.uid = pw.pw_uid, .rid = f->users[i].rid,
		};
	}
	talloc_free(f);
	talloc_free(buf);
	return true;
}

/* The private dir is root's: read (or made) as the daemon, held or not. */
static bool load_file(struct smbd_server *server, struct smbd_sidmap *m)
{
	bool ok = unix_token_become_root() == 0 && load_file_root(server, m);

	unix_token_unbecome();
	return ok;
}

struct build {
	struct samsid_user *users;
	size_t n;
	uint32_t base;
};

/*
 * A passdb user's algorithmic RID, from its Unix account's uid (as
 * Samba's smbpasswd backend computes it), never from the file's uid
 * field, which another tool may have written wrong.
 */
static void add_passdb_user(const char *name, uint32_t uid, void *private)
{
	struct build *b = private;
	struct passwd pw, *res = NULL;
	char buf[4096];
	uint32_t rid;

	(void)uid;
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 &&
	    res != NULL && samsid_algorithmic_rid(pw.pw_uid, b->base, &rid)) {
		b->users[b->n++] = (struct samsid_user) { .uid = pw.pw_uid,
							  .rid = rid };
	}
}

/* the file's users first: theirs win over an algorithmic RID or uid */
static void build_map(struct smbd_server *server)
{
	struct smbd_sidmap *m = server->sidmap_src;
	size_t np = server->passdb != NULL ?
		passdb_num_users(server->passdb) : 0;
	struct build b = { .base = m->rid_base };
	struct samsid_map *map;

	b.users = talloc_array(m, struct samsid_user, m->n_named + np + 1);
	if (b.users == NULL) {
		return;
	}
	if (m->n_named > 0) {
		memcpy(b.users, m->named, m->n_named * sizeof(*b.users));
	}
	b.n = m->n_named;
	if (server->passdb != NULL) {
		passdb_foreach_user(server->passdb, add_passdb_user, &b);
		m->passdb_gen = passdb_generation(server->passdb);
	}
	map = samsid_map_new(server, &m->domain, b.users, b.n);
	talloc_free(b.users);
	if (map == NULL) {
		DBG_ERR("SIDs: no memory for the SID map: keeping the old "
			"one\n");
		return;
	}
	talloc_free(server->sid_map);
	server->sid_map = map;
}

void smbd_sidmap_load(struct smbd_server *server)
{
	struct smbd_sidmap *m = talloc_zero(server, struct smbd_sidmap);
	char text[SAMSID_SID_TEXT_MAX];
	int base = server->lp->g.algorithmic_rid_base;

	if (m == NULL || !load_file(server, m)) {
		DBG_ERR("SIDs: no domain SID: users keep their Unix SIDs "
			"(S-1-22-1-uid)\n");
		talloc_free(m);
		return;
	}
	if (base & 1) {
		/* Samba's rule: the base must be even */
		DBG_WARNING("SIDs: algorithmic rid base %d is odd: %d used\n",
			    base, base + 1);
		base++;
	}
	m->rid_base = (uint32_t)base;
	TALLOC_FREE(server->sidmap_src);
	server->sidmap_src = m;
	build_map(server);
	samsid_sid_format(&m->domain, text);
	DBG_NOTICE("SIDs: domain %s, %zu users\n", text,
		   samsid_map_num_users(server->sid_map));
}

void smbd_sidmap_refresh(struct smbd_server *server)
{
	if (server->sidmap_src != NULL && server->passdb != NULL &&
	    passdb_generation(server->passdb) !=
	    server->sidmap_src->passdb_gen) {
		build_map(server);
	}
}
