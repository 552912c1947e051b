/*
 * One DCE/RPC association over a named pipe (MS-RPCE 3.3, C706 chapter
 * 12): the bytes the client writes are cut into fragments, binds and
 * alter_contexts negotiate presentation contexts, request fragments are
 * gathered into one stub and handed to the interface's operation, and
 * the answer goes out as response fragments (or a fault).  A protocol
 * error ends the association: the client reads what was queued, then
 * the pipe is disconnected (docs/dcerpc.md, "The pipe layer").
 */
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include "lib/util/debug.h"
#include "source3/rpc_server/rpc_private.h"

/* the largest fragment we send or accept (what Windows offers) */
#define RPC_SERVER_MAX_FRAG	4280
/* below this a peer cannot even receive a fault with some stub */
#define RPC_MIN_FRAG		64
/* request: header + alloc_hint, p_cont_id, opnum */
#define RPC_REQUEST_HDR		24
#define RPC_RESPONSE_HDR	24
/* a presentation context per accepted bind/alter_context element */
#define RPC_MAX_CONTEXTS	DCERPC_MAX_CONTEXTS

struct rpc_context {
	uint16_t id;
	const struct rpc_iface *iface;
};

struct rpc_pipe {
	const struct rpc_iface *iface;
	struct rpc_client client;
	bool bound;
	bool disconnected;
	uint32_t assoc_group_id;
	uint16_t max_xmit_frag;
	uint16_t max_recv_frag;
	struct rpc_context ctx[RPC_MAX_CONTEXTS];
	size_t num_ctx;
	/* the fragment being received: its header, then all of it */
	uint8_t hdr[DCERPC_HDR_SIZE];
	uint8_t *frag;
	size_t frag_have;
	size_t frag_need;
	/* the request being gathered from its fragments */
	bool in_request;
	uint32_t req_call_id;
	uint16_t req_cont_id;
	uint16_t req_opnum;
	uint8_t *stub;
	size_t stub_len;
	/* queued for the client to read */
	uint8_t *out;
	size_t out_len;
	size_t out_ofs;
};

static const struct rpc_iface *const rpc_ifaces[] = {
	&rpc_iface_srvsvc,
	&rpc_iface_wkssvc,
};

static const struct rpc_iface *iface_by_pipe(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(rpc_ifaces) / sizeof(rpc_ifaces[0]); i++) {
		if (strcasecmp(rpc_ifaces[i]->pipe_name, name) == 0) {
			return rpc_ifaces[i];
		}
	}
	return NULL;
}

bool rpc_pipe_known(const char *name)
{
	return iface_by_pipe(name) != NULL;
}

static char *dup_or_empty(TALLOC_CTX *mem_ctx, const char *s)
{
	return talloc_strdup(mem_ctx, s != NULL ? s : "");
}

NTSTATUS rpc_pipe_open(TALLOC_CTX *mem_ctx, const char *name,
		       const struct rpc_client *client,
		       struct rpc_pipe **out)
{
	const struct rpc_iface *iface = iface_by_pipe(name);
	struct rpc_pipe *p = NULL;

