/*
 * The users' SIDs, from Samba's own files (docs/accounts.md "SIDs"):
 *
 *  - the domain SID from `private dir`/secrets.tdb, key
 *    "SECRETS/SID/<NETBIOS NAME>"; made (random, as Samba makes it) and
 *    stored there when missing, so it stays the same across restarts and
 *    Samba started on the same private dir uses it too;
 *  - with `passdb backend = tdbsam[:PATH]` (Samba's default), the RIDs
 *    Samba's tdbsam gave its users (PATH, default `private dir`/
 *    passdb.tdb), read only;
 *  - every other smbpasswd user: Samba's algorithmic RID, uid * 2 +
 *    `algorithmic rid base`.
 *
 * A uid or RID tdbsam already names is never given twice.  Without a
 * domain SID (secrets.tdb cannot be read or written) every user keeps
 * its Unix SID S-1-22-1-uid, and the reason is logged.
 */
#ifndef RINGSMB_SMBD_SIDMAP_H
#define RINGSMB_SMBD_SIDMAP_H

#include "source3/smbd/smbd.h"

/* At start and at SIGHUP: read the files, build server->sid_map. */
void smbd_sidmap_load(struct smbd_server *server);

/* After a passdb lookup: rebuild when the smbpasswd file was reloaded. */
void smbd_sidmap_refresh(struct smbd_server *server);

#endif
