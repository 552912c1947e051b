/*
 * Connection setup as a client does it: TCP connect, NEGOTIATE (3.1.1
 * with preauth integrity, encryption and signing contexts, down to
 * 2.0.2 if the server wants), SESSION_SETUP with lib/auth's SPNEGO +
 * NTLMSSP client, the session's keys (lib/crypto), TREE_CONNECT.
 * MS-SMB2 3.2.4.2 (negotiate), 3.2.5.3 (session setup), 3.2.4.2.4.
 */
#include <errno.h>
#include <netdb.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <arpa/inet.h>

#include "source3/utils/smb2bench/conn.h"
#include "lib/auth/auth.h"
#include "lib/smb2/fsctl.h"
#include "lib/util/byteorder.h"

static const uint16_t all_dialects[] = {
	SMB2_DIALECT_0202, SMB2_DIALECT_0210, SMB2_DIALECT_0300,
	SMB2_DIALECT_0302, SMB2_DIALECT_0311,
};

static bool fail(struct smb2_conn *c, const char *fmt, const char *what)
{
	c->err = talloc_asprintf(c, fmt, what);
	return false;
}

static bool tcp_connect(struct smb2_conn *c, const char *host,
			unsigned port_nr)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL, *ai = NULL;
	char port[16];
	int one = 1, rc;

	snprintf(port, sizeof(port), "%u", port_nr);
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		return fail(c, "%s", gai_strerror(rc));
	}
	for (ai = res; ai != NULL && c->fd < 0; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			       ai->ai_protocol);
		if (c->fd >= 0 &&
		    connect(c->fd, ai->ai_addr, ai->ai_addrlen) != 0) {
			close(c->fd);
			c->fd = -1;
		}
	}
	freeaddrinfo(res);
	if (c->fd < 0) {
		return fail(c, "cannot connect: %s", strerror(errno));
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return true;
}

/* A request with its header (Command set) on mem_ctx; body copied. */
static uint8_t *request(TALLOC_CTX *mem_ctx, uint16_t cmd,
			const uint8_t *body, size_t body_len)
{
	uint8_t *req = talloc_zero_array(mem_ctx, uint8_t,
					 SMB2_HDR_SIZE + body_len);

	if (req != NULL) {
		push_le16(req + SMB2_HDR_OFS_COMMAND, cmd);
		memcpy(req + SMB2_HDR_SIZE, body, body_len);
	}
	return req;
}

static int preauth_add(struct smb2_conn *c, uint8_t *hash, const uint8_t *m,
		       size_t len)
{
	struct iovec iov = { (void *)m, len };

	if (c->dialect != SMB2_DIALECT_0311) {
		return 0;
	}
	return smb2_preauth_update(hash, &iov, 1);
}

/* An algorithm list context: Count, then the ids (2.2.3.1.2, .7). */
static struct smb2_negctx alg_ctx(TALLOC_CTX *mem_ctx, uint16_t type,
				  const uint16_t *ids, size_t n)
{
	uint8_t *d = talloc_array(mem_ctx, uint8_t, 2 + 2 * n);
	size_t i;

	push_le16(d, (uint16_t)n);
	for (i = 0; i < n; i++) {
		push_le16(d + 2 + 2 * i, ids[i]);
	}
	return (struct smb2_negctx){ type, d, (uint16_t)(2 + 2 * n) };
}

static void negprot_contexts(TALLOC_CTX *mem_ctx, const struct smb_opts *o,
			     struct smb2_negctx ctx[3])
{
	uint16_t ciphers[4] = { SMB2_ENCRYPTION_AES128_GCM,
				SMB2_ENCRYPTION_AES128_CCM,
				SMB2_ENCRYPTION_AES256_GCM,
				SMB2_ENCRYPTION_AES256_CCM };
	static const uint16_t signing[] = { SMB2_SIGNING_AES_GMAC,
					    SMB2_SIGNING_AES_CMAC };
	uint8_t salt[SMB2_PREAUTH_SALT_SIZE];
	size_t len = 0, i;

	/* the asked cipher first: the server takes the first it has */
	for (i = 1; o->cipher != 0 && i < 4; i++) {
		if (ciphers[i] == o->cipher) {
			ciphers[i] = ciphers[0];
			ciphers[0] = o->cipher;
		}
	}
	crypto_random(salt, sizeof(salt));
	ctx[0].type = SMB2_PREAUTH_INTEGRITY_CAPABILITIES;
	ctx[0].data = smb2_negctx_preauth_push(mem_ctx, salt, &len);
	ctx[0].len = (uint16_t)len;
	ctx[1] = alg_ctx(mem_ctx, SMB2_ENCRYPTION_CAPABILITIES, ciphers, 4);
	ctx[2] = alg_ctx(mem_ctx, SMB2_SIGNING_CAPABILITIES, signing, 2);
}