	if (iface == NULL) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	p = talloc_zero(mem_ctx, struct rpc_pipe);
	if (p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	p->iface = iface;
	p->client = *client;
	p->client.server_name = dup_or_empty(p, client->server_name);
	p->client.server_comment = dup_or_empty(p, client->server_comment);
	p->client.domain = dup_or_empty(p, client->domain);
	p->client.user = dup_or_empty(p, client->user);
	if (p->client.server_name == NULL || p->client.user == NULL ||
	    p->client.server_comment == NULL || p->client.domain == NULL) {
		talloc_free(p);
		return NT_STATUS_NO_MEMORY;
	}
	*out = p;
	return NT_STATUS_OK;
}

size_t rpc_pipe_readable(const struct rpc_pipe *p)
{
	return p->out_len - p->out_ofs;
}

bool rpc_pipe_disconnected(const struct rpc_pipe *p)
{
	return p->disconnected;
}

size_t rpc_pipe_read(struct rpc_pipe *p, uint8_t *buf, size_t max)
{
	size_t n = rpc_pipe_readable(p);

	if (n > max) {
		n = max;
	}
	if (n > 0) {
		memcpy(buf, p->out + p->out_ofs, n);
	}
	p->out_ofs += n;
	if (p->out_ofs == p->out_len) {
		TALLOC_FREE(p->out);
		p->out_len = 0;
		p->out_ofs = 0;
	}
	return n;
}

/* The association ends: no more input is taken. */
static void pipe_disconnect(struct rpc_pipe *p, const char *why)
{
	DBG_INFO("rpc pipe %s: disconnected: %s\n", p->iface->pipe_name, why);
	p->disconnected = true;
	p->in_request = false;
	TALLOC_FREE(p->stub);
	TALLOC_FREE(p->frag);
}

/* Queues one PDU for the client; a pipe that is not read closes. */
static void queue_pdu(struct rpc_pipe *p, const struct dcerpc_pdu *pdu)
{
	uint8_t *bytes = NULL;
	uint8_t *nb = NULL;
	size_t len = 0;
	NTSTATUS status = dcerpc_pdu_push(p, pdu, &bytes, &len);

	if (!NT_STATUS_IS_OK(status)) {
		pipe_disconnect(p, "cannot encode a response");
		return;
	}
	if (len > RPC_PIPE_MAX_OUTPUT - rpc_pipe_readable(p)) {
		talloc_free(bytes);
		pipe_disconnect(p, "the client does not read its responses");
		return;
	}
	if (p->out_ofs > 0) {
		/*
		 * Drop what was read: the cap counts unread bytes only, so
		 * a client reading all but a byte of each answer would
		 * otherwise grow the buffer without end.
		 */
		memmove(p->out, p->out + p->out_ofs, rpc_pipe_readable(p));
		p->out_len -= p->out_ofs;
		p->out_ofs = 0;
	}
	nb = talloc_realloc(p, p->out, uint8_t, p->out_len + len);
	if (nb == NULL) {
		talloc_free(bytes);
		pipe_disconnect(p, "no memory");
		return;
	}
	memcpy(nb + p->out_len, bytes, len);
	p->out = nb;
	p->out_len += len;
	talloc_free(bytes);
}

static void queue_fault(struct rpc_pipe *p, uint32_t call_id,
			uint16_t cont_id, uint32_t status, bool not_executed)
{
	struct dcerpc_pdu f = {
		.hdr = {
			.ptype = DCERPC_PT_FAULT,
			.pfc_flags = DCERPC_PFC_FIRST_FRAG |
				DCERPC_PFC_LAST_FRAG,
			.call_id = call_id,
		},
	};

	if (not_executed) {
		f.hdr.pfc_flags |= DCERPC_PFC_DID_NOT_EXECUTE;
	}
	f.u.fault.cont_id = cont_id;
	f.u.fault.status = status;
	queue_pdu(p, &f);
}

/* A protocol error: a fault for the call, then the end. */
static void protocol_error(struct rpc_pipe *p, uint32_t call_id,
			   const char *why)
{
	queue_fault(p, call_id, 0, DCERPC_NCA_S_PROTO_ERROR, false);
	pipe_disconnect(p, why);
}

static void queue_bind_nak(struct rpc_pipe *p, uint32_t call_id,
			   uint16_t reason, const char *why)
{
	struct dcerpc_pdu nak = {
		.hdr = {
			.ptype = DCERPC_PT_BIND_NAK,
			.pfc_flags = DCERPC_PFC_FIRST_FRAG |
				DCERPC_PFC_LAST_FRAG,
			.call_id = call_id,
		},
	};

	nak.u.nak.reject_reason = reason;
	nak.u.nak.num_versions = 1;
	nak.u.nak.versions[0].major = DCERPC_RPC_VERS;
	nak.u.nak.versions[0].minor = DCERPC_RPC_VERS_MINOR;
	queue_pdu(p, &nak);
	pipe_disconnect(p, why);
}

/* ---------------------------------------------------------------- */
/* bind and alter_context (C706 12.6.4.3, MS-RPCE 3.3.1.5.3)          */
/* ---------------------------------------------------------------- */

static bool offers_ndr20(const struct dcerpc_ctx_elem *e)
{
	uint8_t i;

	for (i = 0; i < e->num_transfer; i++) {
		if (dcerpc_syntax_equal(&e->transfer[i],
					&dcerpc_syntax_ndr20)) {
			return true;
		}
	}
	return false;
}

/*
 * One presentation context: the pipe's interface (same UUID and major
 * version, a minor version not above ours) in NDR20.  NDR64 alone, and
 * bind time feature negotiation, are refused as transfer syntaxes we do
 * not support, which is how a server without them answers.
 */
static void negotiate_ctx(struct rpc_pipe *p, const struct dcerpc_ctx_elem *e,
			  struct dcerpc_ctx_result *r)
{
	const struct dcerpc_syntax *ours = p->iface->syntax;
	size_t i;

