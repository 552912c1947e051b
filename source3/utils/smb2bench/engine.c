/*
 * One job's I/O engine: iodepth READ/WRITE requests in flight on one
 * connection, driven by the job's own io_uring (liburing directly: a
 * client needs no tevent loop, so this is a plain submit-and-wait loop
 * per thread; docs/architecture.md says why it is not lib/uring).
 *
 *  - Sends: one SENDMSG in flight at a time (so requests never
 *    interleave on the stream), carrying every request queued meanwhile
 *    (NBT header | [TRANSFORM] | header+body | [payload]) in one iovec.
 *  - Receives: one RECV in flight into a buffer that always starts at a
 *    frame; a large frame is received to its end plus the next NBT and
 *    SMB2 headers, so at most those few bytes are moved after it and a
 *    READ's payload is checked where it landed, never copied.
 *  - Credits (MS-SMB2 3.2.4.1.5): a request goes out only when the
 *    credits cover its charge; each asks for enough to keep iodepth
 *    requests in flight.  STATUS_PENDING interim responses only add
 *    credits.
 *  - Channels (--channels, channels.c binds them): the sends, receives
 *    and credits above are per channel; a request goes to the next
 *    channel, round robin, whose credits cover it.  A channel whose
 *    socket fails, or that answers nothing for CHAN_SILENCE_NS while it
 *    owes answers, is lost: its requests are sent again on the others
 *    (READ and WRITE of the pattern are idempotent), as a client retries
 *    on another channel (MS-SMB2 3.2.5.1.x has no replay for them).
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <liburing.h>

#include "source3/utils/smb2bench/conn.h"
#include "source3/utils/smb2bench/workload.h"
#include "lib/smb2/transform.h"
#include "lib/util/byteorder.h"

#define NBT_HDR 4
#define MSG_ROOM (SMB2_HDR_SIZE + SMB2_READ_CREQ_LEN + 7)
#define RECV_WINDOW (256 * 1024)
#define BIG_FRAME (64 * 1024)
#define PEEK (NBT_HDR + SMB2_TRANSFORM_HDR_SIZE + SMB2_HDR_SIZE)
#define SEND_BATCH 64
#define UD_SEND 1
#define UD_RECV 2
#define UD_CANCEL 3
#define UD_KIND(ud) ((ud) & 0xff)
#define UD_CHAN(ud) ((unsigned)((ud) >> 8))
#define UD(kind, ch) ((uint64_t)(ch)->index << 8 | (kind))
#define MAX_CREDITS 8192
#define CHAN_SILENCE_NS (5 * 1000000000ULL)

struct slot {
	bool busy;
	bool retry;		/* its channel was lost: send it again */
	bool write;
	struct chan *ch;
	uint16_t cost;
	uint64_t mid;
	uint64_t offset;
	uint32_t len;
	uint64_t t0;
	uint8_t nbt[NBT_HDR];
	uint8_t tf[SMB2_TRANSFORM_HDR_SIZE];
	uint8_t msg[MSG_ROOM];
	size_t msg_len;
	uint8_t *data;		/* WRITE payload, bs bytes */
};

/* One channel: a connection of the job's session. */
struct chan {
	unsigned index;
	struct smb2_conn *c;
	bool lost;
	unsigned inflight;
	uint32_t inflight_cost;
	uint64_t heard;		/* last answer, or when it started to owe */
	struct chan_stats *stats;
	/* sends */
	unsigned *queue, queued;
	bool sending;
	struct iovec siov[SEND_BATCH * 4];
	struct msghdr smh;
	/* receives */
	uint8_t *rbuf;
	size_t rcap, rlen;
	bool receiving;
	/* discard mode: the rest of a READ payload dropped in the kernel */
	size_t skip;
	struct slot *skip_slot;
	uint32_t skip_len;
};

struct engine {
	struct job *job;
	struct smb2_conn *c;	/* a live channel's, for CREATE and CLOSE */
	struct chan *chans;
	unsigned nchans, next_chan;
	struct io_uring ring;
	struct smb2_file_id fid;
	struct workload w;
	bool measuring;		/* the measured phase, not the layout */
	struct slot *slots;
	unsigned depth, inflight, retries;
	uint16_t charge;
	bool no_more;		/* the workload or the clock is done */
	uint64_t t_end;		/* CLOCK_MONOTONIC ns; 0 = none */
	const _Atomic bool *stop;
	bool discard;
	bool have_ring;
	char *err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void fail(struct engine *e, char *msg)
{
	if (e->err == NULL) {
		e->err = msg;
	}
	e->no_more = true;
}

static struct io_uring_sqe *sqe_get(struct engine *e)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (sqe == NULL) {
		io_uring_submit(&e->ring);
		sqe = io_uring_get_sqe(&e->ring);
	}
	return sqe;
}

