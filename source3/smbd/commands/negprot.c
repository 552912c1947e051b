/*
 * NEGOTIATE (MS-SMB2 3.3.5.3, 3.3.5.4) and the SMB1 NEGOTIATE of older
 * clients (3.3.5.3.1), which is answered with SMB2 or not at all.
 */
#include <string.h>
#include "lib/auth/auth.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/nttime.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/session/signing.h"
#include "source3/smbd/transport/transport.h"

#define SMBD_MAX_IO_SMB2_02 (64 * 1024)
#define SMBD_MAX_IO (8 * 1024 * 1024)

/* Highest first; limited by 'server min/max protocol'. */
static const uint16_t smbd_dialects[] = {
	SMB2_DIALECT_0311, SMB2_DIALECT_0302, SMB2_DIALECT_0300,
	SMB2_DIALECT_0210, SMB2_DIALECT_0202,
};

static uint16_t choose_dialect(const struct loadparm *lp,
			       const struct smb2_negprot_req *r)
{
	size_t i;

	for (i = 0; i < sizeof(smbd_dialects) / sizeof(smbd_dialects[0]);
	     i++) {
		uint16_t d = smbd_dialects[i];
		if (d > lp->g.server_max_protocol ||
		    d < lp->g.server_min_protocol) {
			continue;
		}
		if (smb2_u16_array_has(r->dialects, r->dialect_count, d)) {
			return d;
		}
	}
	return 0;
}

/* A context type that may appear at most once; *ctx NULL if absent. */
static NTSTATUS find_once(const struct smb2_negprot_req *r, uint16_t type,
			  const struct smb2_negctx **ctx)
{
	size_t n = 0;

	*ctx = smb2_negctx_find(r, type, &n);
	return n > 1 ? NT_STATUS_INVALID_PARAMETER : NT_STATUS_OK;
}

struct negprot_ctxs {
	struct smb2_negctx out[3];
	size_t num_out;
	uint16_t signing_alg;
	uint16_t cipher_id;
};

static NTSTATUS add_ctx(struct negprot_ctxs *n,
			uint16_t type, uint8_t *data, size_t len)
{
	if (data == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	n->out[n->num_out++] = (struct smb2_negctx){
		.type = type, .data = data, .len = (uint16_t)len };
	return NT_STATUS_OK;
}

static NTSTATUS negprot_preauth(TALLOC_CTX *mem_ctx,
				const struct smb2_negprot_req *r,
				struct negprot_ctxs *n)
{
	const struct smb2_negctx *ctx = NULL;
	struct smb2_negctx_preauth pa;
	uint8_t salt[SMB2_PREAUTH_SALT_SIZE];
	size_t num = 0, len = 0;
	uint8_t *data = NULL;
	NTSTATUS status;

	ctx = smb2_negctx_find(r, SMB2_PREAUTH_INTEGRITY_CAPABILITIES, &num);
	if (ctx == NULL || num != 1) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_negctx_preauth_pull(ctx, &pa);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!smb2_u16_array_has(pa.hash_algs, pa.hash_count,
				SMB2_PREAUTH_INTEGRITY_SHA512)) {
		return NT_STATUS_NO_PREAUTH_INTEGRITY_HASH_OVERLAP;
	}
	crypto_random(salt, sizeof(salt));
	data = smb2_negctx_preauth_push(mem_ctx, salt, &len);
	return add_ctx(n, SMB2_PREAUTH_INTEGRITY_CAPABILITIES, data, len);
}

/*
 * 3.1.1 encryption capabilities (MS-SMB2 3.3.5.4): the first of the
 * client's ciphers that we have, in the client's order; "no common
 * cipher" (CipherCount 1, Cipher 0) with 'server smb encrypt = off'.
 */
static uint16_t choose_cipher(const struct smb2_negctx_encryption *enc,
			      int policy)
{
	uint16_t i;

	if (policy == LP_SMB_OFF) {
		return 0;
	}
	for (i = 0; i < enc->cipher_count; i++) {
		uint16_t c = smb2_u16_at(enc->ciphers, i);
		if (smb2_cipher_key_len(c) != 0) {
			return c;
		}
	}
	return 0;
}

