/*
 * The smbpasswd line format, both ways: text into the line list of a
 * database (passdb_parse_text) and the line list back into text
 * (passdb_format).  See passdb.h for the format.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/auth/auth_private.h"
#include "lib/auth/passdb_private.h"
#include "lib/util/hexdigit.h"

#define HASH_HEX_LEN (2 * AUTH_NT_HASH_SIZE)
#define FLAGS_WIDTH 11		/* letters and spaces between [ ] */
#define MAX_FIELDS 7		/* name uid lm nt flags lct "" */

/* Flag letters in the order Samba writes them. */
static const struct {
	char letter;
	uint16_t flag;
} acb_letters[] = {
	{ 'N', PASSDB_ACB_PWNOTREQ }, { 'D', PASSDB_ACB_DISABLED },
	{ 'H', PASSDB_ACB_HOMDIRREQ }, { 'T', PASSDB_ACB_TEMPDUP },
	{ 'U', PASSDB_ACB_NORMAL }, { 'M', PASSDB_ACB_MNS },
	{ 'W', PASSDB_ACB_WSTRUST }, { 'S', PASSDB_ACB_SVRTRUST },
	{ 'L', PASSDB_ACB_AUTOLOCK }, { 'X', PASSDB_ACB_PWNOEXP },
	{ 'I', PASSDB_ACB_DOMTRUST },
};

static const char no_password[] = "NO PASSWORD";

/* ---- parsing one line ---- */

struct field {
	const char *p;
	size_t len;
};

static size_t split_fields(const char *line, size_t len, struct field *f)
{
	size_t n = 0, start = 0, i;

	for (i = 0; i <= len; i++) {
		if (i < len && line[i] != ':') {
			continue;
		}
		if (n == MAX_FIELDS) {
			return MAX_FIELDS + 1;
		}
		f[n].p = line + start;
		f[n].len = i - start;
		n++;
		start = i + 1;
	}
	return n;
}

static bool all_chars(const char *p, size_t len, char c)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != c) {
			return false;
		}
	}
	return true;
}

enum hash_kind { HASH_BAD, HASH_HEX, HASH_NONE };

/* A 32-character hash field: hex, "NO PASSWORD" + X, all X or all '*'. */
static enum hash_kind parse_hash(struct field f, uint8_t out[16])
{
	size_t np = sizeof(no_password) - 1;
	size_t i;

