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

static bool use_ring;
static struct tx *current_tx;

#define assert_status(x, s) \
	assert_string_equal(nt_errstr(x), nt_errstr(NT_STATUS_##s))

/* ---- the ops table the transport is started with ---- */

static int conn_index(struct tx *tx, struct smbd_conn *conn)
{
	size_t i;

	for (i = 0; i < tx->num_conns; i++) {
		if (tx->c[i].conn == conn) {
			return (int)i;
		}
	}
	fail_msg("a callback for an unknown connection");
	return -1;
}

static void rec_got_pdu(struct smbd_conn *conn, void *owner, uint8_t *buf,
			size_t len)
{
	struct tx *tx = current_tx;
	struct pdu_rec *r = NULL;

	assert_true(tx->num_pdus < MAX_PDUS);
	assert_false(conn->terminating);
	r = &tx->pdus[tx->num_pdus++];
	r->conn = conn_index(tx, conn);
	r->len = len;
	r->bytes = talloc_memdup(tx, buf, len);
	assert_non_null(r->bytes);
	r->by_ref = owner != buf;
	r->congested = smbd_transport_congested(conn);
	talloc_free(owner);             /* the callee owns it */
	if (tx->num_pdus == tx->terminate_at) {
		smbd_conn_terminate(conn, "test: terminated in got_pdu");
	}
	if (tx->num_pdus == tx->pause_at) {
		smbd_transport_pause(conn, true);
	}
}

static void rec_spliced_write(struct smbd_conn *conn, uint8_t *buf,
			      size_t len, struct smbd_splice *sp,
			      size_t payload)
{
	struct tx *tx = current_tx;
	size_t got = 0;
	unsigned i;

	tx->spliced++;
	tx->spliced_head = len;
	tx->spliced_len = payload;
	tx->spliced_payload = talloc_size(tx, payload);
	assert_non_null(tx->spliced_payload);
	for (i = 0; i < sp->nsrc; i++) {
		size_t have = 0;

		while (have < sp->src[i].len) {
			ssize_t n = read(sp->src[i].pipe_rd,
					 tx->spliced_payload + got + have,
					 sp->src[i].len - have);

			assert_true(n > 0);
			have += (size_t)n;
		}
		got += have;
	}
	assert_int_equal(got, payload);
	smbd_splice_put(conn, sp);      /* emptied */
	talloc_free(buf);
}

static void rec_drained(struct smbd_conn *conn)
{
	current_tx->drained++;
}

static const struct smbd_transport_ops recording_ops = {
	.got_pdu = rec_got_pdu,
	.got_spliced_write = rec_spliced_write,
	.drained = rec_drained,
};

/* ---- the fixture ---- */

static struct loadparm *load_conf(TALLOC_CTX *ctx, const char *global)
{
	char *text = talloc_asprintf(ctx, "[global]\n%s", global);
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;

	assert_non_null(text);
	assert_int_equal(lp_load_buffer(ctx, "test.conf", text, strlen(text),
					&lp, &diags), 0);
	talloc_free(diags);
	talloc_free(text);
	return lp;
}

/*
 * What server/conn.c does when a connection goes: the transport first,
 * explicitly (its destructor still looks at the connection's splice
 * pipes, a newer child of the connection that talloc would free first),
 * then the socket.
 */
static int conn_destructor(struct smbd_conn *conn)
{
	struct tx *tx = current_tx;
	struct tconn *c = &tx->c[conn_index(tx, conn)];

	c->terminating_at_free = conn->terminating;
	TALLOC_FREE(conn->transport);
	close(conn->fd);
	c->conn = NULL;
	return 0;
}

static struct tconn *tx_conn(struct tx *tx, bool start)
{
	struct tconn *c = &tx->c[tx->num_conns];
	int sv[2];

	assert_true(tx->num_conns < MAX_CONNS);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
	assert_int_equal(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
	c->tx = tx;
	c->peer = sv[1];
	c->conn = talloc_zero(tx->server, struct smbd_conn);
	assert_non_null(c->conn);
	c->conn->server = tx->server;
	c->conn->fd = sv[0];
	snprintf(c->conn->peer, sizeof(c->conn->peer), "test:%zu",
		 tx->num_conns);
	snprintf(c->conn->addr, sizeof(c->conn->addr), "test");
	talloc_set_destructor(c->conn, conn_destructor);
	tx->num_conns++;
	if (start) {
		assert_int_equal(smbd_transport_start(c->conn,
						      &recording_ops), 0);
		assert_non_null(c->conn->transport);
	}
	return c;
}

static struct tx *tx_new(TALLOC_CTX *ctx, const char *global)
{
	struct tx *tx = talloc_zero(ctx, struct tx);

	assert_non_null(tx);
	assert_null(current_tx);
	current_tx = tx;
	tx->ctx = ctx;
	tx->ev = tevent_context_init(tx);
	assert_non_null(tx->ev);
	tx->server = talloc_zero(tx, struct smbd_server);
	assert_non_null(tx->server);
	tx->server->ev = tx->ev;
	tx->server->lp = load_conf(tx->server, global);
	if (use_ring) {
		tx->server->ring = uring_ev_get(tx->ev);
		if (tx->server->ring == NULL) {
			skip();         /* no io_uring here: not a pass */
		}
	} else {
		uring_ev_disable(tx->ev);
		assert_null(uring_ev_get(tx->ev));
	}
	return tx;
}

static void tx_free(struct tx *tx)
{
	size_t i;

	for (i = 0; i < tx->num_conns; i++) {
		talloc_free(tx->c[i].conn);     /* NULL: gone already */
		close(tx->c[i].peer);
	}
	talloc_free(tx->server);
	talloc_free(tx);                /* the ring goes with ev */
	current_tx = NULL;
}

static int setup_ring(void **state)
{
	use_ring = true;
	return unit_setup(state);
}

static int setup_plain(void **state)
{
	use_ring = false;
	return unit_setup(state);
}

static int tx_teardown(void **state)
{
	if (current_tx != NULL) {
		tx_free(current_tx);    /* the test failed half-way */
	}
	return unit_teardown(state);
}

/* ---- driving the loop, bounded ---- */

static void deadline_reached(struct tevent_context *ev,
			     struct tevent_timer *te, struct timeval now,
			     void *private_data)
{
	*(bool *)private_data = true;
}

typedef bool (*tx_cond_fn)(struct tx *tx, const void *arg);

/* Runs the loop until cond holds (NULL: never), for at most ms. */
static bool pump_until(struct tx *tx, tx_cond_fn cond, const void *arg,
		       unsigned ms)
{
	bool expired = false;
	struct tevent_timer *te = tevent_add_timer(
		tx->ev, tx, tevent_timeval_current_ofs(ms / 1000,
						       (ms % 1000) * 1000),
		deadline_reached, &expired);
	bool met = false;
	int i;

	assert_non_null(te);
	for (i = 0; i < 100000 && !expired; i++) {
		met = cond != NULL && cond(tx, arg);
		if (met) {
			break;
		}
		assert_int_equal(tevent_loop_once(tx->ev), 0);
	}
	if (!expired) {
		talloc_free(te);
	}
	return met || (cond != NULL && cond(tx, arg));
}

static void pump_for(struct tx *tx, unsigned ms)
{
	pump_until(tx, NULL, NULL, ms);
}

static bool have_pdus(struct tx *tx, const void *arg)
{
	return tx->num_pdus >= *(const size_t *)arg;
}

static bool conn_gone(struct tx *tx, const void *arg)
{
	return ((const struct tconn *)arg)->conn == NULL;
}

/* The transport has taken everything written to its socket so far. */
static bool socket_empty(struct tx *tx, const void *arg)
{
	const struct tconn *c = arg;
	int n = -1;

	return c->conn != NULL && ioctl(c->conn->fd, FIONREAD, &n) == 0 &&
	       n == 0;
}

static void wait_pdus(struct tx *tx, size_t n)
{
	if (!pump_until(tx, have_pdus, &n, 5000)) {
		fail_msg("%zu PDUs handed up, want %zu", tx->num_pdus, n);
	}
}

static void wait_gone(struct tx *tx, struct tconn *c)
{
	if (!pump_until(tx, conn_gone, c, 5000)) {
		fail_msg("the connection was not ended");
	}
	assert_true(c->terminating_at_free);
}

/* ---- the client's side ---- */

/* Writes all of buf, running the loop while the socket is full. */
static void peer_write(struct tconn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	int spins = 0;

	while (len > 0) {
		ssize_t n = write(c->peer, p, len);

		if (n < 0 && errno == EAGAIN) {
			assert_true(++spins < 10000);
			pump_for(c->tx, 2);
			continue;
		}
		assert_true(n > 0);
		p += n;
		len -= (size_t)n;
	}
}

/* Reads exactly len bytes, running the loop while none are there. */
static void peer_read(struct tconn *c, void *buf, size_t len)
{
	uint8_t *p = buf;
	int spins = 0;

	while (len > 0) {
		ssize_t n = read(c->peer, p, len);

		if (n < 0 && errno == EAGAIN) {
			assert_true(++spins < 10000);
			pump_for(c->tx, 2);
			continue;
		}
		assert_true(n > 0);
		p += n;
		len -= (size_t)n;
	}
}

/* 0: EOF, 1: bytes, -1: nothing (yet) */
static int peer_eof(struct tconn *c)
{
	uint8_t b;
	ssize_t n = read(c->peer, &b, 1);

	return n == 0 ? 0 : n > 0 ? 1 : -1;
}

static uint8_t pattern(size_t seed, size_t i)
{
	return (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* An NBT frame: type, 24-bit length, then len bytes of pattern(seed) */
static uint8_t *frame(TALLOC_CTX *ctx, uint8_t type, size_t len,
		      size_t seed)
{
	uint8_t *f = talloc_size(ctx, len + 4);
	size_t i;

	assert_non_null(f);
	push_be32(f, (uint32_t)len);
	f[0] = type;
	for (i = 0; i < len; i++) {
		f[4 + i] = pattern(seed, i);
	}
	return f;
}

static void assert_pdu(const struct tx *tx, size_t i, int conn, size_t len,
		       size_t seed)
{
	const struct pdu_rec *r = &tx->pdus[i];
	size_t k;

	assert_true(i < tx->num_pdus);
	assert_int_equal(r->conn, conn);
	assert_int_equal(r->len, len);
	for (k = 0; k < len; k++) {
		if (r->bytes[k] != pattern(seed, k)) {
			fail_msg("PDU %zu: byte %zu is %02x, want %02x", i, k,
				 r->bytes[k], pattern(seed, k));
		}
	}
}

static void send_pdu(struct tconn *c, size_t len, size_t seed)
{
	uint8_t *f = frame(c->tx, 0x00, len, seed);

	peer_write(c, f, len + 4);
	talloc_free(f);
}

/* ---- receiving ---- */

static void test_transport__whole(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);

	send_pdu(c, 64, 1);
	wait_pdus(tx, 1);
	assert_pdu(tx, 0, 0, 64, 1);
	assert_false(tx->pdus[0].by_ref);
	pump_for(tx, 20);
	assert_int_equal(tx->num_pdus, 1);
	assert_non_null(c->conn);
	assert_false(c->conn->terminating);
	tx_free(tx);
}

/* Every byte in a receive of its own: one PDU, after its last byte. */
static void test_transport__byte_by_byte(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	uint8_t *f = frame(tx, 0x00, 100, 2);
	size_t i;

	for (i = 0; i < 104; i++) {
		peer_write(c, f + i, 1);
		if (!pump_until(tx, socket_empty, c, 2000)) {
			fail_msg("byte %zu was not received", i);
		}
		if (i < 103) {
			assert_int_equal(tx->num_pdus, 0);
		}
	}
	wait_pdus(tx, 1);
	assert_pdu(tx, 0, 0, 100, 2);
	pump_for(tx, 20);
	assert_int_equal(tx->num_pdus, 1);
	tx_free(tx);
}

/* Several frames and keepalives in one write: each PDU, in order. */
static void test_transport__several_in_one_write(void **state)
{
	static const size_t lens[] = { 32, 100, 1000, 65536 };
	static const uint8_t keepalive[4] = { 0x85, 0, 0, 0 };
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	uint8_t *buf = talloc_size(tx, 70000);
	size_t off = 0, i;

	assert_non_null(buf);
	for (i = 0; i < 4; i++) {
		uint8_t *f = frame(tx, 0x00, lens[i], 10 + i);

		memcpy(buf + off, f, lens[i] + 4);
		off += lens[i] + 4;
		talloc_free(f);
		if (i % 2 == 0) {
			memcpy(buf + off, keepalive, 4);
			off += 4;
		}
	}
	peer_write(c, buf, off);
	wait_pdus(tx, 4);
	for (i = 0; i < 4; i++) {
		assert_pdu(tx, i, 0, lens[i], 10 + i);
	}
	pump_for(tx, 20);
	assert_int_equal(tx->num_pdus, 4);
	assert_false(c->conn->terminating);
	tx_free(tx);
}

/* A keepalive is taken and dropped; one that carries bytes is refused. */
static void test_transport__keepalive(void **state)
{
	static const uint8_t keepalive[4] = { 0x85, 0, 0, 0 };
	static const uint8_t bad[5] = { 0x85, 0, 0, 1, 0 };
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);

	peer_write(c, keepalive, 4);
	assert_true(pump_until(tx, socket_empty, c, 2000));
	pump_for(tx, 20);
	assert_int_equal(tx->num_pdus, 0);
	assert_non_null(c->conn);
	send_pdu(c, 40, 3);
	wait_pdus(tx, 1);
	assert_pdu(tx, 0, 0, 40, 3);
	peer_write(c, bad, sizeof(bad));
	wait_gone(tx, c);
	assert_int_equal(tx->num_pdus, 1);
	tx_free(tx);
}

/* The largest PDU allowed, larger than the read-ahead: whole and intact */
static void test_transport__max_pdu(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);

	send_pdu(c, MAX_PDU, 4);
	wait_pdus(tx, 1);
	assert_pdu(tx, 0, 0, MAX_PDU, 4);
	assert_false(tx->pdus[0].by_ref);
	assert_false(c->conn->terminating);
	tx_free(tx);
}

/*
 * One byte over the limit ends the connection at the header: nothing
 * is handed up, nothing is read of the body, the client sees EOF.
 */
static void test_transport__over_limit(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	uint8_t hdr[4];

	push_be32(hdr, MAX_PDU + 1);
	peer_write(c, hdr, 4);
	wait_gone(tx, c);
	assert_int_equal(tx->num_pdus, 0);
	assert_int_equal(peer_eof(c), 0);
	tx_free(tx);
}

/* Raising the limit (a trusted connection) lets the same length in. */
static void test_transport__limit_raised(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);

	smbd_transport_set_max_pdu(c->conn, MAX_PDU + 1);
	send_pdu(c, MAX_PDU + 1, 5);
	wait_pdus(tx, 1);
	assert_pdu(tx, 0, 0, MAX_PDU + 1, 5);
	smbd_transport_set_max_pdu(c->conn, MAX_PDU);
	send_pdu(c, MAX_PDU + 1, 5);
	wait_gone(tx, c);
	assert_int_equal(tx->num_pdus, 1);
	tx_free(tx);
}

/* Shorter than an SMB2 header: refused. */
static void test_transport__too_short(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);

	send_pdu(c, 32, 6);
	wait_pdus(tx, 1);
	send_pdu(c, 31, 7);
	wait_gone(tx, c);
	assert_int_equal(tx->num_pdus, 1);
	assert_pdu(tx, 0, 0, 32, 6);
	tx_free(tx);
}

