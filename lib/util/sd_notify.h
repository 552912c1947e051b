/*
 * Telling the service manager what the daemon is doing: systemd's
 * notification protocol (sd_notify(3)), spoken directly so that smbd
 * needs no libsystemd (docs/service.md, "Type=notify").
 *
 * The protocol is one datagram per message on the AF_UNIX socket named
 * by $NOTIFY_SOCKET (a path, or '@' for the abstract namespace), holding
 * newline-separated VAR=value assignments: READY=1, RELOADING=1,
 * STOPPING=1, STATUS=text, MONOTONIC_USEC=n.  systemd takes the sender's
 * pid from the socket's credentials, so with NotifyAccess=main (the
 * default) only the main process may send: smbd in the foreground.
 */
#ifndef RINGSMB_SD_NOTIFY_H
#define RINGSMB_SD_NOTIFY_H

/*
 * Sends state ("READY=1\nSTATUS=ready").  0 when sent, and when
 * $NOTIFY_SOCKET is unset (not started by a service manager: nothing to
 * tell); -errno when the socket is unusable.  Blocks for no longer than
 * a datagram send on a local socket.
 */
int sd_notify_state(const char *state);

/*
 * RELOADING=1 with MONOTONIC_USEC (CLOCK_MONOTONIC, as systemd 253's
 * Type=notify-reload asks; earlier systemd ignores it).  READY=1 must
 * follow when the reload is done, whether it worked or not.
 */
int sd_notify_reloading(void);

#endif
