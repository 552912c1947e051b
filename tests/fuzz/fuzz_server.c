/*
 * libFuzzer harness (RELIABILITY T3): a whole ringsmb server in-process,
 * driven by a program of SMB2 requests over a socketpair.
 *
 * Each input is a fresh server (smbd_server_start_embedded, the daemon's
 * own layers and VFS) with a share on a temporary directory, a second
 * one with vfs_noop, a third requiring encryption, IPC$, and one user
 * with a password (fuzz_server_env.h); one connection, and a second one
 * when the program asks; a fake clock.  The input is a small byte-coded
 * program:
 *
 *   byte 0          flags: bit 0 = io_uring off ("io_uring = no")
 *   then steps      an op byte, then the operands its kind reads
 *
 *   op & 0x1f       the kind (enum fz_kind, modulo FZ_NUM_KINDS; but
 *                   0x1F is FZ_CHANNEL, see below)
 *   op & 0x20       send even without credits (the client normally
 *                   waits for a grant and skips the step)
 *   op & 0x40       mutate: after building (and signing), overwrite
 *                   1-4 bytes of the frame: a byte (bits 0-1 the count,
 *                   bit 7 after encryption, when the frame is sealed),
 *                   then a u16 position and a u8 value each; the
 *                   requests in it are no longer checked for answers
 *   op & 0x80       do not wait: the next step is sent before the
 *                   server has run (pipelining, cancels in flight)
 *
 * Operands come from the rest of the input; when it runs out they read
 * as zeros.  Session, tree and file ids come from earlier responses
 * (slots filled by SESSION_SETUP, TREE_CONNECT, CREATE), so programs
 * reach READ/WRITE/LOCK/... on real opens.  The kinds and their
 * operands are in the build_* functions below; SESSION_SETUP (in
 * fuzz_server_logon.c) runs the whole NTLMSSP exchange (anonymous, an
 * unknown user mapped to guest, or the real user) with lib/auth's
 * client.
 *
 * Two connections: FZ_CHANNEL (operand bit 0) sends the next steps on
 * connection 0 (the default, so programs written before it mean what
 * they meant) or 1, a second socketpair to the same server opened on
 * first use, with its own NEGOTIATE, MessageIds, credits and requests.
 * Session, tree and file slots are shared: a step names any of them on
 * either connection (valid on both for a session bound to both, to be
 * refused by the server where it does not know the id).
 * SESSION_SETUP's binding mode binds the current session to the
 * current connection as a client does (MS-SMB2 3.2.5.3.3); its requests
 * there are signed with the channel's own key.  Responses and breaks
 * are read on both whichever the program is on, and each step settles
 * both.  FZ_DISCONNECT closes the current connection only; the program
 * ends when every connection it opened is closed (by it or the server),
 * which for a program that never opened the second is when the first
 * closes, as before.
 *
 * Keys: a logon as the real user derives the session's keys as a client
 * does (the 3.1.1 preauth chain over NEGOTIATE and the SESSION_SETUP
 * legs; the signing algorithm and cipher the NEGOTIATE response chose).
 * From then on every request of that session is signed, or, when the
 * session or its tree encrypts, sent in a TRANSFORM (SELECT can turn
 * either off, to see the server refuse); responses are decrypted before
 * any other check.
 *
 * Invariants, each an abort() libFuzzer reports: responses well formed
 * and answering what was sent on that connection, credits held within
 * SMBD_MAX_CREDITS on each, every request answered (final or interim)
 * unless its connection closed, a signed response for a session with
 * keys verifies, an encrypted one decrypts (fuzz_server_client.h);
 * after both connections go, no connection, session, open, lease,
 * durable handle, descriptor or talloc memory left (fuzz_server_env.h).
 * LeakSanitizer does the rest.
 *
 * Seed corpus: tests/fuzz/corpus/server/ (seed-* written by
 * tests/fuzz/make_server_seeds.py, which also spells the encoding out
 * byte by byte; crash-* are inputs that found bugs).  FUZZ_SERVER_TRACE=1
 * prints every response ("signed": its signature verified, "encrypted":
 * it came in a TRANSFORM), FUZZ_SERVER_DEBUG=<level> the server's log.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "lib/smb2/smb2_client.h"
#include "lib/util/byteorder.h"
#include "tests/fuzz/fuzz_server_client.h"
#include "tests/fuzz/fuzz_server_prog.h"

#define FZ_MAX_STEPS 128

enum fz_kind {
	FZ_NEGOTIATE,
	FZ_SESSION_SETUP,
	FZ_TREE_CONNECT,
	FZ_CREATE,
	FZ_READ,
	FZ_WRITE,
	FZ_CLOSE,
	FZ_FLUSH,
	FZ_LOCK,
	FZ_QUERY_INFO,
	FZ_SET_INFO,
	FZ_QUERY_DIRECTORY,
	FZ_CHANGE_NOTIFY,
	FZ_IOCTL,
	FZ_ECHO,
	FZ_CANCEL,
	FZ_COMPOUND,
	FZ_LOGOFF,
	FZ_TREE_DISCONNECT,
	FZ_OPLOCK_ACK,
	FZ_SELECT,
	FZ_RAW,
	FZ_TICK,
	FZ_DISCONNECT,
	FZ_NUM_KINDS,
	/*
	 * Outside the modulo, so programs written before it keep their
	 * meaning (only an op of 0x1F, which wrapped to FZ_FLUSH, changed).
	 */
	FZ_CHANNEL = 0x1F,
};