/* ---- sends ---------------------------------------------------------- */

static void send_prep(struct engine *e, struct chan *ch)
{
	struct io_uring_sqe *sqe = sqe_get(e);

	io_uring_prep_sendmsg(sqe, ch->c->fd, &ch->smh, MSG_WAITALL |
			      MSG_NOSIGNAL);
	io_uring_sqe_set_data64(sqe, UD(UD_SEND, ch));
	ch->sending = true;
}

static void send_kick(struct engine *e, struct chan *ch)
{
	unsigned n = 0, k = 0, i;

	if (ch->sending || ch->queued == 0 || ch->lost) {
		return;
	}
	for (i = 0; i < ch->queued && i < SEND_BATCH; i++) {
		struct slot *s = &e->slots[ch->queue[i]];

		ch->siov[n++] = (struct iovec){ s->nbt, NBT_HDR };
		if (ch->c->cipher != 0) {
			ch->siov[n++] = (struct iovec){ s->tf, sizeof(s->tf) };
		}
		ch->siov[n++] = (struct iovec){ s->msg, s->msg_len };
		if (s->write) {
			ch->siov[n++] = (struct iovec){ s->data, s->len };
		}
	}
	k = i;
	memmove(ch->queue, ch->queue + k,
		(ch->queued - k) * sizeof(*ch->queue));
	ch->queued -= k;
	ch->smh = (struct msghdr){ .msg_iov = ch->siov, .msg_iovlen = n };
	send_prep(e, ch);
}

static void chan_lost(struct engine *e, struct chan *ch, char *why);

static void send_done(struct engine *e, struct chan *ch, int res)
{
	size_t n = res > 0 ? (size_t)res : 0;

	ch->sending = false;
	if (ch->lost) {
		return;
	}
	if (res < 0) {
		chan_lost(e, ch, talloc_asprintf(e->job->mem, "send: %s",
						 strerror(-res)));
		return;
	}
	while (n > 0 && ch->smh.msg_iovlen > 0) {
		size_t step = n < ch->smh.msg_iov->iov_len ?
				      n : ch->smh.msg_iov->iov_len;

		ch->smh.msg_iov->iov_base =
			(uint8_t *)ch->smh.msg_iov->iov_base + step;
		ch->smh.msg_iov->iov_len -= step;
		n -= step;
		if (ch->smh.msg_iov->iov_len == 0) {
			ch->smh.msg_iov++;
			ch->smh.msg_iovlen--;
		}
	}
	if (ch->smh.msg_iovlen > 0) {	/* short send: the rest, in order */
		send_prep(e, ch);
		return;
	}
	send_kick(e, ch);
}

/* ---- building requests ---------------------------------------------- */

static uint16_t credit_ask(struct engine *e, struct chan *ch, uint16_t cost)
{
	uint32_t held = ch->c->credits + ch->inflight_cost;
	uint32_t target = e->depth * (uint32_t)e->charge + 16;

	if (target > MAX_CREDITS) {
		target = MAX_CREDITS;
	}
	if (target > held) {
		uint32_t more = target - held;

		return (uint16_t)(cost + (more > 512 ? 512 : more));
	}
	return cost;
}

static int slot_build(struct engine *e, struct chan *ch, struct slot *s)
{
	struct smb2_conn *c = ch->c;
	struct iovec iov[2] = { { s->msg, 0 }, { s->data, s->len } };
	uint16_t charge = smb2_conn_charge(c, s->len);
	size_t body = 0;
	size_t total;
	int ret;

	memset(s->msg, 0, SMB2_HDR_SIZE);
	push_le16(s->msg + SMB2_HDR_OFS_COMMAND,
		  s->write ? SMB2_OP_WRITE : SMB2_OP_READ);
	body = s->write ?
		smb2_write_creq_push(&e->fid, s->offset, s->len,
				     s->msg + SMB2_HDR_SIZE,
				     MSG_ROOM - SMB2_HDR_SIZE) :
		smb2_read_creq_push(&e->fid, s->offset, s->len,
				    s->msg + SMB2_HDR_SIZE,
				    MSG_ROOM - SMB2_HDR_SIZE);
	s->msg_len = SMB2_HDR_SIZE + body;
	iov[0].iov_len = s->msg_len;
	if (s->write && (!e->measuring || e->job->o->verify ||
			 c->cipher != 0)) {
		/* layout and verify need the pattern; encryption ate it */
		pattern_fill(s->data, s->len, s->offset, e->job->o->randseed);
	}
	s->mid = c->next_mid;
	s->cost = charge;
	ret = smb2_conn_seal(c, charge, credit_ask(e, ch, charge), iov,
			     s->write ? 2 : 1, s->tf);
	total = s->msg_len + (s->write ? s->len : 0) +
		(c->cipher != 0 ? SMB2_TRANSFORM_HDR_SIZE : 0);
	push_be32(s->nbt, (uint32_t)total);
	return ret;
}

