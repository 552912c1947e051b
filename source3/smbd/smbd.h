/*
 * The daemon's object model (docs/architecture.md, "Layers"): the
 * talloc tree mirrors protocol lifetime,
 *   server -> connection -> session -> tcon -> open
 * and freeing a node frees everything below it.  No mutable globals: all
 * state hangs off these contexts.
 */
#ifndef RINGSMB_SMBD_H
#define RINGSMB_SMBD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <talloc.h>
#include <tevent.h>
#include "lib/util/ntstatus.h"
#include "lib/smb2/smb2.h"
#include "lib/crypto/crypto.h"

struct loadparm;
struct lp_share;
struct uring;
struct auth_ctx;
struct vfs_handle;
struct vfs_fh;
struct passdb;
struct samsid_map;
struct smbd_sidmap;
struct auth_user_lookup;
struct smbd_identities;
struct smbd_identity_ref;
struct smbd_unix_user;
struct smbd_notify_ctx;
struct smbd_open_notify;
struct smbd_oplock_break;
struct smbd_kernel_oplocks;
struct smbd_read_map;
struct smbd_lease;
struct smbd_durable;
struct smbd_durable_vfs;
struct smbd_addr_handles;
struct smbd_rxmem;
struct smbd_worker;
struct jobpool;
struct smbd_workers;
struct smbd_rxmem_user;
struct smbd_server;
struct smbd_open;
struct smbd_named_pipe;
struct smbd_csn_ref;
struct smbd_open_replay;
struct smbd_replay_pending;
struct smbd_control;
struct smbd_metrics;

/*
 * File descriptors one connection may hold (tree connects + opens): at
 * most this, and at most a quarter of RLIMIT_NOFILE (which the server
 * raises to its hard limit at start), so one client cannot starve others.
 */
#define SMBD_MAX_HANDLES_PER_CONN 16384

/*
 * What the session and file layers tell the layers above them without
 * calling them by name (a layer calls only itself and those below it:
 * docs/architecture.md, "Layers").  Set once at start by
 * server/server.c; a NULL hook is not called.
 */
struct smbd_state_hooks {
	/* An oplock of open breaks to level: tell its client. */
	void (*oplock_break)(struct smbd_open *open, uint8_t level);
	/* A lease that open uses breaks: tell its client (lease.c). */
	void (*lease_break)(struct smbd_open *open,
			    const struct smb2_lease_break *lb);
	/* open became delete pending: its waiting CHANGE_NOTIFYs end. */
	void (*delete_pending)(struct smbd_open *open);
	/* A connection's running requests stopped holding a session. */
	void (*channels_idle)(struct smbd_server *server);
};

/*
 * Open.ChannelSequence and the requests counted against it (MS-SMB2
 * 3.3.1.10, 3.3.5.2.10; files/channel_seq.c).
 */
struct smbd_csn {
	uint16_t seq;                   /* Open.ChannelSequence */
	uint32_t generation;            /* bumped each time seq moves */
	uint32_t outstanding;           /* Open.OutstandingRequestCount */
	uint32_t pre;                   /* Open.OutstandingPreRequestCount */
	struct smbd_csn_ref *refs;      /* counted requests not answered */
};

#define SMBD_LOCK_SEQ_MAX 64
#define SMBD_LOCK_SEQ_INVALID 0xFF

/*
 * Counters for smbstatus and the metrics endpoint (server/metrics.c).
 * Updated and read under the server lock (every worker holds it while it
 * runs), so plain integers; they only grow.
 */
#define SMBD_STATS_LATENCY_BUCKETS 12   /* 100 us .. 10 s, then +Inf */

