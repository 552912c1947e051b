/*
 * The value of one hexadecimal digit, either case; -1 for anything else.
 * Not isxdigit(): no locale, and bytes from disk or the wire are not
 * always characters.
 */
#ifndef RINGSMB_HEXDIGIT_H
#define RINGSMB_HEXDIGIT_H

static inline int hex_digit_value(int c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

#endif
