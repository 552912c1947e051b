/*
 * The request pipeline: from a received PDU to the queued response.
 *
 * Compounds are processed one at a time per connection, in arrival order,
 * and the elements of a compound one after another.  This keeps a CLOSE
 * from overtaking a READ on the same open (and freeing what the READ
 * uses) without any reference counting.  The one exception: lone READs
 * and WRITEs that do not overlap run side by side (pipeline_sched.c
 * decides what may start).  Responses are built in pipeline_response.c.  The transport keeps receiving (up to
 * SMBD_MAX_QUEUED PDUs) and sending while a command runs.  A command that
 * waits on something other than the disk (a blocking lock, a change
 * notification) goes async instead (pipeline_async.c): STATUS_PENDING now,
 * its response later, and the queue moves on.  CANCEL is handled on
 * arrival, never queued.
 */
#include <string.h>
#include "lib/util/byteorder.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "lib/util/tevent_ntstatus.h"
#include "source3/smbd/pipeline/credits.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/pipeline/dispatch.h"
#include "source3/smbd/pipeline/encryption.h"
#include "source3/smbd/files/channel_seq.h"
#include "source3/smbd/files/notify.h"
#include "source3/smbd/files/replay.h"
#include "source3/smbd/pipeline/pipeline_private.h"
#include "source3/smbd/session/session.h"
#include "source3/smbd/session/signing.h"
#include "source3/smbd/transport/transport.h"
#include "source3/smbd/files/open_files.h"
#include "source3/modules/vfs.h"

static void element_done(struct tevent_req *subreq);
static void element_complete(struct smbd_compound *c,
			     struct tevent_req *subreq);
static void compound_finish(struct smbd_compound *c);
static int pipeline_destructor(struct smbd_pipeline *p);

int smbd_pipeline_init(struct smbd_conn *conn)
{
	struct smbd_pipeline *p = talloc_zero(conn, struct smbd_pipeline);

	if (p == NULL) {
		return -1;
	}
	p->conn = conn;
	p->credits = smbd_credits_new(p);
	if (p->credits == NULL) {
		return -1;
	}
	/* 64 KiB a credit: no more than the receive budget (rxmem.h) */
	smbd_credits_set_max(p->credits, (uint32_t)(
		(size_t)conn->server->lp->g.max_receive_buffer * 1024 / 64));
	conn->pipeline = p;
	talloc_set_destructor(p, pipeline_destructor);
	return 0;
}

void smbd_pipeline_kick(struct smbd_conn *conn)
{
	struct debug_scope scope;

	debug_client_enter(conn->log_client, &scope);
	if (conn->pipeline != NULL && !conn->terminating) {
		smbd_pipeline_start_next(conn->pipeline);
	}
	debug_scope_leave(&scope);
}

bool smbd_pipeline_busy(const struct smbd_conn *conn)
{
	const struct smbd_compound *c = NULL;

	if (conn->pipeline == NULL || conn->pipeline->queue == NULL) {
		return false;
	}
	c = conn->pipeline->queue;
	return c->started;
}

/*
 * c->conn only on a change: a compound kept by a SENDMSG in flight is
 * freed after its connection (not running by then).
 */
static void set_running(struct smbd_compound *c, bool on)
{
	if (c->running == on) {
		return;
	}
	c->running = on;
	if (on) {
		c->conn->requests_running++;
	} else {
		c->conn->requests_running--;
	}
}

static void pipeline_resume(struct tevent_context *ev,
			    struct tevent_immediate *im, void *private_data)
{
	struct smbd_pipeline *p = private_data;
	struct debug_scope scope;

	debug_client_enter(p->conn->log_client, &scope);
	if (p->channel_wait && p->queue != NULL && !p->conn->terminating &&
	    !smbd_transport_congested(p->conn)) {
		p->channel_wait = false;
		p->conn->server->channel_waiters--;
		smbd_compound_next(p->queue);
	}
	debug_scope_leave(&scope);
}

void smbd_pipeline_channels_idle(struct smbd_server *server)
{
	struct smbd_conn *conn = NULL;

	if (server->channel_waiters == 0) {
		return;
	}
	for (conn = server->conns; conn != NULL; conn = conn->next) {
		struct smbd_pipeline *p = conn->pipeline;

		if (p == NULL || !p->channel_wait || conn->terminating) {
			continue;
		}
		if (p->resume == NULL) {
			p->resume = tevent_create_immediate(p);
		}
		if (p->resume != NULL) {
			tevent_schedule_immediate(p->resume, conn->ev,
						  pipeline_resume, p);
		}
	}
}

