/*
 * Requests that finish later (MS-SMB2 3.3.4.2, 3.3.5.16): an element that
 * asked to go async is answered with an interim STATUS_PENDING response
 * carrying an AsyncId and the credits; its final response goes out on its
 * own when the command completes, signed and encrypted as the request
 * was, granting no credits.  CANCEL finds a request by AsyncId, or by
 * MessageId among the async ones and the one running.
 *
 * Per connection at most SMBD_MAX_ASYNC requests wait: beyond that, and
 * for any element but the last of a compound, may_go_async is false and
 * a command answers at once what it would answer on a conflict.
 */
#include <string.h>
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/files/channel_seq.h"
#include "source3/smbd/pipeline/encryption.h"
#include "source3/smbd/pipeline/pipeline_private.h"
#include "source3/smbd/session/signing.h"
#include "source3/smbd/transport/transport.h"
#include "source3/smbd/session/session.h"

struct smbd_async {
	struct smbd_async *prev, *next;
	struct smbd_pipeline *p;
	uint64_t async_id;
	struct smb2_hdr hdr;            /* the request's, for the response */
	bool sign;
	uint8_t key[16];
	struct smbd_crypto *crypto;     /* referenced: answer encrypted */
	uint64_t crypto_session_id;
	const struct smbd_cmd *cmd;
	struct smbd_request *req;       /* owns the command's tevent_req */
	struct tevent_req *subreq;
	struct timespec start;          /* the request's (for the counters) */
};

static void async_done(struct tevent_req *subreq);

static int async_destructor(struct smbd_async *a)
{
	DLIST_REMOVE_SIMPLE(a->p->pending, a);
	a->p->num_pending--;
	return 0;
}

/* The response header: what the request had, in the async form. */
static void async_hdr(struct smbd_async *a, NTSTATUS status, uint8_t *buf)
{
	struct smb2_hdr h = a->hdr;

	h.status = NT_STATUS_V(status);
	h.credit = 0;                   /* granted with STATUS_PENDING */
	h.flags = SMB2_FLAGS_SERVER_TO_REDIR | SMB2_FLAGS_ASYNC_COMMAND;
	h.next_command = 0;
	h.async_id = a->async_id;
	memset(h.signature, 0, sizeof(h.signature));
	smb2_hdr_push(&h, buf);
}

/* Everything the final response needs, taken from the compound. */
static bool async_take(struct smbd_async *a, struct smbd_compound *c)
{
	const struct smb2_pdu *pdu = &c->pdus[c->cur];

	a->hdr = pdu->hdr;
	if (c->req->session != NULL) {
		a->hdr.session_id = c->req->session->id;
	}
	a->sign = c->cur_sign;
	memcpy(a->key, c->cur_key, sizeof(a->key));
	a->cmd = c->cmd;
	if (c->crypto != NULL) {
		if (talloc_reference(a, c->crypto) == NULL) {
			return false;
		}
		a->crypto = c->crypto;
		a->crypto_session_id = c->crypto_session_id;
	}
	/* req->pdu points into the compound's buffer: it moves along */
	talloc_steal(a, c->owner);
	talloc_steal(a, c->pdus);
	a->req = talloc_steal(a, c->req);
	c->req = NULL;
	return true;
}

bool smbd_async_start(struct smbd_compound *c, struct tevent_req *subreq,
		      uint16_t credits)
{
	struct smbd_pipeline *p = c->conn->pipeline;
	struct smbd_response rsp = { .status = NT_STATUS_PENDING };
	struct smbd_async *a = NULL;
	uint8_t *hdr = NULL;

	if (!c->req->may_go_async) {
		return false;
	}
	a = talloc_zero(p, struct smbd_async);
	rsp.body = smb2_error_rsp_push(c, NULL, 0, &rsp.body_len);
	if (a == NULL || rsp.body == NULL) {
		talloc_free(a);
		return false;
	}
	a->p = p;
	a->start = c->cur_start;
	a->async_id = ++p->next_async_id;
	hdr = smbd_pipeline_hdr(c, NT_STATUS_PENDING, credits, a->async_id);
	if (hdr == NULL || !async_take(a, c)) {
		talloc_free(a);
		return false;
	}
	DLIST_ADD_SIMPLE(p->pending, a);
	p->num_pending++;
	talloc_set_destructor(a, async_destructor);
	a->subreq = subreq;
	tevent_req_set_callback(subreq, async_done, a);
	smbd_pipeline_append(c, hdr, NT_STATUS_PENDING, &rsp);
	c->conn->server->stats.credits_granted += credits;
	return true;
}

