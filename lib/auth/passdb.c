/*
 * The smbpasswd file: parse, look up, edit, save atomically, reload.
 *
 * The database is the file's lines in order.  A line is either a valid
 * entry (name set) or kept verbatim (comment, blank or malformed line).
 * Everything that holds a hash, including verbatim lines and formatted
 * text, is a talloc chunk wiped when freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/auth/auth_private.h"
#include "lib/auth/passdb.h"
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"

#define HASH_HEX_LEN (2 * AUTH_NT_HASH_SIZE)
#define FLAGS_WIDTH 11		/* letters and spaces between [ ] */
#define MAX_FIELDS 7		/* name uid lm nt flags lct "" */

struct passdb_entry {
	struct passdb_entry *prev, *next;
	unsigned line;		/* in the file; 0 if added since */
	char *name;		/* NULL: a verbatim line */
	uint8_t *key;		/* upper-cased UTF-16LE name */
	size_t key_len;
	uint32_t uid;
	uint8_t *nt_hash;	/* AUTH_NT_HASH_SIZE bytes or NULL */
	uint16_t acb;
	uint32_t lct;
	char *raw;		/* verbatim lines, without the '\n' */
	size_t raw_len;
};

/* What a (re)load produces; replaced as a whole on reload. */
struct passdb_data {
	struct passdb_entry *entries;
	struct passdb_entry *last;
	size_t num_users;
	struct passdb_diag *diags;
	struct passdb_diag *diags_last;
};

struct passdb {
	char *path;		/* NULL for a buffer */
	char *name;		/* for diagnostics */
	struct passdb_data *data;
	bool have_stat;		/* st describes the file we read/wrote */
	struct stat st;
	struct auth_user_lookup lookup;
};

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

/* ---- names ---- */

static bool name_chars_ok(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len > PASSDB_MAX_NAME) {
		return false;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c == 0x7F || c == ':') {
			return false;
		}
	}
	return true;
}

/* The lookup key: UTF-16LE, upper-cased.  -EINVAL if not UTF-8. */
static int name_key(TALLOC_CTX *mem_ctx, const char *name, uint8_t **key,
		    size_t *key_len)
{
	NTSTATUS status = utf8_to_utf16(mem_ctx, name, key, key_len);

	if (NT_STATUS_EQUAL(status, NT_STATUS_NO_MEMORY)) {
		return -ENOMEM;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return -EINVAL;
	}
	utf16_upper(*key, *key_len);
	return 0;
}

static struct passdb_entry *find_key(const struct passdb_data *d,
				     const uint8_t *key, size_t key_len)
{
	struct passdb_entry *e = NULL;

	for (e = d->entries; e != NULL; e = e->next) {
		if (e->name != NULL && e->key_len == key_len &&
		    memcmp(e->key, key, key_len) == 0) {
			return e;
		}
	}
	return NULL;
}

static struct passdb_entry *find_user(const struct passdb *db,
				      const char *user)
{
	struct passdb_entry *e = NULL;
	uint8_t *key = NULL;
	size_t key_len = 0;

	if (user == NULL || name_key(NULL, user, &key, &key_len) != 0) {
		return NULL;
	}
	e = find_key(db->data, key, key_len);
	talloc_free(key);
	return e;
}

/* ---- diagnostics ---- */

