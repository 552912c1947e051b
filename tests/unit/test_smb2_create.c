/*
 * Unit tests for CREATE in lib/smb2: the request and
 * response (create_codec.c), create contexts (create_ctx.c), leases
 * (lease_ctx.c), durable handles (durable_ctx.c), the fixed-size AlSi,
 * MxAc and QFid contexts (create_ctx_simple.c) and the oplock and
 * lease breaks of what an open was granted (break_codec.c).
 */
#include <string.h>
#include "tests/unit/smb2_test_util.h"
#include "lib/util/byteorder.h"

/* Samba's answer to cap_create_root, captured with it. */
static const uint8_t cap_create_rsp[152] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7c, 0x3a, 0xbd, 0xe3, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x59, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x44, 0x97, 0x69, 0x8b, 0xce, 0x7a, 0xdd, 0x01, 0x44, 0x97, 0x69, 0x8b,
	0xce, 0x7a, 0xdd, 0x01, 0x44, 0x97, 0x69, 0x8b, 0xce, 0x7a, 0xdd, 0x01,
	0x44, 0x97, 0x69, 0x8b, 0xce, 0x7a, 0xdd, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x78, 0x92, 0xfe, 0x60,
	0x00, 0x00, 0x00, 0x00, 0x3c, 0x69, 0x71, 0x0a, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
};

/* ------------------------------------------------------------------ */
/* CREATE and create contexts                                          */

static void test_create__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_create_f,
				    sizeof(cap_create_f));
	struct smb2_create_req r;
	char *name = NULL;

	assert_true(IS_OK(smb2_create_req_pull(p, &r)));
	assert_int_equal(r.impersonation_level,
			 SMB2_IMPERSONATION_IMPERSONATION);
	assert_int_equal(r.desired_access, SMB2_FILE_READ_ATTRIBUTES);
	assert_int_equal(r.share_access, SMB2_FILE_SHARE_READ |
			 SMB2_FILE_SHARE_WRITE | SMB2_FILE_SHARE_DELETE);
	assert_int_equal(r.create_disposition, SMB2_FILE_OPEN);
	assert_int_equal(r.contexts.num, 0);
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, r.name.data, r.name.len,
					     &name)));
	assert_string_equal(name, "f");
	talloc_free(name);
	check_truncations(cap_create_f, sizeof(cap_create_f),
			  SMB2_HDR_SIZE + 56 + 2);
	talloc_free(p);

	p = carve1(*state, cap_create_root, sizeof(cap_create_root));
	assert_true(IS_OK(smb2_create_req_pull(p, &r)));
	assert_int_equal(r.name.len, 0);
	assert_null(r.name.data);
	assert_int_equal(r.create_options, SMB2_FILE_DIRECTORY_FILE);
	check_truncations(cap_create_root, sizeof(cap_create_root),
			  SMB2_HDR_SIZE + 56);
	talloc_free(p);
}

static const uint8_t dh2q_data[32] = { [24] = 0xC1, 0xC2, 0xC3, 0xC4, 0xC5,
				       0xC6, 0xC7, 0xC8 };

static void test_create_ctx__push_layout(void **state)
{
	struct smb2_create_ctx c[2] = {
		{ (const uint8_t *)"MxAc", 4, NULL, 0 },
		{ (const uint8_t *)"DH2Q", 4, dh2q_data, sizeof(dh2q_data) },
	};
	size_t len = 0;
	uint8_t *out = smb2_create_ctx_push(*state, c, 2, &len);

	assert_bytes(out, len, ctx_chain, sizeof(ctx_chain));
	talloc_free(out);
	out = smb2_create_ctx_push(*state, c, 0, &len);
	assert_non_null(out);
	assert_int_equal(len, 0);
	talloc_free(out);
}

static NTSTATUS ctx_parse_guarded(const uint8_t *buf, size_t len,
				  struct smb2_create_ctx_list *l)
{
	uint8_t *g = guard_dup(buf, len);
	NTSTATUS status = smb2_create_ctx_parse(g, len, l);