struct smbd_stats {
	uint64_t requests[SMB2_OP_COUNT];       /* answered, per command */
	uint64_t failed[SMB2_OP_COUNT];         /* of them, with an error */
	/* time from the request's start to its final response */
	uint64_t latency[SMBD_STATS_LATENCY_BUCKETS + 1];
	uint64_t latency_usec;                  /* their sum */
	uint64_t bytes_read, bytes_written;     /* READ/WRITE payloads */
	uint64_t bytes_in, bytes_out;           /* NBT frames, all clients */
	uint64_t credits_granted;
	uint64_t conns_accepted;
	uint64_t logons, logons_failed;
	uint64_t reads_spliced, sends_zerocopy;
	uint64_t reads_mapped;                  /* files/read_map.c */
};

/* Upper bounds of the latency buckets, in microseconds (pipeline) */
extern const uint32_t smbd_stats_latency_usec[SMBD_STATS_LATENCY_BUCKETS];

struct smbd_server {
	/* worker 0's, the main thread's: listeners, signals, timers */
	struct tevent_context *ev;
	/* the workers and the lock of everything below (server/worker.c) */
	struct smbd_workers *workers;
	unsigned num_workers;           /* running */
	struct loadparm *lp;
	struct uring *ring;             /* NULL: plain syscalls */
	const char *config_file;        /* NULL: embedded default */
	int cmdline_debuglevel;         /* -d, -1 if not given */
	bool log_stderr;                /* --debug-stdout */
	const char *cmdline_log_dir;    /* -l, or NULL */
	const char *const *cmdline_options; /* --option, NULL-ended */
	const char *log_path;           /* smbd_log_path() */
	struct smbd_listener *listeners;
	struct smbd_state_hooks hooks;
	struct smbd_conn *conns;
	size_t num_conns;
	uint8_t server_guid[16];
	uint64_t start_time;            /* NTTIME */
	uint64_t next_session_id;
	uint64_t session_id_salt;       /* random, set at start */
	uint64_t next_file_id;
	struct smbd_file **files;       /* share_mode.c hash table */
	struct tevent_timer *deadtime_timer;
	struct passdb *passdb;          /* smbpasswd accounts */
	/*
	 * Users' SIDs as Samba's standalone server gives them (lib/auth/
	 * samsid.h): NULL without a domain SID (then Unix SIDs only).
	 * Replaced, under the server lock, when the passdb reloads
	 * (session/sidmap.c, which keeps what it is built from).
	 */
	struct samsid_map *sid_map;
	struct smbd_sidmap *sidmap_src;
	struct smbd_identities *identities; /* identity.c: token cache */
	/* logon lookups: username map, Unix account, then passdb */
	struct auth_user_lookup *logon_users;
	struct smbd_throttle *throttle; /* failed-logon back-off */
	size_t max_handles_per_conn;
	/*
	 * The descriptor budget (budget.c): handles (tcons + opens) of all
	 * sessions, of guest and anonymous ones, and the limits on them;
	 * what RLIMIT_NOFILE leaves beyond them is the reserve for
	 * accepting and authenticating.
	 */
	size_t handles_total;
	size_t handles_untrusted;
	size_t handle_budget;
	size_t untrusted_budget;
	struct smbd_addr_handles *addr_handles; /* per client address */
	/* bytes buffered for incomplete PDUs, server-wide (rxmem.c) */
	struct smbd_rxmem *rxmem;
	struct smbd_notify_ctx *notify; /* inotify, made on first use */
	/* files whose write time files/write_time.c holds */
	size_t write_times_held;
	/* short names handed out, to their long names (files/mangle.c) */
	struct smbd_mangle_cache *mangle;
	/* leases behind kernel oplocks (files/kernel_oplock.c), or NULL */
	struct smbd_kernel_oplocks *kernel_oplocks;
	/* mappings READs are answered from (files/read_map.c) */
	struct smbd_read_map *read_maps;
	size_t num_read_maps;           /* of them, mapped now */
	size_t num_dying_sessions;      /* torn down, not yet freed */
	size_t channel_waiters;         /* pipelines in channel_wait */
	/*
	 * Durable opens whose connection went (durable.c): detached from
	 * any tcon, waiting for a reconnect or their timeout.
	 */
	struct smbd_open *disconnected;
	size_t num_disconnected;
	/*
	 * CREATEs with a DH2Q CreateGuid waiting for an oplock break: a
	 * replay of one answers FILE_NOT_AVAILABLE (files/replay.c).
	 */
	struct smbd_replay_pending *replay_pending;
	/* every lease of every client (files/lease.c) */
	struct smbd_lease *leases;
	size_t num_dir_leases;          /* of them on directories */
	bool shutting_down;
	struct smbd_stats stats;
	uint64_t next_conn_id;          /* smbstatus names connections */
	struct smbd_control *control;   /* server/control.c, or NULL */
	struct smbd_metrics *metrics;   /* server/metrics.c, or NULL */
	/* server.c idle_trim: bytes_in + conns_accepted at the last trim */
	uint64_t trimmed_at;
	/*
	 * Threads for the AES passes (crypto_offload: 1 << enum
	 * smbd_crypto_op) over messages of at least crypto_min_size bytes
	 * (pipeline_crypto.c); NULL: all inline.
	 */
	int crypto_threads;             /* in all, shared out per worker */
	unsigned crypto_offload;
	size_t crypto_min_size;
};

