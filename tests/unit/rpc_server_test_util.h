/*
 * Helpers shared by test_rpc_server (the pipe layer) and
 * test_rpc_server_srvsvc (the srvsvc and wkssvc calls), linked into both
 * by SHARED in tests/unit/wscript.
 *
 * A fake struct rpc_client with a fixed share list, a pipe driven only
 * through the public API (rpc_server.h), every write placed against a
 * guard page, and what the pipe queued pulled back with lib/dcerpc's
 * codec.  Requests are hand-laid byte vectors (below) or pushed with
 * dcerpc_pdu_push; stubs are laid out with the ndr_push cursor from the
 * MS-SRVS / MS-WKST argument lists.
 */
#ifndef RINGSMB_TESTS_UNIT_RPC_SERVER_TEST_UTIL_H
#define RINGSMB_TESTS_UNIT_RPC_SERVER_TEST_UTIL_H

#include "tests/unit/unit.h"
#include "lib/dcerpc/dcerpc.h"
#include "source3/rpc_server/rpc_server.h"

#define IS_OK(s) NT_STATUS_IS_OK(s)

/* a fault PDU: header, alloc_hint, cont_id, cancel, flags, status, pad */
#define FAULT_LEN	32

/* The syntaxes as they appear on the wire (UUID fields little-endian). */
#define W_SRVSVC 0xc8, 0x4f, 0x32, 0x4b, 0x70, 0x16, 0xd3, 0x01, \
	0x12, 0x78, 0x5a, 0x47, 0xbf, 0x6e, 0xe1, 0x88, 0x03, 0x00, 0x00, 0x00
#define W_WKSSVC 0x98, 0xd0, 0xff, 0x6b, 0x12, 0xa1, 0x10, 0x36, \
	0x98, 0x33, 0x46, 0xc3, 0xf8, 0x7e, 0x34, 0x5a, 0x01, 0x00, 0x00, 0x00
#define W_NDR20 0x04, 0x5d, 0x88, 0x8a, 0xeb, 0x1c, 0xc9, 0x11, \
	0x9f, 0xe8, 0x08, 0x00, 0x2b, 0x10, 0x48, 0x60, 0x02, 0x00, 0x00, 0x00
#define W_NDR64 0x33, 0x05, 0x71, 0x71, 0xba, 0xbe, 0x37, 0x49, \
	0x83, 0x19, 0xb5, 0xdb, 0xef, 0x9c, 0xcc, 0x36, 0x01, 0x00, 0x00, 0x00

/* Win32 codes the calls answer with (MS-ERREF 2.2) */
#define WERR_OK			0x00000000
#define WERR_ACCESS_DENIED	0x00000005
#define WERR_NOT_ENOUGH_MEMORY	0x00000008
#define WERR_INVALID_NAME	0x0000007B
#define WERR_INVALID_LEVEL	0x0000007C

/* Opnums (MS-SRVS 3.1.4, MS-WKST 3.2.4) */
#define OP_SHARE_ENUM_ALL	15
#define OP_SHARE_GET_INFO	16
#define OP_SERVER_GET_INFO	21
#define OP_SHARE_ENUM		36
#define OP_WKSTA_GET_INFO	0

/* Hand-laid requests (rpc_server_test_util.c has the field comments). */
extern const uint8_t v_bind_srvsvc[72];		/* call 0x1234, 4280/4280 */
extern const uint8_t v_bind_ack_srvsvc[68];	/* its answer; assoc zeroed */
extern const uint8_t v_bind_wkssvc[72];		/* call 1 */
extern const uint8_t v_enum_all_1[84];		/* call 2, level 1, resume 0 */
extern const uint8_t v_srv_info_100[32];	/* call 3, no ServerName */
extern const uint8_t v_srv_info_100_stub[48];	/* its answer's stub */

/*
 * The fake SMB side: shares[] as list_shares returns them (copied onto
 * the call's context each time), calls counted, fail to make it fail.
 */