	guard_free(g);
	return status;
}

static void test_create_ctx__parse_and_find(void **state)
{
	struct smb2_create_ctx_list *l = talloc(*state,
						struct smb2_create_ctx_list);
	const struct smb2_create_ctx *c = NULL;
	size_t n = 0;

	assert_true(IS_OK(smb2_create_ctx_parse(ctx_chain, sizeof(ctx_chain),
						l)));
	assert_int_equal(l->num, 2);
	c = smb2_create_ctx_find(l, SMB2_CREATE_TAG_DH2Q, &n);
	assert_int_equal(n, 1);
	assert_int_equal(c->data_len, 32);
	assert_memory_equal(c->data, dh2q_data, 32);
	c = smb2_create_ctx_find(l, SMB2_CREATE_TAG_MXAC, &n);
	assert_ptr_equal(c->name, ctx_chain + 16);
	assert_int_equal(c->data_len, 0);
	assert_null(smb2_create_ctx_find(l, "MxA", &n));
	assert_null(smb2_create_ctx_find(l, SMB2_CREATE_TAG_QFID, &n));
	assert_int_equal(n, 0);
	/* every prefix but the empty list and the whole one is bad */
	for (n = 0; n <= sizeof(ctx_chain); n++) {
		NTSTATUS st = ctx_parse_guarded(ctx_chain, n, l);

		assert_true(IS_OK(st) == (n == 0 || n == sizeof(ctx_chain)));
	}
	talloc_free(l);
}

/* One damaged field of ctx_chain at a time (RELIABILITY.md item 31). */
static void test_create_ctx__rejects(void **state)
{
	static const struct {
		size_t ofs;
		int width;
		uint32_t val;
	} bad[] = {
		{ 0, 4, 0x14 },		/* Next misaligned */
		{ 0, 4, 0x08 },		/* Next inside the header */
		{ 0, 4, 0x50 },		/* Next == the end: nothing there */
		{ 0, 4, 0x1000 },	/* Next past the end */
		{ 0, 4, 0xFFFFFFF8 },	/* Next wraps */
		{ 6, 2, 2 },		/* NameLength < 4 */
		{ 6, 2, 9 },		/* name past the context's Next */
		{ 4, 2, 0 },		/* NameOffset inside the header */
		{ 4, 2, 0xFFFF },	/* NameOffset past the end */
		{ 24 + 10, 2, 0 },	/* DataOffset 0, DataLength 32 */
		{ 24 + 10, 2, 0x10 },	/* data over the name */
		{ 24 + 10, 2, 0x1C },	/* data misaligned */
		{ 24 + 10, 2, 0x20 },	/* data past the end */
		{ 24 + 12, 4, 33 },	/* DataLength past the end */
		{ 24 + 12, 4, 0xFFFFFFFF },
		{ 12, 4, 1 },		/* MxAc: data 1 byte at offset 0 */
	};
	struct smb2_create_ctx_list *l = talloc(*state,
						struct smb2_create_ctx_list);
	uint8_t b[sizeof(ctx_chain)];
	size_t i = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(b, ctx_chain, sizeof(b));
		if (bad[i].width == 2) {
			push_le16(b + bad[i].ofs, (uint16_t)bad[i].val);
		} else {
			push_le32(b + bad[i].ofs, bad[i].val);
		}
		assert_true(IS_IP(ctx_parse_guarded(b, sizeof(b), l)));
	}
	talloc_free(l);
}

