/*
 * NTTIME: 100 ns intervals since 1601-01-01 UTC (MS-DTYP 2.3.3).
 */
#ifndef RINGSMB_NTTIME_H
#define RINGSMB_NTTIME_H

#include <stdint.h>
#include <time.h>

#define NTTIME_UNIX_EPOCH 116444736000000000ULL

/*
 * Times before 1970 are NTTIMEs too (a file dated 1968: smb2.timestamps);
 * only those before 1601 (or past NTTIME's range) clamp.
 */
#define NTTIME_UNIX_MIN_SEC (-(int64_t)(NTTIME_UNIX_EPOCH / 10000000ULL))
#define NTTIME_UNIX_MAX_SEC ((int64_t)((INT64_MAX - NTTIME_UNIX_EPOCH) / \
				       10000000ULL) - 1)

static inline uint64_t nttime_from_timespec(const struct timespec *ts)
{
	if (ts->tv_sec < NTTIME_UNIX_MIN_SEC) {
		return 0;
	}
	if (ts->tv_sec > NTTIME_UNIX_MAX_SEC) {
		return (uint64_t)INT64_MAX;
	}
	return (uint64_t)((int64_t)NTTIME_UNIX_EPOCH +
			  (int64_t)ts->tv_sec * 10000000 +
			  (int64_t)ts->tv_nsec / 100);
}

/* The reverse, for NTTIMEs up to INT64_MAX (before 1970 too). */
static inline struct timespec nttime_to_timespec(uint64_t t)
{
	int64_t rel = (int64_t)t - (int64_t)NTTIME_UNIX_EPOCH;
	struct timespec ts = {
		.tv_sec = rel / 10000000,
		.tv_nsec = (rel % 10000000) * 100,
	};

	if (ts.tv_nsec < 0) {
		ts.tv_nsec += 1000000000;
		ts.tv_sec--;
	}
	return ts;
}

static inline uint64_t nttime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return nttime_from_timespec(&ts);
}

#endif
