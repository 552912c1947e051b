/*
 * conn.c's synchronous request helpers, for setup.c and engine.c.
 */
#ifndef RINGSMB_SMB2BENCH_CONN_H
#define RINGSMB_SMB2BENCH_CONN_H

#include "source3/utils/smb2bench/smb2bench.h"

/* CreditRequest of every setup request: enough for the engine's start. */
#define CONN_SETUP_CREDITS 256

/*
 * Send one request (req: 64-byte header with Command set, then body):
 * header filled, signed or (seal and an encrypting session) encrypted.
 */
int smb2_conn_send(struct smb2_conn *c, uint16_t charge, uint16_t ask,
		   uint8_t *req, size_t req_len, bool seal);
/* The final response to mid, opened (decrypted, signature checked). */
int smb2_conn_recv(struct smb2_conn *c, TALLOC_CTX *mem_ctx, uint64_t mid,
		   uint8_t **frame, uint8_t **rsp, size_t *rsp_len);
/* Whole iovec on the blocking socket. */
int smb2_conn_send_all(struct smb2_conn *c, struct iovec *iov, int iovcnt);
/*
 * One request/response; pdu is carved from the response (on mem_ctx).
 * Returns the response's status, or an error with c->err set.
 */
NTSTATUS smb2_conn_call(struct smb2_conn *c, TALLOC_CTX *mem_ctx,
			uint16_t cmd, const uint8_t *body, size_t body_len,
			struct smb2_pdu *pdu);

/* One request of a compound: its command and body. */
struct smb2_conn_req {
	uint16_t cmd;
	const uint8_t *body;
	size_t body_len;
};

/*
 * A related compound (MS-SMB2 3.2.4.1.4): the n requests in one frame,
 * the second and later marked related (give them FileId all 0xFF to
 * mean the CREATE's), signed one by one or sealed together.  pdus[i] is
 * request i's final response, carved (on mem_ctx), whether the server
 * answered in one frame or several.  Returns the first error status
 * among them, or an error with c->err set.
 */
NTSTATUS smb2_conn_compound(struct smb2_conn *c, TALLOC_CTX *mem_ctx,
			    const struct smb2_conn_req *reqs, size_t n,
			    struct smb2_pdu *pdus);

#endif
