/*
 * Signing and encryption on more than one core (docs/architecture.md, "Data
 * path modes"): the AES passes over large messages run on the server's crypto
 * pool (lib/util/jobpool.c) while the event loop goes on with other
 * connections.  Messages under 'smb2 crypto min size' stay inline: the handoff
 * (two thread wakeups, ~20 us) costs more than their crypto. 'smb2 crypto
 * offload' says which of the four passes may go; by default only the
 * decryption of requests: on the 2-core development machine, with the clients
 * on it too, that gained, while handing over the encryption or signing of
 * responses lost (docs/performance.md, "Crypto off the event loop").
 * A large pass that stays inline runs with the worker's lock dropped
 * (lock_drop), so the other workers' passes do not wait for it.
 *
 * What stays in the loop thread: every decision (which key, whether a
 * request is acceptable, what NTSTATUS), and nonce assignment, so nonces
 * stay unique per session.  A job gets copies of the keys it uses (the
 * session may go while it runs) and owns the buffers it works on: a
 * received message's buffer, or the whole response (the compound or the
 * async record holding every iovec).  If the connection goes while a job
 * runs, its request is freed with the pipeline and the pool frees the
 * buffers once the thread is done.
 *
 * Ordering: a compound being decrypted or verified is queued in arrival
 * order with crypto_busy set; pipeline_sched.c starts neither it nor
 * anything behind it, so requests still run in the order the pipeline
 * allows while several received messages decrypt at once.  Responses may
 * leave in any order (MS-SMB2 matches them by MessageId).
 */
#include <string.h>
#include <strings.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/jobpool.h"
#include "lib/uring/uring.h"
#include "lib/smb2/transform.h"
#include "source3/smbd/pipeline/encryption.h"
#include "source3/smbd/pipeline/pipeline_private.h"
#include "source3/smbd/transport/transport.h"
#include "source3/smbd/pipeline/pipeline.h"
#include "source3/smbd/session/session.h"

/* 'smb2 crypto threads = -1': one per online CPU, at most this many */
#define SMBD_CRYPTO_AUTO_MAX 8

enum smbd_crypto_op {
	CRYPTO_DECRYPT,         /* TRANSFORM requests */
	CRYPTO_ENCRYPT,         /* responses to them */
	CRYPTO_VERIFY,          /* signed requests */
	CRYPTO_SIGN,            /* signed responses */
};

static const char *const crypto_op_names[] = {
	[CRYPTO_DECRYPT] = "decrypt", [CRYPTO_ENCRYPT] = "encrypt",
	[CRYPTO_VERIFY] = "verify", [CRYPTO_SIGN] = "sign",
};

/* 'smb2 crypto offload': a list of crypto_op_names, or "all" */
static unsigned offload_ops(const char **names)
{
	unsigned ops = 0, i, k;

	for (i = 0; names != NULL && names[i] != NULL; i++) {
		if (strcasecmp(names[i], "all") == 0) {
			ops |= (1U << 4) - 1;
			continue;
		}
		for (k = 0; k < 4; k++) {
			if (strcasecmp(names[i], crypto_op_names[k]) == 0) {
				ops |= 1U << k;
				break;
			}
		}
		if (k == 4) {
			DBG_WARNING("smb2 crypto offload: unknown \"%s\" "
				    "ignored\n", names[i]);
		}
	}
	return ops;
}

/*
 * The settings; the pools themselves are the workers' (server/worker.c),
 * "smb2 crypto threads" shared out among them.
 */
void smbd_crypto_pool_start(struct smbd_server *server)
{
	int n = server->lp->g.crypto_threads;

	server->crypto_min_size = (size_t)server->lp->g.crypto_min_size;
	server->crypto_offload = offload_ops(server->lp->g.crypto_offload);
	if (n < 0) {
		/* one core: a thread would only take turns with the loop */
		n = (int)jobpool_online_cpus();
		n = n < 2 ? 0 : n > SMBD_CRYPTO_AUTO_MAX ?
			SMBD_CRYPTO_AUTO_MAX : n;
	}
	server->crypto_threads = server->crypto_offload != 0 ? n : 0;
	DBG_NOTICE("crypto threads: %d (ops 0x%x from %zu bytes)\n",
		   server->crypto_threads, server->crypto_offload,
		   server->crypto_min_size);
}

