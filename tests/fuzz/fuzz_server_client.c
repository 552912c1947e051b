/*
 * The client end of fuzz_server (fuzz_server_client.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lib/util/byteorder.h"
#include "source3/smbd/pipeline/credits.h"
#include "tests/fuzz/fuzz_server_client.h"

#define FZ_NBT_MAX 0xFFFFFF
#define FZ_BREAK_MID UINT64_MAX

/* ---- the socket ---- */

static void flush_out(struct fz_client *c)
{
	while (c->out_len > 0 && !c->eof) {
		ssize_t n = send(c->env->client_fd, c->out, c->out_len,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			break;
		}
		if (n <= 0) {
			c->eof = true;  /* EPIPE, ECONNRESET: the server left */
			c->out_len = 0;
			break;
		}
		memmove(c->out, c->out + n, c->out_len - (size_t)n);
		c->out_len -= (size_t)n;
	}
	if (c->fde != NULL) {
		tevent_fd_set_flags(c->fde, (c->eof ? 0 : TEVENT_FD_READ) |
				    (c->out_len > 0 ? TEVENT_FD_WRITE : 0));
	}
}

static void handle_frame(struct fz_client *c, const uint8_t *buf,
			 size_t len);

static void take_frames(struct fz_client *c)
{
	size_t off = 0;

	while (c->in_len - off >= 4) {
		const uint8_t *p = c->in + off;
		size_t len = ((size_t)p[1] << 16) | ((size_t)p[2] << 8) | p[3];

		if (p[0] != 0) {
			fz_fail("response frame type 0x%02x", p[0]);
		}
		if (c->in_len - off - 4 < len) {
			break;
		}
		handle_frame(c, p + 4, len);
		off += 4 + len;
	}
	if (off > 0) {
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
	}
}

static void read_in(struct fz_client *c)
{
	for (;;) {
		uint8_t tmp[65536];
		ssize_t n = read(c->env->client_fd, tmp, sizeof(tmp));

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			break;
		}
		if (n <= 0) {
			c->eof = true;
			break;
		}
		c->in = talloc_realloc(c->env->top, c->in, uint8_t,
				       c->in_len + (size_t)n);
		if (c->in == NULL) {
			fz_fail("out of memory");
		}
		memcpy(c->in + c->in_len, tmp, (size_t)n);
		c->in_len += (size_t)n;
	}
	take_frames(c);
}

static void client_io(struct tevent_context *ev, struct tevent_fd *fde,
		      uint16_t flags, void *private_data)
{
	struct fz_client *c = private_data;

	if (flags & TEVENT_FD_READ) {
		read_in(c);
	}
	flush_out(c);
}

void fz_client_init(struct fz_client *c, struct fz_env *env)
{
	*c = (struct fz_client){
		.env = env,
		.granted = 1,
		.trace = getenv("FUZZ_SERVER_TRACE") != NULL,
	};
	c->fde = tevent_add_fd(env->server->ev, env->top, env->client_fd,
			       TEVENT_FD_READ, client_io, c);
	if (c->fde == NULL) {
		fz_fail("tevent_add_fd failed");
	}
}

void fz_client_free(struct fz_client *c)
{
	TALLOC_FREE(c->fde);
	TALLOC_FREE(c->in);
	TALLOC_FREE(c->out);
	TALLOC_FREE(c->setup_blob);
}

uint64_t fz_client_credits(const struct fz_client *c)
{
	return c->granted > c->used ? c->granted - c->used : 0;
}

/* ---- requests ---- */

static struct fz_req *track(struct fz_client *c)
{
	size_t i, n = 0;

	if (c->num_reqs == FZ_TRACK) {
		for (i = 0; i < c->num_reqs; i++) {
			if (c->reqs[i].state != FZ_DONE) {
				c->reqs[n++] = c->reqs[i];
			}
		}
		c->num_reqs = n;
	}
	if (c->num_reqs == FZ_TRACK) {
		c->lenient = true;      /* too many waiting: stop checking */
		return NULL;
	}
	return &c->reqs[c->num_reqs++];
}

