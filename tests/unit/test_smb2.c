/*
 * Unit tests for lib/smb2: the wire codecs (STYLE.md rule 27).
 *
 * Vectors are hand-built or captured from Debian's smbclient talking to
 * Samba's smbd (4.17, SMB 3.1.1 and 2.0.2, guest): the captured bytes
 * are the NBT payloads of the client's requests.  Every decoder gets
 * each truncation of a valid PDU under a guard page (tests/unit/unit.h).
 *
 * With SMB2_CORPUS_DIR set, test_corpus__write also writes the vectors
 * out as fuzz seeds (tests/fuzz/corpus/<harness>/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tests/unit/unit.h"
#include "lib/smb2/smb2.h"
#include "lib/smb2/cursor.h"

#define IS_OK(s) NT_STATUS_IS_OK(s)
#define IS_IP(s) NT_STATUS_EQUAL(s, NT_STATUS_INVALID_PARAMETER)

/* ------------------------------------------------------------------ */
/* Captured vectors                                                    */

static const uint8_t cap_negprot[226] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x1f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x24, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x7f, 0x00, 0x00, 0x00, 0x18, 0xc3, 0xd2, 0x2c, 0x33, 0x63, 0x78, 0x4b,
	0x9b, 0xeb, 0xa0, 0x74, 0x88, 0xf0, 0x89, 0xbb, 0x70, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x00, 0x00, 0x02, 0x02, 0x10, 0x02, 0x00, 0x03, 0x02, 0x03,
	0x11, 0x03, 0x00, 0x00, 0x01, 0x00, 0x26, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x20, 0x00, 0x01, 0x00, 0x09, 0x63, 0xe2, 0x7a, 0xae, 0xc4,
	0xa1, 0x05, 0xc8, 0xa6, 0x83, 0x2a, 0x78, 0xc7, 0x0b, 0x54, 0x08, 0x80,
	0xf6, 0xc7, 0x3f, 0xc9, 0xbd, 0xbb, 0x90, 0x9e, 0x14, 0x1d, 0x5e, 0x82,
	0xb3, 0x89, 0x00, 0x00, 0x02, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x02, 0x00, 0x01, 0x00, 0x04, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x12, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x31, 0x00, 0x32, 0x00, 0x37, 0x00, 0x2e, 0x00,
	0x30, 0x00, 0x2e, 0x00, 0x30, 0x00, 0x2e, 0x00, 0x31, 0x00
};

static const uint8_t cap_sesssetup[162] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x20, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x19, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x58, 0x00, 0x4a, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x60, 0x48, 0x06, 0x06, 0x2b, 0x06, 0x01, 0x05,
	0x05, 0x02, 0xa0, 0x3e, 0x30, 0x3c, 0xa0, 0x0e, 0x30, 0x0c, 0x06, 0x0a,
	0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x02, 0x0a, 0xa2, 0x2a,
	0x04, 0x28, 0x4e, 0x54, 0x4c, 0x4d, 0x53, 0x53, 0x50, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x15, 0x82, 0x08, 0x62, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x06, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x0f
};

static const uint8_t cap_tcon[104] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x48, 0x00, 0x20, 0x00,
	0x5c, 0x00, 0x5c, 0x00, 0x31, 0x00, 0x32, 0x00, 0x37, 0x00, 0x2e, 0x00,
	0x30, 0x00, 0x2e, 0x00, 0x30, 0x00, 0x2e, 0x00, 0x31, 0x00, 0x5c, 0x00,
	0x49, 0x00, 0x50, 0x00, 0x43, 0x00, 0x24, 0x00
};

static const uint8_t cap_ioctl[148] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x0b, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xa7, 0x63, 0x40, 0x97, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x39, 0x00, 0x00, 0x00, 0x94, 0x01, 0x06, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0x78, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x78, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x5c, 0x00, 0x31, 0x00, 0x32, 0x00, 0x37, 0x00, 0x2e, 0x00,
	0x30, 0x00, 0x2e, 0x00, 0x30, 0x00, 0x2e, 0x00, 0x31, 0x00, 0x5c, 0x00,
	0x78, 0x00, 0x00, 0x00
};

static const uint8_t cap_create_root[121] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7c, 0x3a, 0xbd, 0xe3, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x39, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x81, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x78, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00
};

static const uint8_t cap_create_f[124] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x9e, 0xae, 0x3a, 0x37, 0x66, 0xde, 0x25, 0xc2, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x39, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x78, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x66, 0x00, 0x00, 0x00
};

static const uint8_t cap_querydir[98] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x0e, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7c, 0x3a, 0xbd, 0xe3, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x21, 0x00, 0x25, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x78, 0x92, 0xfe, 0x60, 0x00, 0x00, 0x00, 0x00, 0x3c, 0x69, 0x71, 0x0a,
	0x00, 0x00, 0x00, 0x00, 0x60, 0x00, 0x02, 0x00, 0x00, 0x00, 0x80, 0x00,
	0x2a, 0x00
};

static const uint8_t cap_close[88] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x06, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7c, 0x3a, 0xbd, 0xe3, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x78, 0x92, 0xfe, 0x60, 0x00, 0x00, 0x00, 0x00, 0x3c, 0x69, 0x71, 0x0a,
	0x00, 0x00, 0x00, 0x00
};

static const uint8_t cap_queryinfo[105] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x0a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7c, 0x3a, 0xbd, 0xe3, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x29, 0x00, 0x02, 0x03, 0xff, 0xff, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x70, 0xc9, 0xd0, 0x4c, 0x00, 0x00, 0x00, 0x00,
	0xfb, 0x40, 0x9b, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00
};

static const uint8_t cap_read[113] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x0e, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7c, 0x3a, 0xbd, 0xe3, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x31, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x62, 0x92, 0x81, 0x6f,
	0x00, 0x00, 0x00, 0x00, 0xbe, 0xe0, 0x1a, 0x39, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00
};

static const uint8_t cap_tdis[68] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xa7, 0x63, 0x40, 0x97, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00
};

static const uint8_t cap_negprot_smb2[102] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x1f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x24, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x02
};

static const uint8_t cap_tcon_rsp[80] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x01, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xa7, 0x63, 0x40, 0x97, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xa9, 0x00, 0x1f, 0x00
};

static const uint8_t cap_close_rsp[124] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x06, 0x00, 0x01, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7c, 0x3a, 0xbd, 0xe3, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00
};

static const uint8_t cap_create_rsp[152] = {
	0xfe, 0x53, 0x4d, 0x42, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x7c, 0x3a, 0xbd, 0xe3, 0x14, 0x57, 0x80, 0x30, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x59, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x44, 0x97, 0x69, 0x8b, 0xce, 0x7a, 0xdd, 0x01, 0x44, 0x97, 0x69, 0x8b,
	0xce, 0x7a, 0xdd, 0x01, 0x44, 0x97, 0x69, 0x8b, 0xce, 0x7a, 0xdd, 0x01,
	0x44, 0x97, 0x69, 0x8b, 0xce, 0x7a, 0xdd, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x78, 0x92, 0xfe, 0x60,
	0x00, 0x00, 0x00, 0x00, 0x3c, 0x69, 0x71, 0x0a, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
};


/* ------------------------------------------------------------------ */
/* Helpers                                                             */

/* A request: header for cmd (NextCommand next, flags) and a body. */
static size_t mk_pdu(uint8_t *out, uint16_t cmd, uint32_t next,
		     uint32_t flags, const uint8_t *body, size_t body_len)
{
	struct smb2_hdr h = { .command = cmd, .next_command = next,
			      .flags = flags, .message_id = 7,
			      .tree_id = 1, .session_id = 2 };

	smb2_hdr_push(&h, out);
	memcpy(out + SMB2_HDR_SIZE, body, body_len);
	return SMB2_HDR_SIZE + body_len;
}

static const uint8_t echo_body[4] = { 0x04, 0x00, 0x00, 0x00 };

/* Every request pull by opcode, as the daemon and the fuzzer run them. */
static NTSTATUS pull_any(const struct smb2_pdu *pdu)
{
	union {
		struct smb2_negprot_req negprot;
		struct smb2_sesssetup_req sesssetup;
		struct smb2_tcon_req tcon;
		struct smb2_create_req create;
		struct smb2_close_req close;
		struct smb2_flush_req flush;
		struct smb2_read_req read;
		struct smb2_write_req write;
		struct smb2_lock_req lock;
		struct smb2_ioctl_req ioctl;
		struct smb2_query_directory_req qdir;
		struct smb2_change_notify_req notify;
		struct smb2_query_info_req qinfo;
		struct smb2_set_info_req sinfo;
		struct smb2_oplock_break_req brk;
	} u;

	if (!IS_OK(pdu->status)) {
		return pdu->status;
	}
	switch (pdu->hdr.command) {
	case SMB2_OP_NEGPROT:
		return smb2_negprot_req_pull(pdu, &u.negprot);
	case SMB2_OP_SESSSETUP:
		return smb2_sesssetup_req_pull(pdu, &u.sesssetup);
	case SMB2_OP_LOGOFF:
		return smb2_logoff_req_pull(pdu);
	case SMB2_OP_TCON:
		return smb2_tcon_req_pull(pdu, &u.tcon);
	case SMB2_OP_TDIS:
		return smb2_tdis_req_pull(pdu);
	case SMB2_OP_CREATE:
		return smb2_create_req_pull(pdu, &u.create);
	case SMB2_OP_CLOSE:
		return smb2_close_req_pull(pdu, &u.close);
	case SMB2_OP_FLUSH:
		return smb2_flush_req_pull(pdu, &u.flush);
	case SMB2_OP_READ:
		return smb2_read_req_pull(pdu, &u.read);
	case SMB2_OP_WRITE:
		return smb2_write_req_pull(pdu, &u.write);
	case SMB2_OP_LOCK:
		return smb2_lock_req_pull(pdu, &u.lock);
	case SMB2_OP_IOCTL:
		return smb2_ioctl_req_pull(pdu, &u.ioctl);
	case SMB2_OP_CANCEL:
		return smb2_cancel_req_pull(pdu);
	case SMB2_OP_ECHO:
		return smb2_echo_req_pull(pdu);
	case SMB2_OP_QUERY_DIRECTORY:
		return smb2_query_directory_req_pull(pdu, &u.qdir);
	case SMB2_OP_CHANGE_NOTIFY:
		return smb2_change_notify_req_pull(pdu, &u.notify);
	case SMB2_OP_QUERY_INFO:
		return smb2_query_info_req_pull(pdu, &u.qinfo);
	case SMB2_OP_SET_INFO:
		return smb2_set_info_req_pull(pdu, &u.sinfo);
	case SMB2_OP_OPLOCK_BREAK:
		return smb2_oplock_break_req_pull(pdu, &u.brk);
	}
	return NT_STATUS_INVALID_PARAMETER;
}

/* Carve a one-element PDU and pull it. */
static NTSTATUS carve_pull(const uint8_t *buf, size_t len)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;
	size_t i = 0;
	NTSTATUS status = smb2_compound_carve(tmp, buf, len, &pdus, &n);

	for (i = 0; IS_OK(status) && i < n; i++) {
		status = pull_any(&pdus[i]);
	}
	talloc_free(tmp);
	return status;
}

/*
 * Every prefix of a valid PDU, each against a guard page: shorter than
 * min_ok must fail, min_ok and longer must pull.
 */
static void check_truncations(const uint8_t *buf, size_t len, size_t min_ok)
{
	size_t n = 0;

	assert_true(min_ok <= len);
	for (n = 0; n <= len; n++) {
		uint8_t *g = guard_dup(buf, n);
		NTSTATUS status = carve_pull(g, n);

		if (n < min_ok) {
			assert_false(IS_OK(status));
		} else {
			assert_true(IS_OK(status));
		}
		guard_free(g);
	}
}

/* The single element of buf, carved (buf must outlive the result). */
static struct smb2_pdu *carve1(TALLOC_CTX *ctx, const uint8_t *buf,
			       size_t len)
{
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;

	assert_true(IS_OK(smb2_compound_carve(ctx, buf, len, &pdus, &n)));
	assert_int_equal(n, 1);
	return &pdus[0];
}

static void assert_bytes(const uint8_t *got, size_t got_len,
			 const uint8_t *want, size_t want_len)
{
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
}

/* ------------------------------------------------------------------ */
/* cursor.h                                                            */

static void test_cursor__reads(void **state)
{
	static const uint8_t b[] = { 1, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12,
				     8, 7, 6, 5, 4, 3, 2, 1, 0xAA };
	struct smb2_cur c = smb2_cur_init(b, sizeof(b));

	assert_int_equal(smb2_cur_u8(&c), 1);
	assert_int_equal(smb2_cur_u16(&c), 0x1234);
	assert_int_equal(smb2_cur_u32(&c), 0x12345678);
	assert_true(smb2_cur_u64(&c) == 0x0102030405060708ULL);
	assert_int_equal(smb2_cur_left(&c), 1);
	assert_ptr_equal(smb2_cur_bytes(&c, 1), b + 15);
	assert_false(c.bad);
	assert_int_equal(smb2_cur_left(&c), 0);
}