static bool offload(const struct smbd_conn *conn, size_t bytes,
		    enum smbd_crypto_op op)
{
	const struct smbd_server *server = conn->server;

	return conn->crypto_pool != NULL && !conn->terminating &&
	       (server->crypto_offload & (1U << op)) != 0 &&
	       bytes >= server->crypto_min_size;
}

/* ------------------------------------------------------------------ */
/* Received messages: decrypt a TRANSFORM, or check a signature        */

struct rx_job {
	void *owner;            /* keeps buf alive: a child while the job runs */
	uint8_t *buf;           /* the message (the compound's bytes) */
	size_t ofs, len;        /* what is decrypted or verified */
	bool decrypt;
	uint16_t cipher_id;     /* decrypt */
	uint16_t dialect, alg;  /* verify */
	uint8_t key[SMB2_CIPHER_KEY_MAX];
	size_t key_len;
	int ret;
};

static void rx_fn(void *arg)
{
	struct rx_job *j = arg;
	struct iovec iov = { j->buf + j->ofs, j->len };

	if (j->decrypt) {
		j->ret = smb2_decrypt(j->cipher_id, j->key, j->key_len,
				      j->buf, &iov, 1);
	} else {
		j->ret = smb2_sign_check(j->dialect, j->alg, j->key, &iov, 1,
					 false);
	}
}

static struct rx_job *rx_job_new(struct smbd_compound *c)
{
	struct rx_job *j = talloc_zero(c, struct rx_job);

	if (j != NULL) {
		crypto_keep_secret(j);  /* the key copy */
		j->buf = c->buf;
	}
	return j;
}

/* Hands buf to the job; c waits in the queue (crypto_busy). */
static bool rx_submit(struct smbd_compound *c, struct rx_job *j,
		      tevent_req_fn done)
{
	struct smbd_conn *conn = c->conn;
	struct tevent_req *req = NULL;

	j->owner = talloc_steal(j, c->owner);
	req = jobpool_send(c, conn->ev, conn->crypto_pool, rx_fn, j);
	if (req == NULL) {
		talloc_steal(c, c->owner);
		talloc_free(j);
		return false;
	}
	tevent_req_set_callback(req, done, c);
	c->crypto_busy = true;
	if (!c->queued) {
		smbd_compound_enqueue(c);
	}
	return true;
}

/* The job's result, buf back in c; NULL if the pool failed (ENOMEM). */
static struct rx_job *rx_recv(struct tevent_req *req, struct smbd_compound *c)
{
	struct rx_job *j = NULL;
	int ret = jobpool_recv(req, c, (void **)&j);

	TALLOC_FREE(req);
	c->crypto_busy = false;
	if (ret != 0) {
		return NULL;    /* the job never ran: buf is still c's */
	}
	c->owner = talloc_steal(c, j->owner);
	return j;
}

static void rx_decrypt_done(struct tevent_req *req);

bool smbd_crypto_rx_decrypt(struct smbd_compound *c)
{
	struct smbd_conn *conn = c->conn;
	struct smb2_transform_hdr th;
	struct smbd_crypto *crypto = NULL;
	struct rx_job *j = NULL;

	/* anything refused here is refused (and logged) by the inline path */
	if (!offload(conn, c->len, CRYPTO_DECRYPT) ||
	    !NT_STATUS_IS_OK(smbd_decrypt_check(conn, c->buf, c->len, &th,
						&crypto)) ||
	    talloc_reference(c, crypto) == NULL) {
		return false;
	}
	c->crypto = crypto;
	c->crypto_session_id = th.session_id;
	j = rx_job_new(c);
	if (j == NULL) {
		return false;   /* inline: takes a second reference, fine */
	}
	j->decrypt = true;
	j->ofs = SMB2_TRANSFORM_HDR_SIZE;
	j->len = th.msg_size;
	j->cipher_id = crypto->cipher_id;
	j->key_len = crypto->keys.cipher_key_len;
	memcpy(j->key, crypto->keys.decrypt, j->key_len);
	return rx_submit(c, j, rx_decrypt_done);
}

