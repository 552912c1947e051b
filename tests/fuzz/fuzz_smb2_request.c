/*
 * libFuzzer harness: an NBT payload through lib/smb2 as the daemon
 * runs it: compound carving, the per-element check, and the request
 * pull for each element's opcode; then what the daemon does next with
 * the pulled pointers (names to UTF-8, contexts, lock elements); and the
 * WRITE head the transport peeks at (smb2_write_head_pull).
 * Seed corpus: tests/fuzz/corpus/smb2_request/ (from test_smb2_frame).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/smb2/smb2.h"

/* A UTF-16 name that converts must convert back to the same bytes. */
static void name_roundtrip(TALLOC_CTX *ctx, const struct smb2_blob *b)
{
	char *s = NULL;
	uint8_t *back = NULL;
	size_t len = 0;

	if (!NT_STATUS_IS_OK(smb2_utf16_to_utf8(ctx, b->data, b->len, &s))) {
		return;
	}
	if (!NT_STATUS_IS_OK(smb2_utf8_to_utf16(ctx, s, strlen(s), &back,
						&len)) ||
	    len != b->len || (len > 0 && memcmp(back, b->data, len) != 0)) {
		abort();
	}
}

static void create_one(TALLOC_CTX *ctx, const struct smb2_pdu *pdu)
{
	struct smb2_create_req *r = talloc(ctx, struct smb2_create_req);
	size_t n = 0;
	size_t i = 0;
	volatile uint8_t sink = 0;

	if (r == NULL || !NT_STATUS_IS_OK(smb2_create_req_pull(pdu, r))) {
		return;
	}
	name_roundtrip(ctx, &r->name);
	(void)smb2_create_ctx_find(&r->contexts, SMB2_CREATE_TAG_DH2Q, &n);
	for (i = 0; i < r->contexts.num; i++) {
		const struct smb2_create_ctx *c = &r->contexts.ctx[i];

		sink ^= c->name[c->name_len - 1];
		if (c->data_len > 0) {
			sink ^= c->data[c->data_len - 1];
		}
	}
	(void)sink;
}

static void negprot_one(const struct smb2_pdu *pdu)
{
	struct smb2_negprot_req r;
	struct smb2_negctx_preauth pa;
	struct smb2_negctx_encryption enc;
	struct smb2_negctx_signing sig;
	struct smb2_negctx_compression comp;
	size_t i = 0;

	if (!NT_STATUS_IS_OK(smb2_negprot_req_pull(pdu, &r))) {
		return;
	}
	(void)smb2_u16_array_has(r.dialects, r.dialect_count,
				 SMB2_DIALECT_0311);
	for (i = 0; i < r.num_negctx; i++) {
		(void)smb2_negctx_preauth_pull(&r.negctx[i], &pa);
		(void)smb2_negctx_encryption_pull(&r.negctx[i], &enc);
		(void)smb2_negctx_signing_pull(&r.negctx[i], &sig);
		(void)smb2_negctx_compression_pull(&r.negctx[i], &comp);
	}
}

static void lock_one(const struct smb2_pdu *pdu)
{
	struct smb2_lock_req r;
	struct smb2_lock_element e;
	size_t i = 0;

	if (!NT_STATUS_IS_OK(smb2_lock_req_pull(pdu, &r))) {
		return;
	}
	for (i = 0; i < r.lock_count; i++) {
		smb2_lock_element_at(&r, i, &e);
	}
}

static void pull_other(TALLOC_CTX *ctx, const struct smb2_pdu *pdu)
{
	union {
		struct smb2_sesssetup_req sesssetup;
		struct smb2_tcon_req tcon;
		struct smb2_close_req close;
		struct smb2_flush_req flush;
		struct smb2_read_req read;
		struct smb2_write_req write;
		struct smb2_ioctl_req ioctl;
		struct smb2_query_directory_req qdir;
		struct smb2_change_notify_req notify;
		struct smb2_query_info_req qinfo;
		struct smb2_set_info_req sinfo;
		struct smb2_oplock_break_req brk;
	} u;

	switch (pdu->hdr.command) {
	case SMB2_OP_SESSSETUP:
		(void)smb2_sesssetup_req_pull(pdu, &u.sesssetup);
		break;
	case SMB2_OP_TCON:
		if (NT_STATUS_IS_OK(smb2_tcon_req_pull(pdu, &u.tcon))) {
			name_roundtrip(ctx, &u.tcon.path);
		}
		break;
	case SMB2_OP_CLOSE:
		(void)smb2_close_req_pull(pdu, &u.close);
		break;
	case SMB2_OP_FLUSH:
		(void)smb2_flush_req_pull(pdu, &u.flush);
		break;
	case SMB2_OP_READ:
		(void)smb2_read_req_pull(pdu, &u.read);
		break;
	case SMB2_OP_WRITE:
		(void)smb2_write_req_pull(pdu, &u.write);
		break;
	case SMB2_OP_IOCTL:
		(void)smb2_ioctl_req_pull(pdu, &u.ioctl);
		break;
	case SMB2_OP_QUERY_DIRECTORY:
		if (NT_STATUS_IS_OK(smb2_query_directory_req_pull(pdu,
								  &u.qdir))) {
			name_roundtrip(ctx, &u.qdir.name);
		}
		break;
	case SMB2_OP_CHANGE_NOTIFY:
		(void)smb2_change_notify_req_pull(pdu, &u.notify);
		break;
	case SMB2_OP_QUERY_INFO:
		(void)smb2_query_info_req_pull(pdu, &u.qinfo);
		break;
	case SMB2_OP_SET_INFO:
		(void)smb2_set_info_req_pull(pdu, &u.sinfo);
		break;
	case SMB2_OP_OPLOCK_BREAK:
		(void)smb2_oplock_break_req_pull(pdu, &u.brk);
		break;
	}
}

static void pull_one(TALLOC_CTX *ctx, const struct smb2_pdu *pdu)
{
	switch (pdu->hdr.command) {
	case SMB2_OP_NEGPROT:
		negprot_one(pdu);
		break;
	case SMB2_OP_CREATE:
		create_one(ctx, pdu);
		break;
	case SMB2_OP_LOCK:
		lock_one(pdu);
		break;
	case SMB2_OP_LOGOFF:
		(void)smb2_logoff_req_pull(pdu);
		break;
	case SMB2_OP_TDIS:
		(void)smb2_tdis_req_pull(pdu);
		break;
	case SMB2_OP_ECHO:
		(void)smb2_echo_req_pull(pdu);
		break;
	case SMB2_OP_CANCEL:
		(void)smb2_cancel_req_pull(pdu);
		break;
	default:
		pull_other(ctx, pdu);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct smb2_pdu *pdus = NULL;
	struct smb2_write_head w;
	size_t n = 0;
	size_t i = 0;

	/* what the transport peeks at before a WRITE's payload is in */
	if (NT_STATUS_IS_OK(smb2_write_head_pull(data, size, &w)) &&
	    w.hdr.command != SMB2_OP_WRITE) {
		abort();
	}
	if (NT_STATUS_IS_OK(smb2_compound_carve(ctx, data, size, &pdus,
						&n))) {
		for (i = 0; i < n; i++) {
			/* the checks run again: idempotent */
			if (!NT_STATUS_EQUAL(smb2_pdu_check(&pdus[i]),
					     pdus[i].status)) {
				abort();
			}
			pull_one(ctx, &pdus[i]);
		}
	}
	talloc_free(ctx);
	return 0;
}
