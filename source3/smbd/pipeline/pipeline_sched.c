/*
 * Which queued compounds of a connection may start (pipeline.c keeps the
 * queue in arrival order and runs them).
 *
 * The head always may.  Behind it, lone READs and WRITEs (not in a
 * compound) start while everything ahead of them is running lone I/O, as
 * a client at queue depth > 1 sends them, so that their file I/O goes to
 * the ring in one submission.  One that overlaps a running WRITE (or a
 * WRITE that overlaps running I/O) waits, so overlapping I/O keeps its
 * order; anything else (a CLOSE, a SET_INFO) waits until all of them are
 * done, so nothing overtakes I/O on its handle.
 */
#include <stdint.h>
#include "lib/util/byteorder.h"
#include "lib/util/dlist.h"
#include "source3/smbd/pipeline/dispatch.h"
#include "source3/smbd/pipeline/pipeline_private.h"
#include "source3/smbd/transport/transport.h"

/* The queue in arrival order; the transport pauses while it is full. */
void smbd_compound_enqueue(struct smbd_compound *c)
{
	struct smbd_pipeline *p = c->conn->pipeline;

	DLIST_ADD_END_SIMPLE(p->queue, c);
	c->queued = true;
	if (++p->queued >= SMBD_MAX_QUEUED) {
		smbd_transport_pause(c->conn, true);
	}
}

void smbd_compound_unqueue(struct smbd_compound *c)
{
	struct smbd_pipeline *p = c->conn->pipeline;

	if (!c->queued) {
		return;
	}
	c->queued = false;
	DLIST_REMOVE_SIMPLE(p->queue, c);
	if (p->queued-- == SMBD_MAX_QUEUED) {
		smbd_transport_pause(c->conn, false);
	}
}

void smbd_compound_drop(struct smbd_compound *c)
{
	smbd_compound_unqueue(c);
	talloc_free(c);
}

/*
 * A READ or WRITE alone in its PDU (not a compound, not a spliced WRITE):
 * may run beside other lone I/O.  *write tells which; [*off, *end) the
 * bytes it touches, from its body (the dispatch table has where Length
 * and Offset are; of the two, WRITE is the one that changes the file).
 * A WRITE at the end of file (Offset 2^64-1) or a range that wraps
 * touches everything.
 */
static bool lone_io(const struct smbd_compound *c, bool *write,
		    uint64_t *off, uint64_t *end)
{
	const struct smb2_pdu *pdu = &c->pdus[0];
	const struct smbd_cmd *sc = smbd_cmd_lookup(pdu->hdr.command);
	uint64_t len;

	if (c->count != 1 || c->conn->dialect == 0 || sc == NULL ||
	    sc->io_offset_ofs == 0 || !NT_STATUS_IS_OK(pdu->status) ||
	    c->in_splice != NULL ||
	    pdu->body_len < (size_t)sc->io_offset_ofs + 8) {
		return false;
	}
	*write = sc->may_change;
	len = pull_le32(pdu->body + sc->charge_ofs);
	*off = pull_le64(pdu->body + sc->io_offset_ofs);
	*end = *off + len;
	if (*end < *off || (*write && *off == UINT64_MAX)) {
		*off = 0;
		*end = UINT64_MAX;
	}
	return true;
}

/* The bytes a lone READ will hold in memory (a WRITE's are in already). */
static size_t io_bytes(bool write, uint64_t off, uint64_t end)
{
	return write ? 0 : (size_t)(end - off);
}

/*
 * The first compound that may start now, or NULL: the head if it has not
 * started; else, while every started compound is lone I/O, the lone I/O
 * right behind them, if it is no WRITE overlapping a started one nor a
 * READ overlapping a started WRITE (so that overlapping I/O keeps its
 * order), up to SMBD_MAX_PARALLEL_READS requests and _BYTES of READs.
 */
static struct smbd_compound *next_to_start(struct smbd_pipeline *p)
{
	struct smbd_compound *c = NULL, *s = NULL;
	uint64_t off, end, soff, send;
	bool write, swrite;
	size_t bytes = 0;
	unsigned n = 0;

	for (c = p->queue; c != NULL && c->started; c = c->next) {
		if (!lone_io(c, &swrite, &soff, &send)) {
			return NULL;
		}
		bytes += io_bytes(swrite, soff, send);
		n++;
	}
	/* not decrypted (or verified) yet: nothing behind it may overtake */
	if (c == NULL || c->crypto_busy) {
		return NULL;
	}
	if (c == p->queue) {
		return c;
	}
	if (!lone_io(c, &write, &off, &end) ||
	    n >= SMBD_MAX_PARALLEL_READS ||
	    bytes + io_bytes(write, off, end) >
	    SMBD_MAX_PARALLEL_READ_BYTES) {
		return NULL;
	}
	for (s = p->queue; s != c; s = s->next) {
		lone_io(s, &swrite, &soff, &send);
		if ((write || swrite) && off < send && soff < end) {
			return NULL;
		}
	}
	return c;
}

/*
 * Starts what may start (next_to_start), one after another.  Never
 * re-entered: a compound that finishes while this runs (its response
 * queued, its place in the queue freed) lets the loop go on instead.
 */
void smbd_pipeline_start_next(struct smbd_pipeline *p)
{
	struct smbd_compound *c = NULL;
	unsigned i;

	if (p->starting) {
		return;
	}
	p->starting = true;
	/* bounded: each pass starts one compound of at most SMBD_MAX_QUEUED */
	for (i = 0; i <= SMBD_MAX_QUEUED && !p->conn->terminating; i++) {
		if (smbd_transport_congested(p->conn) ||
		    p->sealing_bytes > SMBD_MAX_SEALING_BYTES) {
			break;          /* smbd_pipeline_kick() resumes */
		}
		c = next_to_start(p);
		if (c == NULL) {
			break;
		}
		c->started = true;
		smbd_compound_next(c);       /* may finish (and free) c */
	}
	p->starting = false;
}
