/*
 * Replayed CREATEs (MS-SMB2 3.3.5.9.10): see replay.h.  One process
 * holds every open, so the "GlobalOpenTable" lookup by CreateGuid walks
 * the connected opens; disconnected durable opens are not replayed
 * (they come back with DH2C).
 */
#include <string.h>
#include <strings.h>
#include "lib/util/dlist.h"
#include "source3/smbd/files/durable.h"
#include "source3/smbd/files/oplock.h"
#include "source3/smbd/files/replay.h"

struct smbd_replay_pending {
	struct smbd_replay_pending *prev, *next;
	struct smbd_server *server;
	uint8_t create_guid[16];
	uint8_t client_guid[16];
	struct smbd_oplock_waiter *waiter;      /* orphaned: until woken */
};

bool smbd_replay_guid_valid(const uint8_t create_guid[16])
{
	static const uint8_t zero[16];

	return memcmp(create_guid, zero, sizeof(zero)) != 0;
}

bool smbd_replay_remember(struct smbd_open *open, const uint8_t guid[16],
			  const uint8_t client_guid[16],
			  uint32_t create_action)
{
	struct smbd_open_replay *r = talloc_zero(open,
						 struct smbd_open_replay);

	if (r == NULL) {
		return false;
	}
	memcpy(r->create_guid, guid, sizeof(r->create_guid));
	memcpy(r->client_guid, client_guid, sizeof(r->client_guid));
	r->create_action = create_action;
	r->eligible = true;
	TALLOC_FREE(open->replay);
	open->replay = r;
	return true;
}

void smbd_replay_touch(struct smbd_open *open)
{
	if (open->replay != NULL) {
		open->replay->eligible = false;
	}
}

static bool replay_match(const struct smbd_open *o, const uint8_t guid[16],
			 const struct smbd_session *s)
{
	const struct smbd_open_replay *r = o->replay;

	return r != NULL && r->eligible &&
	       memcmp(r->create_guid, guid, sizeof(r->create_guid)) == 0 &&
	       memcmp(r->client_guid, s->conn->client_guid,
		      sizeof(r->client_guid)) == 0 &&
	       strcasecmp(smbd_durable_owner(o->tcon->session),
			  smbd_durable_owner(s)) == 0;
}

struct smbd_open *smbd_replay_find(struct smbd_session *s,
				   const uint8_t create_guid[16])
{
	struct smbd_conn *c = NULL;
	struct smbd_session *ss = NULL;
	struct smbd_tcon *t = NULL;
	struct smbd_open *o = NULL;

	if (!smbd_replay_guid_valid(create_guid)) {
		return NULL;
	}
	for (c = s->conn->server->conns; c != NULL; c = c->next) {
		for (ss = c->sessions; ss != NULL; ss = ss->next) {
			for (t = ss->tcons; t != NULL; t = t->next) {
				for (o = t->opens; o != NULL; o = o->next) {
					if (replay_match(o, create_guid, s)) {
						return o;
					}
				}
			}
		}
	}
	return NULL;
}

static int pending_destructor(struct smbd_replay_pending *p)
{
	DLIST_REMOVE_SIMPLE(p->server->replay_pending, p);
	return 0;
}

struct smbd_replay_pending *smbd_replay_pending_add(
	TALLOC_CTX *mem_ctx, struct smbd_session *s,
	const uint8_t create_guid[16])
{
	struct smbd_replay_pending *p = talloc_zero(
		mem_ctx, struct smbd_replay_pending);

	if (p == NULL) {
		return NULL;
	}
	p->server = s->conn->server;
	memcpy(p->create_guid, create_guid, sizeof(p->create_guid));
	memcpy(p->client_guid, s->conn->client_guid, sizeof(p->client_guid));
	DLIST_ADD_SIMPLE(p->server->replay_pending, p);
	talloc_set_destructor(p, pending_destructor);
	return p;
}

const struct smbd_replay_pending *smbd_replay_pending_find(
	struct smbd_session *s, const uint8_t create_guid[16],
	const struct smbd_replay_pending *self)
{
	const struct smbd_replay_pending *p = NULL;

	for (p = s->conn->server->replay_pending; p != NULL; p = p->next) {
		if (p != self &&
		    memcmp(p->create_guid, create_guid,
			   sizeof(p->create_guid)) == 0 &&
		    memcmp(p->client_guid, s->conn->client_guid,
			   sizeof(p->client_guid)) == 0) {
			return p;
		}
	}
	return NULL;
}

/*
 * Woken from inside another request or an open's teardown: freeing p
 * only takes it off the server's list, it touches no file state.
 */
static void pending_orphan_woken(void *private_data)
{
	struct smbd_replay_pending *p = talloc_get_type_abort(
		private_data, struct smbd_replay_pending);

	p->waiter = NULL;
	talloc_free(p);
}

void smbd_replay_pending_orphan(struct smbd_replay_pending *p,
				struct smbd_tcon *tcon,
				const struct statx *st)
{
	talloc_steal(tcon, p);
	p->waiter = smbd_oplock_wait(p, p->server, st, pending_orphan_woken,
				     p);
	if (p->waiter == NULL) {
		talloc_free(p);         /* nothing left to wait for */
	}
}
