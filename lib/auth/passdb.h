/*
 * The user database: Samba's smbpasswd text file, one user per line,
 *
 *   name:uid:LM hash:NT hash:[flags      ]:LCT-XXXXXXXX:
 *
 * NT hashes only: an LM hash in the file is ignored and never written
 * back (we always write 32 'X').  Malformed lines are reported as
 * "FILE:LINE: what" diagnostics and skipped, but kept verbatim, like
 * comments and blank lines, so that saving an edited database never loses
 * a line the administrator wrote.  Reference: docs/accounts.md.
 *
 * Functions that touch files return 0 or -errno and, on error, set *err
 * to a message naming the file (allocated on mem_ctx).
 */
#ifndef RINGSMB_PASSDB_H
#define RINGSMB_PASSDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/auth/auth.h"
#include "lib/util/ntstatus.h"

/* Longest line we parse, '\n' excluded (Samba writes < 200 bytes). */
#define PASSDB_MAX_LINE 1024
/* Longest user name, in bytes of UTF-8. */
#define PASSDB_MAX_NAME 256
/* Largest file we read. */
#define PASSDB_MAX_FILE (64 * 1024 * 1024)
/* The uid field written for a user without a Unix account ((uid_t)-1). */
#define PASSDB_NO_UID UINT32_MAX

/* Account flags (Samba's ACB_* letters in the [flags] field). */
#define PASSDB_ACB_DISABLED  0x0001	/* D */
#define PASSDB_ACB_HOMDIRREQ 0x0002	/* H */
#define PASSDB_ACB_PWNOTREQ  0x0004	/* N: no password required */
#define PASSDB_ACB_TEMPDUP   0x0008	/* T */
#define PASSDB_ACB_NORMAL    0x0010	/* U: a user account */
#define PASSDB_ACB_MNS       0x0020	/* M */
#define PASSDB_ACB_DOMTRUST  0x0040	/* I */
#define PASSDB_ACB_WSTRUST   0x0080	/* W: workstation trust */
#define PASSDB_ACB_SVRTRUST  0x0100	/* S: server trust */
#define PASSDB_ACB_PWNOEXP   0x0200	/* X: password does not expire */
#define PASSDB_ACB_AUTOLOCK  0x0400	/* L: locked out */

struct passdb;

/* A malformed line (line > 0) or a remark about the whole file. */
struct passdb_diag {
	struct passdb_diag *next;
	unsigned line;
	const char *message;	/* "FILE:LINE: what went wrong" */
};

/*
 * Load the file at path.  A missing file is an empty database (the
 * first save creates it).  -errno if it cannot be read, is not a regular
 * file (-EINVAL) or is larger than PASSDB_MAX_FILE (-EFBIG).
 */
int passdb_load(TALLOC_CTX *mem_ctx, const char *path, struct passdb **out,
		char **err);

/*
 * Parse text in memory (tests, fuzzing).  name is used in diagnostics;
 * the result has no file, so passdb_save() and passdb_reload_if_changed()
 * fail on it with -EINVAL.  NULL only when out of memory.
 */
struct passdb *passdb_parse_buffer(TALLOC_CTX *mem_ctx, const char *name,
				   const char *buf, size_t len);

/* Diagnostics of the last (re)load, in file order; owned by db. */
const struct passdb_diag *passdb_diags(const struct passdb *db);

/* Number of valid entries. */
size_t passdb_num_users(const struct passdb *db);

/* Grows by one at every (re)load that changed what is in memory. */
uint64_t passdb_generation(const struct passdb *db);

/* fn for each valid entry, in file order. */
void passdb_foreach_user(const struct passdb *db,
			 void (*fn)(const char *name, uint32_t uid,
				    void *private_data),
			 void *private_data);

/*
 * Case-insensitive lookup (names compared upper-cased, as NTLM does).
 * NT_STATUS_OK with the hash and disabled = flag D or L;
 * NT_STATUS_NO_SUCH_USER if there is no entry; NT_STATUS_LOGON_FAILURE if
 * the entry cannot log on (no NT hash, or not a user account: W/S/I).
 */
NTSTATUS passdb_lookup(const struct passdb *db, const char *user,
		       struct auth_user_entry *out);

/* Flags and uid of an entry; -ENOENT if there is none. */
int passdb_get_info(const struct passdb *db, const char *user,
		    uint32_t *uid, uint16_t *acb_flags);

/*
 * Editing, in memory until passdb_save().  user must be valid UTF-8,
 * 1..PASSDB_MAX_NAME bytes, without ':' or control characters (-EINVAL).
 * passdb_valid_name() says whether a name passes that check.
 * passdb_add: a new [U] account, -EEXIST if the name exists.
 * passdb_set_password: new hash and change time, clears N; -ENOENT.
 * passdb_delete, passdb_set_disabled: -ENOENT if there is no such user.
 */
bool passdb_valid_name(const char *user);
int passdb_add(struct passdb *db, const char *user, uint32_t uid,
	       const uint8_t nt_hash[AUTH_NT_HASH_SIZE]);
int passdb_set_password(struct passdb *db, const char *user,
			const uint8_t nt_hash[AUTH_NT_HASH_SIZE]);
int passdb_delete(struct passdb *db, const char *user);
int passdb_set_disabled(struct passdb *db, const char *user, bool disabled);

/*
 * The file text passdb_save() writes.  *out is wiped when freed.
 */
int passdb_format(const struct passdb *db, TALLOC_CTX *mem_ctx,
		  char **out, size_t *len);

/*
 * Write the database back to the file it was loaded from, atomically: a
 * temporary file in the same directory (mode 0600), fsync, rename over
 * the old file, fsync the directory.  A missing directory is created
 * with mode 0700.  On failure the old file is untouched and the
 * temporary file removed.
 */
int passdb_save(struct passdb *db, TALLOC_CTX *mem_ctx, char **err);

/*
 * Reload if the file changed since it was loaded or saved (inode, size,
 * mtime or ctime differ; a removed file is an empty database).
 * 0: unchanged, 1: reloaded, -errno: could not reload, db unchanged.
 */
int passdb_reload_if_changed(struct passdb *db, TALLOC_CTX *mem_ctx,
			     char **err);

/*
 * The lookup to put into auth_settings.users; valid while db lives.
 * Each lookup first calls passdb_reload_if_changed() (one stat), so
 * smbpasswd edits apply to the next session setup; a failed reload is
 * logged and the previous contents are used.  The domain is ignored.
 */
const struct auth_user_lookup *passdb_user_lookup(struct passdb *db);

/*
 * Samba's rule for the file's location: "smb passwd file" if it was
 * changed from its default, else "private dir"/smbpasswd.
 */
char *passdb_path_from_config(TALLOC_CTX *mem_ctx,
			      const char *smb_passwd_file,
			      const char *private_dir);

#endif