struct rt_client {
	struct rpc_client c;
	struct rpc_share shares[128];
	size_t num;
	size_t calls;
	bool fail;
};

/*
 * "data" (disk, "Data", /srv/data, 2 uses), "hidden$" (disk),
 * "nobrowse" (browseable = no), "secret" (not enumerable), "IPC$"
 * (0x80000003, "IPC Service"); server RINGSMB, "ringsmb server",
 * WORKGROUP, user "alice", deadtime 15.
 */
void rt_client_init(struct rt_client *f, bool admin);
/* n shares "share000".. with comments "Share number 000".. */
void rt_client_many(struct rt_client *f, size_t n);

/* rpc_pipe_open that must succeed. */
struct rpc_pipe *rt_open(TALLOC_CTX *ctx, const char *name,
			 const struct rt_client *f);
/*
 * Open and bind (call 1, context 0, the pipe's syntax over NDR20, the
 * client's frag sizes max_xmit/max_recv); checks the bind_ack accepts.
 */
struct rpc_pipe *rt_open_bound(TALLOC_CTX *ctx, const char *name,
			       const struct rt_client *f, uint16_t max_xmit,
			       uint16_t max_recv);

/* rpc_pipe_write of a guard-page copy of buf; returns its status. */
NTSTATUS rt_write(struct rpc_pipe *p, const void *buf, size_t len);
/* rt_write that must succeed. */
void rt_write_ok(struct rpc_pipe *p, const void *buf, size_t len);
/* Everything queued (NULL and 0 when nothing), read in one go. */
uint8_t *rt_read_all(TALLOC_CTX *ctx, struct rpc_pipe *p, size_t *len);

/*
 * buf cut into PDUs by frag_length, each pulled (pointing into buf);
 * asserts that buf is whole PDUs that pull.  Returns how many.
 */
size_t rt_split(TALLOC_CTX *ctx, const uint8_t *buf, size_t len,
		struct dcerpc_pdu **out);
/* What the pipe queued: exactly one PDU of type ptype, pulled. */
void rt_one(TALLOC_CTX *ctx, struct rpc_pipe *p, uint8_t ptype,
	    struct dcerpc_pdu *out);
/* Nothing queued. */
void rt_nothing(struct rpc_pipe *p);

/* A bind context element: abstract over the n transfer syntaxes. */
struct dcerpc_ctx_elem rt_elem(uint16_t id, const struct dcerpc_syntax *a,
			       struct dcerpc_syntax *ts, uint8_t n);
/* A bind (or alter_context) PDU on ctx, pushed. */
uint8_t *rt_bind(TALLOC_CTX *ctx, uint8_t ptype, uint32_t call_id,
		 uint16_t max_xmit, uint16_t max_recv,
		 struct dcerpc_ctx_elem *e, uint8_t n, size_t *len);
/* A request fragment on ctx, pushed (flags: FIRST/LAST). */
uint8_t *rt_request(TALLOC_CTX *ctx, uint32_t call_id, uint16_t cont_id,
		    uint16_t opnum, uint8_t flags, const uint8_t *stub,
		    size_t stub_len, size_t *len);

/* The answer to one call: a response (reassembled) or a fault. */
struct rt_reply {
	bool fault;
	uint32_t status;
	uint8_t flags;		/* the fault's pfc_flags */
	uint16_t cont_id;
	uint8_t *stub;		/* on the test's context */
	size_t len;
	size_t frags;
};

/*
 * Writes one FIRST|LAST request and pulls what comes back: response
 * fragments (FIRST on the first, LAST on the last, call_id and cont_id
 * echoed, alloc_hint the bytes left) or one fault.
 */
void rt_call(TALLOC_CTX *ctx, struct rpc_pipe *p, uint32_t call_id,
	     uint16_t cont_id, uint16_t opnum, const uint8_t *stub,
	     size_t len, struct rt_reply *r);
