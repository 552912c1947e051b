/*
 * Latency histograms: log-linear buckets (64 per power of two, so a
 * bucket is at most 1/64 = 1.6% wide), the way fio keeps clat, so
 * percentiles cost no sorting and a job's memory does not grow with its
 * run time.  Values below 64 ns have a bucket each.
 */
#include <math.h>

#include "source3/utils/smb2bench/smb2bench.h"

#define SUB (1u << LAT_SUB_BITS)

static unsigned bucket_of(uint64_t v)
{
	unsigned msb, group;

	if (v < SUB) {
		return (unsigned)v;
	}
	msb = 63 - (unsigned)__builtin_clzll(v);
	group = msb - LAT_SUB_BITS + 1;
	if (group > LAT_GROUPS) {
		return LAT_BUCKETS - 1;
	}
	return group * SUB + (unsigned)((v >> (msb - LAT_SUB_BITS)) & (SUB - 1));
}

/* The middle of bucket b. */
static uint64_t bucket_value(unsigned b)
{
	unsigned group = b / SUB, sub = b % SUB;
	unsigned shift;
	uint64_t base;

	if (group == 0) {
		return b;
	}
	shift = group - 1;
	base = ((uint64_t)SUB + sub) << shift;
	return base + ((1ULL << shift) >> 1);
}

void lat_add(struct lat_hist *h, uint64_t ns)
{
	if (h->n == 0 || ns < h->min) {
		h->min = ns;
	}
	if (ns > h->max) {
		h->max = ns;
	}
	h->n++;
	h->sum += (double)ns;
	h->sumsq += (double)ns * (double)ns;
	h->bucket[bucket_of(ns)]++;
}

uint64_t lat_percentile(const struct lat_hist *h, double p)
{
	uint64_t want, seen = 0;
	unsigned b;

	if (h->n == 0) {
		return 0;
	}
	want = (uint64_t)ceil(p / 100.0 * (double)h->n);
	if (want == 0) {
		want = 1;
	}
	for (b = 0; b < LAT_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= want) {
			uint64_t v = bucket_value(b);

			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

double lat_mean(const struct lat_hist *h)
{
	return h->n > 0 ? h->sum / (double)h->n : 0.0;
}

double lat_stddev(const struct lat_hist *h)
{
	double m = lat_mean(h), var;

	if (h->n < 2) {
		return 0.0;
	}
	var = (h->sumsq - (double)h->n * m * m) / (double)(h->n - 1);
	return var > 0 ? sqrt(var) : 0.0;
}
