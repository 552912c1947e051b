/*
 * Per-source-address back-off for failed logons (docs/architecture.md,
 * "Limits"): after a few failures from one address, its logon attempts are spaced
 * out, whatever connections they arrive on, so password guessing is slow.
 */
#ifndef RINGSMB_SMBD_LOGON_THROTTLE_H
#define RINGSMB_SMBD_LOGON_THROTTLE_H

#include <stdbool.h>
#include <sys/time.h>
#include <talloc.h>

/* Failures from one address before attempts are spaced out */
#define SMBD_THROTTLE_FREE_FAILURES 5
#define SMBD_THROTTLE_BASE_MS 250
#define SMBD_THROTTLE_MAX_MS 10000
/* An address is forgotten after this long without a failure */
#define SMBD_THROTTLE_FORGET_SECS 900
#define SMBD_THROTTLE_MAX_ADDRS 1024

struct smbd_throttle;

struct smbd_throttle *smbd_throttle_new(TALLOC_CTX *mem_ctx);
/*
 * When a logon attempt from addr may proceed: now, or a later time
 * reserved for it (each reservation pushes the next one back).
 */
struct timeval smbd_throttle_slot(struct smbd_throttle *t, const char *addr,
				  struct timeval now);
void smbd_throttle_failed(struct smbd_throttle *t, const char *addr,
			  struct timeval now);
void smbd_throttle_succeeded(struct smbd_throttle *t, const char *addr);
/* Failures recorded for addr (tests, smbstatus) */
unsigned smbd_throttle_failures(const struct smbd_throttle *t,
				const char *addr);

#endif
