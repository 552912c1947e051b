/*
 * NTTIME: 100 ns intervals since 1601-01-01 UTC (MS-DTYP 2.3.3).
 */
#ifndef RINGSMB_NTTIME_H
#define RINGSMB_NTTIME_H

#include <stdint.h>
#include <time.h>

#define NTTIME_UNIX_EPOCH 116444736000000000ULL

static inline uint64_t nttime_from_timespec(const struct timespec *ts)
{
	if (ts->tv_sec < 0) {
		return 0;
	}
	return NTTIME_UNIX_EPOCH + (uint64_t)ts->tv_sec * 10000000ULL +
	       (uint64_t)ts->tv_nsec / 100;
}

static inline uint64_t nttime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return nttime_from_timespec(&ts);
}

#endif
