/*
 * The transport's send side (transport.c has the framing and the receive
 * loop): responses are queued and sent in batches, everything queued
 * while a send was in flight going out in the next single SENDMSG
 * (SENDMSG_ZC in zerocopy mode, linked to SPLICEs in splice mode), with
 * flow control against a client that does not read.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include "lib/uring/uring.h"
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/transport/splice_pipe.h"
#include "source3/smbd/transport/transport.h"
#include "source3/smbd/transport/transport_private.h"

static void send_next(struct smbd_transport *t);
static void send_done(struct tevent_req *subreq);

/*
 * Flow control on the way out (docs/architecture.md, "Limits"): a client that
 * does not read its responses stops being read, and no further request is
 * started, once SMBD_SENDQ_HIGH bytes wait; both resume below SMBD_SENDQ_LOW.
 */
static void send_account(struct smbd_transport *t, ssize_t delta,
			 int entries)
{
	bool was = t->congested;

	t->queued_bytes += delta;
	t->queued_entries += entries;
	if (t->queued_bytes > t->peak_queued) {
		t->peak_queued = t->queued_bytes;
	}
	if (!was && (t->queued_bytes > SMBD_SENDQ_HIGH ||
		     t->queued_entries > SMBD_SENDQ_MAX_ENTRIES)) {
		t->congested = true;
	} else if (was && t->queued_bytes < SMBD_SENDQ_LOW &&
		   t->queued_entries < SMBD_SENDQ_MAX_ENTRIES / 2) {
		t->congested = false;
		smbd_transport_recv_start(t);
		t->ops->drained(t->conn);
	}
}

bool smbd_transport_congested(struct smbd_conn *conn)
{
	return conn->transport != NULL && conn->transport->congested;
}

bool smbd_transport_sending(struct smbd_conn *conn)
{
	return conn->transport != NULL && conn->transport->send_req != NULL;
}

/* Queues bytes as they are (the NetBIOS session response). */
void smbd_transport_queue_raw(struct smbd_transport *t, const uint8_t *bytes,
			      size_t len)
{
	struct smbd_send_entry *e = talloc_zero(t, struct smbd_send_entry);

	if (e == NULL) {
		smbd_conn_terminate(t->conn, "out of memory");
		return;
	}
	e->iov = e->iov_inline;
	memcpy(e->nbt, bytes, len < 4 ? len : 4);
	e->iov[0] = (struct iovec){ .iov_base = e->nbt,
				    .iov_len = len < 4 ? len : 4 };
	e->iovcnt = 1;
	e->bytes = e->iov[0].iov_len;
	send_account(t, (ssize_t)e->bytes, 1);
	DLIST_ADD_END_SIMPLE(t->queue, e);
	send_next(t);
}

static int transport_queue(struct smbd_conn *conn, const struct iovec *iov,
			   int iovcnt, void *owner, struct smbd_splice *sp,
			   size_t pipe_len, bool zc)
{
	struct smbd_transport *t = conn->transport;
	struct smbd_send_entry *e = NULL;
	size_t len = 0;
	int i;

	if (conn->terminating || iovcnt + 1 > SMBD_SEND_MAX_IOV) {
		talloc_free(owner);
		return -1;
	}
	e = talloc_zero(t, struct smbd_send_entry);
	if (e == NULL) {
		talloc_free(owner);
		return -1;
	}
	talloc_steal(e, owner);
	e->iov = iovcnt + 1 <= SMBD_SEND_INLINE_IOV ? e->iov_inline :
		talloc_array(e, struct iovec, iovcnt + 1);
	if (e->iov == NULL) {
		talloc_free(e);
		return -1;
	}
	for (i = 0; i < iovcnt; i++) {
		e->iov[i + 1] = iov[i];
		len += iov[i].iov_len;
	}
	e->splice = sp;
	e->zc = zc;
	len += pipe_len;
	if (len > 0xFFFFFF) {
		/* the pipeline keeps responses smaller: a bug, not a client */
		DBG_ERR("%s: response of %zu bytes exceeds an NBT frame\n",
			conn->peer, len);
		talloc_free(e);
		smbd_conn_terminate(conn, "response too large");
		return -1;
	}
	push_be32(e->nbt, (uint32_t)len);       /* type 0, 24-bit length */
	e->bytes = len + 4;
	conn->bytes_out += e->bytes;
	conn->server->stats.bytes_out += e->bytes;
	conn->server->stats.sends_zerocopy += zc ? 1 : 0;
	send_account(t, (ssize_t)e->bytes, 1);
	e->iov[0] = (struct iovec){ .iov_base = e->nbt, .iov_len = 4 };
	e->iovcnt = iovcnt + 1;
	DLIST_ADD_END_SIMPLE(t->queue, e);
	send_next(t);
	return 0;
}

