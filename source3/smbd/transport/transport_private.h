/*
 * What transport.c (framing, receive) and transport_send.c (the send
 * queue) share: the per-connection transport state.
 */
#ifndef RINGSMB_SMBD_TRANSPORT_PRIVATE_H
#define RINGSMB_SMBD_TRANSPORT_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "source3/smbd/transport/rbuf.h"
#include "source3/smbd/transport/rxmem.h"
#include "source3/smbd/transport/transport.h"

#define SMBD_SEND_MAX_IOV 1024

/* iovecs a response's entry carries in itself (a lone READ needs 4) */
#define SMBD_SEND_INLINE_IOV 6

struct smbd_send_entry {
	struct smbd_send_entry *prev, *next;
	struct iovec *iov;              /* iov_inline, or its own array */
	int iovcnt;
	struct iovec iov_inline[SMBD_SEND_INLINE_IOV];
	size_t bytes;
	uint8_t nbt[4];
	struct smbd_splice *splice;     /* splice mode: payload after iov */
	bool zc;                        /* zerocopy mode: SENDMSG_ZC */
};

struct smbd_transport {
	struct smbd_conn *conn;
	const struct smbd_transport_ops *ops;
	size_t max_pdu;
	bool paused;                    /* by the pipeline (queue full) */
	bool congested;                 /* by the send queue */
	size_t queued_bytes;            /* queued and being sent */
	size_t batch_bytes;             /* of them in the SENDMSG in flight */
	int queued_entries;             /* responses (compounds) queued */
	int batch_entries;
	struct tevent_req *recv_req;
	uint8_t *ra;                    /* the read-ahead */
	size_t ra_size;                 /* SMBD_RA_SIZE, or 4 (splice mode) */
	uint8_t *in;                    /* ra, or rb's data */
	size_t in_size;
	size_t ra_start, ra_end;        /* in[ra_start..ra_end) not consumed */
	struct smbd_rbufs *rbufs;       /* the shared buffers alive */
	struct smbd_rbuf *rb;           /* the one being received into */
	void *rb_hold;                  /* our reference to rb */
	bool delivering;                /* recv_start's loop is running */
	uint8_t *pdu;                   /* buffer being received */
	size_t pdu_len;
	size_t pdu_have;                /* bytes of it already in (a head) */
	struct smbd_splice *in_splice;  /* a WRITE's payload being received */
	bool pdu_is_nbt_request;        /* 0x81 session request payload */
	/*
	 * Charges against the server's receive budget (rxmem.h): the
	 * buffer of the PDU being received, the shared buffer received
	 * into.  NULL rxu: no budget.
	 */
	struct smbd_rxmem_user *rxu;
	size_t pdu_charge;
	size_t rb_charge;
	bool nbt_session_done;
	struct smbd_send_entry *queue;
	struct tevent_req *send_req;
	struct smbd_splice *send_splice; /* of the batch in flight, or NULL */
	/* high-water marks, for the memory line at level 3 */
	size_t peak_pdu;                /* largest receive buffer */
	size_t peak_queued;             /* most response bytes queued */
};

/* The receive loop (transport.c); see there. */
void smbd_transport_recv_start(struct smbd_transport *t);

/* Queues bytes as they are (the NetBIOS session response). */
void smbd_transport_queue_raw(struct smbd_transport *t, const uint8_t *bytes,
			      size_t len);

#endif