/* The next live channel, round robin, whose credits cover a request. */
static struct chan *chan_next(struct engine *e)
{
	unsigned i;

	for (i = 0; i < e->nchans; i++) {
		struct chan *ch = &e->chans[(e->next_chan + i) % e->nchans];

		if (!ch->lost && ch->c->credits >= e->charge) {
			e->next_chan = (ch->index + 1) % e->nchans;
			return ch;
		}
	}
	return NULL;
}

/* Put s on ch's send queue; false (the job failed) if it cannot. */
static bool slot_queue(struct engine *e, struct chan *ch, struct slot *s)
{
	if (slot_build(e, ch, s) != 0) {
		fail(e, talloc_strdup(e->job->mem, "cannot sign or encrypt"));
		return false;
	}
	if (ch->inflight == 0) {
		ch->heard = now_ns();
	}
	s->ch = ch;
	ch->inflight++;
	ch->inflight_cost += s->cost;
	if (e->measuring) {
		ch->stats->requests++;
	}
	ch->queue[ch->queued++] = (unsigned)(s - e->slots);
	return true;
}

/* Requests of a lost channel, again on the live ones. */
static void retry(struct engine *e)
{
	unsigned i;

	for (i = 0; i < e->depth && e->retries > 0 && e->err == NULL; i++) {
		struct slot *s = &e->slots[i];
		struct chan *ch = NULL;

		if (!s->busy || !s->retry) {
			continue;
		}
		ch = chan_next(e);
		if (ch == NULL || !slot_queue(e, ch, s)) {
			return;
		}
		s->retry = false;
		e->retries--;
	}
}

static bool credits_short(struct engine *e)
{
	unsigned i;

	for (i = 0; i < e->nchans; i++) {
		if (!e->chans[i].lost && e->chans[i].inflight > 0) {
			return false;
		}
	}
	return chan_next(e) == NULL;
}

/* Start as many I/Os as depth, credits and the workload allow. */
static void issue(struct engine *e)
{
	struct chan *ch = NULL;
	unsigned i = 0;

	if (e->t_end != 0 && !e->no_more && now_ns() >= e->t_end) {
		e->no_more = true;
	}
	if (*e->stop) {
		e->no_more = true;
	}
	retry(e);
	while (!e->no_more && e->inflight < e->depth && e->retries == 0 &&
	       (ch = chan_next(e)) != NULL) {
		struct slot *s = NULL;

		while (e->slots[i].busy) {
			i++;
		}
		s = &e->slots[i];
		if (!workload_next(&e->w, &s->write, &s->offset, &s->len)) {
			e->no_more = true;
			break;
		}
		if (!slot_queue(e, ch, s)) {
			break;
		}
		s->busy = true;
		s->t0 = now_ns();
		e->inflight++;
	}
	if (!e->no_more && e->err == NULL && credits_short(e)) {
		fail(e, talloc_asprintf(e->job->mem, "the server granted %u "
					"credits; a %llu-byte I/O needs %u",
					e->c->credits,
					(unsigned long long)e->w.bs,
					e->charge));
	}
	for (i = 0; i < e->nchans; i++) {
		send_kick(e, &e->chans[i]);
	}
}

/* ---- completions ---------------------------------------------------- */

static struct slot *slot_of(struct engine *e, struct chan *ch, uint64_t mid)
{
	unsigned i;

	for (i = 0; i < e->depth; i++) {
		struct slot *s = &e->slots[i];

		if (s->busy && !s->retry && s->ch == ch && s->mid == mid) {
			return s;
		}
	}
	return NULL;
}

static void account(struct engine *e, struct slot *s, uint32_t bytes)
{
	struct job *job = e->job;
	int d = s->write ? DIR_WRITE : DIR_READ;

	if (!e->measuring) {
		return;
	}
	job->dir[d].io_bytes += bytes;
	job->dir[d].ios++;
	lat_add(&job->dir[d].clat, now_ns() - s->t0);
	atomic_fetch_add_explicit(&job->live_bytes[d], bytes,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&job->live_ios, 1, memory_order_relaxed);
}

static void unowe(struct slot *s)
{
	s->ch->inflight--;
	s->ch->inflight_cost -= s->cost;
	s->ch->heard = now_ns();
}

