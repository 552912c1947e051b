/*
 * lib/smb2: the SMB2/3 wire format (MS-SMB2), as pure codecs.
 *
 * No I/O here (STYLE.md rules 18-22).  Requests: bytes in, struct out;
 * pointers in the result point into the input buffer, which must outlive
 * the struct.  Responses: each smb2_<cmd>_rsp_push() returns the whole
 * response BODY (fixed part plus dynamic part) that follows the 64-byte
 * header, in a talloc buffer, or NULL on ENOMEM.  Offsets inside a body
 * are written as MS-SMB2 counts them, from the start of the SMB2 header.
 *
 * Flow in the daemon:
 *	smb2_compound_carve(mem_ctx, nbt_payload, len, &pdus, &n);
 *	for each pdu: pdu->status says whether the element is well formed
 *	(smb2_pdu_check); then smb2_<cmd>_req_pull(pdu, &req).
 * All access to a request's dynamic part goes through smb2_pdu_dyn().
 */
#ifndef RINGSMB_SMB2_H
#define RINGSMB_SMB2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/util/ntstatus.h"
#include "lib/smb2/smb2_const.h"
/* Opcodes, header, compound carving, common pieces, ERROR, UTF-16. */
#include "lib/smb2/smb2_frame.h"
/* One header per codec family (tests/unit/test_smb2_<family>.c). */
#include "lib/smb2/smb2_negprot.h"
#include "lib/smb2/smb2_session.h"
#include "lib/smb2/smb2_create.h"
#include "lib/smb2/smb2_io.h"
#include "lib/smb2/smb2_query.h"

#endif
