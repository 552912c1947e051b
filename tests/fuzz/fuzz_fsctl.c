/*
 * libFuzzer harness: the FSCTL payload decoders (lib/smb2/fsctl_codec.c).
 * The first byte selects the decoder, the rest is its input.  What
 * parses is pushed again and must parse to the same values.
 * Seed corpus: tests/fuzz/corpus/fsctl/ (from test_fsctl).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/smb2/fsctl.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t format = 0;
	bool sparse = false;

	if (size == 0) {
		return 0;
	}
	switch (data[0] % 6) {
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
	default:
		net_ifaces(data + 1, size - 1);
		break;
	}
	return 0;
}
