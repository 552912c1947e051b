/*
 * The transport without the daemon: sending and the splice write mode
 * (fixture: smbd_transport_fixture.h).
 */
#include "tests/unit/smbd_transport_fixture.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
