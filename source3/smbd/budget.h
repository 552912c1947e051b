/*
 * What an untrusted client may cost (RELIABILITY.md G4, G5; issue 11):
 * which connections are trusted, their PDU limit and timeout, and the
 * descriptor budget that handle quotas share.
 */
#ifndef RINGSMB_SMBD_BUDGET_H
#define RINGSMB_SMBD_BUDGET_H

#include "source3/smbd/smbd.h"

/*
 * At start, after RLIMIT_NOFILE was raised: the handle budget, the
 * untrusted share of it and the reserve, logged once.
 */
void smbd_budget_init(struct smbd_server *server);

/* A new connection: counts its client address; -1 on ENOMEM. */
int smbd_budget_conn_start(struct smbd_conn *conn);

/*
 * The connection's sessions changed (a logon, a binding, a logoff):
 * a trusted connection gets the full PDU size and no untrusted timer,
 * an untrusted one the untrusted limits.  Counts a session's handles
 * as trusted or untrusted according to what it is now.
 */
void smbd_budget_conn_update(struct smbd_conn *conn);

/* A valid session that is neither guest nor anonymous. */
bool smbd_session_trusted(const struct smbd_session *s);

/*
 * Whether s may hold one more handle: OK, or TOO_MANY_OPENED_FILES
 * past its session's quota (much smaller for guest and anonymous
 * sessions), its client address's (untrusted only), the untrusted
 * total, its connection's or the server's budget.
 */
NTSTATUS smbd_budget_handle_check(const struct smbd_session *s);

/* s moves from one connection to another (multichannel): its handles */
void smbd_budget_session_move(struct smbd_session *s, struct smbd_conn *from,
			      struct smbd_conn *to);

/* s holds delta more (or fewer) handles. */
void smbd_budget_handles_add(struct smbd_session *s, int delta);

#endif