static NTSTATUS negprot_encryption(TALLOC_CTX *mem_ctx,
				   struct smbd_conn *conn,
				   const struct smb2_negprot_req *r,
				   struct negprot_ctxs *n)
{
	const struct smb2_negctx *ctx = NULL;
	struct smb2_negctx_encryption enc;
	uint8_t *data = NULL;
	size_t len = 0;
	NTSTATUS status = find_once(r, SMB2_ENCRYPTION_CAPABILITIES, &ctx);

	if (!NT_STATUS_IS_OK(status) || ctx == NULL) {
		return status;
	}
	status = smb2_negctx_encryption_pull(ctx, &enc);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	n->cipher_id = choose_cipher(&enc, conn->server->lp->g.smb_encrypt);
	data = smb2_negctx_encryption_push(mem_ctx, n->cipher_id, &len);
	return add_ctx(n, SMB2_ENCRYPTION_CAPABILITIES, data, len);
}

static NTSTATUS negprot_signing(TALLOC_CTX *mem_ctx,
				const struct smb2_negprot_req *r,
				struct negprot_ctxs *n)
{
	const struct smb2_negctx *ctx = NULL;
	struct smb2_negctx_signing sig;
	uint8_t *data = NULL;
	size_t len = 0;
	NTSTATUS status = find_once(r, SMB2_SIGNING_CAPABILITIES, &ctx);

	size_t i;

	n->signing_alg = SMB2_SIGNING_AES_CMAC;
	if (!NT_STATUS_IS_OK(status) || ctx == NULL) {
		return status;
	}
	status = smb2_negctx_signing_pull(ctx, &sig);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* the client's first choice among those we know (3.3.5.4) */
	for (i = 0; i < sig.alg_count; i++) {
		uint16_t alg = smb2_u16_at(sig.algs, i);
		if (alg == SMB2_SIGNING_HMAC_SHA256 ||
		    alg == SMB2_SIGNING_AES_CMAC ||
		    alg == SMB2_SIGNING_AES_GMAC) {
			n->signing_alg = alg;
			break;
		}
	}
	data = smb2_negctx_signing_push(mem_ctx, n->signing_alg, &len);
	return add_ctx(n, SMB2_SIGNING_CAPABILITIES, data, len);
}

/* 3.1.1 negotiate contexts; the others are checked for duplicates only */
static NTSTATUS negprot_contexts(TALLOC_CTX *mem_ctx,
				 struct smbd_conn *conn,
				 const struct smb2_negprot_req *r,
				 struct negprot_ctxs *n)
{
	static const uint16_t once[] = {
		SMB2_COMPRESSION_CAPABILITIES, SMB2_NETNAME_NEGOTIATE_CONTEXT_ID,
		SMB2_TRANSPORT_CAPABILITIES, SMB2_RDMA_TRANSFORM_CAPABILITIES,
	};
	const struct smb2_negctx *ctx = NULL;
	NTSTATUS status;
	size_t i;

