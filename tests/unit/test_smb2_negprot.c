/*
 * Unit tests for NEGOTIATE in lib/smb2: the request
 * and response (negprot_codec.c), negotiate contexts (negctx.c) and the
 * SMB1 NEGOTIATE that asks for SMB2 (smb1_negprot.c).
 */
#include <string.h>
#include "tests/unit/smb2_test_util.h"
#include "lib/util/byteorder.h"

/* ------------------------------------------------------------------ */
/* NEGOTIATE                                                           */

static void test_negprot__capture_311(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_negprot, sizeof(cap_negprot));
	struct smb2_negprot_req r;
	const struct smb2_negctx *ctx = NULL;
	struct smb2_negctx_preauth pa;
	struct smb2_negctx_encryption enc;
	struct smb2_negctx_signing sig;
	struct smb2_blob nn;
	char *name = NULL;
	size_t n = 0;

	assert_true(IS_OK(smb2_negprot_req_pull(p, &r)));
	assert_int_equal(r.dialect_count, 5);
	assert_int_equal(smb2_u16_at(r.dialects, 0), SMB2_DIALECT_0202);
	assert_int_equal(smb2_u16_at(r.dialects, 4), SMB2_DIALECT_0311);
	assert_int_equal(r.security_mode, SMB2_NEGOTIATE_SIGNING_ENABLED);
	assert_int_equal(r.capabilities, 0x7F);
	assert_int_equal(r.negctx_offset, 0x70);
	assert_int_equal(r.negctx_count, 4);
	assert_int_equal(r.num_negctx, 4);

	ctx = smb2_negctx_find(&r, SMB2_PREAUTH_INTEGRITY_CAPABILITIES, &n);
	assert_int_equal(n, 1);
	assert_true(IS_OK(smb2_negctx_preauth_pull(ctx, &pa)));
	assert_int_equal(pa.hash_count, 1);
	assert_int_equal(smb2_u16_at(pa.hash_algs, 0),
			 SMB2_PREAUTH_INTEGRITY_SHA512);
	assert_int_equal(pa.salt_len, 32);

	ctx = smb2_negctx_find(&r, SMB2_ENCRYPTION_CAPABILITIES, &n);
	assert_true(IS_OK(smb2_negctx_encryption_pull(ctx, &enc)));
	assert_int_equal(enc.cipher_count, 4);
	assert_true(smb2_u16_array_has(enc.ciphers, 4,
				       SMB2_ENCRYPTION_AES128_GCM));
	assert_false(smb2_u16_array_has(enc.ciphers, 4, 5));

	ctx = smb2_negctx_find(&r, SMB2_SIGNING_CAPABILITIES, &n);
	assert_true(IS_OK(smb2_negctx_signing_pull(ctx, &sig)));
	assert_int_equal(sig.alg_count, 3);
	assert_int_equal(smb2_u16_at(sig.algs, 0), SMB2_SIGNING_AES_GMAC);

	ctx = smb2_negctx_find(&r, SMB2_NETNAME_NEGOTIATE_CONTEXT_ID, &n);
	assert_true(IS_OK(smb2_negctx_netname_pull(ctx, &nn)));
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, nn.data, nn.len, &name)));
	assert_string_equal(name, "127.0.0.1");
	talloc_free(name);

	assert_null(smb2_negctx_find(&r, SMB2_COMPRESSION_CAPABILITIES, &n));
	assert_int_equal(n, 0);
	talloc_free(p);
}

static void test_negprot__capture_202(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_negprot_smb2,
				    sizeof(cap_negprot_smb2));
	struct smb2_negprot_req r;

	assert_true(IS_OK(smb2_negprot_req_pull(p, &r)));
	assert_int_equal(r.dialect_count, 1);
	assert_int_equal(smb2_u16_at(r.dialects, 0), SMB2_DIALECT_0202);
	assert_int_equal(r.num_negctx, 0);
	talloc_free(p);
}

static void test_negprot__truncations(void **state)
{
	check_truncations(cap_negprot, sizeof(cap_negprot),
			  sizeof(cap_negprot));
	check_truncations(cap_negprot_smb2, sizeof(cap_negprot_smb2),
			  sizeof(cap_negprot_smb2));
}

/* A copy of the captured 3.1.1 NEGOTIATE to damage. */
static uint8_t *negprot_copy(TALLOC_CTX *ctx)
{
	return talloc_memdup(ctx, cap_negprot, sizeof(cap_negprot));
}