struct smbd_listener {
	struct smbd_listener *prev, *next;
	struct smbd_server *server;
	int fd;
	struct tevent_fd *fde;
	struct tevent_timer *backoff;   /* accept paused (EMFILE) */
};

/* Negotiated connection state (MS-SMB2 3.3.1.7) */
struct smbd_conn {
	struct smbd_conn *prev, *next;
	struct smbd_server *server;
	/*
	 * The worker that serves it (server/worker.c): its tevent context
	 * and ring carry every event and I/O of this connection.
	 */
	struct smbd_worker *worker;
	struct tevent_context *ev;
	struct uring *ring;             /* NULL: plain syscalls */
	struct jobpool *crypto_pool;    /* the worker's; NULL: inline */
	int fd;
	char peer[64];                  /* "addr:port" for logs */
	char addr[48];                  /* the address alone */
	struct debug_client *log_client; /* %m %I %U of its log lines */
	uint64_t id;                    /* for smbstatus, from 1 */
	int64_t connected;              /* Unix time of the accept */
	uint64_t bytes_in, bytes_out;   /* NBT frames, headers included */

	uint16_t dialect;               /* 0 until NEGOTIATE succeeded */
	uint16_t client_security_mode;
	uint32_t client_caps;
	uint32_t server_caps;
	uint8_t client_guid[16];
	uint16_t *client_dialects;      /* as offered, for VALIDATE_NEGOTIATE */
	uint16_t num_client_dialects;
	uint32_t max_read, max_write, max_transact;
	uint16_t cipher_id;             /* 0: none negotiated */
	uint16_t signing_alg;
	uint8_t preauth_hash[SMB2_PREAUTH_HASH_SIZE];

	struct smbd_session *sessions;
	size_t num_sessions;

	struct smbd_transport *transport;
	struct smbd_pipeline *pipeline;
	/*
	 * Compounds the pipeline is processing: while not 0, a request may
	 * hold pointers to sessions and opens (the pipeline counts, the
	 * session and file layers read).
	 */
	size_t requests_running;
	struct tevent_timer *unauth_timer;
	struct timeval last_activity;   /* last PDU received ('deadtime') */
	bool smb1_negprot_done;
	/*
	 * tree connects + opens: each holds an fd (docs/architecture.md,
	 * "Limits")
	 */
	size_t num_handles;
	/* guest/anonymous handles of this client address (budget.c) */
	struct smbd_addr_handles *addr_handles;
	/*
	 * Trusted: a valid session that is neither guest nor anonymous, or
	 * a channel of one.  Untrusted connections keep the pre-auth PDU
	 * limit and the untrusted timeout (budget.c).
	 */
	bool trusted;
	bool bound_user;                /* a channel of a user session */
	/* pipes of the splice read mode (transport/splice_pipe.c), or NULL */
	struct smbd_pipe_pool *pipes;
	bool terminating;
};

