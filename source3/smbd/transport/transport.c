/*
 * The SMB2 transport: NBT framing, the receive loop and the send queue,
 * on io_uring RECV/SENDMSG through lib/uring (plain sockets when the ring
 * is unavailable; lib/uring hides the difference).
 *
 * One receive is in flight at a time, into a read-ahead buffer of
 * SMBD_RA_SIZE bytes: one receive brings every PDU the client has sent so
 * far (at queue depth > 1, many READ requests: one receive, and one ring
 * submission for all their file reads).  A PDU that is in the buffer
 * whole is copied out to a buffer of its own and handed to the pipeline.
 * A large PDU (a WRITE) that is not all there moves, after authentication,
 * to a shared receive buffer (rbuf.h) of several such PDUs: the receive
 * that completes it brings the PDUs behind it too, and large PDUs are
 * handed over by reference, their payload never copied.  Other PDUs that
 * are not all there get a buffer of their own, take what the read-ahead
 * holds of them and receive the rest in place.  With "smb2 write mode =
 * splice" the read-ahead is the 4-byte NBT header only and nothing is
 * shared, so that a WRITE's payload is still in the socket to splice.
 * Responses are queued and sent in batches: everything queued while a
 * send was in flight goes out in the next single SENDMSG.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include "lib/uring/uring.h"
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "lib/param/param.h"
#include "lib/util/dlist.h"
#include "source3/smbd/transport/rbuf.h"
#include "source3/smbd/transport/splice_pipe.h"
#include "source3/smbd/transport/transport.h"
#include "source3/smbd/transport/transport_private.h"

#define NBT_SESSION_MESSAGE 0x00
#define NBT_KEEPALIVE 0x85
#define NBT_SESSION_REQUEST 0x81
#define NBT_POSITIVE_RESPONSE 0x82
/* called + calling NetBIOS names, each 0x20 + 32 encoded bytes + 0x00 */
#define NBT_NAME_LEN 34
/*
 * The read-ahead per connection: 64 KiB and room for an SMB2 header, so
 * that a lone 64 KiB WRITE (65652 bytes framed) comes in one receive.
 */
#define SMBD_RA_SIZE (68 * 1024)
/*
 * Shared receive buffers hold SMBD_RBUF_PDUS frames of the large PDU that
 * starts one, within 1..4 MiB (docs/performance.md, WRITE part); a PDU
 * larger than half of that gets a buffer of its own.  A connection's
 * buffers alive (filling, or held by PDUs in the pipeline) stay under
 * SMBD_RBUF_LIMIT: past it, PDUs get buffers of their own as before.
 */
#define SMBD_RBUF_PDUS 8
#define SMBD_RBUF_MIN (1024 * 1024)
#define SMBD_RBUF_MAX (4 * 1024 * 1024)
#define SMBD_RBUF_LIMIT (2 * SMBD_RBUF_MAX)
/* Smaller PDUs are copied out of a shared buffer, not held by reference. */
#define SMBD_RBUF_SHARE_MIN (8 * 1024)


static void recv_ra_done(struct tevent_req *subreq);
static void recv_pdu_done(struct tevent_req *subreq);
static void recv_write_head_done(struct tevent_req *subreq);
static void recv_write_data_done(struct tevent_req *subreq);
static bool splice_write_candidate(struct smbd_transport *t);
static void recv_write_head(struct smbd_transport *t);

/*
 * Receives len bytes into a fresh buffer.  The buffer is a child of the
 * request, so that freeing the request in flight hands it to lib/uring,
 * which keeps it until the kernel is done with it.
 */
static struct tevent_req *recv_buf(struct smbd_transport *t, size_t len,
				   uint8_t **pbuf)
{
	struct smbd_conn *conn = t->conn;
	uint8_t *buf = talloc_size(t, len);
	struct tevent_req *req = NULL;

	if (buf == NULL) {
		return NULL;
	}
	req = uring_recv_full_send(t, conn->ev, conn->ring,
				   conn->fd, buf, len, buf);
	if (req == NULL) {
		talloc_free(buf);
		return NULL;
	}
	talloc_steal(req, buf);
	*pbuf = buf;
	return req;
}

/*
 * The server-wide receive budget (rxmem.h, issue 11).  rx_reserve: n
 * bytes for the PDU whose NBT header was just consumed, or false: the
 * header goes back and the connection waits to be resumed.
 */