static void async_send(struct smbd_async *a, struct iovec *iov, int n,
		       bool payload_ro)
{
	struct smbd_conn *conn = a->p->conn;
	struct smbd_elem_out e = {
		.hdr_idx = 0, .iovcnt = n, .sign = a->sign,
		.sign_dialect = conn->dialect, .sign_alg = conn->signing_alg,
	};

	memcpy(e.key, a->key, sizeof(e.key));
	smbd_crypto_send(conn, a, iov, n, &e, 1, a->crypto,
			 a->crypto_session_id, false, payload_ro);
	crypto_wipe(e.key, sizeof(e.key));
}

static void async_finished(struct tevent_req *subreq);

/* as element_done: the completion may come from an immediate */
static void async_done(struct tevent_req *subreq)
{
	struct smbd_async *a = tevent_req_callback_data(subreq,
							struct smbd_async);
	struct debug_scope scope;

	debug_client_enter(a->p->conn->log_client, &scope);
	async_finished(subreq);
	debug_scope_leave(&scope);
}

static void async_finished(struct tevent_req *subreq)
{
	struct smbd_async *a = tevent_req_callback_data(subreq,
							struct smbd_async);
	struct smbd_conn *conn = a->p->conn;
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	struct iovec iov[4];
	uint8_t *hdr = NULL;
	NTSTATUS status;
	int n = 0;

	status = a->cmd->recv(subreq, a, &rsp);
	TALLOC_FREE(subreq);
	a->subreq = NULL;
	smbd_csn_answered(a->req);
	if (!NT_STATUS_IS_OK(status)) {
		rsp = (struct smbd_response){ .status = status };
		rsp.body = smb2_error_rsp_push(a, NULL, 0, &rsp.body_len);
	}
	smbd_pipeline_count(conn, a->hdr.command, NULL,
			    NT_STATUS_IS_OK(status) ? rsp.status : status, &rsp,
			    &a->start, 0);
	hdr = talloc_zero_size(a, SMB2_HDR_SIZE);
	if (conn->terminating || hdr == NULL || rsp.body == NULL) {
		talloc_free(a);
		return;
	}
	talloc_steal(a, rsp.body);
	talloc_steal(a, rsp.payload_owner);
	async_hdr(a, rsp.status, hdr);
	iov[n++] = (struct iovec){ hdr, SMB2_HDR_SIZE };
	iov[n++] = (struct iovec){ rsp.body, rsp.body_len };
	if (rsp.payload_len > 0) {
		iov[n++] = (struct iovec){ (void *)rsp.payload,
					   rsp.payload_len };
	}
	/* the transport owns a from here; it leaves the pending list */
	talloc_set_destructor(a, NULL);
	DLIST_REMOVE_SIMPLE(a->p->pending, a);
	a->p->num_pending--;
	async_send(a, iov, n, rsp.payload_ro);
}

/*
 * A CANCEL is not answered; a forged one must not cancel anything, so on
 * a session with a signing key its signature is checked like any other.
 */
static bool cancel_trusted(struct smbd_conn *conn, const struct smb2_pdu *pdu)
{
	const struct smbd_session *s = smbd_session_find(conn,
						pdu->hdr.session_id);
	uint8_t key[16];
	bool sign = false;

	return NT_STATUS_IS_OK(smbd_signing_check(conn, pdu, s, &sign, key));
}

void smbd_async_cancel(struct smbd_conn *conn, const struct smb2_pdu *pdu)
{
	struct smbd_pipeline *p = conn->pipeline;
	bool by_async = pdu->hdr.flags & SMB2_FLAGS_ASYNC_COMMAND;
	struct smbd_async *a = NULL;
	struct smbd_compound *c = p->queue;

	if (!cancel_trusted(conn, pdu)) {
		DBG_INFO("%s: CANCEL with a bad signature ignored\n",
			 conn->peer);
		return;
	}
	for (a = p->pending; a != NULL; a = a->next) {
		if (by_async ? a->async_id == pdu->hdr.async_id :
		    a->hdr.message_id == pdu->hdr.message_id) {
			if (a->subreq != NULL) {
				tevent_req_cancel(a->subreq);
			}
			return;
		}
	}
	/* the running compounds: the head, and lone READs behind it */
	for (; !by_async && c != NULL && c->started; c = c->next) {
		if (c->subreq != NULL && c->cur < c->count &&
		    c->pdus[c->cur].hdr.message_id == pdu->hdr.message_id) {
			tevent_req_cancel(c->subreq);
			return;
		}
	}
}
