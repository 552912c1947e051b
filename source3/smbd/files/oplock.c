/*
 * SMB2 oplocks: the grant/break decision at CREATE, breaks on WRITE and
 * truncation, acknowledgments and their timeout, and the CREATEs that
 * wait for a break (see oplock.h).
 *
 * One process serves every client, so a break is a flag and a timer on
 * the holder's open plus a notification on its connection; nothing
 * crosses a process boundary as in Samba's messaging.
 */
#include <string.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"
#include "source3/smbd/files/kernel_oplock.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

/*
 * The client learns of a break through the pipeline (its hook); a
 * disconnected durable open (durable.c) has nobody to tell.
 */
static void oplock_tell_client(struct smbd_open *open, uint8_t level)
{
	struct smbd_server *server = open->tcon != NULL ?
		open->tcon->session->conn->server : NULL;

	if (server != NULL && server->hooks.oplock_break != NULL) {
		server->hooks.oplock_break(open, level);
	}
}

/* A break sent to an EXCLUSIVE/BATCH holder, not yet acknowledged. */
struct smbd_oplock_break {
	struct smbd_open *open;
	uint8_t to;                     /* the level broken to */
	struct tevent_timer *timer;
};

struct smbd_oplock_waiter {
	struct smbd_oplock_waiter *prev, *next;
	struct smbd_file *f;            /* NULL once woken, or polling */
	struct tevent_timer *poll;
	smbd_oplock_wake_fn wake;
	void *private_data;
};

static bool level_exclusive(uint8_t level)
{
	return level == SMB2_OPLOCK_LEVEL_EXCLUSIVE ||
	       level == SMB2_OPLOCK_LEVEL_BATCH;
}

/* ---- the decision table ---- */

static uint8_t grant_level(const struct smbd_oplock_in *in)
{
	uint8_t r = in->requested;

	if (!in->oplocks || in->is_dir || in->stat_open ||
	    in->sharing_violation) {
		return SMB2_OPLOCK_LEVEL_NONE;
	}
	/* NONE, a lease (not granted) or a level that does not exist */
	if (r != SMB2_OPLOCK_LEVEL_II && !level_exclusive(r)) {
		return SMB2_OPLOCK_LEVEL_NONE;
	}
	if (in->others == 0 && in->held == SMB2_OPLOCK_LEVEL_NONE &&
	    level_exclusive(r)) {
		return r;
	}
	if (level_exclusive(in->held) || !in->level2) {
		return SMB2_OPLOCK_LEVEL_NONE;
	}
	return SMB2_OPLOCK_LEVEL_II;
}

void smbd_oplock_decide(const struct smbd_oplock_in *in,
			struct smbd_oplock_out *out)
{
	*out = (struct smbd_oplock_out){ .break_to = SMB2_OPLOCK_LEVEL_NONE };
	out->grant = grant_level(in);
	if (in->stat_open) {
		return;
	}
	/*
	 * MS-FSA 2.1.5.1.2: a sharing violation against a BATCH holder is
	 * final only after the break, since the holder may just close.
	 */
	if (level_exclusive(in->held) &&
	    (!in->sharing_violation ||
	     in->held == SMB2_OPLOCK_LEVEL_BATCH)) {
		out->break_exclusive = true;
		if (in->level2 && !in->truncates) {
			out->break_to = SMB2_OPLOCK_LEVEL_II;
		}
		out->grant = SMB2_OPLOCK_LEVEL_NONE;   /* decided again later */
		return;
	}
	if (in->held == SMB2_OPLOCK_LEVEL_II && in->truncates &&
	    !in->sharing_violation) {
		out->break_level2 = true;
	}
}

/* ---- waiters ---- */

static int waiter_destructor(struct smbd_oplock_waiter *w)
{
	if (w->f != NULL) {
		DLIST_REMOVE_SIMPLE(w->f->oplock_waiters, w);
	}
	return 0;
}

/* Each waiter leaves the list before it is told: wake may free it. */
static void wake_all(struct smbd_file *f)
{
	struct smbd_oplock_waiter *w = NULL;

	if (f == NULL) {
		return;
	}

	while ((w = f->oplock_waiters) != NULL) {
		DLIST_REMOVE_SIMPLE(f->oplock_waiters, w);
		w->f = NULL;
		w->wake(w->private_data);
	}
}

static bool break_in_progress(const struct smbd_file *f)
{
	const struct smbd_open *o = NULL;

	for (o = f->opens; o != NULL; o = o->file_next) {
		/* an oplock break, or a lease break not yet acknowledged */
		if (o->oplock_break != NULL ||
		    (o->lease != NULL && o->lease->breaking)) {
			return true;
		}
	}
	return false;
}

static void waiter_poll(struct tevent_context *ev, struct tevent_timer *te,
			struct timeval now, void *private_data)
{
	struct smbd_oplock_waiter *w = talloc_get_type_abort(
		private_data, struct smbd_oplock_waiter);

	w->poll = NULL;                 /* tevent frees it after this */
	if (w->f != NULL) {
		DLIST_REMOVE_SIMPLE(w->f->oplock_waiters, w);
		w->f = NULL;
	}
	w->wake(w->private_data);
}

