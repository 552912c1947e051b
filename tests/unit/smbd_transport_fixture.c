/*
 * The transport fixture: what test_smbd_transport_*.c share (see
 * smbd_transport_fixture.h).
 */
#include "tests/unit/smbd_transport_fixture.h"

static bool use_ring;
static struct tx *current_tx;

/* ---- the ops table the transport is started with ---- */

int conn_index(struct tx *tx, struct smbd_conn *conn)
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

void rec_got_pdu(struct smbd_conn *conn, void *owner, uint8_t *buf,
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

void rec_spliced_write(struct smbd_conn *conn, uint8_t *buf,
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

void rec_drained(struct smbd_conn *conn)
{
	current_tx->drained++;
}

const struct smbd_transport_ops recording_ops = {
	.got_pdu = rec_got_pdu,
	.got_spliced_write = rec_spliced_write,
	.drained = rec_drained,
};

/* ---- the fixture ---- */

struct loadparm *load_conf(TALLOC_CTX *ctx, const char *global)
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
int conn_destructor(struct smbd_conn *conn)
{
	struct tx *tx = current_tx;
	struct tconn *c = &tx->c[conn_index(tx, conn)];

	c->terminating_at_free = conn->terminating;
	TALLOC_FREE(conn->transport);
	close(conn->fd);
	c->conn = NULL;
	return 0;
}

struct tconn *tx_conn(struct tx *tx, bool start)
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
	c->conn->ev = tx->server->ev;
	c->conn->ring = tx->server->ring;
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

struct tx *tx_new(TALLOC_CTX *ctx, const char *global)
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

void tx_free(struct tx *tx)
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

int setup_ring(void **state)
{
	use_ring = true;
	return unit_setup(state);
}

int setup_plain(void **state)
{
	use_ring = false;
	return unit_setup(state);
}

int tx_teardown(void **state)
{
	if (current_tx != NULL) {
		tx_free(current_tx);    /* the test failed half-way */
	}
	return unit_teardown(state);
}

/* ---- driving the loop, bounded ---- */

void deadline_reached(struct tevent_context *ev,
		      struct tevent_timer *te, struct timeval now,
		      void *private_data)
{
	*(bool *)private_data = true;
}

/* Runs the loop until cond holds (NULL: never), for at most ms. */
bool pump_until(struct tx *tx, tx_cond_fn cond, const void *arg,
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

void pump_for(struct tx *tx, unsigned ms)
{
	pump_until(tx, NULL, NULL, ms);
}

bool have_pdus(struct tx *tx, const void *arg)
{
	return tx->num_pdus >= *(const size_t *)arg;
}

bool conn_gone(struct tx *tx, const void *arg)
{
	return ((const struct tconn *)arg)->conn == NULL;
}

/* The transport has taken everything written to its socket so far. */
bool socket_empty(struct tx *tx, const void *arg)
{
	const struct tconn *c = arg;
	int n = -1;

	return c->conn != NULL && ioctl(c->conn->fd, FIONREAD, &n) == 0 &&
	       n == 0;
}

void wait_pdus(struct tx *tx, size_t n)
{
	if (!pump_until(tx, have_pdus, &n, 5000)) {
		fail_msg("%zu PDUs handed up, want %zu", tx->num_pdus, n);
	}
}

void wait_gone(struct tx *tx, struct tconn *c)
{
	if (!pump_until(tx, conn_gone, c, 5000)) {
		fail_msg("the connection was not ended");
	}
	assert_true(c->terminating_at_free);
}

/* ---- the client's side ---- */

/* Writes all of buf, running the loop while the socket is full. */
void peer_write(struct tconn *c, const void *buf, size_t len)
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
void peer_read(struct tconn *c, void *buf, size_t len)
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
int peer_eof(struct tconn *c)
{
	uint8_t b;
	ssize_t n = read(c->peer, &b, 1);

	return n == 0 ? 0 : n > 0 ? 1 : -1;
}

uint8_t pattern(size_t seed, size_t i)
{
	return (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* An NBT frame: type, 24-bit length, then len bytes of pattern(seed) */
uint8_t *frame(TALLOC_CTX *ctx, uint8_t type, size_t len,
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

void assert_pdu(const struct tx *tx, size_t i, int conn, size_t len,
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

void send_pdu(struct tconn *c, size_t len, size_t seed)
{
	uint8_t *f = frame(c->tx, 0x00, len, seed);

	peer_write(c, f, len + 4);
	talloc_free(f);
}
