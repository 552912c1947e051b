/*
 * libFuzzer harness: a SET_INFO buffer into smb2_setinfo_pull().  The
 * first input byte is the FileInformationClass, the rest the buffer, so
 * every class's length checks are reached.  What parses must describe
 * bytes inside the input: a rename name lies within the buffer.
 * Seed corpus: tests/fuzz/corpus/setinfo/ (from test_vfs_fileinfo's vectors).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/smb2/fileinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smb2_setinfo in;
	uint8_t *buf = NULL;
	size_t len = 0;
	NTSTATUS status;

	if (size == 0) {
		return 0;
	}
	len = size - 1;
	/* an exact-size copy, so ASan sees any read past the buffer */
	buf = malloc(len > 0 ? len : 1);
	if (buf == NULL) {
		return 0;
	}
	memcpy(buf, data + 1, len);
	status = smb2_setinfo_pull(data[0], buf, len, &in);
	if (NT_STATUS_IS_OK(status) &&
	    (in.info_class == SMB2_FILE_RENAME_INFORMATION ||
	     in.info_class == SMB2_FILE_LINK_INFORMATION)) {
		if (in.rename.name.len == 0 || in.rename.name.len % 2 != 0 ||
		    in.rename.name.data < buf ||
		    in.rename.name.data + in.rename.name.len > buf + len) {
			abort();
		}
	}
	free(buf);
	return 0;
}
