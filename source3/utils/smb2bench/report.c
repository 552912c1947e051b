/*
 * Results in fio's layouts, so what reads fio reads smb2bench:
 * --output-format=json as fio 3.x writes it (jobs[].jobname,
 * jobs[].read.io_bytes, .bw_bytes, .iops, .runtime in ms, .clat_ns with
 * its "percentile" map keyed "99.000000", usr_cpu/sys_cpu in percent),
 * plus a top-level "smb2bench" object with CPU seconds per GiB; and the
 * normal text summary.  There is no submission latency: slat_ns is
 * zero and lat_ns equals clat_ns.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "source3/utils/smb2bench/smb2bench.h"

static const double pcts[] = {
	1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9,
	99.95, 99.99,
};
#define NPCTS (sizeof(pcts) / sizeof(pcts[0]))
#define GIB (1024.0 * 1024.0 * 1024.0)

static const char *dir_name[DIR_COUNT] = { "read", "write" };

static double secs(const struct job *j)
{
	return (double)j->runtime_ns / 1e9;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s != NULL && *s != '\0'; s++) {
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s);
		} else if ((unsigned char)*s < 0x20) {
			fprintf(f, "\\u%04x", *s);
		} else {
			fputc(*s, f);
		}
	}
	fputc('"', f);
}

static void json_lat(FILE *f, const char *name, const struct lat_hist *h,
		     bool with_pct)
{
	size_t i;

	fprintf(f, "      \"%s\" : {\n        \"min\" : %" PRIu64 ",\n"
		"        \"max\" : %" PRIu64 ",\n        \"mean\" : %f,\n"
		"        \"stddev\" : %f,\n        \"N\" : %" PRIu64, name,
		h != NULL ? h->min : 0, h != NULL ? h->max : 0,
		h != NULL ? lat_mean(h) : 0.0,
		h != NULL ? lat_stddev(h) : 0.0, h != NULL ? h->n : 0);
	if (with_pct && h != NULL && h->n > 0) {
		fprintf(f, ",\n        \"percentile\" : {\n");
		for (i = 0; i < NPCTS; i++) {
			fprintf(f, "          \"%f\" : %" PRIu64 "%s\n", pcts[i],
				lat_percentile(h, pcts[i]),
				i + 1 < NPCTS ? "," : "");
		}
		fprintf(f, "        }");
	}
	fprintf(f, "\n      }");
}

static void json_dir(FILE *f, const char *name, const struct job *j,
		     const struct dir_stats *d)
{
	double s = secs(j);
	double bw = s > 0 ? (double)d->io_bytes / s : 0;
	uint64_t runtime_ms = d->ios > 0 ? j->runtime_ns / 1000000 : 0;

	fprintf(f, "    \"%s\" : {\n      \"io_bytes\" : %" PRIu64 ",\n"
		"      \"io_kbytes\" : %" PRIu64 ",\n"
		"      \"bw_bytes\" : %.0f,\n      \"bw\" : %.0f,\n"
		"      \"iops\" : %f,\n      \"runtime\" : %" PRIu64 ",\n"
		"      \"total_ios\" : %" PRIu64 ",\n"
		"      \"short_ios\" : 0,\n      \"drop_ios\" : 0,\n",
		name, d != NULL ? d->io_bytes : 0,
		d != NULL ? d->io_bytes / 1024 : 0, bw, bw / 1024,
		s > 0 && d != NULL ? (double)d->ios / s : 0.0, runtime_ms,
		d != NULL ? d->ios : 0);
	json_lat(f, "slat_ns", NULL, false);
	fprintf(f, ",\n");
	json_lat(f, "clat_ns", d != NULL ? &d->clat : NULL, true);
	fprintf(f, ",\n");
	json_lat(f, "lat_ns", d != NULL ? &d->clat : NULL, false);
	fprintf(f, "\n    }");
}

/* "channels" : [ { "address", "requests", "lost" } ... ] */
static void json_chans(FILE *f, const char *indent,
		       const struct chan_stats *c, unsigned n)
{
	unsigned i;

	fprintf(f, ",\n%s\"channels\" : [", indent);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s\n%s  { \"address\" : ", i > 0 ? "," : "",
			indent);
		json_str(f, c[i].addr != NULL ? c[i].addr : "");
		fprintf(f, ", \"requests\" : %" PRIu64 ", \"lost\" : %s }",
			c[i].requests, c[i].lost ? "true" : "false");
	}
	fprintf(f, "\n%s]", indent);
}

