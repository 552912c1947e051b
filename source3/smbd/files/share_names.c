/*
 * veto files, hide files, hide dot files, hide unreadable
 * (share_names.h).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "lib/param/access.h"
#include "lib/param/param.h"
#include "lib/smb2/smb2.h"
#include "source3/smbd/files/share_names.h"

struct smbd_share_names {
	struct access_namelist *veto;
	struct access_namelist *hide;
	bool hide_dot_files;
	bool hide_unreadable;
	bool delete_veto_files;
	bool case_sensitive;
};

NTSTATUS smbd_share_names_attach(struct vfs_handle *vfs,
				 const struct lp_share *share)
{
	struct smbd_share_names *n = talloc_zero(vfs,
						 struct smbd_share_names);

	if (n == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	n->veto = access_namelist_parse(n, share->veto_files);
	n->hide = access_namelist_parse(n, share->hide_files);
	if (n->veto == NULL || n->hide == NULL) {
		talloc_free(n);
		return NT_STATUS_NO_MEMORY;
	}
	n->hide_dot_files = share->hide_dot_files;
	n->hide_unreadable = share->hide_unreadable;
	n->delete_veto_files = share->delete_veto_files;
	n->case_sensitive = share->case_sensitive == LP_CASE_YES;
	vfs->names = n;
	return NT_STATUS_OK;
}

bool smbd_name_vetoed(const struct vfs_handle *vfs, const char *base)
{
	const struct smbd_share_names *n = vfs->names;

	return n != NULL && access_namelist_count(n->veto) > 0 &&
	       access_namelist_match(n->veto, base, n->case_sensitive);
}

NTSTATUS smbd_path_vetoed(const struct vfs_handle *vfs, const char *path)
{
	const struct smbd_share_names *n = vfs->names;
	char comp[256];

	if (n == NULL || access_namelist_count(n->veto) == 0) {
		return NT_STATUS_OK;
	}
	while (*path != '\0') {
		const char *slash = strchr(path, '/');
		size_t len = slash != NULL ? (size_t)(slash - path) :
			strlen(path);

		if (len < sizeof(comp)) {
			memcpy(comp, path, len);
			comp[len] = '\0';
			if (access_namelist_match(n->veto, comp,
						  n->case_sensitive)) {
				return slash != NULL ?
					NT_STATUS_OBJECT_PATH_NOT_FOUND :
					NT_STATUS_OBJECT_NAME_NOT_FOUND;
			}
		}
		path += len + (slash != NULL ? 1 : 0);
	}
	return NT_STATUS_OK;
}

uint32_t smbd_names_attributes(const struct vfs_handle *vfs,
			       const char *base, uint32_t attrs,
			       bool stored)
{
	const struct smbd_share_names *n = vfs->names;

	if (n == NULL) {
		return attrs;
	}
	if (!n->hide_dot_files && !stored && base[0] == '.') {
		attrs &= ~SMB2_FILE_ATTRIBUTE_HIDDEN;
	}
	/* over stored attributes too, as Samba's dos_mode_from_name */
	if ((n->hide_dot_files && base[0] == '.' && strcmp(base, ".") != 0 &&
	     strcmp(base, "..") != 0) ||
	    (access_namelist_count(n->hide) > 0 &&
	     access_namelist_match(n->hide, base, n->case_sensitive))) {
		attrs |= SMB2_FILE_ATTRIBUTE_HIDDEN;
		attrs &= ~SMB2_FILE_ATTRIBUTE_NORMAL;
	}
	if (attrs == 0) {
		attrs = SMB2_FILE_ATTRIBUTE_NORMAL;
	}
	return attrs;
}

/* faccessat as the user: the thread is switched around it. */
static bool readable(const struct vfs_handle *vfs, int dirfd,
		     const char *name)
{
	bool ok = false;

	if (vfs_become(vfs) == 0) {
		ok = faccessat(dirfd, name, R_OK,
			       AT_EACCESS | AT_SYMLINK_NOFOLLOW) == 0;
		vfs_unbecome(vfs);
	}
	return ok;
}

bool smbd_name_listed(const struct vfs_handle *vfs, int dirfd,
		      const char *name)
{
	const struct smbd_share_names *n = vfs->names;

	if (n == NULL) {
		return true;
	}
	if (smbd_name_vetoed(vfs, name)) {
		return false;
	}
	return !n->hide_unreadable || readable(vfs, dirfd, name);
}

bool smbd_delete_veto_files(const struct vfs_handle *vfs)
{
	const struct smbd_share_names *n = vfs->names;

	return n != NULL && n->delete_veto_files;
}
