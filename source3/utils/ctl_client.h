/*
 * The tools' side of smbd's control socket (source3/smbd/server/
 * control.h): smbstatus and smbcontrol.
 */
#ifndef RINGSMB_CTL_CLIENT_H
#define RINGSMB_CTL_CLIENT_H

#include <stddef.h>
#include <talloc.h>
#include "lib/util/kvrec.h"

/*
 * Sends one request line to the smbd that configfile (NULL: the
 * default, or the embedded default when there is none) names, and
 * parses its answer.  0 with *recs on "ok"; otherwise a message naming
 * prog went to stderr and the result is the tool's exit code (1).
 */
int ctl_request(TALLOC_CTX *mem_ctx, const char *prog, const char *configfile,
		const char *line, struct kvrec **recs, size_t *num);

#endif