static void test_create_ctx__max(void **state)
{
	struct smb2_create_ctx c[SMB2_CREATE_CTX_MAX + 1];
	struct smb2_create_ctx_list *l = talloc(*state,
						struct smb2_create_ctx_list);
	size_t len = 0;
	size_t i = 0;
	uint8_t *chain = NULL;

	for (i = 0; i <= SMB2_CREATE_CTX_MAX; i++) {
		c[i] = (struct smb2_create_ctx){ (const uint8_t *)"QFid", 4,
						 NULL, 0 };
	}
	chain = smb2_create_ctx_push(*state, c, SMB2_CREATE_CTX_MAX, &len);
	assert_true(IS_OK(ctx_parse_guarded(chain, len, l)));
	assert_true(IS_OK(smb2_create_ctx_parse(chain, len, l)));
	assert_int_equal(l->num, SMB2_CREATE_CTX_MAX);
	smb2_create_ctx_find(l, SMB2_CREATE_TAG_QFID, &i);
	assert_int_equal(i, SMB2_CREATE_CTX_MAX);
	talloc_free(chain);
	chain = smb2_create_ctx_push(*state, c, SMB2_CREATE_CTX_MAX + 1, &len);
	assert_true(IS_IP(ctx_parse_guarded(chain, len, l)));
	talloc_free(chain);
	talloc_free(l);
}

static void test_create__with_contexts(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 200];
	size_t len = mk_create_with_ctx(buf);
	struct smb2_pdu *p = carve1(*state, buf, len);
	struct smb2_create_req *r = talloc(*state, struct smb2_create_req);
	char *name = NULL;

	assert_true(IS_OK(smb2_create_req_pull(p, r)));
	assert_int_equal(r->contexts.num, 2);
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, r->name.data,
					     r->name.len, &name)));
	assert_string_equal(name, "a\\b");
	check_truncations(buf, len, len);

	/* name overlapping the contexts; odd name; name before Buffer */
	push_le16(buf + SMB2_HDR_SIZE + 46, 10);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(buf + SMB2_HDR_SIZE + 46, 5);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(buf + SMB2_HDR_SIZE + 46, 6);
	push_le16(buf + SMB2_HDR_SIZE + 44, 0x70);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(buf + SMB2_HDR_SIZE + 44, 0x78);
	/* contexts length past the end */
	push_le32(buf + SMB2_HDR_SIZE + 52, sizeof(ctx_chain) + 1);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le32(buf + SMB2_HDR_SIZE + 52, 0xFFFFFFFF);
	assert_true(IS_IP(carve_pull(buf, len)));
	talloc_free(name);
	talloc_free(r);
	talloc_free(p);
}

/* Byte-exact against Samba's answer to the captured root CREATE. */
static void test_create__rsp_matches_samba(void **state)
{
	const uint64_t t = 0x01dd7ace8b699744ULL;
	struct smb2_create_rsp r = {
		.create_action = SMB2_FILE_OPENED,
		.creation_time = t, .last_access_time = t,
		.last_write_time = t, .change_time = t,
		.file_attributes = SMB2_FILE_ATTRIBUTE_DIRECTORY,
		.file_id = { 0x60fe9278, 0x0a71693c },
	};
	size_t len = 0;
	uint8_t *out = smb2_create_rsp_push(*state, &r, &len);

	/* Samba omits the pad byte; we send it, as Windows does */
	assert_int_equal(len, 89);
	assert_int_equal(out[88], 0);
	assert_bytes(out, 88, cap_create_rsp + SMB2_HDR_SIZE,
		     sizeof(cap_create_rsp) - SMB2_HDR_SIZE);
	talloc_free(out);
}

static void test_create__rsp_contexts(void **state)
{
	static const uint8_t mxac[8] = { 0, 0, 0, 0, 0xff, 0x01, 0x1f, 0 };
	struct smb2_create_ctx c = { (const uint8_t *)"MxAc", 4, mxac, 8 };
	struct smb2_create_rsp r = { .contexts = &c, .num_contexts = 1 };
	size_t len = 0;
	uint8_t *out = smb2_create_rsp_push(*state, &r, &len);

	assert_int_equal(len, 88 + 32);
	assert_int_equal(pull_le32(out + 80), 0x98);
	assert_int_equal(pull_le32(out + 84), 32);
	assert_int_equal(pull_le32(out + 88), 0);	/* Next */
	assert_int_equal(pull_le16(out + 88 + 10), 24);	/* DataOffset */
	assert_memory_equal(out + 88 + 16, "MxAc", 4);
	assert_memory_equal(out + 88 + 24, mxac, 8);
	talloc_free(out);
}

