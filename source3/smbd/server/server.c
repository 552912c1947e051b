/*
 * Server start-up, configuration (re)loading and signals.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/crypto/crypto.h"
#include "config.h"
#include "lib/auth/passdb.h"
#include "source3/smbd/files/handles.h"
#include "source3/smbd/session/identity.h"
#include "lib/param/param.h"
#include "lib/uring/uring.h"
#include "lib/util/debug.h"
#include "lib/util/nttime.h"
#include "lib/util/sd_notify.h"
#include "source3/smbd/session/budget.h"
#include "source3/smbd/files/casefold_dirs.h"
#include "source3/smbd/files/durable.h"
#include "source3/smbd/session/logon_throttle.h"
#include "source3/smbd/session/sidmap.h"
#include "source3/smbd/transport/rxmem.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/server/server.h"
#include "source3/smbd/server/control.h"
#include "source3/smbd/server/metrics.h"
#include "source3/smbd/server/worker.h"
#include "source3/smbd/transport/transport.h"
#include "source3/smbd/server/listener.h"
#include "source3/smbd/pipeline/pipeline.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/open_files.h"

static void print_diags(const struct lp_diag *d)
{
	for (; d != NULL; d = d->next) {
		if (d->severity == LP_DIAG_ERROR) {
			DBG_ERR("%s\n", d->message);
		} else {
			DBG_WARNING("%s\n", d->message);
		}
	}
}

static struct loadparm *load_config(TALLOC_CTX *mem_ctx, const char *file,
				    const char *const *options)
{
	struct loadparm *lp = NULL;
	struct lp_diag *diags = NULL;
	int ret;

	if (file == NULL && access(lp_default_config_file(), R_OK) != 0) {
		DBG_NOTICE("no %s: using the embedded default "
			   "configuration\n", lp_default_config_file());
		if (options == NULL || options[0] == NULL) {
			return lp_load_default(mem_ctx);
		}
	} else if (file == NULL) {
		file = lp_default_config_file();
	}
	ret = lp_load_with_options(mem_ctx, file, options, &lp, &diags);
	print_diags(diags);
	if (ret != 0) {
		DBG_ERR("cannot load %s: see the errors above\n", file);
		return NULL;
	}
	return lp;
}

/*
 * --debug-stdout and the foreground log to stderr; a daemon logs to
 * 'log file', by default PREFIX/var/log.smbd (stderr is /dev/null then).
 */
#define SMBD_DEFAULT_LOG	RINGSMB_PREFIX "/var/log.smbd"

/*
 * -l DIR wins over 'log file', as Samba's --log-basename does; -d over
 * 'log level'.  On the terminal (-i, --debug-stdout) every line goes to
 * standard error whatever 'logging' says, as Samba's interactive mode.
 */
static void setup_logging(struct smbd_server *server)
{
	const struct loadparm *lp = server->lp;
	struct debug_settings s = {
		.levels = lp->g.log_levels,
		.file = lp->g.log_file,
		.logging = lp->g.logging,
		.max_size_kib = lp->g.max_log_size,
	};

	if (server->cmdline_debuglevel >= 0) {
		s.levels = talloc_asprintf(server, "%d",
					   server->cmdline_debuglevel);
	}
	if (server->log_stderr) {
		s.file = NULL;
		s.logging = "file";
	} else if (server->cmdline_log_dir != NULL) {
		/* made if missing (one level), as the pid directory is */
		(void)mkdir(server->cmdline_log_dir, 0755);
		s.file = talloc_asprintf(server, "%s/log.smbd",
					 server->cmdline_log_dir);
	} else if (s.file == NULL || s.file[0] == '\0') {
		s.file = SMBD_DEFAULT_LOG;
	}
	server->log_path = s.file != NULL ? s.file : "standard error";
	debug_configure(&s);
}

const char *smbd_log_path(const struct smbd_server *server)
{
	return server != NULL && server->log_path != NULL ?
		server->log_path : SMBD_DEFAULT_LOG;
}

/*
 * The smbpasswd file; a missing file is an empty database.  Edits made
 * by smbpasswd apply to the next session setup (passdb reloads itself).
 */
static int load_passdb(struct smbd_server *server)
{
	const struct lp_global *g = &server->lp->g;
	char *path = passdb_path_from_config(server, g->smb_passwd_file,
					     g->private_dir);
	char *err = NULL;

	TALLOC_FREE(server->passdb);
	if (path == NULL ||
	    passdb_load(server, path, &server->passdb, &err) != 0) {
		DBG_ERR("cannot load the password database %s: %s\n",
			path != NULL ? path : "?", err != NULL ? err : "");
		return -1;
	}
	DBG_NOTICE("%zu accounts in %s\n",
		   passdb_num_users(server->passdb), path);
	return 0;
}

static void smbd_sig_term(struct tevent_context *ev, struct tevent_signal *se,
			  int signum, int count, void *siginfo, void *private)
{
	struct smbd_server *server = private;

	DBG_NOTICE("got signal %d: shutting down\n", signum);
	server->shutting_down = true;
}

