/*
 * Which I/O comes next (workload.c): fio's rw patterns over [0, size).
 */
#ifndef RINGSMB_SMB2BENCH_WORKLOAD_H
#define RINGSMB_SMB2BENCH_WORKLOAD_H

#include "source3/utils/smb2bench/smb2bench.h"

struct workload {
	enum bench_rw rw;
	unsigned mixread;
	uint64_t size, bs;
	bool endless;		/* time_based: wrap around */
	uint64_t issued;	/* bytes handed out */
	uint64_t seq;		/* next sequential offset */
	/* random: block i of a pass is (i * mult + add) % nblocks */
	uint64_t nblocks, i, mult, add;
	uint64_t rng;
};

/* layout: sequential writes of the whole file, once. */
void workload_init(struct workload *w, const struct job_opts *o,
		   uint64_t size, bool layout);
/* The next I/O, or false when the job has handed out all it does. */
bool workload_next(struct workload *w, bool *write, uint64_t *ofs,
		   uint32_t *len);

#endif
