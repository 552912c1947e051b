/*
 * The client end of fuzz_server (fuzz_server_client.h).  Signing and
 * encryption follow the client's side of MS-SMB2: 3.2.4.1.1 (sign),
 * 3.2.4.1.8 (encrypt), 3.2.5.1.1 (decrypt), 3.2.5.1.3 (verify).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lib/smb2/smb2_client.h"
#include "lib/smb2/transform.h"
#include "lib/util/byteorder.h"
#include "source3/smbd/pipeline/credits.h"
#include "tests/fuzz/fuzz_server_client.h"

#define FZ_NBT_MAX 0xFFFFFF
#define FZ_BREAK_MID UINT64_MAX

/* ---- the sockets ---- */

static void flush_out(struct fz_chan *ch)
{
	int fd = ch->client->env->client_fd[ch->idx];

	while (ch->out_len > 0 && !ch->eof) {
		ssize_t n = send(fd, ch->out, ch->out_len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			break;
		}
		if (n <= 0) {
			ch->eof = true; /* EPIPE, ECONNRESET: the server left */
			ch->out_len = 0;
			break;
		}
		memmove(ch->out, ch->out + n, ch->out_len - (size_t)n);
		ch->out_len -= (size_t)n;
	}
	if (ch->fde != NULL) {
		tevent_fd_set_flags(ch->fde, (ch->eof ? 0 : TEVENT_FD_READ) |
				    (ch->out_len > 0 ? TEVENT_FD_WRITE : 0));
	}
}

static void handle_frame(struct fz_client *c, const uint8_t *buf,
			 size_t len);

static void take_frames(struct fz_client *c)
{
	struct fz_chan *ch = c->ch;
	size_t off = 0;

	while (ch->in_len - off >= 4) {
		const uint8_t *p = ch->in + off;
		size_t len = ((size_t)p[1] << 16) | ((size_t)p[2] << 8) | p[3];

		if (p[0] != 0) {
			fz_fail("response frame type 0x%02x", p[0]);
		}
		if (ch->in_len - off - 4 < len) {
			break;
		}
		handle_frame(c, p + 4, len);
		off += 4 + len;
	}
	if (off > 0) {
		memmove(ch->in, ch->in + off, ch->in_len - off);
		ch->in_len -= off;
	}
}

static void read_in(struct fz_client *c)
{
	struct fz_chan *ch = c->ch;
	int fd = c->env->client_fd[ch->idx];

	for (;;) {
		uint8_t tmp[65536];
		ssize_t n = read(fd, tmp, sizeof(tmp));

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			break;
		}
		if (n <= 0) {
			ch->eof = true;
			break;
		}
		ch->in = talloc_realloc(c->env->top, ch->in, uint8_t,
					ch->in_len + (size_t)n);
		if (ch->in == NULL) {
			fz_fail("out of memory");
		}
		memcpy(ch->in + ch->in_len, tmp, (size_t)n);
		ch->in_len += (size_t)n;
	}
	take_frames(c);
}

/*
 * What a connection receives is handled with c->ch pointing at it (the
 * MessageIds, credits and channel keys are that connection's); the
 * program's choice comes back after.
 */
static void client_io(struct tevent_context *ev, struct tevent_fd *fde,
		      uint16_t flags, void *private_data)
{
	struct fz_chan *ch = private_data;
	struct fz_client *c = ch->client;
	struct fz_chan *steps = c->ch;

	if (flags & TEVENT_FD_READ) {
		c->ch = ch;
		read_in(c);
		c->ch = steps;
	}
	flush_out(ch);
}

static void chan_open(struct fz_client *c, unsigned i)
{
	struct fz_chan *ch = &c->chans[i];

	if (c->env->client_fd[i] == -1) {
		fz_env_connect(c->env, i);
	}
	*ch = (struct fz_chan){ .client = c, .idx = i, .open = true,
				.granted = 1 };
	ch->fde = tevent_add_fd(c->env->server->ev, c->env->top,
				c->env->client_fd[i], TEVENT_FD_READ,
				client_io, ch);
	if (ch->fde == NULL) {
		fz_fail("tevent_add_fd failed");
	}
}

