/*
 * The calls behind the pipes of source3/rpc_server: srvsvc (srvsvc.c,
 * MS-SRVS) NetShareEnumAll, NetShareEnum, NetShareGetInfo,
 * NetSrvGetInfo, and wkssvc (wkssvc.c, MS-WKST) NetWkstaGetInfo.  Each
 * response stub is walked field by field in MS-SRVS / MS-WKST order
 * (referents after their structure, strings as [string] wchar_t), to
 * its last byte, against a fake SMB side with a fixed share list
 * (rpc_server_test_util.c).  The pipe layer is test_rpc_server.c.
 *
 * Values that are policy rather than wire format (WERROR codes, version
 * numbers, which shares a level lists) are what srvsvc.c and wkssvc.c
 * answer today, meant to be Samba's; they are named once at the top.
 */
#include <string.h>
#include "tests/unit/rpc_server_test_util.h"

/* What srvsvc.c and wkssvc.c answer (as Samba does) */
#define PLATFORM_ID_NT		500
#define VERSION_MAJOR		6
#define VERSION_MINOR		1
/* SV_TYPE_WORKSTATION | SERVER | SERVER_UNIX | NT | SERVER_NT */
#define SERVER_TYPE		0x00009803
#define TYPE_IPC		0x80000003
#define MAX_USES_UNLIMITED	0xFFFFFFFF
/* NetShareGetInfo of a share that is not there (Samba; Windows: 2310) */
#define WERR_SHARE_NOT_FOUND	WERR_INVALID_NAME
/* a share name that is not valid UTF-8: the call cannot answer */
#define FAULT_CANNOT_ENCODE	DCERPC_NCA_S_FAULT_REMOTE_NO_MEMORY

/* One SHARE_INFO_<level> as it came back (absent fields 0 / NULL). */
struct share_rec {
	char *name;
	uint32_t type;
	char *comment;
	uint32_t permissions, max_uses, current_uses;
	char *path;
	uint32_t flags;		/* shi501_flags, shi1005_flags */
};

struct enum_res {
	uint32_t level;
	uint32_t count;
	struct share_rec *s;
	uint32_t total;
	bool have_resume;
	uint32_t resume;
	uint32_t werr;
};

static bool level_has_arm(uint32_t level)
{
	return level == 0 || level == 1 || level == 2 || level == 501 ||
	       level == 502;
}

/* The fixed part of one SHARE_INFO_<level>; pointers must be there. */
static void pull_share_scalars(struct ndr_pull *c, uint32_t level,
			       struct share_rec *r)
{
	rt_pull_ptr(c, true);				/* netname */
	if (level == 0) {
		return;
	}
	r->type = ndr_pull_u32(c);
	rt_pull_ptr(c, true);				/* remark */
	if (level == 1) {
		return;
	}
	if (level == 501) {
		r->flags = ndr_pull_u32(c);
		return;
	}
	r->permissions = ndr_pull_u32(c);
	r->max_uses = ndr_pull_u32(c);
	r->current_uses = ndr_pull_u32(c);
	rt_pull_ptr(c, true);				/* path */
	rt_pull_ptr(c, false);				/* passwd */
	if (level == 502) {
		assert_int_equal(ndr_pull_u32(c), 0);	/* reserved */
		rt_pull_ptr(c, false);			/* security desc */
	}
	assert_false(c->bad);
}

static void pull_share_buffers(TALLOC_CTX *t, struct ndr_pull *c,
			       uint32_t level, struct share_rec *r)
{
	r->name = rt_pull_wstr(t, c);
	if (level == 0) {
		return;
	}
	r->comment = rt_pull_wstr(t, c);
	if (level == 2 || level == 502) {
		r->path = rt_pull_wstr(t, c);
	}
}

/*
 * A NetShareEnum(All) response stub (MS-SRVS 3.1.4.8): InfoStruct
 * (level, switch, container pointer, EntriesRead, Buffer pointer,
 * conformance, the entries, their strings), TotalEntries,
 * ResumeHandle, WERROR, and nothing after.
 */
static void pull_enum(TALLOC_CTX *t, const uint8_t *stub, size_t len,
		      struct enum_res *e)
{
	struct ndr_pull c = ndr_pull_init(stub, len);
	uint32_t i;
	uint32_t ref = 0;