/* A frame type other than a session message: the PDU before it counts */
static void test_transport__bad_type(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	uint8_t buf[44 + 4 + 40];
	uint8_t *good = frame(tx, 0x00, 40, 8);
	uint8_t *bad = frame(tx, 0x01, 40, 9);

	memcpy(buf, good, 44);
	memcpy(buf + 44, bad, 44);
	peer_write(c, buf, 88);
	wait_gone(tx, c);
	assert_int_equal(tx->num_pdus, 1);
	assert_pdu(tx, 0, 0, 40, 8);
	assert_int_equal(peer_eof(c), 0);
	tx_free(tx);
}

static uint8_t *nbt_session_request(TALLOC_CTX *ctx, char letter)
{
	uint8_t *f = talloc_zero_size(ctx, 4 + 68);
	size_t n, i;

	assert_non_null(f);
	f[0] = 0x81;
	f[3] = 68;
	for (n = 0; n < 2; n++) {
		uint8_t *name = f + 4 + n * 34;

		name[0] = 0x20;
		for (i = 1; i <= 32; i++) {
			name[i] = (uint8_t)(i % 2 ? letter : 'A');
		}
		name[33] = 0;
	}
	return f;
}

/*
 * A NetBIOS session request (port 139 habits) is answered once with a
 * positive response; PDUs follow as usual; a second one is refused.
 */
