/*
 * Extended attributes (MS-FSCC 2.4.15) stored as `user.<name>` xattrs,
 * as Samba stores them (docs/vfs.md).  Names are case-insensitive: a SET
 * reuses the case of an existing EA, a lookup ignores case.  Our own and
 * Samba's private xattrs (user.DOSATTRIB, user.SAMBA_*, user.DosStream.*)
 * are never listed, set or removed.
 */
#ifndef RINGSMB_SMBD_EA_H
#define RINGSMB_SMBD_EA_H

#include "lib/smb2/eainfo.h"
#include "lib/smb2/smb2.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

/* The most an EA set may take, encoded (NTFS's limit per file) */
#define SMBD_EA_MAX_LIST	65535

/*
 * EaSize of a file (FileEaInformation, FileAllInformation): the size of
 * its EA list encoded, 0 with none or without EA support.
 */
uint32_t smbd_ea_size(struct smbd_tcon *tcon, struct vfs_fh *fh);

/* CREATE's ExtA context: checked before anything is created ... */
NTSTATUS smbd_ea_create_check(struct smbd_tcon *tcon,
			      const struct smb2_create_ctx_list *l);

/* ... and applied to a file CREATE created, overwrote or superseded. */
NTSTATUS smbd_ea_create_apply(struct smbd_tcon *tcon, struct vfs_fh *fh,
			      uint32_t action,
			      const struct smb2_create_ctx_list *l);

/* QUERY_INFO FileFullEaInformation (MS-SMB2 3.3.5.20.1) */
NTSTATUS smbd_ea_query(TALLOC_CTX *mem_ctx, struct smbd_open *open,
		       const struct smb2_query_info_req *r, uint8_t **out,
		       size_t *out_len);

/* SET_INFO FileFullEaInformation (MS-SMB2 3.3.5.21.1) */
NTSTATUS smbd_ea_set_info(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			  const uint8_t *buf, size_t len);

#endif