	*e = (struct enum_res){};
	e->level = ndr_pull_u32(&c);
	assert_int_equal(ndr_pull_u32(&c), e->level);
	if (level_has_arm(e->level)) {
		rt_pull_ptr(&c, true);
		e->count = ndr_pull_u32(&c);
		rt_pull_ptr(&c, e->count > 0);
		if (e->count > 0) {
			assert_int_equal(ndr_pull_u32(&c), e->count);
		}
		assert_true(e->count < 1000);
		e->s = talloc_zero_array(t, struct share_rec, e->count + 1);
		for (i = 0; i < e->count; i++) {
			pull_share_scalars(&c, e->level, &e->s[i]);
		}
		for (i = 0; i < e->count; i++) {
			pull_share_buffers(t, &c, e->level, &e->s[i]);
		}
	}
	e->total = ndr_pull_u32(&c);
	e->have_resume = ndr_pull_unique_ptr(&c, &ref);
	if (e->have_resume) {
		e->resume = ndr_pull_u32(&c);
	}
	e->werr = ndr_pull_u32(&c);
	assert_false(c.bad);
	assert_int_equal(c.ofs, len);
}

static void enum_call(TALLOC_CTX *t, struct rpc_pipe *p, uint16_t op,
		      uint32_t level, bool have_resume, uint32_t resume,
		      struct enum_res *e)
{
	size_t len = 0;
	uint8_t *stub = rt_stub_enum(t, level, have_resume, resume, &len);
	uint8_t *out = rt_ok(t, p, op, stub, len, &len);

	pull_enum(t, out, len, e);
	assert_int_equal(e->level, level);
}

static void assert_share(const struct share_rec *r, const char *name,
			 uint32_t type, const char *comment)
{
	assert_string_equal(r->name, name);
	assert_int_equal(r->type, type);
	if (comment != NULL) {
		assert_string_equal(r->comment, comment);
	}
}

/*
 * Level 1 from the hand-laid request: data, hidden$ and IPC$, in the
 * list's order; nobrowse (browseable = no) and secret (access based
 * enumeration) left out.
 */
static void test_enum_all__level1(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct enum_res e;
	uint8_t *out = NULL;
	size_t len = 0;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	rt_write_ok(p, v_enum_all_1, sizeof(v_enum_all_1));
	out = rt_read_all(t, p, &len);
	/* one response fragment for call 2 on context 0 */
	assert_int_equal(out[2], DCERPC_PT_RESPONSE);
	assert_int_equal(out[3], 0x03);
	assert_int_equal(out[8] | out[9] << 8, len);
	assert_int_equal(out[12], 2);
	assert_int_equal(out[16] | out[17] << 8, len - 24);
	pull_enum(t, out + 24, len - 24, &e);
	assert_int_equal(e.level, 1);
	assert_int_equal(e.count, 3);
	assert_share(&e.s[0], "data", 0, "Data");
	assert_share(&e.s[1], "hidden$", 0, "Hidden");
	assert_share(&e.s[2], "IPC$", TYPE_IPC, "IPC Service");
	assert_int_equal(e.total, 3);
	assert_true(e.have_resume);
	assert_int_equal(e.resume, 3);
	assert_int_equal(e.werr, WERR_OK);
	assert_int_equal(f.calls, 1);
	TALLOC_FREE(t);
}

/* The first entry's bytes: referent ids as Windows numbers them. */
static void test_enum_all__level1_bytes(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint8_t head[] = {
		1, 0, 0, 0, 1, 0, 0, 0,		/* level, switch */
		0x00, 0x00, 0x02, 0x00,		/* container */
		1, 0, 0, 0,			/* EntriesRead */
		0x04, 0x00, 0x02, 0x00,		/* Buffer */
		1, 0, 0, 0,			/* conformance */
		0x08, 0x00, 0x02, 0x00,		/* shi1_netname */
		0, 0, 0, 0,			/* shi1_type */
		0x0c, 0x00, 0x02, 0x00,		/* shi1_remark */
		5, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0,
		'd', 0, 'a', 0, 't', 0, 'a', 0, 0, 0, 0, 0,	/* + pad */
		5, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0,
		'D', 0, 'a', 0, 't', 0, 'a', 0, 0, 0, 0, 0,
		1, 0, 0, 0,			/* TotalEntries */
		0, 0, 0, 0,			/* no ResumeHandle */
		0, 0, 0, 0,			/* WERROR */
	};
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t len = 0;
	uint8_t *stub = rt_stub_enum(t, 1, false, 0, &len);
	uint8_t *out = NULL;

	rt_client_init(&f, false);
	f.num = 1;
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	out = rt_ok(t, p, OP_SHARE_ENUM_ALL, stub, len, &len);
	assert_int_equal(len, sizeof(head));
	assert_memory_equal(out, head, sizeof(head));
	TALLOC_FREE(t);
}

