/*
 * Inside the RPC server: interfaces, one call, and NDR helpers the
 * interfaces share (rpc_ndr.c).
 */
#ifndef RINGSMB_RPC_PRIVATE_H
#define RINGSMB_RPC_PRIVATE_H

#include "lib/dcerpc/dcerpc.h"
#include "source3/rpc_server/rpc_server.h"

/* Win32 codes in the WERROR of a response (MS-ERREF 2.2) */
#define RPC_WERR_OK			0x00000000
#define RPC_WERR_ACCESS_DENIED		0x00000005
#define RPC_WERR_NOT_ENOUGH_MEMORY	0x00000008
#define RPC_WERR_INVALID_PARAMETER	0x00000057
#define RPC_WERR_INVALID_NAME		0x0000007B
#define RPC_WERR_INVALID_LEVEL		0x0000007C
#define RPC_WERR_MORE_DATA		0x000000EA
#define RPC_WERR_NERR_NETNAMENOTFOUND	0x00000906

/* Platform id of NetSrvGetInfo / NetWkstaGetInfo: PLATFORM_ID_NT */
#define RPC_PLATFORM_ID_NT		500

/* One request, decoded from its stub, answered into out. */
struct rpc_call {
	TALLOC_CTX *mem_ctx;		/* freed after the response */
	const struct rpc_client *client;
	uint16_t opnum;
	struct ndr_pull in;
	struct ndr_push out;
};

/*
 * An operation: reads call->in, writes the response stub to call->out.
 * Returns 0, or a fault status for the client (DCERPC_FAULT_BAD_STUB_DATA
 * when the stub does not decode).
 */
typedef uint32_t (*rpc_op_fn)(struct rpc_call *call);

struct rpc_iface {
	const char *pipe_name;		/* "srvsvc" */
	const struct dcerpc_syntax *syntax;
	const rpc_op_fn *ops;		/* by opnum; NULL: not implemented */
	size_t num_ops;
};

extern const struct rpc_iface rpc_iface_srvsvc;
extern const struct rpc_iface rpc_iface_wkssvc;

/*
 * [in, string, unique] wchar_t *ServerName: read and ignored (every
 * name means this server, as on Windows).
 */
void rpc_pull_server_name(struct ndr_pull *in);

/*
 * ServerName and Level, the arguments of NetrServerGetInfo and
 * NetrWkstaGetInfo; false when the stub does not decode.
 */
bool rpc_pull_name_level(struct rpc_call *call, uint32_t *level);
/* Their levels: 100, 101, 102. */
bool rpc_info_level_known(uint32_t level);

/* A unique pointer to s (NULL: a null pointer); the string comes later. */
void rpc_push_ptr(struct ndr_push *w, const char *s);
/* The deferred [string] wchar_t of a non-NULL s (UTF-8). */
void rpc_push_string(struct ndr_push *w, const char *s);

/*
 * The response of a call whose stub did not decode, or a result the
 * writer could not hold: the fault status to send instead.
 */
uint32_t rpc_call_result(const struct rpc_call *call);

#endif
