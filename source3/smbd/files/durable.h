/*
 * Durable handles (MS-SMB2 3.3.5.9.6, 3.3.5.9.7, 3.3.5.9.10, 3.3.5.9.12,
 * 3.3.7.1).  ringsmb is one process, so an open whose connection goes
 * simply stays in memory: detached from its tcon and session, listed on
 * the server, still holding its fd, share mode, byte-range locks and
 * oplock.  A CREATE with DHnC/DH2C on another connection of the same
 * user and share takes it over; a timer closes it after its timeout
 * (delete-on-close applies then).  Durability needs a batch oplock or
 * a lease with handle caching (v1 and v2); persistent handles are not
 * granted.
 */
#ifndef RINGSMB_SMBD_DURABLE_H
#define RINGSMB_SMBD_DURABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "source3/smbd/smbd.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

/* v1: what Windows and Samba wait (16 s); v2: 0 asks for 60 s, 300 s max */
#define SMBD_DURABLE_V1_TIMEOUT_MS	16000
#define SMBD_DURABLE_V2_DEFAULT_MS	60000
#define SMBD_DURABLE_V2_MAX_MS		300000

struct smbd_durable {
	bool v2;
	uint8_t create_guid[16];        /* v2 */
	uint32_t timeout_ms;
	char *owner;                    /* the session's user */
	char *share;                    /* the tcon's share name */
	uint8_t client_guid[16];        /* of the connection that opened it */
	uint32_t create_action;         /* what the CREATE did (replays) */
	bool has_app_instance;
	uint8_t app_instance_id[16];    /* SMB2_CREATE_APP_INSTANCE_ID */
	/* while disconnected */
	struct smbd_durable_vfs *vfs;
	struct tevent_timer *expire;
};

/* The durable timeout granted for a DH2Q Timeout (ms). */
uint32_t smbd_durable_v2_timeout(uint32_t requested);

/*
 * CREATE granted open: make it durable if d asks and it may be (a batch
 * oplock, not a directory, "durable handles = yes").  false: not durable
 * (no response context); NO_MEMORY leaves it not durable too.
 */
bool smbd_durable_grant(struct smbd_open *open,
			const struct smb2_durable_req *d,
			uint32_t create_action, const uint8_t *app_instance);

/*
 * A CREATE with DH2Q and an AppInstanceId (3.3.5.9.13): another open of
 * the same path on the same share with that AppInstanceId (an
 * application's earlier instance, e.g. on a failed-over node) is closed
 * without an oplock break.  One whose connection is running a command
 * is left alone.
 */
void smbd_durable_app_instance(struct smbd_tcon *tcon, const char *path,
			       const uint8_t id[16]);

/*
 * Who a session is for durable and replayed opens: its user, or
 * "\\guest" / "\\anonymous" (each a user of its own).
 */
const char *smbd_durable_owner(const struct smbd_session *s);

/*
 * Its tcon goes with its session (tcon->keep_durable): keep a durable
 * open disconnected.  false: it is not kept, the caller frees it.
 */
bool smbd_durable_disconnect(struct smbd_open *open);

/*
 * DHnC/DH2C (3.3.5.9.7, 3.3.5.9.12): the disconnected open d names
 * moves to tcon.  OBJECT_NAME_NOT_FOUND: no such disconnected open (or
 * the CreateGuid, version or share differ, or its lease is not lease);
 * INVALID_PARAMETER: a lease with another name than path; ACCESS_DENIED:
 * another user.
 */
struct smbd_lease_req;
NTSTATUS smbd_durable_reconnect(struct smbd_tcon *tcon,
				const struct smb2_durable_req *d,
				const struct smbd_lease_req *lease,
				const char *path, struct smbd_open **out);

/*
 * A CREATE that is not a stat open meets the file st: a disconnected
 * open's batch oplock cannot be broken, so it is closed (as Windows and
 * Samba do).  true: something was closed, look the name up again.
 */
bool smbd_durable_contend(struct smbd_server *server, const struct statx *st,
			  uint32_t access, uint32_t disposition);

/* An open goes away (destructor): a disconnected one leaves the list. */
void smbd_durable_gone(struct smbd_open *open);

/* Server shutdown: every disconnected open is closed. */
void smbd_durable_shutdown(struct smbd_server *server);

#endif
