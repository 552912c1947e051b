/*
 * NTSTATUS on tevent requests (tevent_req_nterror is Samba-internal, not
 * in libtevent-dev).
 */
#ifndef RINGSMB_TEVENT_NTSTATUS_H
#define RINGSMB_TEVENT_NTSTATUS_H

#include <stdbool.h>
#include <tevent.h>
#include "lib/util/ntstatus.h"

/* Returns true (and fails the request) if status is an error. */
bool tevent_req_nterror(struct tevent_req *req, NTSTATUS status);
/* Fetch the error of a failed request; OK if it completed. */
bool tevent_req_is_nterror(struct tevent_req *req, NTSTATUS *status);
/* The usual _recv body for requests that return only a status. */
NTSTATUS tevent_req_simple_recv_ntstatus(struct tevent_req *req);

#endif