/*
 * A connection a session is bound to (MS-SMB2 3.3.1.14): the session's
 * first connection and each one bound later with SMB2_SESSION_FLAG_BINDING
 * (3.3.5.5.2).  Owned by the session; freed with it, or alone when its
 * connection goes (smbd_sessions_conn_gone) or its binding fails.
 */
struct smbd_channel {
	struct smbd_channel *prev, *next;
	struct smbd_session *session;
	struct smbd_conn *conn;
	bool bound;                     /* requests may use the session */
	uint8_t signing_key[SMB2_SIGNING_KEY_SIZE]; /* Channel.SigningKey */
	/* while binding: its authentication and 3.1.1 preauth hash */
	struct auth_ctx *auth;
	uint8_t preauth_hash[SMB2_PREAUTH_HASH_SIZE];
};

/*
 * A session.  Multichannel: it may be bound to several connections
 * (channels); a request on any of them uses its tree connects and opens.
 * conn is the primary one: the session is listed in conn->sessions, is
 * its talloc child and counts against its limits; when that connection
 * goes and others remain, the next channel becomes primary (the session
 * moves), when the last goes the session ends.
 */
struct smbd_session {
	struct smbd_session *prev, *next;
	struct smbd_conn *conn;
	uint64_t id;
	struct smbd_channel *channels;  /* the first is conn's */
	size_t num_channels;
	/* of the connection that established it (binding must match) */
	uint16_t dialect;
	uint16_t signing_alg;
	uint16_t cipher_id;
	size_t num_handles;             /* tcons + opens, in conn's count */
	bool handles_untrusted;         /* counted as guest/anonymous ones */
	bool valid;                     /* authentication completed */
	/*
	 * Torn down from another connection (PreviousSessionId) while a
	 * request of its own connection may still hold it: no longer found,
	 * freed by smbd_sessions_reap() once that connection is between
	 * requests.
	 */
	bool dying;
	bool guest;
	bool anonymous;
	char *user;
	/*
	 * Who the session is on disk (identity.c): the Unix account (the
	 * guest account for guest and anonymous sessions) and its token.
	 */
	struct smbd_unix_user *unix_user;
	struct smbd_identity_ref *identity;
	struct auth_ctx *auth;          /* during SESSION_SETUP legs */
	uint8_t preauth_hash[SMB2_PREAUTH_HASH_SIZE];
	/* user sessions only: keys from the session key (MS-SMB2 3.3.5.5.3) */
	struct smbd_crypto *crypto;     /* NULL: guest, anonymous, in setup */
	struct smb2_keys *keys;         /* &crypto->keys, or NULL */
	bool signing_required;
	bool encrypt_data;              /* Session.EncryptData */
	int64_t started;                /* Unix time of its first leg */
	uint32_t next_tree_id;
	struct smbd_tcon *tcons;
	size_t num_tcons;
};

struct smbd_tcon {
	struct smbd_tcon *prev, *next;
	struct smbd_session *session;
	uint32_t id;
	int64_t connected;              /* Unix time */
	const struct lp_share *share;
	bool read_only;
	bool encrypt_data;              /* TreeConnect.EncryptData */
	struct vfs_handle *vfs;         /* the share's VFS stack + root fd */
	/*
	 * Whose rights the share is used with (session user, force user /
	 * group, or NULL for admin users): a talloc child of vfs, so it
	 * lives as long as vfs does (also when a durable open keeps vfs).
	 */
	struct smbd_identity_ref *identity;
	bool as_root;                   /* "admin users": no token */
	bool as_guest;                  /* "guest only": the guest account */
	/*
	 * IPC$: opens are named pipes (commands/pipe.c), vfs is NULL and
	 * only the commands the dispatch table marks on_ipc run here
	 */
	bool ipc;
	struct smbd_open *opens;
	size_t num_opens;
	/*
	 * Freed with its session (LOGOFF, a dropped connection, a
	 * PreviousSessionId): durable opens are kept (durable.c); not for
	 * TREE_DISCONNECT.
	 */
	bool keep_durable;
	/* vfs, moved here once a durable open of this tcon outlives it */
	struct smbd_durable_vfs *durable_vfs;
};

