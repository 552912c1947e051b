/*
 * Unix accounts and the token cache (identity.h, docs/security.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/uring/uring.h"
#include "lib/util/debug.h"
#include "lib/param/access.h"
#include "lib/param/param.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/session/identity.h"
#include "source3/smbd/session/sidmap.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/open_files.h"

/* getpwnam_r / getgrgid_r buffers grow up to this */
#define SMBD_NSS_BUF_MAX (1024 * 1024)

struct smbd_identity {
	struct smbd_identity *prev, *next;
	struct smbd_identities *cache;
	unsigned refs;
	struct unix_token tok;
};

struct smbd_identities {
	struct smbd_identity *list;
	size_t count;
	uint64_t next_serial;
	struct uring *ring;             /* NULL: no personalities */
	bool can_switch;
	/* "username map", read again when the file changes (as Samba) */
	struct username_map *map;
	char *map_path;
	struct timespec map_mtime;
	off_t map_size;
};

struct smbd_identity_ref {
	struct smbd_identity *id;
};

int smbd_identities_init(struct smbd_server *server)
{
	struct smbd_identities *c = talloc_zero(server,
						struct smbd_identities);

	if (c == NULL) {
		return -1;
	}
	c->ring = server->ring;
	c->can_switch = unix_token_can_switch();
	if (!c->can_switch) {
		DBG_WARNING("not running as root: every client acts on disk "
			    "as uid %u, the daemon's own\n",
			    (unsigned)geteuid());
	}
	server->identities = c;
	return 0;
}

size_t smbd_identities_count(const struct smbd_server *server)
{
	return server->identities != NULL ? server->identities->count : 0;
}

/* ---- NSS ---- */

static char *nss_buf(TALLOC_CTX *mem_ctx, size_t *len)
{
	long sz = sysconf(_SC_GETPW_R_SIZE_MAX);

	*len = sz > 0 ? (size_t)sz : 16384;
	return talloc_size(mem_ctx, *len);
}

static const char *group_name(TALLOC_CTX *mem_ctx, gid_t gid)
{
	struct group grp;
	struct group *res = NULL;
	size_t len = 0;
	char *buf = nss_buf(mem_ctx, &len);
	const char *name = "";

	while (buf != NULL) {
		int ret = getgrgid_r(gid, &grp, buf, len, &res);

		if (ret != ERANGE || len >= SMBD_NSS_BUF_MAX) {
			break;
		}
		len *= 2;
		buf = talloc_realloc_size(mem_ctx, buf, len);
	}
	if (res != NULL) {
		name = talloc_strdup(mem_ctx, res->gr_name);
	}
	talloc_free(buf);
	return name;
}

NTSTATUS smbd_unix_user_lookup(TALLOC_CTX *mem_ctx, const char *name,
			       struct smbd_unix_user **out)
{
	struct smbd_unix_user *u = talloc_zero(mem_ctx,
					       struct smbd_unix_user);
	struct passwd pw;
	struct passwd *res = NULL;
	size_t len = 0;
	char *buf = u != NULL ? nss_buf(u, &len) : NULL;
	int ret = ENOMEM;

	while (buf != NULL) {
		ret = getpwnam_r(name, &pw, buf, len, &res);
		if (ret != ERANGE || len >= SMBD_NSS_BUF_MAX) {
			break;
		}
		len *= 2;
		buf = talloc_realloc_size(u, buf, len);
	}
	if (res == NULL) {
		talloc_free(u);
		return ret == ENOMEM ? NT_STATUS_NO_MEMORY :
			NT_STATUS_NO_SUCH_USER;
	}
	u->name = talloc_strdup(u, res->pw_name);
	u->uid = res->pw_uid;
	u->gid = res->pw_gid;
	u->home = talloc_strdup(u, res->pw_dir != NULL ? res->pw_dir : "");
	u->group_name = group_name(u, u->gid);
	talloc_free(buf);
	if (u->name == NULL || u->home == NULL || u->group_name == NULL) {
		talloc_free(u);
		return NT_STATUS_NO_MEMORY;
	}
	*out = u;
	return NT_STATUS_OK;
}

/* The account's groups (getgrouplist), gid and force_gid included. */
static gid_t *user_groups(TALLOC_CTX *mem_ctx,
			  const struct smbd_unix_user *u, gid_t gid,
			  uint32_t *n)
{
	int count = 32;
	gid_t *g = NULL;

	for (;;) {
		int want = count;

		g = talloc_realloc(mem_ctx, g, gid_t, count + 1);
		if (g == NULL) {
			return NULL;
		}
		if (getgrouplist(u->name, u->gid, g, &want) >= 0) {
			count = want;
			break;
		}
		if (want <= count || want > UNIX_TOKEN_MAX_GROUPS) {
			count = want < count ? want : count;
			break;
		}
		count = want;
	}
	g[count++] = gid;
	*n = unix_token_normalize_groups(g, (uint32_t)count);
	return g;
}