void fz_client_init(struct fz_client *c, struct fz_env *env)
{
	*c = (struct fz_client){
		.env = env,
		.trace = getenv("FUZZ_SERVER_TRACE") != NULL,
	};
	chan_open(c, 0);
	c->ch = &c->chans[0];
}

void fz_client_use(struct fz_client *c, unsigned i)
{
	if (!c->chans[i % FZ_CONNS].open) {
		chan_open(c, i % FZ_CONNS);
	}
	c->ch = &c->chans[i % FZ_CONNS];
	if (c->trace) {
		fprintf(stderr, "fuzz_server: -> connection %u\n", c->ch->idx);
	}
}

void fz_client_hang_up(struct fz_client *c)
{
	(void)shutdown(c->env->client_fd[c->ch->idx], SHUT_WR);
	c->ch->hung_up = true;
	if (c->trace) {
		fprintf(stderr, "fuzz_server: connection %u: the client "
			"closes\n", c->ch->idx);
	}
}

bool fz_client_done(const struct fz_client *c)
{
	unsigned i;

	for (i = 0; i < FZ_CONNS; i++) {
		const struct fz_chan *ch = &c->chans[i];

		if (ch->open && !ch->eof && !ch->hung_up) {
			return false;
		}
	}
	return true;
}

void fz_client_free(struct fz_client *c)
{
	unsigned i;

	for (i = 0; i < FZ_CONNS; i++) {
		TALLOC_FREE(c->chans[i].fde);
		TALLOC_FREE(c->chans[i].in);
		TALLOC_FREE(c->chans[i].out);
		TALLOC_FREE(c->chans[i].negprot_req);
	}
	TALLOC_FREE(c->setup_blob);
	TALLOC_FREE(c->setup_rsp);
	crypto_wipe(c->sessions, sizeof(c->sessions));
	crypto_wipe(c->retired, sizeof(c->retired));
}

const uint8_t *fz_client_signing_key(const struct fz_client *c,
				     const struct fz_session *s)
{
	return s->bound[c->ch->idx] ? s->chan_signing[c->ch->idx] :
	       s->keys.signing;
}

uint64_t fz_client_credits(const struct fz_client *c)
{
	return c->ch->granted > c->ch->used ? c->ch->granted - c->ch->used : 0;
}

/* ---- requests ---- */

static struct fz_req *track(struct fz_client *c)
{
	size_t i, n = 0;

	if (c->ch->num_reqs == FZ_TRACK) {
		for (i = 0; i < c->ch->num_reqs; i++) {
			if (c->ch->reqs[i].state != FZ_DONE) {
				c->ch->reqs[n++] = c->ch->reqs[i];
			}
		}
		c->ch->num_reqs = n;
	}
	if (c->ch->num_reqs == FZ_TRACK) {
		c->ch->lenient = true;  /* too many waiting: stop checking */
		return NULL;
	}
	return &c->ch->reqs[c->ch->num_reqs++];
}

static uint16_t charge_for(const struct fz_client *c, uint32_t payload)
{
	if (c->ch->dialect < SMB2_DIALECT_0210 || !c->ch->large_mtu) {
		return 0;
	}
	return payload > 0 ? (uint16_t)((payload - 1) / 65536 + 1) : 1;
}

