/*
 * 8.3 short names (MS-FSCC 2.1.5.2.1) for FileAlternateNameInformation.
 *
 * ringsmb keeps no table of short names: a long name's short name is a
 * function of the name alone, so it is stable across opens, restarts
 * and servers, and costs nothing in a listing.  The shape follows what
 * Samba's default mangling shows clients:
 *
 *	base  up to 5 characters of the name before its last dot, legal
 *	      DOS characters only, upper-cased ("Long File" -> "LONGF")
 *	'~'   then 2 characters from a 32-bit FNV-1a hash of the whole
 *	      name, in base 36 (0-9, A-Z): 1296 values per base
 *	ext   '.' and up to 3 legal characters after the last dot
 *
 * Two long names with the same base and extension collide with chance
 * 1/1296; nothing detects it (as with Samba's hash mangling).  A CREATE
 * by a short name is resolved in source3/smbd/files/mangle.c.
 */
#include <ctype.h>
#include <string.h>
#include "lib/smb2/eainfo.h"

#define SN_BASE_MAX	8
#define SN_EXT_MAX	3
#define SN_PREFIX	5

static bool sn_legal(unsigned char c)
{
	return isalnum(c) || (c != '\0' && strchr("!#$%&'()-@^_`{}~", c));
}

bool smb2_name_is_83(const char *name)
{
	const char *dot = strchr(name, '.');
	size_t base = dot != NULL ? (size_t)(dot - name) : strlen(name);
	size_t ext = dot != NULL ? strlen(dot + 1) : 0;
	const char *p = NULL;

	if (base == 0 || base > SN_BASE_MAX || ext > SN_EXT_MAX ||
	    (dot != NULL && (ext == 0 || strchr(dot + 1, '.') != NULL))) {
		return false;
	}
	for (p = name; *p != '\0'; p++) {
		if (*p != '.' && !sn_legal((unsigned char)*p)) {
			return false;
		}
	}
	return true;
}

static uint32_t sn_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++) {
		h = (h ^ (uint8_t)*s) * 16777619u;
	}
	return h;
}

/* Legal characters of [s, end), upper-cased, at most max of them. */
static size_t sn_copy(char *out, const char *s, const char *end, size_t max)
{
	size_t n = 0;

	for (; s < end && n < max; s++) {
		if (sn_legal((unsigned char)*s) && *s != '~') {
			out[n++] = (char)toupper((unsigned char)*s);
		}
	}
	return n;
}

void smb2_short_name(const char *name, char out[SMB2_SHORT_NAME_MAX])
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	const char *dot = strrchr(name, '.');
	const char *end = name + strlen(name);
	uint32_t h = sn_hash(name);
	size_t n = 0, e = 0;

	if (smb2_name_is_83(name)) {
		for (; *name != '\0'; name++) {
			out[n++] = (char)toupper((unsigned char)*name);
		}
		out[n] = '\0';
		return;
	}
	if (dot == name) {
		dot = NULL;             /* ".profile": all base, no extension */
	}
	n = sn_copy(out, name, dot != NULL ? dot : end, SN_PREFIX);
	if (n == 0) {
		out[n++] = '_';
	}
	out[n++] = '~';
	out[n++] = digits[(h / 36) % 36];
	out[n++] = digits[h % 36];
	if (dot != NULL) {
		out[n] = '.';
		e = sn_copy(out + n + 1, dot + 1, end, SN_EXT_MAX);
		n += e > 0 ? e + 1 : 0;
	}
	out[n] = '\0';
}