static void test_transport__nbt_session_request(void **state)
{
	static const uint8_t positive[4] = { 0x82, 0, 0, 0 };
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	uint8_t *req = nbt_session_request(tx, 'P');
	uint8_t rsp[4];

	peer_write(c, req, 72);
	peer_read(c, rsp, 4);
	assert_memory_equal(rsp, positive, 4);
	assert_int_equal(tx->num_pdus, 0);
	send_pdu(c, 50, 11);
	wait_pdus(tx, 1);
	assert_pdu(tx, 0, 0, 50, 11);
	peer_write(c, req, 72);
	wait_gone(tx, c);
	assert_int_equal(tx->num_pdus, 1);
	tx_free(tx);
}

static void test_transport__nbt_session_request_bad(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	uint8_t *req = nbt_session_request(tx, 'Z');    /* not A..P */

	peer_write(c, req, 72);
	wait_gone(tx, c);
	assert_int_equal(tx->num_pdus, 0);
	assert_int_equal(peer_eof(c), 0);      /* no positive response */
	tx_free(tx);
}

static void three_pdus(struct tconn *c)
{
	uint8_t *buf = talloc_size(c->tx, 3 * (4 + 48));
	size_t i;

	assert_non_null(buf);
	for (i = 0; i < 3; i++) {
		uint8_t *f = frame(buf, 0x00, 48, 20 + i);

		memcpy(buf + i * 52, f, 52);
	}
	peer_write(c, buf, 3 * 52);
	talloc_free(buf);
}