/* rt_call that must end in a response; its stub. */
uint8_t *rt_ok(TALLOC_CTX *ctx, struct rpc_pipe *p, uint16_t opnum,
	       const uint8_t *stub, size_t len, size_t *out_len);
/* Each response fragment of out checked, stubs joined (on ctx). */
void rt_reassemble(TALLOC_CTX *ctx, const uint8_t *out, size_t out_len,
		   uint32_t call_id, uint16_t max_frag, struct rt_reply *r);

/* ASCII s as a [string] wchar_t referent (max = actual = len + 1). */
void rt_push_wstr(struct ndr_push *w, const char *s);
/* [in, unique, string] ServerName: s or a NULL pointer. */
void rt_push_server_name(struct ndr_push *w, const char *s);
/*
 * NetShareEnumAll / NetShareEnum: ServerName "\\srv", InfoStruct of
 * level (an empty container when the level has one), max len -1,
 * ResumeHandle (a pointer to resume when have_resume).
 */
uint8_t *rt_stub_enum(TALLOC_CTX *ctx, uint32_t level, bool have_resume,
		      uint32_t resume, size_t *len);
/* NetShareGetInfo: ServerName "\\srv", NetName name, Level. */
uint8_t *rt_stub_get_info(TALLOC_CTX *ctx, const char *name,
			  uint32_t level, size_t *len);
/* NetSrvGetInfo / NetWkstaGetInfo: ServerName "\\srv", Level. */
uint8_t *rt_stub_level(TALLOC_CTX *ctx, uint32_t level, size_t *len);

/* A [string] wchar_t referent of ASCII units, as a string on ctx. */
char *rt_pull_wstr(TALLOC_CTX *ctx, struct ndr_pull *c);
/* A unique pointer that must be there (true) or be NULL (false). */
void rt_pull_ptr(struct ndr_pull *c, bool present);

/* The pipe ended: the queued PDUs can be read, then writes fail. */
void rt_assert_ended(struct rpc_pipe *p);
/* One bind_nak with reason, naming version 5.0 only, then the end. */
void rt_assert_nak(TALLOC_CTX *t, struct rpc_pipe *p, uint32_t call_id,
		   uint16_t reason);
/* One fault PDU, status and flags as given, call and context echoed. */
void rt_assert_fault(TALLOC_CTX *t, struct rpc_pipe *p, uint32_t call_id,
		     uint16_t cont_id, uint32_t status, uint8_t flags);
/* A protocol error: fault nca_s_proto_error for call_id, then the end. */
void rt_assert_proto_error(TALLOC_CTX *t, struct rpc_pipe *p,
			   uint32_t call_id);

/*
 * NetShareEnumAll of stub in three request fragments (FIRST, middle,
 * LAST) cut at cut[0] and cut[1], laid one after the other.
 */
uint8_t *rt_three_fragments(TALLOC_CTX *t, uint32_t call_id,
			    const uint8_t *stub, size_t len,
			    size_t *out_len, size_t cut[2]);
/*
 * A whole srvsvc session: the hand-laid bind, NetShareEnumAll level 1,
 * NetSrvGetInfo 100, an unknown opnum (a fault), and NetShareEnumAll
 * in three fragments (call 5).
 */
uint8_t *rt_session(TALLOC_CTX *t, size_t *len);
/* The EntriesRead of a level 1 enumeration stub. */
uint32_t rt_enum_count(const uint8_t *stub, size_t len);

/*
 * The fuzz seed format of tests/fuzz/fuzz_rpc_pipe.c: cfg (bit 0
 * wkssvc, bit 1 admin, bit 2 anonymous), then stream in writes of
 * chunk bytes, each led by its length byte.  Written to
 * <dir>/rpc_pipe/<name>.
 */
void rt_write_seed(const char *dir, const char *name, uint8_t cfg,
		   const uint8_t *stream, size_t len, size_t chunk);

#endif
