/*
 * libFuzzer harness: one DCE/RPC association of source3/rpc_server,
 * driven as the SMB side drives a named pipe.  The first input byte
 * picks the pipe and the caller (bit 0 wkssvc, bit 1 admin, bit 2
 * anonymous, bit 3 a list of 100 shares so responses fragment); the
 * rest is writes, each a length byte and that many bytes.  After each
 * write the output is drained, in reads whose size the length byte
 * picks, and these must hold (abort otherwise):
 *   - readable never exceeds RPC_PIPE_MAX_OUTPUT + one fragment, and
 *     the pipe's memory stays under its unread output plus the caps
 *     (fragment, request stub), also when reads leave bytes behind;
 *   - once disconnected, it stays so, writes fail with
 *     NT_STATUS_PIPE_DISCONNECTED and queue nothing;
 *   - what is read is whole PDUs that pull, of the types a server
 *     sends; responses fit the max_xmit_frag the bind_ack announced
 *     and carry whole 8-byte units of stub except in a LAST fragment.
 * Seed corpus: tests/fuzz/corpus/rpc_pipe/ (from test_rpc_server's
 * sessions, rpc_server_test_util.c rt_write_seed for the format).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "lib/dcerpc/dcerpc.h"
#include "source3/rpc_server/rpc_server.h"

/* the largest fragment the server sends (rpc_pipe.c) */
#define MAX_FRAG	4280
/* what one pipe may hold besides its unread output: a fragment, a
 * request stub, the pipe itself */
#define MAX_PIPE_MEM	(65535 + RPC_MAX_REQUEST_STUB + 64 * 1024)

#define CHECK(x) do { \
	if (!(x)) { \
		fprintf(stderr, "fuzz_rpc_pipe: %s:%d: %s\n", __FILE__, \
			__LINE__, #x); \
		abort(); \
	} \
} while (0)

struct harness {
	bool many;
	/* the output read so far that is not a whole PDU yet */
	uint8_t *pending;
	size_t pending_len;
	uint16_t max_xmit;	/* from the bind_ack; 0 before */
	/* bytes the last drain read: the pipe may hold them until it
	 * queues again */
	size_t last_read;
};

static NTSTATUS list_shares(void *priv, TALLOC_CTX *mem_ctx,
			    struct rpc_share **shares, size_t *num)
{
	const struct harness *h = priv;
	static const struct rpc_share fixed[] = {
		{ .name = "data", .comment = "Data", .path = "/srv/data",
		  .current_uses = 2, .browseable = true, .enumerable = true },
		{ .name = "hidden$", .comment = "", .path = "/srv/h",
		  .browseable = true, .enumerable = true },
		{ .name = "nobrowse", .comment = NULL, .path = NULL,
		  .browseable = false, .enumerable = true },
		{ .name = "secret", .comment = "s", .path = "/s",
		  .browseable = true, .enumerable = false },
		{ .name = "IPC$", .comment = "IPC Service", .path = "/tmp",
		  .type = RPC_STYPE_IPC | RPC_STYPE_SPECIAL,
		  .browseable = true, .enumerable = true },
	};
	size_t n = h->many ? 100 : sizeof(fixed) / sizeof(fixed[0]);
	struct rpc_share *s = talloc_zero_array(mem_ctx, struct rpc_share, n);
	size_t i;