#define NP_OFS_DIALECT_COUNT	(SMB2_HDR_SIZE + 2)
#define NP_OFS_CTX_OFFSET	(SMB2_HDR_SIZE + 28)
#define NP_OFS_CTX_COUNT	(SMB2_HDR_SIZE + 32)
#define NP_FIRST_CTX		0x70

static NTSTATUS negprot_pull_guarded(const uint8_t *buf, size_t len)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *g = guard_dup(buf, len);
	struct smb2_pdu *pdus = NULL;
	struct smb2_negprot_req r;
	size_t n = 0;
	NTSTATUS status = smb2_compound_carve(tmp, g, len, &pdus, &n);

	if (IS_OK(status)) {
		status = smb2_negprot_req_pull(&pdus[0], &r);
	}
	guard_free(g);
	talloc_free(tmp);
	return status;
}

static void test_negprot__bad_dialects(void **state)
{
	uint8_t *b = negprot_copy(*state);

	push_le16(b + NP_OFS_DIALECT_COUNT, 0);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_DIALECT_COUNT, 0xFFFF);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	/* 6 dialects end where the contexts start; 7 overlap them */
	push_le16(b + NP_OFS_DIALECT_COUNT, 6);
	assert_true(IS_OK(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_DIALECT_COUNT, 7);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	/* 63 fit the 126 bytes after the fixed part, 64 do not */
	push_le16(b + NP_OFS_DIALECT_COUNT, 63);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_DIALECT_COUNT, 64);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	talloc_free(b);
}

static void test_negprot__bad_context_list(void **state)
{
	static const uint32_t bad_ofs[] = { 0x6C, 0x71, 0x74, 0x68, 0, 0xE0,
					    0xE8, 0x1000, 0xFFFFFFF8 };
	uint8_t *b = negprot_copy(*state);
	size_t i = 0;

	for (i = 0; i < sizeof(bad_ofs) / sizeof(bad_ofs[0]); i++) {
		push_le32(b + NP_OFS_CTX_OFFSET, bad_ofs[i]);
		assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	}
	push_le32(b + NP_OFS_CTX_OFFSET, NP_FIRST_CTX);
	push_le16(b + NP_OFS_CTX_COUNT, 65535);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_CTX_COUNT, 5);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	/* count 0: nothing walked; the daemon then finds no PREAUTH */
	push_le16(b + NP_OFS_CTX_COUNT, 0);
	assert_true(IS_OK(negprot_pull_guarded(b, sizeof(cap_negprot))));
	/* offset 0xE8 with count 0 is not looked at */
	push_le32(b + NP_OFS_CTX_OFFSET, 0xE8);
	assert_true(IS_OK(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_CTX_COUNT, 4);
	/* first context's DataLength past the end */
	push_le32(b + NP_OFS_CTX_OFFSET, NP_FIRST_CTX);
	push_le16(b + NP_FIRST_CTX + 2, 0xFFFF);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	talloc_free(b);
}

/* Without 0x0311 the 8 bytes are ClientStartTime: no walk at all. */
static void test_negprot__2x_ignores_contexts(void **state)
{
	uint8_t *b = negprot_copy(*state);
	struct smb2_pdu *p = NULL;
	struct smb2_negprot_req r;

	push_le16(b + SMB2_HDR_SIZE + 36 + 8, SMB2_DIALECT_0300);
	push_le32(b + NP_OFS_CTX_OFFSET, 0xFFFFFFFF);
	push_le16(b + NP_OFS_CTX_COUNT, 0xFFFF);
	assert_true(IS_OK(negprot_pull_guarded(b, sizeof(cap_negprot))));
	p = carve1(*state, b, sizeof(cap_negprot));
	assert_true(IS_OK(smb2_negprot_req_pull(p, &r)));
	assert_int_equal(r.num_negctx, 0);
	assert_true(r.client_start_time == 0x0000FFFFFFFFFFFFULL);
	talloc_free(p);
	talloc_free(b);
}

/* A 3.1.1 NEGOTIATE carrying the given context list. */
static size_t mk_negprot_ctx(uint8_t *buf, const uint8_t *ctx,
			     size_t ctx_len, uint16_t count)
{
	uint8_t body[36 + 4 + 1024] = { 36, 0, 1, 0 };

	assert_true(ctx_len <= 1024);
	push_le32(body + 28, SMB2_HDR_SIZE + 40);
	push_le16(body + 32, count);
	push_le16(body + 36, SMB2_DIALECT_0311);
	memcpy(body + 40, ctx, ctx_len);
	return mk_pdu(buf, SMB2_OP_NEGPROT, 0, 0, body, 40 + ctx_len);
}

