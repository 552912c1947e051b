/*
 * The smbpasswd database in memory: names and their lookup keys,
 * diagnostics, lookups and edits.  The line format is passdb_text.c's,
 * the file passdb_file.c's (passdb_private.h).
 *
 * The database is the file's lines in order.  A line is either a valid
 * entry (name set) or kept verbatim (comment, blank or malformed line).
 * Everything that holds a hash, including verbatim lines and formatted
 * text, is a talloc chunk wiped when freed.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "lib/auth/auth_private.h"
#include "lib/auth/passdb_private.h"
#include "lib/util/debug.h"
#include "lib/util/dlist.h"

/* ---- names ---- */

bool passdb_name_chars_ok(const char *name, size_t len)
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
int passdb_name_key(TALLOC_CTX *mem_ctx, const char *name, uint8_t **key,
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

struct passdb_entry *passdb_find_key(const struct passdb_data *d,
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

	if (user == NULL || passdb_name_key(NULL, user, &key, &key_len) != 0) {
		return NULL;
	}
	e = passdb_find_key(db->data, key, key_len);
	talloc_free(key);
	return e;
}

/* ---- diagnostics ---- */

void passdb_add_diag(struct passdb *db, unsigned line, const char *fmt, ...)
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

/* ---- building the line list ---- */

void passdb_append_entry(struct passdb_data *d, struct passdb_entry *e)
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
int passdb_fill_entry(struct passdb_entry *e, const char *name,
		      const uint8_t *key, size_t key_len,
		      const struct passdb_parsed *p)
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

/* ---- creating ---- */

struct passdb *passdb_new(TALLOC_CTX *mem_ctx, const char *name)
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
		passdb_parse_text(db, buf, len);
	}
	return db;
}

const struct passdb_diag *passdb_diags(const struct passdb *db)
{
	return db->data->diags;
}

size_t passdb_num_users(const struct passdb *db)
{
	return db->data->num_users;
}

uint64_t passdb_generation(const struct passdb *db)
{
	return db->generation;
}

void passdb_foreach_user(const struct passdb *db,
			 void (*fn)(const char *name, uint32_t uid,
				    void *private_data),
			 void *private_data)
{
	const struct passdb_entry *e;

	for (e = db->data->entries; e != NULL; e = e->next) {
		if (e->name != NULL) {
			fn(e->name, e->uid, private_data);
		}
	}
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

	if (user == NULL || !passdb_name_chars_ok(user, strlen(user))) {
		return false;
	}
	ok = (passdb_name_key(NULL, user, &key, &key_len) == 0);
	talloc_free(key);
	return ok;
}

static int check_name(const char *user)
{
	if (user == NULL || !passdb_name_chars_ok(user, strlen(user))) {
		return -EINVAL;
	}
	return 0;
}

int passdb_add(struct passdb *db, const char *user, uint32_t uid,
	       const uint8_t nt_hash[AUTH_NT_HASH_SIZE])
{
	struct passdb_parsed p = { .uid = uid, .acb = PASSDB_ACB_NORMAL,
			    .lct = (uint32_t)time(NULL) };
	struct passdb_entry *e = NULL;
	uint8_t *key = NULL;
	size_t key_len = 0;
	int ret = check_name(user);

	if (ret == 0) {
		ret = passdb_name_key(NULL, user, &key, &key_len);
	}
	if (ret != 0) {
		return ret;
	}
	if (passdb_find_key(db->data, key, key_len) != NULL) {
		talloc_free(key);
		return -EEXIST;
	}
	e = talloc_zero(db->data, struct passdb_entry);
	ret = (e == NULL) ? -ENOMEM :
			    passdb_fill_entry(e, user, key, key_len, &p);
	if (ret == 0) {
		ret = set_hash(e, nt_hash);
	}
	talloc_free(key);
	if (ret != 0) {
		talloc_free(e);
		return ret;
	}
	passdb_append_entry(db->data, e);
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