	*r = (struct dcerpc_ctx_result){
		.result = DCERPC_RESULT_PROVIDER_REJECTION,
		.reason = DCERPC_REASON_ABSTRACT_SYNTAX_NOT_SUPPORTED,
	};
	if (!dcerpc_uuid_equal(&e->abstract.uuid, &ours->uuid) ||
	    e->abstract.major != ours->major ||
	    e->abstract.minor > ours->minor) {
		return;
	}
	if (!offers_ndr20(e)) {
		r->reason = DCERPC_REASON_TRANSFER_SYNTAXES_NOT_SUPPORTED;
		return;
	}
	r->result = DCERPC_RESULT_ACCEPTANCE;
	r->reason = 0;
	r->transfer = dcerpc_syntax_ndr20;
	for (i = 0; i < p->num_ctx; i++) {
		if (p->ctx[i].id == e->cont_id) {
			p->ctx[i].iface = p->iface;
			return;
		}
	}
	if (p->num_ctx < RPC_MAX_CONTEXTS) {
		p->ctx[p->num_ctx].id = e->cont_id;
		p->ctx[p->num_ctx].iface = p->iface;
		p->num_ctx++;
		return;
	}
	r->result = DCERPC_RESULT_PROVIDER_REJECTION;
	r->reason = DCERPC_REASON_LOCAL_LIMIT_EXCEEDED;
}

static uint32_t new_assoc_group_id(void)
{
	uint32_t id = 0;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id)) {
		id = 0x12345;
	}
	/* never 0, which means "none" */
	return (id & 0x00ffffff) | 0x00010000;
}

static uint16_t clamp_frag(uint16_t theirs)
{
	return theirs < RPC_SERVER_MAX_FRAG ? theirs : RPC_SERVER_MAX_FRAG;
}

