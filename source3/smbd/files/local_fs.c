/* Local file systems (local_fs.h). */
#include <stddef.h>
#include <sys/vfs.h>
#include "source3/smbd/files/local_fs.h"

bool smbd_local_fs(int fd)
{
	static const long kinds[] = {
		0xEF53,                 /* ext2, ext3, ext4 */
		0x58465342,             /* xfs */
		0x9123683E,             /* btrfs */
		0x01021994,             /* tmpfs */
		0xF2F52010,             /* f2fs */
	};
	struct statfs sf;
	size_t i;

	if (fstatfs(fd, &sf) != 0) {
		return false;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if ((long)sf.f_type == kinds[i]) {
			return true;
		}
	}
	return false;
}
