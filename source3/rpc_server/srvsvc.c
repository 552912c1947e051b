/*
 * srvsvc (MS-SRVS): the share list and server information that
 * `smbclient -L`, `net view` and Explorer ask for.  NetrShareEnum
 * (opnum 15, Samba's NetShareEnumAll), NetrShareGetInfo (16),
 * NetrServerGetInfo (21) and NetrShareEnumSticky (36, Samba's
 * NetShareEnum); every other opnum is a nca_s_op_rng_error fault, as
 * from Samba.  Field order: MS-SRVS 2.2.4 (docs/dcerpc.md).
 */
#include <string.h>
#include <strings.h>
#include "lib/smb2/smb2.h"
#include "source3/rpc_server/rpc_private.h"

#define SRVSVC_OP_SHARE_ENUM_ALL	15
#define SRVSVC_OP_SHARE_GET_INFO	16
#define SRVSVC_OP_SERVER_GET_INFO	21
#define SRVSVC_OP_SHARE_ENUM		36
#define SRVSVC_NUM_OPS			37

/* SV_TYPE_* bits of a standalone Samba server (MS-SRVS 2.2.2.7) */
#define SV_TYPE_WORKSTATION	0x00000001
#define SV_TYPE_SERVER		0x00000002
#define SV_TYPE_SERVER_UNIX	0x00000800
#define SV_TYPE_NT		0x00001000
#define SV_TYPE_SERVER_NT	0x00008000
#define SRVSVC_SERVER_TYPE	(SV_TYPE_WORKSTATION | SV_TYPE_SERVER | \
				 SV_TYPE_SERVER_UNIX | SV_TYPE_NT | \
				 SV_TYPE_SERVER_NT)
/* the version Samba 4.17 announces (Windows 7 / 2008 R2) */
#define SRVSVC_VERSION_MAJOR	6
#define SRVSVC_VERSION_MINOR	1

/* no limit on a share's connections */
#define SHARE_MAX_USES_UNLIMITED 0xFFFFFFFF

static bool share_level_known(uint32_t level)
{
	return level == 0 || level == 1 || level == 2 || level == 501 ||
	       level == 502;
}

/* Levels with the share's path: only for administrators. */
static bool share_level_private(uint32_t level)
{
	return level == 2 || level == 502;
}

/* "C:" and the path with backslashes, as Samba shows a Unix path. */
static char *share_path(TALLOC_CTX *mem_ctx, const char *path)
{
	char *s = talloc_asprintf(mem_ctx, "C:%s", path);
	char *p = NULL;

	for (p = s; p != NULL && *p != '\0'; p++) {
		if (*p == '/') {
			*p = '\\';
		}
	}
	return s;
}

/* The fixed part of SHARE_INFO_<level> (pointers as referent ids). */
static void push_share_scalars(struct ndr_push *w, uint32_t level,
			       const struct rpc_share *s)
{
	rpc_push_ptr(w, s->name);
	if (level == 0) {
		return;
	}
	ndr_push_u32(w, s->type);
	rpc_push_ptr(w, s->comment);
	if (level == 1) {
		return;
	}
	if (level == 501) {
		ndr_push_u32(w, 0);			/* shi501_flags */
		return;
	}
	ndr_push_u32(w, 0);				/* permissions */
	ndr_push_u32(w, SHARE_MAX_USES_UNLIMITED);	/* max_uses */
	ndr_push_u32(w, s->current_uses);
	rpc_push_ptr(w, s->path);
	rpc_push_ptr(w, NULL);				/* passwd */
	if (level == 502) {
		ndr_push_u32(w, 0);	/* security descriptor size */
		ndr_push_unique_ptr(w, false);
	}
}

/* The deferred strings of SHARE_INFO_<level>, in field order. */
static void push_share_buffers(struct ndr_push *w, uint32_t level,
			       const struct rpc_share *s)
{
	rpc_push_string(w, s->name);
	if (level == 0) {
		return;
	}
	rpc_push_string(w, s->comment);
	if (level == 2 || level == 502) {
		rpc_push_string(w, s->path);
	}
}

/* What the caller may see of the list, paths rewritten. */
static bool share_listed(const struct rpc_share *s, bool all)
{
	size_t n = strlen(s->name);

	if (!s->browseable || !s->enumerable) {
		return false;
	}
	return all || n == 0 || s->name[n - 1] != '$';
}