static void test_cursor__sticky(void **state)
{
	static const uint8_t b[3] = { 1, 2, 3 };
	struct smb2_cur c = smb2_cur_init(b, sizeof(b));

	assert_int_equal(smb2_cur_u32(&c), 0);
	assert_true(c.bad);
	/* once bad, even a read that would fit returns 0 */
	assert_int_equal(smb2_cur_u8(&c), 0);
	assert_null(smb2_cur_bytes(&c, 0));
	assert_int_equal(smb2_cur_left(&c), 0);

	c = smb2_cur_init(b, sizeof(b));
	smb2_cur_skip(&c, SIZE_MAX);
	assert_true(c.bad);

	c = smb2_cur_init(b, sizeof(b));
	smb2_cur_seek(&c, 3);
	assert_false(c.bad);
	smb2_cur_seek(&c, 4);
	assert_true(c.bad);

	c = smb2_cur_init(NULL, 0);
	(void)smb2_cur_bytes(&c, 0);
	assert_false(c.bad);
	(void)smb2_cur_u8(&c);
	assert_true(c.bad);
}

static void test_writer__basic(void **state)
{
	static const uint8_t want[] = { 0xAB, 0x34, 0x12, 0x78, 0x56, 0x34,
					0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF,
					0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99,
					0x88 };
	uint8_t buf[sizeof(want)];
	struct smb2_wr w = smb2_wr_init(buf, sizeof(buf));

	smb2_wr_u8(&w, 0xAB);
	smb2_wr_u16(&w, 0x1234);
	smb2_wr_u32(&w, 0x12345678);
	smb2_wr_align(&w, 8);
	assert_int_equal(w.ofs, 8);
	smb2_wr_align(&w, 8);
	assert_int_equal(w.ofs, 8);
	smb2_wr_zero(&w, 7);
	smb2_wr_u64(&w, 0x8899AABBCCDDEEFFULL);
	assert_false(w.overflow);
	assert_memory_equal(buf, want, sizeof(want));
	smb2_wr_u8(&w, 1);
	assert_true(w.overflow);
	assert_int_equal(w.ofs, sizeof(want));
}

static void test_writer__overflow_writes_nothing(void **state)
{
	uint8_t buf[4] = { 9, 9, 9, 9 };
	struct smb2_wr w = smb2_wr_init(buf, 3);

	smb2_wr_u32(&w, 0);
	assert_true(w.overflow);
	assert_int_equal(buf[0], 9);
	smb2_wr_u8(&w, 0);	/* sticky: even a fitting write is refused */
	assert_int_equal(buf[0], 9);
}

/* ------------------------------------------------------------------ */
/* Header                                                              */

static void test_hdr__sync_roundtrip(void **state)
{
	struct smb2_hdr h = { .credit_charge = 1, .status = 0xC000000D,
			      .command = SMB2_OP_READ, .credit = 31,
			      .flags = SMB2_FLAGS_SERVER_TO_REDIR,
			      .next_command = 0, .message_id = 0x1122334455,
			      .process_id = 0xFEFF, .tree_id = 5,
			      .session_id = 0x99, .signature = { 1, 2 } };
	struct smb2_hdr o;
	uint8_t buf[SMB2_HDR_SIZE];

	smb2_hdr_push(&h, buf);
	assert_int_equal(buf[0], 0xFE);
	assert_memory_equal(buf + 1, "SMB", 3);
	assert_int_equal(buf[4], 64);
	assert_int_equal(pull_le32(buf + 0x24), 5);
	assert_true(IS_OK(smb2_hdr_pull(buf, sizeof(buf), &o)));
	assert_memory_equal(&o, &h, sizeof(h));
}

static void test_hdr__async_roundtrip(void **state)
{
	struct smb2_hdr h = { .command = SMB2_OP_CHANGE_NOTIFY,
			      .flags = SMB2_FLAGS_SERVER_TO_REDIR |
				       SMB2_FLAGS_ASYNC_COMMAND,
			      .status = 0x103, .message_id = 3,
			      .async_id = 0xAABBCCDDEEFF0011ULL };
	struct smb2_hdr o;
	uint8_t buf[SMB2_HDR_SIZE];

	smb2_hdr_push(&h, buf);
	assert_true(pull_le64(buf + 0x20) == 0xAABBCCDDEEFF0011ULL);
	assert_true(IS_OK(smb2_hdr_pull(buf, sizeof(buf), &o)));
	assert_memory_equal(&o, &h, sizeof(h));
}

static void test_hdr__rejects(void **state)
{
	struct smb2_hdr h = {};
	struct smb2_hdr o;
	uint8_t buf[SMB2_HDR_SIZE];

	smb2_hdr_push(&h, buf);
	assert_true(IS_IP(smb2_hdr_pull(buf, SMB2_HDR_SIZE - 1, &o)));
	buf[4] = 63;
	assert_true(IS_IP(smb2_hdr_pull(buf, sizeof(buf), &o)));
	buf[4] = 64;
	buf[0] = 0xFD;
	assert_true(IS_IP(smb2_hdr_pull(buf, sizeof(buf), &o)));
	buf[0] = 0xFF;
	assert_true(IS_IP(smb2_hdr_pull(buf, sizeof(buf), &o)));
}

static void test_hdr__channel_sequence(void **state)
{
	struct smb2_hdr h = { .status = 0x00000007 };

	assert_int_equal(smb2_hdr_channel_sequence(&h), 7);
	h.status = 0xBEEF0102;
	assert_int_equal(smb2_hdr_channel_sequence(&h), 0x0102);
}

static void test_ops__table(void **state)
{
	assert_int_equal(smb2_req_struct_size(SMB2_OP_NEGPROT), 36);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_SESSSETUP), 25);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_TCON), 9);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_CREATE), 57);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_READ), 49);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_LOCK), 48);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_QUERY_INFO), 41);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_OPLOCK_BREAK), 24);
	assert_int_equal(smb2_req_struct_size(SMB2_OP_COUNT), 0);
	assert_string_equal(smb2_op_name(SMB2_OP_READ), "READ");
	assert_string_equal(smb2_op_name(0xFFFF), "UNKNOWN");
}

/* ------------------------------------------------------------------ */
/* Compound carving                                                    */

/* Three ECHOs: 72 + 72 + 68 bytes (the last one unpadded). */
static size_t mk_three_echoes(uint8_t *buf)
{
	size_t len = 0;

	memset(buf, 0, 212);
	len = mk_pdu(buf, SMB2_OP_ECHO, 72, 0, echo_body, 4);
	len = 72 + mk_pdu(buf + 72, SMB2_OP_ECHO, 72,
			  SMB2_FLAGS_RELATED_OPERATIONS, echo_body, 4);
	len = 144 + mk_pdu(buf + 144, SMB2_OP_ECHO, 0,
			   SMB2_FLAGS_RELATED_OPERATIONS, echo_body, 4);
	assert_int_equal(len, 212);
	return len;
}

static NTSTATUS carve_guarded(TALLOC_CTX *ctx, const uint8_t *buf,
			      size_t len, struct smb2_pdu **pdus, size_t *n)
{
	uint8_t *g = guard_dup(buf, len);
	NTSTATUS status = smb2_compound_carve(ctx, g, len, pdus, n);

	/* the pdus point into g: only the status is used after this */
	guard_free(g);
	return status;
}

static void test_compound__three(void **state)
{
	uint8_t buf[212];
	size_t len = mk_three_echoes(buf);
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;
	size_t i = 0;

	assert_true(IS_OK(smb2_compound_carve(*state, buf, len, &pdus, &n)));
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		assert_true(IS_OK(pdus[i].status));
		assert_ptr_equal(pdus[i].buf, buf + 72 * i);
		assert_int_equal(pdus[i].body_len, 4);
		assert_int_equal(pdus[i].dyn_ofs, 68);
		assert_true(IS_OK(smb2_echo_req_pull(&pdus[i])));
		assert_int_equal(pdus[i].hdr.message_id, 7);
	}
	assert_int_equal(pdus[0].len, 72);
	assert_int_equal(pdus[0].dyn_len, 4);	/* the padding */
	assert_int_equal(pdus[2].len, 68);
	assert_int_equal(pdus[2].dyn_len, 0);
	assert_true(pdus[1].hdr.flags & SMB2_FLAGS_RELATED_OPERATIONS);
	talloc_free(pdus);
}

static void set_next(uint8_t *elem, uint32_t next)
{
	push_le32(elem + SMB2_HDR_OFS_NEXT_COMMAND, next);
}

static void test_compound__bad_next_command(void **state)
{
	static const uint32_t bad[] = { 68, 76, 65, 64, 8, 1, 212, 213,
					0xFFFFFFF8, 0x80000000 };
	uint8_t buf[212];
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;
	size_t i = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = mk_three_echoes(buf);

		set_next(buf, bad[i]);
		assert_true(IS_IP(carve_guarded(*state, buf, len, &pdus, &n)));
	}
	/* second element pointing past the end, or wrapping */
	mk_three_echoes(buf);
	set_next(buf + 72, 144);
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	set_next(buf + 72, 0xFFFFFFF8);
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	/* a compound cut short after a NextCommand */
	mk_three_echoes(buf);
	assert_true(IS_IP(carve_guarded(*state, buf, 72 + 63, &pdus, &n)));
	assert_true(IS_IP(carve_guarded(*state, buf, 72, &pdus, &n)));
}

static void test_compound__bad_framing(void **state)
{
	uint8_t buf[212];
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;

	mk_three_echoes(buf);
	buf[72] = 0xFD;			/* transform id inside a compound */
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	mk_three_echoes(buf);
	push_le16(buf + 72 + SMB2_HDR_OFS_COMMAND, SMB2_OP_COUNT);
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	push_le16(buf + 72 + SMB2_HDR_OFS_COMMAND, 0xFFFF);
	assert_true(IS_IP(carve_guarded(*state, buf, 212, &pdus, &n)));
	assert_true(IS_IP(carve_guarded(*state, buf, 0, &pdus, &n)));
	assert_true(IS_IP(carve_guarded(*state, buf, 63, &pdus, &n)));
}

/* A per-element problem fails only that element (RELIABILITY item 6). */
static void test_compound__element_status(void **state)
{
	uint8_t buf[212];
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;

	mk_three_echoes(buf);
	buf[72 + SMB2_HDR_SIZE] = 5;		/* body StructureSize */
	buf[144 + SMB2_HDR_OFS_STRUCTURE_SIZE] = 63;
	assert_true(IS_OK(smb2_compound_carve(*state, buf, 212, &pdus, &n)));
	assert_int_equal(n, 3);
	assert_true(IS_OK(pdus[0].status));
	assert_true(IS_IP(pdus[1].status));
	assert_true(IS_IP(pdus[2].status));
	assert_int_equal(pdus[1].body_len, 0);
	assert_null(pdus[1].body);
	assert_true(IS_IP(smb2_echo_req_pull(&pdus[1])));
	assert_true(IS_IP(smb2_echo_req_pull(&pdus[2])));
	/* the pull of another opcode on a good element fails too */
	assert_true(IS_IP(smb2_logoff_req_pull(&pdus[0])));
	talloc_free(pdus);
}

static void test_compound__body_short(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 64] = {};
	struct smb2_pdu *p = NULL;
	uint8_t lock_body[48] = { 48, 0, 1, 0 };

	mk_pdu(buf, SMB2_OP_ECHO, 0, 0, echo_body, 4);
	p = carve1(*state, buf, SMB2_HDR_SIZE + 3);
	assert_true(IS_IP(p->status));
	p = carve1(*state, buf, SMB2_HDR_SIZE + 1);
	assert_true(IS_IP(p->status));
	p = carve1(*state, buf, SMB2_HDR_SIZE);
	assert_true(IS_IP(p->status));
	/* LOCK: 48 counts one element; 47 bytes of body is short */
	mk_pdu(buf, SMB2_OP_LOCK, 0, 0, lock_body, 48);
	p = carve1(*state, buf, SMB2_HDR_SIZE + 47);
	assert_true(IS_IP(p->status));
	p = carve1(*state, buf, SMB2_HDR_SIZE + 48);
	assert_true(IS_OK(p->status));
	talloc_free_children(*state);
}

static void test_compound__wrong_struct_size_all_ops(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 128] = {};
	uint16_t op = 0;

	for (op = 0; op < SMB2_OP_COUNT; op++) {
		uint16_t want = smb2_req_struct_size(op);
		struct smb2_pdu *p = NULL;

		memset(buf, 0, sizeof(buf));
		mk_pdu(buf, op, 0, 0, echo_body, 0);
		push_le16(buf + SMB2_HDR_SIZE, want);
		p = carve1(*state, buf, sizeof(buf));
		assert_true(IS_OK(p->status));
		push_le16(buf + SMB2_HDR_SIZE, want + 1);
		p = carve1(*state, buf, sizeof(buf));
		assert_true(IS_IP(p->status));
		/* body one byte short of the fixed part */
		push_le16(buf + SMB2_HDR_SIZE, want);
		p = carve1(*state, buf, SMB2_HDR_SIZE + (want & ~1) - 1);
		assert_true(IS_IP(p->status));
	}
	talloc_free_children(*state);
}