static void test_lease__pull_push(void **state)
{
	uint8_t data[SMB2_LEASE_V2_SIZE + 1] = { 0x11, [15] = 0x1F };
	struct smb2_create_ctx c = { (const uint8_t *)"RqLs", 4, data, 0 };
	struct smb2_lease l;
	size_t len = 0;
	uint8_t *out = NULL;
	uint32_t n = 0;

	push_le32(data + 16, SMB2_LEASE_READ_CACHING |
		  SMB2_LEASE_HANDLE_CACHING);
	data[32] = 0x22;			/* ParentLeaseKey[0] */
	push_le16(data + 48, 9);		/* Epoch */
	for (n = 0; n <= sizeof(data); n++) {
		uint8_t *g = guard_dup(data, n);
		NTSTATUS st;

		c.data = g;
		c.data_len = n;
		st = smb2_lease_pull(&c, &l);
		assert_true(IS_OK(st) == (n == 32 || n == 52));
		guard_free(g);
	}
	c.data = data;
	c.data_len = SMB2_LEASE_V2_SIZE;
	assert_true(IS_OK(smb2_lease_pull(&c, &l)));
	assert_int_equal(l.version, 2);
	assert_int_equal(l.key[0], 0x11);
	assert_int_equal(l.key[15], 0x1F);
	assert_int_equal(l.state, 3);
	assert_int_equal(l.parent_key[0], 0x22);
	assert_int_equal(l.epoch, 9);
	out = smb2_lease_push(*state, &l, &len);
	assert_bytes(out, len, data, SMB2_LEASE_V2_SIZE);
	talloc_free(out);
	l.version = 1;
	out = smb2_lease_push(*state, &l, &len);
	assert_bytes(out, len, data, SMB2_LEASE_V1_SIZE);
	talloc_free(out);
}

/* A context list of the given (tag, data length) pairs over data. */
static void durable_list(struct smb2_create_ctx_list *l, const uint8_t *data,
			 const char *const *tags, const uint32_t *lens,
			 size_t n)
{
	size_t i = 0;

	*l = (struct smb2_create_ctx_list){};
	for (i = 0; i < n; i++) {
		l->ctx[i] = (struct smb2_create_ctx){
			(const uint8_t *)tags[i], 4, data, lens[i] };
	}
	l->num = n;
}

static NTSTATUS durable_pull2(const uint8_t *data, const char *t1,
			      uint32_t l1, const char *t2, uint32_t l2,
			      struct smb2_durable_req *r)
{
	const char *tags[2] = { t1, t2 };
	const uint32_t lens[2] = { l1, l2 };
	struct smb2_create_ctx_list l;

	durable_list(&l, data, tags, lens, t2 != NULL ? 2 : 1);
	return smb2_durable_req_pull(&l, r);
}

