/*
 * The client end of fuzz_server (fuzz_server_client.c): builds request
 * frames, sends them through the socketpair, reads and checks every
 * response, and keeps what later requests refer to (session, tree and
 * file ids, AsyncIds, break notifications) so a program gets deep.
 *
 * Checked as responses arrive (fz_fail, i.e. abort, otherwise):
 *  - each frame is whole SMB2: 0xFE header, StructureSize 64, the
 *    SERVER_TO_REDIR flag, compound elements inside the frame;
 *  - a response answers a request we sent and have not had answered
 *    (or is a break notification), at most one interim and one final;
 *  - the credits the client holds (granted - used) never exceed
 *    SMBD_MAX_CREDITS.
 * And at the end of each step (fz_client_check_answered): every request
 * was answered, finally or with an interim STATUS_PENDING, unless the
 * connection is closed.  Requests whose bytes the program mutated are
 * not tracked (their MessageId may have changed).
 */
#ifndef RINGSMB_FUZZ_SERVER_CLIENT_H
#define RINGSMB_FUZZ_SERVER_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>
#include <tevent.h>
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
};

struct fz_client {
	struct fz_env *env;
	struct tevent_fd *fde;
	bool eof;                       /* the server closed */
	/* bytes not yet taken by the socket */
	uint8_t *out;
	size_t out_len;
	/* bytes received, not yet a whole frame */
	uint8_t *in;
	size_t in_len;

	uint16_t dialect;               /* 0 before NEGOTIATE */
	bool large_mtu;
	uint64_t next_mid;
	uint64_t granted;               /* credits granted, the first one too */
	uint64_t used;                  /* credits charged */
	bool lenient;                   /* mutated bytes went out */

	struct fz_req reqs[FZ_TRACK];
	size_t num_reqs;

	uint64_t sessions[FZ_SLOTS];
	uint32_t trees[FZ_SLOTS];
	struct smb2_file_id files[FZ_SLOTS];
	unsigned next_file_slot;
	uint8_t cur_session, cur_tree;

	/* the last SESSION_SETUP response */
	uint32_t setup_status;
	uint64_t setup_session_id;
	uint8_t *setup_blob;
	size_t setup_blob_len;

	/* the last break notification */
	bool have_break;
	bool break_is_lease;
	struct smb2_file_id break_fid;
	uint8_t break_level;
	uint8_t break_lease_key[16];
	uint32_t break_lease_state;

	unsigned responses;             /* elements received, all kinds */
	bool trace;                     /* FUZZ_SERVER_TRACE: log them */
};

void fz_client_init(struct fz_client *c, struct fz_env *env);
void fz_client_free(struct fz_client *c);

/* Credits the client holds now (may be 0). */
uint64_t fz_client_credits(const struct fz_client *c);

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

/* Sends the frame (sets the NBT length) and frees its buffer. */
void fz_frame_send(struct fz_client *c, struct fz_frame *f);

/* Sends len bytes as they are (raw mutated bytes); untracked. */
void fz_client_send_raw(struct fz_client *c, const uint8_t *buf,
			size_t len);

/* Forget what requests in the frame wait for (their bytes changed). */
void fz_client_untrack_from(struct fz_client *c, size_t first_req);

/*
 * Runs the server until idle, and a little longer while requests wait
 * (a real wait for the kernel, then fake time, bounded), then checks
 * every tracked request has been answered or the connection is gone.
 */
void fz_client_settle(struct fz_client *c);

/* The request tracked for an interim response: by index among them. */
const struct fz_req *fz_client_pending(const struct fz_client *c,
				       unsigned which);

#endif