static void handle_bind(struct rpc_pipe *p, const struct dcerpc_pdu *in,
			TALLOC_CTX *mem_ctx)
{
	const struct dcerpc_bind *b = &in->u.bind;
	bool alter = in->hdr.ptype == DCERPC_PT_ALTER_CONTEXT;
	struct dcerpc_pdu out = {
		.hdr = {
			.ptype = alter ? DCERPC_PT_ALTER_CONTEXT_RESP :
				DCERPC_PT_BIND_ACK,
			.pfc_flags = DCERPC_PFC_FIRST_FRAG |
				DCERPC_PFC_LAST_FRAG,
			.call_id = in->hdr.call_id,
		},
	};
	struct dcerpc_bind_ack *ack = &out.u.ack;
	char *addr = NULL;
	uint8_t i;

	if (in->has_auth) {
		/* no RPC-level authentication: the SMB session is it */
		queue_bind_nak(p, in->hdr.call_id,
			       DCERPC_NAK_AUTHENTICATION_TYPE_NOT_RECOGNIZED,
			       "bind with authentication");
		return;
	}
	if (!alter) {
		if (b->max_recv_frag < RPC_MIN_FRAG ||
		    b->max_xmit_frag < RPC_MIN_FRAG) {
			queue_bind_nak(p, in->hdr.call_id,
				       DCERPC_NAK_LOCAL_LIMIT_EXCEEDED,
				       "fragment sizes too small");
			return;
		}
		p->max_xmit_frag = clamp_frag(b->max_recv_frag);
		p->max_recv_frag = clamp_frag(b->max_xmit_frag);
		/*
		 * No association group state is shared between pipes, so
		 * the client's is echoed; a new one is random (Samba's
		 * differ per bind too) and tells nothing about the server
		 */
		p->assoc_group_id = b->assoc_group_id != 0 ?
			b->assoc_group_id : new_assoc_group_id();
		addr = talloc_asprintf(mem_ctx, "\\PIPE\\%s",
				       p->iface->pipe_name);
		if (addr == NULL) {
			pipe_disconnect(p, "no memory");
			return;
		}
		ack->sec_addr = addr;
		ack->sec_addr_len = strlen(addr) + 1;
		p->bound = true;
	}
	ack->max_xmit_frag = p->max_xmit_frag;
	ack->max_recv_frag = p->max_recv_frag;
	ack->assoc_group_id = p->assoc_group_id;
	ack->num_results = b->num_contexts;
	ack->results = talloc_zero_array(mem_ctx, struct dcerpc_ctx_result,
					 b->num_contexts);
	if (ack->results == NULL) {
		pipe_disconnect(p, "no memory");
		return;
	}
	for (i = 0; i < b->num_contexts; i++) {
		negotiate_ctx(p, &b->ctx[i], &ack->results[i]);
	}
	queue_pdu(p, &out);
}

/* ---------------------------------------------------------------- */
/* requests (C706 12.6.4.9) and responses (12.6.4.10)                 */
/* ---------------------------------------------------------------- */

static const struct rpc_iface *find_ctx(const struct rpc_pipe *p,
					uint16_t id)
{
	size_t i;

	for (i = 0; i < p->num_ctx; i++) {
		if (p->ctx[i].id == id) {
			return p->ctx[i].iface;
		}
	}
	return NULL;
}

/*
 * The stub as response fragments of at most max_xmit_frag bytes; all
 * but the last carry a multiple of 8 stub bytes.
 */
static void queue_response(struct rpc_pipe *p, uint32_t call_id,
			   uint16_t cont_id, const uint8_t *stub,
			   size_t len)
{
	size_t chunk = (p->max_xmit_frag - RPC_RESPONSE_HDR) & ~(size_t)7;
	size_t ofs = 0;

	do {
		struct dcerpc_pdu r = {
			.hdr = {
				.ptype = DCERPC_PT_RESPONSE,
				.call_id = call_id,
			},
		};
		size_t n = len - ofs < chunk ? len - ofs : chunk;

		if (ofs == 0) {
			r.hdr.pfc_flags |= DCERPC_PFC_FIRST_FRAG;
		}
		if (ofs + n == len) {
			r.hdr.pfc_flags |= DCERPC_PFC_LAST_FRAG;
		}
		r.u.rsp.alloc_hint = (uint32_t)(len - ofs);
		r.u.rsp.cont_id = cont_id;
		r.u.rsp.stub = stub + ofs;
		r.u.rsp.stub_len = n;
		queue_pdu(p, &r);
		ofs += n;
	} while (ofs < len && !p->disconnected);
}