static void test_negprot__context_alignment(void **state)
{
	/* two contexts: the second must start 8-aligned after the first */
	static const uint8_t ctx[] = {
		0x06, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0x01, 0, 0, 0,
		0, 0, 0, 0,			/* pad to 16 */
		0x08, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0x01, 0, 0x01, 0,
	};
	uint8_t buf[SMB2_HDR_SIZE + 1100];
	size_t len = mk_negprot_ctx(buf, ctx, sizeof(ctx), 2);
	struct smb2_pdu *p = carve1(*state, buf, len);
	struct smb2_negprot_req r;
	struct smb2_negctx_signing sig;
	uint32_t flags = 0;

	assert_true(IS_OK(smb2_negprot_req_pull(p, &r)));
	assert_int_equal(r.num_negctx, 2);
	assert_true(IS_OK(smb2_negctx_transport_pull(&r.negctx[0], &flags)));
	assert_int_equal(flags, SMB2_ACCEPT_TRANSPORT_LEVEL_SECURITY);
	assert_int_equal(r.negctx[1].type, SMB2_SIGNING_CAPABILITIES);
	assert_true(IS_OK(smb2_negctx_signing_pull(&r.negctx[1], &sig)));
	assert_int_equal(smb2_u16_at(sig.algs, 0), SMB2_SIGNING_AES_CMAC);
	/* padding cut: the second header no longer fits */
	len = mk_negprot_ctx(buf, ctx, 16 + 4, 2);
	assert_true(IS_IP(negprot_pull_guarded(buf, len)));
	/* pad missing entirely: the walk reads past the end */
	len = mk_negprot_ctx(buf, ctx, 12, 2);
	assert_true(IS_IP(negprot_pull_guarded(buf, len)));
	check_truncations(buf, mk_negprot_ctx(buf, ctx, sizeof(ctx), 2),
			  SMB2_HDR_SIZE + 40 + sizeof(ctx));
	talloc_free(p);
}

static void test_negprot__max_contexts(void **state)
{
	uint8_t ctx[8 * (SMB2_NEGCTX_MAX + 1)] = {};
	uint8_t buf[SMB2_HDR_SIZE + 1100];
	size_t i = 0;

	for (i = 0; i <= SMB2_NEGCTX_MAX; i++) {
		ctx[8 * i] = 0x42;	/* unknown type, no data */
	}
	assert_true(IS_OK(negprot_pull_guarded(buf,
		mk_negprot_ctx(buf, ctx, sizeof(ctx), SMB2_NEGCTX_MAX))));
	assert_true(IS_IP(negprot_pull_guarded(buf,
		mk_negprot_ctx(buf, ctx, sizeof(ctx), SMB2_NEGCTX_MAX + 1))));
}

static void test_negctx__typed_pulls_reject(void **state)
{
	static const uint8_t pa_zero[] = { 0, 0, 32, 0 };
	static const uint8_t pa_salt_past[] = { 1, 0, 33, 0, 1, 0,
						[6 ... 37] = 0x11 };
	static const uint8_t pa_ok[] = { 1, 0, 32, 0, 1, 0,
					 [6 ... 37] = 0x11 };
	static const uint8_t enc_zero[] = { 0, 0 };
	static const uint8_t enc_short[] = { 2, 0, 1, 0 };
	static const uint8_t comp_ok[] = { 1, 0, 0, 0, 1, 0, 0, 0, 5, 0 };
	static const uint8_t rdma_zero[] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t odd[] = { 'a', 0, 'b' };
	struct smb2_negctx c = {};
	struct smb2_negctx_preauth pa;
	struct smb2_negctx_encryption enc;
	struct smb2_negctx_compression comp;
	struct smb2_negctx_rdma rdma;
	struct smb2_negctx_signing sig;
	struct smb2_blob nn;
	uint32_t flags = 0;

#define CTX(a) (c = (struct smb2_negctx){ .data = a, .len = sizeof(a) }, &c)
	assert_true(IS_IP(smb2_negctx_preauth_pull(CTX(pa_zero), &pa)));
	assert_true(IS_IP(smb2_negctx_preauth_pull(CTX(pa_salt_past), &pa)));
	assert_true(IS_OK(smb2_negctx_preauth_pull(CTX(pa_ok), &pa)));
	assert_int_equal(pa.salt[31], 0x11);
	assert_true(IS_IP(smb2_negctx_encryption_pull(CTX(enc_zero), &enc)));
	assert_true(IS_IP(smb2_negctx_encryption_pull(CTX(enc_short), &enc)));
	assert_true(IS_IP(smb2_negctx_signing_pull(CTX(enc_zero), &sig)));
	assert_true(IS_OK(smb2_negctx_compression_pull(CTX(comp_ok), &comp)));
	assert_int_equal(smb2_u16_at(comp.algs, 0), SMB2_COMPRESSION_LZ4);
	assert_true(IS_IP(smb2_negctx_compression_pull(CTX(enc_short),
						       &comp)));
	assert_true(IS_IP(smb2_negctx_rdma_pull(CTX(rdma_zero), &rdma)));
	assert_true(IS_IP(smb2_negctx_netname_pull(CTX(odd), &nn)));
	assert_true(IS_IP(smb2_negctx_transport_pull(CTX(odd), &flags)));
	c = (struct smb2_negctx){ .data = NULL, .len = 0 };
	assert_true(IS_IP(smb2_negctx_preauth_pull(&c, &pa)));
#undef CTX
}

