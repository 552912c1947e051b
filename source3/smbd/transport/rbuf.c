/*
 * Refcounted receive buffers (rbuf.h).  The buffer itself has no talloc
 * parent: its references may end up under different parents (a compound,
 * a VFS write that outlives a cancelled request, a ring op record), and
 * it must outlive all of them, whichever goes last.  Each reference is a
 * small talloc object whose destructor drops one count.
 */
#include "lib/util/dlist.h"
#include "source3/smbd/transport/rbuf.h"

struct smbd_rbuf_hold {
	struct smbd_rbuf *rb;
};

static int rbufs_destructor(struct smbd_rbufs *set)
{
	struct smbd_rbuf *rb = NULL;

	for (rb = set->list; rb != NULL; rb = rb->next) {
		rb->set = NULL;
	}
	return 0;
}

struct smbd_rbufs *smbd_rbufs_new(TALLOC_CTX *mem_ctx)
{
	struct smbd_rbufs *set = talloc_zero(mem_ctx, struct smbd_rbufs);

	if (set != NULL) {
		talloc_set_destructor(set, rbufs_destructor);
	}
	return set;
}

static int hold_destructor(struct smbd_rbuf_hold *h)
{
	struct smbd_rbuf *rb = h->rb;

	if (--rb->refs > 0) {
		return 0;
	}
	if (rb->set != NULL) {
		rb->set->bytes -= rb->size;
		DLIST_REMOVE_SIMPLE(rb->set->list, rb);
	}
	talloc_free(rb);
	return 0;
}

void *smbd_rbuf_ref(TALLOC_CTX *mem_ctx, struct smbd_rbuf *rb)
{
	struct smbd_rbuf_hold *h = talloc(mem_ctx, struct smbd_rbuf_hold);

	if (h == NULL) {
		return NULL;
	}
	h->rb = rb;
	rb->refs++;
	talloc_set_destructor(h, hold_destructor);
	return h;
}

void *smbd_rbuf_new(TALLOC_CTX *mem_ctx, struct smbd_rbufs *set, size_t size,
		    struct smbd_rbuf **prb)
{
	/* the header rounded up, so that the data is 16-byte aligned */
	size_t hdr = (sizeof(struct smbd_rbuf) + 15) & ~(size_t)15;
	struct smbd_rbuf *rb = talloc_size(NULL, hdr + size);
	void *h = NULL;

	if (rb == NULL) {
		return NULL;
	}
	talloc_set_name_const(rb, "struct smbd_rbuf");
	*rb = (struct smbd_rbuf){ .set = set, .size = size,
				  .data = (uint8_t *)rb + hdr };
	h = smbd_rbuf_ref(mem_ctx, rb);
	if (h == NULL) {
		talloc_free(rb);
		return NULL;
	}
	DLIST_ADD_SIMPLE(set->list, rb);
	set->bytes += size;
	if (set->bytes > set->peak) {
		set->peak = set->bytes;
	}
	*prb = rb;
	return h;
}