static bool rx_reserve(struct smbd_transport *t, size_t n)
{
	if (t->rxu == NULL) {
		return true;
	}
	if (!smbd_rxmem_charge_or_wait(t->rxu, n)) {
		t->ra_start -= 4;
		return false;
	}
	t->pdu_charge = n;
	return true;
}

/* The PDU being received is complete, or lost. */
static void rx_release_pdu(struct smbd_transport *t)
{
	if (t->rxu != NULL && t->pdu_charge > 0) {
		smbd_rxmem_release(t->rxu, t->pdu_charge);
	}
	t->pdu_charge = 0;
}

static bool rx_waiting(const struct smbd_transport *t)
{
	return t->rxu != NULL && smbd_rxmem_waiting(t->rxu);
}

static void rx_resume(void *private_data)
{
	smbd_transport_recv_start(private_data);
}

/*
 * Arms a receive that must complete within the PDU timeout (G5: the rest
 * of a PDU follows within SMBD_PDU_TIMEOUT_SECS).  req is what a _send
 * returned (NULL on ENOMEM); false when the connection was terminated.
 */
static bool recv_timed(struct smbd_transport *t, struct tevent_req *req,
		       tevent_req_fn done)
{
	t->recv_req = req;
	if (req == NULL ||
	    !tevent_req_set_endtime(req, t->conn->ev,
				    tevent_timeval_current_ofs(
					    SMBD_PDU_TIMEOUT_SECS, 0))) {
		smbd_conn_terminate(t->conn, "out of memory");
		return false;
	}
	tevent_req_set_callback(req, done, t);
	return true;
}

/* The rest of t->pdu (pdu_have bytes are in), in place. */
static void recv_pdu_rest(struct smbd_transport *t)
{
	struct smbd_conn *conn = t->conn;

	if (recv_timed(t, uring_recv_full_send(t, conn->ev,
					       conn->ring, conn->fd,
					       t->pdu + t->pdu_have,
					       t->pdu_len - t->pdu_have,
					       t->pdu),
		       recv_pdu_done)) {
		talloc_steal(t->recv_req, t->pdu);
	}
}

/*
 * Back to the read-ahead with the bytes not consumed (fewer than 4):
 * what comes next may be long in coming (the client may be idle), and a
 * shared buffer is not held for it (G4: idle connections stay small).
 */
static void recv_to_ra(struct smbd_transport *t)
{
	size_t have = t->ra_end - t->ra_start;

	memmove(t->ra, t->in + t->ra_start, have);
	if (t->rb != NULL) {
		t->rb = NULL;
		TALLOC_FREE(t->rb_hold);        /* PDUs may still hold it */
		if (t->rxu != NULL) {
			smbd_rxmem_release(t->rxu, t->rb_charge);
		}
		t->rb_charge = 0;
		t->in = t->ra;
		t->in_size = t->ra_size;
	}
	t->ra_start = 0;
	t->ra_end = have;
}

static bool recv_next_pdu(struct smbd_transport *t);

/*
 * Hands over every PDU the read-ahead holds, then receives more: the
 * rest of a PDU that is larger than what is there, or the next bytes.
 * Stops while the pipeline is paused or the queue congested (resumed
 * later), and never runs twice at once (a PDU handed over may resume).
 */
void smbd_transport_recv_start(struct smbd_transport *t)
{
	struct smbd_conn *conn = t->conn;
	struct tevent_req *req = NULL;
	bool partial;

	if (t->delivering) {
		return;
	}
	t->delivering = true;
	while (!t->paused && !t->congested && t->recv_req == NULL &&
	       !conn->terminating && !rx_waiting(t) && recv_next_pdu(t)) {
	}
	t->delivering = false;
	if (t->paused || t->congested || t->recv_req != NULL ||
	    conn->terminating || rx_waiting(t)) {
		return;
	}
	/*
	 * Fewer than 4 bytes, an incomplete header: receive more.  Part of
	 * a header already in is a partial PDU: the rest must follow within
	 * the PDU timeout, as for a body (G5; a client that stalls inside
	 * the 4-byte length was otherwise only ended by the idle timeouts).
	 */
	recv_to_ra(t);
	partial = t->ra_end > t->ra_start;
	req = uring_recv_some_send(t, conn->ev, conn->ring, conn->fd,
				   t->ra + t->ra_end, 1,
				   t->ra_size - t->ra_end, t->ra);
	if (partial) {
		recv_timed(t, req, recv_ra_done);
		return;
	}
	t->recv_req = req;
	if (t->recv_req == NULL) {
		smbd_conn_terminate(conn, "out of memory");
		return;
	}
	tevent_req_set_callback(t->recv_req, recv_ra_done, t);
}