struct smbd_oplock_waiter *smbd_oplock_wait(TALLOC_CTX *mem_ctx,
					    struct smbd_server *server,
					    const struct statx *st,
					    smbd_oplock_wake_fn wake,
					    void *private_data)
{
	struct smbd_file *f = smbd_file_find(server, st);
	struct smbd_oplock_waiter *w = NULL;

	w = talloc_zero(mem_ctx, struct smbd_oplock_waiter);
	if (w == NULL) {
		return NULL;
	}
	w->wake = wake;
	w->private_data = private_data;
	talloc_set_destructor(w, waiter_destructor);
	if (f != NULL) {
		w->f = f;
		DLIST_ADD_END_SIMPLE(f->oplock_waiters, w);
	}
	/*
	 * No break of ours will end: the open waits for a lease held
	 * outside smbd (kernel_oplock.c), which tells nobody when it goes.
	 */
	if (f == NULL || !break_in_progress(f)) {
		w->poll = tevent_add_timer(
			server->ev, w,
			tevent_timeval_current_ofs(0, SMBD_OPLOCK_POLL_USECS),
			waiter_poll, w);
		if (w->poll == NULL) {
			TALLOC_FREE(w);
		}
	}
	return w;
}

struct smbd_oplock_waiter *smbd_oplock_wait_open(TALLOC_CTX *mem_ctx,
						 struct smbd_open *open,
						 smbd_oplock_wake_fn wake,
						 void *private_data)
{
	struct smbd_oplock_waiter *w = NULL;

	if (open->file == NULL) {
		return NULL;
	}
	w = talloc_zero(mem_ctx, struct smbd_oplock_waiter);
	if (w == NULL) {
		return NULL;
	}
	w->f = open->file;
	w->wake = wake;
	w->private_data = private_data;
	DLIST_ADD_END_SIMPLE(open->file->oplock_waiters, w);
	talloc_set_destructor(w, waiter_destructor);
	return w;
}

/* ---- breaks of EXCLUSIVE/BATCH, acknowledged or timed out ---- */

static int break_destructor(struct smbd_oplock_break *b)
{
	if (b->open->oplock_break == b) {
		b->open->oplock_break = NULL;
	}
	return 0;
}

/* The break is over: open keeps level, waiting CREATEs look again. */
static void break_end(struct smbd_open *open, uint8_t level)
{
	open->oplock_level = level;
	TALLOC_FREE(open->oplock_break);
	smbd_kernel_oplock_release(open);
	if (open->file != NULL) {
		wake_all(open->file);
	}
}

/*
 * MS-SMB2 3.3.2.1 oplock break acknowledgment timer: the holder is
 * treated as having given up its oplock.
 */
static void break_timeout(struct tevent_context *ev, struct tevent_timer *te,
			  struct timeval now, void *private_data)
{
	struct smbd_oplock_break *b = talloc_get_type_abort(
		private_data, struct smbd_oplock_break);
	struct smbd_open *open = b->open;

	DBG_NOTICE("oplock break of %s not acknowledged in time\n",
		   open->name);
	b->timer = NULL;                /* tevent frees it after this */
	break_end(open, SMB2_OPLOCK_LEVEL_NONE);
}

static void break_start(struct smbd_open *open, uint8_t to)
{
	struct smbd_server *server = open->server;
	struct smbd_oplock_break *b = talloc_zero(open,
						  struct smbd_oplock_break);

	if (b != NULL) {
		b->open = open;
		b->to = to;
		b->timer = tevent_add_timer(
			server->ev, b,
			tevent_timeval_current_ofs(
				server->lp->g.oplock_break_timeout, 0),
			break_timeout, b);
	}
	if (b == NULL || b->timer == NULL) {
		/* cannot wait for it: the oplock ends now */
		DBG_ERR("out of memory breaking an oplock of %s\n",
			open->name);
		TALLOC_FREE(b);
		open->oplock_level = SMB2_OPLOCK_LEVEL_NONE;
		smbd_kernel_oplock_release(open);
	} else {
		open->oplock_break = b;
		talloc_set_destructor(b, break_destructor);
	}
	oplock_tell_client(open, to);
}

void smbd_oplock_break_local(struct smbd_open *open)
{
	if (level_exclusive(open->oplock_level) &&
	    open->oplock_break == NULL) {
		break_start(open, SMB2_OPLOCK_LEVEL_NONE);
	}
}

/* ---- CREATE ---- */

static bool disp_truncates(uint32_t disposition)
{
	return disposition == SMB2_FILE_SUPERSEDE ||
	       disposition == SMB2_FILE_OVERWRITE ||
	       disposition == SMB2_FILE_OVERWRITE_IF;
}

static bool is_stat_open(uint32_t access, uint32_t disposition)
{
	return (access & ~SMBD_OPLOCK_STAT_ACCESS) == 0 &&
	       !disp_truncates(disposition);
}

static void file_summary(const struct smbd_file *f,
			 struct smbd_oplock_in *in)
{
	const struct smbd_open *o = NULL;

