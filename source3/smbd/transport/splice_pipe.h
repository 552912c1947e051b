/*
 * Per-connection pipes for the splice read mode (docs/architecture.md, "Data
 * path modes").
 *
 * A READ in splice mode moves the file's bytes into pipes (file -> pipe,
 * no copy), answers with their exact count, and the transport sends the
 * header followed by the pipes' bytes (pipe -> socket).  A pipe holds at
 * most what the system lets it (fs.pipe-max-size, 1 MiB by default, for a
 * process without CAP_SYS_RESOURCE), so a large READ spreads over several
 * pipes, filled in order.  The pipes stay with the READ until its response
 * is sent.  A connection owns at most enough pipes for two READs of its
 * max read size; a READ that finds too few free is copied instead.
 */
#ifndef RINGSMB_SMBD_SPLICE_PIPE_H
#define RINGSMB_SMBD_SPLICE_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>
#include "lib/uring/uring.h"

struct smbd_conn;
struct smbd_pipe;

/* pipes one READ may use: one splice SQE each, linked after the header */
#define SMBD_SPLICE_READ_PIPES URING_SPLICE_SRC_MAX

/*
 * One READ's or WRITE's payload: src[i].len bytes in pipe i.  Freeing it
 * without smbd_splice_put (an error path, a dropped connection) closes
 * its pipes: they may hold bytes.
 */
struct smbd_pipe_pool;
struct smbd_splice {
	struct smbd_splice *prev, *next;        /* the pool's busy list */
	struct smbd_pipe_pool *pool;            /* NULL once the pool is gone */
	unsigned n;                     /* pipes held */
	unsigned nsrc;                  /* of them holding data: src[0..) */
	size_t chunk;                   /* bytes each pipe may take */
	struct smbd_pipe *pipe[SMBD_SPLICE_READ_PIPES];
	struct uring_splice_src src[SMBD_SPLICE_READ_PIPES];
	int wr[SMBD_SPLICE_READ_PIPES]; /* write ends, for the file side */
};

/*
 * Empty pipes for a payload of len bytes, under mem_ctx, or NULL (too
 * few free, len too large, pipe creation failed: copy instead).  The
 * pipes' src[i].len are set to what each should take (chunks of len in
 * order); nsrc is 0 until the caller fills them.
 */
struct smbd_splice *smbd_splice_get(struct smbd_conn *conn,
				    TALLOC_CTX *mem_ctx, size_t len);
/* Emptied pipes go back to the connection's pool; sp is freed. */
void smbd_splice_put(struct smbd_conn *conn, struct smbd_splice *sp);
/* Pipes that may still hold bytes are closed; sp is freed. */
void smbd_splice_discard(struct smbd_conn *conn, struct smbd_splice *sp);

/* For the log line at level 3: pipes made, capacity each, in use. */
void smbd_splice_stats(const struct smbd_conn *conn, unsigned *made,
		       size_t *cap, unsigned *busy);

#endif