/* Ended inside got_pdu: the PDUs behind it in the buffer are not handed */
static void test_transport__terminate_in_callback(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);

	tx->terminate_at = 1;
	three_pdus(c);
	wait_gone(tx, c);
	assert_int_equal(tx->num_pdus, 1);
	assert_pdu(tx, 0, 0, 48, 20);
	tx_free(tx);
}

/* Paused inside got_pdu (the pipeline's queue is full), then resumed */
static void test_transport__pause_in_callback(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);

	tx->pause_at = 1;
	three_pdus(c);
	wait_pdus(tx, 1);
	pump_for(tx, 50);
	assert_int_equal(tx->num_pdus, 1);
	smbd_transport_pause(c->conn, false);
	wait_pdus(tx, 3);
	assert_pdu(tx, 0, 0, 48, 20);
	assert_pdu(tx, 1, 0, 48, 21);
	assert_pdu(tx, 2, 0, 48, 22);
	tx_free(tx);
}

/* The client goes: between PDUs, and inside one. */
static void test_transport__peer_closes(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c1 = tx_conn(tx, true);
	struct tconn *c2 = tx_conn(tx, true);
	uint8_t *f = frame(tx, 0x00, 1000, 12);

	send_pdu(c1, 40, 13);
	wait_pdus(tx, 1);
	close(c1->peer);
	c1->peer = -1;
	wait_gone(tx, c1);
	peer_write(c2, f, 500);
	assert_true(pump_until(tx, socket_empty, c2, 2000));
	close(c2->peer);
	c2->peer = -1;
	wait_gone(tx, c2);
	assert_int_equal(tx->num_pdus, 1);
	tx_free(tx);
}