static void recv_ra_done(struct tevent_req *subreq)
{
	struct smbd_transport *t = tevent_req_callback_data(
		subreq, struct smbd_transport);
	size_t nread = 0;
	int ret = uring_recv_full_recv(subreq, &nread);

	TALLOC_FREE(subreq);
	t->recv_req = NULL;
	if (ret != 0 || nread == 0) {
		smbd_conn_terminate(t->conn, ret == -ETIMEDOUT ?
				    "partial PDU timed out" : ret != 0 ?
				    "receive error" :
				    "client closed the connection");
		return;
	}
	t->ra_end += nread;
	smbd_transport_recv_start(t);
}

/* Two first-level encoded NetBIOS names (RFC 1002 4.1, 4.3.2). */
static bool nbt_names_valid(const uint8_t *p)
{
	int n, i;

	for (n = 0; n < 2; n++, p += NBT_NAME_LEN) {
		if (p[0] != 0x20 || p[NBT_NAME_LEN - 1] != 0) {
			return false;
		}
		for (i = 1; i <= 32; i++) {
			if (p[i] < 'A' || p[i] > 'P') {
				return false;
			}
		}
	}
	return true;
}

/* Validates the NBT header; returns the PDU length or -1 to disconnect. */
static ssize_t nbt_check(struct smbd_transport *t, const uint8_t *hdr)
{
	uint32_t len = pull_be32(hdr) & 0xFFFFFF;

	t->pdu_is_nbt_request = false;
	if (hdr[0] == NBT_KEEPALIVE && len == 0) {
		return 0;
	}
	/*
	 * A client that takes our port for NetBIOS port 139 (smbclient on a
	 * port other than 445) asks for a session first: answer it once,
	 * before NEGOTIATE, as Samba does.
	 */
	if (hdr[0] == NBT_SESSION_REQUEST && t->conn->dialect == 0 &&
	    !t->nbt_session_done && len == 2 * NBT_NAME_LEN) {
		t->pdu_is_nbt_request = true;
		return len;
	}
	if (hdr[0] != NBT_SESSION_MESSAGE) {
		DBG_INFO("%s: NBT type 0x%02x refused\n", t->conn->peer,
			 hdr[0]);
		return -1;
	}
	if (len < 32 || len > t->max_pdu) {
		DBG_INFO("%s: PDU length %u outside 32..%zu\n",
			 t->conn->peer, len, t->max_pdu);
		return -1;
	}
	return len;
}

static void recv_deliver(struct smbd_transport *t, void *owner,
			 uint8_t *pdu);
static bool recv_shared(struct smbd_transport *t);

/*
 * The PDU at in[ra_start], all there, to the pipeline.  Large PDUs in a
 * shared buffer go by reference.  Small ones are copied out: that is
 * cheap, and a small request that may wait long (a CHANGE_NOTIFY, a
 * blocking LOCK) must not hold a shared buffer of megabytes.
 */
static bool recv_hand_over(struct smbd_transport *t)
{
	uint8_t *pdu = t->in + t->ra_start;
	void *owner = NULL;

	if (t->rb != NULL && t->pdu_len >= SMBD_RBUF_SHARE_MIN &&
	    !t->pdu_is_nbt_request) {
		owner = smbd_rbuf_ref(t, t->rb);
	} else {
		owner = pdu = talloc_memdup(t, pdu, t->pdu_len);
	}
	if (owner == NULL) {
		smbd_conn_terminate(t->conn, "out of memory");
		return false;
	}
	t->ra_start += t->pdu_len;
	recv_deliver(t, owner, pdu);
	return true;
}

/*
 * The next PDU from the read-ahead: handed over when it is all there
 * (true: look for another), else its receive started (false).  False
 * too when the read-ahead holds less than a header.
 */