size_t fz_frame_add(struct fz_client *c, struct fz_frame *f,
		    struct smb2_hdr *hdr, const uint8_t *body,
		    size_t body_len, uint32_t payload_len, bool force)
{
	/* elements start 8-aligned from the message, after the NBT header */
	size_t pad = f->elements > 0 ? (8 - (f->len - 4) % 8) % 8 : 0;
	size_t at;
	struct fz_req *r = NULL;

	if (hdr->command != SMB2_OP_CANCEL) {
		uint16_t charge = charge_for(c, payload_len);
		uint16_t units = charge > 0 ? charge : 1;

		if (!force && fz_client_credits(c) < units) {
			return 0;
		}
		hdr->credit_charge = charge;
		hdr->message_id = c->ch->next_mid;
		c->ch->next_mid += units;
		c->ch->used += units;
		r = track(c);
		if (r != NULL) {
			*r = (struct fz_req){
				.mid = hdr->message_id,
				.command = hdr->command,
				.tracked = true,
			};
		}
	}
	if (f->buf == NULL) {
		f->len = 4;             /* the NBT header */
		pad = 0;
	}
	f->buf = talloc_realloc(c->env->top, f->buf, uint8_t,
				f->len + pad + SMB2_HDR_SIZE + body_len);
	if (f->buf == NULL) {
		fz_fail("out of memory");
	}
	memset(f->buf + f->len, 0, pad);
	if (f->elements > 0) {
		smb2_hdr_set_next_command(f->buf + f->last_hdr,
					  (uint32_t)(f->len + pad -
						     f->last_hdr));
	}
	at = f->len + pad;
	smb2_hdr_push(hdr, f->buf + at);
	memcpy(f->buf + at + SMB2_HDR_SIZE, body, body_len);
	f->len = at + SMB2_HDR_SIZE + body_len;
	f->last_hdr = at;
	f->elements++;
	return at;
}

static void queue_out(struct fz_client *c, const uint8_t *buf, size_t len)
{
	if (c->ch->eof || c->ch->hung_up || len == 0) {
		return;
	}
	c->ch->out = talloc_realloc(c->env->top, c->ch->out, uint8_t,
				c->ch->out_len + len);
	if (c->ch->out == NULL) {
		fz_fail("out of memory");
	}
	memcpy(c->ch->out + c->ch->out_len, buf, len);
	c->ch->out_len += len;
	flush_out(c->ch);
}

/*
 * A lone NEGOTIATE as it goes out: the 3.1.1 preauth hash starts with
 * it (MS-SMB2 3.2.5.2).  Anything else leaves the hash unknown.
 */
static void note_negprot(struct fz_client *c, const struct fz_frame *f)
{
	const uint8_t *m = f->buf + 4;
	size_t len = f->len - 4;

	if (len < SMB2_HDR_SIZE ||
	    pull_le32(m) != SMB2_PROTOCOL_ID ||
	    pull_le16(m + SMB2_HDR_OFS_COMMAND) != SMB2_OP_NEGPROT) {
		return;
	}
	TALLOC_FREE(c->ch->negprot_req);
	c->ch->negprot_req_len = 0;
	if (f->elements != 1) {
		return;
	}
	c->ch->negprot_req = talloc_memdup(c->env->top, m, len);
	if (c->ch->negprot_req == NULL) {
		fz_fail("out of memory");
	}
	c->ch->negprot_req_len = len;
}

void fz_frame_send(struct fz_client *c, struct fz_frame *f)
{
	if (f->buf != NULL) {
		note_negprot(c, f);
		push_be32(f->buf, (uint32_t)(f->len - 4) & FZ_NBT_MAX);
		queue_out(c, f->buf, f->len);
	}
	TALLOC_FREE(f->buf);
	*f = (struct fz_frame){};
}

void fz_client_send_raw(struct fz_client *c, const uint8_t *buf,
			size_t len)
{
	c->ch->lenient = true;
	queue_out(c, buf, len);
}

void fz_client_untrack_from(struct fz_client *c, size_t first_req)
{
	size_t i;

	c->ch->lenient = true;
	for (i = first_req; i < c->ch->num_reqs; i++) {
		c->ch->reqs[i].tracked = false;
	}
}

/* ---- signing and encryption of requests ---- */

static struct fz_req *find_req(struct fz_client *c, uint64_t mid)
{
	size_t i;

	for (i = c->ch->num_reqs; i > 0; i--) {
		if (c->ch->reqs[i - 1].mid == mid) {
			return &c->ch->reqs[i - 1];
		}
	}
	return NULL;
}

struct fz_session *fz_client_keys(struct fz_client *c, uint64_t id)
{
	unsigned i;

	for (i = 0; i < FZ_SLOTS; i++) {
		if (c->sessions[i].have_keys && c->sessions[i].id == id) {
			return &c->sessions[i];
		}
	}
	for (i = 0; i < FZ_SLOTS; i++) {
		if (c->retired[i].have_keys && c->retired[i].id == id) {
			return &c->retired[i];
		}
	}
	return NULL;
}