/* ---- names and ids ---- */

static const char *const fz_names[] = {
	"", "a", "b.txt", "dir", "dir\\c", "a:s1", "a:s1:$DATA",
	"dir\\", "..\\x", "A", "srvsvc", "lsarpc", "dir\\d\\e", "a::$DATA",
	"b.txt:$I30:$INDEX_ALLOCATION", "LONGNAME~1.TXT", "*", "dir:s2",
};
#define FZ_NUM_NAMES (sizeof(fz_names) / sizeof(fz_names[0]))

/* ASCII name as UTF-16LE into buf; returns the bytes written. */
static size_t utf16(const char *s, uint8_t *buf)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++) {
		buf[2 * i] = (uint8_t)s[i];
		buf[2 * i + 1] = 0;
	}
	return 2 * i;
}

/* A name: from the table, or (0xFF) up to 32 UTF-16 bytes of input. */
static size_t name_operand(struct fz_prog *g, uint8_t *buf)
{
	uint8_t which = u8(g);
	size_t n;

	if (which != 0xFF) {
		return utf16(fz_names[which % FZ_NUM_NAMES], buf);
	}
	n = (u8(g) % 17) * 2;
	bytes(g, buf, n);
	return n;
}

/* A FileId: slot & 7, 0xFF all ones (compound related), 0xFE input. */
static void fid_operand(struct fz_prog *g, uint8_t *buf)
{
	uint8_t which = u8(g);
	const struct smb2_file_id *f = &g->c->files[which % FZ_SLOTS];

	if (which == 0xFF) {
		memset(buf, 0xFF, 16);
	} else if (which == 0xFE) {
		bytes(g, buf, 16);
	} else {
		push_le64(buf, f->persistent);
		push_le64(buf + 8, f->volatile_id);
	}
}

/* ---- the kinds: each fills body, returns its length ---- */

/*
 * Appends a negotiate context (8-aligned from the header) at b + len:
 * returns the new length.
 */
static size_t negctx(uint8_t *b, size_t len, uint16_t type,
		     const uint8_t *data, uint16_t dlen)
{
	len = (len + 64 + 7) / 8 * 8 - 64;
	push_le16(b + len, type);
	push_le16(b + len + 2, dlen);
	memset(b + len + 4, 0, 4);
	memcpy(b + len + 8, data, dlen);
	return len + 8 + dlen;
}

/*
 * Operands: dialect mask (0x202, 0x210, 0x300, 0x302, 0x311, 0x2FF),
 * SecurityMode, Capabilities, contexts (bit 0 encryption with the cipher
 * in bits 1-2, bit 3 signing with the algorithm in bits 4-5, bit 6 one
 * raw context, bit 7 a raw hash algorithm), credits to ask for, 16 bytes
 * ClientGuid; with 3.1.1 the 32-byte salt and what the bits ask for.
 */
