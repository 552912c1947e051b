/*
 * TREE_CONNECT (MS-SMB2 3.3.5.7) and TREE_DISCONNECT (3.3.5.8).
 */
#include <string.h>
#include <strings.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/commands/pipe.h"
#include "source3/smbd/session/identity.h"
#include "source3/smbd/session/session.h"
#include "source3/smbd/session/share_access.h"
#include "source3/smbd/files/share_names.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/open_files.h"

/* vfs_handle.ring_write_min with several workers (docs/performance.md) */
#define SMBD_RING_WRITE_MIN (64 * 1024)

/* Samba's limit on share names (MS-SRVS allows 80 characters) */
#define SMBD_MAX_SHARE_NAME 80

/* Maximal access of a tree connect (MS-SMB2 2.2.10) */
#define SMBD_ACCESS_READ_ONLY 0x001200A9   /* read, execute, read attrs/EA,
					    * read control, synchronize */
#define SMBD_ACCESS_ALL       0x001F01FF
/* IPC$: read, write, read control and the rest, as from Samba */
#define SMBD_ACCESS_IPC       0x001F00A9

/*
 * "\\server\share" -> "share" (MS-SMB2 2.2.9: the path is a UNC name).
 * Anything else (no server part, more components, an empty or over-long
 * share name) names no share.
 */
static NTSTATUS share_name(TALLOC_CTX *mem_ctx, const struct smb2_blob *path,
			   const char **out)
{
	char *unc = NULL;
	char *name = NULL;
	NTSTATUS status;

	status = smb2_utf16_to_utf8(mem_ctx, path->data, path->len, &unc);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (unc[0] != '\\' || unc[1] != '\\') {
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	name = strchr(unc + 2, '\\');
	if (name == NULL || name == unc + 2) {
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	name++;
	if (name[0] == '\0' || strchr(name, '\\') != NULL ||
	    strlen(name) > SMBD_MAX_SHARE_NAME) {
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	*out = name;
	return NT_STATUS_OK;
}

/*
 * 'server smb encrypt' on the share (or [global]): required shares are
 * refused to sessions that cannot encrypt (MS-SMB2 3.3.5.7); desired
 * ones are encrypted when the session can.
 */
static NTSTATUS share_encryption(const struct smbd_session *s,
				 const struct lp_share *share, bool *encrypt)
{
	int enc = share->smb_encrypt;

	if (enc == LP_SMB_DEFAULT) {
		enc = s->conn->server->lp->g.smb_encrypt;
	}
	*encrypt = false;
	if (enc != LP_SMB_REQUIRED && enc != LP_SMB_DESIRED) {
		return NT_STATUS_OK;
	}
	if (s->crypto == NULL || s->conn->cipher_id == 0) {
		return enc == LP_SMB_REQUIRED ? NT_STATUS_ACCESS_DENIED :
			NT_STATUS_OK;
	}
	*encrypt = true;
	return NT_STATUS_OK;
}

/*
 * Modes of new files and directories, as Samba's unix_mode(): rw for
 * all (rwx for directories), masked by "create mask" / "directory mask",
 * plus the forced bits.  A new file carries the ARCHIVE attribute, which
 * Samba's default "map archive = yes" maps to the owner's x bit: 0766.
 * The daemon's umask is 0, so these are exact (a default POSIX ACL of
 * the directory still applies, as in Samba).
 */
static void tcon_modes(struct vfs_handle *vfs, const struct lp_share *share)
{
	mode_t file = share->map_archive ? 0766 : 0666;

	vfs->file_mode = (file & (mode_t)share->create_mask) |
		(mode_t)share->force_create_mode;
	vfs->dir_mode = (0777 & (mode_t)share->directory_mask) |
		(mode_t)share->force_directory_mode;
}

/*
 * The share root is opened as the tree connect's user: one who cannot
 * reach it gets ACCESS_DENIED, as from Samba.
 */
static NTSTATUS tcon_open(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
			  struct smbd_request *req,
			  const struct lp_share *share,
			  const struct smbd_share_grant *grant)
{
	struct smbd_server *server = req->conn->server;
	struct smbd_tcon *t = smbd_tcon_new(req->session);
	struct smbd_identity_ref *id = NULL;
	NTSTATUS status;

	if (t == NULL) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	t->share = share;
	t->read_only = grant->read_only;
	t->as_root = grant->as_root;
	t->as_guest = grant->as_guest;
	status = smbd_tcon_identity(t, req->session, share, t->as_root,
				    t->as_guest, &id);
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_connect(t, ev, share, server->ring != NULL,
				     smbd_identity_token(id), &t->vfs);
	}
	if (NT_STATUS_IS_OK(status)) {
		t->vfs->sid_map = &server->sid_map;
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("share [%s]: cannot connect to %s: %s\n",
			    share->name, share->path, nt_errstr(status));
		talloc_free(t);
		/* a path that is not there: no such share (Samba) */
		return NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND) ||
			NT_STATUS_EQUAL(status,
					NT_STATUS_OBJECT_PATH_NOT_FOUND) ?
			NT_STATUS_BAD_NETWORK_NAME : status;
	}
	t->identity = talloc_steal(t->vfs, id);
	/* several workers: large writes copy outside the server lock */
	t->vfs->ring_write_min = server->num_workers > 1 ?
		SMBD_RING_WRITE_MIN : 0;
	if (talloc_parent(share) == mem_ctx) {
		/* [homes], %U in path: lives as long as the handle */
		talloc_steal(t->vfs, share);
	}
	tcon_modes(t->vfs, share);
	status = smbd_share_names_attach(t->vfs, share);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(t);
		return status;
	}
	req->tcon = t;
	return NT_STATUS_OK;
}