static bool negotiate_result(struct smb2_conn *c, const struct smb_opts *o,
			     const struct smb2_negprot_crsp *r)
{
	c->dialect = r->dialect;
	c->max_read = r->max_read;
	c->max_write = r->max_write;
	c->large_mtu = r->dialect != SMB2_DIALECT_0202 &&
		       (r->capabilities & SMB2_GLOBAL_CAP_LARGE_MTU) != 0;
	c->server_signing_required =
		(r->security_mode & SMB2_NEGOTIATE_SIGNING_REQUIRED) != 0;
	c->signing_alg = smb2_negprot_crsp_chosen(r, SMB2_SIGNING_CAPABILITIES,
						  SMB2_SIGNING_AES_CMAC);
	if (r->dialect == SMB2_DIALECT_0311) {
		c->server_cipher = smb2_negprot_crsp_chosen(
			r, SMB2_ENCRYPTION_CAPABILITIES, 0);
	} else if (r->dialect >= SMB2_DIALECT_0300 &&
		   (r->capabilities & SMB2_GLOBAL_CAP_ENCRYPTION) != 0) {
		c->server_cipher = SMB2_ENCRYPTION_AES128_CCM;
	}
	if (r->dialect < SMB2_DIALECT_0202 || r->dialect > o->max_dialect) {
		return fail(c, "server chose dialect %s we did not offer",
			    talloc_asprintf(c, "0x%04x", r->dialect));
	}
	return true;
}

static bool negotiate(struct smb2_conn *c, TALLOC_CTX *tmp,
		      const struct smb_opts *o)
{
	struct smb2_negctx ctx[3];
	struct smb2_negprot_creq r = {
		.dialects = all_dialects,
		.security_mode = SMB2_NEGOTIATE_SIGNING_ENABLED,
		.capabilities = SMB2_GLOBAL_CAP_LARGE_MTU |
				SMB2_GLOBAL_CAP_ENCRYPTION,
		.negctx = ctx, .num_negctx = 3,
	};
	struct smb2_negprot_crsp rsp;
	struct smb2_pdu pdu;
	uint8_t body[512], *req = NULL, *frame = NULL, *m = NULL;
	size_t blen, mlen = 0;
	bool is_error = false;
	int ret;

	while (r.num_dialects < 5 && all_dialects[r.num_dialects] <=
					     o->max_dialect) {
		r.num_dialects++;
	}
	if (o->signing) {
		r.security_mode |= SMB2_NEGOTIATE_SIGNING_REQUIRED;
	}
	if (o->channels > 1) {
		r.capabilities |= SMB2_GLOBAL_CAP_MULTI_CHANNEL;
	}
	memcpy(r.client_guid, c->client_guid, sizeof(r.client_guid));
	negprot_contexts(tmp, o, ctx);
	blen = smb2_negprot_creq_push(&r, body, sizeof(body));
	req = request(tmp, SMB2_OP_NEGPROT, body, blen);
	ret = smb2_conn_send(c, 0, CONN_SETUP_CREDITS, req,
			     SMB2_HDR_SIZE + blen, false);
	if (ret == 0) {
		ret = smb2_conn_recv(c, tmp, 0, &frame, &m, &mlen);
	}
	if (ret != 0) {
		return fail(c, "NEGOTIATE: %s", strerror(-ret));
	}
	if (!NT_STATUS_IS_OK(smb2_rsp_carve(m, mlen, SMB2_NEGPROT_RSP_SIZE,
					    &pdu, &is_error)) || is_error ||
	    pdu.hdr.status != 0 ||
	    !NT_STATUS_IS_OK(smb2_negprot_crsp_pull(&pdu, &rsp))) {
		return fail(c, "NEGOTIATE: %s", is_error ?
			    nt_errstr(NT_STATUS(pdu.hdr.status)) :
			    "malformed response");
	}
	if (!negotiate_result(c, o, &rsp)) {
		return false;
	}
	preauth_add(c, c->preauth, req, SMB2_HDR_SIZE + blen);
	preauth_add(c, c->preauth, m, mlen);
	return true;
}