static uint16_t charge_for(const struct fz_client *c, uint32_t payload)
{
	if (c->dialect < SMB2_DIALECT_0210 || !c->large_mtu) {
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
		hdr->message_id = c->next_mid;
		c->next_mid += units;
		c->used += units;
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
	if (c->eof || len == 0) {
		return;
	}
	c->out = talloc_realloc(c->env->top, c->out, uint8_t,
				c->out_len + len);
	if (c->out == NULL) {
		fz_fail("out of memory");
	}
	memcpy(c->out + c->out_len, buf, len);
	c->out_len += len;
	flush_out(c);
}

void fz_frame_send(struct fz_client *c, struct fz_frame *f)
{
	if (f->buf != NULL) {
		push_be32(f->buf, (uint32_t)(f->len - 4) & FZ_NBT_MAX);
		queue_out(c, f->buf, f->len);
	}
	TALLOC_FREE(f->buf);
	*f = (struct fz_frame){};
}

void fz_client_send_raw(struct fz_client *c, const uint8_t *buf,
			size_t len)
{
	c->lenient = true;
	queue_out(c, buf, len);
}

void fz_client_untrack_from(struct fz_client *c, size_t first_req)
{
	size_t i;

	c->lenient = true;
	for (i = first_req; i < c->num_reqs; i++) {
		c->reqs[i].tracked = false;
	}
}

/* ---- responses ---- */

static struct fz_req *find_req(struct fz_client *c, uint64_t mid)
{
	size_t i;

	for (i = c->num_reqs; i > 0; i--) {
		if (c->reqs[i - 1].mid == mid) {
			return &c->reqs[i - 1];
		}
	}
	return NULL;
}

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

static void got_setup(struct fz_client *c, const struct fz_req *r,
		      const struct smb2_hdr *h, const uint8_t *el,
		      size_t len)
{
	uint16_t ofs, blen;

	c->setup_status = h->status;
	c->setup_session_id = h->session_id;
	TALLOC_FREE(c->setup_blob);
	c->setup_blob_len = 0;
	if (len < SMB2_HDR_SIZE + 8) {
		return;
	}
	ofs = pull_le16(el + SMB2_HDR_SIZE + 4);
	blen = pull_le16(el + SMB2_HDR_SIZE + 6);
	if (blen > 0 && ofs >= SMB2_HDR_SIZE && ofs <= len &&
	    blen <= len - ofs) {
		c->setup_blob = talloc_memdup(c->env->top, el + ofs, blen);
		c->setup_blob_len = c->setup_blob != NULL ? blen : 0;
	}
	if (h->status == 0) {
		c->sessions[r->session_slot % FZ_SLOTS] = h->session_id;
		c->cur_session = r->session_slot % FZ_SLOTS;
	}
}

static void got_final(struct fz_client *c, const struct fz_req *r,
		      const struct smb2_hdr *h, const uint8_t *el,
		      size_t len)
{
	const uint8_t *body = el + SMB2_HDR_SIZE;
	size_t blen = len - SMB2_HDR_SIZE;

	switch (h->command) {
	case SMB2_OP_NEGPROT:
		if (h->status == 0 && blen >= 6) {
			c->dialect = pull_le16(body + 4);
		}
		break;
	case SMB2_OP_SESSSETUP:
		got_setup(c, r, h, el, len);
		break;
	case SMB2_OP_TCON:
		if (h->status == 0) {
			c->trees[r->session_slot % FZ_SLOTS] = h->tree_id;
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
	c->granted += h->credit;
	if (!c->lenient && fz_client_credits(c) > SMBD_MAX_CREDITS) {
		fz_fail("the client holds %llu credits, more than %u",
			(unsigned long long)fz_client_credits(c),
			SMBD_MAX_CREDITS);
	}
}

static void handle_element(struct fz_client *c, const uint8_t *el,
			   size_t len)
{
	struct smb2_hdr h;
	struct fz_req *r = NULL;
	bool interim;

	if (!NT_STATUS_IS_OK(smb2_hdr_pull(el, len, &h))) {
		fz_fail("a response element with a bad SMB2 header");
	}
	if (!(h.flags & SMB2_FLAGS_SERVER_TO_REDIR)) {
		fz_fail("a response without SERVER_TO_REDIR");
	}
	c->responses++;
	if (c->trace) {
		fprintf(stderr, "fuzz_server: <- %s mid %llu status 0x%08x "
			"credits %u%s\n", smb2_op_name(h.command),
			(unsigned long long)h.message_id, h.status, h.credit,
			(h.flags & SMB2_FLAGS_ASYNC_COMMAND) ? " async" : "");
	}
	if (h.message_id == FZ_BREAK_MID) {
		if (h.command != SMB2_OP_OPLOCK_BREAK) {
			fz_fail("MessageId -1 on command %u", h.command);
		}
		got_break(c, el + SMB2_HDR_SIZE, len - SMB2_HDR_SIZE);
		return;
	}
	r = find_req(c, h.message_id);
	got_credits(c, &h);
	if (r == NULL || !r->tracked) {
		if (!c->lenient) {
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
	got_final(c, r, &h, el, len);
}

static void handle_frame(struct fz_client *c, const uint8_t *buf,
			 size_t len)
{
	size_t off = 0;

	if (len >= 4 && pull_le32(buf) == SMB2_TRANSFORM_PROTOCOL_ID) {
		c->lenient = true;      /* encrypted: we hold no keys */
		return;
	}
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

/* ---- settling ---- */

static const struct fz_req *first_waiting(const struct fz_client *c)
{
	size_t i;

	for (i = 0; i < c->num_reqs; i++) {
		if (c->reqs[i].tracked && c->reqs[i].state == FZ_SENT) {
			return &c->reqs[i];
		}
	}
	return NULL;
}

void fz_client_settle(struct fz_client *c)
{
	const struct fz_req *r = NULL;
	unsigned round;

	fz_env_run_idle(c->env);
	for (round = 0; round < 10; round++) {
		if (c->eof || c->out_len > 0 || first_waiting(c) == NULL ||
		    !fz_env_conn_alive(c->env)) {
			break;
		}
		if (round < 3) {
			fz_env_wait_real(c->env, 2);
		} else {
			fz_env_advance(c->env, round < 6 ? 1 : 40);
		}
	}
	r = first_waiting(c);
	if (r != NULL && c->out_len == 0 && !c->eof &&
	    fz_env_conn_alive(c->env)) {
		fz_fail("MessageId %llu (%s) not answered, connection open",
			(unsigned long long)r->mid, smb2_op_name(r->command));
	}
}

const struct fz_req *fz_client_pending(const struct fz_client *c,
				       unsigned which)
{
	size_t i, n = 0;

	for (i = 0; i < c->num_reqs; i++) {
		if (c->reqs[i].state == FZ_INTERIM ||
		    c->reqs[i].state == FZ_SENT) {
			n++;
		}
	}
	if (n == 0) {
		return NULL;
	}
	which %= n;
	for (i = 0; i < c->num_reqs; i++) {
		if (c->reqs[i].state == FZ_INTERIM ||
		    c->reqs[i].state == FZ_SENT) {
			if (which-- == 0) {
				return &c->reqs[i];
			}
		}
	}
	return NULL;
}