static int pipeline_destructor(struct smbd_pipeline *p)
{
	if (p->channel_wait) {
		p->conn->server->channel_waiters--;
	}
	return 0;
}

/*
 * An SMB1 NEGOTIATE (message id 0) answered with an SMB2 NEGOTIATE
 * response that grants one credit: SMB2 continues at message id 1.
 */
static void pipeline_smb1_negprot(struct smbd_conn *conn, const uint8_t *buf,
				  size_t len)
{
	struct smb2_hdr h = {
		.command = SMB2_OP_NEGPROT, .credit = 1,
		.flags = SMB2_FLAGS_SERVER_TO_REDIR,
	};
	void *owner = talloc_new(conn);
	uint8_t *hdr = NULL, *body = NULL;
	size_t body_len = 0;
	const char *why = "out of memory";

	if (owner != NULL) {
		hdr = talloc_zero_size(owner, SMB2_HDR_SIZE);
		body = smbd_smb1_negprot(owner, conn, buf, len, &body_len,
					 &why);
	}
	if (hdr == NULL || body == NULL) {
		talloc_free(owner);
		smbd_conn_terminate(conn, why);
		return;
	}
	if (!smbd_credits_consume(conn->pipeline->credits, 0, 1)) {
		talloc_free(owner);
		smbd_conn_terminate(conn, "SMB1 NEGOTIATE out of sequence");
		return;
	}
	smbd_credits_grant(conn->pipeline->credits, 1);
	smb2_hdr_push(&h, hdr);
	smbd_transport_send(conn, (struct iovec[]){
		{ hdr, SMB2_HDR_SIZE }, { body, body_len } }, 2, owner);
}

static void pipeline_got(struct smbd_conn *conn, void *owner, uint8_t *buf,
			 size_t len, struct smbd_splice *sp, size_t payload);

void smbd_pipeline_got_pdu(struct smbd_conn *conn, void *owner, uint8_t *buf,
			   size_t len)
{
	pipeline_got(conn, owner, buf, len, NULL, 0);
}

void smbd_pipeline_got_spliced_write(struct smbd_conn *conn, uint8_t *buf,
				     size_t len, struct smbd_splice *sp,
				     size_t payload)
{
	pipeline_got(conn, buf, buf, len, sp, payload);
}

/*
 * Freed while its command runs (the connection goes): not running.  A
 * response on the crypto pool is freed only after its connection
 * (pipeline_crypto.c): it is not running, and must not look at conn.
 */
static int compound_destructor(struct smbd_compound *c)
{
	if (c->running) {
		set_running(c, false);
	}
	return 0;
}


bool smbd_compound_parse(struct smbd_compound *c, uint8_t *msg, size_t len)
{
	struct smbd_conn *conn = c->conn;
	NTSTATUS status;

	status = smb2_compound_carve(c, msg, len, &c->pdus, &c->count);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: malformed PDU (%s)\n", conn->peer,
			 nt_errstr(status));
		smbd_compound_drop(c);
		smbd_conn_terminate(conn, "malformed PDU");
		return false;
	}
	if (c->in_splice != NULL) {
		c->pdus[0].ext_len = c->in_splice_payload;
	}
	if (c->count == 1 && c->pdus[0].hdr.command == SMB2_OP_CANCEL &&
	    conn->dialect != 0) {
		/* not queued behind what it cancels (3.3.5.16) */
		smbd_async_cancel(conn, &c->pdus[0]);
		smbd_compound_drop(c);
		return false;
	}
	if (c->count == 1) {
		c->elem_inline = (struct smbd_elem_out){ 0 };
		c->elems = &c->elem_inline;
	} else {
		c->elems = talloc_zero_array(c, struct smbd_elem_out, c->count);
	}
	if (c->elems == NULL) {
		smbd_compound_drop(c);
		smbd_conn_terminate(conn, "out of memory");
		return false;
	}
	if (!c->queued) {
		smbd_compound_enqueue(c);
	}
	return true;
}