/* NetShareEnum (36) leaves out every name ending in '$' as well. */
static void test_enum__hides_dollar_shares(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct enum_res e;

	rt_client_init(&f, true);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	enum_call(t, p, OP_SHARE_ENUM, 1, true, 0, &e);
	assert_int_equal(e.count, 1);
	assert_share(&e.s[0], "data", 0, "Data");
	assert_int_equal(e.total, 1);
	assert_int_equal(e.werr, WERR_OK);
	enum_call(t, p, OP_SHARE_ENUM, 0, false, 0, &e);
	assert_int_equal(e.count, 1);
	assert_string_equal(e.s[0].name, "data");
	/* browseable and enumerable flags apply to both calls */
	f.shares[0].browseable = false;
	enum_call(t, p, OP_SHARE_ENUM, 1, false, 0, &e);
	assert_int_equal(e.count, 0);
	assert_int_equal(e.total, 0);
	assert_int_equal(e.werr, WERR_OK);
	enum_call(t, p, OP_SHARE_ENUM_ALL, 1, false, 0, &e);
	assert_int_equal(e.count, 2);
	assert_string_equal(e.s[0].name, "hidden$");
	TALLOC_FREE(t);
}

static void test_enum_all__levels_0_and_501(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct enum_res e;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	enum_call(t, p, OP_SHARE_ENUM_ALL, 0, true, 0, &e);
	assert_int_equal(e.count, 3);
	assert_string_equal(e.s[0].name, "data");
	assert_string_equal(e.s[1].name, "hidden$");
	assert_string_equal(e.s[2].name, "IPC$");
	assert_null(e.s[0].comment);
	assert_int_equal(e.werr, WERR_OK);
	enum_call(t, p, OP_SHARE_ENUM_ALL, 501, true, 0, &e);
	assert_int_equal(e.count, 3);
	assert_share(&e.s[0], "data", 0, "Data");
	assert_share(&e.s[2], "IPC$", TYPE_IPC, "IPC Service");
	assert_int_equal(e.s[0].flags, 0);
	assert_null(e.s[0].path);
	assert_int_equal(e.werr, WERR_OK);
	TALLOC_FREE(t);
}

/* Levels with paths: access denied (an empty container) unless admin. */
static void test_enum_all__levels_2_and_502(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint32_t levels[] = { 2, 502 };
	struct rt_client user, admin;
	struct rpc_pipe *pu = NULL, *pa = NULL;
	struct enum_res e;
	size_t i;

	rt_client_init(&user, false);
	rt_client_init(&admin, true);
	pu = rt_open_bound(t, "srvsvc", &user, 4280, 4280);
	pa = rt_open_bound(t, "srvsvc", &admin, 4280, 4280);
	for (i = 0; i < 2; i++) {
		enum_call(t, pu, OP_SHARE_ENUM_ALL, levels[i], true, 0, &e);
		assert_int_equal(e.werr, WERR_ACCESS_DENIED);
		assert_int_equal(e.count, 0);
		assert_int_equal(e.total, 0);
		enum_call(t, pu, OP_SHARE_ENUM, levels[i], false, 0, &e);
		assert_int_equal(e.werr, WERR_ACCESS_DENIED);
		/* the list was not even asked for */
		assert_int_equal(user.calls, 0);

		enum_call(t, pa, OP_SHARE_ENUM_ALL, levels[i], true, 0, &e);
		assert_int_equal(e.werr, WERR_OK);
		assert_int_equal(e.count, 3);
		assert_share(&e.s[0], "data", 0, "Data");
		assert_string_equal(e.s[0].path, "C:\\srv\\data");
		assert_int_equal(e.s[0].permissions, 0);
		assert_int_equal(e.s[0].max_uses, MAX_USES_UNLIMITED);
		assert_int_equal(e.s[0].current_uses, 2);
		assert_string_equal(e.s[1].path, "C:\\srv\\hidden");
		assert_share(&e.s[2], "IPC$", TYPE_IPC, "IPC Service");
		assert_string_equal(e.s[2].path, "C:\\tmp");
		assert_int_equal(e.s[2].current_uses, 0);
	}
	TALLOC_FREE(t);
}

