/*
 * fuzz_server's SESSION_SETUP step (fuzz_server_prog.h): NTLMSSP legs
 * as anonymous, guest or the user, binding a second connection, and the
 * keys a client derives from the logon (MS-SMB2 3.2.5.3.1): the
 * session's, or a bound channel's own signing key.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/auth/auth.h"
#include "lib/crypto/crypto.h"
#include "lib/smb2/smb2_client.h"
#include "lib/util/byteorder.h"
#include "tests/fuzz/fuzz_server_prog.h"

/*
 * One SESSION_SETUP leg with blob; the response lands in c->setup_*.
 * hash is the session's 3.1.1 preauth chain (MS-SMB2 3.2.5.3.1): the
 * request goes in as sent (signed, before encryption), a response asking
 * for more too.
 */
static bool setup_leg(struct fz_prog *g, uint8_t flags, uint64_t sid,
		      uint8_t slot, const uint8_t *blob, size_t blen,
		      uint8_t hash[SMB2_PREAUTH_HASH_SIZE])
{
	struct fz_client *c = g->c;
	struct fz_frame f = {};
	struct fz_session *seal = NULL;
	struct smb2_hdr h;
	uint8_t *b = g->body;

	base_hdr(g, &h, SMB2_OP_SESSSETUP);
	h.session_id = sid;
	memset(b, 0, 24);
	push_le16(b, 25);
	b[2] = flags;
	b[3] = 1;                       /* signing enabled */
	push_le16(b + 12, 64 + 24);
	push_le16(b + 14, (uint16_t)blen);
	memcpy(b + 24, blob, blen);
	c->setup_status = 0xFFFFFFFF;
	if (fz_frame_add(c, &f, &h, b, 24 + blen, 0, false) == 0) {
		return false;
	}
	c->ch->reqs[c->ch->num_reqs - 1].session_slot = slot;
	c->ch->reqs[c->ch->num_reqs - 1].binding =
		(flags & SMB2_SESSION_FLAG_BINDING) != 0;
	seal = fz_frame_sealer(c, &f);
	if (seal == NULL) {
		fz_frame_sign(c, &f);
	}
	smb2_preauth_update(hash, &(struct iovec){ f.buf + 4, f.len - 4 }, 1);
	if (seal != NULL) {
		fz_frame_seal(c, &f, seal);
	}
	fz_frame_send(c, &f);
	fz_client_settle(c);
	if (c->setup_status != NT_STATUS_V(NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		return false;
	}
	smb2_preauth_update(hash, &(struct iovec){ c->setup_rsp,
						   c->setup_rsp_len }, 1);
	return true;
}

/*
 * After a user's logon: the session's keys (MS-SMB2 3.2.5.3.1), for a
 * new session or one that had none (a re-authentication keeps keys, but
 * one of an anonymous session makes them then), and the final response,
 * which the server signs with them, must verify.
 */
static void session_keys(struct fz_client *c, struct auth_client *ac,
			 unsigned slot, bool reauth,
			 const uint8_t hash[SMB2_PREAUTH_HASH_SIZE])
{
	struct fz_session *s = &c->sessions[slot];
	uint8_t key[AUTH_SESSION_KEY_SIZE];
	struct iovec iov = { c->setup_rsp, c->setup_rsp_len };

	if ((reauth && fz_client_keys(c, s->id) != NULL) ||
	    (c->setup_session_flags & (SMB2_SESSION_FLAG_IS_GUEST |
				       SMB2_SESSION_FLAG_IS_NULL)) ||
	    (c->ch->dialect == SMB2_DIALECT_0311 && !c->ch->preauth_known) ||
	    !auth_client_session_key(ac, key)) {
		return;
	}
	if (smb2_derive_keys(c->ch->dialect, c->ch->cipher_id, key,
			     sizeof(key), hash, &s->keys) != 0) {
		return;                 /* no dialect, or 0x02FF */
	}
	crypto_wipe(key, sizeof(key));
	fz_client_forget_keys(c, s->id);
	s->have_keys = true;
	s->dialect = c->ch->dialect;
	s->signing_alg = c->ch->signing_alg;
	s->cipher_id = s->keys.cipher_key_len != 0 ? c->ch->cipher_id : 0;
	s->encrypt = (c->setup_session_flags &
		      SMB2_SESSION_FLAG_ENCRYPT_DATA) != 0;
	if (s->cipher_id != 0 && smb2_nonce_gen_init(&s->nonce) != 0) {
		fz_fail("no random numbers");
	}
	if (c->setup_rsp != NULL &&
	    (pull_le32(c->setup_rsp + SMB2_HDR_OFS_FLAGS) & SMB2_FLAGS_SIGNED) &&
	    smb2_sign_check(s->dialect, s->signing_alg, s->keys.signing, &iov,
			    1, true) != 0) {
		fz_fail("the final SESSION_SETUP response does not verify");
	}
	if (c->trace) {
		fprintf(stderr, "fuzz_server: session 0x%llx: keys for dialect "
			"0x%04x, signing %u, cipher %u%s\n",
			(unsigned long long)s->id, s->dialect, s->signing_alg,
			s->cipher_id, s->encrypt ? ", encrypts" : "");
	}
}

/*
 * A binding's end (MS-SMB2 3.2.5.3.3, 3.3.5.5.3): this connection's own
 * signing key, derived from this authentication's key and, for 3.1.1,
 * the chain that began with this connection's NEGOTIATE (hash).  The
 * server signs the final response with it; every request of the session
 * on this connection is signed with it from now on.
 */
static void channel_key(struct fz_client *c, struct auth_client *ac,
			const uint8_t hash[SMB2_PREAUTH_HASH_SIZE])
{
	struct fz_session *s = fz_client_keys(c, c->setup_session_id);
	uint8_t key[AUTH_SESSION_KEY_SIZE];
	struct smb2_keys k = {};
	struct iovec iov = { c->setup_rsp, c->setup_rsp_len };
	bool signed_rsp;
	int ret;

	if (s == NULL ||
	    (c->ch->dialect == SMB2_DIALECT_0311 && !c->ch->preauth_known) ||
	    !auth_client_session_key(ac, key)) {
		return;                 /* its requests go unchecked */
	}
	ret = smb2_derive_keys(c->ch->dialect, c->ch->cipher_id, key,
			       sizeof(key), hash, &k);
	crypto_wipe(key, sizeof(key));
	if (ret != 0) {
		return;
	}
	memcpy(s->chan_signing[c->ch->idx], k.signing, sizeof(k.signing));
	s->bound[c->ch->idx] = true;
	smb2_keys_wipe(&k);
	signed_rsp = c->setup_rsp != NULL &&
		     (pull_le32(c->setup_rsp + SMB2_HDR_OFS_FLAGS) &
		      SMB2_FLAGS_SIGNED);
	if (signed_rsp &&
	    smb2_sign_check(s->dialect, s->signing_alg,
			    fz_client_signing_key(c, s), &iov, 1, true) != 0) {
		fz_fail("the final binding SESSION_SETUP response does not "
			"verify with the channel's key");
	}
	if (c->trace) {
		fprintf(stderr, "fuzz_server: session 0x%llx: bound to "
			"connection %u%s\n", (unsigned long long)s->id,
			c->ch->idx, signed_rsp ? ", its answer signed with "
			"the channel's key" : "");
	}
}

static struct auth_client *setup_client(TALLOC_CTX *mem_ctx, uint8_t mode)
{
	struct auth_client_settings set = {
		.user = "", .domain = "", .password = "",
		.workstation = "FZ", .anonymous = true,
	};

	if (mode & 0x80) {
		set.user = FZ_USER;
		set.password = (mode & 1) ? "wrong" : FZ_PASSWORD;
		set.anonymous = false;
	} else if (mode & 1) {
		set.user = "fuzzguest";
		set.password = "pw";
		set.anonymous = false;
	}
	return auth_client_new(mem_ctx, &set);
}

/*
 * mode: bit 0 an unknown user (guest) instead of anonymous; bit 7 the
 * user FZ_USER with its password (with bit 0 a wrong one), which gives
 * the session keys: signing, and encryption where asked; bit 1 the
 * BINDING flag; bit 2 re-authenticate the current session; bit 3 stop
 * after the first leg; bits 4-6 the slot the session goes to.  Bits 1
 * and 2 together bind the current session to the current connection:
 * with bit 7 and the slot the session is in, that is what a client
 * does (the legs signed with the session's key, the 3.1.1 chain from
 * this connection's NEGOTIATE, then the channel's own key).
 */
void fz_step_session_setup(struct fz_prog *g)
{
	uint8_t mode = u8(g);
	struct fz_client *c = g->c;
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct auth_client *ac = setup_client(tmp, mode);
	const struct fz_session *cur = &c->sessions[c->cur_session];
	bool reauth = (mode & 4) && cur->id != 0;
	bool binding = reauth && (mode & 2);
	uint64_t sid = reauth ? cur->id : 0;
	uint8_t hash[SMB2_PREAUTH_HASH_SIZE];
	uint8_t *out = NULL;
	size_t out_len = 0;
	unsigned leg, slot = (mode >> 4) & 7;
	NTSTATUS st = NT_STATUS_MORE_PROCESSING_REQUIRED;

	/* a re-authentication goes on with the session's chain */
	memcpy(hash, reauth && !binding ? cur->preauth : c->ch->preauth,
	       sizeof(hash));
	if (ac == NULL || !NT_STATUS_EQUAL(
		    auth_client_update(ac, tmp, NULL, 0, &out, &out_len),
		    NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		fz_fail("the NTLMSSP client does not start");
	}
	for (leg = 0; leg < 3 && out != NULL; leg++) {
		bool more = setup_leg(g, (mode & 2) ?
				      SMB2_SESSION_FLAG_BINDING : 0,
				      sid, slot, out, out_len, hash);

		if ((mode & 8) || (!more && c->setup_status != 0)) {
			break;
		}
		/* also the final token: its mechListMIC, then the key */
		sid = c->setup_session_id;
		out = NULL;
		st = auth_client_update(ac, tmp, c->setup_blob,
					c->setup_blob_len, &out, &out_len);
		if (!more || !NT_STATUS_EQUAL(
			    st, NT_STATUS_MORE_PROCESSING_REQUIRED)) {
			break;
		}
	}
	/* the last leg's answer: OK, and the client took its token */
	if (c->setup_status == 0 && c->sessions[slot].id == c->setup_session_id) {
		if (binding) {
			if (NT_STATUS_IS_OK(st)) {
				channel_key(c, ac, hash);
			}
		} else {
			memcpy(c->sessions[slot].preauth, hash, sizeof(hash));
			if (NT_STATUS_IS_OK(st) && (mode & 0x80)) {
				session_keys(c, ac, slot, reauth, hash);
			}
		}
	}
	talloc_free(tmp);
}
