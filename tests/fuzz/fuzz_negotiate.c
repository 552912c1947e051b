/*
 * libFuzzer harness: the first thing a client sends.  Each input is
 * tried as an SMB1 NEGOTIATE (multi-protocol negotiate), as a whole SMB2
 * NEGOTIATE PDU, and as a NEGOTIATE body behind a valid header; what
 * parses is run through the typed context pulls and a response push.
 * Seed corpus: tests/fuzz/corpus/negotiate/ (from test_smb2_frame).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/smb2/smb2.h"

static void contexts(const struct smb2_negprot_req *r)
{
	struct smb2_negctx_preauth pa;
	struct smb2_negctx_encryption enc;
	struct smb2_negctx_signing sig;
	struct smb2_negctx_compression comp;
	struct smb2_negctx_rdma rdma;
	struct smb2_blob nn;
	uint32_t flags = 0;
	size_t i = 0;

	for (i = 0; i < r->num_negctx; i++) {
		const struct smb2_negctx *c = &r->negctx[i];

		if (NT_STATUS_IS_OK(smb2_negctx_preauth_pull(c, &pa))) {
			(void)smb2_u16_array_has(pa.hash_algs, pa.hash_count,
					SMB2_PREAUTH_INTEGRITY_SHA512);
		}
		if (NT_STATUS_IS_OK(smb2_negctx_encryption_pull(c, &enc))) {
			(void)smb2_u16_array_has(enc.ciphers, enc.cipher_count,
					SMB2_ENCRYPTION_AES256_GCM);
		}
		(void)smb2_negctx_signing_pull(c, &sig);
		(void)smb2_negctx_compression_pull(c, &comp);
		(void)smb2_negctx_rdma_pull(c, &rdma);
		(void)smb2_negctx_netname_pull(c, &nn);
		(void)smb2_negctx_transport_pull(c, &flags);
	}
}

/* Echo the client's contexts back: the push must accept them. */
static void respond(TALLOC_CTX *ctx, const struct smb2_negprot_req *r)
{
	struct smb2_negprot_rsp rsp = {
		.dialect = SMB2_DIALECT_0311,
		.negctx = r->negctx, .num_negctx = r->num_negctx,
	};
	size_t len = 0;

	if (smb2_negprot_rsp_push(ctx, &rsp, &len) == NULL) {
		abort();
	}
}

static void negprot(TALLOC_CTX *ctx, const uint8_t *buf, size_t len)
{
	struct smb2_pdu *pdus = NULL;
	struct smb2_negprot_req r;
	size_t n = 0;
	size_t i = 0;

	if (!NT_STATUS_IS_OK(smb2_compound_carve(ctx, buf, len, &pdus, &n))) {
		return;
	}
	for (i = 0; i < n; i++) {
		if (pdus[i].hdr.command != SMB2_OP_NEGPROT ||
		    !NT_STATUS_IS_OK(smb2_negprot_req_pull(&pdus[i], &r))) {
			continue;
		}
		contexts(&r);
		respond(ctx, &r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct smb2_hdr h = { .command = SMB2_OP_NEGPROT };
	uint16_t dialect = 0;
	uint8_t *buf = NULL;

	(void)smb1_negprot_wants_smb2(data, size, &dialect);
	negprot(ctx, data, size);
	/* the same bytes as a body, so the fuzzer need not find a header */
	buf = talloc_size(ctx, SMB2_HDR_SIZE + size);
	if (buf != NULL) {
		smb2_hdr_push(&h, buf);
		if (size > 0) {
			memcpy(buf + SMB2_HDR_SIZE, data, size);
		}
		/* exact-size copy, so ASan sees any over-read */
		negprot(ctx, buf, SMB2_HDR_SIZE + size);
	}
	talloc_free(ctx);
	return 0;
}
