/*
 * The server context: configuration, event loop, listeners, connections.
 */
#ifndef RINGSMB_SMBD_SERVER_H
#define RINGSMB_SMBD_SERVER_H

#include "source3/smbd/smbd.h"

/* What the command line says (smbd.c; Samba's options). */
struct smbd_cmdline {
	const char *configfile;         /* -s; NULL: default or embedded */
	int debuglevel;                 /* -d; -1: 'log level' */
	bool log_stderr;                /* --debug-stdout, -i */
	const char *log_dir;            /* -l: DIR/log.smbd, or NULL */
	const char *const *options;     /* --option name=value, NULL-ended */
};

/* The configuration loaded and logging set up; NULL on errors. */
struct smbd_server *smbd_server_new(TALLOC_CTX *mem_ctx,
				    const struct smbd_cmdline *cl);
/*
 * Where the server logs ("standard error" with --debug-stdout); NULL
 * server: the default log file.
 */
const char *smbd_log_path(const struct smbd_server *server);
/* Creates the event loop, ring and listeners: after daemonizing. */
int smbd_server_start(struct smbd_server *server);
/* SIGHUP, smbcontrol reload-config: 0, or -1 (old configuration kept) */
int smbd_server_reload(struct smbd_server *server, const char *why);
/* Runs the event loop until SIGTERM/SIGINT; returns the exit code. */
int smbd_server_run(struct smbd_server *server);
/*
 * What smbd_server_run does once the loop ends: the workers stopped,
 * every connection freed, the durable opens dropped.  The server can
 * then be freed.
 */
void smbd_server_stop(struct smbd_server *server);

/*
 * For in-process drivers (tests/fuzz/fuzz_server.c): smbd_server_start
 * without signals, listeners, the deadtime timer, the control socket and
 * the metrics endpoint.  Connections come from smbd_conn_new
 * (server/conn.h) on sockets the caller made; the caller runs server->ev
 * and ends with smbd_server_stop.  With "smb2 workers = 1" and "smb2
 * crypto threads = 0" everything runs on the calling thread.
 */
int smbd_server_start_embedded(struct smbd_server *server);

#endif