static void add_diag(struct passdb *db, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_diag(struct passdb *db, unsigned line, const char *fmt, ...)
{
	struct passdb_data *d = db->data;
	struct passdb_diag *diag = talloc_zero(d, struct passdb_diag);
	char *what = NULL;
	va_list ap;

	if (diag == NULL) {
		return;
	}
	va_start(ap, fmt);
	what = talloc_vasprintf(diag, fmt, ap);
	va_end(ap);
	diag->line = line;
	diag->message = (line > 0) ?
		talloc_asprintf(diag, "%s:%u: %s", db->name, line, what) :
		talloc_asprintf(diag, "%s: %s", db->name, what);
	if (what == NULL || diag->message == NULL) {
		talloc_free(diag);
		return;
	}
	if (d->diags_last == NULL) {
		d->diags = diag;
	} else {
		d->diags_last->next = diag;
	}
	d->diags_last = diag;
}

/* ---- parsing one line ---- */

struct field {
	const char *p;
	size_t len;
};

struct parsed {
	const char *why;	/* static text; NULL if the line is good */
	uint32_t uid;
	bool have_hash;
	uint8_t hash[AUTH_NT_HASH_SIZE];
	uint16_t acb;
	uint32_t lct;
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

static int hexval(char c)
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
		int hi = hexval(f.p[2 * i]), lo = hexval(f.p[2 * i + 1]);

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
		int d = hexval(f.p[i]);

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
static void parse_fields(const struct field *f, size_t n, struct parsed *p)
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

static void append_entry(struct passdb_data *d, struct passdb_entry *e)
{
	/* keep a tail pointer: files have thousands of lines */
	e->next = NULL;
	e->prev = d->last;
	if (d->last == NULL) {
		d->entries = e;
	} else {
		d->last->next = e;
	}
	d->last = e;
}

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
	append_entry(d, e);
	return e;
}

static int set_hash(struct passdb_entry *e, const uint8_t *hash)
{
	if (e->nt_hash == NULL) {
		e->nt_hash = talloc_size(e, AUTH_NT_HASH_SIZE);
		if (e->nt_hash == NULL) {
			return -ENOMEM;
		}
		auth_keep_secret(e->nt_hash);
	}
	memcpy(e->nt_hash, hash, AUTH_NT_HASH_SIZE);
	return 0;
}

/* Turn the verbatim line e into an entry named name. */
static int fill_entry(struct passdb_entry *e, const char *name,
		      const uint8_t *key, size_t key_len,
		      const struct parsed *p)
{
	e->name = talloc_strdup(e, name);
	e->key = talloc_memdup(e, key, key_len);
	if (e->name == NULL || e->key == NULL) {
		return -ENOMEM;
	}
	e->key_len = key_len;
	e->uid = p->uid;
	e->acb = p->acb;
	e->lct = p->lct;
	if (p->have_hash) {
		return set_hash(e, p->hash);
	}
	return 0;
}

/* Name checks and duplicates; e is the line as kept verbatim. */
static void parse_entry(struct passdb *db, struct passdb_entry *e,
			const struct field *f, size_t n)
{
	struct parsed p = { 0 };
	char *name = talloc_strndup(e, f[0].p, f[0].len);
	uint8_t *key = NULL;
	size_t key_len = 0;
	struct passdb_entry *dup = NULL;

	if (name == NULL) {
		return;
	}
	parse_fields(f, n, &p);
	if (p.why == NULL && (!name_chars_ok(name, f[0].len) ||
			      name_key(e, name, &key, &key_len) != 0)) {
		p.why = "user name is empty, too long or not UTF-8";
	}
	if (p.why == NULL && (dup = find_key(db->data, key, key_len)) != NULL) {
		add_diag(db, e->line, "duplicate entry for user %s (first at "
			 "line %u), ignored", dup->name, dup->line);
	} else if (p.why != NULL) {
		add_diag(db, e->line, "%s; line ignored", p.why);
	} else if (fill_entry(e, name, key, key_len, &p) == 0) {
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
		add_diag(db, lineno, "line longer than %d bytes; line ignored",
			 PASSDB_MAX_LINE);
		return;
	}
	if (memchr(line, '\0', len) != NULL) {
		add_diag(db, lineno, "NUL byte in the line; line ignored");
		return;
	}
	n = split_fields(e->raw, len, f);
	parse_entry(db, e, f, n);
}

static void parse_text(struct passdb *db, const char *buf, size_t len)
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

/* ---- creating ---- */

static struct passdb *passdb_new(TALLOC_CTX *mem_ctx, const char *name)
{
	struct passdb *db = talloc_zero(mem_ctx, struct passdb);

	if (db == NULL) {
		return NULL;
	}
	db->name = talloc_strdup(db, name);
	db->data = talloc_zero(db, struct passdb_data);
	if (db->name == NULL || db->data == NULL) {
		talloc_free(db);
		return NULL;
	}
	return db;
}

struct passdb *passdb_parse_buffer(TALLOC_CTX *mem_ctx, const char *name,
				   const char *buf, size_t len)
{
	struct passdb *db = passdb_new(mem_ctx, name);

	if (db != NULL) {
		parse_text(db, buf, len);
	}
	return db;
}

static int set_err(TALLOC_CTX *mem_ctx, char **err, int ret,
		   const char *path, const char *what)
{
	if (err != NULL) {
		*err = talloc_asprintf(mem_ctx, "%s: %s%s%s", path,
				       what != NULL ? what : "",
				       what != NULL ? ": " : "",
				       strerror(-ret));
	}
	return ret;
}

/* Read a whole regular file into a wiped buffer; *buf NULL if missing. */
static int read_file(TALLOC_CTX *mem_ctx, const char *path, char **buf,
		     size_t *len, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t got = 0;
	int ret = 0;

	*buf = NULL;
	*len = 0;
	if (fd == -1) {
		return (errno == ENOENT) ? 0 : -errno;
	}
	if (fstat(fd, st) != 0) {
		ret = -errno;
	} else if (!S_ISREG(st->st_mode)) {
		ret = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	} else if (st->st_size > PASSDB_MAX_FILE) {
		ret = -EFBIG;
	} else if ((*buf = talloc_size(mem_ctx, st->st_size + 1)) == NULL) {
		ret = -ENOMEM;
	}
	if (*buf != NULL) {
		auth_keep_secret(*buf);
	}
	while (ret == 0 && got < (size_t)st->st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st->st_size - got);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			/* n == 0: the file shrank under us */
			ret = (n < 0) ? -errno : -EIO;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (ret != 0) {
		TALLOC_FREE(*buf);
	}
	*len = got;
	return ret;
}

/* Read path into a fresh passdb (file identity in st / have_stat). */
static int load_into(TALLOC_CTX *mem_ctx, const char *path,
		     struct passdb **out)
{
	struct passdb *db = passdb_new(mem_ctx, path);
	char *buf = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	if (db == NULL || (db->path = talloc_strdup(db, path)) == NULL) {
		talloc_free(db);
		return -ENOMEM;
	}
	ret = read_file(db, path, &buf, &len, &db->st);
	if (ret != 0) {
		talloc_free(db);
		return ret;
	}
	db->have_stat = (buf != NULL);
	parse_text(db, buf, len);
	TALLOC_FREE(buf);
	if (db->have_stat && (db->st.st_mode & 0077) != 0) {
		add_diag(db, 0, "mode %04o lets other users see the password "
			 "hashes; smbpasswd writes it 0600",
			 (unsigned)(db->st.st_mode & 07777));
	}
	*out = db;
	return 0;
}

int passdb_load(TALLOC_CTX *mem_ctx, const char *path, struct passdb **out,
		char **err)
{
	int ret = load_into(mem_ctx, path, out);

	if (ret != 0) {
		return set_err(mem_ctx, err, ret, path, NULL);
	}
	return 0;
}

const struct passdb_diag *passdb_diags(const struct passdb *db)
{
	return db->data->diags;
}

size_t passdb_num_users(const struct passdb *db)
{
	return db->data->num_users;
}

/* ---- lookups ---- */

NTSTATUS passdb_lookup(const struct passdb *db, const char *user,
		       struct auth_user_entry *out)
{
	const struct passdb_entry *e = find_user(db, user);

	if (e == NULL) {
		return NT_STATUS_NO_SUCH_USER;
	}
	if (!(e->acb & PASSDB_ACB_NORMAL) || e->nt_hash == NULL) {
		return NT_STATUS_LOGON_FAILURE;
	}
	memcpy(out->nt_hash, e->nt_hash, AUTH_NT_HASH_SIZE);
	out->disabled = (e->acb &
			 (PASSDB_ACB_DISABLED | PASSDB_ACB_AUTOLOCK)) != 0;
	return NT_STATUS_OK;
}

int passdb_get_info(const struct passdb *db, const char *user,
		    uint32_t *uid, uint16_t *acb_flags)
{
	const struct passdb_entry *e = find_user(db, user);

	if (e == NULL) {
		return -ENOENT;
	}
	*uid = e->uid;
	*acb_flags = e->acb;
	return 0;
}

static NTSTATUS lookup_cb(void *private_data, const char *user,
			  const char *domain, struct auth_user_entry *out)
{
	struct passdb *db = private_data;
	char *err = NULL;

	(void)domain;
	if (db->path != NULL && passdb_reload_if_changed(db, NULL, &err) < 0) {
		DBG_WARNING("cannot reload the user database, keeping the "
			    "old one: %s\n", err != NULL ? err : "no memory");
		talloc_free(err);
	}
	return passdb_lookup(db, user, out);
}

const struct auth_user_lookup *passdb_user_lookup(struct passdb *db)
{
	db->lookup.fn = lookup_cb;
	db->lookup.private_data = db;
	return &db->lookup;
}

/* ---- editing ---- */

bool passdb_valid_name(const char *user)
{
	uint8_t *key = NULL;
	size_t key_len = 0;
	bool ok;

	if (user == NULL || !name_chars_ok(user, strlen(user))) {
		return false;
	}
	ok = (name_key(NULL, user, &key, &key_len) == 0);
	talloc_free(key);
	return ok;
}

static int check_name(const char *user)
{
	if (user == NULL || !name_chars_ok(user, strlen(user))) {
		return -EINVAL;
	}
	return 0;
}

int passdb_add(struct passdb *db, const char *user, uint32_t uid,
	       const uint8_t nt_hash[AUTH_NT_HASH_SIZE])
{
	struct parsed p = { .uid = uid, .acb = PASSDB_ACB_NORMAL,
			    .lct = (uint32_t)time(NULL) };
	struct passdb_entry *e = NULL;
	uint8_t *key = NULL;
	size_t key_len = 0;
	int ret = check_name(user);

	if (ret == 0) {
		ret = name_key(NULL, user, &key, &key_len);
	}
	if (ret != 0) {
		return ret;
	}
	if (find_key(db->data, key, key_len) != NULL) {
		talloc_free(key);
		return -EEXIST;
	}
	e = talloc_zero(db->data, struct passdb_entry);
	ret = (e == NULL) ? -ENOMEM : fill_entry(e, user, key, key_len, &p);
	if (ret == 0) {
		ret = set_hash(e, nt_hash);
	}
	talloc_free(key);
	if (ret != 0) {
		talloc_free(e);
		return ret;
	}
	append_entry(db->data, e);
	db->data->num_users++;
	return 0;
}

int passdb_set_password(struct passdb *db, const char *user,
			const uint8_t nt_hash[AUTH_NT_HASH_SIZE])
{
	struct passdb_entry *e = find_user(db, user);
	int ret;

	if (e == NULL) {
		return -ENOENT;
	}
	ret = set_hash(e, nt_hash);
	if (ret == 0) {
		e->acb &= ~PASSDB_ACB_PWNOTREQ;
		e->lct = (uint32_t)time(NULL);
	}
	return ret;
}

int passdb_delete(struct passdb *db, const char *user)
{
	struct passdb_entry *e = find_user(db, user);

	if (e == NULL) {
		return -ENOENT;
	}
	if (db->data->last == e) {
		db->data->last = e->prev;
	}
	DLIST_REMOVE_SIMPLE(db->data->entries, e);
	db->data->num_users--;
	talloc_free(e);
	return 0;
}

int passdb_set_disabled(struct passdb *db, const char *user, bool disabled)
{
	struct passdb_entry *e = find_user(db, user);

	if (e == NULL) {
		return -ENOENT;
	}
	if (disabled) {
		e->acb |= PASSDB_ACB_DISABLED;
	} else {
		e->acb &= ~(PASSDB_ACB_DISABLED | PASSDB_ACB_AUTOLOCK);
	}
	return 0;
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

/* ---- saving ---- */

static int write_all(int fd, const char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return (n < 0) ? -errno : -EIO;
		}
		done += (size_t)n;
	}
	return 0;
}

