/*
 * Helpers shared by the test_smb2_* programs, one per codec family of
 * lib/smb2 (SHARED in tests/unit/wscript links this into each).
 *
 * Every decoder gets each truncation of a valid PDU under a guard page
 * (check_truncations); the captured requests and the hand-built ones
 * below are also written out as fuzz seeds by test_corpus__write
 * (test_smb2_frame).
 */
#ifndef RINGSMB_TESTS_UNIT_SMB2_TEST_UTIL_H
#define RINGSMB_TESTS_UNIT_SMB2_TEST_UTIL_H

#include "tests/unit/unit.h"
#include "lib/smb2/smb2.h"

#define IS_OK(s) NT_STATUS_IS_OK(s)
#define IS_IP(s) NT_STATUS_EQUAL(s, NT_STATUS_INVALID_PARAMETER)

/* Requests captured from Debian's smbclient talking to Samba's smbd. */
extern const uint8_t cap_negprot[226];		/* SMB 3.1.1 */
extern const uint8_t cap_sesssetup[162];
extern const uint8_t cap_tcon[104];
extern const uint8_t cap_ioctl[148];
extern const uint8_t cap_create_root[121];
extern const uint8_t cap_create_f[124];
extern const uint8_t cap_querydir[98];
extern const uint8_t cap_close[88];
extern const uint8_t cap_queryinfo[105];
extern const uint8_t cap_read[113];
extern const uint8_t cap_tdis[68];
extern const uint8_t cap_negprot_smb2[102];	/* SMB 2.0.2 */

/* MxAc (no data) then DH2Q (32 bytes), as MS-SMB2 2.2.13.2 lays it out. */
extern const uint8_t ctx_chain[80];
/* AlSi (8 bytes: 1 MiB) then QFid (no data). */
extern const uint8_t ctx_alsi_qfid[56];
/*
 * Three FILE_NOTIFY_INFORMATION entries: "a" added, "bc" removed, "d"
 * modified (the last one unpadded).
 */
extern const uint8_t notify_three[46];
/* An ECHO body (StructureSize 4). */
extern const uint8_t echo_body[4];

/* A request: header for cmd (NextCommand next, flags) and a body. */
size_t mk_pdu(uint8_t *out, uint16_t cmd, uint32_t next,
	      uint32_t flags, const uint8_t *body, size_t body_len);
/* An SMB1 NEGOTIATE offering the given dialect strings ("\2..." each). */
size_t mk_smb1_negprot(uint8_t *buf, const char *const *d, size_t n);
/* CREATE "a\b" with ctx_chain at 0x80. */
size_t mk_create_with_ctx(uint8_t *buf);
/* WRITE of "hello" at offset 3, data at 0x70. */
size_t mk_write(uint8_t *buf);
/* A LOCK whose LockCount says count, carrying elems (up to 3) elements. */
size_t mk_lock(uint8_t *buf, uint16_t count, size_t elems);

/* Carve a one-element PDU and pull it as the daemon would. */
NTSTATUS carve_pull(const uint8_t *buf, size_t len);
/*
 * Every prefix of a valid PDU, each against a guard page: shorter than
 * min_ok must fail, min_ok and longer must pull.
 */
void check_truncations(const uint8_t *buf, size_t len, size_t min_ok);
/* The single element of buf, carved (buf must outlive the result). */
struct smb2_pdu *carve1(TALLOC_CTX *ctx, const uint8_t *buf, size_t len);
void assert_bytes(const uint8_t *got, size_t got_len,
		  const uint8_t *want, size_t want_len);

#endif
