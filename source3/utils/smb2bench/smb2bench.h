/*
 * smb2bench: an SMB2/3 load client that speaks fio's vocabulary.
 *
 *   options.c  command line and fio job files -> struct bench_opts
 *   channels.c --channels: the server's interfaces, bound connections
 *   conn.c     one connection: TCP, NEGOTIATE, SESSION_SETUP (lib/auth
 *              client), TREE_CONNECT, CREATE/CLOSE, synchronously;
 *              signing and encryption of every message (lib/crypto)
 *   engine.c   one job: iodepth READ/WRITE requests in flight on its
 *              connection through its own io_uring, within the credits
 *   engine_job.c  that job's setup, layout, timing, read-back, teardown
 *   pattern.c  the --verify=pattern data, a function of the file offset
 *   stats.c    latency histograms and percentiles
 *   report.c   fio's JSON layout and the normal text summary
 *   smb2bench.c  main: jobs as threads, the progress line, CPU per GiB
 *
 * One job = one thread = one connection = one ring; jobs share nothing
 * but the start barrier and their counters, read by the progress line.
 */
#ifndef RINGSMB_SMB2BENCH_H
#define RINGSMB_SMB2BENCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include <talloc.h>

#include "lib/crypto/crypto.h"
#include "lib/smb2/smb2_client.h"

/* ------------------------------------------------------------------ */
/* Options (options.c)                                                 */

enum bench_rw { RW_READ, RW_WRITE, RW_RANDREAD, RW_RANDWRITE, RW_RANDRW,
		RW_RW,
		/* metadata modes (meta.c): operations, not bytes */
		RW_CREATE, RW_STAT, RW_LISTDIR, RW_CONNECT };

/* A metadata mode: one operation at a time per job. */
#define RW_IS_META(rw) ((rw) >= RW_CREATE)

enum bench_fmt { FMT_NORMAL, FMT_JSON };

/* One fio job section (or the command line's one job). */
struct job_opts {
	char *name;
	enum bench_rw rw;
	unsigned rwmixread;	/* percent of reads for randrw / rw */
	uint64_t bs;
	unsigned iodepth;
	unsigned numjobs;
	uint64_t size;
	double runtime;		/* seconds; 0 = none */
	bool time_based;
	char *filename;		/* NULL: <name>.<n>.0 per job */
	bool verify;		/* --verify=pattern */
	uint64_t randseed;
	unsigned nrfiles;	/* metadata modes: files in the job's folder */
};

/* The SMB side: as smbclient is addressed. */
struct smb_opts {
	char *host;
	char *share;
	unsigned port;
	char *user;
	char *domain;
	char *password;
	bool anonymous;		/* -N */
	bool signing;		/* --signing: sign even if not required */
	uint16_t cipher;	/* --encrypt[=cipher]; 0 = off */
	uint16_t max_dialect;	/* -m; 0x0311 by default */
	bool read_copy;		/* --read-copy: no MSG_TRUNC discard */
	bool compound;		/* --compound: stat as one compound */
	unsigned channels;	/* --channels: connections per session */
	char **channel_addrs;	/* --channel-addrs, NULL: the server's */
	size_t num_channel_addrs;
};

struct bench_opts {
	struct smb_opts smb;
	struct job_opts *jobs;	/* one per job section */
	size_t num_jobs;
	enum bench_fmt fmt;
	long server_pid;	/* --server-pid, 0 = none */
	int progress;		/* -1 auto (isatty), 0 off, 1 on */
};

/*
 * Parse argv.  On a refused option returns false with a message naming
 * it in *err (talloc'd on mem_ctx); --help sets *help.
 */
bool bench_opts_parse(TALLOC_CTX *mem_ctx, int argc, char **argv,
		      struct bench_opts *out, bool *help, char **err);
/* fio's size syntax: 4k, 1m, 1g, 512 (bytes), 4KiB; false if bad. */
bool bench_parse_size(const char *s, uint64_t *out);
/* Seconds: 30, 30s, 500ms, 2m, 1h. */
bool bench_parse_time(const char *s, double *out);
/*
 * A fio job file's text: [global] and job sections of key=value lines;
 * each job section starts from base plus the [global] lines before it.
 * The jobs are appended to out->jobs.
 */
bool bench_jobfile_parse(TALLOC_CTX *mem_ctx, const char *text,
			 const char *path, const struct job_opts *base,
			 struct bench_opts *out, char **err);