/* smbd_server_reload without the systemd notifications */
static int reload_config(struct smbd_server *server, const char *why)
{
	struct loadparm *lp = NULL;

	if (server->config_file == NULL) {
		DBG_NOTICE("%s: embedded default, nothing to reload\n", why);
		return 0;
	}
	lp = load_config(server, server->config_file,
			 server->cmdline_options);
	if (lp == NULL) {
		DBG_ERR("%s: keeping the old configuration\n", why);
		return -1;
	}
	/*
	 * Tree connects keep pointers to their lp_share; keep the old
	 * configuration alive under the new one until the process ends.
	 * Reloads are rare, so this bounded growth is accepted.
	 */
	talloc_steal(lp, server->lp);
	server->lp = lp;
	setup_logging(server);
	/*
	 * The password database reloads itself when its file changes; a new
	 * 'smb passwd file' path needs a restart (in-flight logons hold the
	 * current database).  The SIDs are read again: the private dir,
	 * netbios name or passdb backend may have changed.
	 */
	smbd_sidmap_load(server);
	DBG_NOTICE("%s: configuration reloaded\n", why);
	return 0;
}

/*
 * SIGHUP and smbcontrol reload-config: the configuration read again,
 * systemd told (RELOADING, then READY: also when the file is refused).
 * Returns 0, or -1 with the old configuration kept.
 */
int smbd_server_reload(struct smbd_server *server, const char *why)
{
	int ret;

	/*
	 * As root: the notify socket may be root's alone, and the log file
	 * may be created anew, with root's group.
	 */
	unix_token_unbecome_full();
	sd_notify_reloading();
	ret = reload_config(server, why);
	sd_notify_state("READY=1\nSTATUS=ready");
	return ret;
}

static void smbd_sig_hup(struct tevent_context *ev, struct tevent_signal *se,
			 int signum, int count, void *siginfo, void *private)
{
	(void)smbd_server_reload(private, "SIGHUP");
}

/* Samba's 'deadtime': idle connections with nothing open are closed. */
#define SMBD_DEADTIME_CHECK_SECS 30

static bool conn_has_opens(const struct smbd_conn *conn)
{
	const struct smbd_session *s = NULL;
	const struct smbd_tcon *t = NULL;

	for (s = conn->sessions; s != NULL; s = s->next) {
		for (t = s->tcons; t != NULL; t = t->next) {
			if (t->num_opens > 0) {
				return true;
			}
		}
	}
	return false;
}

/*
 * The heap keeps up to SMBD_MALLOC_TRIM bytes of freed memory (smbd.c,
 * smbd_malloc_tuning): hand it back once no connection has received a
 * PDU for a whole check interval, once per quiet spell.
 */
/*
 * Once no connection has sent a PDU for a check interval, hand the heap
 * back if anything arrived since the last trim.  Counting what arrived
 * (not "was a connection active at the last check") also catches a
 * burst that came and went between two checks.
 */
static void idle_trim(struct smbd_server *server, struct timeval now)
{
	const struct smbd_conn *conn = NULL;
	uint64_t seen = server->stats.bytes_in + server->stats.conns_accepted;

	for (conn = server->conns; conn != NULL; conn = conn->next) {
		if (tevent_timeval_until(&conn->last_activity, &now).tv_sec <
		    SMBD_DEADTIME_CHECK_SECS) {
			return;
		}
	}
	if (seen != server->trimmed_at) {
		server->trimmed_at = seen;
		malloc_trim(0);
	}
}

static void deadtime_check(struct tevent_context *ev, struct tevent_timer *te,
			   struct timeval now, void *private_data)
{
	struct smbd_server *server = private_data;
	int deadtime = server->lp->g.deadtime;
	struct smbd_conn *conn = NULL, *next = NULL;

	server->deadtime_timer = tevent_add_timer(
		ev, server, tevent_timeval_current_ofs(
			SMBD_DEADTIME_CHECK_SECS, 0), deadtime_check, server);
	idle_trim(server, now);
	if (deadtime <= 0) {
		return;
	}
	for (conn = server->conns; conn != NULL; conn = next) {
		next = conn->next;
		if (tevent_timeval_until(&conn->last_activity, &now).tv_sec >=
		    (time_t)deadtime * 60 && !conn_has_opens(conn)) {
			smbd_conn_terminate(conn, "idle for 'deadtime'");
		}
	}
}

static size_t handles_per_conn(void)
{
	struct rlimit rl;
	size_t n = SMBD_MAX_HANDLES_PER_CONN;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 4 < n) {
		n = rl.rlim_cur / 4 > 0 ? rl.rlim_cur / 4 : 1;
	}
	return n;
}

static int setup_signals(struct smbd_server *server)
{
	if (tevent_add_signal(server->ev, server, SIGTERM, 0, smbd_sig_term,
			      server) == NULL ||
	    tevent_add_signal(server->ev, server, SIGINT, 0, smbd_sig_term,
			      server) == NULL ||
	    tevent_add_signal(server->ev, server, SIGHUP, 0, smbd_sig_hup,
			      server) == NULL) {
		return -1;
	}
	return 0;
}

