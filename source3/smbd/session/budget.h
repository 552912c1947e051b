/*
 * What an untrusted client may cost (docs/architecture.md, "Limits"; issue 11):
 * which connections are trusted, their PDU limit and timeout.  The
 * descriptor budget that handle quotas share: files/handles.h.
 */
#ifndef RINGSMB_SMBD_BUDGET_H
#define RINGSMB_SMBD_BUDGET_H

#include "source3/smbd/smbd.h"

/*
 * A new connection: counts its client address (files/handles.c) and
 * arms the untrusted timer; -1 on ENOMEM.
 */
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

#endif