/* A level with no arm: WERR_INVALID_LEVEL, only the switch is sent. */
static void test_enum_all__unknown_levels(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint32_t levels[] = { 3, 10, 503, 1005, 0xFFFFFFFF };
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct enum_res e;
	size_t i;

	rt_client_init(&f, true);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		enum_call(t, p, OP_SHARE_ENUM_ALL, levels[i], true, 0, &e);
		assert_int_equal(e.werr, WERR_INVALID_LEVEL);
		assert_int_equal(e.total, 0);
		enum_call(t, p, OP_SHARE_ENUM, levels[i], false, 0, &e);
		assert_int_equal(e.werr, WERR_INVALID_LEVEL);
		assert_false(e.have_resume);
	}
	/* 12 bytes of stub before TotalEntries: level, switch; 3 words */
	{
		size_t len = 0;
		uint8_t *stub = rt_stub_enum(t, 3, false, 0, &len);
		uint8_t *out = rt_ok(t, p, OP_SHARE_ENUM_ALL, stub, len, &len);
		static const uint8_t want[20] = {
			3, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			0x7c, 0, 0, 0,
		};

		assert_int_equal(len, sizeof(want));
		assert_memory_equal(out, want, sizeof(want));
	}
	assert_int_equal(f.calls, 0);
	TALLOC_FREE(t);
}

/*
 * ResumeHandle: the listed shares after the first resume ones;
 * TotalEntries counts them all; the handle comes back as that total.
 */
static void test_enum_all__resume_handle(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct enum_res e;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	enum_call(t, p, OP_SHARE_ENUM_ALL, 1, false, 0, &e);
	assert_int_equal(e.count, 3);
	assert_false(e.have_resume);
	enum_call(t, p, OP_SHARE_ENUM_ALL, 1, true, 1, &e);
	assert_int_equal(e.count, 2);
	assert_string_equal(e.s[0].name, "hidden$");
	assert_string_equal(e.s[1].name, "IPC$");
	assert_int_equal(e.total, 3);
	assert_true(e.have_resume);
	assert_int_equal(e.resume, 3);
	enum_call(t, p, OP_SHARE_ENUM_ALL, 1, true, 2, &e);
	assert_int_equal(e.count, 1);
	assert_string_equal(e.s[0].name, "IPC$");
	enum_call(t, p, OP_SHARE_ENUM_ALL, 1, true, 3, &e);
	assert_int_equal(e.count, 0);
	assert_int_equal(e.total, 3);
	assert_int_equal(e.resume, 3);
	assert_int_equal(e.werr, WERR_OK);
	enum_call(t, p, OP_SHARE_ENUM_ALL, 0, true, 0xFFFFFFFF, &e);
	assert_int_equal(e.count, 0);
	assert_int_equal(e.total, 3);
	/* NetShareEnum counts only what it lists */
	enum_call(t, p, OP_SHARE_ENUM, 1, true, 1, &e);
	assert_int_equal(e.count, 0);
	assert_int_equal(e.total, 1);
	assert_int_equal(e.resume, 1);
	TALLOC_FREE(t);
}

/* A share list that cannot be had: WERR_NOT_ENOUGH_MEMORY, no fault. */
static void test_enum_all__list_fails(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct enum_res e;

	rt_client_init(&f, false);
	f.fail = true;
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	enum_call(t, p, OP_SHARE_ENUM_ALL, 1, true, 0, &e);
	assert_int_equal(e.werr, WERR_NOT_ENOUGH_MEMORY);
	assert_int_equal(e.count, 0);
	assert_int_equal(f.calls, 1);
	TALLOC_FREE(t);
}

