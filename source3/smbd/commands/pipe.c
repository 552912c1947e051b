/*
 * Named pipes on IPC$ (MS-SMB2 3.3.5.7 share type PIPE, 3.3.5.9 CREATE
 * on a pipe share, 3.3.5.12/13 READ and WRITE, 3.3.5.15.1 transceive):
 * an open of "srvsvc" or "wkssvc" carries a DCE/RPC association
 * (source3/rpc_server), the bytes the client writes go into it and what
 * it answers is read back.  docs/dcerpc.md, "IPC$ and named pipes".
 */
#include <string.h>
#include <strings.h>
#include "lib/param/param.h"
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "lib/util/nttime.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/rpc_server/rpc_server.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/commands/pipe.h"
#include "source3/smbd/session/identity.h"
#include "source3/smbd/session/session.h"
#include "source3/smbd/session/share_access.h"
#include "source3/smbd/files/handles.h"
#include "source3/smbd/files/open_files.h"

/* What Windows reports as a pipe's quotas (FilePipeLocalInformation) */
#define PIPE_QUOTA		4096
/* FILE_PIPE_MESSAGE_TYPE, FILE_PIPE_FULL_DUPLEX, FILE_PIPE_CONNECTED */
#define PIPE_TYPE_MESSAGE	1
#define PIPE_FULL_DUPLEX	2
#define PIPE_STATE_CONNECTED	3
#define PIPE_MESSAGE_MODE	1
#define PIPE_CLIENT_END		0

struct smbd_pipe_read;

/* The open's pipe: the association and a READ waiting for data. */
struct smbd_named_pipe {
	struct rpc_pipe *rpc;
	struct smbd_pipe_read *waiting;
};

/* A READ held until the pipe has data (or goes). */
struct smbd_pipe_read {
	struct tevent_req *result;
	struct smbd_named_pipe *pipe;
	struct smbd_done_state *state;
	uint32_t length;
};

/* ---------------------------------------------------------------- */
/* TREE_CONNECT                                                       */
/* ---------------------------------------------------------------- */

/*
 * IPC$ is no share of smb.conf: a copy of the [global] share settings
 * named IPC$, without a path.  Anyone with a session may connect,
 * except anonymous users under "restrict anonymous = 2" (Samba's rule);
 * the pipes behind it give out no file access.
 */
