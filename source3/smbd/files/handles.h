/*
 * Handles and the descriptors they hold: the server's handle budget,
 * and the quotas of sessions, client addresses and guests (handles.c).
 */
#ifndef RINGSMB_SMBD_HANDLES_H
#define RINGSMB_SMBD_HANDLES_H

#include "source3/smbd/smbd.h"

/*
 * At start, after RLIMIT_NOFILE was raised: the handle budget, the
 * untrusted share of it and the reserve, logged once.
 */
void smbd_handles_init(struct smbd_server *server);

/* A new connection: counts its client address; -1 on ENOMEM. */
int smbd_handles_conn_start(struct smbd_conn *conn);

/* s is (untrusted) or is not guest or anonymous now: its handles move. */
void smbd_handles_reclass(struct smbd_session *s, bool untrusted);

/*
 * Whether s may hold one more handle: OK, or TOO_MANY_OPENED_FILES
 * past its session's quota (much smaller for guest and anonymous
 * sessions), its client address's (untrusted only), the untrusted
 * total, its connection's or the server's budget.
 */
NTSTATUS smbd_handles_check(const struct smbd_session *s);
/* The same as a yes/no: s may not take one more. */
bool smbd_handles_full(const struct smbd_session *s);

/* s took (1) or gave back (-1) a handle. */
void smbd_handles_add(struct smbd_session *s, int delta);

/* s moves from one connection to another (multichannel): its handles */
void smbd_handles_move(struct smbd_session *s, struct smbd_conn *from,
		       struct smbd_conn *to);

#endif