int smbd_transport_send(struct smbd_conn *conn, const struct iovec *iov,
			int iovcnt, void *owner)
{
	return transport_queue(conn, iov, iovcnt, owner, NULL, 0, false);
}

int smbd_transport_send_zc(struct smbd_conn *conn, const struct iovec *iov,
			   int iovcnt, void *owner)
{
	return transport_queue(conn, iov, iovcnt, owner, NULL, 0, true);
}

int smbd_transport_send_splice(struct smbd_conn *conn, const struct iovec *iov,
			       int iovcnt, void *owner, struct smbd_splice *sp,
			       size_t len)
{
	return transport_queue(conn, iov, iovcnt, owner, sp, len, false);
}

/*
 * Moves as many queued entries as fit into one batch and sends it.  A
 * spliced entry ends its batch: its payload follows the batch's iovec.
 */
static void send_next(struct smbd_transport *t)
{
	struct smbd_conn *conn = t->conn;
	void *batch = NULL;
	struct iovec *iov = NULL;
	bool zc;
	int n = 0;

	if (t->send_req != NULL || t->queue == NULL || conn->terminating) {
		return;
	}
	batch = talloc_new(t);
	iov = talloc_array(batch, struct iovec, SMBD_SEND_MAX_IOV);
	zc = false;
	if (batch == NULL || iov == NULL) {
		smbd_conn_terminate(conn, "out of memory");
		return;
	}
	t->batch_bytes = 0;
	t->batch_entries = 0;
	while (t->queue != NULL &&
	       n + t->queue->iovcnt <= SMBD_SEND_MAX_IOV) {
		struct smbd_send_entry *e = t->queue;
		DLIST_REMOVE_SIMPLE(t->queue, e);
		memcpy(iov + n, e->iov, sizeof(*iov) * e->iovcnt);
		n += e->iovcnt;
		t->batch_bytes += e->bytes;
		t->batch_entries++;
		talloc_steal(batch, e);
		zc = zc || e->zc;
		if (e->splice != NULL) {
			t->send_splice = e->splice;
			break;
		}
	}
	if (t->send_splice != NULL) {
		t->send_req = uring_sendmsg_splice_send(
			t, conn->ev, conn->ring, conn->fd,
			iov, n, batch, t->send_splice->src,
			t->send_splice->nsrc);
	} else if (zc) {
		t->send_req = uring_sendmsg_full_zc_send(
			t, conn->ev, conn->ring, conn->fd,
			iov, n, batch);
	} else {
		t->send_req = uring_sendmsg_full_send(
			t, conn->ev, conn->ring, conn->fd,
			iov, n, batch);
	}
	if (t->send_req == NULL) {
		talloc_free(batch);
		smbd_conn_terminate(conn, "out of memory");
		return;
	}
	/* the batch lives exactly as long as the send (see lib/uring) */
	talloc_steal(t->send_req, batch);
	tevent_req_set_callback(t->send_req, send_done, t);
}

static void send_done(struct tevent_req *subreq)
{
	struct smbd_transport *t = tevent_req_callback_data(
		subreq, struct smbd_transport);
	struct smbd_splice *sp = t->send_splice;
	int ret;

	if (sp != NULL) {
		ret = uring_sendmsg_splice_recv(subreq);
		if (ret == 0) {
			/*
			 * emptied: back to the pool, not freed with the batch
			 */
			smbd_splice_put(t->conn, sp);
		}
	} else {
		ret = uring_sendmsg_full_recv(subreq);
	}
	t->send_splice = NULL;
	TALLOC_FREE(subreq);            /* and the batch with it */
	t->send_req = NULL;
	if (ret != 0) {
		smbd_conn_terminate(t->conn, "send failed");
		return;
	}
	send_account(t, -(ssize_t)t->batch_bytes, -t->batch_entries);
	send_next(t);
}