	if (f.len != HASH_HEX_LEN) {
		return HASH_BAD;
	}
	if (all_chars(f.p, f.len, 'X') || all_chars(f.p, f.len, '*') ||
	    (memcmp(f.p, no_password, np) == 0 &&
	     all_chars(f.p + np, f.len - np, 'X'))) {
		return HASH_NONE;
	}
	for (i = 0; i < AUTH_NT_HASH_SIZE; i++) {
		int hi = hex_digit_value(f.p[2 * i]);
		int lo = hex_digit_value(f.p[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			return HASH_BAD;
		}
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return HASH_HEX;
}

/* 1..max_digits digits in base 10 or 16, fitting 32 bits. */
static bool parse_u32(struct field f, int base, size_t max_digits,
		      uint32_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (f.len == 0 || f.len > max_digits) {
		return false;
	}
	for (i = 0; i < f.len; i++) {
		int d = hex_digit_value(f.p[i]);

		if (d < 0 || d >= base) {
			return false;
		}
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (v > UINT32_MAX) {
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

static bool parse_flags(struct field f, uint16_t *acb)
{
	size_t i, k;

	if (f.len < 2 || f.len > FLAGS_WIDTH + 2 || f.p[0] != '[' ||
	    f.p[f.len - 1] != ']') {
		return false;
	}
	*acb = 0;
	for (i = 1; i + 1 < f.len; i++) {
		if (f.p[i] == ' ') {
			continue;
		}
		for (k = 0; k < sizeof(acb_letters) / sizeof(acb_letters[0]);
		     k++) {
			if (acb_letters[k].letter == f.p[i]) {
				break;
			}
		}
		if (k == sizeof(acb_letters) / sizeof(acb_letters[0])) {
			return false;
		}
		*acb |= acb_letters[k].flag;
	}
	return true;
}

static bool parse_lct(struct field f, uint32_t *lct)
{
	struct field hex = { 0 };

	*lct = 0;
	if (f.len == 0) {
		return true;
	}
	if (f.len <= 4 || memcmp(f.p, "LCT-", 4) != 0) {
		return false;
	}
	hex.p = f.p + 4;
	hex.len = f.len - 4;
	return parse_u32(hex, 16, 8, lct);
}

/* The fields after the name; sets p->why on the first problem. */
static void parse_fields(const struct field *f, size_t n,
			 struct passdb_parsed *p)
{
	uint8_t lm[AUTH_NT_HASH_SIZE];
	enum hash_kind nt;

	if (n < 5) {
		p->why = "missing fields (name:uid:LM:NT:[flags]:LCT-time:)";
	} else if (n > 6 && (n > MAX_FIELDS || f[6].len != 0)) {
		p->why = "text after the last change time";
	} else if (!parse_u32(f[1], 10, 10, &p->uid)) {
		p->why = "uid is not a number below 2^32";
	} else if (parse_hash(f[2], lm) == HASH_BAD) {
		p->why = "LM hash is not 32 hex digits or X's";
	} else if ((nt = parse_hash(f[3], p->hash)) == HASH_BAD) {
		p->why = "NT hash is not 32 hex digits or X's";
	} else if (!parse_flags(f[4], &p->acb)) {
		p->why = "account flags are not [UNDHTMWSLXI ] letters";
	} else if (!parse_lct(n > 5 ? f[5] : (struct field){ "", 0 },
			      &p->lct)) {
		p->why = "last change time is not LCT-<8 hex digits>";
	} else {
		p->have_hash = (nt == HASH_HEX);
	}
	auth_wipe(lm, sizeof(lm));
}

/* ---- building the line list ---- */

static struct passdb_entry *new_verbatim(struct passdb_data *d,
					 unsigned line, const char *text,
					 size_t len)
{
	struct passdb_entry *e = talloc_zero(d, struct passdb_entry);

	if (e == NULL) {
		return NULL;
	}
	e->line = line;
	e->raw = talloc_size(e, len + 1);
	if (e->raw == NULL) {
		talloc_free(e);
		return NULL;
	}
	auth_keep_secret(e->raw);
	memcpy(e->raw, text, len);
	e->raw[len] = '\0';
	e->raw_len = len;
	passdb_append_entry(d, e);
	return e;
}

/* Name checks and duplicates; e is the line as kept verbatim. */
static void parse_entry(struct passdb *db, struct passdb_entry *e,
			const struct field *f, size_t n)
{
	struct passdb_parsed p = { 0 };
	char *name = talloc_strndup(e, f[0].p, f[0].len);
	uint8_t *key = NULL;
	size_t key_len = 0;
	struct passdb_entry *dup = NULL;

	if (name == NULL) {
		return;
	}
	parse_fields(f, n, &p);
	if (p.why == NULL && (!passdb_name_chars_ok(name, f[0].len) ||
			      passdb_name_key(e, name, &key, &key_len) != 0)) {
		p.why = "user name is empty, too long or not UTF-8";
	}
	if (p.why == NULL &&
	    (dup = passdb_find_key(db->data, key, key_len)) != NULL) {
		passdb_add_diag(db, e->line, "duplicate entry for user %s "
				"(first at line %u), ignored", dup->name,
				dup->line);
	} else if (p.why != NULL) {
		passdb_add_diag(db, e->line, "%s; line ignored", p.why);
	} else if (passdb_fill_entry(e, name, key, key_len, &p) == 0) {
		db->data->num_users++;
	} else {
		/* out of memory: keep the line verbatim */
		TALLOC_FREE(e->name);
	}
	auth_wipe(p.hash, sizeof(p.hash));
	talloc_free(key);
	talloc_free(name);
}

static bool is_comment_or_blank(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t')) {
		i++;
	}
	return i == len || line[i] == '#';
}

static void parse_line(struct passdb *db, unsigned lineno, const char *line,
		       size_t len)
{
	struct field f[MAX_FIELDS];
	struct passdb_entry *e = new_verbatim(db->data, lineno, line, len);
	size_t n;

	/* kept with its '\r' (verbatim is verbatim), parsed without */
	if (len > 0 && line[len - 1] == '\r') {
		len--;
	}
	if (e == NULL || is_comment_or_blank(line, len)) {
		return;
	}
	if (len > PASSDB_MAX_LINE) {
		passdb_add_diag(db, lineno, "line longer than %d bytes; line "
				"ignored", PASSDB_MAX_LINE);
		return;
	}
	if (memchr(line, '\0', len) != NULL) {
		passdb_add_diag(db, lineno,
				"NUL byte in the line; line ignored");
		return;
	}
	n = split_fields(e->raw, len, f);
	parse_entry(db, e, f, n);
}

void passdb_parse_text(struct passdb *db, const char *buf, size_t len)
{
	unsigned lineno = 0;
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = (nl != NULL) ? (size_t)(nl - buf) : len;

		parse_line(db, ++lineno, buf + pos, end - pos);
		pos = end + 1;
	}
}

/* ---- formatting ---- */

static void format_hash(const struct passdb_entry *e, char out[33])
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, np = sizeof(no_password) - 1;

	if (e->nt_hash == NULL) {
		memset(out, 'X', HASH_HEX_LEN);
		if (e->acb & PASSDB_ACB_PWNOTREQ) {
			memcpy(out, no_password, np);
		}
	}
	for (i = 0; e->nt_hash != NULL && i < AUTH_NT_HASH_SIZE; i++) {
		out[2 * i] = hex[e->nt_hash[i] >> 4];
		out[2 * i + 1] = hex[e->nt_hash[i] & 0xF];
	}
	out[HASH_HEX_LEN] = '\0';
}

static void format_flags(uint16_t acb, char out[FLAGS_WIDTH + 1])
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(acb_letters) / sizeof(acb_letters[0]); i++) {
		if (acb & acb_letters[i].flag) {
			out[n++] = acb_letters[i].letter;
		}
	}
	memset(out + n, ' ', FLAGS_WIDTH - n);
	out[FLAGS_WIDTH] = '\0';
}