/* One SESSION_SETUP leg: send tok, return the response carved in pdu. */
static bool sesssetup_leg(struct smb2_conn *c, TALLOC_CTX *tmp,
			  uint8_t *hash, const uint8_t *tok, size_t tok_len,
			  struct smb2_pdu *pdu)
{
	struct smb2_sesssetup_creq r = {
		.flags = c->binding ? SMB2_SESSION_FLAG_BINDING : 0,
		.security_mode = SMB2_NEGOTIATE_SIGNING_ENABLED,
		.security = { tok, tok_len },
	};
	uint8_t *body = talloc_array(tmp, uint8_t, 64 + tok_len);
	uint8_t *req = NULL, *frame = NULL, *m = NULL;
	uint64_t mid = c->next_mid;
	size_t blen = smb2_sesssetup_creq_push(&r, body, 64 + tok_len);
	size_t mlen = 0;
	bool is_error = false;
	int ret;

	req = request(tmp, SMB2_OP_SESSSETUP, body, blen);
	ret = smb2_conn_send(c, 1, CONN_SETUP_CREDITS, req,
			     SMB2_HDR_SIZE + blen, false);
	preauth_add(c, hash, req, SMB2_HDR_SIZE + blen);
	if (ret == 0) {
		ret = smb2_conn_recv(c, tmp, mid, &frame, &m, &mlen);
	}
	if (ret != 0) {
		return fail(c, "SESSION_SETUP: %s", strerror(-ret));
	}
	if (!NT_STATUS_IS_OK(smb2_rsp_carve(m, mlen, SMB2_SESSSETUP_RSP_SIZE,
					    pdu, &is_error))) {
		return fail(c, "SESSION_SETUP: %s", "malformed response");
	}
	c->session_id = pdu->hdr.session_id;
	if (pdu->hdr.status == NT_STATUS_V(NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		preauth_add(c, hash, m, mlen);
	}
	return true;
}

/* Authenticate; on success *pdu is the final response (for its MAC). */
static bool authenticate(struct smb2_conn *c, TALLOC_CTX *tmp,
			 const struct smb_opts *o, uint8_t *hash,
			 struct auth_client *ac, struct smb2_pdu *pdu)
{
	struct smb2_sesssetup_crsp rsp = {};
	uint8_t *tok = NULL;
	size_t tok_len = 0;
	NTSTATUS st;

