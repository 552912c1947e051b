/*
 * Building a compound's response: each element's SMB2 header (status,
 * credits, async id, the signing flag), and the elements chained with
 * NextCommand and 8-byte padding into the iovec the transport sends
 * (MS-SMB2 3.3.4.1, 3.3.5.2.7).
 */
#include <string.h>
#include <time.h>
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "source3/smbd/pipeline/pipeline_private.h"
#include "source3/smbd/transport/transport.h"

/* The latency histogram's upper bounds (smbd.h, struct smbd_stats) */
const uint32_t smbd_stats_latency_usec[SMBD_STATS_LATENCY_BUCKETS] = {
	100, 250, 500, 1000, 2500, 5000, 10000, 25000, 100000, 500000,
	1000000, 10000000,
};

void smbd_pipeline_count(struct smbd_conn *conn, uint16_t cmd,
			 const struct smb2_pdu *pdu, NTSTATUS status,
			 const struct smbd_response *rsp,
			 const struct timespec *start, uint16_t credits)
{
	struct smbd_stats *st = &conn->server->stats;
	struct timespec now;
	uint64_t usec;
	size_t i = 0;

	if (cmd >= SMB2_OP_COUNT) {
		return;
	}
	st->requests[cmd]++;
	st->credits_granted += credits;
	if (NT_STATUS_IS_ERR(status) &&
	    !NT_STATUS_EQUAL(status, NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		st->failed[cmd]++;
	} else if (cmd == SMB2_OP_READ && rsp != NULL) {
		st->bytes_read += rsp->payload_len + rsp->splice_len;
		st->reads_spliced += rsp->splice != NULL ? 1 : 0;
	} else if (cmd == SMB2_OP_WRITE && pdu != NULL &&
		   pdu->body_len >= 8) {
		st->bytes_written += pull_le32(pdu->body + 4);
	}
	if (start == NULL || start->tv_sec == 0) {
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	usec = (uint64_t)(now.tv_sec - start->tv_sec) * 1000000 +
	       (now.tv_nsec - start->tv_nsec) / 1000;
	while (i < SMBD_STATS_LATENCY_BUCKETS &&
	       usec > smbd_stats_latency_usec[i]) {
		i++;
	}
	st->latency[i]++;
	st->latency_usec += usec;
}

uint8_t *smbd_pipeline_hdr(struct smbd_compound *c, NTSTATUS status,
			   uint16_t credits, uint64_t async_id)
{
	const struct smb2_pdu *pdu = &c->pdus[c->cur];
	struct smb2_hdr h = pdu->hdr;
	uint8_t *hdr = talloc_zero_size(c, SMB2_HDR_SIZE);

	if (hdr == NULL) {
		return NULL;
	}
	h.status = NT_STATUS_V(status);
	h.credit = credits;
	h.flags = SMB2_FLAGS_SERVER_TO_REDIR |
		  (pdu->hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS);
	h.next_command = 0;
	h.credit_charge = pdu->hdr.credit_charge;
	h.async_id = async_id;
	if (async_id != 0) {
		h.flags |= SMB2_FLAGS_ASYNC_COMMAND;
	}
	if ((pdu->hdr.flags & SMB2_FLAGS_SIGNED) && !c->cur_sign) {
		/*
		 * A signed request we cannot answer signed (its session is
		 * gone, its signature did not check): keep the flag and
		 * echo the request's signature, as Samba does; clients
		 * that signed expect the flag and skip the check for such
		 * errors (USER_SESSION_DELETED, NETWORK_NAME_DELETED ...).
		 */
		h.flags |= SMB2_FLAGS_SIGNED;
		memcpy(h.signature, pdu->hdr.signature, sizeof(h.signature));
	}
	memset(h.signature, 0, sizeof(h.signature));
	if ((pdu->hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS) && c->cur > 0) {
		/* not the 0xFF..FF placeholders the client sent */
		h.session_id = c->session_id;
		h.tree_id = c->tree_id;
	}
	if (c->req != NULL && c->req->session != NULL) {
		h.session_id = c->req->session->id;
	}
	if (c->req != NULL && c->req->tcon != NULL) {
		h.tree_id = c->req->tcon->id;
	}
	smb2_hdr_push(&h, hdr);
	return hdr;
}

/* Room for n more iovecs in c->out: in c itself while they fit */
static bool out_grow(struct smbd_compound *c, int n)
{
	struct iovec *out = NULL;

	if (c->out == NULL || c->out == c->out_inline) {
		if (c->outcnt + n <= SMBD_OUT_INLINE_IOV) {
			c->out = c->out_inline;
			return true;
		}
		out = talloc_array(c, struct iovec, c->outcnt + n);
		if (out != NULL && c->outcnt > 0) {
			memcpy(out, c->out_inline, sizeof(*out) * c->outcnt);
		}
	} else {
		out = talloc_realloc(c, c->out, struct iovec, c->outcnt + n);
	}
	if (out == NULL) {
		return false;
	}
	c->out = out;
	return true;
}

/* Pads the last element to 8 bytes; *pad says how many bytes it took. */
static bool pad_last(struct smbd_compound *c, size_t *pad)
{
	uint8_t *zeros = NULL;

	*pad = (8 - (c->last_len % 8)) % 8;
	if (*pad == 0) {
		return true;
	}
	/* its own bytes: encryption works in place */
	zeros = talloc_zero_size(c, *pad);
	if (zeros == NULL || !out_grow(c, 1)) {
		return false;
	}
	c->out[c->outcnt++] = (struct iovec){
		.iov_base = zeros, .iov_len = *pad };
	return true;
}

bool smbd_pipeline_pad_last(struct smbd_compound *c)
{
	size_t pad = 0;

	if (c->num_elems < 2 || c->splice != NULL) {
		return true;    /* a lone response is not padded */
	}
	if (!pad_last(c, &pad)) {
		return false;
	}
	c->last_len += pad;
	return true;
}

/* Pads the previous element to 8 bytes and links it (NextCommand). */
static bool link_previous(struct smbd_compound *c)
{
	size_t pad = 0;
	uint8_t *prev_hdr = NULL;

	if (c->outcnt == 0) {
		return true;
	}
	if (!pad_last(c, &pad)) {
		return false;
	}
	prev_hdr = c->out[c->last_hdr].iov_base;
	smb2_hdr_set_next_command(prev_hdr, (uint32_t)(c->last_len + pad));
	c->elems[c->num_elems - 1].iovcnt = c->outcnt - (int)c->last_hdr;
	return true;
}

void smbd_pipeline_append(struct smbd_compound *c, uint8_t *hdr,
			  NTSTATUS status, struct smbd_response *rsp)
{
	if (hdr == NULL || !link_previous(c) || !out_grow(c, 3)) {
		goto nomem;
	}
	talloc_steal(c, rsp->body);
	talloc_steal(c, rsp->payload_owner);
	c->last_hdr = c->outcnt;
	c->elems[c->num_elems++] = (struct smbd_elem_out){
		.hdr_idx = c->outcnt, .sign = c->cur_sign };
	memcpy(c->elems[c->num_elems - 1].key, c->cur_key, 16);
	c->elems[c->num_elems - 1].sign_dialect = c->cur_dialect;
	c->elems[c->num_elems - 1].sign_alg = c->cur_alg;
	c->out[c->outcnt++] = (struct iovec){ hdr, SMB2_HDR_SIZE };
	c->out[c->outcnt++] = (struct iovec){ rsp->body, rsp->body_len };
	c->last_len = SMB2_HDR_SIZE + rsp->body_len;
	if (rsp->payload_len > 0) {
		c->out[c->outcnt++] = (struct iovec){
			(void *)rsp->payload, rsp->payload_len };
		c->last_len += rsp->payload_len;
	}
	c->zerocopy = c->zerocopy || rsp->zerocopy;
	c->payload_ro = c->payload_ro || rsp->payload_ro;
	if (rsp->splice != NULL) {
		c->splice = talloc_steal(c, rsp->splice);
		c->splice_len = rsp->splice_len;
		c->last_len += rsp->splice_len;
	}
	if (c->cmd != NULL && c->cmd->on_response != NULL &&
	    c->req != NULL) {
		if (c->cur_sign) {
			/*
			 * A binding leg is signed, and the 3.1.1 preauth
			 * hash covers it as sent: sign it now (again, the
			 * same, when the compound goes out).
			 */
			smbd_signing_sign_as(c->conn, c->cur_dialect,
					     c->cur_alg, c->cur_key,
					     &c->out[c->last_hdr],
					     c->outcnt - (int)c->last_hdr);
		}
		c->cmd->on_response(c->req, status, &c->out[c->last_hdr],
				    c->outcnt - (int)c->last_hdr);
	}
	return;
nomem:
	smbd_conn_terminate(c->conn, "out of memory");
}