static size_t build_negotiate(struct fz_prog *g, uint8_t *b)
{
	static const uint16_t dialects[] = {
		SMB2_DIALECT_0202, SMB2_DIALECT_0210, SMB2_DIALECT_0300,
		SMB2_DIALECT_0302, SMB2_DIALECT_0311, SMB2_DIALECT_WILDCARD,
	};
	uint8_t mask = u8(g), secmode = u8(g), caps = u8(g), ctx = u8(g);
	uint8_t d[64];
	uint16_t n = 0, nctx = 1, type;
	size_t len, i;

	g->credit_ask = 1 + u8(g);
	if ((mask & 0x3F) == 0) {
		mask = 0x1F;
	}
	memset(b, 0, 36);
	push_le16(b, 36);
	push_le16(b + 4, secmode & 3);
	push_le32(b + 8, caps & 0x7F);
	bytes(g, b + 12, 16);           /* ClientGuid */
	for (i = 0; i < 6; i++) {
		if (mask & (1u << i)) {
			push_le16(b + 36 + 2 * n++, dialects[i]);
		}
	}
	push_le16(b + 2, n);
	len = 36 + 2 * (size_t)n;
	g->c->ch->large_mtu = (caps & 0x04) != 0;
	if (!(mask & 0x10)) {
		return len;
	}
	push_le32(b + 28, (uint32_t)((len + 64 + 7) / 8 * 8));
	/* preauth integrity: one hash (SHA-512), a 32-byte salt */
	push_le16(d, 1);
	push_le16(d + 2, 32);
	push_le16(d + 4, (ctx & 0x80) ? u16(g) : 1);
	bytes(g, d + 6, 32);
	len = negctx(b, len, 1, d, 38);
	if (ctx & 1) {                  /* encryption: a cipher, then GCM */
		push_le16(d, 2);
		push_le16(d + 2, 1 + ((ctx >> 1) & 3));
		push_le16(d + 4, 2);
		len = negctx(b, len, 2, d, 6);
		nctx++;
	}
	if (ctx & 8) {                  /* signing: one, then CMAC, GMAC */
		push_le16(d, 3);
		push_le16(d + 2, (ctx >> 4) & 3);
		push_le16(d + 4, 1);
		push_le16(d + 6, 2);
		len = negctx(b, len, 8, d, 8);
		nctx++;
	}
	if (ctx & 0x40) {               /* one raw context from the input */
		uint8_t dl = u8(g) % 64;

		type = u16(g);
		bytes(g, d, dl);
		len = negctx(b, len, type, d, dl);
		nctx++;
	}
	push_le16(b + 32, nctx);
	return len;
}

/* Operand: bits 0-1 and 5 the share, bits 2-4 the slot. */
static size_t build_tree_connect(struct fz_prog *g, uint8_t *b,
				 uint8_t *slot)
{
	static const char *const shares[] = {
		"\\\\FUZZ\\share", "\\\\FUZZ\\noop", "\\\\FUZZ\\IPC$",
		"\\\\127.0.0.1\\nosuch", "\\\\FUZZ\\crypt",
		"\\\\127.0.0.1\\CRYPT", "\\\\FUZZ\\ipc$", "\\\\FUZZ\\",
	};
	uint8_t x = u8(g);
	size_t n;

	*slot = (x >> 2) & 7;
	memset(b, 0, 8);
	push_le16(b, 9);
	push_le16(b + 4, 64 + 8);
	n = utf16(shares[(x & 3) | ((x >> 3) & 4)], b + 8);
	push_le16(b + 6, (uint16_t)n);
	return 8 + n;
}

/* One create context: name (4 bytes), data of dlen bytes; returns size */
static size_t create_ctx(uint8_t *b, const char *name, const uint8_t *data,
			 size_t dlen)
{
	memset(b, 0, 24);
	push_le16(b + 4, 16);
	push_le16(b + 6, 4);
	memcpy(b + 16, name, 4);
	if (dlen > 0) {
		push_le16(b + 10, 24);
		push_le32(b + 12, (uint32_t)dlen);
		memcpy(b + 24, data, dlen);
	}
	return 24 + dlen;
}

static size_t create_contexts(struct fz_prog *g, uint8_t *b, uint8_t which)
{
	uint8_t data[64];
	size_t len = 0, last = 0, n;
	bool any = false;
	unsigned i;

	for (i = 0; i < 6; i++) {
		const char *name = NULL;
		size_t dlen = 0;

		if (!(which & (1u << i))) {
			continue;
		}
		memset(data, 0, sizeof(data));
		switch (i) {
		case 0: name = "MxAc"; break;
		case 1: name = "QFid"; break;
		case 2: name = "DHnQ"; dlen = 16; break;
		case 3:                 /* DH2Q: timeout, flags, guid */
			name = "DH2Q";
			dlen = 32;
			push_le32(data, u8(g) * 1000u);
			push_le32(data + 4, u8(g) & 2);
			bytes(g, data + 16, 16);
			break;
		case 4:                 /* RqLs v1 or v2 */
			name = "RqLs";
			bytes(g, data, 16);
			push_le32(data + 16, u8(g) & 7);
			dlen = (data[0] & 1) ? 52 : 32;
			if (dlen == 52) {
				push_le32(data + 20, u8(g) & 4);
				push_le16(data + 48, u8(g));
			}
			break;
		default:                /* raw: name and data from the input */
			bytes(g, data, 4);
			memcpy(data + 60, data, 4);
			name = (const char *)data + 60;
			dlen = u8(g) % 48;
			bytes(g, data, dlen);
			break;
		}
		len = (len + 7) / 8 * 8;
		if (any) {
			push_le32(b + last, (uint32_t)(len - last));
		}
		last = len;
		n = create_ctx(b + len, name, data, dlen);
		len += n;
		any = true;
	}
	return len;
}