	for (i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
		status = find_once(r, once[i], &ctx);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	status = negprot_preauth(mem_ctx, r, n);
	if (NT_STATUS_IS_OK(status)) {
		status = negprot_encryption(mem_ctx, conn, r, n);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = negprot_signing(mem_ctx, r, n);
	}
	return status;
}

static void conn_set_limits(struct smbd_conn *conn, uint16_t dialect)
{
	uint32_t max = dialect == SMB2_DIALECT_0202 ? SMBD_MAX_IO_SMB2_02 :
		SMBD_MAX_IO;

	conn->dialect = dialect;
	conn->max_read = conn->max_write = conn->max_transact = max;
	/* 3.1.1 may override this from the signing capabilities context */
	conn->signing_alg = dialect >= SMB2_DIALECT_0300 ?
		SMB2_SIGNING_AES_CMAC : SMB2_SIGNING_HMAC_SHA256;
	conn->server_caps = dialect >= SMB2_DIALECT_0210 ?
		SMB2_GLOBAL_CAP_LARGE_MTU : 0;
	/*
	 * Leases from 2.1 on, directory leases from 3.0 on (MS-SMB2
	 * 3.3.5.4; files/lease.c), unless "smb2 leases = no" (as Samba)
	 */
	if (dialect >= SMB2_DIALECT_0210 && conn->server->lp->g.smb2_leases) {
		conn->server_caps |= SMB2_GLOBAL_CAP_LEASING;
	}
	if (dialect >= SMB2_DIALECT_0300 && conn->server->lp->g.smb2_leases) {
		conn->server_caps |= SMB2_GLOBAL_CAP_DIRECTORY_LEASING;
	}
}

/* What VALIDATE_NEGOTIATE_INFO compares later (3.3.5.15.12). */
static bool keep_dialects(struct smbd_conn *conn,
			  const struct smb2_negprot_req *r)
{
	uint16_t i;

	TALLOC_FREE(conn->client_dialects);
	conn->client_dialects = talloc_array(conn, uint16_t,
					     r->dialect_count);
	if (conn->client_dialects == NULL) {
		return false;
	}
	for (i = 0; i < r->dialect_count; i++) {
		conn->client_dialects[i] = smb2_u16_at(r->dialects, i);
	}
	conn->num_client_dialects = r->dialect_count;
	return true;
}

static uint8_t *negprot_body(TALLOC_CTX *mem_ctx, struct smbd_conn *conn,
			     const struct negprot_ctxs *n, size_t *len)
{
	struct smb2_negprot_rsp rsp = {
		.security_mode = smbd_signing_security_mode(conn->server,
							    conn->dialect),
		.dialect = conn->dialect,
		.capabilities = conn->server_caps,
		.max_transact = conn->max_transact,
		.max_read = conn->max_read,
		.max_write = conn->max_write,
		.system_time = nttime_now(),
	};
	uint8_t *blob = NULL;
	size_t blob_len = 0;

	memcpy(rsp.server_guid, conn->server->server_guid, 16);
	if (NT_STATUS_IS_OK(auth_negprot_blob(mem_ctx, &blob, &blob_len))) {
		rsp.security = (struct smb2_blob){ blob, blob_len };
	}
	if (n != NULL && conn->dialect == SMB2_DIALECT_0311) {
		rsp.negctx = n->out;
		rsp.num_negctx = n->num_out;
	}
	return smb2_negprot_rsp_push(mem_ctx, &rsp, len);
}

struct tevent_req *smbd_negprot_send(TALLOC_CTX *mem_ctx,
				     struct tevent_context *ev,
				     struct smbd_request *req)
{
	struct smbd_conn *conn = req->conn;
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	struct smb2_negprot_req r;
	struct negprot_ctxs n = {};
	uint16_t dialect;
	NTSTATUS status;