/* One line with its '\n' into buf (snprintf rules: returns the length). */
static size_t format_line(const struct passdb_entry *e, char *buf,
			  size_t room)
{
	char nt[HASH_HEX_LEN + 1], flags[FLAGS_WIDTH + 1], lm[HASH_HEX_LEN + 1];
	int n;

	if (e->name == NULL) {
		if (room > e->raw_len) {
			memcpy(buf, e->raw, e->raw_len);
			buf[e->raw_len] = '\n';
		}
		return e->raw_len + 1;
	}
	memset(lm, 'X', HASH_HEX_LEN);
	lm[HASH_HEX_LEN] = '\0';
	format_hash(e, nt);
	format_flags(e->acb, flags);
	n = snprintf(buf, room, "%s:%u:%s:%s:[%s]:LCT-%08X:\n", e->name,
		     (unsigned)e->uid, lm, nt, flags, (unsigned)e->lct);
	auth_wipe(nt, sizeof(nt));
	return (n < 0) ? 0 : (size_t)n;
}

int passdb_format(const struct passdb *db, TALLOC_CTX *mem_ctx,
		  char **out, size_t *len)
{
	const struct passdb_entry *e = NULL;
	size_t total = 0, pos = 0;
	char *buf = NULL;

	for (e = db->data->entries; e != NULL; e = e->next) {
		total += format_line(e, NULL, 0);
	}
	buf = talloc_size(mem_ctx, total + 1);
	if (buf == NULL) {
		return -ENOMEM;
	}
	auth_keep_secret(buf);
	for (e = db->data->entries; e != NULL; e = e->next) {
		/* +1: snprintf wants room for its NUL */
		pos += format_line(e, buf + pos, total + 1 - pos);
	}
	buf[total] = '\0';
	*out = buf;
	*len = total;
	return 0;
}