static void finish(struct engine *e, struct slot *s, uint32_t bytes)
{
	account(e, s, bytes);
	unowe(s);
	s->busy = false;
	e->inflight--;
}

/*
 * A channel that failed: with others left, its requests go to them;
 * its socket is shut down so that what is posted on it comes back.
 */
static void chan_lost(struct engine *e, struct chan *ch, char *why)
{
	unsigned i, live = 0;

	for (i = 0; i < e->nchans; i++) {
		live += e->chans[i].lost ? 0 : 1;
	}
	if (live <= 1) {
		fail(e, e->nchans > 1 ? talloc_asprintf(
			     e->job->mem, "channel %u, the last: %s",
			     ch->index, why) : why);
		e->inflight = 0;	/* nothing more will come */
		return;
	}
	ch->lost = true;
	ch->stats->lost = true;
	ch->queued = 0;
	ch->skip = 0;
	ch->skip_slot = NULL;
	shutdown(ch->c->fd, SHUT_RDWR);
	for (i = 0; i < e->depth; i++) {
		struct slot *s = &e->slots[i];

		if (s->busy && !s->retry && s->ch == ch) {
			unowe(s);
			s->retry = true;
			e->retries++;
		}
	}
	if (e->c == ch->c) {
		for (i = 0; i < e->nchans && e->chans[i].lost; i++) {
		}
		e->c = e->chans[i].c;
	}
}

static void check_read(struct engine *e, struct slot *s, struct smb2_blob d)
{
	int64_t bad;

	if (d.len != s->len) {
		fail(e, talloc_asprintf(e->job->mem, "short READ at %llu: %zu of "
					"%u bytes (is the file shorter than "
					"--size?)",
					(unsigned long long)s->offset, d.len,
					s->len));
		return;
	}
	if (!e->job->o->verify) {
		return;
	}
	bad = pattern_check(d.data, d.len, s->offset, e->job->o->randseed);
	if (bad < 0) {
		e->job->verify_bytes += d.len;
	} else {
		e->job->verify_errors++;
		fail(e, talloc_asprintf(e->job->mem, "verify: the byte at offset "
					"%llu differs from the pattern",
					(unsigned long long)(s->offset +
							     (uint64_t)bad)));
	}
}

/* The final response of slot s, carved in pdu. */
static void complete(struct engine *e, struct slot *s,
		     const struct smb2_pdu *pdu, bool is_error)
{
	struct smb2_blob data = {};
	uint32_t count = 0;
	NTSTATUS st = NT_STATUS(pdu->hdr.status);

	if (NT_STATUS_IS_OK(st) && !is_error) {
		st = s->write ? smb2_write_crsp_pull(pdu, &count) :
				smb2_read_crsp_pull(pdu, &data);
	}
	if (!NT_STATUS_IS_OK(st) || is_error) {
		fail(e, talloc_asprintf(e->job->mem, "%s at offset %llu: %s",
					s->write ? "WRITE" : "READ",
					(unsigned long long)s->offset,
					nt_errstr(is_error && NT_STATUS_IS_OK(st) ?
						  NT_STATUS_INVALID_PARAMETER :
						  st)));
	} else if (s->write && count != s->len) {
		fail(e, talloc_asprintf(e->job->mem, "short WRITE at %llu",
					(unsigned long long)s->offset));
	} else if (!s->write) {
		check_read(e, s, data);
	}
	finish(e, s, s->write ? count : (uint32_t)data.len);
}

static void frame(struct engine *e, struct chan *ch, uint8_t *buf,
		  size_t len)
{
	struct smb2_pdu pdu;
	struct slot *s = NULL;
	uint8_t *m = NULL;
	size_t mlen = 0;
	bool is_error = false;
	struct smb2_hdr h;

	if (smb2_conn_open_rsp(ch->c, buf, len, &m, &mlen) != 0 ||
	    !NT_STATUS_IS_OK(smb2_hdr_pull(m, mlen, &h))) {
		fail(e, talloc_strdup(e->job->mem, "a response failed its "
				      "signature, decryption or header check"));
		return;
	}
	ch->c->credits += h.credit;
	ch->heard = now_ns();
	if (h.message_id == UINT64_MAX) {
		return;		/* an oplock break: we hold none */
	}
	s = slot_of(e, ch, h.message_id);
	if (s == NULL) {
		fail(e, talloc_asprintf(e->job->mem, "response to MessageId %llu, "
					"which is not in flight",
					(unsigned long long)h.message_id));
		return;
	}
	if (h.status == NT_STATUS_V(NT_STATUS_PENDING) &&
	    (h.flags & SMB2_FLAGS_ASYNC_COMMAND)) {
		return;		/* interim: the final response follows */
	}
	if (!NT_STATUS_IS_OK(smb2_rsp_carve(m, mlen,
					    smb2_rsp_struct_size(h.command),
					    &pdu, &is_error)) ||
	    h.command != (s->write ? SMB2_OP_WRITE : SMB2_OP_READ)) {
		fail(e, talloc_strdup(e->job->mem, "malformed READ/WRITE response"));
		return;
	}
	complete(e, s, &pdu, is_error);
}

