/*
 * The client end of fuzz_server (fuzz_server_client.c): builds request
 * frames, sends them through the socketpair of the current connection
 * (one of two), reads and checks every response on both, and keeps what
 * later requests refer to (session, tree and file ids, AsyncIds, break
 * notifications) so a program gets deep.  A request's MessageId, its
 * credits and its answer belong to the connection it went on.
 *
 * Checked as responses arrive (fz_fail, i.e. abort, otherwise):
 *  - each frame is whole SMB2: 0xFE header, StructureSize 64, the
 *    SERVER_TO_REDIR flag, compound elements inside the frame;
 *  - a response answers a request we sent and have not had answered
 *    (or is a break notification), at most one interim and one final;
 *  - the credits the client holds (granted - used) never exceed
 *    SMBD_MAX_CREDITS;
 *  - a response signed for a session we hold keys for verifies, with
 *    the key of the connection it came on (a SIGNED flag with a zero
 *    signature, or the request's signature echoed, is an unsigned
 *    answer: the server cannot sign errors for requests whose signature
 *    it rejected), and a TRANSFORM response is well formed, names such
 *    a session and its tag verifies;
 *  - a request sent in plaintext on a tree that encrypts is refused
 *    (MS-SMB2 3.3.5.2.11: ACCESS_DENIED, or the connection is dropped):
 *    its answer is never a success or a warning with data.
 * And at the end of each step (fz_client_settle): every request on
 * either connection was answered, finally or with an interim
 * STATUS_PENDING, unless that connection is closed.  Requests whose
 * bytes the program mutated are not tracked (their MessageId may have
 * changed).
 */
#ifndef RINGSMB_FUZZ_SERVER_CLIENT_H
#define RINGSMB_FUZZ_SERVER_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>
#include <tevent.h>
#include "lib/crypto/crypto.h"
#include "lib/smb2/smb2.h"
#include "tests/fuzz/fuzz_server_env.h"

#define FZ_SLOTS 8                      /* sessions, trees, files */
#define FZ_TRACK 512                    /* requests remembered */

enum fz_req_state { FZ_SENT, FZ_INTERIM, FZ_DONE };

struct fz_req {
	uint64_t mid;
	uint16_t command;
	enum fz_req_state state;
	uint64_t async_id;
	bool tracked;                   /* answers required, checked */
	uint8_t session_slot;           /* SESSION_SETUP: where it goes */
	uint8_t signature[16];          /* as sent, if we signed it */
	bool plain_on_encrypted;        /* sent plaintext to such a tree */
	bool binding;                   /* SESSION_SETUP with BINDING */
};

/*
 * A session slot: the id a SESSION_SETUP gave, and for a user's session
 * its keys.  keys is the server's view (MS-SMB2 3.3.5.5.3): the client
 * encrypts with keys.decrypt and decrypts with keys.encrypt.
 */
struct fz_session {
	uint64_t id;
	bool have_keys;
	struct smb2_keys keys;
	uint16_t dialect, signing_alg, cipher_id;
	bool encrypt;                   /* SessionFlags ENCRYPT_DATA */
	struct smb2_nonce_gen nonce;
	/* 3.1.1: the chain its SESSION_SETUP legs built (re-auth goes on) */
	uint8_t preauth[SMB2_PREAUTH_HASH_SIZE];
	/*
	 * A connection bound to it signs with its own key (MS-SMB2
	 * 3.3.5.5.3, for 3.1.1 from that connection's preauth chain);
	 * the others with keys.signing.
	 */
	bool bound[FZ_CONNS];
	uint8_t chan_signing[FZ_CONNS][SMB2_SIGNING_KEY_SIZE];
};

/*
 * One connection: its socket, what NEGOTIATE chose on it, its MessageId
 * and credit window and the requests sent on it.  Sessions, trees and
 * files are the client's: a session bound to both is named on either.
 */
struct fz_chan {
	struct fz_client *client;
	unsigned idx;                   /* in fz_client.chans, env's fds */
	bool open;                      /* fz_env_connect ran */
	struct tevent_fd *fde;
	bool eof;                       /* the server closed */
	bool hung_up;                   /* we closed (FZ_DISCONNECT) */
	/* bytes not yet taken by the socket */
	uint8_t *out;
	size_t out_len;
	/* bytes received, not yet a whole frame */
	uint8_t *in;
	size_t in_len;

	uint16_t dialect;               /* 0 before NEGOTIATE */
	bool large_mtu;
	/* what NEGOTIATE chose (3.1.1 from its contexts) */
	uint16_t signing_alg, cipher_id;
	/* 3.1.1: NEGOTIATE request + response; unknown if it was not alone */
	uint8_t preauth[SMB2_PREAUTH_HASH_SIZE];
	bool preauth_known;
	uint8_t *negprot_req;           /* the last lone NEGOTIATE sent */
	size_t negprot_req_len;
	uint64_t next_mid;
	uint64_t granted;               /* credits granted, the first one too */
	uint64_t used;                  /* credits charged */
	bool lenient;                   /* mutated bytes went out */

	struct fz_req reqs[FZ_TRACK];
	size_t num_reqs;
};

