/*
 * The delayed write-time update (write_time.h).
 */
#include <time.h>
#include "lib/util/debug.h"
#include "lib/util/nttime.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/write_time.h"

struct smbd_open_write_time {
	struct smbd_open *open;
	struct tevent_timer *timer;     /* the first update, pending */
	bool holds;                     /* counted in write_time_holders */
	bool update_on_close;           /* written since the last update */
	bool user_set;                  /* the handle set LastWriteTime */
};

static bool wt_applies(const struct smbd_open *open)
{
	return open->file != NULL && !open->is_dir && open->fh != NULL &&
	       open->fh->stream == NULL;
}

/* The file's times on disk: mtime nt (atime left alone). */
static void wt_store(struct smbd_open *open, uint64_t nt)
{
	struct timespec ts[2] = {
		{ .tv_sec = 0, .tv_nsec = UTIME_OMIT },
		nttime_to_timespec(nt),
	};
	NTSTATUS status = vfs_fntimes_writer(open->fh, ts);

	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("%s: write time not stored: %s\n", open->name,
			   nt_errstr(status));
	}
}

/* The update: the file's write time becomes now. */
static void wt_update(struct smbd_open_write_time *wt)
{
	struct smbd_open *open = wt->open;
	uint64_t now = nttime_now();

	TALLOC_FREE(wt->timer);
	wt->update_on_close = false;
	open->file->write_time = now;
	wt_store(open, now);
}

static void wt_timer(struct tevent_context *ev, struct tevent_timer *te,
		     struct timeval tv, void *private_data)
{
	struct smbd_open_write_time *wt = private_data;

	wt->timer = NULL;
	wt_update(wt);
}

static int wt_destructor(struct smbd_open_write_time *wt)
{
	struct smbd_open *open = wt->open;

	if (wt->holds && open->file != NULL) {
		open->file->write_time_holders--;
		open->file->server->write_times_held--;
	}
	return 0;
}

void smbd_write_time_before_write(struct smbd_open *open)
{
	struct smbd_open_write_time *wt = open->write_time;
	struct smbd_file *f = open->file;
	struct smb2_file_meta m;

	if (wt != NULL) {
		wt->update_on_close = !wt->user_set;
		return;
	}
	if (!wt_applies(open)) {
		return;
	}
	wt = talloc_zero(open, struct smbd_open_write_time);
	if (wt == NULL) {
		return;                 /* the time moves with the write */
	}
	wt->open = open;
	open->write_time = wt;
	talloc_set_destructor(wt, wt_destructor);
	if (f->write_time_holders == 0) {
		/* the time clients see until the update */
		if (!NT_STATUS_IS_OK(smbd_open_meta(open, &m))) {
			return;
		}
		f->write_time = m.write_time;
		f->server->write_times_held++;
	} else {
		f->server->write_times_held++;
	}
	f->write_time_holders++;
	wt->holds = true;
	wt->update_on_close = true;
	wt->timer = tevent_add_timer(
		open->tcon->session->conn->ev, wt,
		tevent_timeval_current_ofs(0, SMBD_WRITE_TIME_DELAY_US),
		wt_timer, wt);
}

void smbd_write_time_flush(struct smbd_open *open)
{
	struct smbd_open_write_time *wt = open->write_time;

	if (wt != NULL && wt->holds && !wt->user_set &&
	    (wt->timer != NULL || wt->update_on_close)) {
		wt_update(wt);
	}
}

void smbd_write_time_user_set(struct smbd_open *open, uint64_t nt)
{
	struct smbd_open_write_time *wt = open->write_time;

	if (wt != NULL) {
		TALLOC_FREE(wt->timer);
		wt->update_on_close = false;
		wt->user_set = true;
	}
	if (open->file != NULL && open->file->write_time_holders > 0) {
		open->file->write_time = nt;    /* what others see too */
	}
}

void smbd_write_time_close(struct smbd_open *open)
{
	struct smbd_open_write_time *wt = open->write_time;
	struct smbd_file *f = open->file;

	if (wt == NULL) {
		return;
	}
	if (wt->holds && !wt->user_set && wt->update_on_close) {
		f->write_time = nttime_now();
	}
	if (wt->holds && f->write_time_holders == 1) {
		/* the last holder: the time seen goes to disk */
		wt_store(open, f->write_time);
	}
	TALLOC_FREE(open->write_time);
}

void smbd_write_time_meta(struct smbd_server *server,
			  const struct statx *st, struct smb2_file_meta *m)
{
	struct smbd_file *f = NULL;

	if (server->write_times_held == 0) {
		return;
	}
	f = smbd_file_find(server, st);
	if (f != NULL && f->write_time_holders > 0) {
		m->write_time = m->change_time = f->write_time;
	}
}