static size_t build_create(struct fz_prog *g, uint8_t *b,
			   struct smb2_hdr *h)
{
	static const uint32_t access[] = {
		0x0012019F, 0x00120089, 0x00120116, 0x001F01FF, 0x00010080,
		SMB2_MAXIMUM_ALLOWED, 0x00100080, SMB2_GENERIC_ALL,
	};
	uint8_t a = u8(g), opts = u8(g), ctx = u8(g), fl = u8(g);
	size_t nlen, clen, off;

	memset(b, 0, 56);
	push_le16(b, 57);
	b[3] = (fl & 0x80) ? 0xFF : (uint8_t[]){ 0, 1, 8, 9 }[fl & 3];
	push_le32(b + 4, 2);            /* impersonation */
	push_le32(b + 24, (a & 0x80) ? u32(g) : access[a & 7]);
	push_le32(b + 28, (fl & 0x40) ? 0x10 : 0x80);
	push_le32(b + 32, (a & 0x40) ? 0 : 7);  /* share: none or all */
	push_le32(b + 36, ((a >> 3) & 7) % 6);  /* disposition */
	push_le32(b + 40, (uint32_t)(opts & 0x41) |
		  ((opts & 0x02) ? SMB2_FILE_DELETE_ON_CLOSE : 0) |
		  ((opts & 0x04) ? SMB2_FILE_WRITE_THROUGH : 0) |
		  ((opts & 0x08) ? SMB2_FILE_OPEN_REPARSE_POINT : 0) |
		  ((opts & 0x10) ? u32(g) : 0));
	nlen = name_operand(g, b + 56);
	push_le16(b + 44, 64 + 56);
	push_le16(b + 46, (uint16_t)nlen);
	off = 56 + (nlen > 0 ? nlen : 1);
	if (fl & 0x20) {
		h->flags |= SMB2_FLAGS_REPLAY_OPERATION;
	}
	if (ctx == 0) {
		return off;
	}
	off = (off + 7) / 8 * 8;
	clen = create_contexts(g, b + off, ctx);
	push_le32(b + 48, (uint32_t)(64 + off));
	push_le32(b + 52, (uint32_t)clen);
	return off + clen;
}

static size_t build_read(struct fz_prog *g, uint8_t *b, uint32_t *payload)
{
	uint8_t x = u8(g);
	uint32_t len = u16(g);

	if (x & 1) {
		len *= 16;              /* up to 1 MiB: multi-credit */
	}
	memset(b, 0, 49);
	push_le16(b, 49);
	b[2] = 0x50;
	b[3] = (x >> 1) & 1;            /* unbuffered */
	push_le32(b + 4, len);
	push_le64(b + 8, (x & 4) ? (uint64_t)u32(g) << 8 : u16(g));
	fid_operand(g, b + 16);
	push_le32(b + 32, (x & 8) ? u16(g) : 0);
	*payload = len;
	return 49;
}

static size_t build_write(struct fz_prog *g, uint8_t *b, uint32_t *payload)
{
	uint8_t x = u8(g), l = u8(g);
	uint32_t len;

	memset(b, 0, 48);
	push_le16(b, 49);
	push_le16(b + 2, 64 + 48);
	push_le64(b + 8, (x & 4) ? (uint64_t)u32(g) << 8 : u16(g));
	fid_operand(g, b + 16);
	push_le32(b + 44, (x & 1) ? 1 : 0);    /* WRITE_THROUGH */
	if (l & 0x80) {                 /* big: a pattern */
		len = (uint32_t)(l & 0x7F) * 8192;
		memset(b + 48, 'w', len);
	} else {
		len = (uint32_t)l * 4;
		bytes(g, b + 48, len);
	}
	push_le32(b + 4, len);
	*payload = len;
	return 48 + len;
}

static size_t build_fid_only(struct fz_prog *g, uint8_t *b,
			     uint16_t size)
{
	memset(b, 0, 24);
	push_le16(b, size);
	push_le16(b + 2, u8(g) & 1);    /* CLOSE: POSTQUERY_ATTRIB */
	fid_operand(g, b + 8);
	return 24;
}