const char *bench_rw_name(enum bench_rw rw);
void bench_usage(FILE *f);

/* ------------------------------------------------------------------ */
/* Connection (conn.c)                                                 */

struct smb2_conn {
	int fd;
	uint16_t dialect;
	uint32_t max_read, max_write;
	bool large_mtu;
	uint64_t session_id;
	uint32_t tree_id;
	uint64_t next_mid;
	uint32_t credits;
	bool sign;		/* sign requests, check responses */
	uint16_t signing_alg;
	uint16_t cipher;	/* 0: no encryption */
	struct smb2_keys keys;
	struct smb2_nonce_gen nonce;
	/* &nonce, or the first channel's: one generator per session key */
	struct smb2_nonce_gen *ng;
	uint8_t client_guid[16];
	bool binding;		/* SESSION_SETUP legs of a channel bind */
	uint8_t preauth[SMB2_PREAUTH_HASH_SIZE];
	uint16_t session_flags;
	bool server_signing_required;
	uint16_t server_cipher;	/* what NEGOTIATE settled, 0 if none */
	char *err;		/* last error, for the user */
};

/* Connect, negotiate, authenticate, connect the tree.  NULL on error. */
struct smb2_conn *smb2_conn_open(TALLOC_CTX *mem_ctx,
				 const struct smb_opts *o, char **err);
/*
 * One more channel of first's session (MS-SMB2 3.2.4.2.3, 3.2.5.3):
 * connect to host, NEGOTIATE with first's ClientGuid, SESSION_SETUP with
 * SMB2_SESSION_FLAG_BINDING signed with the session's signing key; the
 * channel signs with its own key and encrypts with the session's.
 */
struct smb2_conn *smb2_conn_bind(TALLOC_CTX *mem_ctx,
				 const struct smb2_conn *first,
				 const struct smb_opts *o, const char *host,
				 char **err);
/*
 * The server's IPv4 and IPv6 addresses from
 * FSCTL_QUERY_NETWORK_INTERFACE_INFO (3.3.5.15.11), as strings on
 * mem_ctx; false with c->err set on an error.
 */
bool smb2_conn_interfaces(struct smb2_conn *c, TALLOC_CTX *mem_ctx,
			  char ***addrs, size_t *n);
/*
 * o->channels connections of first's session (channels.c): [0] is
 * first, the others bound to it; *where their addresses.  NULL and *err
 * on an error.
 */
struct smb2_conn **channels_open(TALLOC_CTX *mem_ctx, struct smb2_conn *first,
				 const struct smb_opts *o, char ***where,
				 char **err);
/* How smb2_conn_open_how opens: no oplock, lease or context. */
struct smb2_open_how {
	uint32_t access;
	uint32_t disposition;	/* SMB2_FILE_OPEN ... */
	uint32_t options;	/* SMB2_FILE_NON_DIRECTORY_FILE ... */
};
NTSTATUS smb2_conn_open_how(struct smb2_conn *c, const char *name,
			    const struct smb2_open_how *how,
			    struct smb2_file_id *fid, uint64_t *eof);
/*
 * Open (creating if needed) name for read and write; *eof is its size.
 */
NTSTATUS smb2_conn_create(struct smb2_conn *c, const char *name,
			  bool create, struct smb2_file_id *fid,
			  uint64_t *eof);
NTSTATUS smb2_conn_close_file(struct smb2_conn *c,
			      const struct smb2_file_id *fid);
/* TREE_DISCONNECT and LOGOFF, best effort; then the socket is closed. */
void smb2_conn_logoff(struct smb2_conn *c);

/* The credit charge of a READ/WRITE of len bytes (MS-SMB2 3.1.5.2). */
uint16_t smb2_conn_charge(const struct smb2_conn *c, uint64_t len);

/*
 * Finish a request whose header (64 bytes, zeroed except what the caller
 * set: command) is at hdr: session/tree ids, MessageId, credits; then
 * signs it.  iov[0] is the header (+ body), the rest the payload.  With
 * encryption, tf (52 bytes) receives the TRANSFORM_HEADER and iov is
 * encrypted in place.  Returns 0 or -errno.
 */
int smb2_conn_seal(struct smb2_conn *c, uint16_t charge, uint16_t ask,
		   struct iovec *iov, int iovcnt, uint8_t *tf);