static void pipeline_got(struct smbd_conn *conn, void *owner, uint8_t *buf,
			 size_t len, struct smbd_splice *sp, size_t payload)
{
	struct smbd_compound *c = NULL;
	NTSTATUS status;

	conn->last_activity = tevent_timeval_current();
	conn->bytes_in += 4 + len + payload;
	conn->server->stats.bytes_in += 4 + len + payload;
	if (len >= 4 && buf[0] == 0xFF) {
		pipeline_smb1_negprot(conn, buf, len);
		talloc_free(owner);
		return;
	}
	c = talloc_zero(conn->pipeline, struct smbd_compound);
	if (c == NULL) {
		talloc_free(owner);
		smbd_conn_terminate(conn, "out of memory");
		return;
	}
	c->conn = conn;
	talloc_set_destructor(c, compound_destructor);
	c->owner = talloc_steal(c, owner);
	c->buf = buf;
	c->len = len;
	/* the transport made sure: a lone WRITE, data after the head */
	c->in_splice = talloc_steal(c, sp);
	c->in_splice_payload = payload;
	c->related_status = NT_STATUS_OK;
	if (len >= 4 && buf[0] == 0xFD) {
		if (smbd_crypto_rx_decrypt(c)) {
			return;         /* queued; parsed once decrypted */
		}
		status = smbd_decrypt_message(conn, c, buf, len, &buf, &len,
					      &c->crypto,
					      &c->crypto_session_id);
		if (!NT_STATUS_IS_OK(status)) {
			DBG_INFO("%s: TRANSFORM refused (%s)\n", conn->peer,
				 nt_errstr(status));
			talloc_free(c);
			smbd_conn_terminate(conn, "bad TRANSFORM message");
			return;
		}
	}
	if (!smbd_compound_parse(c, buf, len)) {
		return;
	}
	if (c->crypto == NULL) {
		smbd_crypto_rx_verify(c);       /* holds c back if it takes it */
	}
	smbd_pipeline_start_next(conn->pipeline);
}

static void element_append(struct smbd_compound *c, NTSTATUS status,
			   struct smbd_response *rsp, uint16_t credits)
{
	smbd_pipeline_count(c->conn, c->pdus[c->cur].hdr.command,
			    &c->pdus[c->cur], status, rsp, &c->cur_start,
			    credits);
	smbd_pipeline_append(c, smbd_pipeline_hdr(c, status, credits, 0),
			     status, rsp);
}

static void element_error(struct smbd_compound *c, NTSTATUS status,
			  uint16_t credits)
{
	struct smbd_response rsp = { .status = status };

	DBG_DEBUG("%s: %s -> %s\n", c->conn->peer,
		  smb2_op_name(c->pdus[c->cur].hdr.command),
		  nt_errstr(status));

	rsp.body = smb2_error_rsp_push(c, NULL, 0, &rsp.body_len);
	if (rsp.body == NULL) {
		smbd_conn_terminate(c->conn, "out of memory");
		return;
	}
	element_append(c, status, &rsp, credits);
}

