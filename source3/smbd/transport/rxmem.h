/*
 * The server-wide budget of memory for incomplete PDUs ('smb2 max
 * receive buffer', issue 11): a connection that needs a receive buffer
 * while the budget is spent stops reading its socket and waits; waiters
 * resume in the order they started waiting, as buffers complete or go.
 */
#ifndef RINGSMB_SMBD_RXMEM_H
#define RINGSMB_SMBD_RXMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>
#include <tevent.h>

struct smbd_rxmem;
struct smbd_rxmem_user;

typedef void (*smbd_rxmem_resume_fn)(void *private_data);

struct smbd_rxmem *smbd_rxmem_new(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev, size_t cap);
size_t smbd_rxmem_cap(const struct smbd_rxmem *m);
size_t smbd_rxmem_used(const struct smbd_rxmem *m);

/*
 * One connection's account; freeing it returns what it holds and ends
 * its wait.  resume is called (from the event loop, never from inside
 * a charge or release) once a wait may succeed.
 */
struct smbd_rxmem_user *smbd_rxmem_user_new(TALLOC_CTX *mem_ctx,
					    struct smbd_rxmem *m,
					    smbd_rxmem_resume_fn resume,
					    void *private_data);

/*
 * Takes n bytes of the budget.  A charge that would pass the cap fails,
 * unless nothing is charged at all (a PDU larger than the cap must not
 * wait forever); try_charge just fails, charge_or_wait also queues the
 * user to be resumed.
 */
bool smbd_rxmem_try_charge(struct smbd_rxmem_user *u, size_t n);
bool smbd_rxmem_charge_or_wait(struct smbd_rxmem_user *u, size_t n);
void smbd_rxmem_release(struct smbd_rxmem_user *u, size_t n);
bool smbd_rxmem_waiting(const struct smbd_rxmem_user *u);

#endif
