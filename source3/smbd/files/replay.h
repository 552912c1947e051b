/*
 * Replayed CREATEs (MS-SMB2 3.3.5.9.10): a CREATE with a DH2Q context
 * names itself with a CreateGuid, so that a client that lost the
 * response (a dropped channel) can send it again with
 * SMB2_FLAGS_REPLAY_OPERATION and get the open it made instead of a
 * second one.  The open keeps its CreateGuid, durable or not, and stays
 * replay-eligible until another request uses it (Open.IsReplayEligible);
 * a CREATE still waiting for an oplock break is "pending": a replay of
 * it answers FILE_NOT_AVAILABLE, telling the client to try again later
 * (as Samba; Windows answers ACCESS_DENIED).
 */
#ifndef RINGSMB_SMBD_REPLAY_H
#define RINGSMB_SMBD_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "source3/smbd/smbd.h"

struct smbd_open_replay {
	uint8_t create_guid[16];
	uint8_t client_guid[16];        /* of the connection that opened it */
	uint32_t create_action;         /* what the CREATE did */
	/*
	 * The allocation it answered, in 512-byte blocks: a replay answers
	 * it again, not what an NT ACL's xattr block has added since
	 */
	uint64_t alloc_blocks;
	bool eligible;                  /* Open.IsReplayEligible */
};

/* A zero CreateGuid names nothing (no replay, no duplicate check). */
bool smbd_replay_guid_valid(const uint8_t create_guid[16]);

/*
 * A CREATE with DH2Q made open: remember its CreateGuid.  false: out of
 * memory (the open works, it just cannot be replayed).
 */
bool smbd_replay_remember(struct smbd_open *open, const uint8_t guid[16],
			  const uint8_t client_guid[16],
			  uint32_t create_action);

/* A request other than its CREATE used open: no longer replayable. */
void smbd_replay_touch(struct smbd_open *open);

/*
 * The connected, replay-eligible open with this CreateGuid, made by a
 * connection with s's ClientGuid and used by s's user, or NULL.
 */
struct smbd_open *smbd_replay_find(struct smbd_session *s,
				   const uint8_t create_guid[16]);

/*
 * A CREATE with this CreateGuid goes waiting: recorded until the
 * returned record (a talloc child of mem_ctx) is freed.  NULL: out of
 * memory (a replay then runs as a new CREATE).
 */
struct smbd_replay_pending *smbd_replay_pending_add(
	TALLOC_CTX *mem_ctx, struct smbd_session *s,
	const uint8_t create_guid[16]);

/*
 * The CREATE that added p was freed while waiting, with its connection,
 * but its tree connect lives on (the session has another channel): p
 * moves to tcon and stays until the file st changes as the CREATE was
 * waiting for (acknowledgment, close, timeout), so that a replay on the
 * other channel is still told FILE_NOT_AVAILABLE meanwhile and then
 * runs as a new CREATE (smbtorture smb2.replay.dhv2-pending2*).  The
 * original CREATE is not completed on its own (Samba completes it).
 */
void smbd_replay_pending_orphan(struct smbd_replay_pending *p,
				struct smbd_tcon *tcon,
				const struct statx *st);

/*
 * The waiting CREATE with this CreateGuid and s's ClientGuid other than
 * self, or NULL.
 */
const struct smbd_replay_pending *smbd_replay_pending_find(
	struct smbd_session *s, const uint8_t create_guid[16],
	const struct smbd_replay_pending *self);

#endif
