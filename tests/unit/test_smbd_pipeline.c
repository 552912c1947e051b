/*
 * The pipeline (source3/smbd/pipeline, libringsmb-smbd-pipeline) driven
 * alone with a fake transport (issue 12): the test hands PDUs to
 * smbd_pipeline_got_pdu as the transport would, and this file
 * implements the transport's interface (transport.h: send, pause,
 * congestion, terminate) to record what the pipeline answers.  The
 * commands, session and file layers below it are the real ones; the
 * server layer is not linked (server/conn.c's wiring is done here).
 *
 * The fake replaces transport.o and transport_send.o of the transport
 * library as a whole: they are never pulled from the archive, since
 * every symbol the layers above use from them is defined here.  The
 * rest of the transport library (splice pipes, receive buffers) is the
 * real one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tevent.h>
#include "tests/unit/unit.h"
#include "lib/param/param.h"
#include "lib/smb2/smb2.h"
#include "lib/util/byteorder.h"
#include "lib/util/dlist.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/pipeline/pipeline.h"
#include "source3/smbd/transport/transport.h"

#define assert_status_v(v, s) \
	assert_string_equal(nt_errstr((NTSTATUS){ v }), \
			    nt_errstr(NT_STATUS_##s))

#define MAX_SENT 128

/* ---- the fake transport ---- */

struct sent {
	uint8_t *bytes;                 /* the iovecs, one after another */
	size_t len;
};

static struct {
	struct sent sent[MAX_SENT];
	size_t num_sent;
	const char *terminated;         /* the reason, or NULL */
	bool paused;
	unsigned pauses, resumes;
	bool congested;
	size_t max_pdu;
	TALLOC_CTX *mem;                /* recorded bytes */
	TALLOC_CTX *held;               /* owners "being sent" */
} fake;