	status = smb2_negprot_req_pull(req->pdu, &r);
	if (!NT_STATUS_IS_OK(status)) {
		return smbd_done_send(mem_ctx, ev, status, NULL);
	}
	dialect = choose_dialect(conn->server->lp, &r);
	if (dialect == 0) {
		DBG_INFO("%s: no common dialect\n", conn->peer);
		return smbd_done_send(mem_ctx, ev, NT_STATUS_NOT_SUPPORTED,
				      NULL);
	}
	if (dialect == SMB2_DIALECT_0311) {
		status = negprot_contexts(mem_ctx, conn, &r, &n);
		if (!NT_STATUS_IS_OK(status)) {
			return smbd_done_send(mem_ctx, ev, status, NULL);
		}
	}
	conn_set_limits(conn, dialect);
	if (dialect == SMB2_DIALECT_0311) {
		conn->signing_alg = n.signing_alg;
		conn->cipher_id = n.cipher_id;
	} else if (dialect >= SMB2_DIALECT_0300 &&
		   (r.capabilities & SMB2_GLOBAL_CAP_ENCRYPTION) &&
		   conn->server->lp->g.smb_encrypt != LP_SMB_OFF) {
		/* 3.0/3.0.2: AES-128-CCM, announced by a capability */
		conn->cipher_id = SMB2_ENCRYPTION_AES128_CCM;
		conn->server_caps |= SMB2_GLOBAL_CAP_ENCRYPTION;
	}
	if (dialect >= SMB2_DIALECT_0300 &&
	    conn->server->lp->g.server_multi_channel_support) {
		/* session binding (commands/sesssetup.c, session.c) */
		conn->server_caps |= SMB2_GLOBAL_CAP_MULTI_CHANNEL;
	}
	conn->client_security_mode = r.security_mode;
	if (!keep_dialects(conn, &r)) {
		return smbd_done_send(mem_ctx, ev, NT_STATUS_NO_MEMORY, NULL);
	}
	conn->client_caps = r.capabilities;
	/*
	 * Directory leasing only for a client that offers it, as Samba and
	 * Windows: a client that gets it unasked may mishandle it (impacket
	 * 0.11 fails every CREATE in a share root then)
	 */
	if (!(conn->client_caps & SMB2_GLOBAL_CAP_DIRECTORY_LEASING)) {
		conn->server_caps &= ~SMB2_GLOBAL_CAP_DIRECTORY_LEASING;
	}
	memcpy(conn->client_guid, r.client_guid, 16);
	rsp.body = negprot_body(mem_ctx, conn, &n, &rsp.body_len);
	if (rsp.body == NULL) {
		return smbd_done_send(mem_ctx, ev, NT_STATUS_NO_MEMORY, NULL);
	}
	DBG_INFO("%s: negotiated %s\n", conn->peer, lp_dialect_name(dialect));
	return smbd_done_send(mem_ctx, ev, NT_STATUS_OK, &rsp);
}

NTSTATUS smbd_negprot_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			   struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}

/* 3.1.1: the connection's preauth hash covers NEGOTIATE request+response */
void smbd_negprot_on_response(struct smbd_request *req, NTSTATUS status,
			      const struct iovec *iov, int iovcnt)
{
	struct smbd_conn *conn = req->conn;
	struct iovec in = { (void *)req->pdu->buf, req->pdu->len };

	if (conn->dialect != SMB2_DIALECT_0311 || !NT_STATUS_IS_OK(status)) {
		return;
	}
	memset(conn->preauth_hash, 0, sizeof(conn->preauth_hash));
	smb2_preauth_update(conn->preauth_hash, &in, 1);
	smb2_preauth_update(conn->preauth_hash, iov, iovcnt);
}

/*
 * An SMB1 NEGOTIATE offering SMB2 (MS-SMB2 3.3.5.3.1): the body of the
 * SMB2 NEGOTIATE response that answers it, on mem_ctx; NULL and *why
 * when the connection must end instead.  The pipeline consumes the
 * request's message id, grants the credit and sends the response.
 */
uint8_t *smbd_smb1_negprot(TALLOC_CTX *mem_ctx, struct smbd_conn *conn,
			   const uint8_t *buf, size_t len, size_t *body_len,
			   const char **why)
{
	uint16_t dialect = 0;
	uint8_t *body = NULL;

	if (conn->dialect != 0 || conn->smb1_negprot_done ||
	    !smb1_negprot_wants_smb2(buf, len, &dialect)) {
		*why = "SMB1 is not served";
		return NULL;
	}
	conn->smb1_negprot_done = true;         /* once per connection */
	if (dialect == SMB2_DIALECT_0202 &&
	    conn->server->lp->g.server_min_protocol > SMB2_DIALECT_0202) {
		*why = "SMB 2.0.2 below 'server min protocol'";
		return NULL;
	}
	conn_set_limits(conn, dialect);
	body = negprot_body(mem_ctx, conn, NULL, body_len);
	if (dialect == SMB2_DIALECT_WILDCARD) {
		conn->dialect = 0;      /* an SMB2 NEGOTIATE must follow */
	}
	if (body == NULL) {
		*why = "out of memory";
	}
	return body;
}
