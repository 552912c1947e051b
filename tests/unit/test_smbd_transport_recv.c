/*
 * The transport without the daemon: receiving (fixture:
 * smbd_transport_fixture.h).
 */
#include "tests/unit/smbd_transport_fixture.h"

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
	};

	/* errors only: the plain cases would each log the ring is off */
	debug_setup(0, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
