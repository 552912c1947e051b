/*
 * Helpers shared by the lib/smb2 codecs; not part of the public API.
 */
#ifndef RINGSMB_SMB2_PRIVATE_H
#define RINGSMB_SMB2_PRIVATE_H

#include "lib/smb2/cursor.h"
#include "lib/smb2/smb2.h"

/* Header fields without the StructureSize check (the carver's view). */
void smb2_hdr_parse(const uint8_t *buf, struct smb2_hdr *out);

/*
 * A cursor over a checked request body of the given opcode, positioned
 * after StructureSize.  A PDU that failed smb2_pdu_check() or carries
 * another opcode gives a cursor that is already bad.
 */
struct smb2_cur smb2_body_cur(const struct smb2_pdu *pdu, uint16_t command);

/* smb2_pdu_dyn() into a blob (len 0 → { NULL, 0 }). */
NTSTATUS smb2_pdu_blob(const struct smb2_pdu *pdu, uint32_t ofs,
		       uint32_t len, struct smb2_blob *out);

/*
 * The bytes from ofs (from the header start) to the end of the element;
 * ofs must lie within the dynamic part (ofs == its end gives *len 0).
 */
NTSTATUS smb2_pdu_dyn_tail(const struct smb2_pdu *pdu, uint32_t ofs,
			   const uint8_t **p, size_t *len);

/*
 * Walks a 3.1.1 negotiate context list (negctx.c): count contexts from
 * ofs, the first at ofs (8-aligned, >= min_ofs), each next one 8-aligned.
 */
NTSTATUS smb2_negctx_list_pull(const struct smb2_pdu *pdu, uint32_t ofs,
			       uint16_t count, size_t min_ofs,
			       struct smb2_negctx *arr, size_t *num);

/* Reads a FileId (persistent, volatile). */
void smb2_cur_file_id(struct smb2_cur *c, struct smb2_file_id *out);
void smb2_wr_file_id(struct smb2_wr *w, const struct smb2_file_id *in);

/*
 * Body size for a response of StructureSize ssize with dyn bytes after
 * the fixed part: an odd size with nothing dynamic still carries one
 * padding byte, as Windows sends.
 */
size_t smb2_rsp_body_size(uint16_t ssize, size_t dyn);

/* A zeroed talloc buffer of size bytes and a writer over it. */
uint8_t *smb2_rsp_alloc(TALLOC_CTX *mem_ctx, size_t size, struct smb2_wr *w);

/*
 * Ends a push: the writer must have filled the buffer exactly (anything
 * else is a sizing bug: the buffer is freed, NULL returned).
 */
uint8_t *smb2_rsp_finish(uint8_t *buf, struct smb2_wr *w, size_t *len);

/* The common 9-byte "output buffer" response (query dir/info, notify). */
uint8_t *smb2_outbuf_rsp_push(TALLOC_CTX *mem_ctx,
			      const struct smb2_blob *output, size_t *len);

/* StructureSize + Reserved bodies (4 bytes) and the like. */
uint8_t *smb2_fixed_rsp_push(TALLOC_CTX *mem_ctx, uint16_t ssize,
			     size_t *len);

#endif