static void test_durable__pull_each(void **state)
{
	uint8_t data[40] = {};
	struct smb2_durable_req r;
	uint32_t n = 0;

	push_le64(data, 0x1122334455667788ULL);	/* DH2C: Persistent */
	push_le64(data + 8, 0x99);		/* DH2C: Volatile */
	data[16] = 0xAB;			/* DH2C: CreateGuid[0] */
	push_le32(data + 32, 0);		/* DH2C: Flags */
	assert_true(IS_OK(durable_pull2(data, "DH2C", 36, NULL, 0, &r)));
	assert_true(r.v2_reconnect && !r.v1_reconnect);
	assert_true(r.file_id.persistent == 0x1122334455667788ULL);
	assert_true(r.file_id.volatile_id == 0x99);
	assert_int_equal(r.create_guid[0], 0xAB);
	assert_true(IS_OK(durable_pull2(data, "DHnC", 16, NULL, 0, &r)));
	assert_true(r.v1_reconnect);
	assert_true(r.file_id.persistent == 0x1122334455667788ULL);
	/* DH2Q: Timeout, Flags, Reserved, CreateGuid */
	push_le32(data, 30000);
	push_le32(data + 4, SMB2_DHANDLE_FLAG_PERSISTENT);
	data[16] = 0xCD;
	assert_true(IS_OK(durable_pull2(data, "DH2Q", 32, NULL, 0, &r)));
	assert_true(r.v2_request);
	assert_int_equal(r.timeout, 30000);
	assert_int_equal(r.flags, SMB2_DHANDLE_FLAG_PERSISTENT);
	assert_int_equal(r.create_guid[0], 0xCD);
	assert_true(IS_OK(durable_pull2(data, "DHnQ", 16, NULL, 0, &r)));
	assert_true(r.v1_request && !r.v2_request);
	/* exact lengths only */
	for (n = 0; n <= sizeof(data); n++) {
		uint8_t *g = guard_dup(data, n);

		assert_true(IS_OK(durable_pull2(g, "DHnQ", n, NULL, 0, &r)) ==
			    (n == 16));
		assert_true(IS_OK(durable_pull2(g, "DHnC", n, NULL, 0, &r)) ==
			    (n == 16));
		assert_true(IS_OK(durable_pull2(g, "DH2Q", n, NULL, 0, &r)) ==
			    (n == 32));
		assert_true(IS_OK(durable_pull2(g, "DH2C", n, NULL, 0, &r)) ==
			    (n == 36));
		guard_free(g);
	}
}