static void test_compound__oplock_break_sizes(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 36] = {};
	struct smb2_pdu *p = NULL;
	struct smb2_oplock_break_req r;

	mk_pdu(buf, SMB2_OP_OPLOCK_BREAK, 0, 0, echo_body, 0);
	push_le16(buf + SMB2_HDR_SIZE, 36);
	buf[SMB2_HDR_SIZE + 8] = 0x5A;		/* LeaseKey[0] */
	push_le32(buf + SMB2_HDR_SIZE + 24, SMB2_LEASE_READ_CACHING);
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_oplock_break_req_pull(p, &r)));
	assert_true(r.is_lease);
	assert_int_equal(r.lease_key[0], 0x5A);
	assert_int_equal(r.lease_state, SMB2_LEASE_READ_CACHING);

	push_le16(buf + SMB2_HDR_SIZE, 24);
	buf[SMB2_HDR_SIZE + 2] = SMB2_OPLOCK_LEVEL_II;
	push_le64(buf + SMB2_HDR_SIZE + 8, 77);
	p = carve1(*state, buf, SMB2_HDR_SIZE + 24);
	assert_true(IS_OK(smb2_oplock_break_req_pull(p, &r)));
	assert_false(r.is_lease);
	assert_int_equal(r.oplock_level, SMB2_OPLOCK_LEVEL_II);
	assert_int_equal(r.file_id.persistent, 77);

	push_le16(buf + SMB2_HDR_SIZE, 44);
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_IP(p->status));
	talloc_free_children(*state);
}

static void test_compound__max_elements(void **state)
{
	const size_t max = SMB2_COMPOUND_MAX;
	uint8_t *buf = talloc_zero_array(*state, uint8_t, (max + 1) * 72);
	struct smb2_pdu *pdus = NULL;
	size_t n = 0;
	size_t i = 0;

	for (i = 0; i <= max; i++) {
		mk_pdu(buf + 72 * i, SMB2_OP_ECHO, i < max ? 72 : 0, 0,
		       echo_body, 4);
	}
	assert_true(IS_IP(smb2_compound_carve(*state, buf, (max + 1) * 72 - 4,
					      &pdus, &n)));
	set_next(buf + 72 * (max - 1), 0);
	assert_true(IS_OK(smb2_compound_carve(*state, buf, max * 72 - 4,
					      &pdus, &n)));
	assert_int_equal(n, max);
	talloc_free(pdus);
	talloc_free(buf);
}

static void test_compound__dyn_accessor(void **state)
{
	uint8_t buf[200] = {};
	struct smb2_pdu pdu = { .buf = buf, .len = 150, .dyn_ofs = 100,
				.dyn_len = 50 };
	const uint8_t *p = NULL;

	assert_true(IS_OK(smb2_pdu_dyn(&pdu, 0, 0, &p)));
	assert_null(p);
	assert_true(IS_OK(smb2_pdu_dyn(&pdu, 0xFFFFFFFF, 0, &p)));
	assert_null(p);
	assert_true(IS_OK(smb2_pdu_dyn(&pdu, 100, 50, &p)));
	assert_ptr_equal(p, buf + 100);
	assert_true(IS_OK(smb2_pdu_dyn(&pdu, 149, 1, &p)));
	assert_ptr_equal(p, buf + 149);
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 100, 51, &p)));
	assert_null(p);
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 150, 1, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 99, 1, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 0, 1, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 0xFFFFFFFF, 1, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 101, 0xFFFFFFFF, &p)));
	assert_true(IS_IP(smb2_pdu_dyn(&pdu, 0xFFFFFFF0, 0x20, &p)));
}

/* ------------------------------------------------------------------ */
/* NEGOTIATE                                                           */

static void test_negprot__capture_311(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_negprot, sizeof(cap_negprot));
	struct smb2_negprot_req r;
	const struct smb2_negctx *ctx = NULL;
	struct smb2_negctx_preauth pa;
	struct smb2_negctx_encryption enc;
	struct smb2_negctx_signing sig;
	struct smb2_blob nn;
	char *name = NULL;
	size_t n = 0;

	assert_true(IS_OK(smb2_negprot_req_pull(p, &r)));
	assert_int_equal(r.dialect_count, 5);
	assert_int_equal(smb2_u16_at(r.dialects, 0), SMB2_DIALECT_0202);
	assert_int_equal(smb2_u16_at(r.dialects, 4), SMB2_DIALECT_0311);
	assert_int_equal(r.security_mode, SMB2_NEGOTIATE_SIGNING_ENABLED);
	assert_int_equal(r.capabilities, 0x7F);
	assert_int_equal(r.negctx_offset, 0x70);
	assert_int_equal(r.negctx_count, 4);
	assert_int_equal(r.num_negctx, 4);

	ctx = smb2_negctx_find(&r, SMB2_PREAUTH_INTEGRITY_CAPABILITIES, &n);
	assert_int_equal(n, 1);
	assert_true(IS_OK(smb2_negctx_preauth_pull(ctx, &pa)));
	assert_int_equal(pa.hash_count, 1);
	assert_int_equal(smb2_u16_at(pa.hash_algs, 0),
			 SMB2_PREAUTH_INTEGRITY_SHA512);
	assert_int_equal(pa.salt_len, 32);

	ctx = smb2_negctx_find(&r, SMB2_ENCRYPTION_CAPABILITIES, &n);
	assert_true(IS_OK(smb2_negctx_encryption_pull(ctx, &enc)));
	assert_int_equal(enc.cipher_count, 4);
	assert_true(smb2_u16_array_has(enc.ciphers, 4,
				       SMB2_ENCRYPTION_AES128_GCM));
	assert_false(smb2_u16_array_has(enc.ciphers, 4, 5));

	ctx = smb2_negctx_find(&r, SMB2_SIGNING_CAPABILITIES, &n);
	assert_true(IS_OK(smb2_negctx_signing_pull(ctx, &sig)));
	assert_int_equal(sig.alg_count, 3);
	assert_int_equal(smb2_u16_at(sig.algs, 0), SMB2_SIGNING_AES_GMAC);

	ctx = smb2_negctx_find(&r, SMB2_NETNAME_NEGOTIATE_CONTEXT_ID, &n);
	assert_true(IS_OK(smb2_negctx_netname_pull(ctx, &nn)));
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, nn.data, nn.len, &name)));
	assert_string_equal(name, "127.0.0.1");
	talloc_free(name);

	assert_null(smb2_negctx_find(&r, SMB2_COMPRESSION_CAPABILITIES, &n));
	assert_int_equal(n, 0);
	talloc_free(p);
}

static void test_negprot__capture_202(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_negprot_smb2,
				    sizeof(cap_negprot_smb2));
	struct smb2_negprot_req r;

	assert_true(IS_OK(smb2_negprot_req_pull(p, &r)));
	assert_int_equal(r.dialect_count, 1);
	assert_int_equal(smb2_u16_at(r.dialects, 0), SMB2_DIALECT_0202);
	assert_int_equal(r.num_negctx, 0);
	talloc_free(p);
}

static void test_negprot__truncations(void **state)
{
	check_truncations(cap_negprot, sizeof(cap_negprot),
			  sizeof(cap_negprot));
	check_truncations(cap_negprot_smb2, sizeof(cap_negprot_smb2),
			  sizeof(cap_negprot_smb2));
}

/* A copy of the captured 3.1.1 NEGOTIATE to damage. */
static uint8_t *negprot_copy(TALLOC_CTX *ctx)
{
	return talloc_memdup(ctx, cap_negprot, sizeof(cap_negprot));
}

#define NP_OFS_DIALECT_COUNT	(SMB2_HDR_SIZE + 2)
#define NP_OFS_CTX_OFFSET	(SMB2_HDR_SIZE + 28)
#define NP_OFS_CTX_COUNT	(SMB2_HDR_SIZE + 32)
#define NP_FIRST_CTX		0x70

static NTSTATUS negprot_pull_guarded(const uint8_t *buf, size_t len)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *g = guard_dup(buf, len);
	struct smb2_pdu *pdus = NULL;
	struct smb2_negprot_req r;
	size_t n = 0;
	NTSTATUS status = smb2_compound_carve(tmp, g, len, &pdus, &n);

	if (IS_OK(status)) {
		status = smb2_negprot_req_pull(&pdus[0], &r);
	}
	guard_free(g);
	talloc_free(tmp);
	return status;
}

static void test_negprot__bad_dialects(void **state)
{
	uint8_t *b = negprot_copy(*state);

	push_le16(b + NP_OFS_DIALECT_COUNT, 0);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_DIALECT_COUNT, 0xFFFF);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	/* 6 dialects end where the contexts start; 7 overlap them */
	push_le16(b + NP_OFS_DIALECT_COUNT, 6);
	assert_true(IS_OK(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_DIALECT_COUNT, 7);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	/* 63 fit the 126 bytes after the fixed part, 64 do not */
	push_le16(b + NP_OFS_DIALECT_COUNT, 63);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_DIALECT_COUNT, 64);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	talloc_free(b);
}

static void test_negprot__bad_context_list(void **state)
{
	static const uint32_t bad_ofs[] = { 0x6C, 0x71, 0x74, 0x68, 0, 0xE0,
					    0xE8, 0x1000, 0xFFFFFFF8 };
	uint8_t *b = negprot_copy(*state);
	size_t i = 0;

	for (i = 0; i < sizeof(bad_ofs) / sizeof(bad_ofs[0]); i++) {
		push_le32(b + NP_OFS_CTX_OFFSET, bad_ofs[i]);
		assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	}
	push_le32(b + NP_OFS_CTX_OFFSET, NP_FIRST_CTX);
	push_le16(b + NP_OFS_CTX_COUNT, 65535);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_CTX_COUNT, 5);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	/* count 0: nothing walked; the daemon then finds no PREAUTH */
	push_le16(b + NP_OFS_CTX_COUNT, 0);
	assert_true(IS_OK(negprot_pull_guarded(b, sizeof(cap_negprot))));
	/* offset 0xE8 with count 0 is not looked at */
	push_le32(b + NP_OFS_CTX_OFFSET, 0xE8);
	assert_true(IS_OK(negprot_pull_guarded(b, sizeof(cap_negprot))));
	push_le16(b + NP_OFS_CTX_COUNT, 4);
	/* first context's DataLength past the end */
	push_le32(b + NP_OFS_CTX_OFFSET, NP_FIRST_CTX);
	push_le16(b + NP_FIRST_CTX + 2, 0xFFFF);
	assert_true(IS_IP(negprot_pull_guarded(b, sizeof(cap_negprot))));
	talloc_free(b);
}

/* Without 0x0311 the 8 bytes are ClientStartTime: no walk at all. */
static void test_negprot__2x_ignores_contexts(void **state)
{
	uint8_t *b = negprot_copy(*state);
	struct smb2_pdu *p = NULL;
	struct smb2_negprot_req r;

	push_le16(b + SMB2_HDR_SIZE + 36 + 8, SMB2_DIALECT_0300);
	push_le32(b + NP_OFS_CTX_OFFSET, 0xFFFFFFFF);
	push_le16(b + NP_OFS_CTX_COUNT, 0xFFFF);
	assert_true(IS_OK(negprot_pull_guarded(b, sizeof(cap_negprot))));
	p = carve1(*state, b, sizeof(cap_negprot));
	assert_true(IS_OK(smb2_negprot_req_pull(p, &r)));
	assert_int_equal(r.num_negctx, 0);
	assert_true(r.client_start_time == 0x0000FFFFFFFFFFFFULL);
	talloc_free(p);
	talloc_free(b);
}

/* A 3.1.1 NEGOTIATE carrying the given context list. */
static size_t mk_negprot_ctx(uint8_t *buf, const uint8_t *ctx,
			     size_t ctx_len, uint16_t count)
{
	uint8_t body[36 + 4 + 1024] = { 36, 0, 1, 0 };

	assert_true(ctx_len <= 1024);
	push_le32(body + 28, SMB2_HDR_SIZE + 40);
	push_le16(body + 32, count);
	push_le16(body + 36, SMB2_DIALECT_0311);
	memcpy(body + 40, ctx, ctx_len);
	return mk_pdu(buf, SMB2_OP_NEGPROT, 0, 0, body, 40 + ctx_len);
}

