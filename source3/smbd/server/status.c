/*
 * What smbstatus shows, as key-value records (control.h): read under
 * the server lock from the live objects, so it is exact at that moment.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "lib/param/param.h"
#include "lib/util/kvrec.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/brlock.h"
#include "source3/smbd/files/lease.h"
#include "source3/smbd/files/share_mode.h"
#include "source3/smbd/server/control.h"
#include "source3/smbd/server/worker.h"
#include "source3/smbd/session/identity.h"

#define FILE_READ_DATA  0x0001
#define FILE_WRITE_DATA 0x0002
#define FILE_APPEND_DATA 0x0004
#define FILE_SHARE_READ 0x0001
#define FILE_SHARE_WRITE 0x0002

static const char *cipher_name(uint16_t id)
{
	switch (id) {
	case 0x0001: return "AES-128-CCM";
	case 0x0002: return "AES-128-GCM";
	case 0x0003: return "AES-256-CCM";
	case 0x0004: return "AES-256-GCM";
	}
	return "-";
}

static const char *signing_name(uint16_t dialect, uint16_t alg)
{
	if (dialect < 0x0300) {
		return "HMAC-SHA256";
	}
	switch (alg) {
	case 0x0000: return "HMAC-SHA256";
	case 0x0001: return "AES-128-CMAC";
	case 0x0002: return "AES-128-GMAC";
	}
	return "?";
}

/*
 * As Samba's smbstatus: the algorithm when everything is signed
 * (encrypted), "partial(...)" when only some is, "-" when nothing.
 */
static void session_crypto(const struct smbd_session *s, char *sign,
			   char *enc, size_t len)
{
	const struct smbd_tcon *t = NULL;
	bool some_enc = false;

	for (t = s->tcons; t != NULL; t = t->next) {
		some_enc = some_enc || t->encrypt_data;
	}
	if (s->keys == NULL) {
		snprintf(sign, len, "-");
	} else if (s->signing_required || s->encrypt_data) {
		snprintf(sign, len, "%s",
			 signing_name(s->dialect, s->signing_alg));
	} else {
		snprintf(sign, len, "partial(%s)",
			 signing_name(s->dialect, s->signing_alg));
	}
	if (s->keys == NULL || s->cipher_id == 0) {
		snprintf(enc, len, "-");
	} else if (s->encrypt_data) {
		snprintf(enc, len, "%s", cipher_name(s->cipher_id));
	} else if (some_enc) {
		snprintf(enc, len, "partial(%s)", cipher_name(s->cipher_id));
	} else {
		snprintf(enc, len, "-");
	}
}

/* Samba's names for share access as DOS deny modes */
static const char *deny_mode(uint32_t share_access)
{
	switch (share_access & (FILE_SHARE_READ | FILE_SHARE_WRITE)) {
	case FILE_SHARE_READ | FILE_SHARE_WRITE:
		return "DENY_NONE";
	case FILE_SHARE_READ:
		return "DENY_WRITE";
	case FILE_SHARE_WRITE:
		return "DENY_READ";
	}
	return "DENY_ALL";
}

static const char *rw_mode(uint32_t access)
{
	bool r = (access & FILE_READ_DATA) != 0;
	bool w = (access & (FILE_WRITE_DATA | FILE_APPEND_DATA)) != 0;

	return r && w ? "RDWR" : w ? "WRONLY" : "RDONLY";
}

static void oplock_text(const struct smbd_open *o, char *buf, size_t len)
{
	uint32_t st = 0;

	if (o->lease != NULL) {
		st = o->lease->state;
		snprintf(buf, len, "LEASE(%s%s%s)", st & 1 ? "R" : "",
			 st & 4 ? "W" : "", st & 2 ? "H" : "");
		return;
	}
	snprintf(buf, len, "%s",
		 o->oplock_level == 0x09 ? "BATCH" :
		 o->oplock_level == 0x08 ? "EXCLUSIVE" :
		 o->oplock_level == 0x01 ? "LEVEL_II" : "NONE");
}

static const char *tcon_path(const struct smbd_tcon *t)
{
	if (t->vfs != NULL && t->vfs->root_path != NULL) {
		return t->vfs->root_path;
	}
	return t->share != NULL && t->share->path != NULL ?
		t->share->path : "";
}

