/*
 * Shared by options.c, cmdline.c and jobfile.c only.
 */
#ifndef RINGSMB_SMB2BENCH_OPTIONS_H
#define RINGSMB_SMB2BENCH_OPTIONS_H

#include "source3/utils/smb2bench/smb2bench.h"

void job_opts_defaults(struct job_opts *j);
/*
 * Set one fio job option: 1 done, 0 not a job option, -1 a bad value
 * (*why says what the option takes).
 */
int job_opts_set(TALLOC_CTX *mem_ctx, struct job_opts *j, const char *key,
		 const char *value, const char **why);
/* Why a known fio option is refused, NULL if the key is unknown. */
const char *bench_refused_why(const char *key);
/* "unsupported option <shown>: <why>", why looked up by key */
char *bench_unknown(TALLOC_CTX *mem_ctx, const char *shown,
		    const char *key);

#endif