static void test_negprot__rsp_311(void **state)
{
	static const uint8_t want[] = {
		0x41, 0x00, 0x01, 0x00, 0x11, 0x03, 0x02, 0x00,
		0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
		0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
		0x2f, 0x00, 0x00, 0x00,			/* capabilities */
		0x00, 0x00, 0x80, 0x00,			/* max transact */
		0x00, 0x00, 0x10, 0x00,			/* max read */
		0x00, 0x00, 0x01, 0x00,			/* max write */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x80, 0x00, 0x03, 0x00,			/* security buf */
		0x88, 0x00, 0x00, 0x00,			/* context offset */
		0xaa, 0xbb, 0xcc, 0, 0, 0, 0, 0,	/* blob, pad */
		0x01, 0x00, 0x26, 0x00, 0, 0, 0, 0,	/* preauth */
		0x01, 0x00, 0x20, 0x00, 0x01, 0x00,
		[86 ... 117] = 0x5a,
		0, 0,					/* pad */
		0x02, 0x00, 0x04, 0x00, 0, 0, 0, 0,	/* encryption */
		0x01, 0x00, 0x02, 0x00,
	};
	static const uint8_t salt[32] = { [0 ... 31] = 0x5a };
	static const uint8_t blob[3] = { 0xaa, 0xbb, 0xcc };
	struct smb2_negctx ctx[2] = {};
	struct smb2_negprot_rsp r = {
		.security_mode = SMB2_NEGOTIATE_SIGNING_ENABLED,
		.dialect = SMB2_DIALECT_0311,
		.server_guid = { 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
				 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e,
				 0x1f },
		.capabilities = 0x2f, .max_transact = 0x800000,
		.max_read = 0x100000, .max_write = 0x10000,
		.system_time = 0x0102030405060708ULL,
		.security = { blob, sizeof(blob) },
		.negctx = ctx, .num_negctx = 2,
	};
	size_t len = 0, dlen = 0;
	uint8_t *d1 = NULL, *d2 = NULL, *out = NULL;

	d1 = smb2_negctx_preauth_push(*state, salt, &dlen);
	assert_non_null(d1);
	ctx[0] = (struct smb2_negctx){ SMB2_PREAUTH_INTEGRITY_CAPABILITIES, d1,
				       (uint16_t)dlen };
	d2 = smb2_negctx_encryption_push(*state, SMB2_ENCRYPTION_AES128_GCM,
					 &dlen);
	ctx[1] = (struct smb2_negctx){ SMB2_ENCRYPTION_CAPABILITIES, d2,
				       (uint16_t)dlen };
	out = smb2_negprot_rsp_push(*state, &r, &len);
	assert_non_null(out);
	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
	talloc_free(d1);
	talloc_free(d2);
}

static void test_negprot__rsp_2x_and_empty(void **state)
{
	struct smb2_negctx ctx = { SMB2_ENCRYPTION_CAPABILITIES, NULL, 0 };
	struct smb2_negprot_rsp r = { .dialect = SMB2_DIALECT_0210,
				      .negctx = &ctx, .num_negctx = 1 };
	size_t len = 0;
	uint8_t *out = NULL;

	/* contexts are refused below 3.1.1 */
	assert_null(smb2_negprot_rsp_push(*state, &r, &len));
	r.num_negctx = 0;
	out = smb2_negprot_rsp_push(*state, &r, &len);
	assert_int_equal(len, 65);		/* the pad byte */
	assert_int_equal(pull_le16(out + 56), 0x80);
	assert_int_equal(pull_le16(out + 58), 0);
	assert_int_equal(pull_le32(out + 60), 0);
	assert_int_equal(pull_le16(out + 6), 0);
	talloc_free(out);
}