static void rx_decrypt_done(struct tevent_req *req)
{
	struct smbd_compound *c = tevent_req_callback_data(
		req, struct smbd_compound);
	struct smbd_conn *conn = c->conn;
	struct rx_job *j = rx_recv(req, c);

	if (j == NULL || j->ret != 0) {
		/* as smbd_decrypt_message and pipeline_got report it */
		DBG_INFO("%s: TRANSFORM message failed to decrypt\n",
			 conn->peer);
		DBG_INFO("%s: TRANSFORM refused (%s)\n", conn->peer,
			 nt_errstr(NT_STATUS_ACCESS_DENIED));
		smbd_compound_drop(c);
		smbd_conn_terminate(conn, "bad TRANSFORM message");
		return;
	}
	talloc_free(j);
	if (smbd_compound_parse(c, c->buf + SMB2_TRANSFORM_HDR_SIZE,
				c->len - SMB2_TRANSFORM_HDR_SIZE)) {
		smbd_pipeline_kick(conn);
	}
}

static void rx_verify_done(struct tevent_req *req);

/*
 * The worker's lock, dropped around an AES pass through the ring's gate
 * (lib/uring: uring_gate_leave, docs/architecture.md "Workers"): only on
 * the connection's own worker; none in the embedded server.
 */
static bool lock_drop(struct smbd_conn *conn)
{
	return uring_gate_leave(conn->ring);
}

static void lock_retake(struct smbd_conn *conn, bool dropped)
{
	uring_gate_enter(conn->ring, dropped);
}

/*
 * Not for the pool: verified here, with the server lock dropped so the
 * other workers go on meanwhile (lock_drop).  c waits in the
 * queue with crypto_busy, so a pipeline run by another worker does not
 * start it; its bytes are its own; the key is a copy.
 */
static void rx_verify_unlocked(struct smbd_compound *c, const uint8_t *key)
{
	const struct smb2_pdu *pdu = &c->pdus[0];
	struct smbd_sig_pre pre = {
		.done = true, .dialect = c->conn->dialect,
		.alg = c->conn->signing_alg };
	struct iovec iov = { (void *)pdu->buf, pdu->len };
	bool dropped = false;

	if (!c->queued) {
		return;         /* check_signature does it when c runs */
	}
	memcpy(pre.key, key, sizeof(pre.key));
	c->crypto_busy = true;
	dropped = lock_drop(c->conn);
	if (!dropped) {
		c->crypto_busy = false;
		crypto_wipe(pre.key, sizeof(pre.key));
		return;         /* no ring: check_signature does it */
	}
	pre.result = smb2_sign_check(pre.dialect, pre.alg, pre.key, &iov, 1,
				     false);
	lock_retake(c->conn, dropped);
	c->crypto_busy = false;
	c->sig_pre = pre;
	crypto_wipe(pre.key, sizeof(pre.key));
}

/*
 * A large signed lone PDU (a WRITE, typically): its MAC is computed on
 * the pool with the key its session's channel has now.  check_signature
 * (pipeline.c) uses the result only if the key is still the same when
 * the request runs, so the decision itself does not move.
 */
bool smbd_crypto_rx_verify(struct smbd_compound *c)
{
	const struct smb2_pdu *pdu = &c->pdus[0];
	struct smbd_conn *conn = c->conn;
	const uint8_t *key = NULL;
	struct rx_job *j = NULL;

	if (c->count != 1 || !(pdu->hdr.flags & SMB2_FLAGS_SIGNED) ||
	    conn->dialect == 0 || c->in_splice != NULL ||
	    pdu->len < conn->server->crypto_min_size) {
		return false;
	}
	key = smbd_signing_channel_key(conn, smbd_session_find(
		conn, pdu->hdr.session_id));
	if (key == NULL) {
		return false;
	}
	if (!offload(conn, pdu->len, CRYPTO_VERIFY)) {
		rx_verify_unlocked(c, key);
		return false;
	}
	j = rx_job_new(c);
	if (j == NULL) {
		return false;
	}
	j->ofs = (size_t)(pdu->buf - c->buf);
	j->len = pdu->len;
	j->dialect = conn->dialect;
	j->alg = conn->signing_alg;
	memcpy(j->key, key, SMB2_SIGNING_KEY_SIZE);
	return rx_submit(c, j, rx_verify_done);
}

