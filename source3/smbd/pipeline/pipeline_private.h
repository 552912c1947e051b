/*
 * Inside the request pipeline: the compound being processed and the
 * per-connection queue, shared by pipeline.c (synchronous processing,
 * response assembly) and pipeline_async.c (interim responses, requests
 * that finish later, CANCEL).
 */
#ifndef RINGSMB_SMBD_PIPELINE_PRIVATE_H
#define RINGSMB_SMBD_PIPELINE_PRIVATE_H

#include <time.h>
#include "source3/smbd/pipeline/dispatch.h"
#include "source3/smbd/pipeline/pipeline.h"
#include "source3/smbd/session/signing.h"

#define SMBD_MAX_QUEUED 64
/*
 * Lone READs and WRITEs that may run side by side (pipeline.c): at most
 * this many, the READs asking for at most this many bytes together (the
 * first always runs).
 */
#define SMBD_MAX_PARALLEL_READS 32
#define SMBD_MAX_PARALLEL_READ_BYTES (8 * 1024 * 1024)
/* Requests one connection may have waiting async (blocking locks ...) */
#define SMBD_MAX_ASYNC 512
/* Room for a compound's response, below the 16 MiB NBT frame limit. */
#define SMBD_MAX_COMPOUND_RSP (12 * 1024 * 1024)
/*
 * Response bytes a connection may have on the crypto pool
 * (pipeline_crypto.c) before it starts no more requests, as the transport
 * does for its send queue.
 */
#define SMBD_MAX_SEALING_BYTES (32 * 1024 * 1024)

/* Where one response element sits in out[], and how to sign it. */
struct smbd_elem_out {
	int hdr_idx;
	int iovcnt;
	bool sign;
	uint8_t key[16];
	uint16_t sign_dialect, sign_alg;        /* normally the connection's */
};

/* response iovecs a compound carries in itself (a lone READ needs 3) */
#define SMBD_OUT_INLINE_IOV 6

struct smbd_compound {
	struct smbd_compound *prev, *next;
	struct smbd_conn *conn;
	void *owner;                    /* keeps the received bytes alive */
	uint8_t *buf;                   /* the received bytes (len of them) */
	size_t len;
	struct smb2_pdu *pdus;
	size_t count;
	size_t cur;
	/* state passed along RELATED_OPERATIONS elements */
	uint64_t session_id;
	uint32_t tree_id;
	uint64_t file_persistent, file_volatile;
	bool have_file;
	bool have_session;              /* the previous element had them */
	bool have_tcon;
	NTSTATUS related_status;
	/* the response being assembled: out_inline, or its own array */
	struct iovec *out;
	int outcnt;
	struct iovec out_inline[SMBD_OUT_INLINE_IOV];
	size_t last_hdr;                /* out[] index of the last header */
	size_t last_len;                /* bytes of the last element */
	size_t out_bytes;               /* output promised so far */
	/* a READ's payload in pipes, after out (splice mode), or NULL */
	struct smbd_splice *splice;
	/* a spliced WRITE's payload, in pipes (transport.c), or NULL */
	struct smbd_splice *in_splice;
	size_t in_splice_payload;       /* its bytes in the pipes */
	bool zerocopy;                  /* a payload to send SENDMSG_ZC */
	bool payload_ro;                /* a payload in read-only memory */
	size_t splice_len;
	struct smbd_request *req;
	struct tevent_req *subreq;      /* the running command */
	bool running;                   /* from element_start to its end */
	bool started;                   /* compound_next called for it */
	bool queued;                    /* on pipeline->queue */
	/*
	 * A pool thread decrypts or verifies buf (pipeline_crypto.c): the
	 * compound is queued in arrival order but is not carved (decrypt)
	 * or not checked yet, so neither it nor anything behind it starts.
	 */
	bool crypto_busy;
	struct smbd_sig_pre sig_pre;    /* a lone PDU's signature, checked */
	const struct smbd_cmd *cmd;
	struct smbd_elem_out *elems;    /* one per response element */
	struct smbd_elem_out elem_inline; /* elems of a lone PDU */
	int num_elems;
	bool cur_sign;                  /* the current element's signing */
	uint8_t cur_key[16];
	uint16_t cur_dialect, cur_alg;  /* how cur_key signs */
	struct timespec cur_start;      /* when the current element began */
	/* set when the request came in a TRANSFORM: so goes the response */
	struct smbd_crypto *crypto;
	uint64_t crypto_session_id;
};