/*
 * Discard mode (docs/bench.md): a READ payload nobody looks at (no
 * --verify, no signature or encryption to check) is taken from the
 * socket with MSG_TRUNC, so TCP drops it without copying it to us: that
 * copy is most of a client's CPU.  The header and body are checked as
 * usual and the payload must follow them exactly.  Called for the
 * incomplete frame at pos, which is the last thing in rbuf.
 */
#define READ_HEAD (SMB2_HDR_SIZE + (SMB2_READ_RSP_SIZE & ~1))

static bool discard_start(struct engine *e, struct chan *ch, size_t pos,
			  uint32_t flen)
{
	const uint8_t *m = ch->rbuf + pos + NBT_HDR;
	size_t have = ch->rlen - pos - NBT_HDR;
	struct slot *s = NULL;
	struct smb2_hdr h;

	if (!e->discard || have < READ_HEAD ||
	    !NT_STATUS_IS_OK(smb2_hdr_pull(m, have, &h)) ||
	    h.command != SMB2_OP_READ || h.status != 0 ||
	    pull_le16(m + SMB2_HDR_SIZE) != SMB2_READ_RSP_SIZE ||
	    m[SMB2_HDR_SIZE + 2] != SMB2_READ_RSP_DATA_OFFSET ||
	    (uint64_t)READ_HEAD + pull_le32(m + SMB2_HDR_SIZE + 4) != flen) {
		return false;
	}
	s = slot_of(e, ch, h.message_id);
	if (s == NULL || s->write) {
		return false;
	}
	ch->c->credits += h.credit;
	ch->skip = flen - have;
	ch->skip_slot = s;
	ch->skip_len = flen - READ_HEAD;
	ch->rlen = pos;		/* the frame leaves the buffer */
	return true;
}

static void discard_done(struct engine *e, struct chan *ch, size_t n)
{
	ch->skip -= n < ch->skip ? n : ch->skip;
	ch->heard = now_ns();
	if (ch->skip > 0) {
		return;
	}
	if (ch->skip_len != ch->skip_slot->len) {
		check_read(e, ch->skip_slot,
			   (struct smb2_blob){ NULL, ch->skip_len });
	}
	finish(e, ch->skip_slot, ch->skip_len);
	ch->skip_slot = NULL;
}

/* Frames in rbuf; the partial one at the end moves to the front. */
static void frames(struct engine *e, struct chan *ch)
{
	size_t pos = 0;

	while (ch->rlen - pos >= NBT_HDR && !ch->lost) {
		uint32_t flen = pull_be32(ch->rbuf + pos);

		if (flen > ch->rcap - NBT_HDR) {
			fail(e, talloc_asprintf(e->job->mem, "a %u-byte response "
						"is larger than any we asked "
						"for", flen));
			return;
		}
		if (ch->rlen - pos - NBT_HDR < flen) {
			discard_start(e, ch, pos, flen);
			break;
		}
		frame(e, ch, ch->rbuf + pos + NBT_HDR, flen);
		pos += NBT_HDR + flen;
	}
	memmove(ch->rbuf, ch->rbuf + pos, ch->rlen - pos);
	ch->rlen -= pos;
}

static void recv_prep(struct engine *e, struct chan *ch, uint8_t *buf,
		      size_t len, int flags)
{
	struct io_uring_sqe *sqe = sqe_get(e);

	io_uring_prep_recv(sqe, ch->c->fd, buf, len, flags);
	io_uring_sqe_set_data64(sqe, UD(UD_RECV, ch));
	ch->receiving = true;
}

static void recv_kick(struct engine *e, struct chan *ch)
{
	size_t want = ch->rcap - ch->rlen;

	if (ch->receiving || ch->inflight == 0 || ch->lost) {
		return;
	}
	if (ch->skip > 0) {
		recv_prep(e, ch, ch->rbuf,
			  ch->skip < ch->rcap ? ch->skip : ch->rcap,
			  MSG_TRUNC);
		return;
	}
	if (want > RECV_WINDOW) {
		want = RECV_WINDOW;
	}
	if (e->discard && ch->rlen < NBT_HDR + READ_HEAD) {
		/* just the next header: its payload may be one to drop */
		want = NBT_HDR + READ_HEAD - ch->rlen;
	} else if (ch->rlen >= NBT_HDR) {
		/* rcap holds the largest frame plus the window: this fits */
		size_t whole = NBT_HDR + pull_be32(ch->rbuf);

		if (whole >= BIG_FRAME && whole > ch->rlen) {
			want = whole - ch->rlen + PEEK;
		}
	}
	recv_prep(e, ch, ch->rbuf + ch->rlen, want, 0);
}