/* ---- the cache ---- */

static void identity_unregister(struct smbd_identity *id)
{
	if (id->tok.personality != 0 && id->cache->ring != NULL) {
		uring_personality_unregister(id->cache->ring,
					     id->tok.personality);
	}
	id->tok.personality = 0;
	id->tok.personality_ring = NULL;
}

static int identity_destructor(struct smbd_identity *id)
{
	struct smbd_identities *c = id->cache;

	identity_unregister(id);
	if (id->prev != NULL) {
		id->prev->next = id->next;
	} else {
		c->list = id->next;
	}
	if (id->next != NULL) {
		id->next->prev = id->prev;
	}
	c->count--;
	return 0;
}

/*
 * The personality is what the ring checks every SQE of this user
 * against: registered while this thread is that user, on worker 0's ring
 * when this is worker 0 (vfs_ring_personality does it for the others).  Without one the
 * VFS switches the thread for ring operations too (vfs_io_uring).
 */
static void identity_register(struct smbd_identity *id)
{
	int ret;

	/* another worker's thread: the ring's own registers it when needed */
	if (id->cache->ring == NULL || !uring_is_owner(id->cache->ring) ||
	    unix_token_become(&id->tok) != 0) {
		return;
	}
	ret = uring_personality_register(id->cache->ring);
	unix_token_unbecome();
	if (ret > 0) {
		id->tok.personality = (uint16_t)ret;
		id->tok.personality_ring = id->cache->ring;
	} else {
		DBG_NOTICE("no io_uring personality for uid %u: %s\n",
			   (unsigned)id->tok.uid, strerror(-ret));
	}
}

static struct smbd_identity *identity_find(struct smbd_identities *c,
					   const struct unix_token *t)
{
	struct smbd_identity *id = NULL;

	for (id = c->list; id != NULL; id = id->next) {
		if (unix_token_equal(&id->tok, t)) {
			return id;
		}
	}
	return NULL;
}

static struct smbd_identity *identity_new(struct smbd_identities *c,
					  struct unix_token *t)
{
	struct smbd_identity *id = NULL;

	if (c->count >= SMBD_MAX_IDENTITIES) {
		DBG_WARNING("%u distinct identities in use: logon refused\n",
			    (unsigned)c->count);
		return NULL;
	}
	id = talloc_zero(c, struct smbd_identity);
	if (id == NULL) {
		return NULL;
	}
	id->cache = c;
	id->tok = *t;
	id->tok.serial = ++c->next_serial;
	id->tok.groups = talloc_steal(id, t->groups);
	id->next = c->list;
	if (c->list != NULL) {
		c->list->prev = id;
	}
	c->list = id;
	c->count++;
	talloc_set_destructor(id, identity_destructor);
	identity_register(id);
	return id;
}

static int ref_destructor(struct smbd_identity_ref *ref)
{
	if (ref->id != NULL && --ref->id->refs == 0) {
		talloc_free(ref->id);
	}
	return 0;
}

NTSTATUS smbd_identity_get(TALLOC_CTX *mem_ctx, struct smbd_server *server,
			   const struct smbd_unix_user *u, gid_t force_gid,
			   struct smbd_identity_ref **out)
{
	struct smbd_identities *c = server->identities;
	struct smbd_identity_ref *ref = talloc_zero(mem_ctx,
						    struct smbd_identity_ref);
	struct unix_token t = { .uid = u->uid, .gid = u->gid };
	struct smbd_identity *id = NULL;

