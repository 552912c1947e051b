/*
 * The users' SIDs (docs/accounts.md "SIDs", lib/auth/samsid.h), from the
 * SID file `private dir`/sids:
 *
 *  - its domain SID; the file is made with a new random domain SID (as
 *    Samba makes its own) when it is missing, so the SID stays the same
 *    across restarts;
 *  - the RIDs it names (imported from Samba's tdbsam by
 *    ringsmb-import-samba);
 *  - every other smbpasswd user: Samba's algorithmic RID, uid * 2 +
 *    `algorithmic rid base`.
 *
 * A uid or RID the file already names is never given twice.  Without a
 * domain SID (the file cannot be read or made, or has no domain line)
 * every user keeps its Unix SID S-1-22-1-uid, and the reason is logged.
 */
#ifndef RINGSMB_SMBD_SIDMAP_H
#define RINGSMB_SMBD_SIDMAP_H

#include "source3/smbd/smbd.h"

/* At start and at SIGHUP: read the file, build server->sid_map. */
void smbd_sidmap_load(struct smbd_server *server);

/* After a passdb lookup: rebuild when the smbpasswd file was reloaded. */
void smbd_sidmap_refresh(struct smbd_server *server);

#endif
