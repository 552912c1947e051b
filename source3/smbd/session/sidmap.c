/*
 * The users' SIDs from Samba's secrets.tdb and passdb.tdb (sidmap.h).
 * The tdb files are root's, in the private directory, and are read
 * through Samba's own libtdb; what their records hold is checked by
 * lib/auth/samsid.c before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <tdb.h>
#include <unistd.h>

#include "lib/auth/passdb.h"
#include "lib/auth/samsid.h"
#include "lib/crypto/crypto.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "source3/smbd/session/sidmap.h"

#define SIDMAP_SECRETS		"secrets.tdb"
#define SIDMAP_PASSDB_TDB	"passdb.tdb"
/* tdbsam users read at most (a passdb.tdb is a few thousand at most) */
#define SIDMAP_MAX_TDBSAM	(1 << 20)

struct smbd_sidmap {
	struct smb2_sid domain;
	struct samsid_user *tdbsam;     /* from passdb.tdb, in file order */
	size_t n_tdbsam;
	uint32_t rid_base;
	uint64_t passdb_gen;
};

static const char *private_dir(const struct smbd_server *server)
{
	const char *d = server->lp->g.private_dir;

	return d != NULL ? d : LP_DEFAULT_PRIVATE_DIR;
}

static void sid_text(const struct smb2_sid *sid, char *buf, size_t len)
{
	size_t used;
	uint8_t i;

	used = (size_t)snprintf(buf, len, "S-1-%llu",
				(unsigned long long)sid->authority);
	for (i = 0; i < sid->num_auths && used < len; i++) {
		used += (size_t)snprintf(buf + used, len - used, "-%u",
					 sid->sub_auths[i]);
	}
}

/*
 * The domain SID of secrets.tdb, made and stored when it has none.  The
 * chain lock on the key keeps a Samba starting at the same moment from
 * storing another one.
 */
static bool load_domain(struct smbd_server *server, struct smb2_sid *out)
{
	const char *dir = private_dir(server);
	char *path = talloc_asprintf(server, "%s/%s", dir, SIDMAP_SECRETS);
	char *key = samsid_secrets_key(path, server->lp->g.netbios_name);
	struct tdb_context *tdb = NULL;
	TDB_DATA k, v;
	uint8_t blob[SAMSID_DOM_SID_SIZE], rnd[12];
	bool ok = false;

	if (path == NULL || key == NULL) {
		goto done;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		DBG_ERR("SIDs: cannot create %s: %s\n", dir, strerror(errno));
		goto done;
	}
	tdb = tdb_open(path, 0, TDB_DEFAULT, O_RDWR | O_CREAT, 0600);
	if (tdb == NULL) {
		DBG_ERR("SIDs: cannot open %s: %s\n", path, strerror(errno));
		goto done;
	}
	k = (TDB_DATA) { .dptr = (uint8_t *)key, .dsize = strlen(key) };
	if (tdb_chainlock(tdb, k) != 0) {
		DBG_ERR("SIDs: cannot lock %s in %s\n", key, path);
		goto done;
	}
	v = tdb_fetch(tdb, k);
	if (v.dptr != NULL) {
		ok = samsid_dom_sid_parse(v.dptr, v.dsize, out);
		if (!ok) {
			/* never overwrite what Samba may rely on */
			DBG_ERR("SIDs: %s in %s is not a domain SID (%zu "
				"bytes): not used\n", key, path, v.dsize);
		}
		free(v.dptr);
	} else if (crypto_random(rnd, sizeof(rnd)) == 0) {
		samsid_domain_from_random(out, rnd);
		samsid_dom_sid_push(out, blob);
		v = (TDB_DATA) { .dptr = blob, .dsize = sizeof(blob) };
		ok = tdb_store(tdb, k, v, TDB_INSERT) == 0;
		if (!ok) {
			DBG_ERR("SIDs: cannot store %s in %s: %s\n", key,
				path, tdb_errorstr(tdb));
		}
	}
	tdb_chainunlock(tdb, k);
done:
	if (tdb != NULL) {
		tdb_close(tdb);
	}
	talloc_free(path);
	return ok;
}

struct tdbsam_read {
	struct smbd_sidmap *m;
	size_t cap;
};

