/*
 * NDR pieces every interface of the RPC server uses: the ServerName
 * argument, UTF-8 strings as [string] wchar_t*, and the end of a call.
 */
#include <string.h>
#include "lib/smb2/smb2.h"
#include "source3/rpc_server/rpc_private.h"

void rpc_pull_server_name(struct ndr_pull *in)
{
	const uint8_t *units = NULL;
	size_t n = 0;
	uint32_t ref = 0;

	if (ndr_pull_unique_ptr(in, &ref)) {
		ndr_pull_string(in, &units, &n);
	}
}

bool rpc_pull_name_level(struct rpc_call *call, uint32_t *level)
{
	rpc_pull_server_name(&call->in);
	*level = ndr_pull_u32(&call->in);
	return !call->in.bad;
}

bool rpc_info_level_known(uint32_t level)
{
	return level == 100 || level == 101 || level == 102;
}

void rpc_push_ptr(struct ndr_push *w, const char *s)
{
	ndr_push_unique_ptr(w, s != NULL);
}

void rpc_push_string(struct ndr_push *w, const char *s)
{
	uint8_t *u16 = NULL;
	size_t len = 0;
	NTSTATUS status;

	if (w->bad) {
		return;
	}
	if (s[0] == '\0') {
		ndr_push_string(w, NULL, 0);
		return;
	}
	status = smb2_utf8_to_utf16(w->mem_ctx, s, strlen(s), &u16, &len);
	if (!NT_STATUS_IS_OK(status)) {
		/* our own strings come from smb.conf: valid UTF-8 */
		w->bad = true;
		return;
	}
	ndr_push_string(w, u16, len / 2);
	talloc_free(u16);
}

uint32_t rpc_call_result(const struct rpc_call *call)
{
	if (call->in.bad) {
		return DCERPC_FAULT_BAD_STUB_DATA;
	}
	if (call->out.bad) {
		/* more than NDR_PUSH_MAX, or no memory */
		return DCERPC_NCA_S_FAULT_REMOTE_NO_MEMORY;
	}
	return 0;
}
