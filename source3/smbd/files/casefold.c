/*
 * Case-insensitive name lookup (casefold.h has the matching rule).
 *
 * Only misses pay: CREATE and rename first try the name as spelled
 * (create_open.c, commands/set_info_name.c), and come here when it is not
 * there.  The walk re-checks each component from the share root, then
 * lists the parent of each missing one once, so the work is one
 * directory scan per missing component, linear in the entries, unless
 * casefold_dirs.c keeps the directory's names (then a hash lookup).  Every
 * open goes through vfs_openat (openat2 RESOLVE_BENEATH): a name found
 * here is a directory entry of a directory beneath the root, never '/',
 * '.' or '..', and a symlink among the components is still resolved by
 * the kernel beneath the root, or refused.
 */
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <wctype.h>
#include "lib/param/param.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/casefold.h"
#include "source3/smbd/files/casefold_dirs.h"

/* A byte that is not UTF-8 stands for itself, above every code point */
#define CF_RAW 0x110000u

static locale_t cf_loc;
static pthread_once_t cf_once = PTHREAD_ONCE_INIT;

/* C.UTF-8 for the wide-character case maps; (locale_t)0 if missing */
static void cf_locale_init(void)
{
	cf_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

bool casefold_share(const struct lp_share *share)
{
	return share == NULL || share->case_sensitive != LP_CASE_YES;
}

bool casefold_preserve(const struct lp_share *share)
{
	return share == NULL || share->preserve_case;
}

/* Continuation bytes after a lead byte; 0: not a valid lead */
static size_t cf_tail(unsigned char lead)
{
	if (lead >= 0xC2 && lead <= 0xDF) {
		return 1;
	}
	if (lead >= 0xE0 && lead <= 0xEF) {
		return 2;
	}
	if (lead >= 0xF0 && lead <= 0xF4) {
		return 3;
	}
	return 0;
}

static bool cf_scalar_ok(uint32_t c, size_t tail)
{
	static const uint32_t least[] = { 0, 0x80, 0x800, 0x10000 };

	return c >= least[tail] && c <= 0x10FFFF &&
	       (c < 0xD800 || c > 0xDFFF);
}

/* The next character of *s (not at its NUL), moving *s past it. */
static uint32_t cf_next(const unsigned char **s)
{
	const unsigned char *p = *s;
	size_t n = cf_tail(p[0]);
	uint32_t c = p[0] & (0x3Fu >> n);
	size_t i;

	if (p[0] < 0x80) {
		*s = p + 1;
		return p[0];
	}
	for (i = 1; i <= n; i++) {
		if ((p[i] & 0xC0) != 0x80) {
			break;
		}
		c = (c << 6) | (p[i] & 0x3F);
	}
	if (n == 0 || i <= n || !cf_scalar_ok(c, n)) {
		*s = p + 1;
		return CF_RAW + p[0];
	}
	*s = p + n + 1;
	return c;
}

/* Without C.UTF-8: Latin-1's letters and the few that leave it */
static uint32_t cf_key_latin1(uint32_t c)
{
	if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) {
		return c + 0x20;
	}
	if (c == 0x178) {
		return 0xFF;            /* Y with diaeresis */
	}
	if (c == 0xB5 || c == 0x39C) {
		return 0x3BC;           /* micro sign, Greek mu */
	}
	return c;
}

static uint32_t cf_key(uint32_t c)
{
	if (c < 0x80) {
		return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
	}
	if (c >= CF_RAW) {
		return c;
	}
	pthread_once(&cf_once, cf_locale_init);
	if (cf_loc == (locale_t)0) {
		return cf_key_latin1(c);
	}
	return (uint32_t)towlower_l(towupper_l((wint_t)c, cf_loc), cf_loc);
}

bool casefold_equal(const char *a, const char *b)
{
	const unsigned char *pa = (const unsigned char *)a;
	const unsigned char *pb = (const unsigned char *)b;

	while (*pa != '\0' && *pb != '\0') {
		if (cf_key(cf_next(&pa)) != cf_key(cf_next(&pb))) {
			return false;
		}
	}
	return *pa == '\0' && *pb == '\0';
}

uint32_t casefold_hash(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	uint32_t h = 2166136261u;       /* FNV-1a over the keys */

	while (*p != '\0') {
		h = (h ^ cf_key(cf_next(&p))) * 16777619u;
	}
	return h;
}

/* c as UTF-8 at out (room for 4); returns the bytes written */
static size_t cf_put(uint32_t c, char *out)
{
	unsigned char *o = (unsigned char *)out;

	if (c >= CF_RAW || c < 0x80) {
		o[0] = (unsigned char)(c >= CF_RAW ? c - CF_RAW : c);
		return 1;
	}
	if (c < 0x800) {
		o[0] = 0xC0 | (c >> 6);
		o[1] = 0x80 | (c & 0x3F);
		return 2;
	}
	if (c < 0x10000) {
		o[0] = 0xE0 | (c >> 12);
		o[1] = 0x80 | ((c >> 6) & 0x3F);
		o[2] = 0x80 | (c & 0x3F);
		return 3;
	}
	o[0] = 0xF0 | (c >> 18);
	o[1] = 0x80 | ((c >> 12) & 0x3F);
	o[2] = 0x80 | ((c >> 6) & 0x3F);
	o[3] = 0x80 | (c & 0x3F);
	return 4;
}

