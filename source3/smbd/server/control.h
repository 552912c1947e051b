/*
 * The control socket: smbstatus and smbcontrol talk to the running
 * daemon through a Unix socket in the lock directory (docs/admin.md).
 * Only root (or the daemon's own user) may connect.  A client sends one
 * line, "VERB [ARGUMENT]", and gets "ok" or "error MESSAGE" on the first
 * line, then key-value records (lib/util/kvrec.h); then the socket
 * closes.
 */
#ifndef RINGSMB_SMBD_CONTROL_H
#define RINGSMB_SMBD_CONTROL_H

#include "source3/smbd/smbd.h"

struct kvrec_buf;

/* The socket's name in the lock directory (the tools use it too). */
#define SMBD_CONTROL_SOCKET "smbd.ctl"

/* Opens the socket (replacing a stale one); 0, or -1 (logged). */
int smbd_control_start(struct smbd_server *server);

/*
 * The records "status" answers: the server, each connection, session,
 * tree connect, open and byte-range lock (status.c).
 */
void smbd_status_records(struct smbd_server *server, struct kvrec_buf *b,
			 TALLOC_CTX *mem_ctx);

#endif