static void run_call(struct rpc_pipe *p, TALLOC_CTX *mem_ctx)
{
	const struct rpc_iface *iface = find_ctx(p, p->req_cont_id);
	struct rpc_call call = {
		.mem_ctx = mem_ctx,
		.client = &p->client,
		.opnum = p->req_opnum,
	};
	uint32_t fault = 0;

	if (iface == NULL) {
		queue_fault(p, p->req_call_id, p->req_cont_id,
			    DCERPC_NCA_S_UNK_IF, true);
		return;
	}
	if (p->req_opnum >= iface->num_ops ||
	    iface->ops[p->req_opnum] == NULL) {
		DBG_INFO("rpc %s: opnum %u not implemented\n",
			 iface->pipe_name, p->req_opnum);
		queue_fault(p, p->req_call_id, p->req_cont_id,
			    DCERPC_NCA_S_OP_RNG_ERROR, true);
		return;
	}
	call.in = ndr_pull_init(p->stub, p->stub_len);
	call.out = ndr_push_init(mem_ctx);
	fault = iface->ops[p->req_opnum](&call);
	if (fault == 0) {
		fault = rpc_call_result(&call);
	}
	if (fault != 0) {
		DBG_INFO("rpc %s: opnum %u: fault 0x%08x\n",
			 iface->pipe_name, p->req_opnum, fault);
		queue_fault(p, p->req_call_id, p->req_cont_id, fault, false);
		return;
	}
	queue_response(p, p->req_call_id, p->req_cont_id, call.out.buf,
		       call.out.len);
}

/* Adds a fragment's stub to the request; false: too big (a fault). */
static bool gather_stub(struct rpc_pipe *p, const struct dcerpc_request *r)
{
	uint8_t *nb = NULL;

	if (r->stub_len > RPC_MAX_REQUEST_STUB - p->stub_len) {
		return false;
	}
	if (r->stub_len == 0) {
		return true;
	}
	nb = talloc_realloc(p, p->stub, uint8_t, p->stub_len + r->stub_len);
	if (nb == NULL) {
		return false;
	}
	memcpy(nb + p->stub_len, r->stub, r->stub_len);
	p->stub = nb;
	p->stub_len += r->stub_len;
	return true;
}

static void handle_request(struct rpc_pipe *p, const struct dcerpc_pdu *in,
			   TALLOC_CTX *mem_ctx)
{
	const struct dcerpc_request *r = &in->u.req;
	uint8_t flags = in->hdr.pfc_flags;

	if (in->has_auth) {
		protocol_error(p, in->hdr.call_id, "request with auth");
		return;
	}
	if (flags & DCERPC_PFC_FIRST_FRAG) {
		if (p->in_request) {
			protocol_error(p, in->hdr.call_id,
				       "new call before the last ended");
			return;
		}
		p->in_request = true;
		p->req_call_id = in->hdr.call_id;
		p->req_cont_id = r->cont_id;
		p->req_opnum = r->opnum;
		TALLOC_FREE(p->stub);
		p->stub_len = 0;
	} else if (!p->in_request || in->hdr.call_id != p->req_call_id ||
		   r->cont_id != p->req_cont_id ||
		   r->opnum != p->req_opnum) {
		protocol_error(p, in->hdr.call_id,
			       "fragment of no call in progress");
		return;
	}
	if (!gather_stub(p, r)) {
		protocol_error(p, in->hdr.call_id, "request too large");
		return;
	}
	if (!(flags & DCERPC_PFC_LAST_FRAG)) {
		return;
	}
	p->in_request = false;
	run_call(p, mem_ctx);
	TALLOC_FREE(p->stub);
	p->stub_len = 0;
}

/* ---------------------------------------------------------------- */
/* fragments                                                          */
/* ---------------------------------------------------------------- */

static void handle_pdu(struct rpc_pipe *p, const struct dcerpc_pdu *in,
		       TALLOC_CTX *mem_ctx)
{
	switch (in->hdr.ptype) {
	case DCERPC_PT_BIND:
		if (p->bound) {
			protocol_error(p, in->hdr.call_id, "second bind");
			return;
		}
		handle_bind(p, in, mem_ctx);
		return;
	case DCERPC_PT_ALTER_CONTEXT:
		if (!p->bound) {
			protocol_error(p, in->hdr.call_id,
				       "alter_context before bind");
			return;
		}
		handle_bind(p, in, mem_ctx);
		return;
	case DCERPC_PT_REQUEST:
		if (!p->bound) {
			protocol_error(p, in->hdr.call_id,
				       "request before bind");
			return;
		}
		handle_request(p, in, mem_ctx);
		return;
	case DCERPC_PT_CO_CANCEL:
		/* every call is answered before the next byte is read */
		return;
	case DCERPC_PT_ORPHANED:
		p->in_request = false;
		TALLOC_FREE(p->stub);
		p->stub_len = 0;
		return;
	default:
		protocol_error(p, in->hdr.call_id, "unexpected PDU type");
		return;
	}
}