struct lock_walk {
	struct kvrec_buf *b;
	TALLOC_CTX *mem_ctx;
	const struct smbd_open *o;
	uint64_t session_id;
};

static void lock_record(const struct brl_range *r, void *private_data)
{
	struct lock_walk *w = private_data;
	const struct smbd_open *o = w->o;

	kvrec_begin(w->b, w->mem_ctx, "lock");
	kvrec_add(w->b, "session", "0x%llx",
		  (unsigned long long)w->session_id);
	kvrec_add(w->b, "fid", "%llu", (unsigned long long)o->volatile_id);
	kvrec_add(w->b, "share", "%s", o->tcon->share->name);
	kvrec_add(w->b, "path", "%s", tcon_path(o->tcon));
	kvrec_add(w->b, "name", "%s", o->name != NULL ? o->name : "");
	kvrec_add(w->b, "dev", "%llu", (unsigned long long)o->file->dev);
	kvrec_add(w->b, "ino", "%llu", (unsigned long long)o->file->ino);
	kvrec_add(w->b, "type", "%s", r->exclusive ? "W" : "R");
	kvrec_add(w->b, "start", "%llu", (unsigned long long)r->offset);
	kvrec_add(w->b, "size", "%llu", (unsigned long long)r->length);
}

static void open_records(const struct smbd_session *s,
			 const struct smbd_tcon *t, struct kvrec_buf *b,
			 TALLOC_CTX *mem_ctx)
{
	const struct smbd_open *o = NULL;
	char oplock[32];

	for (o = t->opens; o != NULL; o = o->next) {
		if (o->pipe != NULL) {
			continue;       /* IPC$: no file */
		}
		oplock_text(o, oplock, sizeof(oplock));
		kvrec_begin(b, mem_ctx, "open");
		kvrec_add(b, "session", "0x%llx", (unsigned long long)s->id);
		kvrec_add(b, "tcon", "%u", t->id);
		kvrec_add(b, "fid", "%llu", (unsigned long long)o->volatile_id);
		kvrec_add(b, "share", "%s", t->share->name);
		kvrec_add(b, "path", "%s", tcon_path(t));
		kvrec_add(b, "name", "%s", o->name != NULL ? o->name : "");
		kvrec_add(b, "dir", "%d", o->is_dir ? 1 : 0);
		kvrec_add(b, "uid", "%u", s->unix_user != NULL ?
			  (unsigned)s->unix_user->uid : 0);
		kvrec_add(b, "user", "%s", s->unix_user != NULL ?
			  s->unix_user->name : "");
		kvrec_add(b, "access", "0x%x", o->access_mask);
		kvrec_add(b, "share_access", "0x%x", o->share_access);
		kvrec_add(b, "deny", "%s", deny_mode(o->share_access));
		kvrec_add(b, "rw", "%s", rw_mode(o->access_mask));
		kvrec_add(b, "oplock", "%s", oplock);
		kvrec_add(b, "durable", "%d", o->durable != NULL ? 1 : 0);
		kvrec_add(b, "opened", "%lld", (long long)o->opened);
		if (o->file != NULL) {
			kvrec_add(b, "dev", "%llu",
				  (unsigned long long)o->file->dev);
			kvrec_add(b, "ino", "%llu",
				  (unsigned long long)o->file->ino);
		}
	}
	for (o = t->opens; o != NULL; o = o->next) {
		struct lock_walk w = { b, mem_ctx, o, s->id };

		if (o->file != NULL) {
			brl_walk_owner(o->file->brl, o, lock_record, &w);
		}
	}
}

static void session_records(const struct smbd_session *s,
			    struct kvrec_buf *b, TALLOC_CTX *mem_ctx)
{
	const struct smbd_channel *ch = NULL;
	const struct smbd_tcon *t = NULL;
	char sign[48], enc[48], chans[256] = "";
	size_t n = 0;