	/*
	 * A stat open does not keep others from an exclusive oplock, but
	 * one that created the file holds what it was granted, and that
	 * is broken like any other (smbtorture smb2.oplock.batch9).
	 */
	for (o = f->opens; o != NULL; o = o->file_next) {
		if (o->oplock_level > in->held) {
			in->held = o->oplock_level;
		}
		if (!is_stat_open(o->access_mask, SMB2_FILE_OPEN)) {
			in->others++;
		}
	}
}

static struct smbd_open *exclusive_holder(const struct smbd_file *f)
{
	struct smbd_open *o = NULL;

	for (o = f->opens; o != NULL; o = o->file_next) {
		if (level_exclusive(o->oplock_level)) {
			return o;
		}
	}
	return NULL;
}

static void break_level2_all(struct smbd_file *f)
{
	struct smbd_open *o = NULL;

	for (o = f->opens; o != NULL; o = o->file_next) {
		if (o->oplock_level == SMB2_OPLOCK_LEVEL_II) {
			o->oplock_level = SMB2_OPLOCK_LEVEL_NONE;
			oplock_tell_client(o, SMB2_OPLOCK_LEVEL_NONE);
		}
	}
}

static void share_in(const struct smbd_tcon *tcon, struct smbd_oplock_in *in)
{
	in->oplocks = tcon->share->oplocks;
	/* a lease cannot be shared: kernel oplocks have no level II */
	in->level2 = tcon->share->level2_oplocks &&
		     !smbd_kernel_oplocks(tcon->share);
}

NTSTATUS smbd_oplock_open(struct smbd_tcon *tcon, const struct statx *st,
			  uint32_t access, uint32_t disposition,
			  uint8_t requested, bool is_dir, bool may_wait,
			  NTSTATUS share_status, uint8_t *grant)
{
	struct smbd_file *f = smbd_file_find(tcon->session->conn->server, st);
	struct smbd_oplock_in in = {
		.requested = requested,
		.is_dir = is_dir,
		.stat_open = is_stat_open(access, disposition),
		.truncates = disp_truncates(disposition),
		.sharing_violation = NT_STATUS_EQUAL(
			share_status, NT_STATUS_SHARING_VIOLATION),
	};
	struct smbd_oplock_out out;
	struct smbd_open *holder = NULL;

	share_in(tcon, &in);
	if (f != NULL) {
		file_summary(f, &in);
	}
	smbd_oplock_decide(&in, &out);
	*grant = out.grant;
	if (out.break_level2) {
		break_level2_all(f);
	}
	if (!out.break_exclusive) {
		return share_status;
	}
	holder = exclusive_holder(f);
	if (holder != NULL && holder->oplock_break == NULL) {
		break_start(holder, out.break_to);
	}
	/* inside a compound: the break goes out, the open goes ahead */
	return may_wait ? NT_STATUS_PENDING : share_status;
}

uint8_t smbd_oplock_grant_new(struct smbd_tcon *tcon, uint8_t requested,
			      bool is_dir)
{
	struct smbd_oplock_in in = {
		.requested = requested,
		.is_dir = is_dir,
	};
	struct smbd_oplock_out out;

	share_in(tcon, &in);
	smbd_oplock_decide(&in, &out);
	return out.grant;
}

/* ---- WRITE, truncation, acknowledgment, close ---- */

void smbd_oplock_contend_level2(struct smbd_open *open)
{
	/* MS-FSA 2.1.4.12: every LEVEL_II oplock, the writer's own too */
	if (open->file != NULL) {
		break_level2_all(open->file);
	}
	/* and every other lease's R (not the writer's own lease) */
	smbd_lease_contend_level2(open);
}

NTSTATUS smbd_oplock_ack(struct smbd_open *open, uint8_t level,
			 uint8_t *new_level)
{
	struct smbd_oplock_break *b = open->oplock_break;

	*new_level = SMB2_OPLOCK_LEVEL_NONE;
	if (b == NULL) {
		return NT_STATUS_INVALID_OPLOCK_PROTOCOL;   /* as Samba */
	}
	if (level == SMB2_OPLOCK_LEVEL_LEASE) {
		break_end(open, SMB2_OPLOCK_LEVEL_NONE);
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* only the level broken to, or less */
	if ((level != SMB2_OPLOCK_LEVEL_NONE &&
	     level != SMB2_OPLOCK_LEVEL_II) || level > b->to) {
		break_end(open, SMB2_OPLOCK_LEVEL_NONE);
		return NT_STATUS_INVALID_OPLOCK_PROTOCOL;
	}
	break_end(open, level);
	*new_level = level;
	return NT_STATUS_OK;
}

void smbd_oplock_open_gone(struct smbd_open *open, struct smbd_file *f)
{
	open->oplock_level = SMB2_OPLOCK_LEVEL_NONE;
	TALLOC_FREE(open->oplock_break);
	smbd_lease_detach(open);
	wake_all(f);
}

void smbd_oplock_wake(struct smbd_file *f)
{
	wake_all(f);
}
