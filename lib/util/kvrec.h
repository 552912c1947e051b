/*
 * Key-value records: the text smbd's control socket answers in
 * (source3/smbd/server/control.c) and smbstatus/smbcontrol read.
 *
 * One record per line: a type, then TAB-separated key=value fields:
 *   open<TAB>share=data<TAB>name=dir/a\tb.txt<TAB>access=0x12019f
 * Keys are [a-z0-9_]; in values a backslash, and any byte below 0x20
 * or 0x7f, is escaped (\\, \t, \n, \xHH), so a file name with a TAB or
 * a newline cannot make a field or a record of its own.
 */
#ifndef RINGSMB_KVREC_H
#define RINGSMB_KVREC_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>

/* A growing text; once an allocation failed, failed stays set. */
struct kvrec_buf {
	char *s;
	size_t len;
	bool failed;
};

/* Starts a record of this type (a line of its own). */
void kvrec_begin(struct kvrec_buf *b, TALLOC_CTX *mem_ctx, const char *type);
/* Adds key=value to the record begun last. */
void kvrec_add(struct kvrec_buf *b, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Ends the open record's line: call before using b->s. */
void kvrec_end(struct kvrec_buf *b, TALLOC_CTX *mem_ctx);
/* Appends raw text (a header line such as "ok\n"). */
void kvrec_raw(struct kvrec_buf *b, TALLOC_CTX *mem_ctx, const char *text);

struct kvrec_field {
	char *key;
	char *value;
};

struct kvrec {
	char *type;
	struct kvrec_field *fields;
	size_t num_fields;
};

/*
 * Parses len bytes of records (each line ends with '\n'; a last line
 * without one counts too).  0, or -1 on a malformed line (*err says
 * which and why).  Empty lines are skipped.
 */
int kvrec_parse(TALLOC_CTX *mem_ctx, const char *text, size_t len,
		struct kvrec **recs, size_t *num, char **err);

/* The value of key in r, or NULL. */
const char *kvrec_get(const struct kvrec *r, const char *key);

#endif