static void rx_verify_done(struct tevent_req *req)
{
	struct smbd_compound *c = tevent_req_callback_data(
		req, struct smbd_compound);
	struct rx_job *j = rx_recv(req, c);

	if (j != NULL) {
		c->sig_pre = (struct smbd_sig_pre){
			.done = true, .result = j->ret,
			.dialect = j->dialect, .alg = j->alg };
		memcpy(c->sig_pre.key, j->key, sizeof(c->sig_pre.key));
		talloc_free(j);
	}
	/* without a result check_signature computes it inline */
	smbd_pipeline_kick(c->conn);
}

/* ------------------------------------------------------------------ */
/* Responses: sign each element, or encrypt the whole                   */

struct seal_job {
	struct smbd_conn *conn;         /* valid while the request lives */
	void *owner;                    /* a child: every buffer of iov */
	struct iovec *iov;              /* TRANSFORM header first, if sealed */
	int iovcnt;
	struct smbd_elem_out *elems;
	int num_elems;
	uint16_t cipher_id;             /* encrypt when key_len != 0 */
	uint8_t key[SMB2_CIPHER_KEY_MAX];
	size_t key_len;
	size_t bytes;
	bool zerocopy;
	/* a read-only payload: the ciphertext goes here, then replaces iov */
	uint8_t *ct;
	int ret;
};

static void seal_fn(void *arg)
{
	struct seal_job *j = arg;
	int i;

	if (j->key_len != 0 && j->ct != NULL) {
		j->ret = smb2_encrypt_seal_to(j->cipher_id, j->key, j->key_len,
					      j->iov[0].iov_base, j->iov + 1,
					      j->iovcnt - 1, j->ct);
		/* the TRANSFORM header, then the ciphertext */
		j->iov[1] = (struct iovec){ j->ct, j->bytes };
		j->iovcnt = 2;
		return;
	}
	if (j->key_len != 0) {
		j->ret = smb2_encrypt_seal(j->cipher_id, j->key, j->key_len,
					   j->iov[0].iov_base, j->iov + 1,
					   j->iovcnt - 1);
		return;
	}
	for (i = 0; i < j->num_elems; i++) {
		const struct smbd_elem_out *e = &j->elems[i];
		int ret = 0;

		if (e->sign) {
			ret = smb2_sign_pdu(e->sign_dialect, e->sign_alg,
					    e->key, &j->iov[e->hdr_idx],
					    e->iovcnt, true);
		}
		j->ret = ret != 0 ? ret : j->ret;
	}
}

/*
 * In the loop thread: the TRANSFORM header, with the next nonce, and for
 * a read-only payload the ciphertext's buffer (j->bytes of message and
 * the tag's room).
 */
static int seal_prepare(struct seal_job *j, struct smbd_crypto *crypto,
			uint64_t session_id, bool payload_ro)
{
	int ret = smbd_encrypt_prepare(j->owner, crypto, session_id, j->iov,
				       j->iovcnt, &j->iov, &j->iovcnt);

	if (ret != 0) {
		return ret;
	}
	if (payload_ro) {
		j->ct = talloc_size(j->owner, j->bytes + SMB2_TF_SIGNATURE_SIZE);
		if (j->ct == NULL) {
			return -ENOMEM;
		}
	}
	j->cipher_id = crypto->cipher_id;
	j->key_len = crypto->keys.cipher_key_len;
	memcpy(j->key, crypto->keys.encrypt, j->key_len);
	return 0;
}

/* Sealed (or failed): to the transport, which takes the owner. */
static void seal_finish(struct seal_job *j)
{
	struct smbd_conn *conn = j->conn;

	if (j->ret != 0 && j->key_len != 0) {
		talloc_free(j->owner);
		smbd_conn_terminate(conn, "cannot encrypt a response");
		return;
	}
	if (j->ret != 0) {
		DBG_ERR("%s: signing a response failed\n", conn->peer);
	}
	if (j->zerocopy) {
		smbd_transport_send_zc(conn, j->iov, j->iovcnt, j->owner);
	} else {
		smbd_transport_send(conn, j->iov, j->iovcnt, j->owner);
	}
}