static void recv_done(struct engine *e, struct chan *ch, int res)
{
	ch->receiving = false;
	if (res == -ECANCELED || ch->lost) {
		return;
	}
	if (res <= 0) {
		chan_lost(e, ch, talloc_asprintf(e->job->mem, "receive: %s",
						 res == 0 ? "the server closed "
						 "the connection" :
						 strerror(-res)));
		return;
	}
	if (ch->skip > 0) {
		discard_done(e, ch, (size_t)res);
		return;
	}
	ch->rlen += (size_t)res;
	frames(e, ch);
}

/* ---- the loop ------------------------------------------------------- */

/* Handle every CQE there is; how many there were. */
static unsigned reap(struct engine *e)
{
	struct io_uring_cqe *cqe = NULL;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&e->ring, head, cqe) {
		uint64_t ud = io_uring_cqe_get_data64(cqe);
		struct chan *ch = &e->chans[UD_CHAN(ud) % e->nchans];

		switch (UD_KIND(ud)) {
		case UD_SEND:
			send_done(e, ch, cqe->res);
			break;
		case UD_RECV:
			recv_done(e, ch, cqe->res);
			break;
		default:
			break;
		}
		n++;
	}
	io_uring_cq_advance(&e->ring, n);
	return n;
}

#define SILENCE_NS (60 * 1000000000ULL)	/* no answer at all: give up */
#define DRAIN_NS (10 * 1000000000ULL)	/* after a stop or an error */

/* Channels that owe answers and have been silent too long are lost. */
static void watch(struct engine *e, uint64_t now)
{
	unsigned i;

	for (i = 0; i < e->nchans && e->nchans > 1; i++) {
		struct chan *ch = &e->chans[i];

		/* heard may be later than now: set while reaping */
		if (!ch->lost && ch->inflight > 0 && now > ch->heard &&
		    now - ch->heard > CHAN_SILENCE_NS) {
			chan_lost(e, ch, talloc_strdup(e->job->mem,
						       "no answer"));
		}
	}
}

static bool busy(const struct engine *e)
{
	unsigned i;

	for (i = 0; i < e->nchans; i++) {
		if (e->chans[i].sending || e->chans[i].receiving) {
			return true;
		}
	}
	return false;
}

static void kick_all(struct engine *e)
{
	unsigned i;

	issue(e);
	for (i = 0; i < e->nchans; i++) {
		recv_kick(e, &e->chans[i]);
	}
}

/* Run until the workload is done and nothing is in flight. */
static void run_phase(struct engine *e)
{
	struct __kernel_timespec tick = { .tv_sec = 1 };
	struct io_uring_cqe *cqe = NULL;
	uint64_t give_up = 0, heard = now_ns();

	e->no_more = e->err != NULL;
	kick_all(e);
	while (e->inflight > 0 || busy(e)) {
		int ret = io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1,
							   &tick, NULL);
		uint64_t now;

		if (ret < 0 && ret != -ETIME && ret != -EINTR) {
			fail(e, talloc_asprintf(e->job->mem, "io_uring: %s",
						strerror(-ret)));
			break;
		}
		now = now_ns();
		if (reap(e) > 0) {
			heard = now;
		}
		watch(e, now);
		if ((*e->stop || e->err != NULL) && give_up == 0) {
			give_up = now + DRAIN_NS;
		}
		if ((give_up != 0 && now > give_up) ||
		    now - heard > SILENCE_NS) {
			fail(e, talloc_asprintf(e->job->mem, "%u requests "
						"unanswered for %llu s",
						e->inflight, (unsigned long long)
						((now - heard) / 1000000000ULL)));
			break;
		}
		kick_all(e);
	}
}

/*
 * Leave no operation of ours in the kernel before the socket is used
 * synchronously or the buffers are freed: cancel what is left and wait
 * for its CQEs (a bounded wait; io_uring_queue_exit does the rest).
 */
