/*
 * Wiping secrets (Samba's talloc_keep_secret idea):
 * keys must not linger in freed heap memory or on the stack.
 */
#include <string.h>
#include <talloc.h>
#include "lib/crypto/crypto.h"

void crypto_wipe(void *buf, size_t len)
{
	if (buf != NULL && len > 0) {
		explicit_bzero(buf, len);
	}
}

static int secret_destructor(void *ptr)
{
	crypto_wipe(ptr, talloc_get_size(ptr));
	return 0;
}

void crypto_keep_secret(const void *ptr)
{
	if (ptr != NULL) {
		_talloc_set_destructor(ptr, secret_destructor);
	}
}
