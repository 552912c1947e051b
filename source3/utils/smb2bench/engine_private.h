/*
 * smb2bench's I/O engine, shared by its two halves: engine.c (the ring
 * loop: sends, receives, credits, channels) and engine_job.c (a job's
 * setup, measured phase, read-back and teardown).  Not used elsewhere.
 */
#ifndef RINGSMB_SMB2BENCH_ENGINE_PRIVATE_H
#define RINGSMB_SMB2BENCH_ENGINE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <liburing.h>

#include "source3/utils/smb2bench/conn.h"
#include "source3/utils/smb2bench/workload.h"
#include "lib/smb2/transform.h"

#define NBT_HDR 4
#define MSG_ROOM (SMB2_HDR_SIZE + SMB2_READ_CREQ_LEN + 7)
#define RECV_WINDOW (256 * 1024)
#define BIG_FRAME (64 * 1024)
#define PEEK (NBT_HDR + SMB2_TRANSFORM_HDR_SIZE + SMB2_HDR_SIZE)
#define SEND_BATCH 64
#define UD_SEND 1
#define UD_RECV 2
#define UD_CANCEL 3
#define UD_KIND(ud) ((ud) & 0xff)
#define UD_CHAN(ud) ((unsigned)((ud) >> 8))
#define UD(kind, ch) ((uint64_t)(ch)->index << 8 | (kind))
#define MAX_CREDITS 8192
#define CHAN_SILENCE_NS (5 * 1000000000ULL)

struct slot {
	bool busy;
	bool retry;		/* its channel was lost: send it again */
	bool write;
	struct chan *ch;
	uint16_t cost;
	uint64_t mid;
	uint64_t offset;
	uint32_t len;
	uint64_t t0;
	uint8_t nbt[NBT_HDR];
	uint8_t tf[SMB2_TRANSFORM_HDR_SIZE];
	uint8_t msg[MSG_ROOM];
	size_t msg_len;
	uint8_t *data;		/* WRITE payload, bs bytes */
};

/* One channel: a connection of the job's session. */
struct chan {
	unsigned index;
	struct smb2_conn *c;
	bool lost;
	unsigned inflight;
	uint32_t inflight_cost;
	uint64_t heard;		/* last answer, or when it started to owe */
	struct chan_stats *stats;
	/* sends */
	unsigned *queue, queued;
	bool sending;
	struct iovec siov[SEND_BATCH * 4];
	struct msghdr smh;
	/* receives */
	uint8_t *rbuf;
	size_t rcap, rlen;
	bool receiving;
	/* discard mode: the rest of a READ payload dropped in the kernel */
	size_t skip;
	struct slot *skip_slot;
	uint32_t skip_len;
};

struct engine {
	struct job *job;
	struct smb2_conn *c;	/* a live channel's, for CREATE and CLOSE */
	struct chan *chans;
	unsigned nchans, next_chan;
	struct io_uring ring;
	struct smb2_file_id fid;
	struct workload w;
	bool measuring;		/* the measured phase, not the layout */
	struct slot *slots;
	unsigned depth, inflight, retries;
	uint16_t charge;
	bool no_more;		/* the workload or the clock is done */
	uint64_t t_end;		/* CLOCK_MONOTONIC ns; 0 = none */
	const _Atomic bool *stop;
	bool discard;
	bool have_ring;
	char *err;
};

/* engine.c */
uint64_t engine_now_ns(void);
/* the job's first error (printf-style, kept on job->mem); the loop stops */
void engine_fail(struct engine *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* issue and reap until the workload, the clock or an error ends it */
void engine_run_phase(struct engine *e);
/* cancel what is in flight and wait (bounded) for its completions */
void engine_quiesce(struct engine *e);

#endif
