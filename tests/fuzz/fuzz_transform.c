/*
 * libFuzzer harness: the TRANSFORM_HEADER (MS-SMB2 2.2.41) and what
 * follows it, as a server receives it.  Whatever parses is decrypted in
 * place with every cipher under a fixed key, in one piece and split in
 * two at an input-chosen point.
 * Seed corpus: tests/fuzz/corpus/transform/ (from test_transform), made
 * with these keys so the seeds reach the plaintext path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/crypto/crypto.h"
#include "lib/smb2/smb2.h"
#include "lib/smb2/transform.h"

/* [ENC30] / [ENC311] server-to-client keys, and a 256-bit one */
static const struct {
	uint16_t cipher;
	uint8_t key[32];
} keys[] = {
	{ SMB2_ENCRYPTION_AES128_CCM, { 0x8F, 0xE2, 0xB5, 0x7E, 0xC3, 0x4D,
	  0x2D, 0xB5, 0xB1, 0xA9, 0x72, 0x7F, 0x52, 0x6B, 0xBD, 0xB5 } },
	{ SMB2_ENCRYPTION_AES128_GCM, { 0x74, 0x8C, 0x50, 0x86, 0x8C, 0x90,
	  0xF3, 0x02, 0x96, 0x2A, 0x5C, 0x35, 0xF5, 0xF9, 0xA8, 0xBF } },
	{ SMB2_ENCRYPTION_AES256_CCM, { 0x35, 0x95, 0x2F, 0xED, 0x05, 0x1B,
	  0xF2, 0x47, 0x1A, 0xF5, 0xF7, 0xAC, 0xC6, 0x36, 0x74, 0xB8, 0x87,
	  0xA5, 0x4B, 0x47, 0xAF, 0x46, 0x95, 0x9F, 0x7C, 0xAF, 0xF1, 0xCE,
	  0x53, 0x7D, 0x74, 0x19 } },
	{ SMB2_ENCRYPTION_AES256_GCM, { 0x35, 0x95, 0x2F, 0xED, 0x05, 0x1B,
	  0xF2, 0x47, 0x1A, 0xF5, 0xF7, 0xAC, 0xC6, 0x36, 0x74, 0xB8, 0x87,
	  0xA5, 0x4B, 0x47, 0xAF, 0x46, 0x95, 0x9F, 0x7C, 0xAF, 0xF1, 0xCE,
	  0x53, 0x7D, 0x74, 0x19 } },
};

static void try_decrypt(const uint8_t *hdr, const struct smb2_transform_hdr *t)
{
	size_t i = 0;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		/* exact-size copies, so ASan sees any overrun */
		uint8_t *msg = malloc(t->msg_size);
		size_t cut = t->signature[0] % t->msg_size;
		struct iovec iov[2] = { { msg, cut },
					{ msg + cut, t->msg_size - cut } };
		int ret = 0;

		if (msg == NULL) {
			return;
		}
		memcpy(msg, t->msg, t->msg_size);
		ret = smb2_decrypt(keys[i].cipher, keys[i].key,
				   smb2_cipher_key_len(keys[i].cipher), hdr,
				   iov, 2);
		if (ret != 0 && ret != -EBADMSG) {
			abort();
		}
		free(msg);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smb2_transform_hdr t;
	uint8_t again[SMB2_TRANSFORM_HDR_SIZE];
	size_t consumed = 0;

	if (!NT_STATUS_IS_OK(smb2_transform_pull(data, size, &t, &consumed))) {
		return 0;
	}
	if (consumed > size || t.msg + t.msg_size != data + consumed) {
		abort();
	}
	/* push must give back the bytes pull read (Reserved aside) */
	smb2_transform_push(&t, again);
	if (memcmp(again, data, SMB2_TF_OFS_RESERVED) != 0 ||
	    memcmp(again + SMB2_TF_OFS_FLAGS, data + SMB2_TF_OFS_FLAGS,
		   SMB2_TRANSFORM_HDR_SIZE - SMB2_TF_OFS_FLAGS) != 0) {
		abort();
	}
	try_decrypt(data, &t);
	return 0;
}