static NTSTATUS list_shares(struct rpc_call *call, struct rpc_share **out,
			    size_t *num)
{
	size_t i;
	NTSTATUS status = call->client->list_shares(call->client->priv,
						    call->mem_ctx, out, num);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	for (i = 0; i < *num; i++) {
		(*out)[i].path = share_path(call->mem_ctx,
					    (*out)[i].path != NULL ?
					    (*out)[i].path : "");
		if ((*out)[i].comment == NULL) {
			(*out)[i].comment = "";
		}
		if ((*out)[i].path == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	return NT_STATUS_OK;
}

/*
 * [in,out] LPSHARE_ENUM_STRUCT: the level, the union's discriminant and
 * a pointer to the client's (empty) container, which we read and drop.
 */
static void pull_enum_struct(struct ndr_pull *in, uint32_t *level)
{
	uint32_t ref = 0;

	*level = ndr_pull_u32(in);
	if (ndr_pull_u32(in) != *level) {
		in->bad = true;
		return;
	}
	if (!share_level_known(*level) || !ndr_pull_unique_ptr(in, &ref)) {
		return;
	}
	(void)ndr_pull_u32(in);			/* EntriesRead */
	if (ndr_pull_unique_ptr(in, &ref) && ndr_pull_u32(in) != 0) {
		/* a client sends no shares in */
		in->bad = true;
	}
}

struct share_enum_out {
	uint32_t level;
	const struct rpc_share **list;
	uint32_t count;
	uint32_t total;
	bool have_resume;
	uint32_t resume;
	uint32_t werr;
};

static void push_enum_struct(struct ndr_push *w,
			     const struct share_enum_out *o)
{
	uint32_t i;

	ndr_push_u32(w, o->level);
	ndr_push_u32(w, o->level);
	if (!share_level_known(o->level)) {
		return;
	}
	ndr_push_unique_ptr(w, true);		/* the container */
	ndr_push_u32(w, o->count);
	ndr_push_unique_ptr(w, o->count > 0);
	if (o->count == 0) {
		return;
	}
	ndr_push_u32(w, o->count);		/* conformance */
	for (i = 0; i < o->count; i++) {
		push_share_scalars(w, o->level, o->list[i]);
	}
	for (i = 0; i < o->count; i++) {
		push_share_buffers(w, o->level, o->list[i]);
	}
}

static void share_enum_fill(struct rpc_call *call, bool all,
			    struct share_enum_out *o)
{
	struct rpc_share *shares = NULL;
	size_t num = 0;
	size_t i;

	if (!NT_STATUS_IS_OK(list_shares(call, &shares, &num))) {
		o->werr = RPC_WERR_NOT_ENOUGH_MEMORY;
		return;
	}
	o->list = talloc_array(call->mem_ctx, const struct rpc_share *,
			       num + 1);
	if (o->list == NULL) {
		o->werr = RPC_WERR_NOT_ENOUGH_MEMORY;
		return;
	}
	for (i = 0; i < num; i++) {
		if (!share_listed(&shares[i], all)) {
			continue;
		}
		/* after a resume handle: the rest of the list */
		if (o->total++ < o->resume) {
			continue;
		}
		o->list[o->count++] = &shares[i];
	}
	if (o->have_resume) {
		o->resume = o->total;
	}
}

static uint32_t share_enum(struct rpc_call *call, bool all)
{
	struct share_enum_out o = {};
	uint32_t ref = 0;

	rpc_pull_server_name(&call->in);
	pull_enum_struct(&call->in, &o.level);
	(void)ndr_pull_u32(&call->in);		/* PreferedMaximumLength */
	o.have_resume = ndr_pull_unique_ptr(&call->in, &ref);
	if (o.have_resume) {
		o.resume = ndr_pull_u32(&call->in);
	}
	if (call->in.bad) {
		return DCERPC_FAULT_BAD_STUB_DATA;
	}
	if (!share_level_known(o.level)) {
		o.werr = RPC_WERR_INVALID_LEVEL;
	} else if (share_level_private(o.level) && !call->client->admin) {
		o.werr = RPC_WERR_ACCESS_DENIED;
	} else {
		share_enum_fill(call, all, &o);
	}
	push_enum_struct(&call->out, &o);
	ndr_push_u32(&call->out, o.total);
	ndr_push_unique_ptr(&call->out, o.have_resume);
	if (o.have_resume) {
		ndr_push_u32(&call->out, o.resume);
	}
	ndr_push_u32(&call->out, o.werr);
	return 0;
}

static uint32_t op_share_enum_all(struct rpc_call *call)
{
	return share_enum(call, true);
}

static uint32_t op_share_enum(struct rpc_call *call)
{
	return share_enum(call, false);
}

/* The share named by units (UTF-16LE), any case; NULL: none. */
static const struct rpc_share *find_share(struct rpc_call *call,
					  const uint8_t *units, size_t n,
					  uint32_t *werr)
{
	struct rpc_share *shares = NULL;
	char *name = NULL;
	size_t num = 0;
	size_t i;

	*werr = RPC_WERR_NOT_ENOUGH_MEMORY;
	if (!NT_STATUS_IS_OK(smb2_utf16_to_utf8(call->mem_ctx, units, 2 * n,
						&name))) {
		*werr = RPC_WERR_INVALID_NAME;
		return NULL;
	}
	if (!NT_STATUS_IS_OK(list_shares(call, &shares, &num))) {
		return NULL;
	}
	for (i = 0; i < num; i++) {
		if (strcasecmp(shares[i].name, name) == 0) {
			*werr = RPC_WERR_OK;
			return &shares[i];
		}
	}
	*werr = RPC_WERR_INVALID_NAME;
	return NULL;
}

static bool get_info_level_known(uint32_t level)
{
	return share_level_known(level) || level == 1005;
}

static uint32_t op_share_get_info(struct rpc_call *call)
{
	const struct rpc_share *s = NULL;
	const uint8_t *units = NULL;
	uint32_t werr = RPC_WERR_OK;
	uint32_t level = 0;
	size_t n = 0;

	rpc_pull_server_name(&call->in);
	ndr_pull_string(&call->in, &units, &n);
	level = ndr_pull_u32(&call->in);
	if (call->in.bad) {
		return DCERPC_FAULT_BAD_STUB_DATA;
	}
	if (!get_info_level_known(level)) {
		werr = RPC_WERR_INVALID_LEVEL;
	} else if (share_level_private(level) && !call->client->admin) {
		werr = RPC_WERR_ACCESS_DENIED;
	} else {
		s = find_share(call, units, n, &werr);
	}
	ndr_push_u32(&call->out, level);
	if (get_info_level_known(level)) {
		ndr_push_unique_ptr(&call->out, s != NULL);
	}
	if (s != NULL && level == 1005) {
		ndr_push_u32(&call->out, 0);	/* shi1005_flags */
	} else if (s != NULL) {
		push_share_scalars(&call->out, level, s);
		push_share_buffers(&call->out, level, s);
	}
	ndr_push_u32(&call->out, werr);
	return 0;
}

static void push_server_info(struct ndr_push *w, uint32_t level,
			     const struct rpc_client *c)
{
	ndr_push_u32(w, RPC_PLATFORM_ID_NT);
	rpc_push_ptr(w, c->server_name);
	if (level == 100) {
		rpc_push_string(w, c->server_name);
		return;
	}
	ndr_push_u32(w, SRVSVC_VERSION_MAJOR);
	ndr_push_u32(w, SRVSVC_VERSION_MINOR);
	ndr_push_u32(w, SRVSVC_SERVER_TYPE);
	rpc_push_ptr(w, c->server_comment);
	if (level == 102) {
		ndr_push_u32(w, 0xFFFFFFFF);	/* users: no limit */
		ndr_push_u32(w, c->deadtime);	/* disc, minutes */
		ndr_push_u32(w, 0);		/* hidden */
		ndr_push_u32(w, 240);		/* announce, seconds */
		ndr_push_u32(w, 3000);		/* anndelta, ms */
		ndr_push_u32(w, 100000);	/* licenses */
		rpc_push_ptr(w, "C:\\");	/* userpath */
	}
	rpc_push_string(w, c->server_name);
	rpc_push_string(w, c->server_comment);
	if (level == 102) {
		rpc_push_string(w, "C:\\");
	}
}

static uint32_t op_server_get_info(struct rpc_call *call)
{
	uint32_t level = 0;
	bool known = false;

	if (!rpc_pull_name_level(call, &level)) {
		return DCERPC_FAULT_BAD_STUB_DATA;
	}
	known = rpc_info_level_known(level);
	ndr_push_u32(&call->out, level);
	if (known) {
		ndr_push_unique_ptr(&call->out, true);
		push_server_info(&call->out, level, call->client);
	}
	ndr_push_u32(&call->out, known ? RPC_WERR_OK : RPC_WERR_INVALID_LEVEL);
	return 0;
}

static const rpc_op_fn srvsvc_ops[SRVSVC_NUM_OPS] = {
	[SRVSVC_OP_SHARE_ENUM_ALL] = op_share_enum_all,
	[SRVSVC_OP_SHARE_GET_INFO] = op_share_get_info,
	[SRVSVC_OP_SERVER_GET_INFO] = op_server_get_info,
	[SRVSVC_OP_SHARE_ENUM] = op_share_enum,
};

const struct rpc_iface rpc_iface_srvsvc = {
	.pipe_name = "srvsvc",
	.syntax = &dcerpc_syntax_srvsvc,
	.ops = srvsvc_ops,
	.num_ops = SRVSVC_NUM_OPS,
};
