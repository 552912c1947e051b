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

#endif
