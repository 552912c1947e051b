/*
 * Helpers shared by the PDU codecs of lib/dcerpc (pdu_codec.c,
 * bind_codec.c): syntax identifiers through the lib/smb2 cursor.
 */
#ifndef RINGSMB_DCERPC_PRIVATE_H
#define RINGSMB_DCERPC_PRIVATE_H

#include "lib/dcerpc/dcerpc.h"
#include "lib/smb2/cursor.h"

void dcerpc_cur_uuid(struct smb2_cur *c, struct dcerpc_uuid *out);
void dcerpc_cur_syntax(struct smb2_cur *c, struct dcerpc_syntax *out);
void dcerpc_wr_uuid(struct smb2_wr *w, const struct dcerpc_uuid *u);
void dcerpc_wr_syntax(struct smb2_wr *w, const struct dcerpc_syntax *s);

/* Body pulls and pushes per type (bind_codec.c). */
NTSTATUS dcerpc_bind_pull(TALLOC_CTX *mem_ctx, const uint8_t *body,
			  size_t len, struct dcerpc_bind *out);
NTSTATUS dcerpc_bind_ack_pull(TALLOC_CTX *mem_ctx, const uint8_t *body,
			      size_t len, struct dcerpc_bind_ack *out);
NTSTATUS dcerpc_bind_nak_pull(const uint8_t *body, size_t len,
			      struct dcerpc_bind_nak *out);
/* Body sizes: SIZE_MAX when a count is out of range. */
size_t dcerpc_bind_size(const struct dcerpc_bind *b);
size_t dcerpc_bind_ack_size(const struct dcerpc_bind_ack *a);
size_t dcerpc_bind_nak_size(const struct dcerpc_bind_nak *n);
void dcerpc_bind_push(struct smb2_wr *w, const struct dcerpc_bind *b);
void dcerpc_bind_ack_push(struct smb2_wr *w,
			  const struct dcerpc_bind_ack *a);
void dcerpc_bind_nak_push(struct smb2_wr *w,
			  const struct dcerpc_bind_nak *n);

#endif