void fz_client_forget_keys(struct fz_client *c, uint64_t id)
{
	unsigned i;

	for (i = 0; i < FZ_SLOTS; i++) {
		if (c->sessions[i].id == id) {
			c->sessions[i].have_keys = false;
		}
		if (c->retired[i].id == id) {
			crypto_wipe(&c->retired[i], sizeof(c->retired[i]));
		}
	}
}

/* Whether the request header h names a tree connect that encrypts. */
static bool tree_encrypted(const struct fz_client *c, const uint8_t *h)
{
	uint64_t session_id = pull_le64(h + SMB2_HDR_OFS_SESSION_ID);
	uint32_t tree_id = pull_le32(h + SMB2_HDR_OFS_TREE_ID);
	unsigned i;

	for (i = 0; i < FZ_SLOTS; i++) {
		if (c->trees[i] == tree_id && c->tree_encrypt[i] &&
		    c->tree_session[i] == session_id) {
			return true;
		}
	}
	return false;
}

struct fz_session *fz_frame_sealer(struct fz_client *c,
				   const struct fz_frame *f)
{
	const uint8_t *h = NULL;
	struct fz_session *s = NULL;

	if (f->buf == NULL || c->plaintext) {
		return NULL;            /* NULL: no element (no credits) */
	}
	h = f->buf + 4;
	s = fz_client_keys(c, pull_le64(h + SMB2_HDR_OFS_SESSION_ID));
	if (s == NULL || s->cipher_id == 0 ||
	    (!s->encrypt &&
	     !tree_encrypted(c, h))) {
		return NULL;
	}
	return s;
}

/* Commands that run on a tree connect, under its encryption rule. */
static bool on_tree(uint16_t command)
{
	switch (command) {
	case SMB2_OP_CREATE: case SMB2_OP_CLOSE: case SMB2_OP_FLUSH:
	case SMB2_OP_READ: case SMB2_OP_WRITE: case SMB2_OP_LOCK:
	case SMB2_OP_IOCTL: case SMB2_OP_QUERY_DIRECTORY:
	case SMB2_OP_CHANGE_NOTIFY: case SMB2_OP_QUERY_INFO:
	case SMB2_OP_SET_INFO: case SMB2_OP_TDIS:
		return true;
	default:
		return false;
	}
}

/* One element, [at, end) of the frame: signed if its session has keys */
static void sign_element(struct fz_client *c, uint8_t *h, size_t len)
{
	struct fz_session *s = fz_client_keys(
		c, pull_le64(h + SMB2_HDR_OFS_SESSION_ID));
	struct fz_req *r = find_req(c, pull_le64(h + SMB2_HDR_OFS_MESSAGE_ID));
	struct iovec iov = { h, len };

	if (r != NULL) {
		r->plain_on_encrypted =
			on_tree(pull_le16(h + SMB2_HDR_OFS_COMMAND)) &&
			tree_encrypted(c, h);
	}
	if (s == NULL || c->unsigned_reqs) {
		return;
	}
	if (smb2_sign_pdu(s->dialect, s->signing_alg,
			  fz_client_signing_key(c, s), &iov,
			  1, false) != 0) {
		fz_fail("cannot sign a request");
	}
	if (r != NULL) {
		memcpy(r->signature, h + SMB2_HDR_OFS_SIGNATURE, 16);
	}
}

/*
 * Elements are found by NextCommand, which is ours (the program's
 * mutations come after); each is signed with its padding, as the server
 * checks it (MS-SMB2 3.2.4.1.1).
 */
void fz_frame_sign(struct fz_client *c, struct fz_frame *f)
{
	size_t at = 4;

	while (f->buf != NULL && f->len - at >= SMB2_HDR_SIZE) {
		uint32_t next = pull_le32(f->buf + at +
					  SMB2_HDR_OFS_NEXT_COMMAND);
		size_t end = next != 0 ? at + next : f->len;

		sign_element(c, f->buf + at, end - at);
		if (next == 0) {
			break;
		}
		at = end;
	}
}