/* mkdir -p: missing parents get 0755, dir itself (the private dir) mode */
static int make_dir(char *dir, mode_t mode)
{
	char *slash = strrchr(dir, '/');
	struct stat st;
	int ret;

	if (stat(dir, &st) == 0) {
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	}
	if (errno != ENOENT) {
		return -errno;
	}
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		ret = make_dir(dir, 0755);
		*slash = '/';
		if (ret != 0) {
			return ret;
		}
	}
	if (mkdir(dir, mode) != 0 && errno != EEXIST) {
		return -errno;
	}
	return 0;
}

static char *dir_of(TALLOC_CTX *mem_ctx, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL) {
		return talloc_strdup(mem_ctx, ".");
	}
	if (slash == path) {
		return talloc_strdup(mem_ctx, "/");
	}
	return talloc_strndup(mem_ctx, path, (size_t)(slash - path));
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd == -1) {
		return -errno;
	}
	if (fsync(fd) != 0 && errno != EINVAL) {
		ret = -errno;
	}
	close(fd);
	return ret;
}

/* Write text to a new temporary file next to path; its name in *tmp. */
static int write_temp(const char *path, const char *text, size_t len,
		      char *tmp, const char **what)
{
	int fd, ret;

	*what = "cannot create a temporary file";
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd == -1) {
		return -errno;
	}
	*what = "cannot write the temporary file";
	ret = (fchmod(fd, 0600) != 0) ? -errno : write_all(fd, text, len);
	if (ret == 0 && fsync(fd) != 0) {
		ret = -errno;
	}
	if (close(fd) != 0 && ret == 0) {
		ret = -errno;
	}
	if (ret == 0 && rename(tmp, path) != 0) {
		*what = "cannot rename the temporary file over it";
		ret = -errno;
	}
	if (ret != 0) {
		unlink(tmp);
	}
	return ret;
}