/*
 * A trusted connection receives large PDUs into shared buffers and hands
 * them up by reference; an untrusted one copies each into its own.
 */
static void test_transport__shared_buffers(void **state)
{
	const size_t len = 100 * 1024;
	struct tx *tx = tx_new(*state, "");
	struct tconn *u = tx_conn(tx, true);
	struct tconn *t = tx_conn(tx, true);
	uint8_t *buf = talloc_size(tx, 4 * (len + 4));
	size_t i;

	assert_non_null(buf);
	for (i = 0; i < 4; i++) {
		uint8_t *f = frame(buf, 0x00, len, 30 + i);

		memcpy(buf + i * (len + 4), f, len + 4);
	}
	t->conn->trusted = true;
	smbd_transport_set_max_pdu(t->conn, 1024 * 1024);
	smbd_transport_set_max_pdu(u->conn, 1024 * 1024);
	peer_write(t, buf, 4 * (len + 4));
	wait_pdus(tx, 4);
	peer_write(u, buf, 4 * (len + 4));
	wait_pdus(tx, 8);
	for (i = 0; i < 4; i++) {
		assert_pdu(tx, i, 1, len, 30 + i);
		assert_true(tx->pdus[i].by_ref);
		assert_pdu(tx, 4 + i, 0, len, 30 + i);
		assert_false(tx->pdus[4 + i].by_ref);
	}
	tx_free(tx);
}