static bool recv_next_pdu(struct smbd_transport *t)
{
	size_t have = t->ra_end - t->ra_start;
	ssize_t len;

	if (have < 4) {
		return false;
	}
	len = nbt_check(t, t->in + t->ra_start);
	if (len < 0) {
		smbd_conn_terminate(t->conn, "bad NBT header");
		return false;
	}
	t->ra_start += 4;
	have -= 4;
	if (len == 0) {
		return true;                    /* keepalive */
	}
	t->pdu_len = (size_t)len;
	t->pdu_have = 0;
	if (t->pdu_len > t->peak_pdu) {
		t->peak_pdu = t->pdu_len;
	}
	if (have >= t->pdu_len) {
		return recv_hand_over(t);
	}
	if (have == 0 && splice_write_candidate(t)) {
		if (rx_reserve(t, t->pdu_len)) {
			recv_write_head(t);
		}
		return false;
	}
	if (recv_shared(t)) {
		return false;
	}
	/* a buffer of its own: what is here, then the rest in place */
	if (!rx_reserve(t, t->pdu_len)) {
		return false;
	}
	t->pdu = talloc_size(t, t->pdu_len);
	if (t->pdu == NULL) {
		smbd_conn_terminate(t->conn, "out of memory");
		return false;
	}
	memcpy(t->pdu, t->in + t->ra_start, have);
	t->ra_start = t->ra_end = 0;
	t->pdu_have = have;
	recv_pdu_rest(t);
	return false;
}

/* Shared buffer size for frames (NBT header included) of frame bytes. */
static size_t rbuf_size(size_t frame)
{
	size_t size = frame * SMBD_RBUF_PDUS;

	return size < SMBD_RBUF_MIN ? SMBD_RBUF_MIN :
		size > SMBD_RBUF_MAX ? SMBD_RBUF_MAX : size;
}

/*
 * Moves the bytes not consumed to the start of a shared buffer of at
 * least size bytes: the current one when no PDU holds it any more (no
 * allocation), else a new one, if the connection stays under the limit.
 */
static bool rbuf_switch(struct smbd_transport *t, size_t size)
{
	size_t have = t->ra_end - t->ra_start;
	struct smbd_rbuf *rb = t->rb;
	bool unheld = rb != NULL && rb->refs == 1;      /* only rb_hold */
	size_t alive = t->rbufs->bytes - (unheld ? rb->size : 0);
	void *hold = NULL;

	if (unheld && rb->size >= size) {
		memmove(rb->data, rb->data + t->ra_start, have);
	} else {
		if (alive + size > SMBD_RBUF_LIMIT) {
			return false;
		}
		if (t->rxu != NULL && !smbd_rxmem_try_charge(t->rxu, size)) {
			return false;
		}
		hold = smbd_rbuf_new(t, t->rbufs, size, &rb);
		if (hold == NULL) {
			if (t->rxu != NULL) {
				smbd_rxmem_release(t->rxu, size);
			}
			return false;
		}
		if (t->rxu != NULL) {
			smbd_rxmem_release(t->rxu, t->rb_charge);
		}
		t->rb_charge = size;
		memcpy(rb->data, t->in + t->ra_start, have);
		TALLOC_FREE(t->rb_hold);        /* PDUs may still hold it */
		t->rb_hold = hold;
		t->rb = rb;
		t->in = rb->data;
		t->in_size = rb->size;
	}
	t->ra_start = 0;
	t->ra_end = have;
	return true;
}

/*
 * A large PDU not all here, after authentication: one receive of at
 * least its rest (within the PDU timeout) and of whatever follows it, up
 * to the end of a shared buffer.  It stays where it is when it fits the
 * shared buffer it is in, else moves to another (a copy of its head, as
 * into a buffer of its own).  Its NBT header is parsed again once it is
 * all there.  False: a buffer of its own (a small PDU, one too large to
 * share a buffer, pre-auth (G4), splice mode, the limit reached).
 */
static bool recv_shared(struct smbd_transport *t)
{
	struct smbd_conn *conn = t->conn;
	size_t frame = t->pdu_len + 4;
	size_t size = rbuf_size(frame);

	if (t->ra_size != SMBD_RA_SIZE || t->pdu_is_nbt_request ||
	    !conn->trusted ||
	    t->pdu_len < SMBD_RBUF_SHARE_MIN || frame > size / 2) {
		return false;
	}
	t->ra_start -= 4;
	if ((t->rb == NULL || t->ra_start + frame > t->in_size) &&
	    !rbuf_switch(t, size)) {
		t->ra_start += 4;
		return false;
	}
	recv_timed(t, uring_recv_some_send(t, conn->ev,
					   conn->ring, conn->fd,
					   t->in + t->ra_end,
					   t->ra_start + frame - t->ra_end,
					   t->in_size - t->ra_end, t->rb_hold),
		   recv_ra_done);
	return true;
}