static void test_negprot__context_alignment(void **state)
{
	/* two contexts: the second must start 8-aligned after the first */
	static const uint8_t ctx[] = {
		0x06, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0x01, 0, 0, 0,
		0, 0, 0, 0,			/* pad to 16 */
		0x08, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0x01, 0, 0x01, 0,
	};
	uint8_t buf[SMB2_HDR_SIZE + 1100];
	size_t len = mk_negprot_ctx(buf, ctx, sizeof(ctx), 2);
	struct smb2_pdu *p = carve1(*state, buf, len);
	struct smb2_negprot_req r;
	struct smb2_negctx_signing sig;
	uint32_t flags = 0;

	assert_true(IS_OK(smb2_negprot_req_pull(p, &r)));
	assert_int_equal(r.num_negctx, 2);
	assert_true(IS_OK(smb2_negctx_transport_pull(&r.negctx[0], &flags)));
	assert_int_equal(flags, SMB2_ACCEPT_TRANSPORT_LEVEL_SECURITY);
	assert_int_equal(r.negctx[1].type, SMB2_SIGNING_CAPABILITIES);
	assert_true(IS_OK(smb2_negctx_signing_pull(&r.negctx[1], &sig)));
	assert_int_equal(smb2_u16_at(sig.algs, 0), SMB2_SIGNING_AES_CMAC);
	/* padding cut: the second header no longer fits */
	len = mk_negprot_ctx(buf, ctx, 16 + 4, 2);
	assert_true(IS_IP(negprot_pull_guarded(buf, len)));
	/* pad missing entirely: the walk reads past the end */
	len = mk_negprot_ctx(buf, ctx, 12, 2);
	assert_true(IS_IP(negprot_pull_guarded(buf, len)));
	check_truncations(buf, mk_negprot_ctx(buf, ctx, sizeof(ctx), 2),
			  SMB2_HDR_SIZE + 40 + sizeof(ctx));
	talloc_free(p);
}

static void test_negprot__max_contexts(void **state)
{
	uint8_t ctx[8 * (SMB2_NEGCTX_MAX + 1)] = {};
	uint8_t buf[SMB2_HDR_SIZE + 1100];
	size_t i = 0;

	for (i = 0; i <= SMB2_NEGCTX_MAX; i++) {
		ctx[8 * i] = 0x42;	/* unknown type, no data */
	}
	assert_true(IS_OK(negprot_pull_guarded(buf,
		mk_negprot_ctx(buf, ctx, sizeof(ctx), SMB2_NEGCTX_MAX))));
	assert_true(IS_IP(negprot_pull_guarded(buf,
		mk_negprot_ctx(buf, ctx, sizeof(ctx), SMB2_NEGCTX_MAX + 1))));
}

static void test_negctx__typed_pulls_reject(void **state)
{
	static const uint8_t pa_zero[] = { 0, 0, 32, 0 };
	static const uint8_t pa_salt_past[] = { 1, 0, 33, 0, 1, 0,
						[6 ... 37] = 0x11 };
	static const uint8_t pa_ok[] = { 1, 0, 32, 0, 1, 0,
					 [6 ... 37] = 0x11 };
	static const uint8_t enc_zero[] = { 0, 0 };
	static const uint8_t enc_short[] = { 2, 0, 1, 0 };
	static const uint8_t comp_ok[] = { 1, 0, 0, 0, 1, 0, 0, 0, 5, 0 };
	static const uint8_t rdma_zero[] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t odd[] = { 'a', 0, 'b' };
	struct smb2_negctx c = {};
	struct smb2_negctx_preauth pa;
	struct smb2_negctx_encryption enc;
	struct smb2_negctx_compression comp;
	struct smb2_negctx_rdma rdma;
	struct smb2_negctx_signing sig;
	struct smb2_blob nn;
	uint32_t flags = 0;

#define CTX(a) (c = (struct smb2_negctx){ .data = a, .len = sizeof(a) }, &c)
	assert_true(IS_IP(smb2_negctx_preauth_pull(CTX(pa_zero), &pa)));
	assert_true(IS_IP(smb2_negctx_preauth_pull(CTX(pa_salt_past), &pa)));
	assert_true(IS_OK(smb2_negctx_preauth_pull(CTX(pa_ok), &pa)));
	assert_int_equal(pa.salt[31], 0x11);
	assert_true(IS_IP(smb2_negctx_encryption_pull(CTX(enc_zero), &enc)));
	assert_true(IS_IP(smb2_negctx_encryption_pull(CTX(enc_short), &enc)));
	assert_true(IS_IP(smb2_negctx_signing_pull(CTX(enc_zero), &sig)));
	assert_true(IS_OK(smb2_negctx_compression_pull(CTX(comp_ok), &comp)));
	assert_int_equal(smb2_u16_at(comp.algs, 0), SMB2_COMPRESSION_LZ4);
	assert_true(IS_IP(smb2_negctx_compression_pull(CTX(enc_short),
						       &comp)));
	assert_true(IS_IP(smb2_negctx_rdma_pull(CTX(rdma_zero), &rdma)));
	assert_true(IS_IP(smb2_negctx_netname_pull(CTX(odd), &nn)));
	assert_true(IS_IP(smb2_negctx_transport_pull(CTX(odd), &flags)));
	c = (struct smb2_negctx){ .data = NULL, .len = 0 };
	assert_true(IS_IP(smb2_negctx_preauth_pull(&c, &pa)));
#undef CTX
}

static void test_negprot__rsp_311(void **state)
{
	static const uint8_t want[] = {
		0x41, 0x00, 0x01, 0x00, 0x11, 0x03, 0x02, 0x00,
		0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
		0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
		0x2f, 0x00, 0x00, 0x00,			/* capabilities */
		0x00, 0x00, 0x80, 0x00,			/* max transact */
		0x00, 0x00, 0x10, 0x00,			/* max read */
		0x00, 0x00, 0x01, 0x00,			/* max write */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x80, 0x00, 0x03, 0x00,			/* security buf */
		0x88, 0x00, 0x00, 0x00,			/* context offset */
		0xaa, 0xbb, 0xcc, 0, 0, 0, 0, 0,	/* blob, pad */
		0x01, 0x00, 0x26, 0x00, 0, 0, 0, 0,	/* preauth */
		0x01, 0x00, 0x20, 0x00, 0x01, 0x00,
		[86 ... 117] = 0x5a,
		0, 0,					/* pad */
		0x02, 0x00, 0x04, 0x00, 0, 0, 0, 0,	/* encryption */
		0x01, 0x00, 0x02, 0x00,
	};
	static const uint8_t salt[32] = { [0 ... 31] = 0x5a };
	static const uint8_t blob[3] = { 0xaa, 0xbb, 0xcc };
	struct smb2_negctx ctx[2] = {};
	struct smb2_negprot_rsp r = {
		.security_mode = SMB2_NEGOTIATE_SIGNING_ENABLED,
		.dialect = SMB2_DIALECT_0311,
		.server_guid = { 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
				 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e,
				 0x1f },
		.capabilities = 0x2f, .max_transact = 0x800000,
		.max_read = 0x100000, .max_write = 0x10000,
		.system_time = 0x0102030405060708ULL,
		.security = { blob, sizeof(blob) },
		.negctx = ctx, .num_negctx = 2,
	};
	size_t len = 0, dlen = 0;
	uint8_t *d1 = NULL, *d2 = NULL, *out = NULL;

	d1 = smb2_negctx_preauth_push(*state, salt, &dlen);
	assert_non_null(d1);
	ctx[0] = (struct smb2_negctx){ SMB2_PREAUTH_INTEGRITY_CAPABILITIES, d1,
				       (uint16_t)dlen };
	d2 = smb2_negctx_encryption_push(*state, SMB2_ENCRYPTION_AES128_GCM,
					 &dlen);
	ctx[1] = (struct smb2_negctx){ SMB2_ENCRYPTION_CAPABILITIES, d2,
				       (uint16_t)dlen };
	out = smb2_negprot_rsp_push(*state, &r, &len);
	assert_non_null(out);
	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
	talloc_free(d1);
	talloc_free(d2);
}

static void test_negprot__rsp_2x_and_empty(void **state)
{
	struct smb2_negctx ctx = { SMB2_ENCRYPTION_CAPABILITIES, NULL, 0 };
	struct smb2_negprot_rsp r = { .dialect = SMB2_DIALECT_0210,
				      .negctx = &ctx, .num_negctx = 1 };
	size_t len = 0;
	uint8_t *out = NULL;

	/* contexts are refused below 3.1.1 */
	assert_null(smb2_negprot_rsp_push(*state, &r, &len));
	r.num_negctx = 0;
	out = smb2_negprot_rsp_push(*state, &r, &len);
	assert_int_equal(len, 65);		/* the pad byte */
	assert_int_equal(pull_le16(out + 56), 0x80);
	assert_int_equal(pull_le16(out + 58), 0);
	assert_int_equal(pull_le32(out + 60), 0);
	assert_int_equal(pull_le16(out + 6), 0);
	talloc_free(out);
}

static void test_negctx__pushes(void **state)
{
	static const uint8_t want_sig[] = { 1, 0, 2, 0 };
	static const uint8_t want_comp[] = { 2, 0, 0, 0, 1, 0, 0, 0,
					     5, 0, 4, 0 };
	static const uint16_t algs[] = { SMB2_COMPRESSION_LZ4,
					 SMB2_COMPRESSION_PATTERN_V1 };
	size_t len = 0;
	uint8_t *d = smb2_negctx_signing_push(*state, SMB2_SIGNING_AES_GMAC,
					      &len);

	assert_bytes(d, len, want_sig, sizeof(want_sig));
	talloc_free(d);
	d = smb2_negctx_compression_push(*state,
		SMB2_COMPRESSION_CAPABILITIES_FLAG_CHAINED, algs, 2, &len);
	assert_bytes(d, len, want_comp, sizeof(want_comp));
	talloc_free(d);
	assert_null(smb2_negctx_compression_push(*state, 0, algs, 0, &len));
}

/* ------------------------------------------------------------------ */
/* SMB1 NEGOTIATE detection                                            */

/* An SMB1 NEGOTIATE offering the given dialect strings ("\2..." each). */
static size_t mk_smb1_negprot(uint8_t *buf, const char *const *d, size_t n)
{
	size_t pos = 35;
	size_t i = 0;

	memset(buf, 0, 35);
	memcpy(buf, "\xffSMB\x72", 5);
	for (i = 0; i < n; i++) {
		buf[pos++] = 0x02;
		memcpy(buf + pos, d[i], strlen(d[i]) + 1);
		pos += strlen(d[i]) + 1;
	}
	push_le16(buf + 33, (uint16_t)(pos - 35));
	return pos;
}

static void test_smb1__wants_smb2(void **state)
{
	static const char *const win7[] = { "PC NETWORK PROGRAM 1.0",
					    "NT LM 0.12", "SMB 2.002",
					    "SMB 2.???" };
	static const char *const vista[] = { "NT LM 0.12", "SMB 2.002" };
	static const char *const old[] = { "NT LM 0.12", "SMB 2.003" };
	uint8_t buf[256];
	uint16_t d = 0;
	size_t len = mk_smb1_negprot(buf, win7, 4);
	size_t n = 0;

	assert_true(smb1_negprot_wants_smb2(buf, len, &d));
	assert_int_equal(d, SMB2_DIALECT_WILDCARD);
	/* every truncation: false (the last string loses its NUL) */
	for (n = 0; n < len; n++) {
		uint8_t *g = guard_dup(buf, n);

		assert_false(smb1_negprot_wants_smb2(g, n, &d));
		guard_free(g);
	}
	len = mk_smb1_negprot(buf, vista, 2);
	assert_true(smb1_negprot_wants_smb2(buf, len, &d));
	assert_int_equal(d, SMB2_DIALECT_0202);
	len = mk_smb1_negprot(buf, old, 2);
	assert_false(smb1_negprot_wants_smb2(buf, len, &d));
	/* not a NEGOTIATE; an SMB2 header */
	len = mk_smb1_negprot(buf, win7, 4);
	buf[4] = 0x73;
	assert_false(smb1_negprot_wants_smb2(buf, len, &d));
	assert_false(smb1_negprot_wants_smb2(cap_negprot, sizeof(cap_negprot),
					     &d));
}

static void test_smb1__lying_counts(void **state)
{
	static const char *const win7[] = { "NT LM 0.12", "SMB 2.???" };
	uint8_t buf[256];
	uint16_t d = 0;
	size_t len = mk_smb1_negprot(buf, win7, 2);
	uint8_t *g = NULL;

	push_le16(buf + 33, (uint16_t)(len - 35 + 1));	/* ByteCount */
	g = guard_dup(buf, len);
	assert_false(smb1_negprot_wants_smb2(g, len, &d));
	guard_free(g);
	push_le16(buf + 33, (uint16_t)(len - 35));
	buf[32] = 0xFF;					/* WordCount */
	g = guard_dup(buf, len);
	assert_false(smb1_negprot_wants_smb2(g, len, &d));
	guard_free(g);
	buf[32] = 0;
	buf[35] = 0x03;				/* not a dialect string */
	assert_false(smb1_negprot_wants_smb2(buf, len, &d));
}

/* ------------------------------------------------------------------ */
/* SESSION_SETUP                                                       */

