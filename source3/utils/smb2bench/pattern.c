/*
 * --verify=pattern data: every 8-byte little-endian word at file offset
 * o is splitmix64(seed ^ o), so any reader (smbclient plus a script,
 * tests/integration/test_smb2bench.py) can compute what a file holds,
 * and a READ at any offset can be checked without remembering writes.
 */
#include <string.h>

#include "source3/utils/smb2bench/smb2bench.h"
#include "lib/util/byteorder.h"

static inline uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void pattern_fill(uint8_t *buf, size_t len, uint64_t ofs, uint64_t seed)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		push_le64(buf + i, splitmix64(seed ^ (ofs + i)));
	}
}

int64_t pattern_check(const uint8_t *buf, size_t len, uint64_t ofs,
		      uint64_t seed)
{
	size_t i, j;

	for (i = 0; i + 8 <= len; i += 8) {
		uint8_t want[8];

		push_le64(want, splitmix64(seed ^ (ofs + i)));
		if (memcmp(buf + i, want, 8) != 0) {
			for (j = 0; j < 8 && buf[i + j] == want[j]; j++) {
			}
			return (int64_t)(i + j);
		}
	}
	return -1;
}
