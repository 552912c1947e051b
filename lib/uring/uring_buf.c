/*
 * Registered buffers (IORING_REGISTER_BUFFERS): a small pool per ring.
 *
 * Each buffer is a talloc chunk, a child of the pool, registered once
 * with the kernel.  Who uses a buffer is told by talloc references, not
 * by a free list of our own: a lent buffer is referenced by its handle
 * (struct uring_buf), and every request whose SQEs point into it holds
 * its own reference on it as keep (lib/uring's lifetime rule 2).  So a
 * buffer is free exactly when nothing references it: a handle freed
 * while a READ_FIXED into the buffer or a SEND_ZC from it is still in
 * the kernel leaves the buffer referenced (unused) until the last CQE,
 * the notification of a zero-copy send included.  If the pool (the
 * ring) goes first, talloc moves a referenced buffer under its holder,
 * so the memory outlives the registration rather than the other way
 * round.
 *
 * The pool is small (URING_BUFS_MAX), so lookups scan it.
 */
#include <errno.h>
#include <string.h>
#include "lib/util/debug.h"
#include "lib/uring/uring_private.h"

#define URING_BUFS_MAX 64

struct uring_bufpool {
	size_t size;                    /* of each buffer */
	unsigned count;
	uint8_t *data[URING_BUFS_MAX];  /* talloc children of the pool */
};

static int uring_bufs_register(struct uring *r, struct uring_bufpool *p)
{
	struct iovec iov[URING_BUFS_MAX];
	unsigned i;

	for (i = 0; i < p->count; i++) {
		p->data[i] = talloc_size(p, p->size);
		if (p->data[i] == NULL) {
			return -ENOMEM;
		}
		iov[i] = (struct iovec){ .iov_base = p->data[i],
					 .iov_len = p->size };
	}
	return io_uring_register_buffers(&r->ring, iov, p->count);
}

int uring_bufs_setup(struct uring *ring, unsigned count, size_t size)
{
	struct uring_bufpool *p = NULL;
	int ret;

	if (ring == NULL) {
		return -ENOSYS;
	}
	if (ring->bufs != NULL) {
		return ring->bufs->size >= size ? 0 : -EEXIST;
	}
	if (ring->bufs_error != 0) {
		return ring->bufs_error;        /* tried once, logged once */
	}
	if (count == 0 || count > URING_BUFS_MAX || size == 0 ||
	    size > UINT32_MAX) {
		return -EINVAL;
	}
	p = talloc_zero(ring, struct uring_bufpool);
	if (p == NULL) {
		return -ENOMEM;
	}
	p->size = size;
	p->count = count;
	ret = uring_bufs_register(ring, p);
	if (ret != 0) {
		/* typically RLIMIT_MEMLOCK without CAP_IPC_LOCK */
		DBG_WARNING("io_uring: registering %u buffers of %zu bytes: "
			    "%s; reading into ordinary buffers\n", count, size,
			    strerror(-ret));
		talloc_free(p);
		ring->bufs_error = ret;
		return ret;
	}
	DBG_NOTICE("io_uring: registered %u buffers of %zu bytes\n", count,
		   size);
	ring->bufs = p;
	return 0;
}

struct uring_buf *uring_buf_get(TALLOC_CTX *mem_ctx, struct uring *ring,
				size_t len)
{
	struct uring_bufpool *p = ring != NULL ? ring->bufs : NULL;
	struct uring_buf *b = NULL;
	unsigned i;

	if (p == NULL || len > p->size) {
		return NULL;
	}
	for (i = 0; i < p->count; i++) {
		if (talloc_reference_count(p->data[i]) == 0) {
			break;
		}
	}
	if (i == p->count) {
		return NULL;    /* all lent or still in the kernel */
	}
	b = talloc_zero(mem_ctx, struct uring_buf);
	if (b == NULL || talloc_reference(b, p->data[i]) == NULL) {
		talloc_free(b);
		return NULL;
	}
	b->data = p->data[i];
	b->size = p->size;
	return b;       /* freeing b drops its reference (talloc) */
}

void uring_bufs_stats(struct uring *ring, unsigned *count, unsigned *idle)
{
	struct uring_bufpool *p = ring != NULL ? ring->bufs : NULL;
	unsigned i;

	*count = p != NULL ? p->count : 0;
	*idle = 0;
	for (i = 0; i < *count; i++) {
		*idle += talloc_reference_count(p->data[i]) == 0;
	}
}

int uring_buf_index(const struct uring *ring, const void *ptr, size_t len)
{
	const struct uring_bufpool *p = ring != NULL ? ring->bufs : NULL;
	uintptr_t u = (uintptr_t)ptr;
	unsigned i;

	if (p == NULL) {
		return -1;
	}
	for (i = 0; i < p->count; i++) {
		uintptr_t d = (uintptr_t)p->data[i];

		/* subtract, never add: u - d is checked before len */
		if (u >= d && u - d <= p->size && len <= p->size - (u - d)) {
			return (int)i;
		}
	}
	return -1;
}