static void test_sesssetup__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_sesssetup,
				    sizeof(cap_sesssetup));
	struct smb2_sesssetup_req r;

	assert_true(IS_OK(smb2_sesssetup_req_pull(p, &r)));
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.security_mode, SMB2_NEGOTIATE_SIGNING_ENABLED);
	assert_int_equal(r.capabilities, SMB2_GLOBAL_CAP_DFS);
	assert_int_equal(r.security.len, 74);
	assert_ptr_equal(r.security.data, p->buf + 0x58);
	assert_int_equal(r.security.data[0], 0x60);	/* GSS-API [APPLICATION 0] */
	check_truncations(cap_sesssetup, sizeof(cap_sesssetup),
			  sizeof(cap_sesssetup));
	talloc_free(p);
}

static void test_sesssetup__bad_buffer(void **state)
{
	uint8_t *b = talloc_memdup(*state, cap_sesssetup,
				   sizeof(cap_sesssetup));

	push_le16(b + SMB2_HDR_SIZE + 12, 0x57);	/* into the fixed part */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_sesssetup))));
	push_le16(b + SMB2_HDR_SIZE + 12, 0x59);	/* one past */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_sesssetup))));
	push_le16(b + SMB2_HDR_SIZE + 12, 0xFFFF);
	push_le16(b + SMB2_HDR_SIZE + 14, 0xFFFF);
	assert_true(IS_IP(carve_pull(b, sizeof(cap_sesssetup))));
	/* empty buffer: the pull succeeds, the daemon decides */
	push_le16(b + SMB2_HDR_SIZE + 14, 0);
	assert_true(IS_OK(carve_pull(b, sizeof(cap_sesssetup))));
	talloc_free(b);
}

static void test_sesssetup__rsp(void **state)
{
	static const uint8_t want[] = { 0x09, 0x00, 0x01, 0x00, 0x48, 0x00,
					0x02, 0x00, 0xa1, 0x07 };
	static const uint8_t want_empty[] = { 0x09, 0x00, 0x00, 0x00, 0x48,
					      0x00, 0x00, 0x00, 0x00 };
	static const uint8_t tok[] = { 0xa1, 0x07 };
	struct smb2_sesssetup_rsp r = {
		.session_flags = SMB2_SESSION_FLAG_IS_GUEST,
		.security = { tok, sizeof(tok) } };
	size_t len = 0;
	uint8_t *out = smb2_sesssetup_rsp_push(*state, &r, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
	r = (struct smb2_sesssetup_rsp){};
	out = smb2_sesssetup_rsp_push(*state, &r, &len);
	assert_bytes(out, len, want_empty, sizeof(want_empty));
	talloc_free(out);
	r.security.len = 65536;
	assert_null(smb2_sesssetup_rsp_push(*state, &r, &len));
}

/* ------------------------------------------------------------------ */
/* TREE_CONNECT, TREE_DISCONNECT, LOGOFF, ECHO                         */

static void test_tcon__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_tcon, sizeof(cap_tcon));
	struct smb2_tcon_req r;
	char *path = NULL;

	assert_true(IS_OK(smb2_tcon_req_pull(p, &r)));
	assert_int_equal(r.flags, 0);
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, r.path.data, r.path.len,
					     &path)));
	assert_string_equal(path, "\\\\127.0.0.1\\IPC$");
	check_truncations(cap_tcon, sizeof(cap_tcon), sizeof(cap_tcon));
	talloc_free(path);
	talloc_free(p);
}

static void test_tcon__bad_path(void **state)
{
	uint8_t *b = talloc_memdup(*state, cap_tcon, sizeof(cap_tcon));

	push_le16(b + SMB2_HDR_SIZE + 6, 0x1F);		/* odd */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_tcon))));
	push_le16(b + SMB2_HDR_SIZE + 6, 0x22);		/* past the end */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_tcon))));
	push_le16(b + SMB2_HDR_SIZE + 6, 0x20);
	push_le16(b + SMB2_HDR_SIZE + 4, 0x46);		/* before Buffer */
	assert_true(IS_IP(carve_pull(b, sizeof(cap_tcon))));
	talloc_free(b);
}

/* Byte-exact against Samba's answer to the captured TREE_CONNECT. */
static void test_tcon__rsp_matches_samba(void **state)
{
	struct smb2_tcon_rsp r = { .share_type = SMB2_SHARE_TYPE_PIPE,
				   .maximal_access = 0x001f00a9 };
	size_t len = 0;
	uint8_t *out = smb2_tcon_rsp_push(*state, &r, &len);

	assert_bytes(out, len, cap_tcon_rsp + SMB2_HDR_SIZE,
		     sizeof(cap_tcon_rsp) - SMB2_HDR_SIZE);
	talloc_free(out);
}

static void test_simple__pulls_and_rsps(void **state)
{
	static const uint8_t want4[] = { 4, 0, 0, 0 };
	static const uint8_t want2[] = { 2, 0 };
	uint8_t buf[SMB2_HDR_SIZE + 4];
	struct smb2_pdu *p = carve1(*state, cap_tdis, sizeof(cap_tdis));
	size_t len = 0;
	uint8_t *out = NULL;

	assert_true(IS_OK(smb2_tdis_req_pull(p)));
	assert_true(IS_IP(smb2_logoff_req_pull(p)));
	check_truncations(cap_tdis, sizeof(cap_tdis), sizeof(cap_tdis));
	mk_pdu(buf, SMB2_OP_LOGOFF, 0, 0, echo_body, 4);
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_logoff_req_pull(p)));
	mk_pdu(buf, SMB2_OP_CANCEL, 0, 0, echo_body, 4);
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_cancel_req_pull(p)));

	out = smb2_echo_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_logoff_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_tdis_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_flush_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_lock_rsp_push(*state, &len);
	assert_bytes(out, len, want4, 4);
	out = smb2_set_info_rsp_push(*state, &len);
	assert_bytes(out, len, want2, 2);
	talloc_free_children(*state);
}

static void test_error__rsp(void **state)
{
	static const uint8_t want[] = { 9, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t want_data[] = { 9, 0, 0, 0, 2, 0, 0, 0, 7, 8 };
	static const uint8_t data[] = { 7, 8 };
	size_t len = 0;
	uint8_t *out = smb2_error_rsp_push(*state, NULL, 0, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
	out = smb2_error_rsp_push(*state, data, sizeof(data), &len);
	assert_bytes(out, len, want_data, sizeof(want_data));
	talloc_free(out);
}

/* ------------------------------------------------------------------ */
/* CREATE and create contexts                                          */

static void test_create__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_create_f,
				    sizeof(cap_create_f));
	struct smb2_create_req r;
	char *name = NULL;

	assert_true(IS_OK(smb2_create_req_pull(p, &r)));
	assert_int_equal(r.impersonation_level,
			 SMB2_IMPERSONATION_IMPERSONATION);
	assert_int_equal(r.desired_access, SMB2_FILE_READ_ATTRIBUTES);
	assert_int_equal(r.share_access, SMB2_FILE_SHARE_READ |
			 SMB2_FILE_SHARE_WRITE | SMB2_FILE_SHARE_DELETE);
	assert_int_equal(r.create_disposition, SMB2_FILE_OPEN);
	assert_int_equal(r.contexts.num, 0);
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, r.name.data, r.name.len,
					     &name)));
	assert_string_equal(name, "f");
	talloc_free(name);
	check_truncations(cap_create_f, sizeof(cap_create_f),
			  SMB2_HDR_SIZE + 56 + 2);
	talloc_free(p);

	p = carve1(*state, cap_create_root, sizeof(cap_create_root));
	assert_true(IS_OK(smb2_create_req_pull(p, &r)));
	assert_int_equal(r.name.len, 0);
	assert_null(r.name.data);
	assert_int_equal(r.create_options, SMB2_FILE_DIRECTORY_FILE);
	check_truncations(cap_create_root, sizeof(cap_create_root),
			  SMB2_HDR_SIZE + 56);
	talloc_free(p);
}

/* MxAc (no data) then DH2Q (32 bytes), as MS-SMB2 2.2.13.2 lays it out. */
static const uint8_t ctx_chain[] = {
	0x18, 0, 0, 0, 0x10, 0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	'M', 'x', 'A', 'c', 0, 0, 0, 0,
	0, 0, 0, 0, 0x10, 0, 0x04, 0, 0, 0, 0x18, 0, 0x20, 0, 0, 0,
	'D', 'H', '2', 'Q', 0, 0, 0, 0,
	[72] = 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8,
};

static const uint8_t dh2q_data[32] = { [24] = 0xC1, 0xC2, 0xC3, 0xC4, 0xC5,
				       0xC6, 0xC7, 0xC8 };

static void test_create_ctx__push_layout(void **state)
{
	struct smb2_create_ctx c[2] = {
		{ (const uint8_t *)"MxAc", 4, NULL, 0 },
		{ (const uint8_t *)"DH2Q", 4, dh2q_data, sizeof(dh2q_data) },
	};
	size_t len = 0;
	uint8_t *out = smb2_create_ctx_push(*state, c, 2, &len);

	assert_bytes(out, len, ctx_chain, sizeof(ctx_chain));
	talloc_free(out);
	out = smb2_create_ctx_push(*state, c, 0, &len);
	assert_non_null(out);
	assert_int_equal(len, 0);
	talloc_free(out);
}

static NTSTATUS ctx_parse_guarded(const uint8_t *buf, size_t len,
				  struct smb2_create_ctx_list *l)
{
	uint8_t *g = guard_dup(buf, len);
	NTSTATUS status = smb2_create_ctx_parse(g, len, l);

	guard_free(g);
	return status;
}

static void test_create_ctx__parse_and_find(void **state)
{
	struct smb2_create_ctx_list *l = talloc(*state,
						struct smb2_create_ctx_list);
	const struct smb2_create_ctx *c = NULL;
	size_t n = 0;

	assert_true(IS_OK(smb2_create_ctx_parse(ctx_chain, sizeof(ctx_chain),
						l)));
	assert_int_equal(l->num, 2);
	c = smb2_create_ctx_find(l, SMB2_CREATE_TAG_DH2Q, &n);
	assert_int_equal(n, 1);
	assert_int_equal(c->data_len, 32);
	assert_memory_equal(c->data, dh2q_data, 32);
	c = smb2_create_ctx_find(l, SMB2_CREATE_TAG_MXAC, &n);
	assert_ptr_equal(c->name, ctx_chain + 16);
	assert_int_equal(c->data_len, 0);
	assert_null(smb2_create_ctx_find(l, "MxA", &n));
	assert_null(smb2_create_ctx_find(l, SMB2_CREATE_TAG_QFID, &n));
	assert_int_equal(n, 0);
	/* every prefix but the empty list and the whole one is bad */
	for (n = 0; n <= sizeof(ctx_chain); n++) {
		NTSTATUS st = ctx_parse_guarded(ctx_chain, n, l);

		assert_true(IS_OK(st) == (n == 0 || n == sizeof(ctx_chain)));
	}
	talloc_free(l);
}

/* One damaged field of ctx_chain at a time (RELIABILITY.md item 31). */
static void test_create_ctx__rejects(void **state)
{
	static const struct {
		size_t ofs;
		int width;
		uint32_t val;
	} bad[] = {
		{ 0, 4, 0x14 },		/* Next misaligned */
		{ 0, 4, 0x08 },		/* Next inside the header */
		{ 0, 4, 0x50 },		/* Next == the end: nothing there */
		{ 0, 4, 0x1000 },	/* Next past the end */
		{ 0, 4, 0xFFFFFFF8 },	/* Next wraps */
		{ 6, 2, 2 },		/* NameLength < 4 */
		{ 6, 2, 9 },		/* name past the context's Next */
		{ 4, 2, 0 },		/* NameOffset inside the header */
		{ 4, 2, 0xFFFF },	/* NameOffset past the end */
		{ 24 + 10, 2, 0 },	/* DataOffset 0, DataLength 32 */
		{ 24 + 10, 2, 0x10 },	/* data over the name */
		{ 24 + 10, 2, 0x1C },	/* data misaligned */
		{ 24 + 10, 2, 0x20 },	/* data past the end */
		{ 24 + 12, 4, 33 },	/* DataLength past the end */
		{ 24 + 12, 4, 0xFFFFFFFF },
		{ 12, 4, 1 },		/* MxAc: data 1 byte at offset 0 */
	};
	struct smb2_create_ctx_list *l = talloc(*state,
						struct smb2_create_ctx_list);
	uint8_t b[sizeof(ctx_chain)];
	size_t i = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(b, ctx_chain, sizeof(b));
		if (bad[i].width == 2) {
			push_le16(b + bad[i].ofs, (uint16_t)bad[i].val);
		} else {
			push_le32(b + bad[i].ofs, bad[i].val);
		}
		assert_true(IS_IP(ctx_parse_guarded(b, sizeof(b), l)));
	}
	talloc_free(l);
}