/*
 * The server-wide receive budget: a connection that needs a buffer
 * while another holds the budget waits, without reading its socket,
 * and goes on once the other's PDU is complete.
 */
static void test_transport__receive_budget(void **state)
{
	const size_t len = 60000;
	struct tx *tx = tx_new(*state, "");
	struct tconn *a = NULL, *b = NULL;
	uint8_t *fa = frame(tx, 0x00, len, 40);
	uint8_t *fb = frame(tx, 0x00, len, 41);

	tx->server->rxmem = smbd_rxmem_new(tx->server, tx->ev, 100000);
	assert_non_null(tx->server->rxmem);
	a = tx_conn(tx, true);
	b = tx_conn(tx, true);
	peer_write(a, fa, 14);
	assert_true(pump_until(tx, socket_empty, a, 2000));
	assert_int_equal(smbd_rxmem_used(tx->server->rxmem), len);
	peer_write(b, fb, 14);
	assert_true(pump_until(tx, socket_empty, b, 2000));
	peer_write(b, fb + 14, len + 4 - 14);
	pump_for(tx, 100);
	assert_int_equal(tx->num_pdus, 0);
	assert_false(socket_empty(tx, b));      /* b waits: not read */
	assert_int_equal(smbd_rxmem_used(tx->server->rxmem), len);
	peer_write(a, fa + 14, len + 4 - 14);
	wait_pdus(tx, 2);
	assert_pdu(tx, 0, 0, len, 40);
	assert_pdu(tx, 1, 1, len, 41);
	assert_int_equal(smbd_rxmem_used(tx->server->rxmem), 0);
	tx_free(tx);
}

/* ---- sending ---- */

static int owner_destructor(bool **flag)
{
	**flag = true;
	return 0;
}

/* A talloc chunk of len bytes of pattern(seed) whose free is recorded */
static uint8_t *owned(TALLOC_CTX *ctx, size_t len, size_t seed, bool *freed)
{
	uint8_t *b = talloc_size(ctx, len);
	bool **flag = NULL;
	size_t i;

	assert_non_null(b);
	for (i = 0; i < len; i++) {
		b[i] = pattern(seed, i);
	}
	flag = talloc(b, bool *);
	assert_non_null(flag);
	*flag = freed;
	*freed = false;
	talloc_set_destructor(flag, owner_destructor);
	return b;
}

static bool flag_set(struct tx *tx, const void *arg)
{
	return *(const bool *)arg;
}

/* Reads one frame and checks it holds parts[0..n) one after the other */
static void read_frame(struct tconn *c, const struct iovec *parts, int n)
{
	uint8_t hdr[4];
	size_t total = 0, off = 0;
	uint8_t *buf = NULL;
	int i;

	for (i = 0; i < n; i++) {
		total += parts[i].iov_len;
	}
	peer_read(c, hdr, 4);
	assert_int_equal(hdr[0], 0x00);
	assert_int_equal(pull_be32(hdr) & 0xFFFFFF, total);
	buf = talloc_size(c->tx, total);
	assert_non_null(buf);
	peer_read(c, buf, total);
	for (i = 0; i < n; i++) {
		assert_memory_equal(buf + off, parts[i].iov_base,
				    parts[i].iov_len);
		off += parts[i].iov_len;
	}
	talloc_free(buf);
}