/* Each call asks the SMB side again: a reload shows at once. */
static void test_enum_all__list_asked_each_call(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct enum_res e;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	enum_call(t, p, OP_SHARE_ENUM_ALL, 1, false, 0, &e);
	assert_int_equal(e.count, 3);
	f.shares[5] = f.shares[0];
	f.shares[5].name = "new";
	f.shares[5].comment = NULL;		/* sent as "" */
	f.shares[5].path = NULL;
	f.num = 6;
	enum_call(t, p, OP_SHARE_ENUM_ALL, 1, false, 0, &e);
	assert_int_equal(e.count, 4);
	assert_share(&e.s[3], "new", 0, "");
	assert_int_equal(f.calls, 2);
	TALLOC_FREE(t);
}

/* Non-ASCII names come back as UTF-16; invalid UTF-8 cannot. */
static void test_enum_all__utf8_names(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	/* "daté" and U+1F600 (a surrogate pair) */
	static const uint8_t units[] = { 'd', 0, 'a', 0, 't', 0, 0xe9, 0,
					 0x3d, 0xd8, 0x00, 0xde };
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct rt_reply r;
	size_t len = 0;
	uint8_t *stub = rt_stub_enum(t, 0, false, 0, &len);
	uint8_t *out = NULL;

	rt_client_init(&f, false);
	f.shares[0].name = "dat\xc3\xa9\xf0\x9f\x98\x80";
	f.num = 1;
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	out = rt_ok(t, p, OP_SHARE_ENUM_ALL, stub, len, &len);
	/* level, switch, ctr, count, buffer, conformance, netname ptr */
	assert_int_equal(out[28], 7);		/* max_count: 6 + NUL */
	assert_int_equal(out[36], 7);		/* actual_count */
	assert_memory_equal(out + 40, units, sizeof(units));
	f.shares[0].name = "bad\xff";
	rt_call(t, p, 4, 0, OP_SHARE_ENUM_ALL, stub, len, &r);
	assert_true(r.fault);
	assert_int_equal(r.status, FAULT_CANNOT_ENCODE);
	assert_false(rpc_pipe_disconnected(p));
	TALLOC_FREE(t);
}

/* A NetShareGetInfo response: level, pointer, SHARE_INFO, WERROR. */
static uint32_t get_info(TALLOC_CTX *t, struct rpc_pipe *p,
			 const char *name, uint32_t level,
			 struct share_rec *r)
{
	size_t len = 0;
	uint8_t *stub = rt_stub_get_info(t, name, level, &len);
	uint8_t *out = rt_ok(t, p, OP_SHARE_GET_INFO, stub, len, &len);
	struct ndr_pull c = ndr_pull_init(out, len);
	uint32_t ref = 0;
	uint32_t werr = 0;

	*r = (struct share_rec){};
	assert_int_equal(ndr_pull_u32(&c), level);
	if (level_has_arm(level) || level == 1005) {
		if (ndr_pull_unique_ptr(&c, &ref)) {
			if (level == 1005) {
				r->flags = ndr_pull_u32(&c);
			} else {
				pull_share_scalars(&c, level, r);
				pull_share_buffers(t, &c, level, r);
			}
		}
	}
	werr = ndr_pull_u32(&c);
	assert_false(c.bad);
	assert_int_equal(c.ofs, len);
	/* an answer comes with the info, an error without */
	assert_true((werr == WERR_OK) == (ref != 0));
	return werr;
}