static void test_create_ctx__max(void **state)
{
	struct smb2_create_ctx c[SMB2_CREATE_CTX_MAX + 1];
	struct smb2_create_ctx_list *l = talloc(*state,
						struct smb2_create_ctx_list);
	size_t len = 0;
	size_t i = 0;
	uint8_t *chain = NULL;

	for (i = 0; i <= SMB2_CREATE_CTX_MAX; i++) {
		c[i] = (struct smb2_create_ctx){ (const uint8_t *)"QFid", 4,
						 NULL, 0 };
	}
	chain = smb2_create_ctx_push(*state, c, SMB2_CREATE_CTX_MAX, &len);
	assert_true(IS_OK(ctx_parse_guarded(chain, len, l)));
	assert_true(IS_OK(smb2_create_ctx_parse(chain, len, l)));
	assert_int_equal(l->num, SMB2_CREATE_CTX_MAX);
	smb2_create_ctx_find(l, SMB2_CREATE_TAG_QFID, &i);
	assert_int_equal(i, SMB2_CREATE_CTX_MAX);
	talloc_free(chain);
	chain = smb2_create_ctx_push(*state, c, SMB2_CREATE_CTX_MAX + 1, &len);
	assert_true(IS_IP(ctx_parse_guarded(chain, len, l)));
	talloc_free(chain);
	talloc_free(l);
}

/* CREATE "a\b" with ctx_chain at 0x80. */
static size_t mk_create_with_ctx(uint8_t *buf)
{
	uint8_t body[56 + 8 + sizeof(ctx_chain)] = { 57 };
	static const uint8_t name[] = { 'a', 0, '\\', 0, 'b', 0 };

	push_le32(body + 36, SMB2_FILE_OPEN_IF);
	push_le16(body + 44, 0x78);
	push_le16(body + 46, sizeof(name));
	push_le32(body + 48, 0x80);
	push_le32(body + 52, sizeof(ctx_chain));
	memcpy(body + 56, name, sizeof(name));
	memcpy(body + 64, ctx_chain, sizeof(ctx_chain));
	return mk_pdu(buf, SMB2_OP_CREATE, 0, 0, body, sizeof(body));
}

static void test_create__with_contexts(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 200];
	size_t len = mk_create_with_ctx(buf);
	struct smb2_pdu *p = carve1(*state, buf, len);
	struct smb2_create_req *r = talloc(*state, struct smb2_create_req);
	char *name = NULL;

	assert_true(IS_OK(smb2_create_req_pull(p, r)));
	assert_int_equal(r->contexts.num, 2);
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, r->name.data,
					     r->name.len, &name)));
	assert_string_equal(name, "a\\b");
	check_truncations(buf, len, len);

	/* name overlapping the contexts; odd name; name before Buffer */
	push_le16(buf + SMB2_HDR_SIZE + 46, 10);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(buf + SMB2_HDR_SIZE + 46, 5);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(buf + SMB2_HDR_SIZE + 46, 6);
	push_le16(buf + SMB2_HDR_SIZE + 44, 0x70);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(buf + SMB2_HDR_SIZE + 44, 0x78);
	/* contexts length past the end */
	push_le32(buf + SMB2_HDR_SIZE + 52, sizeof(ctx_chain) + 1);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le32(buf + SMB2_HDR_SIZE + 52, 0xFFFFFFFF);
	assert_true(IS_IP(carve_pull(buf, len)));
	talloc_free(name);
	talloc_free(r);
	talloc_free(p);
}

/* Byte-exact against Samba's answer to the captured root CREATE. */
static void test_create__rsp_matches_samba(void **state)
{
	const uint64_t t = 0x01dd7ace8b699744ULL;
	struct smb2_create_rsp r = {
		.create_action = SMB2_FILE_OPENED,
		.creation_time = t, .last_access_time = t,
		.last_write_time = t, .change_time = t,
		.file_attributes = SMB2_FILE_ATTRIBUTE_DIRECTORY,
		.file_id = { 0x60fe9278, 0x0a71693c },
	};
	size_t len = 0;
	uint8_t *out = smb2_create_rsp_push(*state, &r, &len);

	/* Samba omits the pad byte; we send it, as Windows does */
	assert_int_equal(len, 89);
	assert_int_equal(out[88], 0);
	assert_bytes(out, 88, cap_create_rsp + SMB2_HDR_SIZE,
		     sizeof(cap_create_rsp) - SMB2_HDR_SIZE);
	talloc_free(out);
}

static void test_create__rsp_contexts(void **state)
{
	static const uint8_t mxac[8] = { 0, 0, 0, 0, 0xff, 0x01, 0x1f, 0 };
	struct smb2_create_ctx c = { (const uint8_t *)"MxAc", 4, mxac, 8 };
	struct smb2_create_rsp r = { .contexts = &c, .num_contexts = 1 };
	size_t len = 0;
	uint8_t *out = smb2_create_rsp_push(*state, &r, &len);

	assert_int_equal(len, 88 + 32);
	assert_int_equal(pull_le32(out + 80), 0x98);
	assert_int_equal(pull_le32(out + 84), 32);
	assert_int_equal(pull_le32(out + 88), 0);	/* Next */
	assert_int_equal(pull_le16(out + 88 + 10), 24);	/* DataOffset */
	assert_memory_equal(out + 88 + 16, "MxAc", 4);
	assert_memory_equal(out + 88 + 24, mxac, 8);
	talloc_free(out);
}

static void test_lease__pull_push(void **state)
{
	uint8_t data[SMB2_LEASE_V2_SIZE + 1] = { 0x11, [15] = 0x1F };
	struct smb2_create_ctx c = { (const uint8_t *)"RqLs", 4, data, 0 };
	struct smb2_lease l;
	size_t len = 0;
	uint8_t *out = NULL;
	uint32_t n = 0;

	push_le32(data + 16, SMB2_LEASE_READ_CACHING |
		  SMB2_LEASE_HANDLE_CACHING);
	data[32] = 0x22;			/* ParentLeaseKey[0] */
	push_le16(data + 48, 9);		/* Epoch */
	for (n = 0; n <= sizeof(data); n++) {
		uint8_t *g = guard_dup(data, n);
		NTSTATUS st;

		c.data = g;
		c.data_len = n;
		st = smb2_lease_pull(&c, &l);
		assert_true(IS_OK(st) == (n == 32 || n == 52));
		guard_free(g);
	}
	c.data = data;
	c.data_len = SMB2_LEASE_V2_SIZE;
	assert_true(IS_OK(smb2_lease_pull(&c, &l)));
	assert_int_equal(l.version, 2);
	assert_int_equal(l.key[0], 0x11);
	assert_int_equal(l.key[15], 0x1F);
	assert_int_equal(l.state, 3);
	assert_int_equal(l.parent_key[0], 0x22);
	assert_int_equal(l.epoch, 9);
	out = smb2_lease_push(*state, &l, &len);
	assert_bytes(out, len, data, SMB2_LEASE_V2_SIZE);
	talloc_free(out);
	l.version = 1;
	out = smb2_lease_push(*state, &l, &len);
	assert_bytes(out, len, data, SMB2_LEASE_V1_SIZE);
	talloc_free(out);
}

/* A context list of the given (tag, data length) pairs over data. */
static void durable_list(struct smb2_create_ctx_list *l, const uint8_t *data,
			 const char *const *tags, const uint32_t *lens,
			 size_t n)
{
	size_t i = 0;

	*l = (struct smb2_create_ctx_list){};
	for (i = 0; i < n; i++) {
		l->ctx[i] = (struct smb2_create_ctx){
			(const uint8_t *)tags[i], 4, data, lens[i] };
	}
	l->num = n;
}

static NTSTATUS durable_pull2(const uint8_t *data, const char *t1,
			      uint32_t l1, const char *t2, uint32_t l2,
			      struct smb2_durable_req *r)
{
	const char *tags[2] = { t1, t2 };
	const uint32_t lens[2] = { l1, l2 };
	struct smb2_create_ctx_list l;

	durable_list(&l, data, tags, lens, t2 != NULL ? 2 : 1);
	return smb2_durable_req_pull(&l, r);
}

static void test_durable__pull_each(void **state)
{
	uint8_t data[40] = {};
	struct smb2_durable_req r;
	uint32_t n = 0;

	push_le64(data, 0x1122334455667788ULL);	/* DH2C: Persistent */
	push_le64(data + 8, 0x99);		/* DH2C: Volatile */
	data[16] = 0xAB;			/* DH2C: CreateGuid[0] */
	push_le32(data + 32, 0);		/* DH2C: Flags */
	assert_true(IS_OK(durable_pull2(data, "DH2C", 36, NULL, 0, &r)));
	assert_true(r.v2_reconnect && !r.v1_reconnect);
	assert_true(r.file_id.persistent == 0x1122334455667788ULL);
	assert_true(r.file_id.volatile_id == 0x99);
	assert_int_equal(r.create_guid[0], 0xAB);
	assert_true(IS_OK(durable_pull2(data, "DHnC", 16, NULL, 0, &r)));
	assert_true(r.v1_reconnect);
	assert_true(r.file_id.persistent == 0x1122334455667788ULL);
	/* DH2Q: Timeout, Flags, Reserved, CreateGuid */
	push_le32(data, 30000);
	push_le32(data + 4, SMB2_DHANDLE_FLAG_PERSISTENT);
	data[16] = 0xCD;
	assert_true(IS_OK(durable_pull2(data, "DH2Q", 32, NULL, 0, &r)));
	assert_true(r.v2_request);
	assert_int_equal(r.timeout, 30000);
	assert_int_equal(r.flags, SMB2_DHANDLE_FLAG_PERSISTENT);
	assert_int_equal(r.create_guid[0], 0xCD);
	assert_true(IS_OK(durable_pull2(data, "DHnQ", 16, NULL, 0, &r)));
	assert_true(r.v1_request && !r.v2_request);
	/* exact lengths only */
	for (n = 0; n <= sizeof(data); n++) {
		uint8_t *g = guard_dup(data, n);

		assert_true(IS_OK(durable_pull2(g, "DHnQ", n, NULL, 0, &r)) ==
			    (n == 16));
		assert_true(IS_OK(durable_pull2(g, "DHnC", n, NULL, 0, &r)) ==
			    (n == 16));
		assert_true(IS_OK(durable_pull2(g, "DH2Q", n, NULL, 0, &r)) ==
			    (n == 32));
		assert_true(IS_OK(durable_pull2(g, "DH2C", n, NULL, 0, &r)) ==
			    (n == 36));
		guard_free(g);
	}
}

/* MS-SMB2 3.3.5.9.7, 3.3.5.9.12 (smbtorture durable-v2-open.create-blob) */
static void test_durable__combinations(void **state)
{
	uint8_t data[40] = {};
	struct smb2_durable_req r;

	assert_true(IS_OK(durable_pull2(data, "MxAc", 0, NULL, 0, &r)));
	assert_false(r.v1_request || r.v2_request || r.v1_reconnect ||
		     r.v2_reconnect);
	/* DHnQ next to DHnC is ignored */
	assert_true(IS_OK(durable_pull2(data, "DHnC", 16, "DHnQ", 16, &r)));
	assert_true(r.v1_reconnect && !r.v1_request);
	assert_int_equal(durable_pull2(data, "DHnQ", 16, "DH2Q", 32, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DH2C", 36, "DHnQ", 16, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DHnC", 16, "DH2Q", 32, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DHnC", 16, "DH2C", 36, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DH2C", 36, "DH2Q", 32, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
	assert_int_equal(durable_pull2(data, "DHnQ", 16, "DHnQ", 16, &r).v,
			 NT_STATUS_INVALID_PARAMETER.v);
}

static void test_durable__app_instance(void **state)
{
	uint8_t data[24] = { 20, 0, 0, 0, 0xA1, [19] = 0xA2 };
	const char *tags[1] = { SMB2_CREATE_TAG_APP_INSTANCE_ID };
	uint32_t lens[1] = { SMB2_APP_INSTANCE_ID_SIZE };
	struct smb2_create_ctx_list l;
	uint8_t id[16];
	bool present = true;
	uint32_t n = 0;

	durable_list(&l, data, tags, lens, 0);
	assert_true(IS_OK(smb2_app_instance_pull(&l, &present, id)));
	assert_false(present);
	durable_list(&l, data, tags, lens, 1);
	assert_int_equal(l.ctx[0].name_len, 4);
	l.ctx[0].name_len = 16;
	assert_true(IS_OK(smb2_app_instance_pull(&l, &present, id)));
	assert_true(present);
	assert_int_equal(id[0], 0xA1);
	assert_int_equal(id[15], 0xA2);
	for (n = 0; n <= sizeof(data); n++) {
		uint8_t *g = guard_dup(data, n);

		l.ctx[0].data = g;
		l.ctx[0].data_len = n;
		assert_true(IS_OK(smb2_app_instance_pull(&l, &present, id)) ==
			    (n == SMB2_APP_INSTANCE_ID_SIZE));
		guard_free(g);
	}
	data[0] = 19;				/* StructureSize */
	l.ctx[0].data = data;
	l.ctx[0].data_len = SMB2_APP_INSTANCE_ID_SIZE;
	assert_false(IS_OK(smb2_app_instance_pull(&l, &present, id)));
}

static void test_durable__rsp_push(void **state)
{
	static const uint8_t v1[8] = {};
	static const uint8_t v2[8] = { 0xE0, 0x93, 0x04, 0, 2, 0, 0, 0 };
	size_t len = 0;
	uint8_t *out = smb2_durable_rsp_push(*state, false, 5, 6, &len);

	assert_bytes(out, len, v1, sizeof(v1));
	talloc_free(out);
	out = smb2_durable_rsp_push(*state, true, 300000, 2, &len);
	assert_bytes(out, len, v2, sizeof(v2));
	talloc_free(out);
}

/* ------------------------------------------------------------------ */
/* CLOSE, FLUSH                                                        */

static void test_close__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_close, sizeof(cap_close));
	struct smb2_close_req r;

	assert_true(IS_OK(smb2_close_req_pull(p, &r)));
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.file_id.persistent, 0x60fe9278);
	assert_int_equal(r.file_id.volatile_id, 0x0a71693c);
	check_truncations(cap_close, sizeof(cap_close), sizeof(cap_close));
	talloc_free(p);
}