	if (ref == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	talloc_set_destructor(ref, ref_destructor);
	*out = ref;
	if (c == NULL || !c->can_switch) {
		return NT_STATUS_OK;    /* as the daemon */
	}
	if (force_gid != (gid_t)-1) {
		t.gid = force_gid;
	}
	t.groups = user_groups(ref, u, t.gid, &t.ngroups);
	if (t.groups == NULL) {
		TALLOC_FREE(*out);
		return NT_STATUS_NO_MEMORY;
	}
	id = identity_find(c, &t);
	if (id == NULL) {
		id = identity_new(c, &t);
	}
	if (id == NULL) {
		TALLOC_FREE(*out);
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	id->refs++;
	ref->id = id;
	return NT_STATUS_OK;
}

const struct unix_token *smbd_identity_token(
	const struct smbd_identity_ref *ref)
{
	return ref != NULL && ref->id != NULL ? &ref->id->tok : NULL;
}

/* ---- logon ---- */

/* A username map file is at most this big */
#define SMBD_USERMAP_MAX (1024 * 1024)

static void usermap_report(const char *path, char **problems)
{
	size_t i;

	for (i = 0; problems != NULL && problems[i] != NULL; i++) {
		DBG_WARNING("username map %s\n", problems[i]);
	}
}

static void usermap_read(struct smbd_identities *c, const char *path,
			 const struct stat *st)
{
	char *text = NULL;
	char **problems = NULL;
	ssize_t got = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	TALLOC_FREE(c->map);
	if (fd >= 0 && st->st_size <= SMBD_USERMAP_MAX) {
		text = talloc_size(c, (size_t)st->st_size + 1);
		got = text != NULL ? read(fd, text, (size_t)st->st_size) : -1;
	}
	if (fd >= 0) {
		close(fd);
	}
	if (got < 0) {
		DBG_ERR("username map %s: cannot read it: no names are "
			"mapped\n", path);
	} else if (username_map_parse(c, path, text, (size_t)got, &c->map,
				      &problems) != 0) {
		usermap_report(path, problems);
	}
	talloc_free(problems);
	talloc_free(text);
}

/* The map of "username map", reloaded when its file changed. */
static const struct username_map *usermap(struct smbd_identities *c,
					  const char *path)
{
	struct stat st;

	if (path[0] == '\0') {
		return NULL;
	}
	if (stat(path, &st) != 0) {
		if (c->map != NULL || c->map_size != -1) {
			DBG_ERR("username map %s: %s\n", path,
				strerror(errno));
		}
		TALLOC_FREE(c->map);
		c->map_size = -1;
		return NULL;
	}
	if (c->map_path == NULL || strcmp(c->map_path, path) != 0 ||
	    c->map_size != st.st_size ||
	    c->map_mtime.tv_sec != st.st_mtim.tv_sec ||
	    c->map_mtime.tv_nsec != st.st_mtim.tv_nsec) {
		TALLOC_FREE(c->map_path);
		c->map_path = talloc_strdup(c, path);
		c->map_mtime = st.st_mtim;
		c->map_size = st.st_size;
		usermap_read(c, path, &st);
	}
	return c->map;
}

/*
 * The Unix name a logon name stands for: the username map's, else the
 * name itself (identity.c's one place for it, used by the passdb lookup
 * at logon and by the session afterwards).
 */
const char *smbd_logon_unix_name(const struct smbd_server *server,
				 const char *user)
{
	const struct username_map *map = NULL;
	const char *unix_name = NULL;

	if (server->identities == NULL || user == NULL) {
		return user;
	}
	map = usermap(server->identities, server->lp->g.username_map);
	if (map != NULL) {
		unix_name = username_map_lookup(map, user,
						access_unix_user_in_group,
						NULL);
	}
	return unix_name != NULL ? unix_name : user;
}

/*
 * Every logon name must be a Unix account (Samba's rule): a passdb
 * entry without one cannot log on (NO_SUCH_USER, so "map to guest =
 * Bad User" treats it as an unknown user).
 */
static NTSTATUS logon_lookup(void *private_data, const char *user,
			     const char *domain, struct auth_user_entry *out)
{
	struct smbd_server *server = private_data;
	const struct auth_user_lookup *pdb = NULL;
	const char *unix_name = smbd_logon_unix_name(server, user);
	struct smbd_unix_user *u = NULL;
	NTSTATUS status;

	if (server->passdb == NULL) {
		return NT_STATUS_NO_SUCH_USER;
	}
	pdb = passdb_user_lookup(server->passdb);
	status = pdb->fn(pdb->private_data, unix_name, domain, out);
	/* the lookup may have reloaded the file: new users, new SIDs */
	smbd_sidmap_refresh(server);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = smbd_unix_user_lookup(server, unix_name, &u);
	talloc_free(u);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NO_SUCH_USER)) {
		DBG_NOTICE("user %s has no Unix account: logon refused\n",
			   unix_name);
	}
	return status;
}

const struct auth_user_lookup *smbd_logon_users(struct smbd_server *server)
{
	if (server->logon_users == NULL) {
		server->logon_users = talloc_zero(server,
						  struct auth_user_lookup);
		if (server->logon_users == NULL) {
			return NULL;
		}
		server->logon_users->fn = logon_lookup;
		server->logon_users->private_data = server;
	}
	return server->logon_users;
}

