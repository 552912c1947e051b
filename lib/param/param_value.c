/*
 * Parameter values: parsing smb.conf text into struct fields, formatting
 * fields back into smb.conf text, and describing what a type expects.
 * One codec per enum lp_type, in a table.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib/param/param_private.h"
#include "lib/util/debug.h"

#define FIELD(base, ofs, type) ((type *)((char *)(base) + (ofs)))
#define CFIELD(base, ofs, type) \
	((type const *)((const char *)(base) + (ofs)))

struct lp_parse_args {
	TALLOC_CTX *owner;
	const struct lp_param *p;
	void *base;
	const char *value;
	bool invert;
	const char **warning;
};

struct lp_codec {
	bool (*parse)(const struct lp_parse_args *a);
	char *(*format)(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			const void *base);
	char *(*expected)(TALLOC_CTX *mem_ctx, const struct lp_param *p);
};

static bool lp_parse_int_base(const char *s, int base, int min, int max,
			      int *out)
{
	char *end = NULL;
	long v;

	if (*s == '\0' || isspace((unsigned char)*s)) {
		return false;
	}
	errno = 0;
	v = strtol(s, &end, base);
	if (errno != 0 || *end != '\0' || v < min || v > max) {
		return false;
	}
	*out = (int)v;
	return true;
}

static bool lp_parse_int_range(const char *s, int min, int max, int *out)
{
	return lp_parse_int_base(s, 10, min, max, out);
}

/* ---- bool ---- */

bool lp_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "1", "on", NULL };
	static const char *const no[] = { "no", "false", "0", "off", NULL };
	size_t i;

	for (i = 0; yes[i] != NULL; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

static bool bool_parse(const struct lp_parse_args *a)
{
	bool v;

	if (!lp_parse_bool(a->value, &v)) {
		return false;
	}
	*FIELD(a->base, a->p->offset, bool) = a->invert ? !v : v;
	return true;
}

static char *bool_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			 const void *base)
{
	bool v = *CFIELD(base, p->offset, bool);

	return talloc_strdup(mem_ctx, v ? "yes" : "no");
}

static char *bool_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	return talloc_strdup(mem_ctx, "a boolean (yes/no)");
}

/* ---- int ---- */

static bool int_parse(const struct lp_parse_args *a)
{
	return lp_parse_int_range(a->value, a->p->min, a->p->max,
				  FIELD(a->base, a->p->offset, int));
}

static char *int_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			const void *base)
{
	return talloc_asprintf(mem_ctx, "%d", *CFIELD(base, p->offset, int));
}

static char *int_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	return talloc_asprintf(mem_ctx, "an integer from %d to %d",
			       p->min, p->max);
}

/* ---- octal (modes: "0744") ---- */

static bool octal_parse(const struct lp_parse_args *a)
{
	return lp_parse_int_base(a->value, 8, 0, 07777,
				 FIELD(a->base, a->p->offset, int));
}

static char *octal_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			  const void *base)
{
	return talloc_asprintf(mem_ctx, "0%03o",
			       *CFIELD(base, p->offset, int));
}

static char *octal_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	return talloc_strdup(mem_ctx, "an octal mode from 0 to 07777");
}

/* ---- string ---- */

static bool string_parse(const struct lp_parse_args *a)
{
	size_t len = strlen(a->value);
	char *s = NULL;
	size_t i;

	if (a->p->max_len != 0 && (len == 0 || len > a->p->max_len)) {
		return false;
	}
	s = talloc_strdup(a->owner, a->value);
	if (s == NULL) {
		return false;
	}
	for (i = 0; (a->p->flags & LP_FLAG_UPPER) && i < len; i++) {
		s[i] = toupper((unsigned char)s[i]);
	}
	*FIELD(a->base, a->p->offset, const char *) = s;
	return true;
}

static char *string_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			   const void *base)
{
	const char *s = *CFIELD(base, p->offset, const char *);

	return talloc_strdup(mem_ctx, s != NULL ? s : "");
}

