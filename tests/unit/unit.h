/*
 * Shared helpers for the cmocka unit tests.
 */
#ifndef RINGSMB_TESTS_UNIT_H
#define RINGSMB_TESTS_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <talloc.h>

/*
 * A copy of buf placed so that its last byte is the last byte before a
 * PROT_NONE page: a decoder that reads one byte too far faults
 * (picohttpparser's trick).  Free with guard_free().
 */
uint8_t *guard_dup(const void *buf, size_t len);
void guard_free(uint8_t *p);

/* The bytes of a hex string (even length), on ctx; *len if not NULL. */
uint8_t *unhex(TALLOC_CTX *ctx, const char *hex, size_t *len);

/*
 * Per-test talloc context with a leak check: use unit_setup/unit_teardown
 * as cmocka setup/teardown, and *state is the TALLOC_CTX.  Teardown fails
 * the test if anything is left under the context's null-tracked parent.
 */
int unit_setup(void **state);
int unit_teardown(void **state);

#endif
