/*
 * Receive buffers that several PDUs share (transport.c): one RECV brings
 * several large WRITEs into one buffer, and each is handed to the pipeline
 * by reference, so its data goes to the VFS from where the kernel put it.
 * A buffer lives as long as its last reference: the transport's, a PDU's,
 * or one lib/uring holds while a RECV into it is in flight.
 */
#ifndef RINGSMB_SMBD_RBUF_H
#define RINGSMB_SMBD_RBUF_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

struct smbd_rbuf {
	struct smbd_rbuf *prev, *next;
	struct smbd_rbufs *set;         /* NULL once the transport is gone */
	unsigned refs;
	size_t size;
	uint8_t *data;
};

/* A connection's buffers, for the memory bound and the level 3 line. */
struct smbd_rbufs {
	struct smbd_rbuf *list;
	size_t bytes;                   /* of the buffers alive now */
	size_t peak;
};

/* Detaches the buffers still alive (held by PDUs) when freed. */
struct smbd_rbufs *smbd_rbufs_new(TALLOC_CTX *mem_ctx);

/*
 * A buffer of size bytes and a first reference to it, a talloc child of
 * mem_ctx: freeing the reference releases the buffer.  NULL on ENOMEM.
 */
void *smbd_rbuf_new(TALLOC_CTX *mem_ctx, struct smbd_rbufs *set, size_t size,
		    struct smbd_rbuf **prb);

/* Another reference, a talloc child of mem_ctx.  NULL on ENOMEM. */
void *smbd_rbuf_ref(TALLOC_CTX *mem_ctx, struct smbd_rbuf *rb);

#endif
