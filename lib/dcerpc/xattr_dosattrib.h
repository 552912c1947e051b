/*
 * Samba's user.DOSATTRIB value (xattr_DOSATTRIB in Samba's
 * librpc/idl/xattr.idl): DOS attributes and the creation time of a file,
 * NDR-encoded, so a share moved between Samba and ringsmb keeps both.
 *
 *	attrib_hex   "0x<attributes in lower-case hex>" or "", then a NUL
 *	(pad to 2)
 *	version      u16: 1..5
 *	level        u16: the union's switch, equal to version
 *	(pad to 4)
 *	info         xattr_DosInfo<version>, little-endian, NTTIMEs and
 *	             64-bit sizes as two u32 (NDR udlong: 4-byte aligned)
 *
 * Alignment counts from the start of the value.  A value that ends after
 * the hex string is the oldest form (version 0xFFFF here): the
 * attributes are the hex string, read as C's %x reads it.  Otherwise the
 * hex string is ignored, whatever it says: Samba reads the attributes
 * from info.  Bytes after info are ignored, as Samba ignores them.
 * Format details, and what each Samba version writes: docs/vfs.md.
 *
 * Pure codec in the lib/smb2 style: bytes in, struct out, no I/O; a
 * pull's name points into its input.
 */
#ifndef RINGSMB_XATTR_DOSATTRIB_H
#define RINGSMB_XATTR_DOSATTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/util/ntstatus.h"

/* The hex-string-only form; never a version on disk (Samba refuses it). */
#define XATTR_DOSATTRIB_HEX_ONLY	0xFFFF

/* xattr_DosInfoValidFlags (versions 3..5) */
#define XATTR_DOSINFO_ATTRIB		0x00000001
#define XATTR_DOSINFO_EA_SIZE		0x00000002
#define XATTR_DOSINFO_SIZE		0x00000004
#define XATTR_DOSINFO_ALLOC_SIZE	0x00000008
#define XATTR_DOSINFO_CREATE_TIME	0x00000010
#define XATTR_DOSINFO_CHANGE_TIME	0x00000020
#define XATTR_DOSINFO_ITIME		0x00000040

/*
 * Samba reads the value into a 256-byte buffer (an fstring): a longer
 * one is unreadable to it, so it is to us.
 */
#define XATTR_DOSATTRIB_SIZE_MAX	256

/* What ringsmb writes: version 5, "" (4 bytes of header) + 20 of info. */
#define XATTR_DOSATTRIB_V5_SIZE		24

struct xattr_dosattrib {
	uint16_t version;       /* 1..5, or XATTR_DOSATTRIB_HEX_ONLY */
	uint32_t valid_flags;   /* 3..5 */
	uint32_t attrib;        /* all */
	uint32_t ea_size;       /* 1..3 */
	uint64_t size;          /* 1..3 */
	uint64_t alloc_size;    /* 1..3 */
	uint64_t create_time;   /* 1..5, NTTIME */
	uint64_t change_time;   /* 1..3 */
	uint64_t itime;         /* 4 */
	uint32_t flags;         /* 2 */
	uint64_t write_time;    /* 2 */
	const uint8_t *name;    /* 2: UTF-8 as stored, without the NUL */
	size_t name_len;
};

/*
 * Decodes one value.  INVALID_PARAMETER for anything Samba's pull
 * refuses (short, unknown version, level != version) and for a
 * hex-only value without a hex number.
 */
NTSTATUS xattr_dosattrib_pull(const uint8_t *buf, size_t len,
			      struct xattr_dosattrib *out);

/*
 * Encodes in as Samba does, hex string included ("0x%x" for versions
 * 1, 2, 0xFFFF and 3 with XATTR_DOSINFO_ATTRIB; "" otherwise).  Returns
 * the length written, 0 if it does not fit in len or the version is
 * unknown.
 */
size_t xattr_dosattrib_push(const struct xattr_dosattrib *in, uint8_t *buf,
			    size_t len);

/*
 * What Samba 4.17 takes from a decoded value: the attributes always; the
 * creation time from versions 1 (when not 0) and 3..5 (when
 * XATTR_DOSINFO_CREATE_TIME is set and it is not 0), never from 2 or
 * the hex-only form.  *create_time is 0 when none is taken; a time
 * past INT64_MAX is none (Samba reports such a time as 0).
 */
void xattr_dosattrib_meaning(const struct xattr_dosattrib *x,
			     uint32_t *attrib, uint64_t *create_time);

#endif