static void test_get_info__shares(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client user, admin;
	struct rpc_pipe *pu = NULL, *pa = NULL;
	struct share_rec r;

	rt_client_init(&user, false);
	rt_client_init(&admin, true);
	pu = rt_open_bound(t, "srvsvc", &user, 4280, 4280);
	pa = rt_open_bound(t, "srvsvc", &admin, 4280, 4280);
	assert_int_equal(get_info(t, pu, "data", 1, &r), WERR_OK);
	assert_share(&r, "data", 0, "Data");
	/* names match in any case; the answer has the share's own */
	assert_int_equal(get_info(t, pu, "DATA", 0, &r), WERR_OK);
	assert_string_equal(r.name, "data");
	assert_int_equal(get_info(t, pu, "ipc$", 501, &r), WERR_OK);
	assert_share(&r, "IPC$", TYPE_IPC, "IPC Service");
	assert_int_equal(r.flags, 0);
	/* a share that is not listed can still be asked for by name */
	assert_int_equal(get_info(t, pu, "hidden$", 1, &r), WERR_OK);
	assert_int_equal(get_info(t, pu, "nobrowse", 1, &r), WERR_OK);
	assert_share(&r, "nobrowse", 0, "Not listed");
	assert_int_equal(get_info(t, pu, "data", 1005, &r), WERR_OK);
	assert_int_equal(r.flags, 0);
	/* missing */
	assert_int_equal(get_info(t, pu, "nope", 1, &r),
			 WERR_SHARE_NOT_FOUND);
	assert_int_equal(get_info(t, pu, "", 1, &r), WERR_SHARE_NOT_FOUND);
	assert_int_equal(get_info(t, pu, "dat", 1005, &r),
			 WERR_SHARE_NOT_FOUND);
	assert_int_equal(get_info(t, pu, "data2", 0, &r),
			 WERR_SHARE_NOT_FOUND);
	/* paths: administrators only */
	assert_int_equal(get_info(t, pu, "data", 2, &r), WERR_ACCESS_DENIED);
	assert_int_equal(get_info(t, pu, "data", 502, &r),
			 WERR_ACCESS_DENIED);
	assert_int_equal(get_info(t, pa, "data", 2, &r), WERR_OK);
	assert_string_equal(r.path, "C:\\srv\\data");
	assert_int_equal(r.max_uses, MAX_USES_UNLIMITED);
	assert_int_equal(r.current_uses, 2);
	assert_int_equal(get_info(t, pa, "IPC$", 502, &r), WERR_OK);
	assert_string_equal(r.path, "C:\\tmp");
	assert_int_equal(r.type, TYPE_IPC);
	assert_int_equal(get_info(t, pa, "nope", 502, &r),
			 WERR_SHARE_NOT_FOUND);
	/* levels without an arm: the level and the error only */
	assert_int_equal(get_info(t, pa, "data", 3, &r), WERR_INVALID_LEVEL);
	assert_int_equal(get_info(t, pa, "data", 1004, &r),
			 WERR_INVALID_LEVEL);
	assert_int_equal(get_info(t, pa, "data", 1006, &r),
			 WERR_INVALID_LEVEL);
	TALLOC_FREE(t);
}

/* A NetName that is not UTF-16 (a lone surrogate): no such name. */
static void test_get_info__bad_name(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	struct ndr_push w = ndr_push_init(t);
	static const uint8_t units[] = { 'd', 0, 0x00, 0xd8, 0, 0 };
	struct rt_reply r;
	struct ndr_pull c;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	rt_push_server_name(&w, NULL);
	ndr_push_u32(&w, 3);
	ndr_push_u32(&w, 0);
	ndr_push_u32(&w, 3);
	ndr_push_bytes(&w, units, sizeof(units));
	ndr_push_u32(&w, 1);
	rt_call(t, p, 1, 0, OP_SHARE_GET_INFO, w.buf, w.len, &r);
	assert_false(r.fault);
	c = ndr_pull_init(r.stub, r.len);
	assert_int_equal(ndr_pull_u32(&c), 1);
	rt_pull_ptr(&c, false);
	assert_int_equal(ndr_pull_u32(&c), WERR_INVALID_NAME);
	assert_int_equal(c.ofs, r.len);
	TALLOC_FREE(t);
}

