/*
 * libFuzzer harness: named-stream syntax (lib/smb2/streams.c).  The
 * input is what follows the first ':' of a name's last component.  A
 * parsed name must lie inside the input, hold none of '/', '\', ':' or
 * NUL, and encode as FileStreamInformation that fits the length it
 * promises.
 * Seed corpus: tests/fuzz/corpus/stream_name/ (from test_smb2_streams's
 * vectors).
 */
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "lib/smb2/streams.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smb2_stream_name sn;
	struct smb2_stream_entry e[2] = {
		{ .name = "", .size = 1 },
	};
	TALLOC_CTX *mem_ctx = NULL;
	uint8_t *out = NULL;
	size_t out_len = 0, i;
	char *name = NULL;

	if (!NT_STATUS_IS_OK(smb2_stream_name_parse((const char *)data, size,
						    &sn))) {
		return 0;
	}
	if (sn.name != (const char *)data || sn.len > size) {
		abort();
	}
	for (i = 0; i < sn.len; i++) {
		if (strchr("/\\\\:", sn.name[i]) != NULL || sn.name[i] == 0) {
			abort();
		}
	}
	mem_ctx = talloc_new(NULL);
	name = talloc_strndup(mem_ctx, sn.name, sn.len);
	if (name == NULL) {
		abort();
	}
	e[1].name = name;
	if (NT_STATUS_IS_ERR(smb2_stream_info_push(mem_ctx, e, 2, 4096,
						   &out, &out_len)) ||
	    out_len > 4096) {
		abort();
	}
	talloc_free(mem_ctx);
	return 0;
}
