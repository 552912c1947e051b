/*
 * NTLMSSP message integrity with extended session security, as SPNEGO's
 * mechListMIC needs it (MS-NLMP 3.4.4.2, 3.4.5.2, 3.4.5.3):
 *
 *   SignKey  = MD5(ExportedSessionKey || "session key to <dir> signing
 *              key magic constant\0")
 *   SealKey  = MD5(ExportedSessionKey[0..n-1] || "... sealing ...\0"),
 *              n = 16 with NEGOTIATE_128, else 7 with NEGOTIATE_56, else 5
 *   MAC      = Version 1 (4) || Checksum (8) || SeqNum (4)
 *   Checksum = HMAC_MD5(SignKey, SeqNum || Message)[0..7], then RC4 with
 *              the direction's sealing handle if KEY_EXCH was negotiated
 *
 * Connection-oriented mode (3.4): each direction keeps one RC4 handle
 * whose key stream runs on across messages, and its own SeqNum counting
 * from 0.  Sealing (GSS_WrapEx) is not implemented: SMB2 never uses it.
 */
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <nettle/memops.h>

#include "lib/auth/auth_private.h"
#include "lib/util/byteorder.h"
#include "lib/util/debug.h"

#define NTLMSSP_SIG_VERSION 1
#define NTLMSSP_CHECKSUM_LEN 8

static const char *const sign_magic[] = {
	[NTLMSSP_CLIENT_TO_SERVER] =
		"session key to client-to-server signing key magic constant",
	[NTLMSSP_SERVER_TO_CLIENT] =
		"session key to server-to-client signing key magic constant",
};

static const char *const seal_magic[] = {
	[NTLMSSP_CLIENT_TO_SERVER] =
		"session key to client-to-server sealing key magic constant",
	[NTLMSSP_SERVER_TO_CLIENT] =
		"session key to server-to-client sealing key magic constant",
};

/* MD5(key || magic including its NUL) */
static NTSTATUS md5_magic(const uint8_t *key, size_t key_len,
			  const char *magic, uint8_t out[16])
{
	gnutls_hash_hd_t h = NULL;
	int rc = gnutls_hash_init(&h, GNUTLS_DIG_MD5);

	if (rc < 0) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	rc = gnutls_hash(h, key, key_len);
	if (rc >= 0) {
		rc = gnutls_hash(h, magic, strlen(magic) + 1);
	}
	gnutls_hash_deinit(h, out);
	return rc < 0 ? NT_STATUS_INTERNAL_ERROR : NT_STATUS_OK;
}

/* 3.4.5.3: how much of the session key feeds the sealing key. */
static size_t seal_key_len(uint32_t flags)
{
	if (flags & NTLMSSP_NEGOTIATE_128) {
		return 16;
	}
	if (flags & NTLMSSP_NEGOTIATE_56) {
		return 7;
	}
	return 5;
}

NTSTATUS ntlmssp_sign_keys(uint32_t flags, const uint8_t exported[16],
			   enum ntlmssp_direction dir, uint8_t sign_key[16],
			   uint8_t seal_key[16])
{
	NTSTATUS status = md5_magic(exported, 16, sign_magic[dir], sign_key);

	if (NT_STATUS_IS_OK(status)) {
		status = md5_magic(exported, seal_key_len(flags),
				   seal_magic[dir], seal_key);
	}
	return status;
}

static NTSTATUS sign_dir_init(struct ntlmssp_sign_dir *d, uint32_t flags,
			      const uint8_t exported[16],
			      enum ntlmssp_direction dir)
{
	uint8_t seal_key[16];
	gnutls_datum_t k = { .data = seal_key, .size = sizeof(seal_key) };
	NTSTATUS status;

	status = ntlmssp_sign_keys(flags, exported, dir, d->sign_key,
				   seal_key);
	if (NT_STATUS_IS_OK(status) &&
	    gnutls_cipher_init(&d->seal, GNUTLS_CIPHER_ARCFOUR_128, &k,
			       NULL) < 0) {
		d->seal = NULL;
		status = NT_STATUS_INTERNAL_ERROR;
	}
	auth_wipe(seal_key, sizeof(seal_key));
	return status;
}