/* NetSrvGetInfo: 100 byte for byte, 101 and 102 field by field. */
static void test_srv_info__levels(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t len = 0;
	uint8_t *stub = NULL;
	uint8_t *out = NULL;
	uint32_t level;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	stub = rt_stub_level(t, 100, &len);
	out = rt_ok(t, p, OP_SERVER_GET_INFO, stub, len, &len);
	assert_int_equal(len, sizeof(v_srv_info_100_stub));
	assert_memory_equal(out, v_srv_info_100_stub, len);
	for (level = 101; level <= 102; level++) {
		struct ndr_pull c;

		stub = rt_stub_level(t, level, &len);
		out = rt_ok(t, p, OP_SERVER_GET_INFO, stub, len, &len);
		c = ndr_pull_init(out, len);
		assert_int_equal(ndr_pull_u32(&c), level);
		rt_pull_ptr(&c, true);
		assert_int_equal(ndr_pull_u32(&c), PLATFORM_ID_NT);
		rt_pull_ptr(&c, true);			/* name */
		assert_int_equal(ndr_pull_u32(&c), VERSION_MAJOR);
		assert_int_equal(ndr_pull_u32(&c), VERSION_MINOR);
		assert_int_equal(ndr_pull_u32(&c), SERVER_TYPE);
		rt_pull_ptr(&c, true);			/* comment */
		if (level == 102) {
			assert_int_equal(ndr_pull_u32(&c), 0xFFFFFFFF);
			assert_int_equal(ndr_pull_u32(&c), 15);	/* disc */
			assert_int_equal(ndr_pull_u32(&c), 0);	/* hidden */
			(void)ndr_pull_u32(&c);		/* announce */
			(void)ndr_pull_u32(&c);		/* anndelta */
			(void)ndr_pull_u32(&c);		/* licenses */
			rt_pull_ptr(&c, true);		/* userpath */
		}
		assert_string_equal(rt_pull_wstr(t, &c), "RINGSMB");
		assert_string_equal(rt_pull_wstr(t, &c), "ringsmb server");
		if (level == 102) {
			assert_string_equal(rt_pull_wstr(t, &c), "C:\\");
		}
		assert_int_equal(ndr_pull_u32(&c), WERR_OK);
		assert_false(c.bad);
		assert_int_equal(c.ofs, len);
	}
	TALLOC_FREE(t);
}

/* Levels NetSrvGetInfo does not answer; any ServerName means us. */
static void test_srv_info__other_levels(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint32_t levels[] = { 0, 103, 502, 503, 1005,
					   0xFFFFFFFF };
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t i, len = 0;
	uint8_t *out = NULL;
	struct ndr_push w = ndr_push_init(t);

	rt_client_init(&f, true);
	p = rt_open_bound(t, "srvsvc", &f, 4280, 4280);
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		uint8_t *stub = rt_stub_level(t, levels[i], &len);
		struct ndr_pull c;

		out = rt_ok(t, p, OP_SERVER_GET_INFO, stub, len, &len);
		c = ndr_pull_init(out, len);
		assert_int_equal(len, 8);
		assert_int_equal(ndr_pull_u32(&c), levels[i]);
		assert_int_equal(ndr_pull_u32(&c), WERR_INVALID_LEVEL);
	}
	rt_push_server_name(&w, "\\\\some.other.host");
	ndr_push_u32(&w, 100);
	out = rt_ok(t, p, OP_SERVER_GET_INFO, w.buf, w.len, &len);
	assert_int_equal(len, sizeof(v_srv_info_100_stub));
	assert_memory_equal(out, v_srv_info_100_stub, len);
	TALLOC_FREE(t);
}

/* A NetWkstaGetInfo response; returns the WERROR. */
static uint32_t wksta_info(TALLOC_CTX *t, struct rpc_pipe *p,
			   uint32_t level)
{
	size_t len = 0;
	uint8_t *stub = rt_stub_level(t, level, &len);
	uint8_t *out = rt_ok(t, p, OP_WKSTA_GET_INFO, stub, len, &len);
	struct ndr_pull c = ndr_pull_init(out, len);
	bool known = level >= 100 && level <= 102;
	uint32_t ref = 0;
	uint32_t werr = 0;

	assert_int_equal(ndr_pull_u32(&c), level);
	if (known && ndr_pull_unique_ptr(&c, &ref)) {
		assert_int_equal(ndr_pull_u32(&c), PLATFORM_ID_NT);
		rt_pull_ptr(&c, true);			/* computername */
		rt_pull_ptr(&c, true);			/* langroup */
		assert_int_equal(ndr_pull_u32(&c), VERSION_MAJOR);
		assert_int_equal(ndr_pull_u32(&c), VERSION_MINOR);
		if (level >= 101) {
			rt_pull_ptr(&c, true);		/* lanroot */
		}
		if (level == 102) {
			assert_int_equal(ndr_pull_u32(&c), 0);
		}
		assert_string_equal(rt_pull_wstr(t, &c), "RINGSMB");
		assert_string_equal(rt_pull_wstr(t, &c), "WORKGROUP");
		if (level >= 101) {
			assert_string_equal(rt_pull_wstr(t, &c), "C:\\");
		}
	}
	werr = ndr_pull_u32(&c);
	assert_false(c.bad);
	assert_int_equal(c.ofs, len);
	assert_true((werr == WERR_OK) == (ref != 0));
	return werr;
}