/* An iovec of three parts arrives as one frame; its owner is freed. */
static void test_transport__send(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	bool freed = false;
	uint8_t *owner = owned(tx, 3030, 50, &freed);
	struct iovec iov[3] = {
		{ owner, 10 }, { owner + 10, 20 }, { owner + 30, 3000 },
	};
	struct iovec copy[3];

	/* the check reads a copy: the owner is gone once the bytes are */
	memcpy(copy, iov, sizeof(iov));
	copy[0].iov_base = talloc_memdup(tx, owner, 3030);
	copy[1].iov_base = (uint8_t *)copy[0].iov_base + 10;
	copy[2].iov_base = (uint8_t *)copy[0].iov_base + 30;
	assert_int_equal(smbd_transport_send(c->conn, iov, 3, owner), 0);
	read_frame(c, copy, 3);
	assert_true(pump_until(tx, flag_set, &freed, 2000));
	assert_false(smbd_transport_sending(c->conn));
	assert_int_equal(tx->num_pdus, 0);
	tx_free(tx);
}

/* Sends queued back to back arrive in order, each in its own frame. */
static void test_transport__send_order(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	bool freed[5];
	struct iovec copy[5];
	size_t i;

	for (i = 0; i < 5; i++) {
		size_t len = 100 * (i + 1);
		uint8_t *o = owned(tx, len, 60 + i, &freed[i]);
		struct iovec iov = { o, len };

		copy[i] = (struct iovec){ talloc_memdup(tx, o, len), len };
		assert_int_equal(smbd_transport_send(c->conn, &iov, 1, o), 0);
	}
	for (i = 0; i < 5; i++) {
		read_frame(c, &copy[i], 1);
	}
	for (i = 0; i < 5; i++) {
		assert_true(pump_until(tx, flag_set, &freed[i], 2000));
	}
	tx_free(tx);
}

/* More than a socket buffer holds: sent while the client reads. */
static void test_transport__send_large(void **state)
{
	const size_t len = 2 * 1024 * 1024;
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	bool freed = false;
	uint8_t *o = owned(tx, len, 70, &freed);
	struct iovec iov[2] = { { o, 64 }, { o + 64, len - 64 } };
	struct iovec copy = { talloc_memdup(tx, o, len), len };

	assert_non_null(copy.iov_base);
	assert_int_equal(smbd_transport_send(c->conn, iov, 2, o), 0);
	read_frame(c, &copy, 1);
	assert_true(pump_until(tx, flag_set, &freed, 2000));
	tx_free(tx);
}

/* Nothing is queued on a connection that is ending; the owner goes. */
static void test_transport__send_after_terminate(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	bool freed = false;
	uint8_t *o = owned(tx, 100, 80, &freed);
	struct iovec iov = { o, 100 };

	smbd_conn_terminate(c->conn, "test");
	assert_true(c->conn->terminating);
	assert_int_equal(smbd_transport_send(c->conn, &iov, 1, o), -1);
	assert_true(freed);
	wait_gone(tx, c);
	assert_int_equal(peer_eof(c), 0);
	tx_free(tx);
}

/*
 * Flow control: more responses queued than SMBD_SENDQ_MAX_ENTRIES make
 * the connection congested, and nothing more is received until the
 * queue drains (the drained op is called then).
 */
static void test_transport__congestion(void **state)
{
	struct tx *tx = tx_new(*state, "");
	struct tconn *c = tx_conn(tx, true);
	const size_t n = SMBD_SENDQ_MAX_ENTRIES + 6;
	struct iovec copy[SMBD_SENDQ_MAX_ENTRIES + 6];
	bool freed[SMBD_SENDQ_MAX_ENTRIES + 6];
	size_t i;

	send_pdu(c, 40, 90);            /* not yet received: no loop ran */
	for (i = 0; i < n; i++) {
		uint8_t *o = owned(tx, 16, 100 + i, &freed[i]);
		struct iovec iov = { o, 16 };

		copy[i] = (struct iovec){ talloc_memdup(tx, o, 16), 16 };
		assert_int_equal(smbd_transport_send(c->conn, &iov, 1, o), 0);
	}
	assert_true(smbd_transport_congested(c->conn));
	assert_int_equal(tx->drained, 0);
	for (i = 0; i < n; i++) {
		read_frame(c, &copy[i], 1);
	}
	wait_pdus(tx, 1);
	assert_pdu(tx, 0, 0, 40, 90);
	assert_true(tx->drained >= 1);
	assert_false(tx->pdus[0].congested);    /* not before the drain */
	assert_false(smbd_transport_congested(c->conn));
	tx_free(tx);
}

/* ---- the splice write mode (needs the ring) ---- */

