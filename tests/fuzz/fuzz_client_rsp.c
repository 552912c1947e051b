/*
 * libFuzzer harness: what a server sends a client (smb2bench).  The
 * first byte picks the parser:
 *   even: the rest is a SESSION_SETUP response token for lib/auth's
 *         SPNEGO/NTLMSSP client (NegTokenResp + CHALLENGE: spnego_decode,
 *         ntlmssp_challenge_pull, the AV pair copy, AUTHENTICATE
 *         building), for a named user and for anonymous;
 *   odd:  the rest is an SMB2 response, carved and pulled as each
 *         response the client reads (lib/smb2/client_pull.c).
 * Seed corpus: tests/fuzz/corpus/client_rsp/.
 */
#include <string.h>

#include "lib/auth/auth.h"
#include "lib/smb2/smb2_client.h"

static void auth_leg(const uint8_t *data, size_t size, bool anonymous)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct auth_client_settings s = {
		.user = "user", .domain = "DOM", .password = "Password",
		.workstation = "FUZZ", .anonymous = anonymous,
	};
	struct auth_client *c = auth_client_new(mem_ctx, &s);
	uint8_t *out = NULL, key[16];
	size_t out_len = 0;

	auth_client_update(c, mem_ctx, NULL, 0, &out, &out_len);
	if (NT_STATUS_EQUAL(auth_client_update(c, mem_ctx, data, size, &out,
					       &out_len),
			    NT_STATUS_MORE_PROCESSING_REQUIRED)) {
		/* the same bytes as the final leg: a mechListMIC check */
		auth_client_update(c, mem_ctx, data, size, &out, &out_len);
	}
	(void)auth_client_session_key(c, key);
	talloc_free(mem_ctx);
}

static void rsp(const uint8_t *data, size_t size)
{
	static const uint16_t cmds[] = {
		SMB2_OP_NEGPROT, SMB2_OP_SESSSETUP, SMB2_OP_TCON,
		SMB2_OP_CREATE, SMB2_OP_READ, SMB2_OP_WRITE, SMB2_OP_IOCTL,
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct smb2_negprot_crsp np;
		struct smb2_sesssetup_crsp ss;
		struct smb2_tcon_crsp tc;
		struct smb2_create_crsp cr;
		struct smb2_blob blob;
		struct smb2_pdu pdu;
		uint32_t count = 0;
		bool is_error = false;

		if (!NT_STATUS_IS_OK(smb2_rsp_carve(data, size,
						    smb2_rsp_struct_size(cmds[i]),
						    &pdu, &is_error)) ||
		    is_error) {
			continue;
		}
		pdu.hdr.command = cmds[i];	/* try every pull on it */
		(void)smb2_negprot_crsp_pull(&pdu, &np);
		(void)smb2_sesssetup_crsp_pull(&pdu, &ss);
		(void)smb2_tcon_crsp_pull(&pdu, &tc);
		(void)smb2_create_crsp_pull(&pdu, &cr);
		(void)smb2_read_crsp_pull(&pdu, &blob);
		(void)smb2_write_crsp_pull(&pdu, &count);
		(void)smb2_ioctl_crsp_pull(&pdu, &blob);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) {
		return 0;
	}
	if ((data[0] & 1) == 0) {
		auth_leg(data + 1, size - 1, false);
		auth_leg(data + 1, size - 1, true);
	} else {
		rsp(data + 1, size - 1);
	}
	return 0;
}