static void quiesce(struct engine *e)
{
	struct __kernel_timespec tick = { .tv_sec = 1 };
	struct io_uring_cqe *cqe = NULL;
	unsigned i, waits = 0;

	for (i = 0; i < e->nchans; i++) {
		struct chan *ch = &e->chans[i];

		if (ch->receiving) {
			struct io_uring_sqe *sqe = sqe_get(e);

			io_uring_prep_cancel64(sqe, UD(UD_RECV, ch), 0);
			io_uring_sqe_set_data64(sqe, UD_CANCEL);
		}
		if (ch->sending) {
			struct io_uring_sqe *sqe = sqe_get(e);

			io_uring_prep_cancel64(sqe, UD(UD_SEND, ch), 0);
			io_uring_sqe_set_data64(sqe, UD_CANCEL);
		}
		/* nothing below may post another operation */
		ch->skip = 0;
		ch->queued = 0;
	}
	e->no_more = true;
	while (busy(e) && waits++ < 5) {
		io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1, &tick,
						 NULL);
		reap(e);
	}
}

static bool job_reads(const struct job_opts *o)
{
	return o->rw != RW_WRITE && o->rw != RW_RANDWRITE;
}

static bool job_writes(const struct job_opts *o)
{
	return o->rw != RW_READ && o->rw != RW_RANDREAD;
}

/* Each channel's queue and receive buffer; its report line. */
static bool chans_alloc(struct engine *e, struct smb2_conn **conns,
			char **where)
{
	struct job *job = e->job;
	unsigned i;

	e->nchans = job->smb->channels;
	e->chans = talloc_zero_array(e, struct chan, e->nchans);
	job->chans = talloc_zero_array(job->mem, struct chan_stats,
				       e->nchans);
	if (e->chans == NULL || job->chans == NULL) {
		return false;
	}
	job->nchans = e->nchans;
	for (i = 0; i < e->nchans; i++) {
		struct chan *ch = &e->chans[i];

		ch->index = i;
		ch->c = conns[i];
		ch->stats = &job->chans[i];
		ch->stats->addr = talloc_strdup(job->mem, where[i]);
		ch->queue = talloc_zero_array(e->chans, unsigned, e->depth);
		ch->rcap = job->o->bs + 4096 + RECV_WINDOW + PEEK;
		ch->rbuf = talloc_size(e->chans, ch->rcap);
		if (ch->queue == NULL || ch->rbuf == NULL) {
			return false;
		}
	}
	return true;
}

static bool engine_alloc(struct engine *e, struct smb2_conn **conns,
			 char **where)
{
	const struct job_opts *o = e->job->o;
	struct io_uring_params p = {
		.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
	};
	unsigned entries = 2 * o->iodepth + 4 * e->job->smb->channels + 16;
	unsigned i;
	int ret;

	e->depth = o->iodepth;
	e->slots = talloc_zero_array(e, struct slot, e->depth);
	if (e->slots == NULL || !chans_alloc(e, conns, where)) {
		return false;
	}
	for (i = 0; i < e->depth; i++) {
		e->slots[i].data = talloc_size(e->slots, o->bs);
		if (e->slots[i].data == NULL) {
			return false;
		}
		/* unverified writes send whatever this is, as fio does */
		pattern_fill(e->slots[i].data, o->bs & ~7ULL, i * o->bs,
			     o->randseed);
	}
	ret = io_uring_queue_init_params(entries, &e->ring, &p);
	if (ret < 0) {
		/* older kernels: no COOP_TASKRUN / SINGLE_ISSUER */
		ret = io_uring_queue_init(entries, &e->ring, 0);
	}
	if (ret < 0) {
		fail(e, talloc_asprintf(e->job->mem, "io_uring: %s", strerror(-ret)));
		return false;
	}
	e->have_ring = true;
	return true;
}

static bool check_sizes(struct engine *e)
{
	const struct job_opts *o = e->job->o;

	if (job_reads(o) && o->bs > e->c->max_read) {
		fail(e, talloc_asprintf(e->job->mem, "--bs=%llu is larger than the "
					"server's MaxReadSize %u",
					(unsigned long long)o->bs,
					e->c->max_read));
		return false;
	}
	if (o->bs > e->c->max_write) {	/* the layout writes too */
		fail(e, talloc_asprintf(e->job->mem, "--bs=%llu is larger than the "
					"server's MaxWriteSize %u",
					(unsigned long long)o->bs,
					e->c->max_write));
		return false;
	}
	e->charge = smb2_conn_charge(e->c, o->bs);
	return true;
}

