/*
 * fio's rw patterns.  Sequential jobs walk the file from 0; random jobs
 * visit every block once per pass in an order given by a bijection
 * i -> (i * mult + add) mod nblocks with mult coprime to nblocks (fio's
 * random map has the same "each block once" property; ours costs no
 * memory).  Without time_based a job stops after size bytes; with it,
 * sequential jobs wrap and random jobs start another pass.
 */
#include "source3/utils/smb2bench/workload.h"

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static void new_pass(struct workload *w)
{
	w->i = 0;
	w->add = w->nblocks > 0 ? xorshift(&w->rng) % w->nblocks : 0;
	w->mult = w->nblocks > 1 ? xorshift(&w->rng) % w->nblocks : 1;
	while (w->nblocks > 1 && (w->mult == 0 || gcd(w->mult, w->nblocks) != 1)) {
		w->mult = (w->mult + 1) % w->nblocks;
	}
}

void workload_init(struct workload *w, const struct job_opts *o,
		   uint64_t size, bool layout)
{
	*w = (struct workload){
		.rw = layout ? RW_WRITE : o->rw,
		.mixread = o->rwmixread,
		.size = size,
		.bs = o->bs,
		.endless = !layout && o->time_based,
		.rng = o->randseed * 0x9e3779b97f4a7c15ULL + 1,
	};
	w->nblocks = size / w->bs;
	new_pass(w);
}

static bool is_random(enum bench_rw rw)
{
	return rw == RW_RANDREAD || rw == RW_RANDWRITE || rw == RW_RANDRW;
}

static bool next_write(struct workload *w)
{
	switch (w->rw) {
	case RW_READ:
	case RW_RANDREAD:
		return false;
	case RW_WRITE:
	case RW_RANDWRITE:
		return true;
	default:
		return xorshift(&w->rng) % 100 >= w->mixread;
	}
}

bool workload_next(struct workload *w, bool *write, uint64_t *ofs,
		   uint32_t *len)
{
	uint64_t o, l;

	if (w->size == 0 || (!w->endless && w->issued >= w->size)) {
		return false;
	}
	if (is_random(w->rw) && w->nblocks > 0) {
		if (w->i == w->nblocks) {
			new_pass(w);
		}
		o = ((w->i * w->mult + w->add) % w->nblocks) * w->bs;
		w->i++;
		l = w->bs;
	} else {
		if (w->seq >= w->size) {
			w->seq = 0;
		}
		o = w->seq;
		l = w->size - o < w->bs ? w->size - o : w->bs;
		w->seq += l;
	}
	w->issued += l;
	*write = next_write(w);
	*ofs = o;
	*len = (uint32_t)l;
	return true;
}
