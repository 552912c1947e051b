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
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <liburing.h>

#include "source3/utils/smb2bench/engine_private.h"
#include "lib/util/byteorder.h"

uint64_t engine_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void engine_fail(struct engine *e, const char *fmt, ...)
{
	va_list ap;

	if (e->err == NULL) {
		va_start(ap, fmt);
		e->err = talloc_vasprintf(e->job->mem, fmt, ap);
		va_end(ap);
		if (e->err == NULL) {
			static char oom[] = "out of memory";

			e->err = oom;
		}
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
		engine_fail(e, "cannot sign or encrypt");
		return false;
	}
	if (ch->inflight == 0) {
		ch->heard = engine_now_ns();
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

	if (e->t_end != 0 && !e->no_more && engine_now_ns() >= e->t_end) {
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
		s->t0 = engine_now_ns();
		e->inflight++;
	}
	if (!e->no_more && e->err == NULL && credits_short(e)) {
		engine_fail(e, "the server granted %u "
			    "credits; a %llu-byte I/O needs %u",
			    e->c->credits,
			    (unsigned long long)e->w.bs,
			    e->charge);
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
	lat_add(&job->dir[d].clat, engine_now_ns() - s->t0);
	atomic_fetch_add_explicit(&job->live_bytes[d], bytes,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&job->live_ios, 1, memory_order_relaxed);
}

static void unowe(struct slot *s)
{
	s->ch->inflight--;
	s->ch->inflight_cost -= s->cost;
	s->ch->heard = engine_now_ns();
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
		if (e->nchans > 1) {
			engine_fail(e, "channel %u, the last: %s", ch->index,
				    why);
		} else {
			engine_fail(e, "%s", why);
		}
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
		engine_fail(e, "short READ at %llu: %zu of "
			    "%u bytes (is the file shorter than "
			    "--size?)",
			    (unsigned long long)s->offset, d.len,
			    s->len);
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
		engine_fail(e, "verify: the byte at offset "
			    "%llu differs from the pattern",
			    (unsigned long long)(s->offset +
			    (uint64_t)bad));
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
		engine_fail(e, "%s at offset %llu: %s",
			    s->write ? "WRITE" : "READ",
			    (unsigned long long)s->offset,
			    nt_errstr(is_error && NT_STATUS_IS_OK(st) ?
				      NT_STATUS_INVALID_PARAMETER : st));
	} else if (s->write && count != s->len) {
		engine_fail(e, "short WRITE at %llu",
			    (unsigned long long)s->offset);
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
		engine_fail(e, "a response failed its "
			    "signature, decryption or header check");
		return;
	}
	ch->c->credits += h.credit;
	ch->heard = engine_now_ns();
	if (h.message_id == UINT64_MAX) {
		return;		/* an oplock break: we hold none */
	}
	s = slot_of(e, ch, h.message_id);
	if (s == NULL) {
		engine_fail(e, "response to MessageId %llu, "
			    "which is not in flight",
			    (unsigned long long)h.message_id);
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
		engine_fail(e, "malformed READ/WRITE response");
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
	ch->heard = engine_now_ns();
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
			engine_fail(e, "a %u-byte response "
				    "is larger than any we asked "
				    "for", flen);
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
void engine_run_phase(struct engine *e)
{
	struct __kernel_timespec tick = { .tv_sec = 1 };
	struct io_uring_cqe *cqe = NULL;
	uint64_t give_up = 0, heard = engine_now_ns();

	e->no_more = e->err != NULL;
	kick_all(e);
	while (e->inflight > 0 || busy(e)) {
		int ret = io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1,
							   &tick, NULL);
		uint64_t now;

		if (ret < 0 && ret != -ETIME && ret != -EINTR) {
			engine_fail(e, "io_uring: %s",
				    strerror(-ret));
			break;
		}
		now = engine_now_ns();
		if (reap(e) > 0) {
			heard = now;
		}
		watch(e, now);
		if ((*e->stop || e->err != NULL) && give_up == 0) {
			give_up = now + DRAIN_NS;
		}
		if ((give_up != 0 && now > give_up) ||
		    now - heard > SILENCE_NS) {
			engine_fail(e, "%u requests "
				    "unanswered for %llu s",
				    e->inflight, (unsigned long long)
				    ((now - heard) / 1000000000ULL));
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
void engine_quiesce(struct engine *e)
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