void fz_frame_seal(struct fz_client *c, struct fz_frame *f,
		   struct fz_session *s)
{
	size_t msg_len = f->len - 4;
	uint8_t *buf = talloc_size(c->env->top,
				   4 + SMB2_TRANSFORM_HDR_SIZE + msg_len);
	struct iovec iov;

	if (buf == NULL) {
		fz_fail("out of memory");
	}
	memcpy(buf + 4 + SMB2_TRANSFORM_HDR_SIZE, f->buf + 4, msg_len);
	iov = (struct iovec){ buf + 4 + SMB2_TRANSFORM_HDR_SIZE, msg_len };
	/* the client encrypts with the server's decryption key */
	if (smb2_encrypt(s->cipher_id, s->keys.decrypt,
			 s->keys.cipher_key_len, buf + 4, &iov, 1, s->id,
			 &s->nonce) != 0) {
		fz_fail("cannot encrypt a request");
	}
	talloc_free(f->buf);
	f->buf = buf;
	f->len = 4 + SMB2_TRANSFORM_HDR_SIZE + msg_len;
}

/* ---- responses ---- */

static void got_break(struct fz_client *c, const uint8_t *body,
		      size_t len)
{
	uint16_t size = len >= 2 ? pull_le16(body) : 0;

	if (size == SMB2_OPLOCK_BREAK_SIZE && len >= 24) {
		c->have_break = true;
		c->break_is_lease = false;
		c->break_level = body[2];
		c->break_fid.persistent = pull_le64(body + 8);
		c->break_fid.volatile_id = pull_le64(body + 16);
	} else if (size == 44 && len >= 44) {
		c->have_break = true;
		c->break_is_lease = true;
		memcpy(c->break_lease_key, body + 8, 16);
		c->break_lease_state = pull_le32(body + 28);
	} else {
		fz_fail("a break notification of StructureSize %u", size);
	}
}

/*
 * A slot takes a session: the keys of the one that was there retire
 * (the slot only says which session a program step names).
 */
static void slot_take(struct fz_client *c, unsigned slot, uint64_t id)
{
	struct fz_session *s = &c->sessions[slot % FZ_SLOTS];

	if (s->id == id) {
		return;
	}
	if (s->have_keys) {
		c->retired[c->next_retired++ % FZ_SLOTS] = *s;
	}
	crypto_wipe(s, sizeof(*s));
	s->id = id;
}

static void got_setup(struct fz_client *c, const struct fz_req *r,
		      const struct smb2_hdr *h, const uint8_t *el,
		      size_t len)
{
	uint16_t ofs, blen;

	c->setup_status = h->status;
	c->setup_session_id = h->session_id;
	c->setup_session_flags = 0;
	TALLOC_FREE(c->setup_blob);
	c->setup_blob_len = 0;
	TALLOC_FREE(c->setup_rsp);
	c->setup_rsp = talloc_memdup(c->env->top, el, len);
	c->setup_rsp_len = c->setup_rsp != NULL ? len : 0;
	if (len < SMB2_HDR_SIZE + 8) {
		return;
	}
	c->setup_session_flags = pull_le16(el + SMB2_HDR_SIZE + 2);
	ofs = pull_le16(el + SMB2_HDR_SIZE + 4);
	blen = pull_le16(el + SMB2_HDR_SIZE + 6);
	if (blen > 0 && ofs >= SMB2_HDR_SIZE && ofs <= len &&
	    blen <= len - ofs) {
		c->setup_blob = talloc_memdup(c->env->top, el + ofs, blen);
		c->setup_blob_len = c->setup_blob != NULL ? blen : 0;
	}
	if (h->status == 0) {
		slot_take(c, r->session_slot, h->session_id);
		c->cur_session = r->session_slot % FZ_SLOTS;
	}
}

/*
 * What NEGOTIATE chose, also from a response to mutated bytes (they went
 * to the server as sent): the dialect, and what keys will need, the
 * signing algorithm, the cipher and the 3.1.1 preauth hash.
 */