/*
 * A user session's keys and its nonce generator.  A compound that arrived
 * encrypted holds a reference, so that its response is encrypted even if
 * the compound logged the session off.
 */
struct smbd_crypto {
	struct smb2_keys keys;
	struct smb2_nonce_gen nonce;
	uint16_t cipher_id;
};

/*
 * An open file or directory (MS-SMB2 3.3.1.10), owned by its tcon; a
 * disconnected durable open (tcon NULL) is owned by the server and
 * listed in server->disconnected (durable.c).
 */
struct smbd_open {
	struct smbd_open *prev, *next;
	struct smbd_tcon *tcon;
	struct smbd_server *server;
	struct smbd_durable *durable;   /* NULL: not durable */
	uint64_t persistent_id;
	uint64_t volatile_id;
	struct vfs_fh *fh;
	char *name;                     /* share-relative, '/'-separated */
	int64_t opened;                 /* Unix time */
	bool is_dir;
	uint32_t access_mask;
	uint32_t share_access;
	uint32_t create_options;
	void *dir_state;                /* QUERY_DIRECTORY enumeration */
	/* share_mode.c: the file this is an open of, and its other opens */
	struct smbd_file *file;
	struct smbd_open *file_prev, *file_next;
	/*
	 * An open of a named stream also keeps its file (the base) in the
	 * table, as Samba's base_fsp: the file's deletion waits for it, and
	 * an open of the file for DELETE meets its share access.
	 */
	struct smbd_file *base_file;
	struct smbd_open *base_prev, *base_next;
	bool delete_on_close;           /* FILE_DELETE_ON_CLOSE was asked */
	bool written;                   /* WRITE: its directory's leases */
	uint64_t position;              /* FilePositionInformation */
	uint32_t ea_index;              /* next EA of a FullEa scan (ea.c) */
	/*
	 * CHANGE_NOTIFY watch and waiting requests (commands/change_notify.c)
	 */
	struct smbd_open_notify *notify;
	/* the delayed write-time update of this handle (write_time.c) */
	struct smbd_open_write_time *write_time;
	/*
	 * LOCK replay detection (MS-SMB2 3.3.5.14): the LockSequenceNumber
	 * of the last successful LOCK per LockSequenceIndex 1..64, or
	 * SMBD_LOCK_SEQ_INVALID.
	 */
	uint8_t lock_seq[SMBD_LOCK_SEQ_MAX];
	uint8_t oplock_level;           /* SMB2_OPLOCK_LEVEL_* held */
	struct smbd_oplock_break *oplock_break; /* sent, not acknowledged */
	/* an open on IPC$: its DCE/RPC pipe (commands/pipe.c), fh NULL */
	struct smbd_named_pipe *pipe;
	struct smbd_csn csn;            /* channel sequence (3.3.5.2.10) */
	/* a DH2Q CreateGuid, replay eligibility (files/replay.c), or NULL */
	struct smbd_open_replay *replay;
	/*
	 * The lease this open was made with (files/lease.c); then
	 * oplock_level is NONE and the CREATE answered LEASE.
	 */
	struct smbd_lease *lease;
	/* the mapping READs of this open are answered from, or NULL */
	struct smbd_read_map *read_map;
	uint32_t read_map_small;        /* small READs before it (read_map.c) */
};