static int save_text(struct passdb *db, TALLOC_CTX *tmp_ctx,
		     const char *text, size_t len, const char **what)
{
	char *dir = dir_of(tmp_ctx, db->path);
	char *tmp = talloc_asprintf(tmp_ctx, "%s.tmpXXXXXX", db->path);
	int ret;

	if (dir == NULL || tmp == NULL) {
		return -ENOMEM;
	}
	*what = "cannot create its directory";
	ret = make_dir(dir, 0700);
	if (ret == 0) {
		ret = write_temp(db->path, text, len, tmp, what);
	}
	if (ret == 0) {
		*what = "cannot sync its directory";
		ret = sync_dir(dir);
	}
	if (ret == 0 && stat(db->path, &db->st) == 0) {
		db->have_stat = true;
	}
	return ret;
}

int passdb_save(struct passdb *db, TALLOC_CTX *mem_ctx, char **err)
{
	TALLOC_CTX *tmp_ctx = NULL;
	const char *what = NULL;
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (db->path == NULL) {
		return set_err(mem_ctx, err, -EINVAL, db->name, "not a file");
	}
	tmp_ctx = talloc_new(NULL);
	if (tmp_ctx == NULL) {
		return set_err(mem_ctx, err, -ENOMEM, db->path, NULL);
	}
	ret = passdb_format(db, tmp_ctx, &text, &len);
	if (ret == 0) {
		ret = save_text(db, tmp_ctx, text, len, &what);
	}
	talloc_free(tmp_ctx);
	if (ret != 0) {
		return set_err(mem_ctx, err, ret, db->path, what);
	}
	return 0;
}

