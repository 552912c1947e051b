/*
 * The commands layer (source3/smbd/commands, README.md there): the
 * handler of each SMB2 command, by its full name, as the dispatch table
 * (pipeline/dispatch.c) lists them.  Each is a tevent_req pair: _send
 * takes the parsed request (struct smbd_request), _recv gives the
 * response body (struct smbd_response).
 */
#ifndef RINGSMB_SMBD_COMMANDS_H
#define RINGSMB_SMBD_COMMANDS_H

#include "source3/smbd/smbd.h"

/* negprot.c */
struct tevent_req *smbd_negprot_send(TALLOC_CTX *mem_ctx,
				     struct tevent_context *ev,
				     struct smbd_request *req);
NTSTATUS smbd_negprot_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			   struct smbd_response *rsp);

/* sesssetup.c */
struct tevent_req *smbd_sesssetup_send(TALLOC_CTX *mem_ctx,
				       struct tevent_context *ev,
				       struct smbd_request *req);
NTSTATUS smbd_sesssetup_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			     struct smbd_response *rsp);

/* sesssetup.c */
struct tevent_req *smbd_logoff_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct smbd_request *req);
NTSTATUS smbd_logoff_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			  struct smbd_response *rsp);

/* tcon.c */
struct tevent_req *smbd_tcon_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req);
NTSTATUS smbd_tcon_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp);

/* tcon.c */
struct tevent_req *smbd_tdis_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req);
NTSTATUS smbd_tdis_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp);

/* create.c */
struct tevent_req *smbd_create_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct smbd_request *req);
NTSTATUS smbd_create_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			  struct smbd_response *rsp);

/* close.c */
struct tevent_req *smbd_close_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct smbd_request *req);
NTSTATUS smbd_close_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			 struct smbd_response *rsp);

/* read.c */
struct tevent_req *smbd_read_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req);
NTSTATUS smbd_read_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp);

/* write.c */
struct tevent_req *smbd_write_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct smbd_request *req);
NTSTATUS smbd_write_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			 struct smbd_response *rsp);

/* flush.c */
struct tevent_req *smbd_flush_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct smbd_request *req);
NTSTATUS smbd_flush_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			 struct smbd_response *rsp);

/* query_directory.c */
struct tevent_req *smbd_query_directory_send(TALLOC_CTX *mem_ctx,
					     struct tevent_context *ev,
					     struct smbd_request *req);
NTSTATUS smbd_query_directory_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
				   struct smbd_response *rsp);

/* query_info.c */
struct tevent_req *smbd_query_info_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct smbd_request *req);
NTSTATUS smbd_query_info_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			      struct smbd_response *rsp);

/* set_info.c */
struct tevent_req *smbd_set_info_send(TALLOC_CTX *mem_ctx,
				      struct tevent_context *ev,
				      struct smbd_request *req);
NTSTATUS smbd_set_info_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			    struct smbd_response *rsp);

/* lock.c */
struct tevent_req *smbd_lock_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req);
NTSTATUS smbd_lock_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp);

/* simple.c */
struct tevent_req *smbd_echo_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req);
NTSTATUS smbd_echo_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp);

/* ioctl.c */
struct tevent_req *smbd_ioctl_send(TALLOC_CTX *mem_ctx,
				   struct tevent_context *ev,
				   struct smbd_request *req);
NTSTATUS smbd_ioctl_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			 struct smbd_response *rsp);

/* change_notify.c */
struct tevent_req *smbd_notify_send(TALLOC_CTX *mem_ctx,
				    struct tevent_context *ev,
				    struct smbd_request *req);
NTSTATUS smbd_notify_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			  struct smbd_response *rsp);

/* oplock_break.c */
struct tevent_req *smbd_oplock_break_send(TALLOC_CTX *mem_ctx,
					  struct tevent_context *ev,
					  struct smbd_request *req);
NTSTATUS smbd_oplock_break_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
				struct smbd_response *rsp);

/* negprot.c, sesssetup.c: what the preauth hash learns of responses */
void smbd_negprot_on_response(struct smbd_request *req, NTSTATUS status,
			      const struct iovec *iov, int iovcnt);
void smbd_sesssetup_on_response(struct smbd_request *req, NTSTATUS status,
				const struct iovec *iov, int iovcnt);

/*
 * negprot.c: an SMB1 NEGOTIATE offering SMB2 (MS-SMB2 3.3.5.3.1): the
 * body of the SMB2 NEGOTIATE response that answers it, on mem_ctx; NULL
 * and *why when the connection must end instead.
 */
uint8_t *smbd_smb1_negprot(TALLOC_CTX *mem_ctx, struct smbd_conn *conn,
			   const uint8_t *buf, size_t len, size_t *body_len,
			   const char **why);

/*
 * change_notify.c: open's directory became delete pending; its waiting
 * CHANGE_NOTIFYs end (the file layer's delete_pending hook).
 */
void smbd_notify_delete_pending(struct smbd_open *open);

/*
 * simple.c: the state of a command that completes at once (posts its
 * result) or later (smbd_later_create: it fills rsp, then calls
 * tevent_req_done); either way its _recv is smbd_done_recv.
 */
struct smbd_done_state {
	struct smbd_response rsp;
	void *private_data;             /* the command's, e.g. for cancel */
};

struct tevent_req *smbd_later_create(TALLOC_CTX *mem_ctx,
				     struct smbd_done_state **state);
/* subreq came from smbd_done_send or smbd_later_create. */
bool smbd_done_req(struct tevent_req *subreq);

struct tevent_req *smbd_done_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  NTSTATUS status, struct smbd_response *rsp);
NTSTATUS smbd_done_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp);

/*
 * simple.c: the tail every command's _recv shares: subreq's error, or
 * the response its state kept (done), moved to mem_ctx with what it
 * holds (body, payload, splice pipes).
 */
NTSTATUS smbd_response_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			    struct smbd_response *done,
			    struct smbd_response *rsp);

#endif
