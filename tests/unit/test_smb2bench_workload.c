/*
 * smb2bench's workload (source3/utils/smb2bench/workload.c) and data
 * pattern (pattern.c): sequential jobs cover [0, size) once with a short
 * last block, random jobs visit every block exactly once per pass and
 * start another pass when time based, randrw keeps its mix, and the
 * pattern check finds the first changed byte.
 */
#include <string.h>

#include "tests/unit/unit.h"
#include "source3/utils/smb2bench/workload.h"

static struct job_opts opts(enum bench_rw rw, uint64_t bs)
{
	return (struct job_opts){ .rw = rw, .bs = bs, .rwmixread = 70,
				  .iodepth = 1, .numjobs = 1, .randseed = 7 };
}

static void test_workload__sequential(void **state)
{
	struct job_opts o = opts(RW_READ, 4096);
	struct workload w;
	uint64_t ofs = 0, next = 0, total = 0;
	uint32_t len = 0;
	bool write = true;

	workload_init(&w, &o, 10000, false);
	while (workload_next(&w, &write, &ofs, &len)) {
		assert_false(write);
		assert_int_equal(ofs, next);
		next += len;
		total += len;
	}
	assert_int_equal(total, 10000);
	assert_int_equal(len, 10000 - 2 * 4096);	/* the short last one */
	/* layout: the same walk, all writes, whatever the job's rw */
	o.rw = RW_RANDREAD;
	workload_init(&w, &o, 8192, true);
	assert_true(workload_next(&w, &write, &ofs, &len));
	assert_true(write);
	assert_int_equal(ofs, 0);
}

/* Every block once per pass, for a few sizes (primes, powers of two). */
static void test_workload__random_covers_each_block(void **state)
{
	static const uint64_t nblocks[] = { 1, 2, 7, 64, 1000, 4099 };
	size_t k;

	for (k = 0; k < sizeof(nblocks) / sizeof(nblocks[0]); k++) {
		struct job_opts o = opts(RW_RANDREAD, 512);
		uint8_t *seen = talloc_zero_array(*state, uint8_t,
						  nblocks[k]);
		struct workload w;
		uint64_t ofs = 0, n = 0, pass;
		uint32_t len = 0;
		bool write = false;

		o.time_based = true;
		workload_init(&w, &o, nblocks[k] * 512, false);
		for (pass = 1; pass <= 2; pass++) {
			for (n = 0; n < nblocks[k]; n++) {
				assert_true(workload_next(&w, &write, &ofs,
							  &len));
				assert_int_equal(ofs % 512, 0);
				assert_int_equal(len, 512);
				assert_int_equal(seen[ofs / 512], pass - 1);
				seen[ofs / 512]++;
			}
		}
		talloc_free(seen);
	}
}

static void test_workload__randrw_mix_and_limit(void **state)
{
	struct job_opts o = opts(RW_RANDRW, 4096);
	struct workload w;
	uint64_t ofs = 0, reads = 0, ios = 0;
	uint32_t len = 0;
	bool write = false;

	workload_init(&w, &o, 4096 * 10000, false);
	while (workload_next(&w, &write, &ofs, &len)) {
		reads += write ? 0 : 1;
		ios++;
	}
	assert_int_equal(ios, 10000);	/* size, not time: then it stops */
	assert_in_range(reads, 6500, 7500);
}

static void test_pattern__fill_and_check(void **state)
{
	uint8_t buf[4096], other[4096];

	pattern_fill(buf, sizeof(buf), 8192, 1);
	assert_int_equal(pattern_check(buf, sizeof(buf), 8192, 1), -1);
	/* another offset or seed is other data */
	assert_int_equal(pattern_check(buf, sizeof(buf), 8200, 1), 0);
	pattern_fill(other, sizeof(other), 8192, 2);
	assert_memory_not_equal(buf, other, sizeof(buf));
	/* a READ at an offset inside a written block sees the same words */
	assert_int_equal(pattern_check(buf + 1024, 1024, 8192 + 1024, 1), -1);
	buf[1234] ^= 0x10;
	assert_int_equal(pattern_check(buf, sizeof(buf), 8192, 1), 1234);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_workload__sequential),
		T(test_workload__random_covers_each_block),
		T(test_workload__randrw_mix_and_limit),
		T(test_pattern__fill_and_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
