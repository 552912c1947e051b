/*
 * SET_INFO internals shared by commands/set_info.c (the classes that change a
 * file) and commands/set_info_name.c (renames and hard links).
 */
#ifndef RINGSMB_SMBD_SMB2_SET_INFO_H
#define RINGSMB_SMBD_SMB2_SET_INFO_H


struct si_ctx {
	TALLOC_CTX *tmp;                /* freed after the request */
	struct smbd_request *req;
	struct smbd_open *open;
	const struct smb2_setinfo *in;
};

/* ACCESS_DENIED unless the open was granted all of access. */
NTSTATUS si_need(const struct si_ctx *s, uint32_t access);

/* FileRenameInformation, FileLinkInformation */
NTSTATUS si_rename(struct si_ctx *s);
NTSTATUS si_link(struct si_ctx *s);

#endif
