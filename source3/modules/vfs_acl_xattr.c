/*
 * vfs_acl_xattr: the share keeps each file's NT security descriptor in
 * the security.NTACL xattr, in Samba's format, and that descriptor
 * decides access (docs/vfs.md, "NT ACLs").  The module only marks the
 * share: reading, checking, inheriting and storing descriptors is the
 * file layer's (source3/smbd/files/ntacl.c), through the xattr ops of
 * the modules below.
 */
#include "source3/modules/vfs.h"

static int ax_connect(struct vfs_module *m, const char *path)
{
	m->vfs->nt_acls = true;
	return vfs_next_connect(m, path);
}

const struct vfs_ops vfs_acl_xattr_ops = {
	.name = "acl_xattr",
	.connect = ax_connect,
};
