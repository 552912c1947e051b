/*
 * The in-process DCE/RPC server behind IPC$ named pipes (docs/dcerpc.md):
 * one association per open pipe, srvsvc and wkssvc.
 *
 * The SMB side writes what the client wrote into the pipe and reads what
 * the server has to say; everything in between (fragments, bind,
 * alter_context, requests, faults, responses) happens here, with no I/O
 * and no knowledge of SMB state: what a call needs to know about the
 * server and the caller comes through struct rpc_client.
 */
#ifndef RINGSMB_RPC_SERVER_H
#define RINGSMB_RPC_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"

/* Share types (MS-SRVS 2.2.2.4) */
#define RPC_STYPE_DISKTREE	0x00000000
#define RPC_STYPE_PRINTQ	0x00000001
#define RPC_STYPE_IPC		0x00000003
#define RPC_STYPE_SPECIAL	0x80000000

/* One share as srvsvc reports it. */
struct rpc_share {
	const char *name;
	const char *comment;
	const char *path;	/* Unix path; reported as C:\... */
	uint32_t type;		/* RPC_STYPE_* */
	uint32_t current_uses;	/* tree connects to it now */
	bool browseable;	/* "browseable": listed by enumerations */
	/*
	 * "access based share enum": false when the caller could not
	 * connect to it, so enumerations leave it out
	 */
	bool enumerable;
};

/* The server and the caller, as the SMB side knows them. */
struct rpc_client {
	const char *server_name;	/* NetBIOS name */
	const char *server_comment;	/* "server string" */
	const char *domain;		/* workgroup */
	const char *user;		/* "" for anonymous */
	bool anonymous;
	/* may read share paths (srvsvc levels 2 and 502) */
	bool admin;
	/* idle disconnect in minutes ("deadtime"), for NetSrvGetInfo 102 */
	uint32_t deadtime;
	/*
	 * Every share, as it is now (each call asks again, so a reload
	 * shows): on mem_ctx, with the strings.
	 */
	NTSTATUS (*list_shares)(void *priv, TALLOC_CTX *mem_ctx,
				struct rpc_share **shares, size_t *num);
	void *priv;
};

/* Output a pipe holds before it refuses more requests (then closes). */
#define RPC_PIPE_MAX_OUTPUT	(1024 * 1024)
/* Stub bytes of one request, over all its fragments; then a fault. */
#define RPC_MAX_REQUEST_STUB	(256 * 1024)

struct rpc_pipe;

/* Whether name ("srvsvc", "WKSSVC": any case) is a pipe we serve. */
bool rpc_pipe_known(const char *name);

/*
 * A new association on pipe name; *client is copied (strings too), its
 * priv must live as long as the pipe.  NT_STATUS_OBJECT_NAME_NOT_FOUND
 * for a name rpc_pipe_known refuses.
 */
NTSTATUS rpc_pipe_open(TALLOC_CTX *mem_ctx, const char *name,
		       const struct rpc_client *client,
		       struct rpc_pipe **out);

/*
 * The client wrote len bytes: whole fragments are processed at once and
 * their answers queued for reading.  NT_STATUS_PIPE_DISCONNECTED once
 * the association ended on a protocol error (what was queued before can
 * still be read), NT_STATUS_NO_MEMORY.
 */
NTSTATUS rpc_pipe_write(struct rpc_pipe *p, const uint8_t *buf, size_t len);

/* Bytes queued for reading. */
size_t rpc_pipe_readable(const struct rpc_pipe *p);

/* Takes up to max queued bytes into buf; returns how many. */
size_t rpc_pipe_read(struct rpc_pipe *p, uint8_t *buf, size_t max);

/* The association ended (protocol error): nothing more will be queued. */
bool rpc_pipe_disconnected(const struct rpc_pipe *p);

#endif
