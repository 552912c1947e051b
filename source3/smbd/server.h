/*
 * The server context: configuration, event loop, listeners, connections.
 */
#ifndef RINGSMB_SMBD_SERVER_H
#define RINGSMB_SMBD_SERVER_H

#include "source3/smbd/smbd.h"

struct smbd_server *smbd_server_new(TALLOC_CTX *mem_ctx,
				    const char *configfile, int debuglevel,
				    bool log_stderr);
/* Creates the event loop, ring and listeners: after daemonizing. */
int smbd_server_start(struct smbd_server *server);
/* Runs the event loop until SIGTERM/SIGINT; returns the exit code. */
int smbd_server_run(struct smbd_server *server);

/* pipeline_crypto.c: the threads of 'smb2 crypto threads' (or none) */
void smbd_crypto_pool_start(struct smbd_server *server);
/* Joins them: before the ring goes, which buffers they hold may use. */
void smbd_crypto_pool_stop(struct smbd_server *server);

/* listener.c */
int smbd_listeners_open(struct smbd_server *server);

/* conn.c */
struct smbd_conn *smbd_conn_new(struct smbd_server *server, int fd,
				const char *peer);
void smbd_peer_addr(const char *peer, char *addr, size_t len);
/* Ends a connection from anywhere (a callback may still run above us):
 * marks it dead now, frees it from an immediate. */
void smbd_conn_terminate(struct smbd_conn *conn, const char *reason);

#endif