/*
 * 100 to anyone; 101 to any authenticated caller; 102 to
 * administrators; other levels WERR_INVALID_LEVEL.
 */
static void test_wksta_info__access(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	struct rt_client anon, user, admin;
	struct rpc_pipe *pn = NULL, *pu = NULL, *pa = NULL;
	static const uint32_t other[] = { 0, 99, 103, 502, 1010 };
	size_t i;

	rt_client_init(&anon, false);
	anon.c.anonymous = true;
	anon.c.user = "";
	rt_client_init(&user, false);
	rt_client_init(&admin, true);
	pn = rt_open_bound(t, "wkssvc", &anon, 4280, 4280);
	pu = rt_open_bound(t, "wkssvc", &user, 4280, 4280);
	pa = rt_open_bound(t, "WKSSVC", &admin, 4280, 4280);
	assert_int_equal(wksta_info(t, pn, 100), WERR_OK);
	assert_int_equal(wksta_info(t, pn, 101), WERR_ACCESS_DENIED);
	assert_int_equal(wksta_info(t, pn, 102), WERR_ACCESS_DENIED);
	assert_int_equal(wksta_info(t, pu, 100), WERR_OK);
	assert_int_equal(wksta_info(t, pu, 101), WERR_OK);
	assert_int_equal(wksta_info(t, pu, 102), WERR_ACCESS_DENIED);
	assert_int_equal(wksta_info(t, pa, 100), WERR_OK);
	assert_int_equal(wksta_info(t, pa, 101), WERR_OK);
	assert_int_equal(wksta_info(t, pa, 102), WERR_OK);
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		assert_int_equal(wksta_info(t, pa, other[i]),
				 WERR_INVALID_LEVEL);
	}
	/* wkssvc never asks for the share list */
	assert_int_equal(admin.calls, 0);
	TALLOC_FREE(t);
}

/* NetWkstaGetInfo 100 byte for byte. */
static void test_wksta_info__100_bytes(void **state)
{
	TALLOC_CTX *t = talloc_new(*state);
	static const uint8_t want[] = {
		100, 0, 0, 0, 0x00, 0x00, 0x02, 0x00,
		0xf4, 0x01, 0, 0,			/* platform 500 */
		0x04, 0x00, 0x02, 0x00, 0x08, 0x00, 0x02, 0x00,
		VERSION_MAJOR, 0, 0, 0, VERSION_MINOR, 0, 0, 0,
		8, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0,
		'R', 0, 'I', 0, 'N', 0, 'G', 0, 'S', 0, 'M', 0, 'B', 0, 0, 0,
		10, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0,
		'W', 0, 'O', 0, 'R', 0, 'K', 0, 'G', 0, 'R', 0, 'O', 0,
		'U', 0, 'P', 0, 0, 0,
		0, 0, 0, 0,
	};
	struct rt_client f;
	struct rpc_pipe *p = NULL;
	size_t len = 0;
	uint8_t *stub = rt_stub_level(t, 100, &len);
	uint8_t *out = NULL;

	rt_client_init(&f, false);
	p = rt_open_bound(t, "wkssvc", &f, 4280, 4280);
	out = rt_ok(t, p, OP_WKSTA_GET_INFO, stub, len, &len);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
	TALLOC_FREE(t);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_enum_all__level1),
		T(test_enum_all__level1_bytes),
		T(test_enum__hides_dollar_shares),
		T(test_enum_all__levels_0_and_501),
		T(test_enum_all__levels_2_and_502),
		T(test_enum_all__unknown_levels),
		T(test_enum_all__resume_handle),
		T(test_enum_all__list_fails),
		T(test_enum_all__list_asked_each_call),
		T(test_enum_all__utf8_names),
		T(test_get_info__shares),
		T(test_get_info__bad_name),
		T(test_srv_info__levels),
		T(test_srv_info__other_levels),
		T(test_wksta_info__access),
		T(test_wksta_info__100_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