	if (s == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n; i++) {
		if (!h->many) {
			s[i] = fixed[i];
			continue;
		}
		s[i] = fixed[0];
		s[i].name = talloc_asprintf(s, "share%03zu", i);
		s[i].comment = talloc_asprintf(s, "Share number %03zu", i);
		if (s[i].name == NULL || s[i].comment == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	*shares = s;
	*num = n;
	return NT_STATUS_OK;
}

/* One whole PDU the server sent. */
static void check_pdu(struct harness *h, const uint8_t *buf, size_t len)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct dcerpc_pdu pdu;

	CHECK(tmp != NULL);
	CHECK(NT_STATUS_IS_OK(dcerpc_pdu_pull(tmp, buf, len, &pdu)));
	CHECK(!pdu.has_auth);
	switch (pdu.hdr.ptype) {
	case DCERPC_PT_BIND_ACK:
		CHECK(h->max_xmit == 0);
		h->max_xmit = pdu.u.ack.max_xmit_frag;
		CHECK(h->max_xmit >= 64 && h->max_xmit <= MAX_FRAG);
		CHECK(pdu.u.ack.max_recv_frag <= MAX_FRAG);
		break;
	case DCERPC_PT_RESPONSE:
		CHECK(h->max_xmit != 0);
		CHECK(len <= h->max_xmit);
		CHECK((pdu.hdr.pfc_flags & DCERPC_PFC_LAST_FRAG) ||
		      (pdu.u.rsp.stub_len > 0 &&
		       pdu.u.rsp.stub_len % 8 == 0));
		CHECK(pdu.u.rsp.alloc_hint >= pdu.u.rsp.stub_len);
		break;
	case DCERPC_PT_FAULT:
		CHECK(pdu.hdr.pfc_flags & DCERPC_PFC_FIRST_FRAG);
		CHECK(pdu.hdr.pfc_flags & DCERPC_PFC_LAST_FRAG);
		CHECK(pdu.u.fault.status != 0);
		break;
	case DCERPC_PT_BIND_NAK:
	case DCERPC_PT_ALTER_CONTEXT_RESP:
		break;
	default:
		CHECK(!"a PDU type a server does not send");
	}
	talloc_free(tmp);
}

/* Bytes read: appended, and each whole PDU in them checked. */
static void take_output(struct harness *h, const uint8_t *buf, size_t n)
{
	size_t ofs = 0;
	uint8_t *nb = talloc_realloc(NULL, h->pending, uint8_t,
				     h->pending_len + n);

	CHECK(nb != NULL);
	memcpy(nb + h->pending_len, buf, n);
	h->pending = nb;
	h->pending_len += n;
	while (h->pending_len - ofs >= DCERPC_HDR_SIZE) {
		struct dcerpc_hdr hdr;

		CHECK(NT_STATUS_IS_OK(dcerpc_hdr_pull(h->pending + ofs,
						      h->pending_len - ofs,
						      &hdr)));
		if (hdr.frag_length > h->pending_len - ofs) {
			break;
		}
		check_pdu(h, h->pending + ofs, hdr.frag_length);
		ofs += hdr.frag_length;
	}
	memmove(h->pending, h->pending + ofs, h->pending_len - ofs);
	h->pending_len -= ofs;
}

/* Reads in pieces of chunk bytes until no more than keep are left. */
static void drain(struct harness *h, struct rpc_pipe *p, size_t chunk,
		  size_t keep)
{
	static uint8_t buf[8192];

	CHECK(rpc_pipe_readable(p) <= RPC_PIPE_MAX_OUTPUT + MAX_FRAG);
	/* what was read is not held for long: memory follows the unread */
	CHECK(talloc_total_size(p) <=
	      rpc_pipe_readable(p) + h->last_read + MAX_PIPE_MEM);
	h->last_read = 0;
	while (rpc_pipe_readable(p) > keep) {
		size_t want = rpc_pipe_readable(p);
		size_t n = rpc_pipe_read(p, buf, chunk);

		CHECK(n == (want < chunk ? want : chunk));
		CHECK(n > 0);
		h->last_read += n;
		CHECK(rpc_pipe_readable(p) == want - n);
		take_output(h, buf, n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem_ctx = NULL;
	struct harness h = {};
	struct rpc_client c = {
		.server_name = "RINGSMB",
		.server_comment = "ringsmb",
		.domain = "WORKGROUP",
		.user = "alice",
		.deadtime = 15,
		.list_shares = list_shares,
		.priv = &h,
	};
	struct rpc_pipe *p = NULL;
	size_t ofs = 1;

	if (size < 1) {
		return 0;
	}
	mem_ctx = talloc_new(NULL);
	CHECK(mem_ctx != NULL);
	c.admin = (data[0] & 2) != 0;
	c.anonymous = (data[0] & 4) != 0;
	h.many = (data[0] & 8) != 0;
	CHECK(NT_STATUS_IS_OK(rpc_pipe_open(mem_ctx,
					    data[0] & 1 ? "wkssvc" : "srvsvc",
					    &c, &p)));
	while (ofs < size) {
		uint8_t lb = data[ofs++];
		size_t n = lb;
		bool was_gone = rpc_pipe_disconnected(p);
		size_t queued = rpc_pipe_readable(p);
		/* an exact-size copy, so ASan sees any read past it */
		uint8_t *buf = NULL;
		NTSTATUS status;

		n = n < size - ofs ? n : size - ofs;
		buf = malloc(n > 0 ? n : 1);
		CHECK(buf != NULL);
		memcpy(buf, data + ofs, n);
		status = rpc_pipe_write(p, buf, n);
		free(buf);
		if (was_gone) {
			CHECK(NT_STATUS_EQUAL(status,
					      NT_STATUS_PIPE_DISCONNECTED));
			CHECK(rpc_pipe_readable(p) == queued);
		} else {
			CHECK(NT_STATUS_IS_OK(status));
		}
		CHECK(!was_gone || rpc_pipe_disconnected(p));
		/*
		 * read sizes from 1 to 8192, and one write in three leaves
		 * up to 15 bytes unread (a client reading short)
		 */
		drain(&h, p, 1 + (lb * 131u) % 8192, lb % 3 == 0 ? lb % 16 : 0);
		ofs += n;
	}
	drain(&h, p, 8192, 0);
	/* all that was read is whole PDUs */
	CHECK(h.pending_len == 0);
	talloc_free(h.pending);
	talloc_free(mem_ctx);
	return 0;
}
