/*
 * Security descriptors synthesized from POSIX ownership and mode, read
 * only (docs/vfs.md): owner S-1-22-1-<uid>, group S-1-22-2-<gid>, and a
 * DACL of three ACCESS_ALLOWED ACEs for owner, group and Everyone
 * (S-1-1-0) whose masks map the rwx bits as Samba's default mapping does.
 */
#ifndef RINGSMB_SMBD_SECDESC_H
#define RINGSMB_SMBD_SECDESC_H

#include <sys/stat.h>
#include "lib/smb2/eainfo.h"
#include "source3/smbd/smbd.h"

/* Rights for one rwx triple (the bits in the low three of perms). */
uint32_t smbd_secdesc_rights(unsigned perms);

/*
 * The self-relative SD of a file for a QUERY_INFO's
 * AdditionalInformation: only the parts asked for (OWNER, GROUP, DACL);
 * SACL needs ACCESS_SYSTEM_SECURITY on the open, which CREATE never
 * grants (ACCESS_DENIED, as Samba); OWNER/GROUP/DACL need READ_CONTROL.
 */
NTSTATUS smbd_secdesc_query(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			    uint32_t secinfo, uint8_t **out, size_t *out_len);

/* The same from statx alone (tests). */
NTSTATUS smbd_secdesc_from_stat(TALLOC_CTX *mem_ctx, const struct statx *st,
				uint32_t secinfo, uint8_t **out,
				size_t *out_len);

#endif