NTSTATUS smbd_session_identity(struct smbd_session *s, bool guest,
			       const char *user)
{
	struct smbd_server *server = s->conn->server;
	const char *name = guest ? server->lp->g.guest_account :
		smbd_logon_unix_name(server, user);
	struct smbd_unix_user *u = NULL;
	struct smbd_identity_ref *ref = NULL;
	NTSTATUS status = smbd_unix_user_lookup(s, name, &u);

	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("%s: no Unix account \"%s\" for %s: %s\n",
			   s->conn->peer, name,
			   guest ? "the guest account" : user,
			   nt_errstr(status));
		return NT_STATUS_LOGON_FAILURE;
	}
	status = smbd_identity_get(s, server, u, (gid_t)-1, &ref);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(u);
		return status;
	}
	TALLOC_FREE(s->identity);
	TALLOC_FREE(s->unix_user);
	s->unix_user = u;
	s->identity = ref;
	return NT_STATUS_OK;
}

/* ---- tree connects ---- */

/* "force group = name", or "+name": only for members of it (Samba). */
static NTSTATUS forced_gid(const struct smbd_unix_user *u,
			   const char *spec, gid_t *gid)
{
	bool members_only = spec[0] == '+';
	const char *name = members_only ? spec + 1 : spec;
	struct group grp;
	struct group *res = NULL;
	char buf[16384];
	size_t i;

	*gid = (gid_t)-1;
	if (getgrnam_r(name, &grp, buf, sizeof(buf), &res) != 0 ||
	    res == NULL) {
		DBG_WARNING("force group \"%s\": no such group\n", name);
		return NT_STATUS_NO_SUCH_GROUP;
	}
	if (!members_only || res->gr_gid == u->gid) {
		*gid = res->gr_gid;
		return NT_STATUS_OK;
	}
	for (i = 0; res->gr_mem != NULL && res->gr_mem[i] != NULL; i++) {
		if (strcmp(res->gr_mem[i], u->name) == 0) {
			*gid = res->gr_gid;
		}
	}
	return NT_STATUS_OK;
}

/*
 * The user a share is used as: "force user" (with that account's
 * groups), else the session's; "force group" replaces the primary group.
 */
static NTSTATUS tcon_unix_user(TALLOC_CTX *mem_ctx,
			       const struct smbd_session *s,
			       const struct lp_share *share, bool as_guest,
			       struct smbd_unix_user **out)
{
	const char *name = share->force_user;
	NTSTATUS status;

	if (name[0] == '\0' && as_guest && !s->guest && !s->anonymous) {
		name = s->conn->server->lp->g.guest_account;  /* guest only */
	}
	if (name[0] == '\0') {
		*out = s->unix_user;
		return NT_STATUS_OK;
	}
	status = smbd_unix_user_lookup(mem_ctx, name, out);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_WARNING("share [%s]: user \"%s\": %s\n",
			    share->name, name, nt_errstr(status));
	}
	return status;
}

NTSTATUS smbd_tcon_identity(TALLOC_CTX *mem_ctx,
			    const struct smbd_session *s,
			    const struct lp_share *share, bool as_root,
			    bool as_guest, struct smbd_identity_ref **out)
{
	TALLOC_CTX *tmp = NULL;
	struct smbd_unix_user *u = NULL;
	gid_t gid = (gid_t)-1;
	NTSTATUS status;

	*out = NULL;
	if (s->unix_user == NULL) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (as_root) {
		/* admin users: uid 0 with the user's own groups (Samba) */
		struct smbd_unix_user root = *s->unix_user;

		root.uid = 0;
		return smbd_identity_get(mem_ctx, s->conn->server, &root,
					 (gid_t)-1, out);
	}
	tmp = talloc_new(mem_ctx);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = tcon_unix_user(tmp, s, share, as_guest, &u);
	if (NT_STATUS_IS_OK(status) && share->force_group[0] != '\0') {
		status = forced_gid(u, share->force_group, &gid);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_identity_get(mem_ctx, s->conn->server, u, gid,
					   out);
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS smbd_session_tcons_follow(struct smbd_session *s)
{
	struct smbd_tcon *t = NULL;

	for (t = s->tcons; t != NULL; t = t->next) {
		struct smbd_identity_ref *ref = NULL;
		NTSTATUS status;

		/* IPC$: no VFS, no identity to follow (found by fuzz_server) */
		if (t->vfs == NULL) {
			continue;
		}
		status = smbd_tcon_identity(t->vfs, s, t->share, t->as_root,
					    t->as_guest, &ref);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		TALLOC_FREE(t->identity);
		t->identity = ref;
		t->vfs->token = smbd_identity_token(ref);
	}
	return NT_STATUS_OK;
}