NTSTATUS smbd_pipe_tcon(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			const struct lp_share **share)
{
	const struct loadparm *lp = req->conn->server->lp;
	struct lp_share *ipc = NULL;

	if (req->session->anonymous && lp->g.restrict_anonymous >= 2) {
		return NT_STATUS_ACCESS_DENIED;
	}
	ipc = talloc(mem_ctx, struct lp_share);
	if (ipc == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*ipc = lp->share_defaults;
	ipc->name = "IPC$";
	ipc->path = "";
	ipc->read_only = true;
	*share = ipc;
	return NT_STATUS_OK;
}

/* ---------------------------------------------------------------- */
/* The share list srvsvc reports                                      */
/* ---------------------------------------------------------------- */

static uint32_t share_uses(const struct smbd_server *server,
			   const char *name)
{
	const struct smbd_conn *c = NULL;
	const struct smbd_session *s = NULL;
	const struct smbd_tcon *t = NULL;
	uint32_t n = 0;

	for (c = server->conns; c != NULL; c = c->next) {
		for (s = c->sessions; s != NULL; s = s->next) {
			for (t = s->tcons; t != NULL; t = t->next) {
				n += strcasecmp(t->share->name, name) == 0;
			}
		}
	}
	return n;
}

static void share_entry(const struct smbd_session *s,
			const struct lp_share *share, struct rpc_share *e)
{
	struct smbd_share_grant grant;

	*e = (struct rpc_share){
		.name = share->name,
		.comment = share->comment,
		.path = share->path,
		.type = RPC_STYPE_DISKTREE,
		.current_uses = share_uses(s->conn->server, share->name),
		.browseable = share->browseable,
		.enumerable = true,
	};
	if (share->access_based_share_enum) {
		e->enumerable = NT_STATUS_IS_OK(
			smbd_share_access(s, share, &grant));
	}
}

/* The caller's own home, as [homes] gives it (after the shares). */
static bool home_entry(TALLOC_CTX *mem_ctx, const struct smbd_session *s,
		       struct rpc_share *e)
{
	const struct loadparm *lp = s->conn->server->lp;
	const struct lp_share *home = NULL;

	if (s->unix_user == NULL || s->guest || s->anonymous ||
	    lp_find_share(lp, "homes") == NULL ||
	    lp_find_share(lp, s->unix_user->name) != NULL) {
		return false;
	}
	home = smbd_share_lookup(mem_ctx, s, s->unix_user->name);
	if (home == NULL || !home->available) {
		return false;
	}
	share_entry(s, home, e);
	e->browseable = lp->share_defaults.browseable;
	return true;
}

static NTSTATUS pipe_list_shares(void *priv, TALLOC_CTX *mem_ctx,
				 struct rpc_share **out, size_t *num)
{
	const struct smbd_session *s = priv;
	const struct loadparm *lp = s->conn->server->lp;
	struct rpc_share *list = talloc_zero_array(mem_ctx, struct rpc_share,
						   lp->num_shares + 2);
	size_t n = 0;
	size_t i;

	if (list == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < lp->num_shares; i++) {
		if (lp->shares[i]->available) {
			share_entry(s, lp->shares[i], &list[n++]);
		}
	}
	list[n] = (struct rpc_share){
		.name = "IPC$",
		.comment = talloc_asprintf(mem_ctx, "IPC Service (%s)",
					   lp->g.server_string),
		.path = "/tmp",		/* Samba's IPC$ path */
		.type = RPC_STYPE_IPC | RPC_STYPE_SPECIAL,
		.current_uses = share_uses(s->conn->server, "IPC$"),
		.browseable = true,
		.enumerable = true,
	};
	if (list[n++].comment == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (home_entry(mem_ctx, s, &list[n])) {
		n++;
	}
	*out = list;
	*num = n;
	return NT_STATUS_OK;
}

/* ---------------------------------------------------------------- */
/* CREATE                                                             */
/* ---------------------------------------------------------------- */

static int smbd_named_pipe_destructor(struct smbd_named_pipe *p)
{
	struct smbd_pipe_read *w = p->waiting;

	if (w != NULL) {
		p->waiting = NULL;
		w->pipe = NULL;
		tevent_req_nterror(w->result, NT_STATUS_PIPE_BROKEN);
	}
	return 0;
}

static NTSTATUS pipe_attach(struct smbd_request *req, const char *name,
			    struct smbd_open *open)
{
	const struct smbd_session *s = req->session;
	const struct loadparm *lp = req->conn->server->lp;
	struct rpc_client client = {
		.server_name = lp->g.netbios_name,
		.server_comment = lp->g.server_string,
		.domain = lp->g.workgroup,
		.user = s->user,
		.anonymous = s->anonymous,
		.admin = s->unix_user != NULL && s->unix_user->uid == 0 &&
			!s->guest && !s->anonymous,
		.deadtime = (uint32_t)lp->g.deadtime,
		.list_shares = pipe_list_shares,
		.priv = req->session,
	};
	struct smbd_named_pipe *p = talloc_zero(open, struct smbd_named_pipe);

	if (p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	open->pipe = p;
	talloc_set_destructor(p, smbd_named_pipe_destructor);
	return rpc_pipe_open(p, name, &client, &p->rpc);
}

/* The pipe name, as given: "\\srvsvc" is no pipe (Samba). */
static NTSTATUS pipe_name(TALLOC_CTX *mem_ctx, const struct smb2_blob *raw,
			  char **out)
{
	NTSTATUS status = smb2_utf16_to_utf8(mem_ctx, raw->data, raw->len,
					     out);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!rpc_pipe_known(*out)) {
		DBG_INFO("no pipe '%s'\n", *out);
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	return NT_STATUS_OK;
}

static NTSTATUS pipe_create_run(TALLOC_CTX *mem_ctx, struct smbd_request *req,
				struct smbd_response *rsp)
{
	struct smb2_create_rsp out = {
		.create_action = SMB2_FILE_OPENED,
		.file_attributes = SMB2_FILE_ATTRIBUTE_NORMAL,
	};
	struct smbd_open *open = NULL;
	struct smb2_create_req r;
	char *name = NULL;
	NTSTATUS status = smb2_create_req_pull(req->pdu, &r);

	if (NT_STATUS_IS_OK(status)) {
		status = pipe_name(mem_ctx, &r.name, &name);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	open = smbd_open_new(req->tcon);
	if (open == NULL) {
		return smbd_handles_full(req->session) ?
			NT_STATUS_TOO_MANY_OPENED_FILES : NT_STATUS_NO_MEMORY;
	}
	open->name = talloc_steal(open, name);
	open->access_mask = r.desired_access;
	open->share_access = r.share_access;
	open->create_options = r.create_options;
	status = pipe_attach(req, name, open);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(open);
		return status;
	}
	/* the times of the open, as Samba reports a pipe's */
	out.creation_time = nttime_now();
	out.last_access_time = out.creation_time;
	out.last_write_time = out.creation_time;
	out.change_time = out.creation_time;
	out.file_id.persistent = open->persistent_id;
	out.file_id.volatile_id = open->volatile_id;
	rsp->body = smb2_create_rsp_push(mem_ctx, &out, &rsp->body_len);
	if (rsp->body == NULL) {
		talloc_free(open);
		return NT_STATUS_NO_MEMORY;
	}
	req->created = open;
	return NT_STATUS_OK;
}

struct tevent_req *smbd_pipe_create_send(TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status = pipe_create_run(mem_ctx, req, &rsp);

	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

/* ---------------------------------------------------------------- */
/* READ                                                               */
/* ---------------------------------------------------------------- */

/*
 * Up to length queued bytes as a READ response; BUFFER_OVERFLOW (with
 * the data) when more is left, as Windows answers a message read that
 * does not take the whole message.
 */
static NTSTATUS pipe_read_take(TALLOC_CTX *mem_ctx, struct smbd_named_pipe *p,
			       uint32_t length, struct smbd_response *rsp)
{
	size_t n = rpc_pipe_readable(p->rpc);
	struct smb2_read_rsp out = {};
	uint8_t *data = NULL;

	if (n > length) {
		n = length;
	}
	data = talloc_size(mem_ctx, n + 1);
	if (data == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	out.data_len = (uint32_t)rpc_pipe_read(p->rpc, data, n);
	rsp->body = smb2_read_rsp_push(mem_ctx, &out, &rsp->body_len);
	if (rsp->body == NULL) {
		talloc_free(data);
		return NT_STATUS_NO_MEMORY;
	}
	rsp->payload = data;
	rsp->payload_len = out.data_len;
	rsp->payload_owner = data;
	rsp->status = rpc_pipe_readable(p->rpc) > 0 ?
		NT_STATUS_BUFFER_OVERFLOW : NT_STATUS_OK;
	return NT_STATUS_OK;
}

/* Data arrived: the waiting READ (if any) takes it. */
static void pipe_wake(struct smbd_named_pipe *p)
{
	struct smbd_pipe_read *w = p->waiting;
	NTSTATUS status;

	if (w == NULL || rpc_pipe_readable(p->rpc) == 0) {
		return;
	}
	p->waiting = NULL;
	w->pipe = NULL;
	status = pipe_read_take(w->state, p, w->length, &w->state->rsp);
	if (!tevent_req_nterror(w->result, status)) {
		tevent_req_done(w->result);
	}
}

static int pipe_read_destructor(struct smbd_pipe_read *w)
{
	if (w->pipe != NULL) {
		w->pipe->waiting = NULL;
		w->pipe = NULL;
	}
	return 0;
}

static bool pipe_read_cancel(struct tevent_req *result)
{
	struct smbd_done_state *state = tevent_req_data(
		result, struct smbd_done_state);

	TALLOC_FREE(state->private_data);
	tevent_req_nterror(result, NT_STATUS_CANCELLED);
	return true;
}

/* Holds the READ until the client writes; cancellable. */
static struct tevent_req *pipe_read_wait(TALLOC_CTX *mem_ctx,
					 struct tevent_context *ev,
					 struct smbd_request *req,
					 struct smbd_named_pipe *p, uint32_t length)
{
	struct smbd_done_state *state = NULL;
	struct tevent_req *result = smbd_later_create(mem_ctx, &state);
	struct smbd_pipe_read *w = NULL;

	if (result == NULL) {
		return NULL;
	}
	w = talloc_zero(state, struct smbd_pipe_read);
	if (w == NULL) {
		tevent_req_oom(result);
		return tevent_req_post(result, ev);
	}
	*w = (struct smbd_pipe_read){
		.result = result, .pipe = p, .state = state, .length = length,
	};
	state->private_data = w;
	talloc_set_destructor(w, pipe_read_destructor);
	p->waiting = w;
	tevent_req_defer_callback(result, ev);
	tevent_req_set_cancel_fn(result, pipe_read_cancel);
	req->go_async = true;
	return result;
}

struct tevent_req *smbd_pipe_read_send(TALLOC_CTX *mem_ctx,
				       struct tevent_context *ev,
				       struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	struct smbd_named_pipe *p = req->open->pipe;
	struct smb2_read_req r;
	NTSTATUS status = smb2_read_req_pull(req->pdu, &r);

	if (NT_STATUS_IS_OK(status) && r.length > req->conn->max_read) {
		status = NT_STATUS_INVALID_PARAMETER;
	}
	if (NT_STATUS_IS_OK(status) && rpc_pipe_readable(p->rpc) == 0) {
		if (rpc_pipe_disconnected(p->rpc)) {
			status = NT_STATUS_PIPE_DISCONNECTED;
		} else if (p->waiting != NULL) {
			status = NT_STATUS_PIPE_BUSY;
		} else if (!req->may_go_async) {
			status = NT_STATUS_PIPE_EMPTY;
		} else {
			return pipe_read_wait(mem_ctx, ev, req, p, r.length);
		}
	}
	if (NT_STATUS_IS_OK(status)) {
		status = pipe_read_take(mem_ctx, p, r.length, &rsp);
	}
	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

/* ---------------------------------------------------------------- */
/* WRITE                                                              */
/* ---------------------------------------------------------------- */

struct tevent_req *smbd_pipe_write_send(TALLOC_CTX *mem_ctx,
					struct tevent_context *ev,
					struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	struct smbd_named_pipe *p = req->open->pipe;
	struct smb2_write_rsp out = {};
	struct smb2_write_req r;
	NTSTATUS status = smb2_write_req_pull(req->pdu, &r);

	/* a pipe's data is never spliced: it is parsed here */
	if (NT_STATUS_IS_OK(status) &&
	    (r.data_external || (r.length > 0 && r.data.data == NULL))) {
		status = NT_STATUS_INVALID_PARAMETER;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = rpc_pipe_write(p->rpc, r.data.data, r.data.len);
	}
	if (NT_STATUS_IS_OK(status)) {
		pipe_wake(p);
		out.count = (uint32_t)r.data.len;
		rsp.body = smb2_write_rsp_push(mem_ctx, &out, &rsp.body_len);
		if (rsp.body == NULL) {
			status = NT_STATUS_NO_MEMORY;
		}
	}
	return smbd_done_send(mem_ctx, ev, status,
			      NT_STATUS_IS_OK(status) ? &rsp : NULL);
}

/* ---------------------------------------------------------------- */
/* FSCTL_PIPE_TRANSCEIVE, FSCTL_PIPE_PEEK                             */
/* ---------------------------------------------------------------- */

/* Write the input, answer with what the pipe then holds. */
static NTSTATUS pipe_transceive(struct smbd_ioctl *io, struct smbd_named_pipe *p)
{
	size_t n = 0;
	uint8_t *out = NULL;
	NTSTATUS status;

	if (p->waiting != NULL) {
		return NT_STATUS_PIPE_BUSY;
	}
	status = rpc_pipe_write(p->rpc, io->r->input.data, io->r->input.len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	n = rpc_pipe_readable(p->rpc);
	if (n == 0) {
		return rpc_pipe_disconnected(p->rpc) ?
			NT_STATUS_PIPE_DISCONNECTED : NT_STATUS_PIPE_EMPTY;
	}
	n = n < io->max_out ? n : io->max_out;
	out = smbd_ioctl_output(io, n);
	if (out == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	io->out_len = rpc_pipe_read(p->rpc, out, n);
	return rpc_pipe_readable(p->rpc) > 0 ? NT_STATUS_BUFFER_OVERFLOW :
		NT_STATUS_OK;
}

/*
 * FILE_PIPE_PEEK_BUFFER (MS-FSCC 2.3.29) without data: the state, the
 * bytes available, no message data copied.
 */
static NTSTATUS pipe_peek(struct smbd_ioctl *io, struct smbd_named_pipe *p)
{
	uint8_t *out = NULL;
	uint32_t avail = (uint32_t)rpc_pipe_readable(p->rpc);

	if (io->max_out < 16) {
		return NT_STATUS_BUFFER_TOO_SMALL;
	}
	out = smbd_ioctl_output(io, 16);
	if (out == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	push_le32(out, PIPE_STATE_CONNECTED);
	push_le32(out + 4, avail);
	push_le32(out + 8, avail > 0 ? 1 : 0);	/* messages */
	push_le32(out + 12, avail);		/* this message */
	return NT_STATUS_OK;
}

NTSTATUS smbd_pipe_fsctl(struct smbd_ioctl *io)
{
	struct smbd_named_pipe *p = io->open->pipe;

	switch (io->r->ctl_code) {
	case FSCTL_PIPE_TRANSCEIVE:
		return pipe_transceive(io, p);
	case FSCTL_PIPE_PEEK:
		return pipe_peek(io, p);
	default:
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
}

/* ---------------------------------------------------------------- */
/* QUERY_INFO                                                         */
/* ---------------------------------------------------------------- */

static uint8_t *qi_buf(TALLOC_CTX *mem_ctx, const struct smb2_query_info_req *r,
		       size_t len, size_t *out_len, NTSTATUS *status)
{
	uint8_t *b = NULL;

	if (r->output_buffer_length < len) {
		*status = NT_STATUS_INFO_LENGTH_MISMATCH;
		return NULL;
	}
	b = talloc_zero_size(mem_ctx, len);
	*status = b != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	*out_len = len;
	return b;
}

NTSTATUS smbd_pipe_query_info(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			      const struct smb2_query_info_req *r,
			      uint8_t **out, size_t *out_len)
{
	struct smbd_named_pipe *p = open->pipe;
	uint32_t avail = (uint32_t)rpc_pipe_readable(p->rpc);
	NTSTATUS status = NT_STATUS_OK;
	uint8_t *b = NULL;

	/* no file system, no security descriptor: Samba's answer */
	if (r->info_type != SMB2_INFO_FILE) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	switch (r->file_info_class) {
	case SMB2_FILE_STANDARD_INFORMATION:
		b = qi_buf(mem_ctx, r, 24, out_len, &status);
		if (b != NULL) {
			push_le64(b, PIPE_QUOTA);	/* AllocationSize */
			/* EndOfFile 0, as from Samba */
			push_le32(b + 16, 1);		/* NumberOfLinks */
			b[20] = 1;			/* DeletePending */
		}
		break;
	case SMB2_FILE_PIPE_INFORMATION:
		b = qi_buf(mem_ctx, r, 8, out_len, &status);
		if (b != NULL) {
			push_le32(b, PIPE_MESSAGE_MODE);
		}
		break;
	case SMB2_FILE_PIPE_LOCAL_INFORMATION:
		b = qi_buf(mem_ctx, r, 40, out_len, &status);
		if (b != NULL) {
			push_le32(b, PIPE_TYPE_MESSAGE);
			push_le32(b + 4, PIPE_FULL_DUPLEX);
			push_le32(b + 8, 0xFFFFFFFF);	/* MaximumInstances */
			push_le32(b + 12, 1);		/* CurrentInstances */
			push_le32(b + 16, PIPE_QUOTA);	/* InboundQuota */
			push_le32(b + 20, avail);	/* ReadDataAvailable */
			push_le32(b + 24, PIPE_QUOTA);	/* OutboundQuota */
			push_le32(b + 28, PIPE_QUOTA);	/* WriteQuotaAvailable */
			push_le32(b + 32, PIPE_STATE_CONNECTED);
			push_le32(b + 36, PIPE_CLIENT_END);
		}
		break;
	default:
		return NT_STATUS_NOT_SUPPORTED;
	}
	*out = b;
	return status;
}