static void test_negctx__pushes(void **state)
{
	static const uint8_t want_sig[] = { 1, 0, 2, 0 };
	static const uint8_t want_comp[] = { 2, 0, 0, 0, 1, 0, 0, 0,
					     5, 0, 4, 0 };
	static const uint16_t algs[] = { SMB2_COMPRESSION_LZ4,
					 SMB2_COMPRESSION_PATTERN_V1 };
	size_t len = 0;
	uint8_t *d = smb2_negctx_signing_push(*state, SMB2_SIGNING_AES_GMAC,
					      &len);

	assert_bytes(d, len, want_sig, sizeof(want_sig));
	talloc_free(d);
	d = smb2_negctx_compression_push(*state,
		SMB2_COMPRESSION_CAPABILITIES_FLAG_CHAINED, algs, 2, &len);
	assert_bytes(d, len, want_comp, sizeof(want_comp));
	talloc_free(d);
	assert_null(smb2_negctx_compression_push(*state, 0, algs, 0, &len));
}

/* ------------------------------------------------------------------ */
/* SMB1 NEGOTIATE detection                                            */

static void test_smb1__wants_smb2(void **state)
{
	static const char *const win7[] = { "PC NETWORK PROGRAM 1.0",
					    "NT LM 0.12", "SMB 2.002",
					    "SMB 2.???" };
	static const char *const vista[] = { "NT LM 0.12", "SMB 2.002" };
	static const char *const old[] = { "NT LM 0.12", "SMB 2.003" };
	uint8_t buf[256];
	uint16_t d = 0;
	size_t len = mk_smb1_negprot(buf, win7, 4);
	size_t n = 0;

	assert_true(smb1_negprot_wants_smb2(buf, len, &d));
	assert_int_equal(d, SMB2_DIALECT_WILDCARD);
	/* every truncation: false (the last string loses its NUL) */
	for (n = 0; n < len; n++) {
		uint8_t *g = guard_dup(buf, n);

		assert_false(smb1_negprot_wants_smb2(g, n, &d));
		guard_free(g);
	}
	len = mk_smb1_negprot(buf, vista, 2);
	assert_true(smb1_negprot_wants_smb2(buf, len, &d));
	assert_int_equal(d, SMB2_DIALECT_0202);
	len = mk_smb1_negprot(buf, old, 2);
	assert_false(smb1_negprot_wants_smb2(buf, len, &d));
	/* not a NEGOTIATE; an SMB2 header */
	len = mk_smb1_negprot(buf, win7, 4);
	buf[4] = 0x73;
	assert_false(smb1_negprot_wants_smb2(buf, len, &d));
	assert_false(smb1_negprot_wants_smb2(cap_negprot, sizeof(cap_negprot),
					     &d));
}

static void test_smb1__lying_counts(void **state)
{
	static const char *const win7[] = { "NT LM 0.12", "SMB 2.???" };
	uint8_t buf[256];
	uint16_t d = 0;
	size_t len = mk_smb1_negprot(buf, win7, 2);
	uint8_t *g = NULL;

	push_le16(buf + 33, (uint16_t)(len - 35 + 1));	/* ByteCount */
	g = guard_dup(buf, len);
	assert_false(smb1_negprot_wants_smb2(g, len, &d));
	guard_free(g);
	push_le16(buf + 33, (uint16_t)(len - 35));
	buf[32] = 0xFF;					/* WordCount */
	g = guard_dup(buf, len);
	assert_false(smb1_negprot_wants_smb2(g, len, &d));
	guard_free(g);
	buf[32] = 0;
	buf[35] = 0x03;				/* not a dialect string */
	assert_false(smb1_negprot_wants_smb2(buf, len, &d));
}

/* ------------------------------------------------------------------ */

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_negprot__capture_311),
		T(test_negprot__capture_202),
		T(test_negprot__truncations),
		T(test_negprot__bad_dialects),
		T(test_negprot__bad_context_list),
		T(test_negprot__2x_ignores_contexts),
		T(test_negprot__context_alignment),
		T(test_negprot__max_contexts),
		T(test_negctx__typed_pulls_reject),
		T(test_negprot__rsp_311),
		T(test_negprot__rsp_2x_and_empty),
		T(test_negctx__pushes),
		T(test_smb1__wants_smb2),
		T(test_smb1__lying_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