static size_t build_lock(struct fz_prog *g, uint8_t *b)
{
	uint8_t x = u8(g);
	unsigned n = 1 + (x & 3) % 3, i;

	memset(b, 0, 24);
	push_le16(b, 48);
	push_le16(b + 2, (uint16_t)n);
	push_le32(b + 4, (x & 4) ? u8(g) : 0);
	fid_operand(g, b + 8);
	for (i = 0; i < n; i++) {
		uint8_t *l = b + 24 + 24 * i;
		uint8_t f = u8(g);

		memset(l, 0, 24);
		push_le64(l, (f & 0x80) ? ~(uint64_t)0 - u8(g) : u16(g));
		push_le64(l + 8, (f & 0x40) ? ~(uint64_t)0 : u16(g));
		push_le32(l + 16, f & 0x17);
	}
	return 24 + 24 * n;
}

static size_t build_query_info(struct fz_prog *g, uint8_t *b)
{
	uint8_t x = u8(g), in = u8(g) % 64;

	memset(b, 0, 40);
	push_le16(b, 41);
	b[2] = 1 + x % 4;               /* file, fs, security, quota */
	b[3] = u8(g);
	push_le32(b + 4, (x & 0x10) ? u16(g) : 4096);
	push_le32(b + 16, (x & 0x20) ? u32(g) : 7);
	push_le32(b + 20, (x & 0x40) ? 1 : 0);
	fid_operand(g, b + 24);
	if (in > 0) {
		push_le16(b + 8, 64 + 40);
		push_le32(b + 12, in);
		bytes(g, b + 40, in);
	}
	return 40 + (in > 0 ? in : 1);
}

/* SET_INFO buffers: canned for the classes that change the namespace */
static size_t set_info_buffer(struct fz_prog *g, uint8_t *b, uint8_t cls,
			      bool raw)
{
	size_t n;

	if (raw) {
		n = u8(g) % 96;
		bytes(g, b, n);
		return n;
	}
	switch (cls) {
	case SMB2_FILE_RENAME_INFORMATION:
	case SMB2_FILE_LINK_INFORMATION:
		memset(b, 0, 20);
		b[0] = u8(g) & 1;       /* ReplaceIfExists */
		n = name_operand(g, b + 20);
		push_le32(b + 16, (uint32_t)n);
		return 20 + (n > 0 ? n : 2);
	case SMB2_FILE_DISPOSITION_INFORMATION:
		b[0] = u8(g) & 1;
		return 1;
	case SMB2_FILE_END_OF_FILE_INFORMATION:
	case SMB2_FILE_ALLOCATION_INFORMATION:
	case SMB2_FILE_POSITION_INFORMATION:
		push_le64(b, u32(g));
		return 8;
	default:
		bytes(g, b, 40);        /* BASIC and friends */
		return 40;
	}
}

static size_t build_set_info(struct fz_prog *g, uint8_t *b)
{
	static const uint8_t classes[] = {
		SMB2_FILE_BASIC_INFORMATION, SMB2_FILE_RENAME_INFORMATION,
		SMB2_FILE_DISPOSITION_INFORMATION,
		SMB2_FILE_END_OF_FILE_INFORMATION,
		SMB2_FILE_ALLOCATION_INFORMATION,
		SMB2_FILE_LINK_INFORMATION, SMB2_FILE_POSITION_INFORMATION,
		SMB2_FILE_FULL_EA_INFORMATION,
	};
	uint8_t x = u8(g), cls = classes[x & 7];
	size_t n;

	memset(b, 0, 32);
	push_le16(b, 33);
	b[2] = 1 + ((x >> 3) & 3);
	if (x & 0x20) {
		cls = u8(g);
	}
	b[3] = cls;
	push_le16(b + 8, 64 + 32);
	push_le32(b + 12, (x & 0x40) ? u32(g) : 0);
	fid_operand(g, b + 16);
	n = set_info_buffer(g, b + 32, cls, b[2] != 1 || (x & 0x80));
	push_le32(b + 4, (uint32_t)n);
	return 32 + (n > 0 ? n : 1);
}

static size_t build_query_directory(struct fz_prog *g, uint8_t *b)
{
	static const uint8_t classes[] = { 1, 2, 3, 12, 37, 38, 60, 0 };
	static const char *const patterns[] = { "*", "a*", "?", "<", "b.txt",
						"", "*.*", ">" };
	uint8_t x = u8(g), f = u8(g);
	size_t n;

	memset(b, 0, 32);
	push_le16(b, 33);
	b[2] = classes[x & 7] != 0 ? classes[x & 7] : u8(g);
	b[3] = f & 0x17;
	push_le32(b + 4, (f & 4) ? u8(g) : 0);
	fid_operand(g, b + 8);
	n = utf16(patterns[(x >> 3) & 7], b + 32);
	push_le16(b + 24, n > 0 ? 64 + 32 : 0);
	push_le16(b + 26, (uint16_t)n);
	push_le32(b + 28, (x & 0x40) ? u16(g) : 65536);
	return 32 + (n > 0 ? n : 1);
}