/* A whole PDU (or NBT session request) to its consumer. */
static void recv_deliver(struct smbd_transport *t, void *owner,
			 uint8_t *pdu)
{
	struct smbd_conn *conn = t->conn;

	if (t->pdu_is_nbt_request) {
		static const uint8_t positive[4] = { NBT_POSITIVE_RESPONSE };
		bool ok = nbt_names_valid(pdu);

		talloc_free(owner);
		if (!ok) {
			smbd_conn_terminate(conn, "malformed NetBIOS session "
					    "request");
			return;
		}
		t->nbt_session_done = true;
		smbd_transport_queue_raw(t, positive, sizeof(positive));
	} else {
		t->ops->got_pdu(conn, owner, pdu, t->pdu_len);
	}
}

static void recv_pdu_done(struct tevent_req *subreq)
{
	struct smbd_transport *t = tevent_req_callback_data(
		subreq, struct smbd_transport);
	struct smbd_conn *conn = t->conn;
	uint8_t *pdu = t->pdu;
	size_t nread = 0;
	int ret;

	ret = uring_recv_full_recv(subreq, &nread);
	nread += t->pdu_have;           /* a WRITE head received before */
	if (ret == 0 && nread == t->pdu_len) {
		talloc_steal(t, pdu);   /* complete: the kernel is done */
	}
	TALLOC_FREE(subreq);            /* on error, lib/uring keeps pdu */
	t->recv_req = NULL;
	t->pdu = NULL;
	rx_release_pdu(t);
	if (ret != 0 || nread != t->pdu_len) {
		smbd_conn_terminate(conn, ret == -ETIMEDOUT ?
				    "partial PDU timed out" :
				    "connection lost inside a PDU");
		return;
	}
	recv_deliver(t, pdu, pdu);
	if (!conn->terminating) {
		smbd_transport_recv_start(t);
	}
}

/* ---- the splice write mode ---- */

/*
 * A frame that may be a lone unsigned WRITE worth splicing: receive its
 * header and fixed body first (SMB2_HDR_SIZE + 48 bytes), then decide.
 */
#define WRITE_HEAD_LEN (SMB2_HDR_SIZE + (SMB2_WRITE_REQ_SIZE & ~1))

static bool splice_write_candidate(struct smbd_transport *t)
{
	struct smbd_conn *conn = t->conn;
	const struct loadparm *lp = conn->server->lp;
	size_t min = (size_t)lp->share_defaults.min_splice_size;

	return lp->g.write_mode == LP_WRITE_MODE_SPLICE &&
	       conn->dialect != 0 && !t->pdu_is_nbt_request &&
	       conn->ring != NULL &&
	       t->pdu_len >= WRITE_HEAD_LEN + (min > 0 ? min : 1);
}

static void recv_write_head(struct smbd_transport *t)
{
	recv_timed(t, recv_buf(t, WRITE_HEAD_LEN, &t->pdu),
		   recv_write_head_done);
}

/*
 * The head describes a lone, unsigned, unencrypted WRITE whose data
 * follows right after it and fills the frame (Samba's and Windows'
 * layout): then the data can go to pipes.  Anything else (a TRANSFORM,
 * a compound, a signed request, another command) is received whole.
 */
static bool write_head_splices(const struct smbd_transport *t,
			       const uint8_t *h)
{
	struct smb2_write_head w;

	return NT_STATUS_IS_OK(smb2_write_head_pull(h, WRITE_HEAD_LEN, &w)) &&
	       (w.hdr.flags & (SMB2_FLAGS_SIGNED |
			       SMB2_FLAGS_RELATED_OPERATIONS)) == 0 &&
	       w.hdr.next_command == 0 &&
	       w.data_offset == WRITE_HEAD_LEN &&
	       w.length == t->pdu_len - WRITE_HEAD_LEN;
}

/*
 * The payload of the WRITE whose head (WRITE_HEAD_LEN bytes) is in head,
 * in memory: head grows to the whole PDU, its first moved payload bytes
 * are there already, the rest is received after them.  head is consumed.
 */
