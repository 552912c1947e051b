/*
 * wkssvc (MS-WKST): NetrWkstaGetInfo (opnum 0) levels 100, 101 and 102,
 * what clients ask a server for its name and domain.  Every other opnum
 * is a nca_s_op_rng_error fault, as from Samba.
 */
#include "source3/rpc_server/rpc_private.h"

#define WKSSVC_OP_WKSTA_GET_INFO	0
#define WKSSVC_NUM_OPS			1

/* the version NetSrvGetInfo announces too (srvsvc.c) */
#define WKSSVC_VERSION_MAJOR		6
#define WKSSVC_VERSION_MINOR		1

/* WKSTA_INFO_100/101/102 (MS-WKST 2.2.5.1-3) */
static void push_wksta_info(struct ndr_push *w, uint32_t level,
			    const struct rpc_client *c)
{
	ndr_push_u32(w, RPC_PLATFORM_ID_NT);
	rpc_push_ptr(w, c->server_name);
	rpc_push_ptr(w, c->domain);
	ndr_push_u32(w, WKSSVC_VERSION_MAJOR);
	ndr_push_u32(w, WKSSVC_VERSION_MINOR);
	if (level >= 101) {
		rpc_push_ptr(w, "C:\\");		/* lan_root */
	}
	if (level == 102) {
		ndr_push_u32(w, 0);			/* logged_on_users */
	}
	rpc_push_string(w, c->server_name);
	rpc_push_string(w, c->domain);
	if (level >= 101) {
		rpc_push_string(w, "C:\\");
	}
}

/*
 * Level 100 to anyone; 101 not to anonymous callers; 102 (which counts
 * logged-on users) to administrators only.
 */
static uint32_t wksta_level_allowed(uint32_t level, const struct rpc_client *c)
{
	if (level == 101 && c->anonymous) {
		return RPC_WERR_ACCESS_DENIED;
	}
	if (level == 102 && !c->admin) {
		return RPC_WERR_ACCESS_DENIED;
	}
	return RPC_WERR_OK;
}

static uint32_t op_wksta_get_info(struct rpc_call *call)
{
	uint32_t level = 0;
	uint32_t werr = RPC_WERR_OK;
	bool known = false;

	if (!rpc_pull_name_level(call, &level)) {
		return DCERPC_FAULT_BAD_STUB_DATA;
	}
	known = rpc_info_level_known(level);
	werr = known ? wksta_level_allowed(level, call->client) :
		RPC_WERR_INVALID_LEVEL;
	ndr_push_u32(&call->out, level);
	if (known) {
		ndr_push_unique_ptr(&call->out, werr == RPC_WERR_OK);
	}
	if (werr == RPC_WERR_OK) {
		push_wksta_info(&call->out, level, call->client);
	}
	ndr_push_u32(&call->out, werr);
	return 0;
}

static const rpc_op_fn wkssvc_ops[WKSSVC_NUM_OPS] = {
	[WKSSVC_OP_WKSTA_GET_INFO] = op_wksta_get_info,
};

const struct rpc_iface rpc_iface_wkssvc = {
	.pipe_name = "wkssvc",
	.syntax = &dcerpc_syntax_wkssvc,
	.ops = wkssvc_ops,
	.num_ops = WKSSVC_NUM_OPS,
};
