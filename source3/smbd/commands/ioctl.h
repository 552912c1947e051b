/*
 * IOCTL internals shared by commands/ioctl.c (checks and dispatch) and the
 * files answering groups of control codes: commands/ioctl_copychunk.c
 * (resume key, server-side copy), commands/ioctl_filesys.c (sparse files,
 * zeroing, allocated ranges, compression, object ids, reparse points),
 * commands/ioctl_network.c (network interfaces).
 */
#ifndef RINGSMB_SMBD_SMB2_IOCTL_H
#define RINGSMB_SMBD_SMB2_IOCTL_H

#include "lib/smb2/fsctl.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

/*
 * One FSCTL being answered.  A handler returns the header status; when
 * it also sets have_output, the response carries out/out_len even with
 * an error or warning status (COPYCHUNK limits with INVALID_PARAMETER,
 * a cut list of ranges with BUFFER_OVERFLOW).  max_out is the client's
 * MaxOutputResponse, already bounded by the connection's MaxTransactSize.
 */
struct smbd_ioctl {
	TALLOC_CTX *mem_ctx;            /* for out */
	struct smbd_request *req;
	const struct smb2_ioctl_req *r;
	struct smbd_open *open;         /* NULL: FileId all 0xFF */
	uint32_t max_out;
	uint8_t *out;
	size_t out_len;
	bool have_output;
};

/* An output buffer of len bytes on io->mem_ctx (have_output set). */
uint8_t *smbd_ioctl_output(struct smbd_ioctl *io, size_t len);

NTSTATUS smbd_fsctl_resume_key(struct smbd_ioctl *io);
NTSTATUS smbd_fsctl_copychunk(struct smbd_ioctl *io);
NTSTATUS smbd_fsctl_filesys(struct smbd_ioctl *io);
NTSTATUS smbd_fsctl_net_iface(struct smbd_ioctl *io);

#endif