static size_t build_notify(struct fz_prog *g, uint8_t *b)
{
	uint8_t x = u8(g);

	memset(b, 0, 32);
	push_le16(b, 32);
	push_le16(b + 2, x & 1);        /* WATCH_TREE */
	push_le32(b + 4, (x & 2) ? u16(g) : 4096);
	fid_operand(g, b + 8);
	push_le32(b + 24, (x & 4) ? u16(g) : 0x17);
	return 32;
}

static size_t build_ioctl(struct fz_prog *g, uint8_t *b)
{
	static const uint32_t ctls[] = {
		FSCTL_VALIDATE_NEGOTIATE_INFO, FSCTL_QUERY_NETWORK_INTERFACE_INFO,
		FSCTL_SRV_REQUEST_RESUME_KEY, FSCTL_SRV_COPYCHUNK,
		FSCTL_SRV_COPYCHUNK_WRITE, FSCTL_SET_SPARSE,
		FSCTL_SET_ZERO_DATA, FSCTL_QUERY_ALLOCATED_RANGES,
		FSCTL_GET_REPARSE_POINT, FSCTL_SET_REPARSE_POINT,
		FSCTL_CREATE_OR_GET_OBJECT_ID, FSCTL_DFS_GET_REFERRALS,
		FSCTL_PIPE_TRANSCEIVE, FSCTL_PIPE_PEEK, FSCTL_PIPE_WAIT,
		FSCTL_SRV_ENUMERATE_SNAPSHOTS, FSCTL_FILE_LEVEL_TRIM,
		FSCTL_DUPLICATE_EXTENTS_TO_FILE, FSCTL_LMR_REQUEST_RESILIENCY,
		FSCTL_DFS_GET_REFERRALS_EX,
	};
	uint8_t x = u8(g), in = u8(g);
	uint32_t ctl = x == 0xFF ? u32(g) :
		ctls[x % (sizeof(ctls) / sizeof(ctls[0]))];

	memset(b, 0, 56);
	push_le16(b, 57);
	push_le32(b + 4, ctl);
	fid_operand(g, b + 8);
	if (in > 0) {
		push_le32(b + 24, 64 + 56);
		push_le32(b + 28, in);
		bytes(g, b + 56, in);
	}
	push_le32(b + 44, u16(g));      /* MaxOutputResponse */
	push_le32(b + 48, 1);           /* IS_FSCTL */
	return 56 + (in > 0 ? in : 1);
}

static size_t build_simple(uint8_t *b)
{
	memset(b, 0, 4);
	push_le16(b, 4);
	return 4;
}

static size_t build_oplock_ack(struct fz_prog *g, uint8_t *b)
{
	const struct fz_client *c = g->c;
	uint8_t x = u8(g);

	if (c->break_is_lease) {
		memset(b, 0, 36);
		push_le16(b, 36);
		memcpy(b + 8, c->break_lease_key, 16);
		push_le32(b + 24, (x & 0x80) ? x & 7 : c->break_lease_state);
		return 36;
	}
	memset(b, 0, 24);
	push_le16(b, 24);
	b[2] = (x & 0x80) ? x & 0x0F : c->break_level;
	push_le64(b + 8, c->break_fid.persistent);
	push_le64(b + 16, c->break_fid.volatile_id);
	return 24;
}

/*
 * The kinds that make one request element (also inside compounds).
 * Returns the body length, 0 if kind is not one of them.
 */
