/*
 * Is a descriptor's file on a local file system, one where every change
 * to a file or folder is made through this kernel?  Then inotify sees
 * every change to a folder (casefold_dirs.c) and a file lease holds off
 * every writer (read_map.c).  On NFS, SMB or FUSE another machine or a
 * daemon can change the file behind the kernel's back.
 */
#ifndef RINGSMB_SMBD_LOCAL_FS_H
#define RINGSMB_SMBD_LOCAL_FS_H

#include <stdbool.h>

/* ext2/3/4, xfs, btrfs, tmpfs and f2fs; false for the rest and errors */
bool smbd_local_fs(int fd);

#endif
