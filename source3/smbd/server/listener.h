/*
 * The listening sockets: accept, the global hosts allow/deny, and a
 * connection for each client (listener.c).
 */
#ifndef RINGSMB_SMBD_LISTENER_H
#define RINGSMB_SMBD_LISTENER_H

#include "source3/smbd/smbd.h"

/* Opens every address of 'interfaces'/'smb ports' and starts accepting. */
int smbd_listeners_open(struct smbd_server *server);

#endif