/* The response of a tree connect made (req->tcon). */
static struct tevent_req *tcon_reply(TALLOC_CTX *mem_ctx,
				     struct tevent_context *ev,
				     struct smbd_request *req,
				     struct smb2_tcon_rsp *out, bool encrypt)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };

	req->tcon->encrypt_data = encrypt;
	if (encrypt) {
		out->share_flags |= SMB2_SHAREFLAG_ENCRYPT_DATA;
	}
	rsp.body = smb2_tcon_rsp_push(mem_ctx, out, &rsp.body_len);
	if (rsp.body == NULL) {
		TALLOC_FREE(req->tcon);
		return smbd_done_send(mem_ctx, ev, NT_STATUS_NO_MEMORY, NULL);
	}
	return smbd_done_send(mem_ctx, ev, NT_STATUS_OK, &rsp);
}

/*
 * IPC$ (share type PIPE): no VFS, the global encryption setting, opens
 * that are named pipes.
 */
static NTSTATUS tcon_ipc(TALLOC_CTX *mem_ctx, struct smbd_request *req,
			 struct smb2_tcon_rsp *out, bool *encrypt)
{
	const struct lp_share *share = NULL;
	struct smbd_tcon *t = NULL;
	NTSTATUS status = smbd_pipe_tcon(mem_ctx, req, &share);

	if (NT_STATUS_IS_OK(status)) {
		status = share_encryption(req->session, share, encrypt);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	t = smbd_tcon_new(req->session);
	if (t == NULL) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	t->share = talloc_steal(t, share);
	t->ipc = true;
	t->read_only = true;
	req->tcon = t;
	out->share_type = SMB2_SHARE_TYPE_PIPE;
	out->maximal_access = SMBD_ACCESS_IPC;
	return NT_STATUS_OK;
}

/* A share of smb.conf (or [homes]), as the session may use it. */
static NTSTATUS tcon_share(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
			   struct smbd_request *req, const char *name,
			   struct smb2_tcon_rsp *out, bool *encrypt)
{
	const struct lp_share *share = NULL;
	struct smbd_share_grant grant;
	NTSTATUS status;

	share = smbd_share_lookup(mem_ctx, req->session, name);
	if (share == NULL || !share->available) {
		DBG_INFO("%s: no share '%s'\n", req->conn->peer, name);
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	status = smbd_share_access(req->session, share, &grant);
	if (NT_STATUS_IS_OK(status)) {
		status = share_encryption(req->session, share, encrypt);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = tcon_open(mem_ctx, ev, req, share, &grant);
	}
	out->share_type = SMB2_SHARE_TYPE_DISK;
	out->maximal_access = grant.read_only ? SMBD_ACCESS_READ_ONLY :
		SMBD_ACCESS_ALL;
	return status;
}

struct tevent_req *smbd_tcon_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req)
{
	struct smb2_tcon_rsp out = {};
	struct smb2_tcon_req r;
	const char *name = NULL;
	bool encrypt = false;
	NTSTATUS status;

	status = smb2_tcon_req_pull(req->pdu, &r);
	if (NT_STATUS_IS_OK(status)) {
		status = share_name(mem_ctx, &r.path, &name);
	}
	if (NT_STATUS_IS_OK(status) && strcasecmp(name, "IPC$") == 0) {
		status = tcon_ipc(mem_ctx, req, &out, &encrypt);
	} else if (NT_STATUS_IS_OK(status)) {
		status = tcon_share(mem_ctx, ev, req, name, &out, &encrypt);
	}
	if (!NT_STATUS_IS_OK(status)) {
		/* level 1, for the admin (and fail2ban): who, what, why */
		DBGC_AT(DBGC_AUTH_AUDIT, 1, "tree connect to [%s] by user "
			"[%s] from [%s] refused: %s\n",
			name != NULL ? name : "?",
			req->session->anonymous ? "(anonymous)" :
			req->session->user != NULL ? req->session->user : "",
			req->conn->peer, nt_errstr(status));
		return smbd_done_send(mem_ctx, ev, status, NULL);
	}
	return tcon_reply(mem_ctx, ev, req, &out, encrypt);
}

NTSTATUS smbd_tcon_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}

struct tevent_req *smbd_tdis_send(TALLOC_CTX *mem_ctx,
				  struct tevent_context *ev,
				  struct smbd_request *req)
{
	struct smbd_response rsp = { .status = NT_STATUS_OK };
	NTSTATUS status = smb2_tdis_req_pull(req->pdu);

	if (!NT_STATUS_IS_OK(status)) {
		return smbd_done_send(mem_ctx, ev, status, NULL);
	}
	TALLOC_FREE(req->tcon);         /* and its opens */
	rsp.body = smb2_tdis_rsp_push(mem_ctx, &rsp.body_len);
	if (rsp.body == NULL) {
		return smbd_done_send(mem_ctx, ev, NT_STATUS_NO_MEMORY, NULL);
	}
	return smbd_done_send(mem_ctx, ev, NT_STATUS_OK, &rsp);
}

NTSTATUS smbd_tdis_recv(struct tevent_req *subreq, TALLOC_CTX *mem_ctx,
			struct smbd_response *rsp)
{
	return smbd_done_recv(subreq, mem_ctx, rsp);
}
