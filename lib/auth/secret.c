/*
 * Keys and hashes live in talloc chunks that are wiped when freed,
 * with explicit_bzero so the compiler keeps the wipe.
 */
#include <string.h>

#include "lib/auth/auth_private.h"

void auth_wipe(void *p, size_t len)
{
	if (p != NULL && len > 0) {
		explicit_bzero(p, len);
	}
}

static int secret_destructor(void *ptr)
{
	auth_wipe(ptr, talloc_get_size(ptr));
	return 0;
}

void auth_keep_secret(void *ptr)
{
	talloc_set_destructor(ptr, secret_destructor);
}