/* A WRITE request's first 112 bytes: header and fixed body */
static void write_head(uint8_t *h, size_t payload, uint32_t flags)
{
	memset(h, 0, 112);
	push_le32(h, 0x424D53FE);
	push_le16(h + 4, 64);
	push_le16(h + SMB2_HDR_OFS_COMMAND, SMB2_OP_WRITE);
	push_le32(h + SMB2_HDR_OFS_FLAGS, flags);
	push_le16(h + 64, SMB2_WRITE_REQ_SIZE);
	push_le16(h + 66, 112);                 /* DataOffset */
	push_le32(h + 68, (uint32_t)payload);   /* Length */
}

static uint8_t *write_frame(TALLOC_CTX *ctx, size_t payload, uint32_t flags,
			    size_t seed)
{
	uint8_t *f = frame(ctx, 0x00, 112 + payload, 0);
	size_t i;

	write_head(f + 4, payload, flags);
	for (i = 0; i < payload; i++) {
		f[4 + 112 + i] = pattern(seed, i);
	}
	return f;
}

static bool spliced_one(struct tx *tx, const void *arg)
{
	return tx->spliced > 0;
}

static void test_transport__splice_write(void **state)
{
	const size_t payload = 16 * 1024;
	struct tx *tx = tx_new(*state, "  smb2 write mode = splice\n"
				       "  min splice size = 4096\n");
	struct tconn *c = tx_conn(tx, false);
	uint8_t *w = write_frame(tx, payload, 0, 120);
	uint8_t *signed_w = write_frame(tx, payload, SMB2_FLAGS_SIGNED, 121);
	size_t i;

	c->conn->dialect = 0x0311;
	c->conn->max_read = 65536;
	assert_int_equal(smbd_transport_start(c->conn, &recording_ops), 0);
	peer_write(c, w, payload + 116);
	assert_true(pump_until(tx, spliced_one, NULL, 5000));
	assert_int_equal(tx->spliced, 1);
	assert_int_equal(tx->spliced_head, 112);
	assert_int_equal(tx->spliced_len, payload);
	for (i = 0; i < payload; i++) {
		if (tx->spliced_payload[i] != pattern(120, i)) {
			fail_msg("payload byte %zu differs", i);
		}
	}
	assert_int_equal(tx->num_pdus, 0);
	/* signed: not ours to splice, received whole */
	peer_write(c, signed_w, payload + 116);
	wait_pdus(tx, 1);
	assert_int_equal(tx->pdus[0].len, payload + 112);
	assert_memory_equal(tx->pdus[0].bytes, signed_w + 4, payload + 112);
	/* small PDUs go as before */
	send_pdu(c, 64, 122);
	wait_pdus(tx, 2);
	assert_pdu(tx, 1, 0, 64, 122);
	assert_int_equal(tx->spliced, 1);
	tx_free(tx);
}

/*
 * Each case on the ring and on the plain fallback; the name says which.
 */
#define BOTH(f) \
	{ #f "(ring)", f, setup_ring, tx_teardown, NULL }, \
	{ #f "(plain)", f, setup_plain, tx_teardown, NULL }

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_transport__whole),
		BOTH(test_transport__byte_by_byte),
		BOTH(test_transport__several_in_one_write),
		BOTH(test_transport__keepalive),
		BOTH(test_transport__max_pdu),
		BOTH(test_transport__over_limit),
		BOTH(test_transport__limit_raised),
		BOTH(test_transport__too_short),
		BOTH(test_transport__bad_type),
		BOTH(test_transport__nbt_session_request),
		BOTH(test_transport__nbt_session_request_bad),
		BOTH(test_transport__terminate_in_callback),
		BOTH(test_transport__pause_in_callback),
		BOTH(test_transport__peer_closes),
		BOTH(test_transport__shared_buffers),
		BOTH(test_transport__receive_budget),
		BOTH(test_transport__send),
		BOTH(test_transport__send_order),
		BOTH(test_transport__send_large),
		BOTH(test_transport__send_after_terminate),
		BOTH(test_transport__congestion),
		{ "test_transport__splice_write(ring)",
		  test_transport__splice_write, setup_ring, tx_teardown,
		  NULL },
	};

	/* errors only: the plain cases would each log the ring is off */
	debug_setup(0, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