static int fake_send(struct smbd_conn *conn, const struct iovec *iov,
		     int iovcnt, void *owner)
{
	struct sent *s = NULL;
	size_t len = 0, off = 0;
	int i;

	if (conn->terminating) {
		talloc_free(owner);     /* as the real one: nothing queued */
		return -1;
	}
	assert_true(fake.num_sent < MAX_SENT);
	for (i = 0; i < iovcnt; i++) {
		len += iov[i].iov_len;
	}
	s = &fake.sent[fake.num_sent++];
	s->bytes = talloc_size(fake.mem, len);
	assert_non_null(s->bytes);
	s->len = len;
	for (i = 0; i < iovcnt; i++) {
		memcpy(s->bytes + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	/* freed once "sent": at the next turn of the loop (pump) */
	talloc_steal(fake.held, owner);
	return 0;
}

int smbd_transport_send(struct smbd_conn *conn, const struct iovec *iov,
			int iovcnt, void *owner)
{
	return fake_send(conn, iov, iovcnt, owner);
}

int smbd_transport_send_zc(struct smbd_conn *conn, const struct iovec *iov,
			   int iovcnt, void *owner)
{
	return fake_send(conn, iov, iovcnt, owner);
}

int smbd_transport_send_splice(struct smbd_conn *conn, const struct iovec *iov,
			       int iovcnt, void *owner, struct smbd_splice *sp,
			       size_t len)
{
	fail_msg("no spliced READ is expected here");
	return -1;
}

void smbd_conn_terminate(struct smbd_conn *conn, const char *reason)
{
	if (conn->terminating) {
		return;
	}
	conn->terminating = true;
	fake.terminated = reason;
}

void smbd_transport_pause(struct smbd_conn *conn, bool pause)
{
	fake.paused = pause;
	if (pause) {
		fake.pauses++;
	} else {
		fake.resumes++;
	}
}

bool smbd_transport_congested(struct smbd_conn *conn)
{
	return fake.congested;
}

void smbd_transport_set_max_pdu(struct smbd_conn *conn, size_t max)
{
	fake.max_pdu = max;
}

/* ---- the fixture: what server.c and conn.c set up ---- */

struct px {
	struct tevent_context *ev;
	struct smbd_server *server;
	struct smbd_conn *conn;
};

static struct px *current_px;

static int conn_destructor(struct smbd_conn *conn)
{
	struct smbd_server *server = conn->server;

	TALLOC_FREE(fake.held);
	DLIST_REMOVE_SIMPLE(server->conns, conn);
	server->num_conns--;
	return 0;
}

static struct px *px_new(TALLOC_CTX *ctx, const char *global)
{
	struct px *px = talloc_zero(ctx, struct px);
	char *text = talloc_asprintf(px, "[global]\n%s", global);
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;
	size_t i;

	assert_non_null(px);
	assert_non_null(text);
	assert_null(current_px);
	current_px = px;
	memset(&fake, 0, sizeof(fake));
	fake.mem = talloc_new(px);
	px->ev = tevent_context_init(px);
	px->server = talloc_zero(px, struct smbd_server);
	assert_non_null(px->ev);
	assert_non_null(px->server);
	assert_int_equal(lp_load_buffer(px->server, "test.conf", text,
					strlen(text), &lp, &diags), 0);
	talloc_free(diags);
	px->server->ev = px->ev;
	px->server->lp = lp;
	px->server->hooks = (struct smbd_state_hooks){
		.oplock_break = smbd_pipeline_send_oplock_break,
		.delete_pending = smbd_notify_delete_pending,
		.channels_idle = smbd_pipeline_channels_idle,
	};
	for (i = 0; i < 16; i++) {
		px->server->server_guid[i] = (uint8_t)(0xA0 + i);
	}
	px->conn = talloc_zero(px->server, struct smbd_conn);
	assert_non_null(px->conn);
	px->conn->server = px->server;
	px->conn->ev = px->server->ev;
	px->conn->ring = px->server->ring;
	px->conn->fd = -1;
	snprintf(px->conn->peer, sizeof(px->conn->peer), "fake:1");
	DLIST_ADD_SIMPLE(px->server->conns, px->conn);
	px->server->num_conns++;
	talloc_set_destructor(px->conn, conn_destructor);
	fake.held = talloc_new(px->conn);
	assert_int_equal(smbd_pipeline_init(px->conn), 0);
	assert_non_null(px->conn->pipeline);
	talloc_free(text);
	return px;
}

static void px_free(struct px *px)
{
	current_px = NULL;
	talloc_free(px->conn);
	talloc_free(px);
}

static int px_teardown(void **state)
{
	if (current_px != NULL) {
		px_free(current_px);
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

/* Runs the loop until n responses went out or the connection ends. */
static void pump(struct px *px, size_t n, unsigned ms)
{
	bool expired = false;
	struct tevent_timer *te = tevent_add_timer(
		px->ev, px, tevent_timeval_current_ofs(ms / 1000,
						       (ms % 1000) * 1000),
		deadline_reached, &expired);
	int i;

	assert_non_null(te);
	for (i = 0; i < 100000 && !expired; i++) {
		talloc_free_children(fake.held);        /* sent */
		if (fake.num_sent >= n || px->conn->terminating) {
			break;
		}
		assert_int_equal(tevent_loop_once(px->ev), 0);
	}
	if (!expired) {
		talloc_free(te);
	}
}

/* ---- requests ---- */

struct req {
	uint16_t cmd;
	uint64_t mid;
	uint16_t credits;
	uint32_t flags;
	uint64_t session_id;
	const uint8_t *body;
	size_t body_len;
};

/* One or more elements, chained (NextCommand, 8-byte aligned) */
static void got(struct px *px, const struct req *r, size_t n)
{
	uint8_t *buf = talloc_zero_size(px, 4096);
	size_t off = 0, i;

	assert_non_null(buf);
	for (i = 0; i < n; i++) {
		size_t len = SMB2_HDR_SIZE + r[i].body_len;
		size_t padded = i + 1 < n ? (len + 7) & ~(size_t)7 : len;
		struct smb2_hdr h = {
			.command = r[i].cmd,
			.message_id = r[i].mid,
			.credit = r[i].credits,
			.flags = r[i].flags,
			.session_id = r[i].session_id,
			.next_command = i + 1 < n ? (uint32_t)padded : 0,
		};

		assert_true(off + padded <= 4096);
		smb2_hdr_push(&h, buf + off);
		memcpy(buf + off + SMB2_HDR_SIZE, r[i].body, r[i].body_len);
		off += padded;
	}
	/* the transport hands over a buffer of its own (owner == buf) */
	buf = talloc_realloc(px, buf, uint8_t, off);
	smbd_pipeline_got_pdu(px->conn, buf, buf, off);
}

static void got1(struct px *px, struct req r)
{
	got(px, &r, 1);
}

static const uint8_t echo_body[4] = { 4, 0, 0, 0 };

static struct req echo(uint64_t mid)
{
	return (struct req){ SMB2_OP_ECHO, mid, 1, 0, 0, echo_body, 4 };
}

static size_t negprot_body(uint8_t *b, const uint16_t *dialects, size_t n)
{
	size_t i;

	memset(b, 0, 36);
	push_le16(b, 36);
	push_le16(b + 2, (uint16_t)n);
	push_le16(b + 4, 1);                    /* signing enabled */
	for (i = 0; i < 16; i++) {
		b[12 + i] = (uint8_t)(0xC0 + i);    /* ClientGuid */
	}
	for (i = 0; i < n; i++) {
		push_le16(b + 36 + 2 * i, dialects[i]);
	}
	return 36 + 2 * n;
}

static void negotiate(struct px *px, uint16_t credits)
{
	static const uint16_t d[] = { 0x0202, 0x0210, 0x0300, 0x0302 };
	uint8_t body[64];
	size_t len = negprot_body(body, d, 4);

	got1(px, (struct req){ SMB2_OP_NEGPROT, 0, credits, 0, 0, body, len });
	pump(px, 1, 5000);
	assert_int_equal(fake.num_sent, 1);
	assert_int_equal(px->conn->dialect, SMB2_DIALECT_0302);
	fake.num_sent = 0;
}

/* ---- reading responses ---- */

struct rsp {
	struct smb2_hdr h;
	const uint8_t *body;
	size_t body_len;                /* up to NextCommand or the end */
};

/* Element i of sent response s */
static struct rsp rsp_at(size_t s, size_t i)
{
	const struct sent *m = &fake.sent[s];
	size_t off = 0;
	struct rsp r;

	assert_true(s < fake.num_sent);
	for (;;) {
		assert_true(off + SMB2_HDR_SIZE <= m->len);
		assert_status_v(smb2_hdr_pull(m->bytes + off, m->len - off,
					      &r.h).v, OK);
		if (i == 0) {
			break;
		}
		assert_true(r.h.next_command != 0);
		assert_int_equal(r.h.next_command % 8, 0);
		off += r.h.next_command;
		i--;
	}
	r.body = m->bytes + off + SMB2_HDR_SIZE;
	r.body_len = (r.h.next_command != 0 ? r.h.next_command : m->len - off)
		- SMB2_HDR_SIZE;
	assert_true(r.h.flags & SMB2_FLAGS_SERVER_TO_REDIR);
	return r;
}

/* An error response: StructureSize 9 (MS-SMB2 2.2.2) */
static void assert_error_rsp(const struct rsp *r)
{
	assert_true(r->body_len >= 8);
	assert_int_equal(pull_le16(r->body), 9);
}

/* ---- NEGOTIATE ---- */

static void test_pipeline__negotiate(void **state)
{
	static const uint16_t d[] = { 0x0202, 0x0210, 0x0300, 0x0302 };
	struct px *px = px_new(*state, "");
	uint8_t body[64];
	size_t len = negprot_body(body, d, 4);
	struct rsp r;
	size_t i;

	got1(px, (struct req){ SMB2_OP_NEGPROT, 0, 10, 0, 0, body, len });
	/* finished inside its send: answered at once, not from the loop */
	assert_int_equal(fake.num_sent, 1);
	pump(px, 1, 5000);
	assert_null(fake.terminated);
	assert_int_equal(fake.num_sent, 1);
	r = rsp_at(0, 0);
	assert_int_equal(r.h.command, SMB2_OP_NEGPROT);
	assert_status_v(r.h.status, OK);
	assert_int_equal(r.h.message_id, 0);
	assert_int_equal(r.h.credit, 10);
	assert_int_equal(r.h.next_command, 0);
	assert_true(r.body_len >= 64);
	assert_int_equal(pull_le16(r.body), 65);
	assert_int_equal(pull_le16(r.body + 4), SMB2_DIALECT_0302);
	assert_memory_equal(r.body + 8, px->server->server_guid, 16);
	assert_int_equal(pull_le32(r.body + 32), px->conn->max_read);
	assert_true(pull_le16(r.body + 58) > 0);        /* SPNEGO blob */
	assert_int_equal(px->conn->dialect, SMB2_DIALECT_0302);
	for (i = 0; i < 16; i++) {
		assert_int_equal(px->conn->client_guid[i], 0xC0 + i);
	}
	px_free(px);
}

/* 'server max protocol' and 'server min protocol' bound the choice */
static void test_pipeline__negotiate_limits(void **state)
{
	static const uint16_t d[] = { 0x0202, 0x0210, 0x0300, 0x0302 };
	static const uint16_t old[] = { 0x0202 };
	struct px *px = px_new(*state, "  server max protocol = SMB2_10\n"
				       "  server min protocol = SMB2_10\n");
	uint8_t body[64];
	size_t len = negprot_body(body, old, 1);
	struct rsp r;

	got1(px, (struct req){ SMB2_OP_NEGPROT, 0, 1, 0, 0, body, len });
	pump(px, 1, 5000);
	r = rsp_at(0, 0);
	assert_status_v(r.h.status, NOT_SUPPORTED);
	assert_error_rsp(&r);
	assert_int_equal(px->conn->dialect, 0);
	assert_null(fake.terminated);
	len = negprot_body(body, d, 4);
	got1(px, (struct req){ SMB2_OP_NEGPROT, 1, 1, 0, 0, body, len });
	pump(px, 2, 5000);
	r = rsp_at(1, 0);
	assert_status_v(r.h.status, OK);
	assert_int_equal(pull_le16(r.body + 4), SMB2_DIALECT_0210);
	assert_int_equal(px->conn->dialect, SMB2_DIALECT_0210);
	px_free(px);
}

/* The first request must be a lone NEGOTIATE, and there is one only. */
static void test_pipeline__sequence(void **state)
{
	struct px *px = px_new(*state, "");

	got1(px, echo(0));
	pump(px, 1, 200);
	assert_non_null(fake.terminated);
	assert_int_equal(fake.num_sent, 0);
	px_free(px);

	px = px_new(*state, "");
	negotiate(px, 10);
	{
		static const uint16_t d[] = { 0x0302 };
		uint8_t body[64];
		size_t len = negprot_body(body, d, 1);

		got1(px, (struct req){ SMB2_OP_NEGPROT, 1, 1, 0, 0, body,
				       len });
	}
	pump(px, 1, 200);
	assert_non_null(fake.terminated);
	assert_int_equal(fake.num_sent, 0);
	px_free(px);
}

/* SMB1 NEGOTIATE offering "SMB 2.???": answered in SMB2, dialect 0x02FF */
static size_t smb1_negprot(uint8_t *buf, const char *dialect)
{
	size_t pos = 35;

	memset(buf, 0, 35);
	memcpy(buf, "\xffSMB\x72", 5);
	buf[pos++] = 0x02;
	memcpy(buf + pos, dialect, strlen(dialect) + 1);
	pos += strlen(dialect) + 1;
	push_le16(buf + 33, (uint16_t)(pos - 35));
	return pos;
}

static void test_pipeline__smb1_negotiate(void **state)
{
	struct px *px = px_new(*state, "");
	uint8_t *buf = talloc_size(px, 64);
	size_t len = smb1_negprot(buf, "SMB 2.???");
	struct rsp r;

	smbd_pipeline_got_pdu(px->conn, buf, buf, len);
	assert_int_equal(fake.num_sent, 1);     /* answered at once */
	r = rsp_at(0, 0);
	assert_int_equal(r.h.command, SMB2_OP_NEGPROT);
	assert_int_equal(r.h.message_id, 0);
	assert_int_equal(r.h.credit, 1);
	assert_int_equal(pull_le16(r.body + 4), SMB2_DIALECT_WILDCARD);
	assert_int_equal(px->conn->dialect, 0);
	fake.num_sent = 0;
	/* the SMB2 NEGOTIATE that must follow uses message id 1 */
	{
		static const uint16_t d[] = { 0x0210 };
		uint8_t body[64];
		size_t blen = negprot_body(body, d, 1);

		got1(px, (struct req){ SMB2_OP_NEGPROT, 1, 1, 0, 0, body,
				       blen });
	}
	pump(px, 1, 5000);
	r = rsp_at(0, 0);
	assert_status_v(r.h.status, OK);
	assert_int_equal(px->conn->dialect, SMB2_DIALECT_0210);
	px_free(px);
}

/* SMB1 without SMB2 dialects is not served; nor is a second one. */
static void test_pipeline__smb1_refused(void **state)
{
	struct px *px = px_new(*state, "");
	uint8_t *buf = talloc_size(px, 64);
	size_t len = smb1_negprot(buf, "NT LM 0.12");

	smbd_pipeline_got_pdu(px->conn, buf, buf, len);
	assert_int_equal(fake.num_sent, 0);
	assert_non_null(fake.terminated);
	assert_string_equal(fake.terminated, "SMB1 is not served");
	px_free(px);
}

/* ---- after NEGOTIATE ---- */

static void test_pipeline__echo(void **state)
{
	struct px *px = px_new(*state, "");
	struct rsp r;

	negotiate(px, 10);
	got1(px, echo(1));
	pump(px, 1, 5000);
	assert_int_equal(fake.num_sent, 1);
	r = rsp_at(0, 0);
	assert_int_equal(r.h.command, SMB2_OP_ECHO);
	assert_status_v(r.h.status, OK);
	assert_int_equal(r.h.message_id, 1);
	assert_int_equal(r.body_len, 4);
	assert_int_equal(pull_le16(r.body), 4);
	assert_null(fake.terminated);
	px_free(px);
}

/*
 * The message-id window (MS-SMB2 3.3.1.2): NEGOTIATE granted 10 credits,
 * ids 1..10; out of order is fine, a reused id or one past the window
 * ends the connection.
 */
static void test_pipeline__credit_window(void **state)
{
	struct px *px = px_new(*state, "");

	negotiate(px, 10);
	got1(px, echo(10));
	pump(px, 1, 5000);
	assert_int_equal(rsp_at(0, 0).h.credit, 1);
	got1(px, echo(3));
	pump(px, 2, 5000);
	assert_int_equal(rsp_at(1, 0).h.message_id, 3);
	assert_null(fake.terminated);
	got1(px, echo(3));                      /* used */
	pump(px, 3, 200);
	assert_non_null(fake.terminated);
	assert_string_equal(fake.terminated,
			    "message id outside the window");
	assert_int_equal(fake.num_sent, 2);
	px_free(px);

	px = px_new(*state, "");
	negotiate(px, 10);
	got1(px, echo(11));                     /* the window is [1, 11) */
	pump(px, 1, 200);
	assert_non_null(fake.terminated);
	assert_int_equal(fake.num_sent, 0);
	px_free(px);
}

/* What the dispatch table asks for is checked before the command runs */
static void test_pipeline__needs_session(void **state)
{
	static const uint8_t tcon_body[9] = { 9 };
	static const uint8_t short_echo[2] = { 4, 0 };
	struct px *px = px_new(*state, "");
	struct rsp r;

	negotiate(px, 10);
	got1(px, (struct req){ SMB2_OP_TCON, 1, 1, 0, 0x1234, tcon_body,
			       sizeof(tcon_body) });
	pump(px, 1, 5000);
	r = rsp_at(0, 0);
	assert_int_equal(r.h.command, SMB2_OP_TCON);
	assert_status_v(r.h.status, USER_SESSION_DELETED);
	assert_error_rsp(&r);
	got1(px, (struct req){ SMB2_OP_ECHO, 2, 1, 0, 0, short_echo, 2 });
	pump(px, 2, 5000);
	r = rsp_at(1, 0);
	assert_int_equal(r.h.command, SMB2_OP_ECHO);
	assert_status_v(r.h.status, INVALID_PARAMETER); /* StructureSize */
	assert_error_rsp(&r);
	assert_null(fake.terminated);
	px_free(px);
}

/*
 * A command code past the table is a framing error to the carver
 * (lib/smb2/compound.c): the connection ends, nothing is answered.
 */
static void test_pipeline__unknown_command(void **state)
{
	struct px *px = px_new(*state, "");

	negotiate(px, 10);
	got1(px, (struct req){ SMB2_OP_COUNT, 1, 1, 0, 0, echo_body, 4 });
	pump(px, 1, 200);
	assert_non_null(fake.terminated);
	assert_string_equal(fake.terminated, "malformed PDU");
	assert_int_equal(fake.num_sent, 0);
	px_free(px);
}

/*
 * A compound is answered in one message, elements linked and aligned,
 * the last one included (smbtorture smb2.compound.compound-padding).
 */
static void test_pipeline__compound(void **state)
{
	struct px *px = px_new(*state, "");
	struct req two[2] = { echo(1), echo(2) };
	struct rsp r0, r1;

	negotiate(px, 10);
	got(px, two, 2);
	pump(px, 1, 5000);
	assert_int_equal(fake.num_sent, 1);
	r0 = rsp_at(0, 0);
	r1 = rsp_at(0, 1);
	assert_int_equal(r0.h.next_command, 72);        /* 68, aligned */
	assert_int_equal(r0.h.message_id, 1);
	assert_int_equal(r1.h.next_command, 0);
	assert_int_equal(r1.h.message_id, 2);
	assert_int_equal(r1.h.command, SMB2_OP_ECHO);
	assert_status_v(r1.h.status, OK);
	/* the last one padded too, as Windows and Samba send it */
	assert_int_equal(fake.sent[0].len, 72 + 72);
	px_free(px);
}

/* RELATED_OPERATIONS on the first element is refused (3.3.5.2.7) */
static void test_pipeline__related_first(void **state)
{
	struct px *px = px_new(*state, "");
	struct req r = echo(1);
	struct rsp out;

	negotiate(px, 10);
	r.flags = SMB2_FLAGS_RELATED_OPERATIONS;
	got1(px, r);
	pump(px, 1, 5000);
	out = rsp_at(0, 0);
	assert_status_v(out.h.status, INVALID_PARAMETER);
	assert_null(fake.terminated);
	px_free(px);
}

/* Not an SMB2 message: the connection ends, nothing is answered */
static void test_pipeline__malformed(void **state)
{
	struct px *px = px_new(*state, "");
	uint8_t *buf = talloc_zero_size(px, 68);

	negotiate(px, 10);
	memcpy(buf, "\xfeSMX", 4);
	smbd_pipeline_got_pdu(px->conn, buf, buf, 68);
	pump(px, 1, 200);
	assert_non_null(fake.terminated);
	assert_string_equal(fake.terminated, "malformed PDU");
	assert_int_equal(fake.num_sent, 0);
	px_free(px);
}

/* CANCEL of nothing: no response, no credit, the connection goes on */
static void test_pipeline__cancel_nothing(void **state)
{
	static const uint8_t cancel_body[4] = { 4 };
	struct px *px = px_new(*state, "");

	negotiate(px, 10);
	got1(px, (struct req){ SMB2_OP_CANCEL, 5, 0, 0, 0, cancel_body, 4 });
	pump(px, 1, 100);
	assert_int_equal(fake.num_sent, 0);
	assert_null(fake.terminated);
	got1(px, echo(5));              /* its id was not consumed */
	pump(px, 1, 5000);
	assert_int_equal(rsp_at(0, 0).h.message_id, 5);
	px_free(px);
}

/*
 * Flow control: a full queue pauses the transport and resumes it once
 * it empties; nothing starts while the transport is congested, until
 * the transport's drained call (smbd_pipeline_kick).
 */
static void test_pipeline__flow_control(void **state)
{
	struct px *px = px_new(*state, "");
	size_t i;

	negotiate(px, 200);
	/*
	 * An ECHO is answered inside its send, so the queue fills only
	 * while nothing may start: the transport is congested.  Handed over
	 * as the transport does: until it is paused.
	 */
	fake.congested = true;
	for (i = 0; i < 100 && !fake.paused; i++) {
		got1(px, echo(1 + i));
	}
	assert_int_equal(i, 64);                /* SMBD_MAX_QUEUED */
	assert_int_equal(fake.pauses, 1);
	assert_int_equal(fake.num_sent, 0);
	fake.congested = false;
	smbd_pipeline_kick(px->conn);
	pump(px, 64, 5000);
	assert_int_equal(fake.num_sent, 64);
	for (i = 0; i < 64; i++) {
		assert_int_equal(rsp_at(i, 0).h.message_id, 1 + i);
	}
	assert_false(fake.paused);
	assert_int_equal(fake.resumes, 1);

	fake.congested = true;
	got1(px, echo(65));
	pump(px, 65, 100);
	assert_int_equal(fake.num_sent, 64);
	fake.congested = false;
	smbd_pipeline_kick(px->conn);
	pump(px, 65, 5000);
	assert_int_equal(fake.num_sent, 65);
	assert_int_equal(rsp_at(64, 0).h.message_id, 65);
	assert_null(fake.terminated);
	px_free(px);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, px_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_pipeline__negotiate),
		T(test_pipeline__negotiate_limits),
		T(test_pipeline__sequence),
		T(test_pipeline__smb1_negotiate),
		T(test_pipeline__smb1_refused),
		T(test_pipeline__echo),
		T(test_pipeline__credit_window),
		T(test_pipeline__needs_session),
		T(test_pipeline__unknown_command),
		T(test_pipeline__compound),
		T(test_pipeline__related_first),
		T(test_pipeline__malformed),
		T(test_pipeline__cancel_nothing),
		T(test_pipeline__flow_control),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
