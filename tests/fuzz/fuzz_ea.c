/*
 * libFuzzer harness: EA lists (MS-FSCC 2.4.15) and SIDs.  The first
 * input byte picks the parser: 0 FILE_FULL_EA_INFORMATION
 * (smb2_ea_list_pull), 1 FILE_GET_EA_INFORMATION (smb2_ea_names_pull),
 * 2 a SID (smb2_sid_pull), 3 a self-relative SD (smb2_secdesc_pull);
 * the rest is the buffer.  Every parsed
 * name and value must lie inside the input, a parsed full list pushed
 * again must parse to the same entries, and a parsed SD pushed again
 * must parse again (RELIABILITY 34, 35).
 * Seed corpus: tests/fuzz/corpus/ea/ (from test_eainfo's vectors).
 */
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "lib/smb2/eainfo.h"
#include "lib/smb2/secdesc_access.h"

static void inside(const void *p, size_t n, const uint8_t *buf, size_t len)
{
	const uint8_t *q = p;

	if (n > 0 && (q < buf || q > buf + len ||
		      n > (size_t)(buf + len - q))) {
		abort();
	}
}

static void roundtrip(TALLOC_CTX *mem_ctx, const struct smb2_ea *eas,
		      size_t n)
{
	struct smb2_ea *again = NULL;
	uint8_t *out = NULL;
	size_t len = 0, pushed = 0, m = 0, i;

	if (!NT_STATUS_IS_OK(smb2_ea_list_push(mem_ctx, eas, n, SIZE_MAX,
					       false, &out, &len, &pushed)) ||
	    pushed != n || len != smb2_ea_list_size(eas, n) ||
	    !NT_STATUS_IS_OK(smb2_ea_list_pull(mem_ctx, out, len, &again,
					       &m)) || m != n) {
		abort();
	}
	for (i = 0; i < n; i++) {
		if (again[i].name_len != eas[i].name_len ||
		    again[i].value_len != eas[i].value_len ||
		    memcmp(again[i].name, eas[i].name, eas[i].name_len) != 0 ||
		    (eas[i].value_len > 0 &&
		     memcmp(again[i].value, eas[i].value,
			    eas[i].value_len) != 0)) {
			abort();
		}
	}
}

static void fuzz_list(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
		      bool names)
{
	struct smb2_ea *eas = NULL;
	size_t n = 0, i;
	NTSTATUS status = names ?
		smb2_ea_names_pull(mem_ctx, buf, len, &eas, &n) :
		smb2_ea_list_pull(mem_ctx, buf, len, &eas, &n);

	if (!NT_STATUS_IS_OK(status)) {
		return;
	}
	for (i = 0; i < n; i++) {
		inside(eas[i].name, eas[i].name_len + 1, buf, len);
		inside(eas[i].value, eas[i].value_len, buf, len);
	}
	if (!names && n > 0) {
		roundtrip(mem_ctx, eas, n);
	}
}

/*
 * What the acl_xattr store does with a parsed SD (secdesc_access.c):
 * check access with it, inherit from it as a directory's, push what
 * is inherited.
 */
static void fuzz_sd_use(TALLOC_CTX *mem_ctx, const struct smb2_secdesc *sd)
{
	struct smb2_sid sids[3] = {
		{ .num_auths = 2, .authority = 22, .sub_auths = { 1, 1000 } },
		{ .num_auths = 1, .authority = 1 },
		{ .num_auths = 1, .authority = 3 },
	};
	struct smb2_token t = { .sids = sids, .num_sids = 3 };
	struct smb2_secdesc out;
	uint8_t *buf = NULL;
	size_t len = 0;
	int dir;

	(void)smb2_secdesc_granted(sd, &t);
	for (dir = 0; dir < 2; dir++) {
		if (!smb2_secdesc_inherit(mem_ctx, sd, dir == 1, &sids[0],
					  &sids[1], &out) ||
		    out.num_aces > 2 * sd->num_aces) {
			abort();
		}
		/* an ACL over 64 KiB is refused, anything else pushes */
		(void)smb2_secdesc_push(mem_ctx, &out, &buf, &len);
	}
}

static void fuzz_sd(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len)
{
	struct smb2_secdesc sd, again;
	uint8_t *out = NULL;
	size_t out_len = 0;

	if (!NT_STATUS_IS_OK(smb2_secdesc_pull(mem_ctx, buf, len, &sd))) {
		return;
	}
	if (NT_STATUS_IS_OK(smb2_secdesc_push(mem_ctx, &sd, &out,
					      &out_len)) &&
	    (!NT_STATUS_IS_OK(smb2_secdesc_pull(mem_ctx, out, out_len,
						&again)) ||
	     again.num_aces != sd.num_aces ||
	     again.null_dacl != sd.null_dacl)) {
		abort();
	}
	fuzz_sd_use(mem_ctx, &sd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem_ctx = NULL;
	struct smb2_sid sid;
	uint8_t *buf = NULL;
	size_t len = 0, used = 0;

	if (size == 0) {
		return 0;
	}
	len = size - 1;
	/* an exact-size copy, so ASan sees any read past the buffer */
	buf = malloc(len > 0 ? len : 1);
	mem_ctx = talloc_new(NULL);
	if (buf == NULL || mem_ctx == NULL) {
		abort();
	}
	memcpy(buf, data + 1, len);
	switch (data[0] % 4) {
	case 0:
		fuzz_list(mem_ctx, buf, len, false);
		break;
	case 1:
		fuzz_list(mem_ctx, buf, len, true);
		break;
	case 3:
		fuzz_sd(mem_ctx, buf, len);
		break;
	default:
		if (NT_STATUS_IS_OK(smb2_sid_pull(buf, len, &sid, &used)) &&
		    (used > len || sid.num_auths > SMB2_SID_MAX_SUBAUTH)) {
			abort();
		}
	}
	talloc_free(mem_ctx);
	free(buf);
	return 0;
}