/* The jobs' channels added up by index (each job has its own). */
static void json_all_chans(FILE *f, struct job *jobs, size_t n)
{
	unsigned most = 0, k;
	struct chan_stats *sum = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		most = jobs[i].nchans > most ? jobs[i].nchans : most;
	}
	sum = talloc_zero_array(jobs, struct chan_stats, most);
	for (i = 0; i < n && sum != NULL; i++) {
		for (k = 0; k < jobs[i].nchans; k++) {
			sum[k].addr = sum[k].addr != NULL ? sum[k].addr :
							    jobs[i].chans[k].addr;
			sum[k].requests += jobs[i].chans[k].requests;
			sum[k].lost |= jobs[i].chans[k].lost;
		}
	}
	json_chans(f, "    ", sum, sum != NULL ? most : 0);
	talloc_free(sum);
}

static void json_job(FILE *f, const struct job *j)
{
	const struct job_opts *o = j->o;
	double s = secs(j);
	static const struct dir_stats none;

	fprintf(f, "  {\n    \"jobname\" : ");
	json_str(f, o->name);
	fprintf(f, ",\n    \"groupid\" : 0,\n    \"error\" : %d,\n"
		"    \"elapsed\" : %.0f,\n    \"job options\" : {\n"
		"      \"rw\" : \"%s\",\n      \"bs\" : \"%" PRIu64 "\",\n"
		"      \"iodepth\" : \"%u\",\n      \"size\" : \"%" PRIu64
		"\",\n      \"filename\" : ",
		j->err != NULL ? 1 : 0, s, bench_rw_name(o->rw), o->bs,
		o->iodepth, o->size);
	json_str(f, j->filename);
	fprintf(f, "\n    },\n");
	json_dir(f, "read", j, &j->dir[DIR_READ]);
	fprintf(f, ",\n");
	json_dir(f, "write", j, &j->dir[DIR_WRITE]);
	fprintf(f, ",\n");
	json_dir(f, "trim", j, &none);
	fprintf(f, ",\n    \"usr_cpu\" : %f,\n    \"sys_cpu\" : %f,\n"
		"    \"ctx\" : 0,\n    \"majf\" : 0,\n    \"minf\" : 0,\n"
		"    \"verify_errors\" : %" PRIu64 ",\n"
		"    \"verify_bytes\" : %" PRIu64 ",\n    \"error_text\" : ",
		s > 0 ? 100.0 * j->usr_s / s : 0.0,
		s > 0 ? 100.0 * j->sys_s / s : 0.0, j->verify_errors,
		j->verify_bytes);
	json_str(f, j->err != NULL ? j->err : "");
	if (o->rw == RW_LISTDIR) {
		fprintf(f, ",\n    \"entries\" : %" PRIu64, j->entries);
	}
	json_chans(f, "    ", j->chans, j->nchans);
	fprintf(f, "\n  }");
}

