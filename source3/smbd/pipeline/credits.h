/*
 * Credits and the message-id window (MS-SMB2 3.3.1.1, 3.3.5.2.3).
 *
 * The client may use message ids in [low, low + range).  Each id is used
 * once; ids are retired from the bottom as they are used, and every
 * response extends the window by the credits it grants.  The window never
 * exceeds SMBD_MAX_CREDITS.
 */
#ifndef RINGSMB_SMBD_CREDITS_H
#define RINGSMB_SMBD_CREDITS_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

#define SMBD_MAX_CREDITS 8192

struct smbd_credits;

struct smbd_credits *smbd_credits_new(TALLOC_CTX *mem_ctx);
/*
 * Consumes the ids [mid, mid + charge).  False if any is outside the
 * window or already used: the client is broken or hostile (disconnect).
 */
bool smbd_credits_consume(struct smbd_credits *c, uint64_t mid,
			  uint16_t charge);
/* Credits to grant in a response to a request asking for 'requested'. */
uint16_t smbd_credits_grant(struct smbd_credits *c, uint16_t requested);
/*
 * Lowers the window's limit below SMBD_MAX_CREDITS: a credit lets the
 * client send 64 KiB, so the window never promises more receive buffer
 * than the server's 'smb2 max receive buffer' (issue 11).
 */
void smbd_credits_set_max(struct smbd_credits *c, uint32_t max);
/* The current window size (for tests and smbstatus). */
uint32_t smbd_credits_range(const struct smbd_credits *c);

#endif