static size_t build_element(struct fz_prog *g, enum fz_kind kind,
			    struct smb2_hdr *h, uint8_t *b,
			    uint32_t *payload, uint8_t *slot)
{
	switch (kind) {
	case FZ_NEGOTIATE:
		base_hdr(g, h, SMB2_OP_NEGPROT);
		return build_negotiate(g, b);
	case FZ_TREE_CONNECT:
		base_hdr(g, h, SMB2_OP_TCON);
		return build_tree_connect(g, b, slot);
	case FZ_CREATE:
		base_hdr(g, h, SMB2_OP_CREATE);
		return build_create(g, b, h);
	case FZ_READ:
		base_hdr(g, h, SMB2_OP_READ);
		return build_read(g, b, payload);
	case FZ_WRITE:
		base_hdr(g, h, SMB2_OP_WRITE);
		return build_write(g, b, payload);
	case FZ_CLOSE:
		base_hdr(g, h, SMB2_OP_CLOSE);
		return build_fid_only(g, b, 24);
	case FZ_FLUSH:
		base_hdr(g, h, SMB2_OP_FLUSH);
		return build_fid_only(g, b, 24);
	case FZ_LOCK:
		base_hdr(g, h, SMB2_OP_LOCK);
		return build_lock(g, b);
	case FZ_QUERY_INFO:
		base_hdr(g, h, SMB2_OP_QUERY_INFO);
		return build_query_info(g, b);
	case FZ_SET_INFO:
		base_hdr(g, h, SMB2_OP_SET_INFO);
		return build_set_info(g, b);
	case FZ_QUERY_DIRECTORY:
		base_hdr(g, h, SMB2_OP_QUERY_DIRECTORY);
		return build_query_directory(g, b);
	case FZ_CHANGE_NOTIFY:
		base_hdr(g, h, SMB2_OP_CHANGE_NOTIFY);
		return build_notify(g, b);
	case FZ_IOCTL:
		base_hdr(g, h, SMB2_OP_IOCTL);
		return build_ioctl(g, b);
	case FZ_ECHO:
		base_hdr(g, h, SMB2_OP_ECHO);
		return build_simple(b);
	case FZ_LOGOFF:
		base_hdr(g, h, SMB2_OP_LOGOFF);
		return build_simple(b);
	case FZ_TREE_DISCONNECT:
		base_hdr(g, h, SMB2_OP_TDIS);
		return build_simple(b);
	case FZ_OPLOCK_ACK:
		base_hdr(g, h, SMB2_OP_OPLOCK_BREAK);
		return build_oplock_ack(g, b);
	default:
		return 0;
	}
}

/* ---- sending ---- */

/* Overwrites 1-4 bytes of the frame (NBT header included). */
static void mutate(struct fz_prog *g, struct fz_frame *f, uint8_t how,
		   size_t first)
{
	unsigned n = 1 + (how & 0x7F) % 4, i;

	for (i = 0; i < n; i++) {
		uint16_t pos = u16(g);
		uint8_t val = u8(g);

		if (f->buf != NULL && f->len > 0) {
			f->buf[pos % f->len] = val;
		}
	}
	fz_client_untrack_from(g->c, first);
}

/*
 * Signed (or encrypted) as a client would, then mutated: the mutation
 * byte's bit 7 says after encryption (the TRANSFORM and ciphertext),
 * else before it and after signing, so the server's signature check,
 * or its parsing of what decrypts, meets the changed bytes.
 */
static void send_frame(struct fz_prog *g, struct fz_frame *f, uint8_t op,
		       size_t first)
{
	struct fz_session *seal = fz_frame_sealer(g->c, f);
	uint8_t how = 0;

	if (seal == NULL) {
		fz_frame_sign(g->c, f);
	}
	if (op & 0x40) {
		how = u8(g);
		if (!(how & 0x80) || seal == NULL) {
			mutate(g, f, how, first);
		}
	}
	if (seal != NULL) {
		fz_frame_seal(g->c, f, seal);
		if ((op & 0x40) && (how & 0x80)) {
			mutate(g, f, how, first);
		}
	}
	fz_frame_send(g->c, f);
	if (!(op & 0x80)) {
		fz_client_settle(g->c);
	}
}

static void step_element(struct fz_prog *g, enum fz_kind kind, uint8_t op)
{
	struct fz_frame f = {};
	struct smb2_hdr h;
	uint32_t payload = 0;
	uint8_t slot = 0;
	size_t first = g->c->ch->num_reqs;
	size_t len = build_element(g, kind, &h, g->body, &payload, &slot);

	if (fz_frame_add(g->c, &f, &h, g->body, len, payload,
			 (op & 0x20) != 0) == 0) {
		return;                 /* no credits: skipped */
	}
	if (g->c->ch->num_reqs > first) {
		g->c->ch->reqs[g->c->ch->num_reqs - 1].session_slot = slot;
	}
	send_frame(g, &f, op, first);
}