static void recv_write_rest(struct smbd_transport *t, uint8_t *head,
			    size_t moved)
{
	struct smbd_conn *conn = t->conn;

	t->pdu = talloc_realloc(t, head, uint8_t, t->pdu_len);
	if (t->pdu == NULL) {
		talloc_free(head);
		smbd_conn_terminate(conn, "out of memory");
		return;
	}
	if (t->pdu_len > t->peak_pdu) {
		t->peak_pdu = t->pdu_len;
	}
	t->pdu_have = WRITE_HEAD_LEN + moved;
	recv_pdu_rest(t);
}

/*
 * The pipes filled before the payload did (uring.h: small fragments take
 * a slot each): their bytes go to memory after the head, the pipes back
 * to the pool, and the rest of the WRITE is received in memory.  Rare,
 * and a copy; never a stall or a dropped connection.
 */
static void recv_write_unsplice(struct smbd_transport *t, uint8_t *head,
				struct smbd_splice *sp, size_t moved)
{
	uint8_t *buf = talloc_realloc(t, head, uint8_t, t->pdu_len);
	size_t got = 0;
	unsigned i;

	if (buf == NULL) {
		talloc_free(head);
		talloc_free(sp);
		smbd_conn_terminate(t->conn, "out of memory");
		return;
	}
	for (i = 0; i < sp->n && got < moved; i++) {
		size_t want = moved - got < sp->src[i].len ? moved - got :
			sp->src[i].len;
		size_t have = 0;

		while (have < want) {   /* the bytes are there: no wait */
			ssize_t n = read(sp->src[i].pipe_rd,
					 buf + WRITE_HEAD_LEN + got + have,
					 want - have);

			if (n < 0 && errno == EINTR) {
				continue;
			}
			if (n <= 0) {
				talloc_free(buf);
				talloc_free(sp);
				smbd_conn_terminate(t->conn,
						    "splice pipe read failed");
				return;
			}
			have += (size_t)n;
		}
		got += want;
	}
	smbd_splice_put(t->conn, sp);   /* emptied */
	DBG_NOTICE("%s: WRITE payload filled the pipes after %zu of %zu "
		 "bytes: received in memory\n", t->conn->peer, moved,
		 t->pdu_len - WRITE_HEAD_LEN);
	recv_write_rest(t, buf, moved);
}

static void recv_write_head_done(struct tevent_req *subreq)
{
	struct smbd_transport *t = tevent_req_callback_data(
		subreq, struct smbd_transport);
	struct smbd_conn *conn = t->conn;
	size_t nread = 0;
	int ret = uring_recv_full_recv(subreq, &nread);
	uint8_t *head = NULL;
	size_t payload = t->pdu_len - WRITE_HEAD_LEN;

	if (ret == 0 && nread == WRITE_HEAD_LEN) {
		talloc_steal(t, t->pdu);
		head = t->pdu;
	}
	TALLOC_FREE(subreq);
	t->recv_req = NULL;
	t->pdu = NULL;
	if (head == NULL) {
		rx_release_pdu(t);
		smbd_conn_terminate(conn, ret == -ETIMEDOUT ?
				    "partial PDU timed out" :
				    "connection lost inside a PDU");
		return;
	}
	if (write_head_splices(t, head)) {
		t->in_splice = smbd_splice_get(conn, t, payload);
	}
	if (t->in_splice != NULL) {
		struct uring_splice_src dst[SMBD_SPLICE_READ_PIPES];
		unsigned i;

		/* into the write ends, each its share of the payload */
		for (i = 0; i < t->in_splice->n; i++) {
			dst[i] = (struct uring_splice_src){
				.pipe_rd = t->in_splice->wr[i],
				.len = t->in_splice->src[i].len };
		}
		t->pdu = head;
		recv_timed(t, uring_splice_recv_send(t, conn->ev,
						     conn->ring,
						     conn->fd, dst,
						     t->in_splice->n,
						     t->in_splice),
			   recv_write_data_done);
		return;
	}
	/* not ours to splice: the rest goes after the head, in memory */
	recv_write_rest(t, head, 0);
}