struct smbd_server *smbd_server_new(TALLOC_CTX *mem_ctx,
				    const struct smbd_cmdline *cl)
{
	struct smbd_server *server = talloc_zero(mem_ctx, struct smbd_server);

	if (server == NULL) {
		return NULL;
	}
	server->config_file = cl->configfile;
	server->cmdline_debuglevel = cl->debuglevel;
	server->log_stderr = cl->log_stderr;
	server->cmdline_log_dir = cl->log_dir;
	server->cmdline_options = cl->options;
	server->lp = load_config(server, cl->configfile, cl->options);
	if (server->lp == NULL) {
		return NULL;
	}
	server->throttle = smbd_throttle_new(server);
	if (server->throttle == NULL || load_passdb(server) != 0) {
		return NULL;
	}
	setup_logging(server);
	smbd_sidmap_load(server);
	return server;
}

/*
 * The lower layers' events, to the layers that act on them (smbd.h,
 * struct smbd_state_hooks): the server is the one place that knows
 * every layer.
 */
static const struct smbd_state_hooks state_hooks = {
	.oplock_break = smbd_pipeline_send_oplock_break,
	.lease_break = smbd_pipeline_send_lease_break,
	.delete_pending = smbd_notify_delete_pending,
	.channels_idle = smbd_pipeline_channels_idle,
};

/*
 * What every server needs before it serves a connection: the event
 * context and the ring (SINGLE_ISSUER: after any fork), worker 0,
 * identities, the crypto settings, the ids and the receive budget.
 */
static int server_start_core(struct smbd_server *server)
{
	server->hooks = state_hooks;
	server->ev = tevent_context_init(server);
	if (server->ev == NULL) {
		return -1;
	}
	if (!server->lp->g.io_uring) {
		uring_ev_disable(server->ev);
	}
	/* worker 0 (this thread): the lock, then the ring */
	if (smbd_workers_init(server) != 0) {
		return -1;
	}
	DBG_NOTICE("io_uring: %s\n", server->ring ? "on" : "off");
	if (smbd_identities_init(server) != 0) {
		return -1;
	}
	smbd_crypto_pool_start(server);
	crypto_random(server->server_guid, sizeof(server->server_guid));
	server->start_time = nttime_now();
	crypto_random(&server->session_id_salt,
		      sizeof(server->session_id_salt));
	server->next_session_id = 1;
	server->max_handles_per_conn = handles_per_conn();
	smbd_handles_init(server);
	server->rxmem = smbd_rxmem_new(
		server, server->ev,
		(size_t)server->lp->g.max_receive_buffer * 1024 * 1024);
	if (server->rxmem == NULL) {
		return -1;
	}
	server->next_file_id = 1;
	return 0;
}

/*
 * Everything that must be created in the process that serves: the core
 * above, then signals, the listeners, the deadtime timer, the control
 * socket, the metrics endpoint and the other workers.
 */
int smbd_server_start(struct smbd_server *server)
{
	if (server_start_core(server) != 0) {
		return -1;
	}
	if (setup_signals(server) != 0 || smbd_listeners_open(server) != 0) {
		return -1;
	}
	server->deadtime_timer = tevent_add_timer(
		server->ev, server, tevent_timeval_current_ofs(
			SMBD_DEADTIME_CHECK_SECS, 0), deadtime_check, server);
	if (server->deadtime_timer == NULL) {
		return -1;
	}
	/* without it the daemon serves on; smbstatus cannot reach it */
	(void)smbd_control_start(server);
	if (smbd_metrics_start(server) != 0) {
		return -1;
	}
	smbd_workers_start(server);
	return 0;
}

int smbd_server_start_embedded(struct smbd_server *server)
{
	if (server_start_core(server) != 0) {
		return -1;
	}
	/* "smb2 workers = 1" keeps it on this thread (server.h) */
	smbd_workers_start(server);
	return 0;
}

void smbd_server_stop(struct smbd_server *server)
{
	TALLOC_FREE(server->control);   /* its socket file goes too */
	TALLOC_FREE(server->metrics);
	/* the other workers free their connections and stop */
	smbd_workers_stop(server);
	/* Free connections first: their destructors close sockets. */
	while (server->conns != NULL) {
		talloc_free(server->conns);
	}
	/* before the file table they are listed in */
	smbd_durable_shutdown(server);
	/* the kept folder names and their inotify descriptor */
	casefold_dirs_reset();
}

int smbd_server_run(struct smbd_server *server)
{
	DBG_NOTICE("smbd version %s started\n", RINGSMB_VERSION);
	while (!server->shutting_down) {
		if (tevent_loop_once(server->ev) != 0 && errno != EINTR) {
			DBG_ERR("event loop failed: %s\n", strerror(errno));
			return 1;
		}
	}
	smbd_server_stop(server);
	return 0;
}
