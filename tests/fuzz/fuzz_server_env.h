/*
 * The world fuzz_server.c runs a whole server in (fuzz_server_env.c):
 * a temporary directory with an smb.conf and three shares (one of them
 * requiring encryption), a user with a password, one server per
 * input started in-process (smbd_server_start_embedded), a socketpair
 * connection (a second one when the program asks), and a fake clock.
 *
 * The fake clock: this harness defines epoll_wait and gettimeofday, so
 * tevent (a shared library) calls ours.  epoll_wait never sleeps unless
 * fz_env_wait_real() asks for one short real wait (work the kernel does
 * on its own, io_uring's io-wq); an epoll_wait that finds nothing ready
 * tells the driver the loop is idle.  gettimeofday, what tevent's timers
 * run on, returns the real time plus an offset that fz_env_advance()
 * moves, so timers (oplock break timeouts, durable handle expiry, the
 * untrusted timeout) fire when the program says so, and never by
 * accident of how fast the machine is.
 */
#ifndef RINGSMB_FUZZ_SERVER_ENV_H
#define RINGSMB_FUZZ_SERVER_ENV_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>
#include <tevent.h>
#include "source3/smbd/smbd.h"

/* The user in the private smbpasswd file: an existing Unix account. */
#define FZ_USER "nobody"
#define FZ_USER_UID 65534
#define FZ_PASSWORD "fuzz-Pw.1"

#define FZ_CONNS 2

struct fz_env {
	TALLOC_CTX *top;                /* per input: the server's parent */
	struct smbd_server *server;
	/* NULL before fz_env_connect and once the server dropped it */
	struct smbd_conn *conn[FZ_CONNS];
	int client_fd[FZ_CONNS];        /* our ends; -1 unopened or closed */
	bool use_uring;
};

/* Once per process: the directory, smb.conf. */
void fz_env_init(void);

/*
 * A server and its first connection (fz_env_connect(env, 0)); io_uring
 * as asked.  Aborts when the server cannot start (a harness problem, not
 * a finding).
 */
void fz_env_up(struct fz_env *env, bool use_uring);

/* Opens connection i, another socketpair to the same server. */
void fz_env_connect(struct fz_env *env, unsigned i);

/*
 * Runs the server's loop until nothing is ready (bounded: a loop that
 * never idles is reported as a hang).  Returns the iterations run.
 */
unsigned fz_env_run_idle(struct fz_env *env);

/* One loop pass that may wait up to ms for the kernel (not for time). */
void fz_env_wait_real(struct fz_env *env, unsigned ms);

/* Moves the fake clock by secs, then runs until idle. */
void fz_env_advance(struct fz_env *env, unsigned secs);

/*
 * Closes our ends, lets the server notice, expires every timer it has
 * (durable handles, leases), checks that no connection, session, open,
 * lease or handle count is left, stops and frees the server, and checks
 * that no descriptor and no talloc memory stayed behind.
 */
void fz_env_down(struct fz_env *env);

/* Whether the server still has our connection i (the loop updates). */
bool fz_env_conn_alive(struct fz_env *env, unsigned i);

/* abort() with a message: what libFuzzer reports as a finding. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
