/*
 * The file layer (source3/smbd/files, libringsmb-smbd-files) driven
 * alone, without the wire (issue 12): a server, connection, session and
 * tree connect made here, a real VFS on a scratch directory, and the
 * layer's own entry points (smbd_create_open, smbd_open_new,
 * smbd_file_attach, ...) called as commands/create.c calls them.
 *
 * What the layer tells the layers above goes through server->hooks
 * (smbd.h); the hooks here record what they were told, so the tests
 * assert which oplock breaks were raised, for which open, to which
 * level.  Linked against the layer's library and those below it, never
 * the daemon: a call into a higher layer would not link.
 */
#ifndef RINGSMB_TESTS_SMBD_FILES_FIXTURE_H
#define RINGSMB_TESTS_SMBD_FILES_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tevent.h>
#include "tests/unit/unit.h"
#include "lib/param/param.h"
#include "lib/smb2/smb2.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/brlock.h"
#include "source3/smbd/files/handles.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/files/share_names.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/filename.h"
#include "source3/smbd/files/open_files.h"

#define assert_status(x, s) \
	assert_string_equal(nt_errstr(x), nt_errstr(NT_STATUS_##s))

#define R SMB2_FILE_READ_DATA
#define W SMB2_FILE_WRITE_DATA
#define D SMB2_DELETE
#define RA SMB2_FILE_READ_ATTRIBUTES
#define SR SMB2_FILE_SHARE_READ
#define SW SMB2_FILE_SHARE_WRITE
#define SD SMB2_FILE_SHARE_DELETE
#define SALL (SR | SW | SD)

#define LNONE SMB2_OPLOCK_LEVEL_NONE
#define LII SMB2_OPLOCK_LEVEL_II
#define LEXCL SMB2_OPLOCK_LEVEL_EXCLUSIVE
#define LBATCH SMB2_OPLOCK_LEVEL_BATCH

/* ---- what the hooks were told ---- */

#define MAX_RECORDS 32

struct break_rec {
	struct smbd_open *open;
	uint8_t level;
};

struct lease_rec {
	struct smbd_open *open;
	struct smb2_lease_break lb;
};

struct smbd_files_records {
	struct break_rec breaks[MAX_RECORDS];
	size_t num_breaks;
	struct lease_rec lease_breaks[MAX_RECORDS];
	size_t num_lease_breaks;
	struct smbd_open *pending[MAX_RECORDS];
	size_t num_pending;
};

/* ---- the fixture: server -> conn -> session -> tcon on a scratch dir ---- */

#define MAX_TCONS 8

struct fx {
	char dir[64];
	struct tevent_context *ev;
	struct loadparm *lp;
	struct smbd_server *server;
	struct smbd_conn *conn;
	struct smbd_session *session;   /* a trusted (user) session */
	struct smbd_tcon *tcon;         /* its tree connect of [sh] */
	struct smbd_tcon *tcons[MAX_TCONS];
	size_t num_tcons;
	struct smbd_conn *conns[MAX_TCONS];
	size_t num_conns;
};

/* ---- opening, as commands/create.c does it ---- */

struct oreq {
	uint32_t access;
	uint32_t share;
	uint32_t disp;                  /* 0: FILE_OPEN */
	uint32_t options;
	uint8_t oplock;
	bool may_wait;
	const struct smbd_lease_req *lease;     /* with oplock 0xFF */
	bool retry;
};
#define T(f) cmocka_unit_test_setup_teardown(f, unit_setup, fx_teardown)

extern struct smbd_files_records rec;
void hook_oplock_break(struct smbd_open *open, uint8_t level);
void hook_lease_break(struct smbd_open *open,
		      const struct smb2_lease_break *lb);
void hook_delete_pending(struct smbd_open *open);
struct loadparm *load_conf(TALLOC_CTX *ctx, const char *dir,
			   const char *global);
struct smbd_conn *fx_conn(struct fx *f, const char *addr);
/* A valid session; guest ones count against the untrusted quotas. */
struct smbd_session *fx_session(struct smbd_conn *conn, bool guest);
struct smbd_tcon *fx_tcon(struct fx *f, struct smbd_session *s,
			  const char *share);
void fx_path(const struct fx *f, const char *name, char *buf,
	     size_t len);
void write_file(const struct fx *f, const char *name,
		const char *data);
void make_dir(const struct fx *f, const char *name);
/* -1: the name does not exist */
off_t file_size(const struct fx *f, const char *name);
struct fx *fx_new(TALLOC_CTX *ctx, const char *global);
/*
 * Tree connects (with their opens) go first, then the connections, as
 * server.c frees them at exit: talloc frees a parent's children newest
 * first, and the server's file table and per-address counts are newer
 * than the connections that use them.
 */
void fx_free(struct fx *f);
int fx_teardown(void **state);
NTSTATUS open_on(struct smbd_tcon *tcon, const char *path,
		 struct oreq o, struct smbd_open **out);
struct smbd_open *must_open(struct smbd_tcon *tcon, const char *path,
			    struct oreq o);
struct statx open_statx(struct smbd_open *open);
size_t breaks_of(const struct smbd_open *open, uint8_t level);
size_t pending_of(const struct smbd_open *open);
void deadline_reached(struct tevent_context *ev,
		      struct tevent_timer *te, struct timeval now,
		      void *private_data);
/* Runs the loop until *flag is set, for at most secs seconds. */
void loop_until(struct fx *f, const unsigned *flag, int secs);

#endif
