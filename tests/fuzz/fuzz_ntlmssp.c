/*
 * libFuzzer harness: raw NTLMSSP into lib/auth.  Each input is tried as
 * the first leg (NEGOTIATE parsing) and as the second leg after a valid
 * NEGOTIATE (AUTHENTICATE parsing, user lookup, NTLMv2 and MIC checks).
 * Seed corpus: tests/fuzz/corpus/ntlmssp/.
 */
#include <string.h>
#include <strings.h>

#include "lib/auth/auth.h"

static const uint8_t negotiate[] = {
	'N', 'T', 'L', 'M', 'S', 'S', 'P', 0, 1, 0, 0, 0,
	0x15, 0x82, 0x08, 0x62,		/* flags, as smbclient sends */
	0, 0, 0, 0, 0x28, 0, 0, 0, 0, 0, 0, 0, 0x28, 0, 0, 0,
	6, 1, 0, 0, 0, 0, 0, 0x0f,
};

static NTSTATUS lookup(void *private_data, const char *user,
		       const char *domain, struct auth_user_entry *out)
{
	if (strcasecmp(user, "user") != 0) {
		return NT_STATUS_NO_SUCH_USER;
	}
	return auth_nt_hash("Password", out->nt_hash);
}

static const struct auth_user_lookup users = { .fn = lookup };

static void one(const uint8_t *data, size_t size, bool second_leg,
		enum auth_map_to_guest map)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct auth_settings s = {
		.netbios_name = "FUZZ", .workgroup = "WORKGROUP",
		.dns_domain = "fuzz.test", .map_to_guest = map,
		.allow_anonymous = true, .users = &users,
	};
	struct auth_ctx *ctx = auth_ctx_new(mem_ctx, &s);
	uint8_t *out = NULL;
	size_t out_len = 0;

	if (second_leg) {
		auth_update(ctx, mem_ctx, negotiate, sizeof(negotiate), &out,
			    &out_len);
	}
	auth_update(ctx, mem_ctx, data, size, &out, &out_len);
	(void)auth_session_info(ctx);
	talloc_free(mem_ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size, false, AUTH_MAP_NEVER);
	one(data, size, true, AUTH_MAP_NEVER);
	one(data, size, true, AUTH_MAP_BAD_PASSWORD);
	return 0;
}