static char *string_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	if (p->max_len == 0) {
		return talloc_strdup(mem_ctx, "a string");
	}
	return talloc_asprintf(mem_ctx, "1 to %zu characters", p->max_len);
}

/* ---- list ---- */

/* Samba's LIST_SEP: blanks, ',' and ';' */
static bool list_sep(char c)
{
	return c == ',' || c == ';' || isspace((unsigned char)c);
}

/* One item starting at *sp; double quotes group, and are removed. */
static char *list_next(TALLOC_CTX *mem_ctx, const char **sp)
{
	const char *s = *sp;
	const char *end = NULL;
	bool quoted = false;
	char *item = NULL;
	size_t n = 0;

	while (list_sep(*s)) {
		s++;
	}
	for (end = s; *end != '\0' && (quoted || !list_sep(*end)); end++) {
		quoted = (*end == '"') ? !quoted : quoted;
	}
	item = talloc_array(mem_ctx, char, end - s + 1);
	if (item == NULL) {
		return NULL;
	}
	for (; s < end; s++) {
		if (*s != '"') {
			item[n++] = *s;
		}
	}
	item[n] = '\0';
	*sp = end;
	return item;
}

/* Samba list syntax: items separated by blanks or commas; never NULL
 * unless out of memory; empty items are dropped. */
const char **lp_list_parse(TALLOC_CTX *mem_ctx, const char *s)
{
	const char **list = talloc_zero_array(mem_ctx, const char *, 1);
	size_t n = 0;

	while (list != NULL && *s != '\0') {
		char *item = list_next(list, &s);

		if (item == NULL) {
			return NULL;
		}
		if (item[0] == '\0') {
			talloc_free(item);
			continue;
		}
		list = talloc_realloc(mem_ctx, list, const char *, n + 2);
		if (list != NULL) {
			list[n++] = item;
			list[n] = NULL;
		}
	}
	return list;
}

static bool list_parse(const struct lp_parse_args *a)
{
	const char **l = lp_list_parse(a->owner, a->value);

	if (l == NULL) {
		return false;
	}
	*FIELD(a->base, a->p->offset, const char **) = l;
	return true;
}

/* Quote what would split, and a trailing '\' that would continue the
 * line when the item is written last. */
static bool needs_quotes(const char *s)
{
	size_t len = strlen(s);
	size_t i;

	for (i = 0; i < len; i++) {
		if (list_sep(s[i])) {
			return true;
		}
	}
	return len > 0 && s[len - 1] == '\\';
}

static char *list_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			 const void *base)
{
	const char *const *l = *CFIELD(base, p->offset, const char **);
	char *s = talloc_strdup(mem_ctx, "");

	for (; l != NULL && *l != NULL; l++) {
		const char *q = needs_quotes(*l) ? "\"" : "";

		s = talloc_asprintf_append_buffer(s, "%s%s%s%s",
						  s[0] != '\0' ? " " : "",
						  q, *l, q);
	}
	return s;
}

static char *list_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	return talloc_strdup(mem_ctx, "a list");
}

/* ---- enum ---- */

static bool enum_parse(const struct lp_parse_args *a)
{
	const struct lp_enum_val *e = a->p->enums;

	for (; e->name != NULL; e++) {
		if (lp_name_eq(a->value, e->name)) {
			*FIELD(a->base, a->p->offset, int) = e->value;
			return true;
		}
	}
	return false;
}

static char *enum_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			 const void *base)
{
	int v = *CFIELD(base, p->offset, int);
	const struct lp_enum_val *e = p->enums;

	for (; e->name != NULL; e++) {
		if (e->value == v) {
			return talloc_strdup(mem_ctx, e->name);
		}
	}
	return talloc_asprintf(mem_ctx, "%d", v);
}

/* Lists the canonical name of each value. */
static char *enum_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	const struct lp_enum_val *e = NULL;
	char *s = talloc_strdup(mem_ctx, "one of");
	const char *sep = " ";

	for (e = p->enums; e->name != NULL; e++) {
		const struct lp_enum_val *f = p->enums;

		while (f->value != e->value) {
			f++;
		}
		if (f == e) {
			s = talloc_asprintf_append_buffer(s, "%s%s", sep,
							  e->name);
			sep = ", ";
		}
	}
	return s;
}

