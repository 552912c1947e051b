/*
 * Short names back to long names (mangle.h).
 */
#include <ctype.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include "lib/smb2/eainfo.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/filename.h"
#include "source3/smbd/files/mangle.h"

struct smbd_mangle_entry {
	char *key;      /* share root, '\0'-free dir, '/', SHORT NAME */
	char *name;     /* the long name (one component) */
};

struct smbd_mangle_cache {
	struct smbd_mangle_entry e[SMBD_MANGLE_CACHE_SIZE];
	size_t next;    /* the slot the next entry takes (ring) */
};

bool smbd_mangle_is_short(const char *name)
{
	const char *tilde = strchr(name, '~');
	size_t prefix = tilde != NULL ? (size_t)(tilde - name) : 0;

	if (tilde == NULL || prefix == 0 || prefix > 5 ||
	    !smb2_name_is_83(name) ||
	    !isalnum((unsigned char)tilde[1]) ||
	    !isalnum((unsigned char)tilde[2])) {
		return false;
	}
	return tilde[3] == '\0' || tilde[3] == '.';
}

static struct smbd_server *mangle_server(struct smbd_tcon *tcon)
{
	return tcon->session->conn->server;
}

/* dir is path up to its last '/' ("" at the root); short upper-cased */
static char *mangle_key(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			const char *path, const char *shortname)
{
	const char *base = smbd_filename_base(path);
	char *key = talloc_asprintf(mem_ctx, "%s/%.*s/%s",
				    tcon->vfs->root_path,
				    (int)(base - path), path, shortname);
	char *p = NULL;

	for (p = key != NULL ? strrchr(key, '/') : NULL; p != NULL && *p;
	     p++) {
		*p = (char)toupper((unsigned char)*p);
	}
	return key;
}

void smbd_mangle_remember(struct smbd_tcon *tcon, const char *path)
{
	struct smbd_server *server = mangle_server(tcon);
	const char *base = smbd_filename_base(path);
	char shortname[SMB2_SHORT_NAME_MAX];
	struct smbd_mangle_cache *c = server->mangle;
	struct smbd_mangle_entry *e = NULL;
	char *key = NULL;
	size_t i;

	if (base[0] == '\0' || smb2_name_is_83(base)) {
		return;         /* its own short name: nothing to map */
	}
	if (c == NULL) {
		c = server->mangle = talloc_zero(server,
						 struct smbd_mangle_cache);
		if (c == NULL) {
			return;
		}
	}
	smb2_short_name(base, shortname);
	key = mangle_key(c, tcon, path, shortname);
	if (key == NULL) {
		return;
	}
	for (i = 0; i < SMBD_MANGLE_CACHE_SIZE; i++) {
		if (c->e[i].key != NULL && strcmp(c->e[i].key, key) == 0) {
			e = &c->e[i];   /* a newer long name for it wins */
			break;
		}
	}
	if (e == NULL) {
		e = &c->e[c->next];
		c->next = (c->next + 1) % SMBD_MANGLE_CACHE_SIZE;
	}
	talloc_free(e->key);
	talloc_free(e->name);
	e->key = key;
	e->name = talloc_strdup(c, base);
}

/* The entry of dir whose short name is shortname (bytewise-least). */
static NTSTATUS mangle_scan(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			    const char *dir, const char *shortname,
			    char **found)
{
	char entry_short[SMB2_SHORT_NAME_MAX];
	struct vfs_fh *fh = NULL;
	struct vfs_dir *d = NULL;
	struct vfs_dirent ent;
	NTSTATUS status = vfs_openat(mem_ctx, tcon->vfs, dir,
				     O_RDONLY | O_DIRECTORY, &fh, NULL);

	*found = NULL;
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_opendir(fh, fh, &d);
	}
	while (NT_STATUS_IS_OK(status) &&
	       NT_STATUS_IS_OK(vfs_readdir(d, &ent))) {
		smb2_short_name(ent.name, entry_short);
		if (strcasecmp(entry_short, shortname) != 0 ||
		    (*found != NULL && strcmp(ent.name, *found) >= 0)) {
			continue;
		}
		talloc_free(*found);
		*found = talloc_strdup(mem_ctx, ent.name);
		if (*found == NULL) {
			status = NT_STATUS_NO_MEMORY;
		}
	}
	talloc_free(fh);
	return NT_STATUS_EQUAL(status, NT_STATUS_NO_MEMORY) ? status :
		NT_STATUS_OK;
}

NTSTATUS smbd_mangle_resolve(TALLOC_CTX *mem_ctx, struct smbd_tcon *tcon,
			     const char *path, char **out, bool *on_disk)
{
	struct smbd_mangle_cache *c = mangle_server(tcon)->mangle;
	const char *base = smbd_filename_base(path);
	size_t dirlen = (size_t)(base - path);
	char *dir = NULL, *found = NULL, *key = NULL;
	const char *name = NULL;
	NTSTATUS status;
	size_t i;

	*out = NULL;
	*on_disk = false;
	if (!smbd_mangle_is_short(base)) {
		return NT_STATUS_OK;
	}
	dir = talloc_strndup(mem_ctx, path, dirlen > 0 ? dirlen - 1 : 0);
	if (dir == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = mangle_scan(dir, tcon, dir, base, &found);
	if (NT_STATUS_IS_OK(status) && found != NULL) {
		name = found;
		*on_disk = true;
	}
	if (NT_STATUS_IS_OK(status) && name == NULL && c != NULL) {
		key = mangle_key(dir, tcon, path, base);
		for (i = 0; key != NULL && i < SMBD_MANGLE_CACHE_SIZE; i++) {
			if (c->e[i].key != NULL &&
			    strcmp(c->e[i].key, key) == 0) {
				name = c->e[i].name;
				break;
			}
		}
	}
	if (NT_STATUS_IS_OK(status) && name != NULL) {
		*out = talloc_asprintf(mem_ctx, "%.*s%s", (int)dirlen, path,
				       name);
		status = *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	talloc_free(dir);
	return status;
}