static void seal_done(struct tevent_req *req);

/* The iovecs and elems may live on the caller's stack: copied. */
static bool seal_submit(struct seal_job *j)
{
	struct smbd_pipeline *p = j->conn->pipeline;
	struct tevent_req *req = NULL;

	j->iov = talloc_memdup(j, j->iov, sizeof(*j->iov) * j->iovcnt);
	j->elems = talloc_memdup(j, j->elems,
				 sizeof(*j->elems) * j->num_elems);
	if (j->iov == NULL || (j->num_elems > 0 && j->elems == NULL)) {
		return false;
	}
	req = jobpool_send(p, j->conn->ev, j->conn->crypto_pool,
			   seal_fn, j);
	if (req == NULL) {
		return false;
	}
	tevent_req_set_callback(req, seal_done, p);
	p->sealing_bytes += j->bytes;
	return true;
}

static void seal_done(struct tevent_req *req)
{
	struct smbd_pipeline *p = tevent_req_callback_data(
		req, struct smbd_pipeline);
	struct seal_job *j = NULL;
	int ret = jobpool_recv(req, p, (void **)&j);

	TALLOC_FREE(req);
	if (ret != 0) {
		/* the job never ran (ENOMEM): the response was in it */
		smbd_conn_terminate(p->conn, "out of memory");
		return;
	}
	p->sealing_bytes -= j->bytes;
	seal_finish(j);
	talloc_free(j);
	smbd_pipeline_kick(p->conn);
}

static size_t iov_bytes(const struct iovec *iov, int iovcnt)
{
	size_t n = 0;
	int i;

	for (i = 0; i < iovcnt; i++) {
		n += iov[i].iov_len;
	}
	return n;
}

static bool any_signed(const struct smbd_elem_out *elems, int num_elems)
{
	int i;

	for (i = 0; i < num_elems; i++) {
		if (elems[i].sign) {
			return true;
		}
	}
	return false;
}

void smbd_crypto_send(struct smbd_conn *conn, void *owner,
		      struct iovec *iov, int iovcnt,
		      const struct smbd_elem_out *elems, int num_elems,
		      struct smbd_crypto *crypto, uint64_t crypto_session_id,
		      bool zerocopy, bool payload_ro)
{
	struct seal_job inline_job = {}, *j = &inline_job;
	size_t bytes = iov_bytes(iov, iovcnt);
	bool dropped = false;
	bool pool = crypto != NULL ? offload(conn, bytes, CRYPTO_ENCRYPT) :
		    any_signed(elems, num_elems) &&
		    offload(conn, bytes, CRYPTO_SIGN);

	if (pool) {
		j = talloc_zero(conn->pipeline, struct seal_job);
		if (j == NULL) {
			pool = false;
			j = &inline_job;
		} else {
			crypto_keep_secret(j);
		}
	}
	*j = (struct seal_job){
		.conn = conn, .owner = owner, .iov = iov, .iovcnt = iovcnt,
		.elems = (struct smbd_elem_out *)elems,
		.num_elems = num_elems, .bytes = bytes, .zerocopy = zerocopy,
	};
	if (crypto != NULL &&
	    seal_prepare(j, crypto, crypto_session_id, payload_ro) != 0) {
		if (j != &inline_job) {
			talloc_free(j);
		}
		talloc_free(owner);
		smbd_conn_terminate(conn, "cannot encrypt a response");
		return;
	}
	if (pool) {
		talloc_steal(j, owner);
		if (seal_submit(j)) {
			return;
		}
		talloc_steal(conn->pipeline, owner);
	}
	/* inline: small, or the pool failed; large ones let others run */
	dropped = bytes >= conn->server->crypto_min_size && lock_drop(conn);
	seal_fn(j);
	lock_retake(conn, dropped);
	seal_finish(j);
	if (j != &inline_job) {
		talloc_free(j);
	}
	crypto_wipe(inline_job.key, sizeof(inline_job.key));
}