static int tdbsam_record(struct tdb_context *tdb, TDB_DATA k, TDB_DATA v,
			 void *private_data)
{
	struct tdbsam_read *r = private_data;
	struct passwd pw, *res = NULL;
	char buf[4096];
	const char *name = NULL;
	uint32_t rid;

	if (!samsid_rid_record(k.dptr, k.dsize, v.dptr, v.dsize, &rid,
			       &name)) {
		return 0;
	}
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 ||
	    res == NULL) {
		return 0;   /* no Unix account: Samba cannot map it either */
	}
	if (r->m->n_tdbsam == r->cap) {
		struct samsid_user *n;

		if (r->cap >= SIDMAP_MAX_TDBSAM) {
			return -1;
		}
		r->cap = r->cap == 0 ? 16 : 2 * r->cap;
		n = talloc_realloc(r->m, r->m->tdbsam, struct samsid_user,
				   r->cap);
		if (n == NULL) {
			return -1;
		}
		r->m->tdbsam = n;
	}
	r->m->tdbsam[r->m->n_tdbsam++] = (struct samsid_user) {
		.uid = pw.pw_uid, .rid = rid,
	};
	return 0;
}

/* The tdbsam path of `passdb backend`, NULL for none (smbpasswd). */
static char *tdbsam_path(TALLOC_CTX *mem_ctx, struct smbd_server *server)
{
	const char *b = server->lp->g.passdb_backend;

	if (b == NULL || strcmp(b, "tdbsam") == 0) {
		return talloc_asprintf(mem_ctx, "%s/%s", private_dir(server),
				       SIDMAP_PASSDB_TDB);
	}
	if (strncmp(b, "tdbsam:", 7) == 0 && b[7] != '\0') {
		return talloc_strdup(mem_ctx, b + 7);
	}
	if (strcmp(b, "smbpasswd") != 0 && strncmp(b, "smbpasswd:", 10) != 0) {
		DBG_WARNING("SIDs: passdb backend \"%s\" is not read: users "
			    "get algorithmic RIDs (as with smbpasswd)\n", b);
	}
	return NULL;
}

static void load_tdbsam(struct smbd_server *server, struct smbd_sidmap *m)
{
	char *path = tdbsam_path(m, server);
	struct tdbsam_read r = { .m = m };
	struct tdb_context *tdb;

	if (path == NULL) {
		return;
	}
	tdb = tdb_open(path, 0, TDB_DEFAULT, O_RDONLY, 0);
	if (tdb == NULL) {
		if (errno != ENOENT) {
			DBG_ERR("SIDs: cannot read %s: %s\n", path,
				strerror(errno));
		}
		talloc_free(path);
		return;
	}
	if (tdb_traverse_read(tdb, tdbsam_record, &r) < 0) {
		DBG_ERR("SIDs: cannot read every record of %s: users it "
			"names may get algorithmic RIDs\n", path);
	}
	tdb_close(tdb);
	DBG_NOTICE("SIDs: %zu users with a RID in %s\n", m->n_tdbsam, path);
	talloc_free(path);
}

struct build {
	struct samsid_user *users;
	size_t n;
	uint32_t base;
};

static void add_passdb_user(const char *name, uint32_t uid, void *private)
{
	struct build *b = private;
	uint32_t rid;

	if (uid != PASSDB_NO_UID && samsid_algorithmic_rid(uid, b->base, &rid))
	{
		b->users[b->n++] = (struct samsid_user) { .uid = uid,
							  .rid = rid };
	}
}

/* tdbsam's users first: theirs win over an algorithmic RID or uid */
static void build_map(struct smbd_server *server)
{
	struct smbd_sidmap *m = server->sidmap_src;
	size_t np = server->passdb != NULL ?
		passdb_num_users(server->passdb) : 0;
	struct build b = { .base = m->rid_base };
	struct samsid_map *map;

	b.users = talloc_array(m, struct samsid_user, m->n_tdbsam + np + 1);
	if (b.users == NULL) {
		return;
	}
	if (m->n_tdbsam > 0) {
		memcpy(b.users, m->tdbsam, m->n_tdbsam * sizeof(*b.users));
	}
	b.n = m->n_tdbsam;
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
	char text[160];
	int base = server->lp->g.algorithmic_rid_base;

	if (m == NULL || !load_domain(server, &m->domain)) {
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
	load_tdbsam(server, m);
	TALLOC_FREE(server->sidmap_src);
	server->sidmap_src = m;
	build_map(server);
	sid_text(&m->domain, text, sizeof(text));
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