/* Open the job's file; *eof its size.  Readers lay out a short file. */
static bool open_file(struct engine *e, uint64_t *eof)
{
	const struct job_opts *o = e->job->o;
	const char *name = e->job->filename;
	bool writes = job_writes(o);
	NTSTATUS st = smb2_conn_create(e->c, name, writes, &e->fid, eof);

	if (!writes && (NT_STATUS_EQUAL(st, NT_STATUS_OBJECT_NAME_NOT_FOUND) ||
			(NT_STATUS_IS_OK(st) && *eof < o->size))) {
		if (NT_STATUS_IS_OK(st)) {
			smb2_conn_close_file(e->c, &e->fid);
		}
		st = smb2_conn_create(e->c, name, true, &e->fid, eof);
	}
	if (!NT_STATUS_IS_OK(st)) {
		fail(e, talloc_asprintf(e->job->mem, "open %s: %s", name,
					e->c->err != NULL ? e->c->err :
					nt_errstr(st)));
		return false;
	}
	return true;
}

/* Connect, open, lay out: everything before the start line. */
static bool prepare(struct engine *e, uint64_t *size)
{
	const struct job_opts *o = e->job->o;
	struct smb2_conn **conns = NULL;
	char **where = NULL;
	uint64_t eof = 0;
	char *err = NULL;

	e->c = smb2_conn_open(e, e->job->smb, &err);
	if (e->c != NULL) {
		conns = channels_open(e, e->c, e->job->smb, &where, &err);
	}
	if (conns == NULL) {
		fail(e, talloc_steal(e->job->mem, err));
		return false;
	}
	if (!check_sizes(e) || !engine_alloc(e, conns, where) ||
	    !open_file(e, &eof)) {
		if (e->err == NULL) {
			fail(e, talloc_strdup(e->job->mem, "out of memory"));
		}
		return false;
	}
	*size = o->size != 0 ? o->size : eof;
	if (*size == 0) {
		fail(e, talloc_asprintf(e->job->mem, "%s is empty: give --size",
					e->job->filename));
		return false;
	}
	if (job_reads(o) && eof < *size) {
		workload_init(&e->w, o, *size, true);
		run_phase(e);
	}
	return e->err == NULL;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void measure(struct engine *e, uint64_t size)
{
	const struct job_opts *o = e->job->o;
	struct rusage r0, r1;
	uint64_t t0;

	workload_init(&e->w, o, size, false);
	e->measuring = true;
	e->discard = !e->job->smb->read_copy && !o->verify &&
		     !e->c->sign && e->c->cipher == 0 && o->bs >= BIG_FRAME;
	getrusage(RUSAGE_THREAD, &r0);
	t0 = now_ns();
	e->t_end = o->runtime > 0 ? t0 + (uint64_t)(o->runtime * 1e9) : 0;
	atomic_store(&e->job->started, true);
	run_phase(e);
	e->job->runtime_ns = now_ns() - t0;
	getrusage(RUSAGE_THREAD, &r1);
	e->job->usr_s = tv_s(r1.ru_utime) - tv_s(r0.ru_utime);
	e->job->sys_s = tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
}

/*
 * fio's do_verify: a job that only writes, with --verify=pattern, reads
 * back what it wrote after the measured phase (not measured).  A time
 * based job may leave blocks of its last pass unwritten: not read back.
 */
static void read_back(struct engine *e, uint64_t size)
{
	const struct job_opts *o = e->job->o;
	struct job_opts rd = *o;

	if (!o->verify || job_reads(o) || o->time_based || e->err != NULL ||
	    *e->stop) {
		return;
	}
	rd.rw = RW_READ;
	workload_init(&e->w, &rd, size, false);
	e->measuring = false;
	e->discard = false;
	e->t_end = 0;
	run_phase(e);
}

static void close_all(struct engine *e)
{
	unsigned i;

	if (e->c != NULL && e->c->fd >= 0) {
		close(e->c->fd);
		e->c->fd = -1;
	}
	for (i = 0; i < e->nchans; i++) {
		if (e->chans[i].c->fd >= 0) {
			close(e->chans[i].c->fd);
			e->chans[i].c->fd = -1;
		}
	}
}

void engine_run(struct job *job, engine_wait_fn wait, void *private_data,
		const _Atomic bool *stop)
{
	struct engine *e = NULL;
	bool ready = false;
	uint64_t size = 0;

	if (RW_IS_META(job->o->rw)) {
		meta_run(job, wait, private_data, stop);
		return;
	}
	e = talloc_zero(job->mem, struct engine);
	e->job = job;
	e->stop = stop;
	ready = prepare(e, &size);
	wait(private_data);
	if (ready) {
		measure(e, size);
		read_back(e, size);
	}
	if (e->have_ring) {
		quiesce(e);
	}
	if (e->c != NULL && e->c->fd >= 0 && e->err == NULL) {
		smb2_conn_close_file(e->c, &e->fid);
		smb2_conn_logoff(e->c);
	}
	if (e->have_ring) {
		io_uring_queue_exit(&e->ring);
	}
	close_all(e);
	job->err = e->err;
	atomic_store(&job->finished, true);
	talloc_free(e);
}