/* Dialect, negotiate-state and compound-shape rules (MS-SMB2 3.3.5.2). */
static NTSTATUS check_state(struct smbd_compound *c,
			    const struct smb2_pdu *pdu, bool *disconnect)
{
	struct smbd_conn *conn = c->conn;
	bool is_neg = pdu->hdr.command == SMB2_OP_NEGPROT;

	*disconnect = false;
	if (conn->dialect == 0 && (!is_neg || c->count > 1)) {
		*disconnect = true;     /* first PDU must be a lone NEGOTIATE */
	} else if (conn->dialect != 0 && is_neg) {
		*disconnect = true;     /* second NEGOTIATE */
	}
	if (*disconnect) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((pdu->hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS) && c->cur == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static bool consume_credits(struct smbd_compound *c,
			    const struct smb2_pdu *pdu)
{
	uint16_t charge = pdu->hdr.credit_charge;

	if (c->conn->dialect == SMB2_DIALECT_0202 || charge == 0) {
		charge = 1;
	}
	return smbd_credits_consume(c->conn->pipeline->credits,
				    pdu->hdr.message_id, charge);
}

/* 2.1+: a large request must carry CreditCharge for its size (3.3.5.2.5) */
static NTSTATUS check_charge(struct smbd_compound *c,
			     const struct smb2_pdu *pdu,
			     const struct smbd_cmd *cmd)
{
	uint32_t len = 0;
	uint32_t needed;

	if (cmd->charge_ofs == 0) {
		return NT_STATUS_OK;
	}
	len = pull_le32(pdu->body + cmd->charge_ofs);
	if (cmd->charge_ofs2 != 0) {
		uint32_t len2 = pull_le32(pdu->body + cmd->charge_ofs2);
		len = len2 > len ? len2 : len;
	}
	needed = len == 0 ? 1 : 1 + (len - 1) / 65536;
	if (c->conn->dialect == SMB2_DIALECT_0202) {
		needed = 0;             /* 2.0.2 has no multi-credit requests */
	}
	if (pdu->hdr.credit_charge < needed &&
	    !(pdu->hdr.credit_charge == 0 && len <= 65536)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/*
	 * The whole compound response must fit one NBT frame (24-bit
	 * length) and a bounded buffer: refuse an element whose promised
	 * output would not fit what is left.
	 */
	if (len > SMBD_MAX_COMPOUND_RSP - c->out_bytes) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	c->out_bytes += len;
	return NT_STATUS_OK;
}

static NTSTATUS find_session(struct smbd_compound *c,
			     const struct smb2_pdu *pdu,
			     struct smbd_request *req)
{
	bool related = pdu->hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS;
	uint64_t sid = related ? c->session_id : pdu->hdr.session_id;

	if (related && !c->have_session) {
		return NT_STATUS_INVALID_PARAMETER;     /* e.g. after ECHO */
	}
	req->session = smbd_session_find(c->conn, sid);
	if (req->session == NULL) {
		return NT_STATUS_USER_SESSION_DELETED;
	}
	/* MS-SMB2 3.3.5.2.9: an in-progress session allows only LOGOFF */
	if (!req->session->valid && pdu->hdr.command != SMB2_OP_LOGOFF) {
		req->session = NULL;
		return NT_STATUS_USER_SESSION_DELETED;
	}
	return NT_STATUS_OK;
}

static NTSTATUS find_tcon(struct smbd_compound *c, const struct smb2_pdu *pdu,
			  struct smbd_request *req)
{
	bool related = pdu->hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS;
	uint32_t tid = related ? c->tree_id : pdu->hdr.tree_id;

	if (related && !c->have_tcon) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	req->tcon = smbd_tcon_find(req->session, tid);
	if (req->tcon == NULL) {
		return NT_STATUS_NETWORK_NAME_DELETED;
	}
	return NT_STATUS_OK;
}

static NTSTATUS find_open(struct smbd_compound *c, const struct smb2_pdu *pdu,
			  const struct smbd_cmd *cmd, struct smbd_request *req)
{
	uint64_t pid = pull_le64(pdu->body + cmd->fileid_ofs);
	uint64_t vid = pull_le64(pdu->body + cmd->fileid_ofs + 8);
	bool related = pdu->hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS;

	if (!related && cmd->fileid_optional && pid == UINT64_MAX &&
	    vid == UINT64_MAX) {
		return NT_STATUS_OK;    /* no file: the command decides */
	}
	if (related && pid == UINT64_MAX && vid == UINT64_MAX) {
		if (!NT_STATUS_IS_OK(c->related_status)) {
			return c->related_status;
		}
		if (!c->have_file) {
			return NT_STATUS_FILE_CLOSED;
		}
		pid = c->file_persistent;
		vid = c->file_volatile;
	}
	req->open = smbd_open_find(req->tcon, pid, vid);
	if (req->open == NULL) {
		return NT_STATUS_FILE_CLOSED;
	}
	return NT_STATUS_OK;
}

/* Everything the table asks to be checked before the command runs. */
static NTSTATUS element_prepare(struct smbd_compound *c,
				const struct smbd_cmd *cmd,
				struct smbd_request *req)
{
	const struct smb2_pdu *pdu = req->pdu;
	NTSTATUS status;

	status = check_charge(c, pdu, cmd);
	if (NT_STATUS_IS_OK(status) && cmd->need >= SMBD_NEED_SESSION) {
		status = find_session(c, pdu, req);
	}
	if (NT_STATUS_IS_OK(status) && cmd->need >= SMBD_NEED_TCON) {
		status = find_tcon(c, pdu, req);
	}
	if (NT_STATUS_IS_OK(status) && req->tcon != NULL && req->tcon->ipc &&
	    !cmd->on_ipc) {
		status = NT_STATUS_NOT_SUPPORTED;
	}
	if (NT_STATUS_IS_OK(status) && cmd->fileid_ofs != 0 &&
	    (cmd->fileid_body_len == 0 ||
	     pdu->body_len == cmd->fileid_body_len)) {
		status = find_open(c, pdu, cmd, req);
	}
	return status;
}

/*
 * A binding SESSION_SETUP names a session of another connection and is
 * signed with its key: its refusal is signed with that key too (the
 * client drops an unsigned one), with the algorithm of the session's own
 * connection (the client's key carries it) or else this one's.  A
 * signature that does not check leaves the answer unsigned; the refusal
 * itself is commands/sesssetup.c's.
 */
static bool binding_signature(struct smbd_compound *c,
			      const struct smb2_pdu *pdu)
{
	const struct smbd_session *s = NULL;
	const struct smbd_channel *ch = NULL;

	if (pdu->hdr.command != SMB2_OP_SESSSETUP || pdu->body_len < 3 ||
	    (pdu->body[2] & SMB2_SESSION_FLAG_BINDING) == 0) {
		return false;
	}
	s = smbd_session_find_global(c->conn->server, pdu->hdr.session_id);
	if (s == NULL || !s->valid || s->keys == NULL) {
		return true;
	}
	ch = smbd_channel_find(s, c->conn);
	if (ch != NULL && ch->bound) {
		return false;   /* already a channel: its own key checks */
	}
	/* the client signs as the session's first connection did */
	if (NT_STATUS_IS_OK(smbd_signing_check_key(
		    c->conn, s->dialect, s->signing_alg, pdu, s->keys->signing,
		    &c->cur_sign, c->cur_key))) {
		c->cur_dialect = s->dialect;
		c->cur_alg = s->signing_alg;
	} else if (!NT_STATUS_IS_OK(smbd_signing_check_key(
			   c->conn, c->conn->dialect, c->conn->signing_alg,
			   pdu, s->keys->signing, &c->cur_sign,
			   c->cur_key))) {
		c->cur_sign = false;
	}
	return true;
}

/* The session a request names, for signing (also ECHO's, unchecked). */
static NTSTATUS check_signature(struct smbd_compound *c,
				const struct smb2_pdu *pdu,
				struct smbd_request *req)
{
	const struct smbd_session *s = req->session;
	bool related = pdu->hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS;

	if (binding_signature(c, pdu)) {
		req->bind_signed = c->cur_sign;
		return NT_STATUS_OK;
	}
	if (s == NULL) {
		s = smbd_session_find(c->conn, related ? c->session_id :
				      pdu->hdr.session_id);
	}
	return smbd_signing_check_pre(c->conn, pdu, s, &c->sig_pre,
				      &c->cur_sign, c->cur_key);
}

/*
 * An error answers a signed request signed, as long as its signature
 * checks out with the session it names (MS-SMB2 3.3.4.1.1): a client that
 * requires signing drops the connection on an unsigned error.
 */
static void sign_error(struct smbd_compound *c, const struct smb2_pdu *pdu)
{
	struct smbd_request none = { .conn = c->conn, .pdu = pdu };

	if (c->cur_sign || c->crypto != NULL ||
	    (pdu->hdr.flags & SMB2_FLAGS_SIGNED) == 0) {
		return;
	}
	if (!NT_STATUS_IS_OK(check_signature(c, pdu, c->req != NULL ?
					     c->req : &none))) {
		c->cur_sign = false;
	}
}

/*
 * What later RELATED_OPERATIONS elements inherit, taken once this
 * element's ids are resolved, whether it then fails or not (MS-SMB2
 * 3.3.5.2.7.2): the session, tree and open this element used.  One
 * whose session or tree did not resolve (a bad id, or ECHO, which has
 * none) leaves none, so a related element that needs it fails with
 * INVALID_PARAMETER (smbtorture smb2.compound.invalid2).  An unrelated
 * element starts the file afresh: a related element after one whose
 * FileId named nothing does not reach back to an earlier CREATE's open
 * (smb2.compound.invalid3).  CLOSE frees the open, so its ids are taken
 * here, before the command runs.
 */
static void inherit_resolved(struct smbd_compound *c,
			     const struct smb2_pdu *pdu)
{
	const struct smbd_request *req = c->req;

	c->have_session = req != NULL && req->session != NULL;
	if (c->have_session) {
		c->session_id = req->session->id;
	}
	c->have_tcon = req != NULL && req->tcon != NULL;
	if (c->have_tcon) {
		c->tree_id = req->tcon->id;
	}
	if (!(pdu->hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS)) {
		c->have_file = false;
		c->related_status = NT_STATUS_OK;
	}
	if (req != NULL && req->open != NULL) {
		c->file_persistent = req->open->persistent_id;
		c->file_volatile = req->open->volatile_id;
		c->have_file = true;
	}
}

/*
 * Replay protection, once the request is known to be genuine (signature
 * and encryption checked, so a forged request moves no counter): the
 * open it names is no longer replay-eligible (MS-SMB2 3.3.5.9.10), and
 * its channel sequence is checked and counted (3.3.5.2.10).
 */
static NTSTATUS check_channel_sequence(const struct smbd_cmd *cmd,
				       struct smbd_request *req)
{
	if (req->open == NULL) {
		return NT_STATUS_OK;
	}
	smbd_replay_touch(req->open);
	return smbd_csn_request(req, req->open, cmd->refuses_stale_channel);
}

/* A CREATE: related operations after it inherit its status. */
static bool pdu_opens_file(const struct smb2_pdu *pdu)
{
	const struct smbd_cmd *sc = smbd_cmd_lookup(pdu->hdr.command);

	return sc != NULL && sc->opens_file;
}

/*
 * The synchronous part of a command on a tree connect runs with the
 * thread held as the tree's user (vfs_hold): its VFS calls (CREATE
 * alone makes a dozen: open, statx, xattrs) then switch identity once,
 * not once each.  Not for TREE_DISCONNECT, which frees the tree.
 */
static bool element_hold(const struct smbd_request *req, uint16_t command)
{
	if (req->tcon == NULL || req->tcon->vfs == NULL ||
	    command == SMB2_OP_TDIS) {
		return false;
	}
	return vfs_hold(req->tcon->vfs);
}

/*
 * Starts the current element; returns false when it completed (or the
 * connection is going away) without starting a command.
 */
static bool element_run(struct smbd_compound *c)
{
	const struct smb2_pdu *pdu = &c->pdus[c->cur];
	struct tevent_req *subreq = NULL;
	uint16_t credits = 0;
	bool disconnect = false;
	bool held = false;
	NTSTATUS status;

	c->cmd = NULL;
	c->req = NULL;
	clock_gettime(CLOCK_MONOTONIC, &c->cur_start);
	c->cur_sign = false;
	c->cur_dialect = c->conn->dialect;
	c->cur_alg = c->conn->signing_alg;
	if (pdu->hdr.command == SMB2_OP_CANCEL) {
		if (c->conn->dialect == 0) {
			smbd_conn_terminate(c->conn, "CANCEL before NEGOTIATE");
		}
		return false;           /* no credits, no response */
	}
	if (!consume_credits(c, pdu)) {
		smbd_conn_terminate(c->conn, "message id outside the window");
		return false;
	}
	credits = smbd_credits_grant(c->conn->pipeline->credits,
				     pdu->hdr.credit);
	status = check_state(c, pdu, &disconnect);
	if (disconnect) {
		smbd_conn_terminate(c->conn, "request out of sequence");
		return false;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = pdu->status;   /* the carver's per-element check */
	}
	if (NT_STATUS_IS_OK(status)) {
		c->cmd = smbd_cmd_lookup(pdu->hdr.command);
		if (c->cmd == NULL) {
			status = NT_STATUS_NOT_SUPPORTED;
		}
	}
	if (NT_STATUS_IS_OK(status)) {
		c->req = talloc_zero(c, struct smbd_request);
		if (c->req == NULL) {
			smbd_conn_terminate(c->conn, "out of memory");
			return false;
		}
		c->req->conn = c->conn;
		c->req->pdu = pdu;
		c->req->pdu_owner = c->owner;
		c->req->in_splice = c->in_splice;
		c->req->credits = credits;
		status = element_prepare(c, c->cmd, c->req);
	}
	inherit_resolved(c, pdu);
	if (NT_STATUS_IS_OK(status) && c->crypto == NULL) {
		status = check_signature(c, pdu, c->req);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = smbd_encryption_check(c->req, c->crypto != NULL);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = check_channel_sequence(c->cmd, c->req);
	}
	if (!NT_STATUS_IS_OK(status)) {
		if (pdu_opens_file(pdu)) {
			c->related_status = status;
		}
		sign_error(c, pdu);
		element_error(c, status, credits);
		return false;
	}
	c->req->may_splice = c->count == 1 && c->crypto == NULL &&
			     !c->cur_sign;
	c->req->may_go_async = c->cur + 1 == c->count &&
			       c->conn->pipeline->num_pending < SMBD_MAX_ASYNC;
	held = element_hold(c->req, pdu->hdr.command);
	subreq = c->cmd->send(c->req, c->conn->ev, c->req);
	vfs_release(held);
	if (subreq == NULL) {
		element_error(c, NT_STATUS_NO_MEMORY, credits);
		return false;
	}
	if (c->req->go_async && smbd_async_start(c, subreq, credits)) {
		return false;           /* answered STATUS_PENDING */
	}
	if (!tevent_req_is_in_progress(subreq)) {
		/*
		 * Finished already (CREATE, QUERY_INFO, CLOSE...): answered
		 * now, not from the immediate tevent_req_post scheduled
		 * (freed with subreq), which would cost a loop pass and a
		 * ring submit of its own per request.
		 */
		element_complete(c, subreq);
		return false;
	}
	c->subreq = subreq;
	tevent_req_set_callback(subreq, element_done, c);
	return true;
}

static bool element_start(struct smbd_compound *c)
{
	set_running(c, true);
	if (element_run(c)) {
		return true;
	}
	set_running(c, false);
	return false;
}

/*
 * What a command running on another channel of the same session may be
 * using (MS-SMB2 3.3.5.5.2; one event loop, no reference counts): CLOSE,
 * TREE_DISCONNECT, LOGOFF and SESSION_SETUP (a failed re-authentication
 * ends the session) free it, so they wait until no other channel runs a
 * command.  A waiting element runs nothing itself, so two channels never
 * wait for each other.
 */
static bool channel_wait(struct smbd_compound *c)
{
	const struct smb2_pdu *pdu = &c->pdus[c->cur];
	bool related = pdu->hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS;
	const struct smbd_session *s = NULL;
	const struct smbd_cmd *sc = smbd_cmd_lookup(pdu->hdr.command);

	if (c->conn->dialect == 0 || sc == NULL || !sc->frees_session_state) {
		return false;
	}
	s = smbd_session_find(c->conn, related ? c->session_id :
			      pdu->hdr.session_id);
	if (s == NULL || s->num_channels < 2 ||
	    !smbd_session_running(s, c->conn)) {
		return false;
	}
	c->conn->pipeline->channel_wait = true;
	c->conn->server->channel_waiters++;
	return true;
}

void smbd_compound_next(struct smbd_compound *c)
{
	while (c->cur < c->count && !c->conn->terminating) {
		/* between elements: no request holds a session */
		smbd_sessions_reap(c->conn);
		if (channel_wait(c)) {
			return;         /* smbd_pipeline_channels_idle resumes */
		}
		if (element_start(c)) {
			return;         /* element_done continues */
		}
		c->cur++;
	}
	compound_finish(c);
}

/*
 * What the command itself adds for later RELATED_OPERATIONS elements: a
 * new session or tree, a created open, and a CREATE's status (a failed
 * CREATE fails the related elements after it with its status).  After
 * LOGOFF/TREE_DISCONNECT the ids stay and the lookup fails with
 * USER_SESSION_DELETED / NETWORK_NAME_DELETED.
 */
static void remember_related(struct smbd_compound *c, NTSTATUS status)
{
	struct smbd_request *req = c->req;
	const struct smb2_pdu *pdu = &c->pdus[c->cur];

	if (req->session != NULL) {
		c->session_id = req->session->id;
		c->have_session = true;
	}
	if (req->tcon != NULL) {
		c->tree_id = req->tcon->id;
		c->have_tcon = true;
	}
	if (req->created != NULL) {
		c->file_persistent = req->created->persistent_id;
		c->file_volatile = req->created->volatile_id;
		c->have_file = true;
	}
	if (pdu_opens_file(pdu)) {
		c->related_status = status;
	}
}

static void element_finished(struct tevent_req *subreq);

/*
 * A command may complete from an immediate (tevent_req_post), which
 * carries no client for the log: the connection's is entered here.
 */
static void element_done(struct tevent_req *subreq)
{
	struct smbd_compound *c = tevent_req_callback_data(
		subreq, struct smbd_compound);
	struct debug_scope scope;

	debug_client_enter(c->conn->log_client, &scope);
	element_finished(subreq);
	debug_scope_leave(&scope);
}

static void element_finished(struct tevent_req *subreq)
{
	struct smbd_compound *c = tevent_req_callback_data(
		subreq, struct smbd_compound);

	element_complete(c, subreq);
	if (c->conn->terminating) {
		compound_finish(c);
		return;
	}
	c->cur++;
	smbd_compound_next(c);
}

/*
 * The current element's response from its finished subreq (freed here);
 * the caller moves on to the next element, or finishes the compound if
 * the connection is terminating.
 */
static void element_complete(struct smbd_compound *c,
			     struct tevent_req *subreq)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status;

	status = c->cmd->recv(subreq, c, &rsp);
	TALLOC_FREE(subreq);
	c->subreq = NULL;
	smbd_csn_answered(c->req);
	set_running(c, false);
	smbd_pipeline_channels_idle(c->conn->server);
	if (c->conn->terminating) {
		return;
	}
	remember_related(c, status);
	if (NT_STATUS_IS_OK(status) && NT_STATUS_IS_OK(rsp.status) &&
	    c->cmd->sets_signing_key && c->req->session != NULL &&
	    c->req->session->keys != NULL) {
		const struct smbd_channel *ch = smbd_channel_find(
			c->req->session, c->conn);
		/*
		 * The final leg is signed with the new key (3.3.5.5.3),
		 * a binding's with the new channel's (3.3.4.1.1).
		 */
		if (ch != NULL && ch->bound) {
			c->cur_sign = true;
			c->cur_dialect = c->conn->dialect;
			c->cur_alg = c->conn->signing_alg;
			memcpy(c->cur_key, ch->signing_key, 16);
		}
	}
	if (NT_STATUS_IS_OK(status)) {
		element_append(c, rsp.status, &rsp, c->req->credits);
	} else {
		element_error(c, status, c->req->credits);
	}
}

/*
 * A READ answered in splice mode: headers from memory, payload from its
 * pipe.  READ chose it only for a lone, unsigned, unencrypted request
 * (may_splice); anything else here is a bug, and a signature over bytes
 * we never see cannot be made.
 */
static void send_spliced(struct smbd_compound *c)
{
	struct smbd_conn *conn = c->conn;
	bool sign = false;
	int i;

	for (i = 0; i < c->num_elems; i++) {
		sign = sign || c->elems[i].sign;
	}
	if (sign || c->crypto != NULL || c->count != 1) {
		DBG_ERR("%s: spliced READ in a signed, encrypted or compound "
			"response\n", conn->peer);
		talloc_free(c);
		smbd_conn_terminate(conn, "internal error (splice)");
		return;
	}
	smbd_transport_send_splice(conn, c->out, c->outcnt, c, c->splice,
				   c->splice_len);
}

/* Whether c may have changed a directory (smbd_notify_flush). */
static bool compound_may_change(const struct smbd_compound *c)
{
	size_t i;

	for (i = 0; i < c->count; i++) {
		const struct smbd_cmd *sc = smbd_cmd_lookup(
			c->pdus[i].hdr.command);

		if (sc != NULL && sc->may_change) {
			return true;
		}
	}
	return false;
}

static void compound_finish(struct smbd_compound *c)
{
	struct smbd_conn *conn = c->conn;
	struct smbd_pipeline *p = conn->pipeline;

	if (!conn->terminating && compound_may_change(c)) {
		smbd_notify_flush(conn->server->notify);
	}

	smbd_compound_unqueue(c);
	/*
	 * The last response of a compound is padded to 8 bytes too, as
	 * Windows and Samba send it (smbtorture compound-padding)
	 */
	if (!conn->terminating && !smbd_pipeline_pad_last(c)) {
		DBG_WARNING("no memory to pad a compound response\n");
	}
	if (c->num_elems > 0) {
		c->elems[c->num_elems - 1].iovcnt = c->outcnt -
			(int)c->last_hdr;
	}
	if (c->outcnt == 0 || conn->terminating) {
		talloc_free(c);
	} else if (c->splice != NULL) {
		send_spliced(c);
	} else {
		/* the transport (or the crypto pool) owns c from here */
		smbd_crypto_send(conn, c, c->out, c->outcnt, c->elems,
				 c->num_elems, c->crypto, c->crypto_session_id,
				 c->zerocopy, c->payload_ro);
	}
	if (!conn->terminating) {
		smbd_sessions_reap(conn);
		smbd_pipeline_start_next(p);
	}
}