static void step_compound(struct fz_prog *g, uint8_t op)
{
	static const enum fz_kind kinds[] = {
		FZ_CREATE, FZ_READ, FZ_WRITE, FZ_CLOSE, FZ_QUERY_INFO,
		FZ_SET_INFO, FZ_FLUSH, FZ_QUERY_DIRECTORY, FZ_CHANGE_NOTIFY,
		FZ_IOCTL, FZ_ECHO, FZ_LOCK, FZ_TREE_CONNECT, FZ_LOGOFF,
		FZ_TREE_DISCONNECT, FZ_NEGOTIATE,
	};
	uint8_t x = u8(g);
	unsigned n = 2 + x % 4, i;
	struct fz_frame f = {};
	size_t first = g->c->ch->num_reqs;

	for (i = 0; i < n; i++) {
		uint8_t k = u8(g);
		struct smb2_hdr h;
		uint32_t payload = 0;
		uint8_t slot = 0;
		size_t len = build_element(g, kinds[k % 16], &h, g->body,
					   &payload, &slot);

		if (i > 0 && (x & 0x80)) {
			h.flags |= SMB2_FLAGS_RELATED_OPERATIONS;
		}
		if (fz_frame_add(g->c, &f, &h, g->body, len, payload,
				 (op & 0x20) != 0) == 0) {
			break;
		}
	}
	send_frame(g, &f, op, first);
}

static void step_cancel(struct fz_prog *g, uint8_t op)
{
	const struct fz_req *r = fz_client_pending(g->c, u8(g));
	struct fz_frame f = {};
	struct smb2_hdr h;
	size_t len;

	base_hdr(g, &h, SMB2_OP_CANCEL);
	h.credit = 0;
	len = build_simple(g->body);
	if (r != NULL && r->state == FZ_INTERIM) {
		h.flags |= SMB2_FLAGS_ASYNC_COMMAND;
		h.async_id = r->async_id;
	}
	fz_frame_add(g->c, &f, &h, g->body, len, 0, true);
	/* after fz_frame_add: a CANCEL names its target's MessageId */
	push_le64(f.buf + f.last_hdr + SMB2_HDR_OFS_MESSAGE_ID,
		  r != NULL ? r->mid : u16(g));
	send_frame(g, &f, op, g->c->ch->num_reqs);
}

/* Raw bytes: bit 0 of the mode wraps them in a correct NBT header. */
static void step_raw(struct fz_prog *g)
{
	uint8_t mode = u8(g);
	size_t n = u16(g) % 2048;

	bytes(g, g->body + 4, n);
	push_be32(g->body, (uint32_t)n);
	if (mode & 1) {
		fz_client_send_raw(g->c, g->body, n + 4);
	} else {
		fz_client_send_raw(g->c, g->body + 4, n);
	}
	fz_client_settle(g->c);
}

static void step(struct fz_prog *g)
{
	uint8_t op = u8(g);
	enum fz_kind kind = (enum fz_kind)((op & 0x1F) % FZ_NUM_KINDS);

	if ((op & 0x1F) == FZ_CHANNEL) {
		kind = FZ_CHANNEL;
	}
	uint8_t x;

	switch (kind) {
	case FZ_SESSION_SETUP:
		fz_step_session_setup(g);
		break;
	case FZ_COMPOUND:
		step_compound(g, op);
		break;
	case FZ_CANCEL:
		step_cancel(g, op);
		break;
	case FZ_SELECT:
		/*
		 * bits 0-2 the session slot, 4-6 the tree slot; bit 3
		 * plaintext even where encryption is due, bit 7 unsigned
		 */
		x = u8(g);
		g->c->cur_session = x & 7;
		g->c->cur_tree = (x >> 4) & 7;
		g->c->plaintext = (x & 0x08) != 0;
		g->c->unsigned_reqs = (x & 0x80) != 0;
		break;
	case FZ_RAW:
		step_raw(g);
		break;
	case FZ_TICK:
		fz_env_advance(g->c->env, u8(g));
		fz_client_settle(g->c);
		break;
	case FZ_DISCONNECT:
		fz_client_hang_up(g->c);
		fz_client_settle(g->c);
		break;
	case FZ_CHANNEL:
		fz_client_use(g->c, u8(g) & 1);
		break;
	default:
		step_element(g, kind, op);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *body;
	struct fz_env env;
	struct fz_client c;
	struct fz_prog g = { .p = data, .left = size, .credit_ask = 32 };
	unsigned i;

	if (body == NULL) {
		fz_env_init();
		body = malloc(FZ_BODY_MAX);
		if (body == NULL) {
			abort();
		}
	}
	g.body = body;
	fz_env_up(&env, !(u8(&g) & 1));
	fz_client_init(&c, &env);
	g.c = &c;
	for (i = 0; i < FZ_MAX_STEPS && g.left > 0 && !fz_client_done(&c);
	     i++) {
		step(&g);
	}
	fz_client_settle(&c);
	fz_client_free(&c);
	fz_env_down(&env);
	return 0;
}