/* ---- ports ---- */

static bool ports_parse(const struct lp_parse_args *a)
{
	const char **l = lp_list_parse(a->owner, a->value);
	uint16_t *ports = NULL;
	size_t n = talloc_array_length(l) - 1;
	size_t i;
	int v;

	if (l == NULL || n == 0 ||
	    (ports = talloc_array(a->owner, uint16_t, n)) == NULL) {
		talloc_free(l);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (!lp_parse_int_range(l[i], 1, 65535, &v)) {
			talloc_free(l);
			talloc_free(ports);
			return false;
		}
		ports[i] = (uint16_t)v;
	}
	talloc_free(l);
	*FIELD(a->base, a->p->offset, uint16_t *) = ports;
	*FIELD(a->base, a->p->count_offset, size_t) = n;
	return true;
}

static char *ports_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			  const void *base)
{
	const uint16_t *ports = *CFIELD(base, p->offset, uint16_t *);
	size_t n = *CFIELD(base, p->count_offset, size_t);
	char *s = talloc_strdup(mem_ctx, "");
	size_t i;

	for (i = 0; i < n; i++) {
		s = talloc_asprintf_append_buffer(s, "%s%u", i ? " " : "",
						  (unsigned)ports[i]);
	}
	return s;
}

static char *ports_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	return talloc_strdup(mem_ctx, "a list of TCP ports (1 to 65535)");
}

/* ---- protocol ---- */

static const struct {
	const char *name;
	uint16_t min, max;      /* "SMB2" means 2.02 as a minimum, 2.10 max */
} lp_protocols[] = {
	{ "SMB2_02", LP_DIALECT_SMB2_02, LP_DIALECT_SMB2_02 },
	{ "SMB2_10", LP_DIALECT_SMB2_10, LP_DIALECT_SMB2_10 },
	{ "SMB3_00", LP_DIALECT_SMB3_00, LP_DIALECT_SMB3_00 },
	{ "SMB3_02", LP_DIALECT_SMB3_02, LP_DIALECT_SMB3_02 },
	{ "SMB3_11", LP_DIALECT_SMB3_11, LP_DIALECT_SMB3_11 },
	{ "SMB2", LP_DIALECT_SMB2_02, LP_DIALECT_SMB2_10 },
	{ "SMB3", LP_DIALECT_SMB3_00, LP_DIALECT_SMB3_11 },
};

static const char *const lp_smb1_protocols[] = {
	"NT1", "LANMAN2", "LANMAN1", "COREPLUS", "CORE", NULL,
};

const char *lp_dialect_name(uint16_t dialect)
{
	size_t i;

	for (i = 0; i < 5; i++) {
		if (lp_protocols[i].min == dialect) {
			return lp_protocols[i].name;
		}
	}
	return "unknown";
}

static bool protocol_smb1(const struct lp_parse_args *a, uint16_t *v)
{
	size_t i;

	for (i = 0; lp_smb1_protocols[i] != NULL; i++) {
		if (strcasecmp(a->value, lp_smb1_protocols[i]) == 0) {
			*a->warning = "SMB1 is never served: using SMB2_02";
			*v = LP_DIALECT_SMB2_02;
			return true;
		}
	}
	return false;
}

static bool protocol_parse(const struct lp_parse_args *a)
{
	bool is_max = (a->p->flags & LP_FLAG_PROTO_MAX) != 0;
	uint16_t *v = FIELD(a->base, a->p->offset, uint16_t);
	size_t i;

	for (i = 0; i < sizeof(lp_protocols) / sizeof(lp_protocols[0]); i++) {
		if (strcasecmp(a->value, lp_protocols[i].name) == 0) {
			*v = is_max ? lp_protocols[i].max : lp_protocols[i].min;
			return true;
		}
	}
	return protocol_smb1(a, v);
}

