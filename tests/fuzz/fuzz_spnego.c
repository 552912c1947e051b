/*
 * libFuzzer harness: SPNEGO SecurityBuffers into lib/auth.  Each input is
 * tried as the first leg (NegTokenInit) and as the second leg after a
 * valid NegTokenInit carrying an NTLMSSP NEGOTIATE (NegTokenResp, then
 * the AUTHENTICATE inside it).  Seed corpus: tests/fuzz/corpus/spnego/.
 */
#include "lib/auth/auth.h"

/* smbclient's first leg: GSS framing, mechTypes [NTLMSSP], NEGOTIATE */
static const uint8_t init_leg[] = {
	0x60, 0x48, 0x06, 0x06, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x02, 0xa0, 0x3e,
	0x30, 0x3c, 0xa0, 0x0e, 0x30, 0x0c, 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04,
	0x01, 0x82, 0x37, 0x02, 0x02, 0x0a, 0xa2, 0x2a, 0x04, 0x28,
	'N', 'T', 'L', 'M', 'S', 'S', 'P', 0, 1, 0, 0, 0,
	0x15, 0x82, 0x08, 0x62,
	0, 0, 0, 0, 0x28, 0, 0, 0, 0, 0, 0, 0, 0x28, 0, 0, 0,
	6, 1, 0, 0, 0, 0, 0, 0x0f,
};

static void one(const uint8_t *data, size_t size, bool second_leg)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct auth_settings s = {
		.netbios_name = "FUZZ", .workgroup = "WORKGROUP",
		.map_to_guest = AUTH_MAP_BAD_USER, .allow_anonymous = true,
	};
	struct auth_ctx *ctx = auth_ctx_new(mem_ctx, &s);
	uint8_t *out = NULL;
	size_t out_len = 0;

	if (second_leg) {
		auth_update(ctx, mem_ctx, init_leg, sizeof(init_leg), &out,
			    &out_len);
	}
	auth_update(ctx, mem_ctx, data, size, &out, &out_len);
	/* a successful first leg may be followed by the same bytes */
	auth_update(ctx, mem_ctx, data, size, &out, &out_len);
	talloc_free(mem_ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size, false);
	one(data, size, true);
	return 0;
}