static void handle_fragment(struct rpc_pipe *p)
{
	TALLOC_CTX *tmp = talloc_new(p);
	struct dcerpc_pdu pdu = {};
	struct dcerpc_hdr hdr = {};
	NTSTATUS status;

	if (tmp == NULL) {
		pipe_disconnect(p, "no memory");
		return;
	}
	status = dcerpc_pdu_pull(tmp, p->frag, p->frag_need, &pdu);
	if (!NT_STATUS_IS_OK(status)) {
		(void)dcerpc_hdr_pull(p->frag, p->frag_need, &hdr);
		if (hdr.ptype == DCERPC_PT_BIND && !p->bound) {
			queue_bind_nak(p, hdr.call_id,
				       DCERPC_NAK_REASON_NOT_SPECIFIED,
				       "malformed bind");
		} else {
			protocol_error(p, hdr.call_id, "malformed PDU");
		}
	} else {
		handle_pdu(p, &pdu, tmp);
	}
	talloc_free(tmp);
}

/*
 * The common header is in: a fragment of frag_length bytes follows
 * (our limit, or the one the bind agreed).  A header we cannot read has
 * no trustworthy length: a bind_nak naming the versions we speak, and
 * the end (C706 12.6.4.5).
 */
static bool start_fragment(struct rpc_pipe *p)
{
	struct dcerpc_hdr hdr;
	size_t limit = p->bound ? p->max_recv_frag : UINT16_MAX;

	if (!NT_STATUS_IS_OK(dcerpc_hdr_pull(p->hdr, sizeof(p->hdr),
					     &hdr))) {
		/* the call_id where version 5 has it, as Samba answers */
		queue_bind_nak(p, (uint32_t)p->hdr[12] |
			       (uint32_t)p->hdr[13] << 8 |
			       (uint32_t)p->hdr[14] << 16 |
			       (uint32_t)p->hdr[15] << 24,
			       DCERPC_NAK_PROTOCOL_VERSION_NOT_SUPPORTED,
			       "bad common header");
		return false;
	}
	if (hdr.frag_length > limit) {
		protocol_error(p, hdr.call_id, "fragment over max_recv_frag");
		return false;
	}
	p->frag = talloc_size(p, hdr.frag_length);
	if (p->frag == NULL) {
		pipe_disconnect(p, "no memory");
		return false;
	}
	memcpy(p->frag, p->hdr, sizeof(p->hdr));
	p->frag_need = hdr.frag_length;
	return true;
}

NTSTATUS rpc_pipe_write(struct rpc_pipe *p, const uint8_t *buf, size_t len)
{
	if (p->disconnected) {
		return NT_STATUS_PIPE_DISCONNECTED;
	}
	/*
	 * All of it is taken even if it ends the association: the write
	 * succeeds, the client reads the fault, then finds the pipe gone.
	 */
	while (len > 0 && !p->disconnected) {
		size_t n = 0;

		if (p->frag_have < sizeof(p->hdr)) {
			n = sizeof(p->hdr) - p->frag_have;
			n = n < len ? n : len;
			memcpy(p->hdr + p->frag_have, buf, n);
			p->frag_have += n;
			buf += n;
			len -= n;
			if (p->frag_have < sizeof(p->hdr) ||
			    !start_fragment(p)) {
				continue;
			}
		}
		n = p->frag_need - p->frag_have;
		n = n < len ? n : len;
		if (n > 0) {
			memcpy(p->frag + p->frag_have, buf, n);
		}
		p->frag_have += n;
		buf += n;
		len -= n;
		if (p->frag_have == p->frag_need) {
			handle_fragment(p);
			TALLOC_FREE(p->frag);
			p->frag_have = 0;
			p->frag_need = 0;
		}
	}
	return NT_STATUS_OK;
}