static char *protocol_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			     const void *base)
{
	uint16_t v = *CFIELD(base, p->offset, uint16_t);

	return talloc_strdup(mem_ctx, lp_dialect_name(v));
}

static char *protocol_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	return talloc_strdup(mem_ctx, "one of SMB2, SMB2_02, SMB2_10, SMB3, "
			     "SMB3_00, SMB3_02, SMB3_11");
}

/*
 * log level: "3 auth:5 passdb:10", Samba's syntax (lib/util/debug.c
 * parses it).  The first number is also kept as an int.  An unknown
 * class is a warning, as Samba only logs it; the rest applies.
 */
static bool loglevel_parse(const struct lp_parse_args *a)
{
	int levels[DBGC_COUNT];
	char unknown[64];
	char *text = NULL;

	if (!debug_parse_levels(a->value, levels, unknown,
				sizeof(unknown))) {
		return false;
	}
	text = talloc_strdup(a->owner, a->value);
	if (text == NULL) {
		return false;
	}
	if (unknown[0] != '\0') {
		*a->warning = talloc_asprintf(a->owner, "unknown debug class "
					      "or malformed item \"%s\" "
					      "(ignored)", unknown);
	}
	*FIELD(a->base, a->p->offset, int) = levels[DBGC_ALL];
	*FIELD(a->base, a->p->text_offset, const char *) = text;
	return true;
}

static char *loglevel_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
			     const void *base)
{
	const char *s = *CFIELD(base, p->text_offset, const char *);

	return talloc_strdup(mem_ctx, s != NULL ? s : "");
}

static char *loglevel_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	return talloc_asprintf(mem_ctx, "a level from 0 to %d, then "
			       "CLASS:LEVEL items", DEBUG_MAX_LEVEL);
}

/* ---- logging: "file syslog@1 systemd", Samba's backends ---- */

static bool logging_parse(const struct lp_parse_args *a)
{
	char bad[64];
	char *s = NULL;

	if (!debug_parse_logging(a->value, bad, sizeof(bad))) {
		return false;
	}
	s = talloc_strdup(a->owner, a->value);
	if (s == NULL) {
		return false;
	}
	*FIELD(a->base, a->p->offset, const char *) = s;
	return true;
}

static char *logging_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	return talloc_strdup(mem_ctx, "backends from file, syslog and "
			     "systemd, each optionally @LEVEL");
}

static const struct lp_codec lp_codecs[] = {
	[LP_BOOL] = { bool_parse, bool_format, bool_expected },
	[LP_INT] = { int_parse, int_format, int_expected },
	[LP_OCTAL] = { octal_parse, octal_format, octal_expected },
	[LP_STRING] = { string_parse, string_format, string_expected },
	[LP_LIST] = { list_parse, list_format, list_expected },
	[LP_ENUM] = { enum_parse, enum_format, enum_expected },
	[LP_PORTS] = { ports_parse, ports_format, ports_expected },
	[LP_PROTOCOL] = { protocol_parse, protocol_format, protocol_expected },
	[LP_LOGLEVEL] = { loglevel_parse, loglevel_format, loglevel_expected },
	[LP_LOGGING] = { logging_parse, string_format, logging_expected },
};

bool lp_value_parse(TALLOC_CTX *owner, const struct lp_param *p,
		    void *base, const char *value, bool invert,
		    const char **warning)
{
	struct lp_parse_args a = {
		.owner = owner, .p = p, .base = base, .value = value,
		.invert = invert, .warning = warning,
	};

	*warning = NULL;
	return lp_codecs[p->type].parse(&a);
}

char *lp_value_format(TALLOC_CTX *mem_ctx, const struct lp_param *p,
		      const void *base)
{
	return lp_codecs[p->type].format(mem_ctx, p, base);
}

char *lp_value_expected(TALLOC_CTX *mem_ctx, const struct lp_param *p)
{
	return lp_codecs[p->type].expected(mem_ctx, p);
}