void report_json(FILE *f, const struct bench_opts *o, struct job *jobs,
		 size_t n, const struct bench_totals *t)
{
	time_t now = time(NULL);
	char when[64];
	size_t i;

	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", localtime(&now));
	fprintf(f, "{\n  \"fio version\" : \"smb2bench-%s\",\n"
		"  \"timestamp\" : %ld,\n  \"time\" : \"%s\",\n"
		"  \"jobs\" : [\n", RINGSMB_VERSION, (long)now, when);
	for (i = 0; i < n; i++) {
		json_job(f, &jobs[i]);
		fprintf(f, "%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ],\n  \"smb2bench\" : {\n    \"share\" : ");
	json_str(f, talloc_asprintf(jobs, "//%s/%s", o->smb.host,
				    o->smb.share));
	fprintf(f, ",\n    \"bytes\" : %" PRIu64 ",\n"
		"    \"wall_s\" : %f,\n    \"client_cpu_s\" : %f,\n"
		"    \"client_cpu_s_per_gib\" : %f", t->bytes, t->wall_s,
		t->client_cpu_s,
		t->bytes > 0 ? t->client_cpu_s * GIB / (double)t->bytes : 0);
	fprintf(f, ",\n    \"ops\" : %" PRIu64 ",\n"
		"    \"client_cpu_us_per_op\" : %f", t->ops,
		t->ops > 0 ? t->client_cpu_s * 1e6 / (double)t->ops : 0);
	if (t->server_cpu_s >= 0) {
		fprintf(f, ",\n    \"server_cpu_s\" : %f,\n"
			"    \"server_cpu_s_per_gib\" : %f,\n"
			"    \"server_cpu_us_per_op\" : %f", t->server_cpu_s,
			t->bytes > 0 ? t->server_cpu_s * GIB /
					       (double)t->bytes : 0,
			t->ops > 0 ? t->server_cpu_s * 1e6 / (double)t->ops :
				     0);
	}
	json_all_chans(f, jobs, n);
	fprintf(f, "\n  }\n}\n");
}

static void normal_dir(FILE *f, const struct job *j, int d)
{
	const struct dir_stats *s = &j->dir[d];
	double sec = secs(j);
	double bw = sec > 0 ? (double)s->io_bytes / sec : 0;
	size_t i;

	if (s->ios == 0) {
		return;
	}
	fprintf(f, "  %s: IOPS=%.0f, BW=%.1fMiB/s (%.1fMB/s)(%.1fMiB/%.0fmsec)\n",
		dir_name[d], (double)s->ios / sec, bw / 1048576.0, bw / 1e6,
		(double)s->io_bytes / 1048576.0, sec * 1000);
	fprintf(f, "    clat (usec): min=%.1f, max=%.1f, avg=%.2f, "
		"stdev=%.2f\n", s->clat.min / 1e3, s->clat.max / 1e3,
		lat_mean(&s->clat) / 1e3, lat_stddev(&s->clat) / 1e3);
	fprintf(f, "    clat percentiles (usec):");
	for (i = 0; i < NPCTS; i++) {
		fprintf(f, "%s%5.2fth=[%.0f]", i % 4 == 0 ? "\n     | " : ", ",
			pcts[i], lat_percentile(&s->clat, pcts[i]) / 1e3);
	}
	fprintf(f, "\n");
}

/* A job's channels and a listing's entries, when it has them. */
static void normal_extra(FILE *f, const struct job *j)
{
	unsigned k;

	for (k = 0; j->nchans > 1 && k < j->nchans; k++) {
		fprintf(f, "  channel %u    : %s, %" PRIu64 " requests%s\n", k,
			j->chans[k].addr, j->chans[k].requests,
			j->chans[k].lost ? ", lost" : "");
	}
	if (j->o->rw == RW_LISTDIR) {
		fprintf(f, "  entries      : %" PRIu64 "\n", j->entries);
	}
}

void report_normal(FILE *f, const struct bench_opts *o, struct job *jobs,
		   size_t n, const struct bench_totals *t)
{
	size_t i;
	int d;

	for (i = 0; i < n; i++) {
		const struct job *j = &jobs[i];
		double s = secs(j);

		fprintf(f, "%s: (groupid=0, jobs=1): err=%2d: file=%s\n",
			j->o->name, j->err != NULL ? 1 : 0, j->filename);
		if (j->err != NULL) {
			fprintf(f, "  error: %s\n", j->err);
		}
		for (d = 0; d < DIR_COUNT; d++) {
			normal_dir(f, j, d);
		}
		fprintf(f, "  cpu          : usr=%.2f%%, sys=%.2f%%\n",
			s > 0 ? 100 * j->usr_s / s : 0,
			s > 0 ? 100 * j->sys_s / s : 0);
		if (j->o->verify) {
			fprintf(f, "  verify       : %" PRIu64 " bytes equal to "
				"the pattern, %" PRIu64 " errors\n",
				j->verify_bytes, j->verify_errors);
		}
		normal_extra(f, j);
	}
	fprintf(f, "\nRun status: %.1f MiB in %.2f s = %.1f MiB/s on //%s/%s\n",
		(double)t->bytes / 1048576.0, t->wall_s,
		t->wall_s > 0 ? (double)t->bytes / 1048576.0 / t->wall_s : 0,
		o->smb.host, o->smb.share);
	fprintf(f, "CPU per GiB: client %.3f s",
		t->bytes > 0 ? t->client_cpu_s * GIB / (double)t->bytes : 0);
	if (t->server_cpu_s >= 0) {
		fprintf(f, ", server %.3f s", t->bytes > 0 ?
			t->server_cpu_s * GIB / (double)t->bytes : 0);
	}
	fprintf(f, "\nCPU per operation: client %.1f us",
		t->ops > 0 ? t->client_cpu_s * 1e6 / (double)t->ops : 0);
	if (t->server_cpu_s >= 0) {
		fprintf(f, ", server %.1f us", t->ops > 0 ?
			t->server_cpu_s * 1e6 / (double)t->ops : 0);
	}
	fprintf(f, "\n");
}