	session_crypto(s, sign, enc, sizeof(sign));
	for (ch = s->channels; ch != NULL; ch = ch->next) {
		if (ch->bound && n < sizeof(chans) - 24) {
			n += snprintf(chans + n, sizeof(chans) - n, "%s%llu",
				      n > 0 ? "," : "",
				      (unsigned long long)ch->conn->id);
		}
	}
	kvrec_begin(b, mem_ctx, "session");
	kvrec_add(b, "id", "0x%llx", (unsigned long long)s->id);
	kvrec_add(b, "conn", "%llu", (unsigned long long)s->conn->id);
	kvrec_add(b, "channels", "%s", chans);
	kvrec_add(b, "user", "%s", s->anonymous ? "" :
		  s->user != NULL ? s->user : "");
	if (s->unix_user != NULL) {
		kvrec_add(b, "unix_user", "%s", s->unix_user->name);
		kvrec_add(b, "uid", "%u", (unsigned)s->unix_user->uid);
		kvrec_add(b, "gid", "%u", (unsigned)s->unix_user->gid);
		kvrec_add(b, "group", "%s", s->unix_user->group_name);
	}
	kvrec_add(b, "guest", "%d", s->guest ? 1 : 0);
	kvrec_add(b, "anonymous", "%d", s->anonymous ? 1 : 0);
	kvrec_add(b, "dialect", "0x%04x", s->dialect);
	kvrec_add(b, "signing", "%s", sign);
	kvrec_add(b, "encryption", "%s", enc);
	kvrec_add(b, "started", "%lld", (long long)s->started);
	for (t = s->tcons; t != NULL; t = t->next) {
		kvrec_begin(b, mem_ctx, "tcon");
		kvrec_add(b, "session", "0x%llx", (unsigned long long)s->id);
		kvrec_add(b, "id", "%u", t->id);
		kvrec_add(b, "share", "%s", t->share->name);
		kvrec_add(b, "path", "%s", t->ipc ? "" : tcon_path(t));
		kvrec_add(b, "machine", "%s", s->conn->addr);
		kvrec_add(b, "connected", "%lld", (long long)t->connected);
		kvrec_add(b, "encryption", "%s", t->encrypt_data ||
			  s->encrypt_data ? cipher_name(s->cipher_id) : "-");
		kvrec_add(b, "signing", "%s", s->keys != NULL &&
			  (s->signing_required || s->encrypt_data) ?
			  signing_name(s->dialect, s->signing_alg) : "-");
		kvrec_add(b, "opens", "%zu", t->num_opens);
	}
	for (t = s->tcons; t != NULL; t = t->next) {
		open_records(s, t, b, mem_ctx);
	}
}

void smbd_status_records(struct smbd_server *server, struct kvrec_buf *b,
			 TALLOC_CTX *mem_ctx)
{
	const struct smbd_conn *conn = NULL;
	const struct smbd_session *s = NULL;

	kvrec_begin(b, mem_ctx, "server");
	kvrec_add(b, "pid", "%d", (int)getpid());
	kvrec_add(b, "version", "%s", RINGSMB_VERSION);
	kvrec_add(b, "config", "%s", server->config_file != NULL ?
		  server->config_file : "(embedded default)");
	kvrec_add(b, "workers", "%u", server->num_workers);
	kvrec_add(b, "connections", "%zu", server->num_conns);
	kvrec_add(b, "disconnected_durable", "%zu", server->num_disconnected);
	for (conn = server->conns; conn != NULL; conn = conn->next) {
		kvrec_begin(b, mem_ctx, "conn");
		kvrec_add(b, "id", "%llu", (unsigned long long)conn->id);
		kvrec_add(b, "peer", "%s", conn->peer);
		kvrec_add(b, "addr", "%s", conn->addr);
		kvrec_add(b, "dialect", "0x%04x", conn->dialect);
		kvrec_add(b, "worker", "%u", conn->worker->id);
		kvrec_add(b, "connected", "%lld", (long long)conn->connected);
		kvrec_add(b, "bytes_in", "%llu",
			  (unsigned long long)conn->bytes_in);
		kvrec_add(b, "bytes_out", "%llu",
			  (unsigned long long)conn->bytes_out);
		kvrec_add(b, "sessions", "%zu", conn->num_sessions);
	}
	for (conn = server->conns; conn != NULL; conn = conn->next) {
		for (s = conn->sessions; s != NULL; s = s->next) {
			if (s->valid && !s->dying) {
				session_records(s, b, mem_ctx);
			}
		}
	}
}
