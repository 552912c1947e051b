/*
 * libFuzzer harness: the FSCTL payload decoders (lib/smb2/fsctl_codec.c).
 * The first byte selects the decoder, the rest is its input.  What
 * parses is pushed again and must parse to the same values.  Client
 * input among them: SRV_COPYCHUNK_COPY (with the FileId in its
 * SourceKey), the range and compression buffers, FILE_SET_SPARSE and
 * VALIDATE_NEGOTIATE_INFO.
 * Seed corpus: tests/fuzz/corpus/fsctl/ (from test_fsctl).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/smb2/fsctl.h"

/* A client's SourceKey: the FileId read back must push to the same. */
static void resume_key(const uint8_t *key)
{
	uint8_t again[SMB2_RESUME_KEY_LEN];
	uint64_t persistent = 0, volatile_id = 0, p2 = 0, v2 = 0;

	smb2_resume_key_pull(key, &persistent, &volatile_id);
	smb2_resume_key_push(persistent, volatile_id, again);
	smb2_resume_key_pull(again, &p2, &v2);
	if (memcmp(again, key, 16) != 0 || p2 != persistent ||
	    v2 != volatile_id) {
		abort();
	}
}

static void copychunk(const uint8_t *p, size_t n)
{
	struct smb2_copychunk_copy cc;
	struct smb2_copychunk ch;
	uint64_t total = 0;
	uint32_t i;

	if (!NT_STATUS_IS_OK(smb2_copychunk_copy_pull(p, n, &cc))) {
		return;
	}
	if ((size_t)cc.chunk_count * SMB2_COPYCHUNK_SIZE >
	    n - SMB2_COPYCHUNK_COPY_FIXED) {
		abort();		/* the pull let a lying count through */
	}
	for (i = 0; i < cc.chunk_count; i++) {
		smb2_copychunk_get(&cc, i, &ch);
		total += ch.length;
	}
	(void)total;
	resume_key(cc.source_key);
}

static void ranges(const uint8_t *p, size_t n)
{
	struct smb2_alloc_range r, r2;
	struct smb2_zero_data z;
	uint8_t buf[SMB2_ALLOC_RANGE_SIZE];

	if (NT_STATUS_IS_OK(smb2_alloc_range_pull(p, n, &r))) {
		if (smb2_alloc_range_push(&r, buf, sizeof(buf)) != 16 ||
		    !NT_STATUS_IS_OK(smb2_alloc_range_pull(buf, 16, &r2)) ||
		    memcmp(&r, &r2, sizeof(r)) != 0) {
			abort();
		}
	}
	(void)smb2_zero_data_pull(p, n, &z);
}

static void net_ifaces(const uint8_t *p, size_t n)
{
	struct smb2_net_iface e, e2;
	uint8_t buf[SMB2_NET_IFACE_SIZE];
	size_t ofs = 0, ofs2 = 0;

	while (ofs < n) {
		size_t before = ofs;

		if (!NT_STATUS_IS_OK(smb2_net_iface_pull(p, n, &ofs, &e))) {
			return;
		}
		if (ofs <= before) {
			abort();	/* the walk must move forward */
		}
		ofs2 = 0;
		if (smb2_net_iface_push(&e, 1, buf, sizeof(buf)) !=
		    sizeof(buf) ||
		    !NT_STATUS_IS_OK(smb2_net_iface_pull(buf, sizeof(buf),
							 &ofs2, &e2)) ||
		    e2.if_index != e.if_index || e2.port != e.port ||
		    memcmp(e2.addr, e.addr, 16) != 0) {
			abort();
		}
	}
}

static void validate_negotiate(const uint8_t *p, size_t n)
{
	struct smb2_validate_negotiate_req v, v2;
	static uint8_t buf[SMB2_VNEG_REQ_FIXED + 2 * 65535];
	size_t len = 0;
	size_t i;

	if (!NT_STATUS_IS_OK(smb2_validate_negotiate_req_pull(p, n, &v))) {
		return;
	}
	if (v.dialect_count == 0 ||
	    2 * (size_t)v.dialect_count > n - SMB2_VNEG_REQ_FIXED) {
		abort();		/* the pull let a lying count through */
	}
	len = smb2_validate_negotiate_req_push(&v, buf, sizeof(buf));
	if (len != SMB2_VNEG_REQ_FIXED + 2 * (size_t)v.dialect_count ||
	    memcmp(buf, p, len) != 0 ||
	    !NT_STATUS_IS_OK(smb2_validate_negotiate_req_pull(buf, len,
							      &v2)) ||
	    v2.dialect_count != v.dialect_count) {
		abort();
	}
	for (i = 0; i < v.dialect_count; i++) {
		if (smb2_validate_negotiate_dialect(&v, i) !=
		    smb2_validate_negotiate_dialect(&v2, i)) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t format = 0;
	bool sparse = false;

	if (size == 0) {
		return 0;
	}
	switch (data[0] % 7) {
	case 0:
		copychunk(data + 1, size - 1);
		break;
	case 1:
	case 2:
		ranges(data + 1, size - 1);
		break;
	case 3:
		(void)smb2_compression_pull(data + 1, size - 1, &format);
		break;
	case 4:
		(void)smb2_set_sparse_pull(size > 1 ? data + 1 : NULL,
					   size - 1, &sparse);
		break;
	case 5:
		net_ifaces(data + 1, size - 1);
		break;
	default:
		validate_negotiate(data + 1, size - 1);
		break;
	}
	return 0;
}
