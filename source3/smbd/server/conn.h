/*
 * A client connection's life cycle (conn.c): the budget, the pipeline
 * and the transport wired together.  Ending one is the transport's
 * smbd_conn_terminate (transport/transport.h), callable from any layer.
 */
#ifndef RINGSMB_SMBD_CONN_H
#define RINGSMB_SMBD_CONN_H

#include "source3/smbd/smbd.h"

struct smbd_conn *smbd_conn_new(struct smbd_server *server, int fd,
				const char *peer);
/* "addr:port" or "[v6addr]:port" -> "addr" */
void smbd_peer_addr(const char *peer, char *addr, size_t len);

#endif