struct fz_client {
	struct fz_env *env;
	struct fz_chan chans[FZ_CONNS];
	/*
	 * The connection program steps use; while a connection's bytes
	 * are read, the one they came on (client_io).
	 */
	struct fz_chan *ch;
	/* program switches (SELECT): ignore the keys when sending */
	bool plaintext, unsigned_reqs;

	struct fz_session sessions[FZ_SLOTS];
	/*
	 * Sessions whose slot another took: the server may still answer
	 * for them (a pending request, a LOGOFF of the other slot's id).
	 */
	struct fz_session retired[FZ_SLOTS];
	unsigned next_retired;
	uint32_t trees[FZ_SLOTS];
	bool tree_encrypt[FZ_SLOTS];    /* ShareFlags ENCRYPT_DATA */
	uint64_t tree_session[FZ_SLOTS]; /* tree ids are per session */
	struct smb2_file_id files[FZ_SLOTS];
	unsigned next_file_slot;
	uint8_t cur_session, cur_tree;

	/* the last SESSION_SETUP response */
	uint32_t setup_status;
	uint64_t setup_session_id;
	uint16_t setup_session_flags;
	uint8_t *setup_blob;
	size_t setup_blob_len;
	uint8_t *setup_rsp;             /* the whole element, decrypted */
	size_t setup_rsp_len;

	/* the last break notification */
	bool have_break;
	bool break_is_lease;
	struct smb2_file_id break_fid;
	uint8_t break_level;
	uint8_t break_lease_key[16];
	uint32_t break_lease_state;

	bool in_sealed;                 /* handling a decrypted message */
	unsigned responses;             /* elements received, all kinds */
	bool trace;                     /* FUZZ_SERVER_TRACE: log them */
};

void fz_client_init(struct fz_client *c, struct fz_env *env);
void fz_client_free(struct fz_client *c);

/* Program steps go to connection i from now on (opened if need be). */
void fz_client_use(struct fz_client *c, unsigned i);

/* Closes our side of the current connection (writes; reads go on). */
void fz_client_hang_up(struct fz_client *c);

/* Whether every connection opened is closed (the program ends). */
bool fz_client_done(const struct fz_client *c);

/* Credits the client holds now on its connection (may be 0). */
uint64_t fz_client_credits(const struct fz_client *c);

/* The key that signs for s on the current connection. */
const uint8_t *fz_client_signing_key(const struct fz_client *c,
				     const struct fz_session *s);

/*
 * A request frame under construction: one or more elements (a
 * compound), each header + body, 8-aligned but the last.
 */
struct fz_frame {
	uint8_t *buf;                   /* talloc, starts with the NBT header */
	size_t len;
	size_t last_hdr;                /* offset of the last element */
	unsigned elements;
};

/*
 * Appends an element: hdr (MessageId and CreditCharge filled in here
 * from the client's window unless raw_mid), then body[0, body_len).
 * Records the request as tracked.  Returns the element's offset in the
 * frame (for mutations), or 0 when the client is out of credits and
 * !force (nothing appended).
 */
size_t fz_frame_add(struct fz_client *c, struct fz_frame *f,
		    struct smb2_hdr *hdr, const uint8_t *body,
		    size_t body_len, uint32_t payload_len, bool force);

/*
 * The session whose keys encrypt f (that of its first element), or NULL
 * when it goes in plaintext: the session has no cipher or encrypts
 * neither itself nor the tree named (ShareFlags), or c->plaintext.
 */
struct fz_session *fz_frame_sealer(struct fz_client *c,
				   const struct fz_frame *f);

/*
 * For a frame going in plaintext: signs every element whose session we
 * hold keys for (not with c->unsigned_reqs), padding included, as it
 * goes on the wire, and remembers the signatures (for the echo rule
 * above) and which requests name a tree that encrypts.
 */
void fz_frame_sign(struct fz_client *c, struct fz_frame *f);

/* Wraps the whole message in a TRANSFORM header, encrypted for s. */
void fz_frame_seal(struct fz_client *c, struct fz_frame *f,
		   struct fz_session *s);

/* The session with id we hold keys for, or NULL. */
struct fz_session *fz_client_keys(struct fz_client *c, uint64_t id);
/* Drops the keys held for id (new ones are coming). */
void fz_client_forget_keys(struct fz_client *c, uint64_t id);

/* Sends the frame (sets the NBT length) and frees its buffer. */
void fz_frame_send(struct fz_client *c, struct fz_frame *f);

/* Sends len bytes as they are (raw mutated bytes); untracked. */
void fz_client_send_raw(struct fz_client *c, const uint8_t *buf,
			size_t len);

/*
 * Forget what requests in the frame wait for (their bytes changed);
 * first_req indexes the current connection's reqs.
 */
void fz_client_untrack_from(struct fz_client *c, size_t first_req);

/*
 * Runs the server until idle, and a little longer while requests wait
 * on any connection (a real wait for the kernel, then fake time,
 * bounded), then checks every tracked request has been answered or its
 * connection is gone.
 */
void fz_client_settle(struct fz_client *c);

/*
 * The current connection's request waiting for an answer: by index
 * among them.
 */
const struct fz_req *fz_client_pending(const struct fz_client *c,
				       unsigned which);

#endif
