/*
 * The splice pipe pool (splice_pipe.h).
 *
 * Every pipe is made with the largest capacity the system allows up to
 * the connection's max read plus one page; it takes chunk = capacity -
 * one page bytes of a READ (data spliced from the page cache at an
 * offset that is not page aligned takes one pipe slot per page touched).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/util/unix_token.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/transport/splice_pipe.h"

#define SMBD_PIPE_SLACK 4096
/* one READ's worth twice over, at most */
#define SMBD_SPLICE_POOL_MAX (2 * SMBD_SPLICE_READ_PIPES)

struct smbd_pipe {
	int rd, wr;
};

struct smbd_pipe_pool {
	struct smbd_conn *conn;         /* whose conn->pipes this is */
	struct smbd_splice *busy;       /* handed out (weak links back) */
	struct smbd_pipe *idle[SMBD_SPLICE_POOL_MAX];
	unsigned num_idle;
	unsigned out;           /* held by READs and their responses */
	unsigned max;           /* pipes this connection may have */
	size_t cap;             /* of every pipe, once the first is made */
	bool broken;            /* pipe creation failed: stop trying */
};

static int smbd_pipe_destructor(struct smbd_pipe *p)
{
	if (p->rd != -1) {
		close(p->rd);
	}
	if (p->wr != -1) {
		close(p->wr);
	}
	return 0;
}

/* fs.pipe-max-size: what an unprivileged F_SETPIPE_SZ may ask for */
static size_t pipe_max_size(void)
{
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "re");
	unsigned long v = 0;

	if (f != NULL) {
		if (fscanf(f, "%lu", &v) != 1) {
			v = 0;
		}
		fclose(f);
	}
	return v;
}

/* A fresh pipe of want bytes, or of as much as the system allows. */
static struct smbd_pipe *smbd_pipe_new(TALLOC_CTX *mem_ctx, size_t want,
				       size_t *cap)
{
	struct smbd_pipe *p = talloc(mem_ctx, struct smbd_pipe);
	int fds[2];
	int got;

	if (p == NULL) {
		return NULL;
	}
	p->rd = p->wr = -1;
	talloc_set_destructor(p, smbd_pipe_destructor);
	/* the daemon's pipe, counted to it, not to the request's user */
	if (unix_token_become_root() != 0 || pipe2(fds, O_CLOEXEC) != 0) {
		DBG_WARNING("splice: pipe2: %s\n", strerror(errno));
		unix_token_unbecome();
		talloc_free(p);
		return NULL;
	}
	p->rd = fds[0];
	p->wr = fds[1];
	got = fcntl(p->wr, F_SETPIPE_SZ, (int)want);
	if (got < 0) {
		size_t max = pipe_max_size();

		if (max > 0 && max < want) {
			got = fcntl(p->wr, F_SETPIPE_SZ, (int)max);
		}
	}
	if (got < 0) {
		got = fcntl(p->wr, F_GETPIPE_SZ);
	}
	unix_token_unbecome();
	*cap = got > 0 ? (size_t)got : 0;
	return p;
}

/* The pool goes first (connection teardown): its splices outlive it. */
static int smbd_pipe_pool_destructor(struct smbd_pipe_pool *pool)
{
	struct smbd_splice *sp = NULL;

	while ((sp = pool->busy) != NULL) {
		DLIST_REMOVE_SIMPLE(pool->busy, sp);
		sp->pool = NULL;
	}
	/* whatever goes first at teardown, nobody finds a freed pool */
	if (pool->conn->pipes == pool) {
		pool->conn->pipes = NULL;
	}
	return 0;
}

/* Freed without smbd_splice_put: its pipes are closed with it. */
static int smbd_splice_destructor(struct smbd_splice *sp)
{
	if (sp->pool != NULL) {
		sp->pool->out -= sp->n;
		DLIST_REMOVE_SIMPLE(sp->pool->busy, sp);
		sp->pool = NULL;
	}
	return 0;
}

static struct smbd_pipe_pool *smbd_pipe_pool(struct smbd_conn *conn)
{
	struct smbd_pipe_pool *pool = conn->pipes;
	struct smbd_pipe *p = NULL;
	size_t need;