/* MS-SMB2 3.3.5.9.7, 3.3.5.9.12 (smbtorture durable-v2-open.create-blob) */
static void test_durable__combinations(void **state)
{
	uint8_t data[40] = {};
	struct smb2_durable_req r;

	assert_true(IS_OK(durable_pull2(data, "MxAc", 0, NULL, 0, &r)));
	assert_false(r.v1_request || r.v2_request || r.v1_reconnect ||
		     r.v2_reconnect);
	/* DHnQ next to DHnC is ignored */
	assert_true(IS_OK(durable_pull2(data, "DHnC", 16, "DHnQ", 16, &r)));
	assert_true(r.v1_reconnect && !r.v1_request);
	assert_int_equal(durable_pull2(data, "DHnQ", 16, "DH2Q", 32, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DH2C", 36, "DHnQ", 16, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DHnC", 16, "DH2Q", 32, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DHnC", 16, "DH2C", 36, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DH2C", 36, "DH2Q", 32, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DHnQ", 16, "DHnQ", 16, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
}

static void test_durable__app_instance(void **state)
{
	uint8_t data[24] = { 20, 0, 0, 0, 0xA1, [19] = 0xA2 };
	const char *tags[1] = { SMB2_CREATE_TAG_APP_INSTANCE_ID };
	uint32_t lens[1] = { SMB2_APP_INSTANCE_ID_SIZE };
	struct smb2_create_ctx_list l;
	uint8_t id[16];
	bool present = true;
	uint32_t n = 0;

	durable_list(&l, data, tags, lens, 0);
	assert_true(IS_OK(smb2_app_instance_pull(&l, &present, id)));
	assert_false(present);
	durable_list(&l, data, tags, lens, 1);
	assert_int_equal(l.ctx[0].name_len, 4);
	l.ctx[0].name_len = 16;
	assert_true(IS_OK(smb2_app_instance_pull(&l, &present, id)));
	assert_true(present);
	assert_int_equal(id[0], 0xA1);
	assert_int_equal(id[15], 0xA2);
	for (n = 0; n <= sizeof(data); n++) {
		uint8_t *g = guard_dup(data, n);

		l.ctx[0].data = g;
		l.ctx[0].data_len = n;
		assert_true(IS_OK(smb2_app_instance_pull(&l, &present, id)) ==
			    (n == SMB2_APP_INSTANCE_ID_SIZE));
		guard_free(g);
	}
	data[0] = 19;				/* StructureSize */
	l.ctx[0].data = data;
	l.ctx[0].data_len = SMB2_APP_INSTANCE_ID_SIZE;
	assert_false(IS_OK(smb2_app_instance_pull(&l, &present, id)));
}

static void test_durable__rsp_push(void **state)
{
	static const uint8_t v1[8] = {};
	static const uint8_t v2[8] = { 0xE0, 0x93, 0x04, 0, 2, 0, 0, 0 };
	size_t len = 0;
	uint8_t *out = smb2_durable_rsp_push(*state, false, 5, 6, &len);

	assert_bytes(out, len, v1, sizeof(v1));
	talloc_free(out);
	out = smb2_durable_rsp_push(*state, true, 300000, 2, &len);
	assert_bytes(out, len, v2, sizeof(v2));
	talloc_free(out);
}

/* ------------------------------------------------------------------ */
/* AlSi, MxAc, QFid (create_ctx_simple.c)                              */

static void test_alsi__pull(void **state)
{
	struct smb2_create_ctx_list *l = talloc(*state,
						struct smb2_create_ctx_list);
	const struct smb2_create_ctx *alsi = NULL;
	struct smb2_create_ctx c = {};
	uint8_t data[SMB2_ALSI_SIZE + 1] = { 0, 0, 0x10 };
	uint64_t size = 7;
	size_t n = 0;
	uint32_t i;

	assert_true(IS_OK(smb2_create_ctx_parse(ctx_alsi_qfid,
						sizeof(ctx_alsi_qfid), l)));
	alsi = smb2_create_ctx_find(l, SMB2_CREATE_TAG_ALSI, &n);
	assert_non_null(alsi);
	assert_true(IS_OK(smb2_alsi_pull(alsi, &size)));
	assert_int_equal(size, 1048576);
	/* exactly 8 bytes: shorter or longer fails, under a guard page */
	for (i = 0; i <= sizeof(data); i++) {
		uint8_t *g = guard_dup(data, i);

		c = (struct smb2_create_ctx){ (const uint8_t *)"AlSi", 4,
					      g, i };
		size = 7;
		assert_true(IS_OK(smb2_alsi_pull(&c, &size)) ==
			    (i == SMB2_ALSI_SIZE));
		assert_int_equal(size, i == SMB2_ALSI_SIZE ? 0x100000 : 0);
		guard_free(g);
	}
	talloc_free(l);
}

static void test_mxac__rsp_push(void **state)
{
	static const uint8_t want[8] = { 0, 0, 0, 0, 0xff, 0x01, 0x1f, 0x00 };
	const struct smb2_mxac_rsp m = { .maximal_access = 0x001f01ff };
	size_t len = 0;
	uint8_t *out = smb2_mxac_rsp_push(*state, &m, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
}

static void test_qfid__rsp_push(void **state)
{
	static const uint8_t want[32] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x01, 0x08, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00,
	};
	/* the inode, and the device as major << 32 | minor (259:2049) */
	const struct smb2_qfid_rsp q = {
		.disk_file_id = 0x0102030405060708ULL,
		.volume_id = (259ULL << 32) | 2049,
	};
	size_t len = 0;
	uint8_t *out = smb2_qfid_rsp_push(*state, &q, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
}

/* MxAc and QFid in a CREATE response, as smbd sends them. */
static void test_create__rsp_mxac_qfid(void **state)
{
	const struct smb2_mxac_rsp m = { .maximal_access = 0x001f01ff };
	const struct smb2_qfid_rsp q = { .disk_file_id = 42, .volume_id = 7 };
	struct smb2_create_ctx ctx[2] = {
		{ .name = (const uint8_t *)SMB2_CREATE_TAG_MXAC,
		  .name_len = 4 },
		{ .name = (const uint8_t *)SMB2_CREATE_TAG_QFID,
		  .name_len = 4 },
	};
	struct smb2_create_ctx_list *l = talloc(*state,
						struct smb2_create_ctx_list);
	size_t len = 0, n = 0, chain_len = 0;
	uint8_t *d0 = smb2_mxac_rsp_push(*state, &m, &len);
	uint8_t *d1 = NULL;
	uint8_t *chain = NULL;
	const struct smb2_create_ctx *got = NULL;

	ctx[0].data = d0;
	ctx[0].data_len = (uint32_t)len;
	d1 = smb2_qfid_rsp_push(*state, &q, &len);
	ctx[1].data = d1;
	ctx[1].data_len = (uint32_t)len;
	chain = smb2_create_ctx_push(*state, ctx, 2, &chain_len);
	assert_non_null(chain);
	assert_true(IS_OK(smb2_create_ctx_parse(chain, chain_len, l)));
	got = smb2_create_ctx_find(l, SMB2_CREATE_TAG_MXAC, &n);
	assert_int_equal(got->data_len, SMB2_MXAC_RSP_SIZE);
	assert_int_equal(pull_le32(got->data + 4), 0x001f01ff);
	got = smb2_create_ctx_find(l, SMB2_CREATE_TAG_QFID, &n);
	assert_int_equal(got->data_len, SMB2_QFID_RSP_SIZE);
	assert_int_equal(pull_le64(got->data), 42);
	assert_int_equal(pull_le64(got->data + 8), 7);
	talloc_free(chain);
	talloc_free(d1);
	talloc_free(d0);
	talloc_free(l);
}

/* ------------------------------------------------------------------ */
/* OPLOCK_BREAK, LEASE_BREAK                                           */

static void test_break__pushes(void **state)
{
	struct smb2_file_id fid = { 1, 2 };
	struct smb2_lease_break lb = { .new_epoch = 3, .flags = 1,
				       .lease_key = { 0xAA },
				       .current_state = 7, .new_state = 1 };
	uint8_t key[16] = { 0xBB };
	size_t len = 0;
	uint8_t *out = smb2_oplock_break_push(*state, SMB2_OPLOCK_LEVEL_II,
					      &fid, &len);

	assert_int_equal(len, 24);
	assert_int_equal(out[2], SMB2_OPLOCK_LEVEL_II);
	assert_int_equal(pull_le64(out + 16), 2);
	out = smb2_lease_break_push(*state, &lb, &len);
	assert_int_equal(len, 44);
	assert_int_equal(pull_le16(out + 2), 3);
	assert_int_equal(out[8], 0xAA);
	assert_int_equal(pull_le32(out + 24), 7);
	assert_int_equal(pull_le32(out + 28), 1);
	out = smb2_lease_break_rsp_push(*state, key, 3, &len);
	assert_int_equal(len, 36);
	assert_int_equal(out[8], 0xBB);
	assert_int_equal(pull_le32(out + 24), 3);
	talloc_free_children(*state);
}

/* ------------------------------------------------------------------ */

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_create__capture),
		T(test_create_ctx__push_layout),
		T(test_create_ctx__parse_and_find),
		T(test_create_ctx__rejects),
		T(test_create_ctx__max),
		T(test_create__with_contexts),
		T(test_create__rsp_matches_samba),
		T(test_create__rsp_contexts),
		T(test_lease__pull_push),
		T(test_durable__pull_each),
		T(test_durable__combinations),
		T(test_durable__rsp_push),
		T(test_durable__app_instance),
		T(test_alsi__pull),
		T(test_mxac__rsp_push),
		T(test_qfid__rsp_push),
		T(test_create__rsp_mxac_qfid),
		T(test_break__pushes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
