/*
 * libFuzzer harness: a list of FILE_NOTIFY_INFORMATION entries (MS-FSCC
 * 2.7.1) walked with smb2_notify_info_pull().  Each entry that parses is
 * pushed again, followed by another (padded) and as the last one
 * (unpadded, a list of its own), which must walk back to the same
 * values.  The server only builds these lists (lib/smb2/notify_codec.c);
 * the harness keeps the builder and the checked walker in step.
 * Seed corpus: tests/fuzz/corpus/notify_info/ (from test_smb2_frame).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/smb2/smb2.h"

static void entry_roundtrip(TALLOC_CTX *ctx, const struct smb2_notify_info *e)
{
	size_t last = smb2_notify_info_list_add(0, e->name_len);
	size_t span = (last + 3) & ~(size_t)3;
	uint8_t *buf = talloc_zero_size(ctx, span);
	struct smb2_notify_info back;
	size_t ofs = 0;

	if (buf == NULL) {
		return;
	}
	if (smb2_notify_info_push(e, false, buf, span) != span ||
	    smb2_notify_info_push(e, false, buf, span - 1) != 0 ||
	    smb2_notify_info_push(e, true, buf, span) != last) {
		abort();
	}
	if (!NT_STATUS_IS_OK(smb2_notify_info_pull(buf, last, &ofs, &back)) ||
	    ofs != last || back.action != e->action ||
	    back.name_len != e->name_len ||
	    (e->name_len > 0 && memcmp(back.name, e->name, e->name_len) != 0)) {
		abort();
	}
	talloc_free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct smb2_notify_info e;
	size_t ofs = 0;

	while (ofs < size) {
		size_t before = ofs;

		if (!NT_STATUS_IS_OK(smb2_notify_info_pull(data, size, &ofs,
							   &e))) {
			break;
		}
		if (ofs <= before) {
			abort();	/* the walk must move forward */
		}
		entry_roundtrip(ctx, &e);
	}
	talloc_free(ctx);
	return 0;
}