	if (pool != NULL) {
		return pool->broken ? NULL : pool;
	}
	pool = talloc_zero(conn, struct smbd_pipe_pool);
	if (pool == NULL) {
		return NULL;
	}
	pool->conn = conn;
	conn->pipes = pool;
	talloc_set_destructor(pool, smbd_pipe_pool_destructor);
	p = smbd_pipe_new(pool, (size_t)conn->max_read + SMBD_PIPE_SLACK,
			  &pool->cap);
	if (p == NULL || pool->cap <= SMBD_PIPE_SLACK) {
		pool->broken = true;
		talloc_free(p);
		return NULL;
	}
	pool->idle[pool->num_idle++] = p;
	need = ((size_t)conn->max_read + pool->cap - SMBD_PIPE_SLACK - 1) /
		(pool->cap - SMBD_PIPE_SLACK);
	pool->max = 2 * (need < SMBD_SPLICE_READ_PIPES ? need :
			 SMBD_SPLICE_READ_PIPES);
	DBG_NOTICE("%s: splice pipes of %zu bytes, up to %u\n", conn->peer,
		   pool->cap, pool->max);
	return pool;
}

/* One pipe from the pool, or a new one; NULL at the limit. */
static struct smbd_pipe *smbd_pipe_take(struct smbd_pipe_pool *pool)
{
	struct smbd_pipe *p = NULL;
	size_t cap = 0;

	if (pool->num_idle > 0) {
		p = pool->idle[--pool->num_idle];
	} else if (pool->out < pool->max) {
		p = smbd_pipe_new(pool, pool->cap, &cap);
		if (p != NULL && cap != pool->cap) {
			TALLOC_FREE(p);         /* the system changed its mind */
		}
	}
	if (p != NULL) {
		pool->out++;
	}
	return p;
}

/* Back to the pool (empty pipes) or closed; sp is freed. */
static void smbd_splice_release(struct smbd_splice *sp, bool reuse)
{
	struct smbd_pipe_pool *pool = sp->pool;
	unsigned i;

	if (pool != NULL) {
		for (i = 0; i < sp->n; i++) {
			if (reuse && pool->num_idle < SMBD_SPLICE_POOL_MAX) {
				pool->idle[pool->num_idle++] =
					talloc_steal(pool, sp->pipe[i]);
			}
		}
	}
	talloc_free(sp);        /* the destructor settles pool->out */
}

struct smbd_splice *smbd_splice_get(struct smbd_conn *conn,
				    TALLOC_CTX *mem_ctx, size_t len)
{
	struct smbd_pipe_pool *pool = smbd_pipe_pool(conn);
	struct smbd_splice *sp = NULL;
	size_t chunk, n, i;

	if (pool == NULL || len == 0) {
		return NULL;
	}
	chunk = pool->cap - SMBD_PIPE_SLACK;
	n = (len + chunk - 1) / chunk;
	if (n > SMBD_SPLICE_READ_PIPES ||
	    n > pool->num_idle + (pool->max - pool->out)) {
		return NULL;
	}
	sp = talloc_zero(mem_ctx, struct smbd_splice);
	if (sp == NULL) {
		return NULL;
	}
	sp->chunk = chunk;
	sp->pool = pool;
	DLIST_ADD_SIMPLE(pool->busy, sp);
	talloc_set_destructor(sp, smbd_splice_destructor);
	for (i = 0; i < n; i++) {
		struct smbd_pipe *p = smbd_pipe_take(pool);

		if (p == NULL) {
			smbd_splice_release(sp, true);
			return NULL;
		}
		sp->pipe[sp->n++] = talloc_steal(sp, p);
		sp->src[i].pipe_rd = p->rd;
		sp->src[i].len = len - i * chunk < chunk ? len - i * chunk :
			chunk;
		sp->wr[i] = p->wr;
	}
	return sp;
}

void smbd_splice_put(struct smbd_conn *conn, struct smbd_splice *sp)
{
	smbd_splice_release(sp, true);
}

void smbd_splice_discard(struct smbd_conn *conn, struct smbd_splice *sp)
{
	smbd_splice_release(sp, false);
}

void smbd_splice_stats(const struct smbd_conn *conn, unsigned *made,
		       size_t *cap, unsigned *busy)
{
	const struct smbd_pipe_pool *pool = conn->pipes;

	*made = pool != NULL ? pool->num_idle + pool->out : 0;
	*cap = pool != NULL ? pool->cap : 0;
	*busy = pool != NULL ? pool->out : 0;
}
