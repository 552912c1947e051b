/*
 * Session and tree-connect tables (per connection, per session).
 */
#ifndef RINGSMB_SMBD_SESSION_H
#define RINGSMB_SMBD_SESSION_H

#include "source3/smbd/smbd.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/open_files.h"

/* Pending and established sessions per connection (docs/architecture.md) */
#define SMBD_MAX_SESSIONS_PER_CONN 64
#define SMBD_MAX_TCONS_PER_SESSION 128
/* Windows allows 32 channels per session */
#define SMBD_MAX_CHANNELS_PER_SESSION 32

/* NULL when out of memory or over the limit. */
struct smbd_session *smbd_session_new(struct smbd_conn *conn);
struct smbd_tcon *smbd_tcon_new(struct smbd_session *s);

/* A channel of s on conn, not yet bound; NULL: out of memory or limit. */
struct smbd_channel *smbd_channel_new(struct smbd_session *s,
				      struct smbd_conn *conn);

/* A live session of any connection of the server, or NULL. */
struct smbd_session *smbd_session_find_global(struct smbd_server *server,
					      uint64_t id);

/*
 * Ends a session of possibly another connection: at once if that
 * connection is between requests, else when it is (smbd_sessions_reap);
 * meanwhile no lookup finds it.
 */
void smbd_session_teardown(struct smbd_session *s);
void smbd_sessions_reap(struct smbd_conn *conn);

/*
 * conn is going: its channels go; its sessions move to another bound
 * channel or end with it.
 */
void smbd_sessions_conn_gone(struct smbd_conn *conn);

/* A channel of s other than except runs a command (that may use s). */
bool smbd_session_running(const struct smbd_session *s,
			  const struct smbd_conn *except);


/*
 * Sessions and tree connects (session.c).  smbd_session_find: a session
 * the connection is a bound channel of (its own or a bound one).
 */
struct smbd_session *smbd_session_find(struct smbd_conn *conn, uint64_t id);
struct smbd_channel *smbd_channel_find(const struct smbd_session *s,
				       const struct smbd_conn *conn);
struct smbd_tcon *smbd_tcon_find(struct smbd_session *s, uint32_t id);

#endif