static void got_negprot(struct fz_client *c, const uint8_t *el, size_t len)
{
	struct smb2_negprot_crsp r;
	struct smb2_pdu pdu;
	struct iovec iov[2] = {
		{ c->ch->negprot_req, c->ch->negprot_req_len }, { (void *)el, len },
	};
	bool is_error = false;

	if (!NT_STATUS_IS_OK(smb2_rsp_carve(el, len, 65, &pdu, &is_error)) ||
	    is_error || !NT_STATUS_IS_OK(smb2_negprot_crsp_pull(&pdu, &r))) {
		return;
	}
	c->ch->dialect = r.dialect;
	c->ch->signing_alg = SMB2_SIGNING_AES_CMAC;
	c->ch->cipher_id = 0;
	if (r.dialect == SMB2_DIALECT_0311) {
		c->ch->signing_alg = smb2_negprot_crsp_chosen(
			&r, SMB2_SIGNING_CAPABILITIES, SMB2_SIGNING_AES_CMAC);
		c->ch->cipher_id = smb2_negprot_crsp_chosen(
			&r, SMB2_ENCRYPTION_CAPABILITIES, 0);
	} else if (r.dialect >= SMB2_DIALECT_0300 &&
		   (r.capabilities & SMB2_GLOBAL_CAP_ENCRYPTION)) {
		c->ch->cipher_id = SMB2_ENCRYPTION_AES128_CCM;
	}
	memset(c->ch->preauth, 0, sizeof(c->ch->preauth));
	c->ch->preauth_known = c->ch->negprot_req != NULL;
	if (c->ch->preauth_known) {
		/* a chain: H(H(0 || request) || response) */
		smb2_preauth_update(c->ch->preauth, &iov[0], 1);
		smb2_preauth_update(c->ch->preauth, &iov[1], 1);
	}
}

static void got_final(struct fz_client *c, const struct fz_req *r,
		      const struct smb2_hdr *h, const uint8_t *el,
		      size_t len)
{
	const uint8_t *body = el + SMB2_HDR_SIZE;
	size_t blen = len - SMB2_HDR_SIZE;

	switch (h->command) {
	case SMB2_OP_SESSSETUP:
		got_setup(c, r, h, el, len);
		break;
	case SMB2_OP_TCON:
		if (h->status == 0 && blen >= 8) {
			c->trees[r->session_slot % FZ_SLOTS] = h->tree_id;
			c->tree_session[r->session_slot % FZ_SLOTS] =
				h->session_id;
			c->tree_encrypt[r->session_slot % FZ_SLOTS] =
				(pull_le32(body + 4) &
				 SMB2_SHAREFLAG_ENCRYPT_DATA) != 0;
			c->cur_tree = r->session_slot % FZ_SLOTS;
		}
		break;
	case SMB2_OP_CREATE:
		if (h->status == 0 && blen >= 80) {
			struct smb2_file_id *fid =
				&c->files[c->next_file_slot++ % FZ_SLOTS];

			fid->persistent = pull_le64(body + 64);
			fid->volatile_id = pull_le64(body + 72);
		}
		break;
	default:
		break;
	}
}

static void got_credits(struct fz_client *c, const struct smb2_hdr *h)
{
	c->ch->granted += h->credit;
	if (!c->ch->lenient && fz_client_credits(c) > SMBD_MAX_CREDITS) {
		fz_fail("the client holds %llu credits, more than %u",
			(unsigned long long)fz_client_credits(c),
			SMBD_MAX_CREDITS);
	}
}

/*
 * A response the server signed for a session we hold keys for must
 * verify.  Not checked: no SIGNED flag, or a zero signature or the
 * request's own echoed with it (what a server sends for a signed
 * request it cannot answer signed, pipeline_response.c).
 */
static bool check_signature(struct fz_client *c, const struct fz_req *r,
			    const struct smb2_hdr *h, const uint8_t *el,
			    size_t len)
{
	static const uint8_t zero[16];
	struct fz_session *s = NULL;
	struct iovec iov = { (void *)el, len };

	if (!(h->flags & SMB2_FLAGS_SIGNED) ||
	    memcmp(h->signature, zero, sizeof(zero)) == 0 ||
	    (r != NULL && memcmp(h->signature, r->signature, 16) == 0)) {
		return false;
	}
	if (r != NULL && r->binding && h->status == 0) {
		return false;   /* the channel's key: channel_key() checks */
	}
	s = fz_client_keys(c, h->session_id);
	if (s == NULL) {
		return false;
	}
	if (smb2_sign_check(s->dialect, s->signing_alg,
			    fz_client_signing_key(c, s), &iov, 1, true) != 0) {
		fz_fail("%s response, MessageId %llu, status 0x%08x: its "
			"signature does not verify", smb2_op_name(h->command),
			(unsigned long long)h->message_id, h->status);
	}
	return true;
}

