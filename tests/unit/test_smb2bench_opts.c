/*
 * smb2bench's option parsing (source3/utils/smb2bench/options.c,
 * cmdline.c, jobfile.c): fio's sizes and times, smbclient's addressing,
 * job files, and every unsupported option or bad value refused with its
 * name in the message.
 */
#include <string.h>

#include "tests/unit/unit.h"
#include "source3/utils/smb2bench/smb2bench.h"

#define ARGV(...) ((char *[]){ "smb2bench", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof(ARGV(__VA_ARGS__)) / sizeof(char *)) - 1)
#define REFUSED(name, ...) \
	refused(tmp, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), name)
#define PARSE(o, err, ...) \
	parse(tmp, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o, err)

static bool parse(TALLOC_CTX *tmp, int argc, char **argv,
		  struct bench_opts *o, char **err)
{
	bool help = false;

	*err = NULL;
	return bench_opts_parse(tmp, argc, argv, o, &help, err);
}

/* Parsing fails and the message names what was refused. */
static void refused(TALLOC_CTX *tmp, int argc, char **argv, const char *name)
{
	struct bench_opts o;
	char *err = NULL;

	assert_false(parse(tmp, argc, argv, &o, &err));
	assert_non_null(err);
	if (strstr(err, name) == NULL) {
		fail_msg("'%s' does not name '%s'", err, name);
	}
}

static void test_opts__sizes_and_times(void **state)
{
	uint64_t v = 0;
	double t = 0;

	assert_true(bench_parse_size("4k", &v));
	assert_int_equal(v, 4096);
	assert_true(bench_parse_size("1m", &v));
	assert_int_equal(v, 1 << 20);
	assert_true(bench_parse_size("2G", &v));
	assert_int_equal(v, 2ULL << 30);
	assert_true(bench_parse_size("4KiB", &v));
	assert_int_equal(v, 4096);
	assert_true(bench_parse_size("512", &v));
	assert_int_equal(v, 512);
	assert_false(bench_parse_size("4x", &v));
	assert_false(bench_parse_size("k", &v));
	assert_false(bench_parse_size("", &v));
	assert_false(bench_parse_size("-1", &v));
	assert_false(bench_parse_size("99999999999999999999", &v));
	assert_false(bench_parse_size("20000000t", &v));
	assert_true(bench_parse_time("30", &t));
	assert_true(t == 30.0);
	assert_true(bench_parse_time("500ms", &t));
	assert_true(t == 0.5);
	assert_true(bench_parse_time("2m", &t));
	assert_true(t == 120.0);
	assert_false(bench_parse_time("2d", &t));
}

static void test_opts__command_line(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct bench_opts o;
	const struct job_opts *j = NULL;
	char *err = NULL;

	assert_true(PARSE(&o, &err, "//srv/data", "-p", "4445",
			  "-UDOM\\bob%s3cret", "--rw=randrw", "--rwmixread",
			  "70", "--bs=64k", "--iodepth=16", "--numjobs", "4",
			  "--size=1g", "--runtime=10", "--time_based",
			  "--name=r", "--output-format=json", "--signing",
			  "--encrypt=aes-256-gcm", "-m", "SMB3_02",
			  "--verify=pattern", "--server-pid=42"));
	assert_string_equal(o.smb.host, "srv");
	assert_string_equal(o.smb.share, "data");
	assert_int_equal(o.smb.port, 4445);
	assert_string_equal(o.smb.domain, "DOM");
	assert_string_equal(o.smb.user, "bob");
	assert_string_equal(o.smb.password, "s3cret");
	assert_true(o.smb.signing);
	assert_int_equal(o.smb.cipher, SMB2_ENCRYPTION_AES256_GCM);
	assert_int_equal(o.smb.max_dialect, SMB2_DIALECT_0302);
	assert_int_equal(o.fmt, FMT_JSON);
	assert_int_equal(o.server_pid, 42);
	assert_int_equal(o.num_jobs, 1);
	j = &o.jobs[0];
	assert_string_equal(j->name, "r");
	assert_int_equal(j->rw, RW_RANDRW);
	assert_int_equal(j->rwmixread, 70);
	assert_int_equal(j->bs, 65536);
	assert_int_equal(j->iodepth, 16);
	assert_int_equal(j->numjobs, 4);
	assert_int_equal(j->size, 1ULL << 30);
	assert_true(j->runtime == 10.0);
	assert_true(j->time_based);
	assert_true(j->verify);
	talloc_free(tmp);
}

static void test_opts__defaults_and_guest(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct bench_opts o;
	char *err = NULL;

	assert_true(PARSE(&o, &err, "\\\\h\\s", "-N", "--size=1m"));
	assert_string_equal(o.smb.host, "h");
	assert_int_equal(o.smb.port, 445);
	assert_true(o.smb.anonymous);
	assert_string_equal(o.jobs[0].name, "job");
	assert_int_equal(o.jobs[0].rw, RW_READ);
	assert_int_equal(o.jobs[0].bs, 4096);
	assert_int_equal(o.jobs[0].iodepth, 1);
	assert_int_equal(o.fmt, FMT_NORMAL);
	assert_true(PARSE(&o, &err, "//h/s", "-N", "--rw", "rw",
			  "--rwmixwrite=30", "--blocksize", "8k"));
	assert_int_equal(o.jobs[0].rw, RW_RW);
	assert_int_equal(o.jobs[0].rwmixread, 70);
	assert_int_equal(o.jobs[0].bs, 8192);
	talloc_free(tmp);
}

