/*
 * A share's parametric options (smb.conf "TYPE:OPTION = value") as the
 * VFS modules see them: copied onto the handle at connect, so that a
 * reload cannot take them from under a module, and looked up by type
 * and option (vfs.h, vfs_parametric).
 */
#include <stdbool.h>
#include "source3/modules/vfs.h"
#include "source3/modules/vfs_private.h"
#include "lib/param/param.h"

bool vfs_copy_params(struct vfs_handle *vfs,
			    const struct lp_parametric *params, size_t n)
{
	struct lp_parametric *p = NULL;
	size_t i;

	if (n == 0) {
		return true;
	}
	p = talloc_array(vfs, struct lp_parametric, n);
	if (p == NULL) {
		return false;
	}
	for (i = 0; i < n; i++) {
		p[i].name = talloc_strdup(p, params[i].name);
		p[i].value = talloc_strdup(p, params[i].value);
		if (p[i].name == NULL || p[i].value == NULL) {
			return false;
		}
	}
	vfs->parametric = p;
	vfs->num_parametric = n;
	return true;
}

const char *vfs_parametric(const struct vfs_handle *vfs, const char *type,
			   const char *option)
{
	struct lp_share s = {
		/* only read through s */
		.parametric = (struct lp_parametric *)vfs->parametric,
		.num_parametric = vfs->num_parametric,
	};

	return lp_parametric_get(&s, type, option);
}