static uint32_t cf_lower(uint32_t c)
{
	if (c < 0x80 || c >= CF_RAW) {
		return cf_key(c);
	}
	pthread_once(&cf_once, cf_locale_init);
	if (cf_loc == (locale_t)0) {
		return (c >= 0xC0 && c <= 0xDE && c != 0xD7) ? c + 0x20 : c;
	}
	return (uint32_t)towlower_l((wint_t)c, cf_loc);
}

char *casefold_lower(TALLOC_CTX *mem_ctx, const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	/* a lowered character may take more bytes: at most 4 per byte */
	char *out = talloc_array(mem_ctx, char, strlen(name) * 4 + 1);
	size_t len = 0;

	if (out == NULL) {
		return NULL;
	}
	while (*p != '\0') {
		len += cf_put(cf_lower(cf_next(&p)), out + len);
	}
	out[len] = '\0';
	return out;
}

static char *cf_join(TALLOC_CTX *mem_ctx, const char *dir, const char *name)
{
	return talloc_asprintf(mem_ctx, "%s%s%s", dir, dir[0] ? "/" : "",
			       name);
}

/* Keeps the bytewise-least of the matches seen, so the pick is stable. */
static NTSTATUS cf_consider(TALLOC_CTX *mem_ctx, const char *entry,
			    const char *name, char **best)
{
	if (!casefold_equal(entry, name) ||
	    (*best != NULL && strcmp(entry, *best) >= 0)) {
		return NT_STATUS_OK;
	}
	talloc_free(*best);
	*best = talloc_strdup(mem_ctx, entry);
	return *best != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/*
 * dir's entry matching name, or *found NULL: none, or dir cannot be
 * listed (then the caller's open says why).
 */
static NTSTATUS cf_scan(TALLOC_CTX *mem_ctx, struct vfs_handle *vfs,
			const char *dir, const char *name, char **found)
{
	struct vfs_fh *fh = NULL;
	struct vfs_dir *d = NULL;
	struct vfs_dirent ent;
	struct statx st;
	NTSTATUS status = vfs_openat(mem_ctx, vfs, dir,
				     O_RDONLY | O_DIRECTORY, &fh, &st);

	*found = NULL;
	if (NT_STATUS_IS_OK(status) &&
	    casefold_dirs_find(mem_ctx, fh, &st, name, found, &status)) {
		talloc_free(fh);
		return status;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_opendir(fh, fh, &d);
	}
	while (NT_STATUS_IS_OK(status) &&
	       NT_STATUS_IS_OK(vfs_readdir(d, &ent))) {
		status = cf_consider(mem_ctx, ent.name, name, found);
	}
	talloc_free(fh);
	if (NT_STATUS_EQUAL(status, NT_STATUS_NO_MEMORY)) {
		return status;
	}
	return NT_STATUS_OK;
}

/*
 * One component: name as spelled if it is there, else its match in dir;
 * *stuck when neither (or dir cannot be looked into).
 */
static NTSTATUS cf_step(TALLOC_CTX *mem_ctx, struct vfs_handle *vfs,
			const char *dir, const char *name, char **next,
			bool *stuck)
{
	struct vfs_fh *fh = NULL;
	char *found = NULL;
	NTSTATUS status;

	*next = cf_join(mem_ctx, dir, name);
	if (*next == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_openat(mem_ctx, vfs, *next, O_PATH, &fh, NULL);
	TALLOC_FREE(fh);
	if (NT_STATUS_IS_OK(status)) {
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND)) {
		*stuck = true;          /* ENOTDIR, EXDEV, EACCES ... */
		return NT_STATUS_OK;
	}
	status = cf_scan(mem_ctx, vfs, dir, name, &found);
	if (!NT_STATUS_IS_OK(status) || found == NULL) {
		*stuck = true;
		return status;
	}
	*next = cf_join(mem_ctx, dir, found);
	return *next != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

NTSTATUS casefold_resolve(TALLOC_CTX *mem_ctx, struct vfs_handle *vfs,
			  const char *path, char **out)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	char *rest = tmp ? talloc_strdup(tmp, path) : NULL;
	char *done = tmp ? talloc_strdup(tmp, "") : NULL;
	char *save = NULL;
	char *c = NULL;
	bool stuck = false;
	NTSTATUS status = NT_STATUS_OK;

	if (rest == NULL || done == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	for (c = strtok_r(rest, "/", &save);
	     c != NULL && NT_STATUS_IS_OK(status);
	     c = strtok_r(NULL, "/", &save)) {
		if (stuck) {
			done = cf_join(tmp, done, c);
			status = done ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
		} else {
			status = cf_step(tmp, vfs, done, c, &done, &stuck);
		}
	}
	if (NT_STATUS_IS_OK(status)) {
		*out = talloc_steal(mem_ctx, done);
	}
	talloc_free(tmp);
	return status;
}
