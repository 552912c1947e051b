/*
 * Named pipes on the IPC$ tree connect (commands/pipe.c): CREATE, READ,
 * WRITE, FSCTL_PIPE_TRANSCEIVE / PEEK and QUERY_INFO on a pipe, over the
 * DCE/RPC server of source3/rpc_server.
 */
#ifndef RINGSMB_SMBD_COMMANDS_PIPE_H
#define RINGSMB_SMBD_COMMANDS_PIPE_H

#include "lib/smb2/smb2.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/commands/ioctl.h"

/* The IPC$ tree connect of req's session to its share (tcon.c). */
NTSTATUS smbd_pipe_tcon(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			const struct lp_share **share);

struct tevent_req *smbd_pipe_create_send(TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct smbd_request *req);
/*
 * READ of a pipe: what is queued, up to Length (BUFFER_OVERFLOW when
 * more is left); an empty pipe holds the READ until the client writes
 * (async, cancellable) or answers PIPE_EMPTY where it cannot wait.
 */
struct tevent_req *smbd_pipe_read_send(TALLOC_CTX *mem_ctx,
				       struct tevent_context *ev,
				       struct smbd_request *req);
struct tevent_req *smbd_pipe_write_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct smbd_request *req);
/* FSCTL_PIPE_TRANSCEIVE and FSCTL_PIPE_PEEK on io->open. */
NTSTATUS smbd_pipe_fsctl(struct smbd_ioctl *io);
/* QUERY_INFO on a pipe: the classes MS-FSCC gives pipes. */
NTSTATUS smbd_pipe_query_info(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			      const struct smb2_query_info_req *r,
			      uint8_t **out, size_t *out_len);

#endif
