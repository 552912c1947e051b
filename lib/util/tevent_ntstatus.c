/*
 * NTSTATUS on tevent requests: the status is carried in tevent's uint64_t
 * error code.
 */
#include "lib/util/tevent_ntstatus.h"

bool tevent_req_nterror(struct tevent_req *req, NTSTATUS status)
{
	if (NT_STATUS_IS_OK(status)) {
		return false;
	}
	return tevent_req_error(req, NT_STATUS_V(status));
}

bool tevent_req_is_nterror(struct tevent_req *req, NTSTATUS *status)
{
	enum tevent_req_state state;
	uint64_t err = 0;

	if (!tevent_req_is_error(req, &state, &err)) {
		*status = NT_STATUS_OK;
		return false;
	}
	switch (state) {
	case TEVENT_REQ_USER_ERROR:
		*status = NT_STATUS((uint32_t)err);
		break;
	case TEVENT_REQ_TIMED_OUT:
		*status = NT_STATUS_IO_TIMEOUT;
		break;
	case TEVENT_REQ_NO_MEMORY:
		*status = NT_STATUS_NO_MEMORY;
		break;
	default:
		*status = NT_STATUS_INTERNAL_ERROR;
		break;
	}
	return true;
}

NTSTATUS tevent_req_simple_recv_ntstatus(struct tevent_req *req)
{
	NTSTATUS status = NT_STATUS_OK;

	if (tevent_req_is_nterror(req, &status)) {
		tevent_req_received(req);
		return status;
	}
	tevent_req_received(req);
	return NT_STATUS_OK;
}