static void test_close__rsp(void **state)
{
	struct smb2_close_rsp r = {};
	size_t len = 0;
	uint8_t *out = smb2_close_rsp_push(*state, &r, &len);

	assert_bytes(out, len, cap_close_rsp + SMB2_HDR_SIZE,
		     sizeof(cap_close_rsp) - SMB2_HDR_SIZE);
	talloc_free(out);
	r = (struct smb2_close_rsp){ .flags = SMB2_CLOSE_FLAGS_POSTQUERY_ATTRIB,
				     .end_of_file = 12,
				     .file_attributes = 0x20 };
	out = smb2_close_rsp_push(*state, &r, &len);
	assert_int_equal(len, 60);
	assert_int_equal(pull_le16(out + 2), 1);
	assert_int_equal(pull_le64(out + 48), 12);
	assert_int_equal(pull_le32(out + 56), 0x20);
	talloc_free(out);
}

static void test_flush__pull(void **state)
{
	uint8_t body[24] = { 24 };
	uint8_t buf[SMB2_HDR_SIZE + 24];
	struct smb2_flush_req r;
	struct smb2_pdu *p = NULL;

	push_le64(body + 8, 5);
	push_le64(body + 16, 6);
	mk_pdu(buf, SMB2_OP_FLUSH, 0, 0, body, sizeof(body));
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_flush_req_pull(p, &r)));
	assert_int_equal(r.file_id.persistent, 5);
	assert_int_equal(r.file_id.volatile_id, 6);
	check_truncations(buf, sizeof(buf), sizeof(buf));
	talloc_free(p);
}

/* ------------------------------------------------------------------ */
/* READ, WRITE                                                         */

static void test_read__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_read, sizeof(cap_read));
	struct smb2_read_req r;

	assert_true(IS_OK(smb2_read_req_pull(p, &r)));
	assert_int_equal(r.length, 12);
	assert_int_equal(r.offset, 0);
	assert_int_equal(r.file_id.persistent, 0x6f819262);
	assert_int_equal(r.file_id.volatile_id, 0x391ae0be);
	assert_int_equal(r.channel, SMB2_CHANNEL_NONE);
	assert_int_equal(r.channel_info.len, 0);
	check_truncations(cap_read, sizeof(cap_read), SMB2_HDR_SIZE + 48);
	talloc_free(p);
}

static void test_read__rsp(void **state)
{
	static const uint8_t want[] = { 0x11, 0x00, 0x50, 0x00, 0x0c, 0, 0, 0,
					0, 0, 0, 0, 0, 0, 0, 0 };
	struct smb2_read_rsp r = { .data_len = 12 };
	size_t len = 0;
	uint8_t *out = smb2_read_rsp_push(*state, &r, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
	r.data_len = 0;
	out = smb2_read_rsp_push(*state, &r, &len);
	assert_int_equal(len, 17);
	assert_int_equal(pull_le32(out + 4), 0);
	talloc_free(out);
}

/* WRITE of "hello" at offset 3, data at 0x70. */
static size_t mk_write(uint8_t *buf)
{
	uint8_t body[48 + 5] = { 49 };

	push_le16(body + 2, 0x70);
	push_le32(body + 4, 5);
	push_le64(body + 8, 3);
	push_le64(body + 16, 0x11);
	push_le64(body + 24, 0x22);
	push_le32(body + 44, SMB2_WRITEFLAG_WRITE_THROUGH);
	memcpy(body + 48, "hello", 5);
	return mk_pdu(buf, SMB2_OP_WRITE, 0, 0, body, sizeof(body));
}

static void test_write__pull(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 64];
	size_t len = mk_write(buf);
	struct smb2_pdu *p = carve1(*state, buf, len);
	struct smb2_write_req r;

	assert_true(IS_OK(smb2_write_req_pull(p, &r)));
	assert_int_equal(r.length, 5);
	assert_int_equal(r.offset, 3);
	assert_int_equal(r.file_id.volatile_id, 0x22);
	assert_int_equal(r.flags, SMB2_WRITEFLAG_WRITE_THROUGH);
	assert_memory_equal(r.data.data, "hello", 5);
	check_truncations(buf, len, len);
	push_le32(buf + SMB2_HDR_SIZE + 4, 6);		/* Length too long */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le32(buf + SMB2_HDR_SIZE + 4, 5);
	push_le16(buf + SMB2_HDR_SIZE + 2, 0x6F);	/* DataOffset low */
	assert_true(IS_IP(carve_pull(buf, len)));
	talloc_free(p);
}

/* Lengths and offsets that point outside the PDU (RELIABILITY 33). */
static void test_write__lying_lengths(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 64];
	size_t len = mk_write(buf);
	uint8_t *body = buf + SMB2_HDR_SIZE;
	struct smb2_pdu *p = NULL;
	struct smb2_write_req r;

	push_le32(body + 4, UINT32_MAX);	/* Length wraps */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le32(body + 4, 5);
	push_le16(body + 2, UINT16_MAX);	/* DataOffset past end */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(body + 2, 0);		/* into the header */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(body + 2, 0x71);		/* one byte too far */
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(body + 2, 0x70);
	push_le16(body + 40, 0x70);	/* channel info 6 B */
	push_le16(body + 42, 6);
	assert_true(IS_IP(carve_pull(buf, len)));
	push_le16(body + 42, 0);
	push_le32(body + 4, 0);		/* Length 0: no data */
	push_le16(body + 2, 0);
	p = carve1(*state, buf, len);
	assert_true(IS_OK(smb2_write_req_pull(p, &r)));
	assert_null(r.data.data);
	assert_int_equal(r.data.len, 0);
	talloc_free(p);
}

static void test_write__rsp(void **state)
{
	static const uint8_t want[] = { 0x11, 0, 0, 0, 5, 0, 0, 0,
					0, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct smb2_write_rsp r = { .count = 5 };
	size_t len = 0;
	uint8_t *out = smb2_write_rsp_push(*state, &r, &len);

	assert_bytes(out, len, want, sizeof(want));
	talloc_free(out);
}

/* ------------------------------------------------------------------ */
/* LOCK                                                                */

static size_t mk_lock(uint8_t *buf, uint16_t count, size_t elems)
{
	uint8_t body[24 + 3 * SMB2_LOCK_ELEMENT_SIZE] = { 48 };
	size_t i = 0;

	push_le16(body + 2, count);
	push_le32(body + 4, 0x35);	/* index 3, sequence 5 */
	for (i = 0; i < 3; i++) {
		uint8_t *e = body + 24 + i * SMB2_LOCK_ELEMENT_SIZE;

		push_le64(e, 100 * i);
		push_le64(e + 8, 10);
		push_le32(e + 16, SMB2_LOCKFLAG_EXCLUSIVE_LOCK);
	}
	return mk_pdu(buf, SMB2_OP_LOCK, 0, 0, body,
		      24 + elems * SMB2_LOCK_ELEMENT_SIZE);
}

static void test_lock__pull(void **state)
{
	uint8_t buf[SMB2_HDR_SIZE + 24 + 3 * SMB2_LOCK_ELEMENT_SIZE];
	size_t len = mk_lock(buf, 2, 2);
	struct smb2_pdu *p = carve1(*state, buf, len);
	struct smb2_lock_req r;
	struct smb2_lock_element e;

	assert_true(IS_OK(smb2_lock_req_pull(p, &r)));
	assert_int_equal(r.lock_count, 2);
	assert_int_equal(r.lock_sequence_number, 5);
	assert_int_equal(r.lock_sequence_index, 3);
	smb2_lock_element_at(&r, 1, &e);
	assert_int_equal(e.offset, 100);
	assert_int_equal(e.length, 10);
	assert_int_equal(e.flags, SMB2_LOCKFLAG_EXCLUSIVE_LOCK);
	check_truncations(buf, len, len);
	talloc_free(p);

	len = mk_lock(buf, 0, 1);
	assert_true(IS_IP(carve_pull(buf, len)));
	len = mk_lock(buf, 3, 2);
	assert_true(IS_IP(carve_pull(buf, len)));
	len = mk_lock(buf, 0xFFFF, 3);
	assert_true(IS_IP(carve_pull(buf, len)));
}

/* ------------------------------------------------------------------ */
/* IOCTL                                                               */

static void test_ioctl__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_ioctl, sizeof(cap_ioctl));
	struct smb2_ioctl_req r;

	assert_true(IS_OK(smb2_ioctl_req_pull(p, &r)));
	assert_int_equal(r.ctl_code, FSCTL_DFS_GET_REFERRALS);
	assert_true(r.file_id.persistent == SMB2_FILE_ID_RELATED);
	assert_int_equal(r.input.len, 0x1c);
	assert_ptr_equal(r.input.data, p->buf + 0x78);
	assert_int_equal(r.output.len, 0);
	assert_int_equal(r.max_output_response, 0xffff);
	assert_int_equal(r.flags, SMB2_0_IOCTL_IS_FSCTL);
	check_truncations(cap_ioctl, sizeof(cap_ioctl), sizeof(cap_ioctl));
	talloc_free(p);
}

static void test_ioctl__rsp(void **state)
{
	static const uint8_t outb[3] = { 0xA, 0xB, 0xC };
	static const uint8_t inb[2] = { 0x1, 0x2 };
	struct smb2_ioctl_rsp r = { .ctl_code = FSCTL_VALIDATE_NEGOTIATE_INFO,
				    .file_id = { 1, 2 },
				    .output = { outb, 3 },
				    .flags = 0 };
	size_t len = 0;
	uint8_t *out = smb2_ioctl_rsp_push(*state, &r, &len);

	assert_int_equal(len, 48 + 3);
	assert_int_equal(pull_le16(out), 49);
	assert_int_equal(pull_le32(out + 4), FSCTL_VALIDATE_NEGOTIATE_INFO);
	assert_int_equal(pull_le64(out + 8), 1);
	assert_int_equal(pull_le32(out + 24), 0x70);
	assert_int_equal(pull_le32(out + 28), 0);
	assert_int_equal(pull_le32(out + 32), 0x70);
	assert_int_equal(pull_le32(out + 36), 3);
	assert_memory_equal(out + 48, outb, 3);
	talloc_free(out);
	/* input echoed: output 8-aligned after it */
	r.input = (struct smb2_blob){ inb, 2 };
	out = smb2_ioctl_rsp_push(*state, &r, &len);
	assert_int_equal(len, 56 + 3);
	assert_int_equal(pull_le32(out + 32), 0x78);
	assert_memory_equal(out + 48, inb, 2);
	assert_memory_equal(out + 56, outb, 3);
	talloc_free(out);
	r = (struct smb2_ioctl_rsp){};
	out = smb2_ioctl_rsp_push(*state, &r, &len);
	assert_int_equal(len, 49);
	talloc_free(out);
}

/* ------------------------------------------------------------------ */
/* QUERY_DIRECTORY, QUERY_INFO, SET_INFO, CHANGE_NOTIFY                */

static void test_query_directory__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_querydir,
				    sizeof(cap_querydir));
	struct smb2_query_directory_req r;
	char *pat = NULL;

	assert_true(IS_OK(smb2_query_directory_req_pull(p, &r)));
	assert_int_equal(r.file_information_class,
			 SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION);
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.output_buffer_length, 0x800000);
	assert_int_equal(r.file_id.persistent, 0x60fe9278);
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, r.name.data, r.name.len,
					     &pat)));
	assert_string_equal(pat, "*");
	check_truncations(cap_querydir, sizeof(cap_querydir),
			  sizeof(cap_querydir));
	talloc_free(pat);
	talloc_free(p);
}

static void test_query_info__capture(void **state)
{
	struct smb2_pdu *p = carve1(*state, cap_queryinfo,
				    sizeof(cap_queryinfo));
	struct smb2_query_info_req r;

	assert_true(IS_OK(smb2_query_info_req_pull(p, &r)));
	assert_int_equal(r.info_type, SMB2_INFO_FILESYSTEM);
	assert_int_equal(r.file_info_class, SMB2_FS_SIZE_INFORMATION);
	assert_int_equal(r.output_buffer_length, 0xffff);
	assert_int_equal(r.input.len, 0);
	assert_int_equal(r.file_id.persistent, 0x4cd0c970);
	check_truncations(cap_queryinfo, sizeof(cap_queryinfo),
			  SMB2_HDR_SIZE + 40);
	talloc_free(p);
}