static void recv_write_data_done(struct tevent_req *subreq)
{
	struct smbd_transport *t = tevent_req_callback_data(
		subreq, struct smbd_transport);
	struct smbd_conn *conn = t->conn;
	struct smbd_splice *sp = t->in_splice;
	uint8_t *head = t->pdu;
	size_t moved = 0;
	int ret = uring_splice_sp_recv(subreq, &moved);

	TALLOC_FREE(subreq);
	t->recv_req = NULL;
	t->pdu = NULL;
	t->in_splice = NULL;
	if (ret == -ENOBUFS) {
		recv_write_unsplice(t, head, sp, moved);
		return;
	}
	rx_release_pdu(t);
	if (ret != 0) {
		talloc_free(sp);        /* the pipes hold part of it: closed */
		talloc_free(head);
		smbd_conn_terminate(conn, ret == -ETIMEDOUT ?
				    "partial PDU timed out" :
				    "connection lost inside a WRITE");
		return;
	}
	sp->nsrc = sp->n;
	t->ops->got_spliced_write(conn, head, WRITE_HEAD_LEN, sp,
				  t->pdu_len - WRITE_HEAD_LEN);
	if (!conn->terminating) {
		smbd_transport_recv_start(t);
	}
}

static int transport_destructor(struct smbd_transport *t)
{
	unsigned pipes = 0, busy = 0;
	size_t cap = 0;

	smbd_splice_stats(t->conn, &pipes, &cap, &busy);
	DBG_INFO("%s: memory: largest PDU %zu bytes (limit %zu), receive "
		 "buffers: read-ahead %zu, shared peak %zu bytes (limit %d), "
		 "response queue peak %zu bytes (limit ~%d), splice pipes "
		 "%u x %zu bytes\n", t->conn->peer, t->peak_pdu, t->max_pdu,
		 t->ra_size, t->rbufs->peak, SMBD_RBUF_LIMIT, t->peak_queued,
		 SMBD_SENDQ_HIGH, pipes, cap);
	/* in-flight ring ops are cancelled by freeing their requests */
	return 0;
}

int smbd_transport_start(struct smbd_conn *conn,
			 const struct smbd_transport_ops *ops)
{
	struct smbd_transport *t = talloc_zero(conn, struct smbd_transport);

	if (t == NULL) {
		return -1;
	}
	t->conn = conn;
	t->ops = ops;
	t->max_pdu = (size_t)conn->server->lp->g.untrusted_max_pdu;
	/* splice mode: a WRITE's payload must stay in the socket */
	t->ra_size = conn->server->lp->g.write_mode == LP_WRITE_MODE_SPLICE ?
		4 : SMBD_RA_SIZE;
	t->ra = talloc_size(t, t->ra_size);
	t->rbufs = smbd_rbufs_new(t);
	if (t->ra == NULL || t->rbufs == NULL) {
		talloc_free(t);
		return -1;
	}
	t->in = t->ra;
	t->in_size = t->ra_size;
	if (conn->server->rxmem != NULL) {
		t->rxu = smbd_rxmem_user_new(t, conn->server->rxmem,
					     rx_resume, t);
		if (t->rxu == NULL) {
			talloc_free(t);
			return -1;
		}
	}
	talloc_set_destructor(t, transport_destructor);
	conn->transport = t;
	smbd_transport_recv_start(t);
	return conn->terminating ? -1 : 0;
}

void smbd_transport_set_max_pdu(struct smbd_conn *conn, size_t max)
{
	conn->transport->max_pdu = max;
}

void smbd_transport_pause(struct smbd_conn *conn, bool pause)
{
	struct smbd_transport *t = conn->transport;

	if (t == NULL) {
		return;
	}
	t->paused = pause;
	if (pause && conn->terminating) {
		TALLOC_FREE(t->recv_req);
	}
	if (!pause) {
		smbd_transport_recv_start(t);
	}
}

static void conn_free_now(struct tevent_context *ev,
			  struct tevent_immediate *im, void *private_data)
{
	struct smbd_conn *conn = private_data;

	talloc_free(conn);
}

void smbd_conn_terminate(struct smbd_conn *conn, const char *reason)
{
	struct tevent_immediate *im = NULL;

	if (conn->terminating) {
		return;
	}
	conn->terminating = true;
	DBG_INFO("%s: disconnecting: %s\n", conn->peer, reason);
	/* stop all I/O now; the memory goes once the stack unwinds */
	smbd_transport_pause(conn, true);
	shutdown(conn->fd, SHUT_RDWR);
	im = tevent_create_immediate(conn);
	if (im == NULL) {
		return;         /* freed with the server at exit */
	}
	tevent_schedule_immediate(im, conn->ev, conn_free_now, conn);
}