/*
 * A received NBT payload: decrypt it in place if it is a transform,
 * check its signature when the session signs; *msg, *msg_len is the SMB2
 * message.  -EBADMSG / -EACCES / -EINVAL for a bad message.
 */
int smb2_conn_open_rsp(struct smb2_conn *c, uint8_t *buf, size_t len,
		       uint8_t **msg, size_t *msg_len);

/* ------------------------------------------------------------------ */
/* Data pattern (pattern.c)                                            */

/* The bytes at file offset ofs (multiple of 8) for seed, len % 8 == 0. */
void pattern_fill(uint8_t *buf, size_t len, uint64_t ofs, uint64_t seed);
/* Offset of the first differing byte, or -1 if buf matches. */
int64_t pattern_check(const uint8_t *buf, size_t len, uint64_t ofs,
		      uint64_t seed);

/* ------------------------------------------------------------------ */
/* Statistics (stats.c)                                                */

#define LAT_SUB_BITS 6
#define LAT_GROUPS 40
#define LAT_BUCKETS ((LAT_GROUPS + 1) << LAT_SUB_BITS)

struct lat_hist {
	uint64_t n;
	uint64_t min, max;
	double sum, sumsq;
	uint64_t bucket[LAT_BUCKETS];
};

void lat_add(struct lat_hist *h, uint64_t ns);
/* The value at percentile p (0 < p <= 100), 0 for an empty histogram. */
uint64_t lat_percentile(const struct lat_hist *h, double p);
double lat_mean(const struct lat_hist *h);
double lat_stddev(const struct lat_hist *h);

enum { DIR_READ, DIR_WRITE, DIR_COUNT };

struct dir_stats {
	uint64_t io_bytes;
	uint64_t ios;
	struct lat_hist clat;
};

/* One channel of a job, for the report. */
struct chan_stats {
	const char *addr;
	uint64_t requests;	/* sent in the measured phase */
	bool lost;		/* failed or went silent; its requests moved */
};

/* One running job: its options, connection and results. */
struct job {
	/* this job's own talloc tree: talloc is not thread-safe across one */
	TALLOC_CTX *mem;
	const struct job_opts *o;
	const struct smb_opts *smb;
	unsigned index;		/* n of <name>.<n>.0 */
	char *filename;
	struct dir_stats dir[DIR_COUNT];
	uint64_t runtime_ns;	/* of the measured phase */
	double usr_s, sys_s;	/* this thread's CPU in that phase */
	uint64_t verify_errors;
	uint64_t verify_bytes;	/* read and found equal to the pattern */
	uint64_t entries;	/* listdir: directory entries seen */
	char *err;		/* NULL if the job ran to its end */
	struct chan_stats *chans;
	unsigned nchans;
	/* live counters for the progress line */
	_Atomic uint64_t live_bytes[DIR_COUNT];
	_Atomic uint64_t live_ios;
	_Atomic bool started;
	_Atomic bool finished;
};

/* ------------------------------------------------------------------ */
/* Engine (engine.c)                                                   */

/*
 * Runs one job in the calling thread: connect, lay the file out if it
 * is shorter than size and the job reads, wait on start (a barrier
 * callback), run the measured phase.  Errors land in job->err.
 */
typedef void (*engine_wait_fn)(void *private_data);
void engine_run(struct job *job, engine_wait_fn wait, void *private_data,
		const _Atomic bool *stop);

/* The same for a metadata mode (meta.c). */
void meta_run(struct job *job, engine_wait_fn wait, void *private_data,
	      const _Atomic bool *stop);
/* A metadata mode's operations count as reads, or (create) writes. */
int meta_dir(enum bench_rw rw);

/* ------------------------------------------------------------------ */
/* Report (report.c)                                                   */

struct bench_totals {
	double client_cpu_s;	/* whole process, measured phase */
	double server_cpu_s;	/* /proc/PID/stat, or < 0 if not asked */
	uint64_t bytes;
	uint64_t ops;		/* I/Os or metadata operations */
	double wall_s;
};

void report_json(FILE *f, const struct bench_opts *o, struct job *jobs,
		 size_t n, const struct bench_totals *t);
void report_normal(FILE *f, const struct bench_opts *o, struct job *jobs,
		   size_t n, const struct bench_totals *t);

#endif
