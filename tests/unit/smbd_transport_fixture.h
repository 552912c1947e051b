/*
 * The transport (source3/smbd/transport, libringsmb-smbd-transport)
 * driven alone over a socketpair (issue 12): the test holds the client
 * end, writes NBT-framed PDUs to it, and a struct smbd_transport_ops of
 * its own records what the transport hands up.  Every case runs twice,
 * on the io_uring ring and on the plain-socket fallback.
 *
 * Linked against the transport's library and the libraries below it,
 * never the pipeline or the server: the transport must know its users
 * only through the ops table it is started with.
 */
#ifndef RINGSMB_TESTS_SMBD_TRANSPORT_FIXTURE_H
#define RINGSMB_TESTS_SMBD_TRANSPORT_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <tevent.h>
#include "tests/unit/unit.h"
#include "lib/param/param.h"
#include "lib/smb2/smb2.h"
#include "lib/uring/uring.h"
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/transport/rxmem.h"
#include "source3/smbd/transport/splice_pipe.h"
#include "source3/smbd/transport/transport.h"

/* the default 'smb2 untrusted max pdu' */
#define MAX_PDU 69632
#define MAX_PDUS 128
#define MAX_CONNS 2

/* What got_pdu was given: which connection, the bytes, by reference? */
struct pdu_rec {
	int conn;
	size_t len;
	uint8_t *bytes;
	bool by_ref;                    /* owner is not buf (shared rbuf) */
	bool congested;                 /* the send queue was, then */
};

struct tconn {
	struct tx *tx;
	struct smbd_conn *conn;         /* NULL once freed */
	int peer;                       /* the client's end */
	bool terminating_at_free;
};

struct tx {
	TALLOC_CTX *ctx;
	struct tevent_context *ev;
	struct smbd_server *server;
	struct tconn c[MAX_CONNS];
	size_t num_conns;
	struct pdu_rec pdus[MAX_PDUS];
	size_t num_pdus;
	/* what the callbacks do, for the "inside a callback" cases */
	size_t terminate_at;            /* at this PDU (1-based), 0: never */
	size_t pause_at;
	unsigned drained;
	/* spliced WRITEs: head length, payload bytes read from the pipes */
	unsigned spliced;
	size_t spliced_head;
	uint8_t *spliced_payload;
	size_t spliced_len;
};

#define assert_status(x, s) \
	assert_string_equal(nt_errstr(x), nt_errstr(NT_STATUS_##s))

typedef bool (*tx_cond_fn)(struct tx *tx, const void *arg);
/*
 * Each case on the ring and on the plain fallback; the name says which.
 */
#define BOTH(f) \
	{ #f "(ring)", f, setup_ring, tx_teardown, NULL }, \
	{ #f "(plain)", f, setup_plain, tx_teardown, NULL }

/* ---- the ops table the transport is started with ---- */
int conn_index(struct tx *tx, struct smbd_conn *conn);
void rec_got_pdu(struct smbd_conn *conn, void *owner, uint8_t *buf,
		 size_t len);
void rec_spliced_write(struct smbd_conn *conn, uint8_t *buf,
		       size_t len, struct smbd_splice *sp,
		       size_t payload);
void rec_drained(struct smbd_conn *conn);
/* ---- the fixture ---- */
struct loadparm *load_conf(TALLOC_CTX *ctx, const char *global);
/*
 * What server/conn.c does when a connection goes: the transport first,
 * explicitly (its destructor still looks at the connection's splice
 * pipes, a newer child of the connection that talloc would free first),
 * then the socket.
 */
int conn_destructor(struct smbd_conn *conn);
struct tconn *tx_conn(struct tx *tx, bool start);
struct tx *tx_new(TALLOC_CTX *ctx, const char *global);
void tx_free(struct tx *tx);
int setup_ring(void **state);
int setup_plain(void **state);
int tx_teardown(void **state);
/* ---- driving the loop, bounded ---- */
void deadline_reached(struct tevent_context *ev,
		      struct tevent_timer *te, struct timeval now,
		      void *private_data);
/* Runs the loop until cond holds (NULL: never), for at most ms. */
bool pump_until(struct tx *tx, tx_cond_fn cond, const void *arg,
		unsigned ms);
void pump_for(struct tx *tx, unsigned ms);
bool have_pdus(struct tx *tx, const void *arg);
bool conn_gone(struct tx *tx, const void *arg);
/* The transport has taken everything written to its socket so far. */
bool socket_empty(struct tx *tx, const void *arg);
void wait_pdus(struct tx *tx, size_t n);
void wait_gone(struct tx *tx, struct tconn *c);
/* ---- the client's side ---- */

/* Writes all of buf, running the loop while the socket is full. */
void peer_write(struct tconn *c, const void *buf, size_t len);
/* Reads exactly len bytes, running the loop while none are there. */
void peer_read(struct tconn *c, void *buf, size_t len);
/* 0: EOF, 1: bytes, -1: nothing (yet) */
int peer_eof(struct tconn *c);
uint8_t pattern(size_t seed, size_t i);
/* An NBT frame: type, 24-bit length, then len bytes of pattern(seed) */
uint8_t *frame(TALLOC_CTX *ctx, uint8_t type, size_t len,
	       size_t seed);
void assert_pdu(const struct tx *tx, size_t i, int conn, size_t len,
		size_t seed);
void send_pdu(struct tconn *c, size_t len, size_t seed);

/* The ops table that records what the transport hands up. */
extern const struct smbd_transport_ops recording_ops;

#endif