/* ---- reloading ---- */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int passdb_reload_if_changed(struct passdb *db, TALLOC_CTX *mem_ctx,
			     char **err)
{
	struct passdb *fresh = NULL;
	struct stat st;
	int ret;

	if (db->path == NULL) {
		return set_err(mem_ctx, err, -EINVAL, db->name, "not a file");
	}
	if (stat(db->path, &st) != 0) {
		if (errno != ENOENT) {
			return set_err(mem_ctx, err, -errno, db->path, NULL);
		}
		if (!db->have_stat) {
			return 0;
		}
	} else if (db->have_stat && same_file(&st, &db->st)) {
		return 0;
	}
	ret = load_into(NULL, db->path, &fresh);
	if (ret != 0) {
		return set_err(mem_ctx, err, ret, db->path, NULL);
	}
	talloc_free(db->data);
	db->data = talloc_move(db, &fresh->data);
	db->st = fresh->st;
	db->have_stat = fresh->have_stat;
	talloc_free(fresh);
	return 1;
}

char *passdb_path_from_config(TALLOC_CTX *mem_ctx,
			      const char *smb_passwd_file,
			      const char *private_dir)
{
	if (smb_passwd_file != NULL &&
	    strcmp(smb_passwd_file, LP_DEFAULT_SMB_PASSWD) != 0) {
		return talloc_strdup(mem_ctx, smb_passwd_file);
	}
	if (private_dir == NULL) {
		private_dir = LP_DEFAULT_PRIVATE_DIR;
	}
	return talloc_asprintf(mem_ctx, "%s/smbpasswd", private_dir);
}