/*
 * One element of a (possibly compound) request, handed to a command.  The
 * pipeline has already checked the header, the body size, the session,
 * tree and file id the command's table entry asks for.
 */
struct smbd_request {
	struct smbd_conn *conn;
	const struct smb2_pdu *pdu;
	/*
	 * The talloc chunk holding pdu's bytes (the compound's receive
	 * buffer): a command that hands pdu memory to the kernel (WRITE)
	 * references it to keep it alive until the kernel is done.
	 */
	void *pdu_owner;
	struct smbd_session *session;   /* NEED_SESSION and above */
	struct smbd_tcon *tcon;         /* NEED_TCON */
	struct smbd_open *open;         /* fileid_ofs set in the table */
	/*
	 * A binding SESSION_SETUP whose signature checked out with the
	 * session's key (pipeline.c binding_signature).
	 */
	bool bind_signed;
	/* CREATE sets this so related compound elements find the new open */
	struct smbd_open *created;
	/* counted against open's channel sequence until answered */
	struct smbd_csn_ref *csn_ref;
	uint16_t credits;               /* granted in the response */
	/*
	 * A command that is going to wait for something outside the
	 * client's control (a lock held by another open, a change in a
	 * directory) sets go_async in its _send when may_go_async allows:
	 * the pipeline answers STATUS_PENDING at once (MS-SMB2 3.3.4.2) and
	 * the connection goes on with other requests.  From then on the
	 * command must not use session, tcon or open from this struct: they
	 * may be gone (LOGOFF, CLOSE); it keeps what it needs in objects
	 * that tell it when they go away.  CANCEL reaches it through
	 * tevent_req_cancel().
	 */
	bool may_go_async;
	bool go_async;
	/*
	 * The response will be neither signed nor encrypted and is the only
	 * one of its compound: READ may hand its payload over in a pipe
	 * (smbd_response.splice_pipe).
	 */
	bool may_splice;
	/*
	 * A WRITE whose data the transport received into pipes (splice
	 * write mode; pdu->ext_len bytes).  Owned by the compound: WRITE
	 * empties it into the file, or leaves it to be closed.
	 */
	struct smbd_splice *in_splice;
	/*
	 * SESSION_SETUP and TREE_CONNECT set session/tcon to what they
	 * created (the response header carries its id); LOGOFF and
	 * TREE_DISCONNECT set them to NULL after freeing them.
	 */
};

/*
 * What a command produces: the response body (fixed + dynamic, as the
 * lib/smb2 *_rsp_push functions return it) and an optional payload iovec
 * that follows it (READ data), so the payload goes to the socket without
 * a copy.  status is the header status for a successful body
 * (MORE_PROCESSING_REQUIRED, BUFFER_OVERFLOW, ...); a command that fails
 * returns the error from _recv and sets nothing here.
 */
struct smbd_response {
	NTSTATUS status;
	uint8_t *body;
	size_t body_len;
	const uint8_t *payload;
	size_t payload_len;
	void *payload_owner;            /* talloc chunk freed with the response */
	/*
	 * Splice read mode: the payload is splice_len bytes waiting in the
	 * pipes of splice (never together with payload).  Only for a
	 * response that is neither signed nor encrypted (may_splice).
	 */
	struct smbd_splice *splice;
	size_t splice_len;
	/* zerocopy read mode: send the payload with SENDMSG_ZC */
	bool zerocopy;
	/*
	 * The payload is read-only memory (a mapped READ): encryption
	 * writes the ciphertext elsewhere.
	 */
	bool payload_ro;
};

typedef struct tevent_req *(*smbd_cmd_send_fn)(TALLOC_CTX *mem_ctx,
					       struct tevent_context *ev,
					       struct smbd_request *req);
typedef NTSTATUS (*smbd_cmd_recv_fn)(struct tevent_req *subreq,
				     TALLOC_CTX *mem_ctx,
				     struct smbd_response *rsp);

#endif