struct smbd_pipeline {
	struct smbd_conn *conn;
	struct smbd_credits *credits;
	/*
	 * In arrival order.  The head runs; behind it, lone READs may run
	 * too while everything ahead of them is a running lone READ.
	 */
	struct smbd_compound *queue;
	size_t queued;
	bool starting;                  /* pipeline_start_next is running */
	struct smbd_async *pending;     /* went async (pipeline_async.c) */
	/* the head compound waits for other channels (channel_wait) */
	bool channel_wait;
	struct tevent_immediate *resume;
	size_t num_pending;
	uint64_t next_async_id;
	size_t sealing_bytes;           /* responses on the crypto pool */
};

/* pipeline.c */
/*
 * The response header for the current element of c; async_id != 0 gives
 * the async form (interim responses).
 */
uint8_t *smbd_pipeline_hdr(struct smbd_compound *c, NTSTATUS status,
			   uint16_t credits, uint64_t async_id);
/*
 * A compound of two or more: the last response padded to 8 bytes as
 * the others are (no NextCommand).  false: no memory.
 */
bool smbd_pipeline_pad_last(struct smbd_compound *c);
/*
 * One answered request in the server's counters (struct smbd_stats):
 * its command, outcome, duration since start, payload and credits.
 * pdu (for a WRITE's length) may be NULL.
 */
void smbd_pipeline_count(struct smbd_conn *conn, uint16_t cmd,
			 const struct smb2_pdu *pdu, NTSTATUS status,
			 const struct smbd_response *rsp,
			 const struct timespec *start, uint16_t credits);
/* Appends the current element's response (header from smbd_pipeline_hdr) */
void smbd_pipeline_append(struct smbd_compound *c, uint8_t *hdr,
			  NTSTATUS status, struct smbd_response *rsp);

/* Runs c's elements from c->cur on (pipeline.c). */
void smbd_compound_next(struct smbd_compound *c);
/*
 * Carves c's (plain) message and queues c if it is not queued yet; false
 * when c was dropped: a CANCEL (handled), or a malformed message (the
 * connection ends).
 */
bool smbd_compound_parse(struct smbd_compound *c, uint8_t *msg, size_t len);

/* pipeline_sched.c */
/* Takes c off the queue, if it is on it (and frees it: _drop). */
void smbd_compound_unqueue(struct smbd_compound *c);
void smbd_compound_drop(struct smbd_compound *c);
void smbd_compound_enqueue(struct smbd_compound *c);

/* pipeline_crypto.c */
/*
 * A large TRANSFORM message: decrypted on the pool, c queued meanwhile
 * (false: not offloaded, decrypt inline).
 */
bool smbd_crypto_rx_decrypt(struct smbd_compound *c);
/* A large signed lone PDU: its signature is checked on the pool. */
bool smbd_crypto_rx_verify(struct smbd_compound *c);
/*
 * Signs each element of iov that elems asks to (or, crypto set, encrypts
 * the whole) and queues it on the transport, which takes owner (holding
 * every buffer of iov).  Large responses go to the pool first.
 * payload_ro: some of iov is read-only (a mapped READ's payload), so an
 * encryption writes the ciphertext to a buffer of its own, and that is
 * what is sent.
 */
void smbd_crypto_send(struct smbd_conn *conn, void *owner,
		      struct iovec *iov, int iovcnt,
		      const struct smbd_elem_out *elems, int num_elems,
		      struct smbd_crypto *crypto, uint64_t crypto_session_id,
		      bool zerocopy, bool payload_ro);

/* pipeline_sched.c: starts every queued compound that may start now. */
void smbd_pipeline_start_next(struct smbd_pipeline *p);

/* pipeline_async.c */
/*
 * The current element (the compound's last) asked to go async: answer
 * STATUS_PENDING now and finish it later on its own.  False: not
 * possible (the caller completes it synchronously).
 */
bool smbd_async_start(struct smbd_compound *c, struct tevent_req *subreq,
		      uint16_t credits);
/* A CANCEL request (MS-SMB2 3.3.5.16); handled on arrival, no response. */
void smbd_async_cancel(struct smbd_conn *conn, const struct smb2_pdu *pdu);

#endif
