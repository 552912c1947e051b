/*
 * SMB2 leases (MS-SMB2 3.3.1.4 Lease, 3.3.1.13 LeaseTable, 3.3.4.7,
 * 3.3.5.9.8, 3.3.5.9.11, 3.3.5.22.2; MS-FSA 2.1.5.17 for what breaks).
 *
 * A lease is named by the client's ClientGuid and its LeaseKey and
 * covers every open the client makes of one file with that key, from
 * any session or connection.  One process serves all clients, so the
 * lease table is a list on the server; a lease lives as long as an open
 * uses it (open->lease, a disconnected durable open included).
 *
 * Caching states: R, RH, RW, RWH (none of W alone, H without R).  A
 * break that takes away W or H waits for the client's acknowledgment
 * (the CREATE that caused it waits on the file, as for oplocks, see
 * oplock.h); one from R to none does not.  While a break is in flight
 * the lease keeps its state and remembers the lowest state asked for
 * since (to_required): the acknowledgment may have to be followed by a
 * second break, taken in steps (RH -> R -> none) as Windows does.
 *
 * Directory leases (SMB 3.x, a v2 context): R or RH, never W.  The
 * directory's own opens break them as a file's (H on a rename, a delete
 * or a sharing violation, waited for); a change of an entry inside it
 * (created, overwritten, deleted, renamed in or out, linked, its
 * attributes, times or size set, or written and closed) breaks them to
 * none without waiting (MS-SMB2 3.3.1.4), except the lease of the
 * client whose open names it as its ParentLeaseKey.
 */
#ifndef RINGSMB_SMBD_LEASE_H
#define RINGSMB_SMBD_LEASE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "lib/util/ntstatus.h"
#include "source3/smbd/smbd.h"

#define SMBD_LEASE_R SMB2_LEASE_READ_CACHING
#define SMBD_LEASE_H SMB2_LEASE_HANDLE_CACHING
#define SMBD_LEASE_W SMB2_LEASE_WRITE_CACHING
#define SMBD_LEASE_RWH (SMBD_LEASE_R | SMBD_LEASE_H | SMBD_LEASE_W)

/*
 * Access that only reads or sets attributes or reads the security
 * descriptor: breaks no lease (smbtorture smb2.lease.statopen4; the
 * oplock rule, oplock.h, does not count READ_CONTROL).
 */
#define SMBD_LEASE_STAT_ACCESS (SMB2_FILE_READ_ATTRIBUTES | \
				SMB2_FILE_WRITE_ATTRIBUTES | \
				SMB2_READ_CONTROL | SMB2_SYNCHRONIZE)

/* What a CREATE asks for in its RqLs context, with its client. */
struct smbd_lease_req {
	uint8_t client_guid[16];
	uint8_t key[SMB2_LEASE_KEY_SIZE];
	uint8_t parent_key[SMB2_LEASE_KEY_SIZE];
	uint32_t state;                 /* requested */
	uint32_t flags;                 /* PARENT_LEASE_KEY_SET (v2) */
	uint16_t version;               /* 1 or 2 */
	uint16_t epoch;                 /* v2 */
	/* the connection negotiated DIRECTORY_LEASING: v2 on a directory */
	bool dir_ok;
};

struct smbd_lease {
	struct smbd_lease *prev, *next; /* server->leases */
	struct smbd_server *server;
	struct smbd_file *file;         /* what its opens are opens of */
	uint8_t client_guid[16];
	uint8_t key[SMB2_LEASE_KEY_SIZE];
	uint8_t parent_key[SMB2_LEASE_KEY_SIZE];
	bool has_parent;
	bool is_dir;                    /* a directory lease */
	uint16_t version;               /* of the CREATE that made it */
	uint16_t epoch;
	uint32_t state;
	/* a break sent, not yet acknowledged */
	bool breaking;
	uint32_t to_requested;          /* what the notification asked */
	uint32_t to_required;           /* what later conflicts ask */
	struct tevent_timer *timer;
	size_t num_opens;
};

/* The lease state a request may be granted at all: R, RH, RW, RWH or 0. */
uint32_t smbd_lease_legal(uint32_t requested);

/* What a directory may be granted of what was asked: R, RH or 0. */
uint32_t smbd_lease_dir_legal(uint32_t requested);

/* The lease of this client and key, or NULL. */
struct smbd_lease *smbd_lease_find(struct smbd_server *server,
				   const uint8_t client_guid[16],
				   const uint8_t key[SMB2_LEASE_KEY_SIZE]);

