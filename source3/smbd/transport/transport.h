/*
 * NetBIOS session framing over TCP (RFC 1002 "direct hosted" as SMB2 uses
 * it): a 4-byte header, type 0 and a 24-bit length, then the SMB2 PDU.
 */
#ifndef RINGSMB_SMBD_TRANSPORT_H
#define RINGSMB_SMBD_TRANSPORT_H

#include "source3/smbd/smbd.h"

/*
 * The PDU cap before authentication and for guest/anonymous sessions
 * (docs/architecture.md, "Limits") is 'smb2 untrusted max pdu' (budget.c).
 */
/* Partial PDU timeout (G5): the rest of a PDU must follow in this time. */
#define SMBD_PDU_TIMEOUT_SECS 30
/* Unauthenticated connection timeout (G5): 'smb2 untrusted timeout' */
/* Requests in processing before we stop reading the socket. */
#define SMBD_MAX_INFLIGHT 512

/* Bytes of responses waiting to be sent before the client is throttled */
#define SMBD_SENDQ_HIGH (32 * 1024 * 1024)
#define SMBD_SENDQ_LOW (16 * 1024 * 1024)
/* ... or this many responses (each holds its compound's memory) */
#define SMBD_SENDQ_MAX_ENTRIES 64

struct smbd_splice;

/*
 * What the transport hands up, to whoever started it (server/conn.c wires
 * the pipeline in): the transport is the lowest layer of source3/smbd and
 * calls nothing above it by name (docs/architecture.md).
 */
struct smbd_transport_ops {
	/*
	 * Each received PDU: buf is kept alive by the talloc chunk owner
	 * (buf itself, or a reference to a receive buffer that PDUs share),
	 * which the callee owns now.
	 */
	void (*got_pdu)(struct smbd_conn *conn, void *owner, uint8_t *buf,
			size_t len);
	/*
	 * A lone WRITE whose len-byte head (header + fixed body) is in buf
	 * and whose payload bytes wait in the pipes of sp (splice write
	 * mode).
	 */
	void (*got_spliced_write)(struct smbd_conn *conn, uint8_t *buf,
				  size_t len, struct smbd_splice *sp,
				  size_t payload);
	/* The send queue drained below its low mark. */
	void (*drained)(struct smbd_conn *conn);
};

int smbd_transport_start(struct smbd_conn *conn,
			 const struct smbd_transport_ops *ops);

/*
 * Ends the connection: no more I/O from now on, and its memory (with
 * every session, open and request on it) goes once the stack unwinds.
 * Any layer may call it; reason is logged at level 3.
 */
void smbd_conn_terminate(struct smbd_conn *conn, const char *reason);
/*
 * The largest PDU accepted now: grows when the connection is trusted,
 * shrinks back when it is not any more (budget.c).
 */
void smbd_transport_set_max_pdu(struct smbd_conn *conn, size_t max);
/* Flow control: stop/resume reading the socket. */
void smbd_transport_pause(struct smbd_conn *conn, bool pause);

/* True while the send queue is over SMBD_SENDQ_HIGH. */
bool smbd_transport_congested(struct smbd_conn *conn);

/* True while a send is in flight (the peer has not taken it all yet). */
bool smbd_transport_sending(struct smbd_conn *conn);

/*
 * Queue one response (NBT header added here).  The iovec array is copied;
 * the memory it points to must be children of owner, which is moved under
 * the transport and freed once the bytes are sent.
 */
int smbd_transport_send(struct smbd_conn *conn, const struct iovec *iov,
			int iovcnt, void *owner);

/*
 * The same, sent with IORING_OP_SENDMSG_ZC ("smb2 read mode = zerocopy"):
 * the kernel sends from the response's pages instead of copying them.
 */
int smbd_transport_send_zc(struct smbd_conn *conn, const struct iovec *iov,
			   int iovcnt, void *owner);

/*
 * Queue a response whose last len payload bytes wait in the pipes of sp
 * (splice read mode): the iovec, then the pipes' bytes, in one NBT frame.
 * sp must be a child of owner; its pipes go back to the connection's pool
 * once sent.
 */
int smbd_transport_send_splice(struct smbd_conn *conn, const struct iovec *iov,
			       int iovcnt, void *owner, struct smbd_splice *sp,
			       size_t len);

#endif