	st = auth_client_update(ac, tmp, NULL, 0, &tok, &tok_len);
	while (NT_STATUS_EQUAL(st, NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		if (!sesssetup_leg(c, tmp, hash, tok, tok_len, pdu)) {
			return false;
		}
		if (pdu->hdr.status != 0 &&
		    pdu->hdr.status !=
			    NT_STATUS_V(NT_STATUS_MORE_PROCESSING_REQUIRED)) {
			return fail(c, "SESSION_SETUP: %s",
				    nt_errstr(NT_STATUS(pdu->hdr.status)));
		}
		if (!NT_STATUS_IS_OK(smb2_sesssetup_crsp_pull(pdu, &rsp))) {
			return fail(c, "SESSION_SETUP: %s",
				    "malformed response");
		}
		st = auth_client_update(ac, tmp, rsp.security.data,
					rsp.security.len, &tok, &tok_len);
		if (pdu->hdr.status == 0) {
			break;
		}
	}
	if (!NT_STATUS_IS_OK(st) || pdu->hdr.status != 0) {
		return fail(c, "authentication failed: %s",
			    nt_errstr(NT_STATUS_IS_OK(st) ?
				      NT_STATUS_LOGON_FAILURE : st));
	}
	c->session_flags = rsp.session_flags;
	return true;
}

/* Keys, the final response's signature, signing and encryption. */
static bool session_keys(struct smb2_conn *c, const struct smb_opts *o,
			 struct auth_client *ac, const uint8_t *hash,
			 const struct smb2_pdu *final)
{
	uint8_t key[AUTH_SESSION_KEY_SIZE];
	struct iovec iov = { (void *)final->buf, final->len };
	bool guest = (c->session_flags & (SMB2_SESSION_FLAG_IS_GUEST |
					  SMB2_SESSION_FLAG_IS_NULL)) != 0;
	bool encrypt = o->cipher != 0 ||
		       (c->session_flags & SMB2_SESSION_FLAG_ENCRYPT_DATA);

	if (guest && !o->anonymous) {
		/* map to guest = Bad User: a typo must not bench as guest */
		return fail(c, "the server made %s's session a guest one "
			    "(unknown user or wrong password); -N asks for "
			    "guest", o->user);
	}
	if (guest || !auth_client_session_key(ac, key)) {
		if (encrypt || o->signing) {
			return fail(c, "%s needs a user session; the server "
				    "made this one guest or anonymous",
				    encrypt ? "encryption" : "signing");
		}
		return true;
	}
	if (smb2_derive_keys(c->dialect, c->server_cipher, key, sizeof(key),
			     hash, &c->keys) != 0) {
		return fail(c, "%s", "cannot derive the session keys");
	}
	crypto_wipe(key, sizeof(key));
	if ((final->hdr.flags & SMB2_FLAGS_SIGNED) &&
	    smb2_sign_check(c->dialect, c->signing_alg, c->keys.signing,
			    &iov, 1, true) != 0) {
		return fail(c, "%s", "SESSION_SETUP: bad signature from the "
			    "server");
	}
	if (encrypt) {
		if (c->server_cipher == 0) {
			return fail(c, "%s", "the server offers no encryption");
		}
		c->cipher = c->server_cipher;
		return smb2_nonce_gen_init(&c->nonce) == 0 ||
		       fail(c, "%s", "no random numbers");
	}
	c->sign = o->signing || c->server_signing_required;
	return true;
}

static bool session_setup(struct smb2_conn *c, TALLOC_CTX *tmp,
			  const struct smb_opts *o)
{
	struct auth_client_settings s = {
		.user = o->user, .domain = o->domain, .password = o->password,
		.workstation = "SMB2BENCH", .anonymous = o->anonymous,
	};
	struct auth_client *ac = auth_client_new(tmp, &s);
	uint8_t hash[SMB2_PREAUTH_HASH_SIZE];
	struct smb2_pdu final;

	memcpy(hash, c->preauth, sizeof(hash));
	if (ac == NULL) {
		return fail(c, "%s", "out of memory");
	}
	return authenticate(c, tmp, o, hash, ac, &final) &&
	       session_keys(c, o, ac, hash, &final);
}

static bool tree_connect(struct smb2_conn *c, TALLOC_CTX *tmp,
			 const struct smb_opts *o)
{
	char *path = talloc_asprintf(tmp, "\\\\%s\\%s", o->host, o->share);
	struct smb2_tcon_crsp rsp;
	struct smb2_pdu pdu;
	uint8_t *u = NULL, body[1024];
	size_t ulen = 0, blen = 0;
	NTSTATUS st;

	st = smb2_utf8_to_utf16(tmp, path, strlen(path), &u, &ulen);
	if (NT_STATUS_IS_OK(st)) {
		blen = smb2_tcon_creq_push((struct smb2_blob){ u, ulen }, body,
					   sizeof(body));
		st = blen == 0 ? NT_STATUS_NAME_TOO_LONG :
				 smb2_conn_call(c, tmp, SMB2_OP_TCON, body,
						blen, &pdu);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = smb2_tcon_crsp_pull(&pdu, &rsp);
	}
	if (!NT_STATUS_IS_OK(st)) {
		return c->err == NULL &&
		       fail(c, "TREE_CONNECT: %s", nt_errstr(st));
	}
	c->tree_id = pdu.hdr.tree_id;
	if ((rsp.share_flags & SMB2_SHAREFLAG_ENCRYPT_DATA) && c->cipher == 0) {
		return fail(c, "share %s requires encryption: use --encrypt",
			    o->share);
	}
	return true;
}

/* NULL and *err when !ok, else c. */
static struct smb2_conn *conn_done(TALLOC_CTX *mem_ctx, struct smb2_conn *c,
				   bool ok, char **err)
{
	if (!ok) {
		*err = talloc_strdup(mem_ctx, c->err != NULL ? c->err :
					      "connection failed");
		if (c->fd >= 0) {
			close(c->fd);
		}
		TALLOC_FREE(c);
	}
	return c;
}

/*
 * The binding legs are signed with the session's key (3.2.4.1.1); the
 * new authentication's key, with this connection's preauth hash on
 * 3.1.1, gives the channel's signing key (3.2.5.3.1), which checks the
 * final response and signs from then on.  Encryption keys and their
 * nonces stay the session's.
 */
static bool bind_session(struct smb2_conn *c, TALLOC_CTX *tmp,
			 const struct smb2_conn *first,
			 const struct smb_opts *o)
{
	bool ok;

	if (c->dialect != first->dialect) {
		return fail(c, "the server chose dialect 0x%s on another "
			    "channel", talloc_asprintf(tmp, "%04x",
						       c->dialect));
	}
	c->session_id = first->session_id;
	memcpy(c->keys.signing, first->keys.signing, sizeof(c->keys.signing));
	c->sign = true;
	c->binding = true;
	ok = session_setup(c, tmp, o);
	c->binding = false;
	if (!ok) {
		return false;
	}
	memcpy(c->keys.encrypt, first->keys.encrypt, sizeof(c->keys.encrypt));
	memcpy(c->keys.decrypt, first->keys.decrypt, sizeof(c->keys.decrypt));
	c->keys.cipher_key_len = first->keys.cipher_key_len;
	c->cipher = first->cipher;
	c->ng = first->ng;
	c->sign = first->sign;
	c->tree_id = first->tree_id;
	c->session_flags = first->session_flags;
	return true;
}

/*
 * A connection to host: with first NULL a new session and its tree,
 * else a channel bound to first's session.
 */
static struct smb2_conn *conn_setup(TALLOC_CTX *mem_ctx,
				    const struct smb_opts *o,
				    const struct smb2_conn *first,
				    const char *host, char **err)
{
	struct smb2_conn *c = talloc_zero(mem_ctx, struct smb2_conn);
	TALLOC_CTX *tmp = NULL;
	bool ok;

	if (c == NULL) {
		*err = talloc_strdup(mem_ctx, "out of memory");
		return NULL;
	}
	c->fd = -1;
	c->credits = 1;
	c->ng = &c->nonce;
	tmp = talloc_new(c);
	if (first == NULL) {
		crypto_random(c->client_guid, sizeof(c->client_guid));
	} else {
		memcpy(c->client_guid, first->client_guid,
		       sizeof(c->client_guid));
	}
	ok = tcp_connect(c, host, o->port) && negotiate(c, tmp, o) &&
	     (first == NULL ? session_setup(c, tmp, o) &&
			      tree_connect(c, tmp, o) :
			      bind_session(c, tmp, first, o));
	talloc_free(tmp);
	if (!ok && first != NULL && c->err != NULL) {
		c->err = talloc_asprintf(c, "channel to %s: %s", host, c->err);
	}
	return conn_done(mem_ctx, c, ok, err);
}

struct smb2_conn *smb2_conn_open(TALLOC_CTX *mem_ctx,
				 const struct smb_opts *o, char **err)
{
	return conn_setup(mem_ctx, o, NULL, o->host, err);
}

struct smb2_conn *smb2_conn_bind(TALLOC_CTX *mem_ctx,
				 const struct smb2_conn *first,
				 const struct smb_opts *o, const char *host,
				 char **err)
{
	return conn_setup(mem_ctx, o, first, host, err);
}

static char *iface_addr(TALLOC_CTX *mem_ctx, const struct smb2_net_iface *i)
{
	char buf[INET6_ADDRSTRLEN];
	int af = i->family == SMB2_SOCKADDR_INET ? AF_INET : AF_INET6;

	if (inet_ntop(af, i->addr, buf, sizeof(buf)) == NULL) {
		return NULL;
	}
	return talloc_strdup(mem_ctx, buf);
}

bool smb2_conn_interfaces(struct smb2_conn *c, TALLOC_CTX *mem_ctx,
			  char ***addrs, size_t *n)
{
	TALLOC_CTX *tmp = talloc_new(c);
	uint8_t body[SMB2_IOCTL_CREQ_LEN];
	struct smb2_net_iface i;
	struct smb2_blob out = {};
	struct smb2_pdu pdu;
	size_t ofs = 0;
	NTSTATUS st;

	st = smb2_conn_call(c, tmp, SMB2_OP_IOCTL, body,
			    smb2_fsctl_creq_push(
				    FSCTL_QUERY_NETWORK_INTERFACE_INFO,
				    65536, body, sizeof(body)), &pdu);
	if (NT_STATUS_IS_OK(st)) {
		st = smb2_ioctl_crsp_pull(&pdu, &out);
	}
	*n = 0;
	*addrs = talloc_array(mem_ctx, char *, out.len / SMB2_NET_IFACE_SIZE);
	while (NT_STATUS_IS_OK(st) && ofs < out.len && *addrs != NULL) {
		st = smb2_net_iface_pull(out.data, out.len, &ofs, &i);
		if (NT_STATUS_IS_OK(st)) {
			(*addrs)[(*n)++] = iface_addr(*addrs, &i);
		}
	}
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(st) && c->err == NULL) {
		fail(c, "FSCTL_QUERY_NETWORK_INTERFACE_INFO: %s",
		     nt_errstr(st));
	}
	return NT_STATUS_IS_OK(st) && *addrs != NULL;
}