static void test_outbuf__rsps(void **state)
{
	static const uint8_t want[] = { 9, 0, 0x48, 0, 3, 0, 0, 0, 1, 2, 3 };
	static const uint8_t want_empty[] = { 9, 0, 0x48, 0, 0, 0, 0, 0, 0 };
	static const uint8_t data[] = { 1, 2, 3 };
	struct smb2_blob b = { data, 3 };
	size_t len = 0;
	uint8_t *out = smb2_query_directory_rsp_push(*state, &b, &len);

	assert_bytes(out, len, want, sizeof(want));
	out = smb2_query_info_rsp_push(*state, &b, &len);
	assert_bytes(out, len, want, sizeof(want));
	b = (struct smb2_blob){};
	out = smb2_change_notify_rsp_push(*state, &b, &len);
	assert_bytes(out, len, want_empty, sizeof(want_empty));
	talloc_free_children(*state);
}

static void test_set_info__pull(void **state)
{
	uint8_t body[32 + 8] = { 33, 0, SMB2_INFO_FILE,
				 SMB2_FILE_END_OF_FILE_INFORMATION };
	uint8_t buf[SMB2_HDR_SIZE + sizeof(body)];
	struct smb2_set_info_req r;
	struct smb2_pdu *p = NULL;

	push_le32(body + 4, 8);
	push_le16(body + 8, 0x60);
	push_le64(body + 16, 9);
	push_le64(body + 32, 4096);
	mk_pdu(buf, SMB2_OP_SET_INFO, 0, 0, body, sizeof(body));
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_set_info_req_pull(p, &r)));
	assert_int_equal(r.file_info_class, SMB2_FILE_END_OF_FILE_INFORMATION);
	assert_int_equal(r.buffer.len, 8);
	assert_int_equal(pull_le64(r.buffer.data), 4096);
	assert_int_equal(r.file_id.persistent, 9);
	check_truncations(buf, sizeof(buf), sizeof(buf));
	talloc_free(p);
}

static void test_change_notify__pull(void **state)
{
	uint8_t body[32] = { 32, 0, SMB2_WATCH_TREE };
	uint8_t buf[SMB2_HDR_SIZE + sizeof(body)];
	struct smb2_change_notify_req r;
	struct smb2_pdu *p = NULL;

	push_le32(body + 4, 4096);
	push_le32(body + 24, SMB2_FILE_NOTIFY_CHANGE_FILE_NAME);
	mk_pdu(buf, SMB2_OP_CHANGE_NOTIFY, 0, 0, body, sizeof(body));
	p = carve1(*state, buf, sizeof(buf));
	assert_true(IS_OK(smb2_change_notify_req_pull(p, &r)));
	assert_int_equal(r.flags, SMB2_WATCH_TREE);
	assert_int_equal(r.output_buffer_length, 4096);
	assert_int_equal(r.completion_filter,
			 SMB2_FILE_NOTIFY_CHANGE_FILE_NAME);
	check_truncations(buf, sizeof(buf), sizeof(buf));
	talloc_free(p);
}

static void test_break__pushes(void **state)
{
	struct smb2_file_id fid = { 1, 2 };
	struct smb2_lease_break lb = { .new_epoch = 3, .flags = 1,
				       .lease_key = { 0xAA },
				       .current_state = 7, .new_state = 1 };
	uint8_t key[16] = { 0xBB };
	size_t len = 0;
	uint8_t *out = smb2_oplock_break_push(*state, SMB2_OPLOCK_LEVEL_II,
					      &fid, &len);

	assert_int_equal(len, 24);
	assert_int_equal(out[2], SMB2_OPLOCK_LEVEL_II);
	assert_int_equal(pull_le64(out + 16), 2);
	out = smb2_lease_break_push(*state, &lb, &len);
	assert_int_equal(len, 44);
	assert_int_equal(pull_le16(out + 2), 3);
	assert_int_equal(out[8], 0xAA);
	assert_int_equal(pull_le32(out + 24), 7);
	assert_int_equal(pull_le32(out + 28), 1);
	out = smb2_lease_break_rsp_push(*state, key, 3, &len);
	assert_int_equal(len, 36);
	assert_int_equal(out[8], 0xBB);
	assert_int_equal(pull_le32(out + 24), 3);
	talloc_free_children(*state);
}

/* ------------------------------------------------------------------ */
/* UTF-16                                                              */

static NTSTATUS u16(TALLOC_CTX *ctx, const uint8_t *p, size_t len,
		    char **out)
{
	uint8_t *g = guard_dup(p, len);
	NTSTATUS status = smb2_utf16_to_utf8(ctx, g, len, out);

	guard_free(g);
	return status;
}

static void test_utf16__to_utf8(void **state)
{
	/* "aé€😀" */
	static const uint8_t s[] = { 'a', 0, 0xe9, 0, 0xac, 0x20,
				     0x3d, 0xd8, 0x00, 0xde };
	static const uint8_t hi_end[] = { 'a', 0, 0x3d, 0xd8 };
	static const uint8_t hi_bmp[] = { 0x3d, 0xd8, 'a', 0 };
	static const uint8_t lo[] = { 0x00, 0xde, 'a', 0 };
	static const uint8_t nul[] = { 'a', 0, 0, 0, 'b', 0 };
	static const uint8_t hi_hi[] = { 0x3d, 0xd8, 0x3d, 0xd8 };
	char *out = NULL;

	assert_true(IS_OK(u16(*state, s, sizeof(s), &out)));
	assert_string_equal(out, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	talloc_free(out);
	assert_true(IS_OK(u16(*state, s, 0, &out)));
	assert_string_equal(out, "");
	talloc_free(out);
	assert_true(IS_IP(u16(*state, s, 3, &out)));
	assert_true(IS_IP(u16(*state, hi_end, sizeof(hi_end), &out)));
	assert_true(IS_IP(u16(*state, hi_bmp, sizeof(hi_bmp), &out)));
	assert_true(IS_IP(u16(*state, lo, sizeof(lo), &out)));
	assert_true(IS_IP(u16(*state, nul, sizeof(nul), &out)));
	assert_true(IS_IP(u16(*state, hi_hi, sizeof(hi_hi), &out)));
	/* a pair cut in half by truncation */
	assert_true(IS_IP(u16(*state, s, 8, &out)));
}

static NTSTATUS u8(TALLOC_CTX *ctx, const char *s, uint8_t **out,
		   size_t *len)
{
	return smb2_utf8_to_utf16(ctx, s, strlen(s), out, len);
}

static void test_utf16__from_utf8(void **state)
{
	static const char *const bad[] = {
		"\xc0\xaf",		/* overlong '/' */
		"\xe0\x80\xaf",		/* overlong, 3 bytes */
		"\xf0\x80\x80\xaf",	/* overlong, 4 bytes */
		"\xed\xa0\x80",		/* encoded surrogate */
		"\xf4\x90\x80\x80",	/* past U+10FFFF */
		"\xe2\x82",		/* truncated */
		"\x80",			/* bare continuation */
		"a\xff",
	};
	static const uint8_t want[] = { 'a', 0, 0xe9, 0, 0xac, 0x20,
					0x3d, 0xd8, 0x00, 0xde };
	uint8_t *out = NULL;
	char *back = NULL;
	size_t len = 0;
	size_t i = 0;

	assert_true(IS_OK(u8(*state, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
			     &out, &len)));
	assert_bytes(out, len, want, sizeof(want));
	assert_true(IS_OK(smb2_utf16_to_utf8(*state, out, len, &back)));
	assert_string_equal(back, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	talloc_free(back);
	talloc_free(out);
	assert_true(IS_OK(u8(*state, "", &out, &len)));
	assert_int_equal(len, 0);
	talloc_free(out);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(IS_IP(u8(*state, bad[i], &out, &len)));
	}
	assert_true(IS_IP(smb2_utf8_to_utf16(*state, "a\0b", 3, &out, &len)));
}

/* ------------------------------------------------------------------ */
/* Fuzz seeds                                                          */

static void write_seed(const char *dir, const char *sub, const char *name,
		       const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* SMB2_CORPUS_DIR=tests/fuzz/corpus build-smb2/tests/unit/test_smb2 */
static void test_corpus__write(void **state)
{
	static const char *const win7[] = { "NT LM 0.12", "SMB 2.002",
					    "SMB 2.???" };
	const char *dir = getenv("SMB2_CORPUS_DIR");
	uint8_t buf[SMB2_HDR_SIZE + 1100];
	static const struct {
		const char *name;
		const uint8_t *buf;
		size_t len;
	} caps[] = {
#define CAP(x) { #x, x, sizeof(x) }
		CAP(cap_negprot), CAP(cap_sesssetup), CAP(cap_tcon),
		CAP(cap_ioctl), CAP(cap_create_root), CAP(cap_create_f),
		CAP(cap_querydir), CAP(cap_close), CAP(cap_queryinfo),
		CAP(cap_read), CAP(cap_tdis), CAP(cap_negprot_smb2),
#undef CAP
	};
	size_t i = 0;

	if (dir == NULL) {
		skip();
	}
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		write_seed(dir, "smb2_request", caps[i].name, caps[i].buf,
			   caps[i].len);
	}
	write_seed(dir, "smb2_request", "three_echoes", buf,
		   mk_three_echoes(buf));
	write_seed(dir, "smb2_request", "create_ctx", buf,
		   mk_create_with_ctx(buf));
	write_seed(dir, "smb2_request", "write", buf, mk_write(buf));
	write_seed(dir, "smb2_request", "lock", buf, mk_lock(buf, 3, 3));
	write_seed(dir, "negotiate", "smbclient_311", cap_negprot,
		   sizeof(cap_negprot));
	write_seed(dir, "negotiate", "smbclient_202", cap_negprot_smb2,
		   sizeof(cap_negprot_smb2));
	write_seed(dir, "negotiate", "smb1_win7", buf,
		   mk_smb1_negprot(buf, win7, 3));
	write_seed(dir, "create_ctx", "mxac_dh2q", ctx_chain,
		   sizeof(ctx_chain));
}

/* ------------------------------------------------------------------ */

#define T(fn) cmocka_unit_test_setup_teardown(fn, unit_setup, unit_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_cursor__reads),
		T(test_cursor__sticky),
		T(test_writer__basic),
		T(test_writer__overflow_writes_nothing),
		T(test_hdr__sync_roundtrip),
		T(test_hdr__async_roundtrip),
		T(test_hdr__rejects),
		T(test_hdr__channel_sequence),
		T(test_ops__table),
		T(test_compound__three),
		T(test_compound__bad_next_command),
		T(test_compound__bad_framing),
		T(test_compound__element_status),
		T(test_compound__body_short),
		T(test_compound__wrong_struct_size_all_ops),
		T(test_compound__oplock_break_sizes),
		T(test_compound__max_elements),
		T(test_compound__dyn_accessor),
		T(test_negprot__capture_311),
		T(test_negprot__capture_202),
		T(test_negprot__truncations),
		T(test_negprot__bad_dialects),
		T(test_negprot__bad_context_list),
		T(test_negprot__2x_ignores_contexts),
		T(test_negprot__context_alignment),
		T(test_negprot__max_contexts),
		T(test_negctx__typed_pulls_reject),
		T(test_negprot__rsp_311),
		T(test_negprot__rsp_2x_and_empty),
		T(test_negctx__pushes),
		T(test_smb1__wants_smb2),
		T(test_smb1__lying_counts),
		T(test_sesssetup__capture),
		T(test_sesssetup__bad_buffer),
		T(test_sesssetup__rsp),
		T(test_tcon__capture),
		T(test_tcon__bad_path),
		T(test_tcon__rsp_matches_samba),
		T(test_simple__pulls_and_rsps),
		T(test_error__rsp),
		T(test_create__capture),
		T(test_create_ctx__push_layout),
		T(test_create_ctx__parse_and_find),
		T(test_create_ctx__rejects),
		T(test_create_ctx__max),
		T(test_create__with_contexts),
		T(test_create__rsp_matches_samba),
		T(test_create__rsp_contexts),
		T(test_lease__pull_push),
		T(test_durable__pull_each),
		T(test_durable__combinations),
		T(test_durable__rsp_push),
		T(test_durable__app_instance),
		T(test_close__capture),
		T(test_close__rsp),
		T(test_flush__pull),
		T(test_read__capture),
		T(test_read__rsp),
		T(test_write__pull),
		T(test_write__lying_lengths),
		T(test_write__rsp),
		T(test_lock__pull),
		T(test_ioctl__capture),
		T(test_ioctl__rsp),
		T(test_query_directory__capture),
		T(test_query_info__capture),
		T(test_outbuf__rsps),
		T(test_set_info__pull),
		T(test_change_notify__pull),
		T(test_break__pushes),
		T(test_utf16__to_utf8),
		T(test_utf16__from_utf8),
		T(test_corpus__write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