/*
 * Before opening: a lease key names one file (3.3.5.9.8).  If the key
 * already leases a file and path (share-relative, on the share rooted at
 * root; "file:stream" for a named stream, a file of its own) is not a
 * name of it, INVALID_PARAMETER.
 */
NTSTATUS smbd_lease_check_name(struct smbd_server *server,
			       const struct smbd_lease_req *req,
			       const char *root, const char *path);

/* Is this open an open of lease req (same client and key)? */
bool smbd_lease_is(const struct smbd_lease *l,
		   const struct smbd_lease_req *req);

/*
 * What a new open does to the leases of file st's other opens (its own
 * lease, own, is left alone): the breaks MS-FSA 2.1.5.17 and Samba send,
 * sent here.  true: the new open must wait (an acknowledgment is due,
 * or, when retry, a break is still in flight).
 */
bool smbd_lease_contend_open(struct smbd_server *server,
			     const struct statx *st, uint32_t access,
			     bool truncates, bool sharing_violation,
			     const struct smbd_lease_req *own, bool retry);

/*
 * The state a new lease request may be granted on file st, given the
 * file's other opens (stat opens do not count): no W next to another
 * open, no H next to an open without a lease; "level2 oplocks = no"
 * grants nothing without W.
 */
uint32_t smbd_lease_grant_state(struct smbd_server *server,
				const struct statx *st,
				const struct smbd_lease_req *req,
				bool stat_open, bool level2);

/* Does another open's lease on f hold H (no oplock for a new open)? */
bool smbd_lease_file_has_handle(struct smbd_server *server,
				const struct statx *st);

/*
 * The new open joins lease req: made with state granted, or an existing
 * one upgraded when granted is what was asked, a superset of what it
 * holds, and no break is in flight.  NO_MEMORY only.
 */
NTSTATUS smbd_lease_attach(struct smbd_open *open,
			   const struct smbd_lease_req *req,
			   uint32_t granted);

/* open leaves its lease (close, teardown); the last one ends it. */
void smbd_lease_detach(struct smbd_open *open);

/*
 * Break lease l to (at most) to: see the state machine above.  Sends
 * the notification through server->hooks.lease_break.
 */
void smbd_lease_break(struct smbd_lease *l, uint32_t to);

/*
 * WRITE, truncation, a byte-range lock through open: every other lease
 * of its file that holds R is broken to none (MS-FSA 2.1.4.12), no
 * waiting.
 */
void smbd_lease_contend_level2(struct smbd_open *open);

/*
 * A rename or delete through open: the other leases of its file lose H
 * (MS-FSA 2.1.5.14.2); nothing waits for the acknowledgment.
 */
void smbd_lease_contend_handle(struct smbd_open *open);

/*
 * A rename, or a delete-pending set, through open, before it is done:
 * the other leases lose H as above.  true: one of them owes an
 * acknowledgment for H; the rename or delete should wait for it
 * (smbtorture smb2.lease.rename_wait).
 */
bool smbd_lease_contend_rename(struct smbd_open *open);

/*
 * The same for a CREATE with DELETE_ON_CLOSE of file st, before it
 * opens (own: its lease request, or NULL): true, it should wait.
 */
bool smbd_lease_contend_delete(struct smbd_server *server,
			       const struct statx *st,
			       const struct smbd_lease_req *own);

/*
 * The client's Lease Break Acknowledgment (3.3.5.22.2): the lease of
 * client_guid and key (OBJECT_NAME_NOT_FOUND if none), no break in
 * flight UNSUCCESSFUL, a state not within what the break asked
 * REQUEST_NOT_ACCEPTED.  *state is what the lease holds now.
 */
NTSTATUS smbd_lease_ack(struct smbd_server *server,
			const uint8_t client_guid[16],
			const uint8_t key[SMB2_LEASE_KEY_SIZE],
			uint32_t ack_state, uint32_t *state);

/*
 * The entry path (share-relative, on open's share) of a directory was
 * added, removed or changed through open: the leases of that directory
 * are broken to none, none waited for, except the one open's lease
 * names as its parent (same client, ParentLeaseKey).  Free when no
 * directory has a lease; otherwise one O_PATH open of the directory.
 */
void smbd_lease_contend_parent(struct smbd_open *open, const char *path);

/* The response context of open's lease (2.2.14.2.10, 2.2.14.2.11). */
void smbd_lease_response(const struct smbd_lease *l, struct smb2_lease *out);

#endif