static void test_opts__refused_by_name(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);

	REFUSED("--channels", "//h/s", "-N", "--channels=2");
	REFUSED("--channels", "//h/s", "-U", "u%p", "--channels=0");
	REFUSED("--channels", "//h/s", "-U", "u%p", "--channels=33");
	REFUSED("--channels", "//h/s", "-U", "u%p", "-m", "SMB2_10",
		"--channels=2");
	REFUSED("--channel-addrs", "//h/s", "-U", "u%p", "--channel-addrs=");
	REFUSED("--ioengine", "//h/s", "-N", "--ioengine=libaio");
	REFUSED("--direct", "//h/s", "-N", "--direct=1");
	REFUSED("--no-such-thing", "//h/s", "-N", "--no-such-thing");
	REFUSED("-X", "//h/s", "-N", "-X");
	REFUSED("--rw", "//h/s", "-N", "--rw=sideways");
	REFUSED("--bs", "//h/s", "-N", "--bs=4x");
	REFUSED("--iodepth", "//h/s", "-N", "--iodepth=0");
	REFUSED("--verify", "//h/s", "-N", "--verify=crc32c");
	REFUSED("--output-format", "//h/s", "-N", "--output-format=terse");
	REFUSED("--encrypt", "//h/s", "-N", "--encrypt=des");
	REFUSED("-m", "//h/s", "-N", "-m", "SMB1");
	REFUSED("--rwmixread", "//h/s", "-N", "--rwmixread=101");
	REFUSED("//HOST/SHARE", "-N");
	REFUSED("-U", "//h/s");
	REFUSED("//h", "//h", "-N");
	REFUSED("--encrypt", "//h/s", "-N", "--encrypt");
	REFUSED("/nonexistent/job.fio", "//h/s", "-N", "/nonexistent/job.fio");
	REFUSED("--bs", "//h/s", "-N", "--verify=pattern", "--bs=4100");
	talloc_free(tmp);
}

static void test_opts__channels(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	struct bench_opts o = {};
	char *err = NULL;

	assert_true(PARSE(&o, &err, "//h/s", "-N"));
	assert_int_equal(o.smb.channels, 1);
	assert_int_equal(o.smb.num_channel_addrs, 0);
	assert_true(PARSE(&o, &err, "//h/s", "-U", "u%p", "--channels", "4",
			  "--channel-addrs=10.0.0.1,fe80::1,h2"));
	assert_int_equal(o.smb.channels, 4);
	assert_int_equal(o.smb.num_channel_addrs, 3);
	assert_string_equal(o.smb.channel_addrs[0], "10.0.0.1");
	assert_string_equal(o.smb.channel_addrs[1], "fe80::1");
	assert_string_equal(o.smb.channel_addrs[2], "h2");
	talloc_free(tmp);
}

static void test_opts__jobfile(void **state)
{
	TALLOC_CTX *tmp = talloc_new(*state);
	static const char text[] =
		"; comment\n[global]\nbs=1m\niodepth=8\n\n"
		"[seq]\nrw=read\nfilename=big.bin\n"
		"# another\n[rand]\nrw = randwrite\nnumjobs=3\nbs=4k\n"
		"time_based\nruntime=5s\n";
	struct bench_opts o = {};
	struct job_opts base = { .rw = RW_READ, .bs = 4096, .iodepth = 1,
				 .numjobs = 1, .size = 1 << 20 };
	char *err = NULL;

	assert_true(bench_jobfile_parse(tmp, text, "t.fio", &base, &o, &err));
	assert_int_equal(o.num_jobs, 2);
	assert_string_equal(o.jobs[0].name, "seq");
	assert_int_equal(o.jobs[0].bs, 1 << 20);
	assert_int_equal(o.jobs[0].iodepth, 8);
	assert_int_equal(o.jobs[0].size, 1 << 20);
	assert_string_equal(o.jobs[0].filename, "big.bin");
	assert_string_equal(o.jobs[1].name, "rand");
	assert_int_equal(o.jobs[1].rw, RW_RANDWRITE);
	assert_int_equal(o.jobs[1].numjobs, 3);
	assert_int_equal(o.jobs[1].bs, 4096);
	assert_true(o.jobs[1].time_based);
	assert_true(o.jobs[1].runtime == 5.0);
	assert_null(o.jobs[1].filename);

	o = (struct bench_opts){};
	assert_false(bench_jobfile_parse(tmp, "[x]\nrw=read\nioengine=libaio\n",
					 "b.fio", &base, &o, &err));
	assert_non_null(strstr(err, "b.fio:3"));
	assert_non_null(strstr(err, "ioengine"));
	assert_false(bench_jobfile_parse(tmp, "bs=4k\n", "c.fio", &base, &o,
					 &err));
	assert_non_null(strstr(err, "c.fio:1"));
	assert_false(bench_jobfile_parse(tmp, "[global]\nbs=4k\n", "d.fio",
					 &base, &o, &err));
	assert_non_null(strstr(err, "no job section"));
	assert_false(bench_jobfile_parse(tmp, "[x]\niodepth=lots\n", "e.fio",
					 &base, &o, &err));
	assert_non_null(strstr(err, "iodepth"));
	talloc_free(tmp);
}

#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_opts__sizes_and_times),
		T(test_opts__command_line),
		T(test_opts__defaults_and_guest),
		T(test_opts__refused_by_name),
		T(test_opts__channels),
		T(test_opts__jobfile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