static int sign_destructor(struct ntlmssp_sign *s)
{
	if (s->send.seal != NULL) {
		gnutls_cipher_deinit(s->send.seal);
	}
	if (s->recv.seal != NULL) {
		gnutls_cipher_deinit(s->recv.seal);
	}
	auth_wipe(s, sizeof(*s));
	return 0;
}

struct ntlmssp_sign *ntlmssp_sign_new(TALLOC_CTX *mem_ctx, uint32_t flags,
				      const uint8_t exported[16], bool server)
{
	struct ntlmssp_sign *s = talloc_zero(mem_ctx, struct ntlmssp_sign);
	enum ntlmssp_direction out = server ? NTLMSSP_SERVER_TO_CLIENT :
					      NTLMSSP_CLIENT_TO_SERVER;
	enum ntlmssp_direction in = server ? NTLMSSP_CLIENT_TO_SERVER :
					     NTLMSSP_SERVER_TO_CLIENT;
	NTSTATUS status;

	if (s == NULL) {
		return NULL;
	}
	talloc_set_destructor(s, sign_destructor);
	s->key_exch = (flags & NTLMSSP_NEGOTIATE_KEY_EXCH) != 0;
	status = sign_dir_init(&s->send, flags, exported, out);
	if (NT_STATUS_IS_OK(status)) {
		status = sign_dir_init(&s->recv, flags, exported, in);
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_ERR("NTLMSSP signing keys: %s\n", nt_errstr(status));
		TALLOC_FREE(s);
	}
	return s;
}

/* 3.4.4.2 MAC() for one direction; uses up a SeqNum and key stream. */
static NTSTATUS sign_mac(struct ntlmssp_sign_dir *d, bool key_exch,
			 const uint8_t *msg, size_t len,
			 uint8_t sig[NTLMSSP_SIG_SIZE])
{
	uint8_t seq[4], digest[16], checksum[NTLMSSP_CHECKSUM_LEN];
	struct auth_slice parts[2] = { { seq, 4 }, { msg, len } };
	NTSTATUS status;

	push_le32(seq, d->seq);
	status = ntlm_hmac_md5(d->sign_key, 16, parts, 2, digest);
	memcpy(checksum, digest, sizeof(checksum));
	if (NT_STATUS_IS_OK(status) && key_exch &&
	    gnutls_cipher_encrypt2(d->seal, digest, sizeof(checksum),
				   checksum, sizeof(checksum)) < 0) {
		status = NT_STATUS_INTERNAL_ERROR;
	}
	push_le32(sig, NTLMSSP_SIG_VERSION);
	memcpy(sig + 4, checksum, sizeof(checksum));
	push_le32(sig + 12, d->seq);
	d->seq++;
	auth_wipe(digest, sizeof(digest));
	auth_wipe(checksum, sizeof(checksum));
	return status;
}

NTSTATUS ntlmssp_sign_mic(struct ntlmssp_sign *s, const uint8_t *msg,
			  size_t len, uint8_t sig[NTLMSSP_SIG_SIZE])
{
	return sign_mac(&s->send, s->key_exch, msg, len, sig);
}

NTSTATUS ntlmssp_sign_check(struct ntlmssp_sign *s, const uint8_t *msg,
			    size_t len, const uint8_t *sig, size_t sig_len)
{
	uint8_t want[NTLMSSP_SIG_SIZE];
	NTSTATUS status = sign_mac(&s->recv, s->key_exch, msg, len, want);

	if (NT_STATUS_IS_OK(status) &&
	    (sig_len != NTLMSSP_SIG_SIZE ||
	     !nettle_memeql_sec(want, sig, NTLMSSP_SIG_SIZE))) {
		status = NT_STATUS_ACCESS_DENIED;
	}
	auth_wipe(want, sizeof(want));
	return status;
}