static void handle_element(struct fz_client *c, const uint8_t *el,
			   size_t len)
{
	struct smb2_hdr h;
	struct fz_req *r = NULL;
	bool interim, verified;

	if (!NT_STATUS_IS_OK(smb2_hdr_pull(el, len, &h))) {
		fz_fail("a response element with a bad SMB2 header");
	}
	if (!(h.flags & SMB2_FLAGS_SERVER_TO_REDIR)) {
		fz_fail("a response without SERVER_TO_REDIR");
	}
	c->responses++;
	r = find_req(c, h.message_id);
	verified = check_signature(c, r, &h, el, len);
	if (c->trace) {
		fprintf(stderr, "fuzz_server: <- %s mid %llu status 0x%08x "
			"credits %u%s%s%s%s\n", smb2_op_name(h.command),
			(unsigned long long)h.message_id, h.status, h.credit,
			(h.flags & SMB2_FLAGS_ASYNC_COMMAND) ? " async" : "",
			verified ? " signed" : "",
			c->in_sealed ? " encrypted" : "",
			c->ch->idx != 0 ? " (connection 1)" : "");
	}
	if (h.message_id == FZ_BREAK_MID) {
		if (h.command != SMB2_OP_OPLOCK_BREAK) {
			fz_fail("MessageId -1 on command %u", h.command);
		}
		got_break(c, el + SMB2_HDR_SIZE, len - SMB2_HDR_SIZE);
		return;
	}
	if (h.command == SMB2_OP_NEGPROT && h.status == 0) {
		got_negprot(c, el, len);
	}
	got_credits(c, &h);
	if (r == NULL || !r->tracked) {
		if (!c->ch->lenient) {
			fz_fail("a response to MessageId %llu, never sent",
				(unsigned long long)h.message_id);
		}
		return;
	}
	interim = h.status == NT_STATUS_V(NT_STATUS_PENDING) &&
		  (h.flags & SMB2_FLAGS_ASYNC_COMMAND);
	if (r->state == FZ_DONE || (interim && r->state != FZ_SENT)) {
		fz_fail("MessageId %llu (%s) answered twice",
			(unsigned long long)h.message_id,
			smb2_op_name(r->command));
	}
	if (interim) {
		r->state = FZ_INTERIM;
		r->async_id = h.async_id;
		return;
	}
	r->state = FZ_DONE;
	if (r->plain_on_encrypted && !NT_STATUS_IS_ERR(NT_STATUS(h.status))) {
		fz_fail("%s sent in plaintext to a tree that encrypts was "
			"answered 0x%08x", smb2_op_name(r->command), h.status);
	}
	got_final(c, r, &h, el, len);
}

static void handle_message(struct fz_client *c, const uint8_t *buf,
			   size_t len)
{
	size_t off = 0;

	while (off < len) {
		uint32_t next;

		if (len - off < SMB2_HDR_SIZE) {
			fz_fail("a response element of %zu bytes", len - off);
		}
		next = pull_le32(buf + off + SMB2_HDR_OFS_NEXT_COMMAND);
		if (next == 0) {
			handle_element(c, buf + off, len - off);
			return;
		}
		if (next % 8 != 0 || next < SMB2_HDR_SIZE ||
		    next >= len - off) {
			fz_fail("a response NextCommand of %u", next);
		}
		handle_element(c, buf + off, next);
		off += next;
	}
}

/*
 * An encrypted response (MS-SMB2 3.2.5.1.1): a well-formed TRANSFORM
 * header for a session we hold keys for, a tag that verifies, and an
 * SMB2 message inside.
 */
static void handle_sealed(struct fz_client *c, const uint8_t *buf,
			  size_t len)
{
	struct smb2_transform_hdr th;
	struct fz_session *s = NULL;
	size_t consumed = 0;
	uint8_t *msg = NULL;
	struct iovec iov;

	if (!NT_STATUS_IS_OK(smb2_transform_pull(buf, len, &th, &consumed)) ||
	    consumed != len) {
		fz_fail("a malformed TRANSFORM response of %zu bytes", len);
	}
	s = fz_client_keys(c, th.session_id);
	if (s == NULL || s->cipher_id == 0) {
		if (!c->ch->lenient) {
			fz_fail("a TRANSFORM response for session 0x%llx, "
				"which has no keys here",
				(unsigned long long)th.session_id);
		}
		return;
	}
	msg = talloc_memdup(c->env->top, th.msg, th.msg_size);
	if (msg == NULL) {
		fz_fail("out of memory");
	}
	iov = (struct iovec){ msg, th.msg_size };
	/* the client decrypts with the server's encryption key */
	if (smb2_decrypt(s->cipher_id, s->keys.encrypt,
			 s->keys.cipher_key_len, buf, &iov, 1) != 0) {
		fz_fail("a TRANSFORM response whose tag does not verify");
	}
	if (th.msg_size >= 4 && pull_le32(msg) != SMB2_PROTOCOL_ID) {
		fz_fail("a TRANSFORM response holding 0x%08x",
			pull_le32(msg));
	}
	c->in_sealed = true;
	handle_message(c, msg, th.msg_size);
	c->in_sealed = false;
	talloc_free(msg);
}

static void handle_frame(struct fz_client *c, const uint8_t *buf,
			 size_t len)
{
	if (len >= 4 && pull_le32(buf) == SMB2_TRANSFORM_PROTOCOL_ID) {
		handle_sealed(c, buf, len);
		return;
	}
	handle_message(c, buf, len);
}

/* ---- settling ---- */

/*
 * The first request on ch still waiting for an answer, or NULL; none
 * counts once the connection is closed or has bytes still to go out.
 */
static const struct fz_req *first_waiting(struct fz_client *c,
					  const struct fz_chan *ch)
{
	size_t i;

	if (!ch->open || ch->eof || ch->hung_up || ch->out_len > 0 ||
	    !fz_env_conn_alive(c->env, ch->idx)) {
		return NULL;
	}
	for (i = 0; i < ch->num_reqs; i++) {
		if (ch->reqs[i].tracked && ch->reqs[i].state == FZ_SENT) {
			return &ch->reqs[i];
		}
	}
	return NULL;
}

static const struct fz_req *any_waiting(struct fz_client *c)
{
	const struct fz_req *r = NULL;
	unsigned i;

	for (i = 0; i < FZ_CONNS && r == NULL; i++) {
		r = first_waiting(c, &c->chans[i]);
	}
	return r;
}

void fz_client_settle(struct fz_client *c)
{
	const struct fz_req *r = NULL;
	unsigned round;

	fz_env_run_idle(c->env);
	for (round = 0; round < 10 && any_waiting(c) != NULL; round++) {
		if (round < 3) {
			fz_env_wait_real(c->env, 2);
		} else {
			fz_env_advance(c->env, round < 6 ? 1 : 40);
		}
	}
	r = any_waiting(c);
	if (r != NULL) {
		fz_fail("MessageId %llu (%s) not answered, connection open",
			(unsigned long long)r->mid, smb2_op_name(r->command));
	}
}

const struct fz_req *fz_client_pending(const struct fz_client *c,
				       unsigned which)
{
	size_t i, n = 0;

	for (i = 0; i < c->ch->num_reqs; i++) {
		if (c->ch->reqs[i].state == FZ_INTERIM ||
		    c->ch->reqs[i].state == FZ_SENT) {
			n++;
		}
	}
	if (n == 0) {
		return NULL;
	}
	which %= n;
	for (i = 0; i < c->ch->num_reqs; i++) {
		if (c->ch->reqs[i].state == FZ_INTERIM ||
		    c->ch->reqs[i].state == FZ_SENT) {
			if (which-- == 0) {
				return &c->ch->reqs[i];
			}
		}
	}
	return NULL;
}
