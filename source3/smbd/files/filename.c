/*
 * CREATE names: UTF-16LE with '\' separators on the wire, share-relative
 * '/'-separated UTF-8 for the VFS.  The checks here are syntax only; the
 * VFS (openat2 RESOLVE_BENEATH) is what keeps symlinks inside the share.
 */
#include <string.h>
#include <strings.h>
#include "lib/smb2/streams.h"
#include "lib/util/byteorder.h"
#include "source3/smbd/files/filename.h"

/* MS-SMB2 2.2.13: NameLength is 16 bits; MS-FSCC caps paths at 32767 */
#define FN_MAX_PATH_CHARS 32767
/* What Linux file systems take per component (NAME_MAX) */
#define FN_MAX_COMPONENT 255

/* Characters Windows forbids in names (MS-FSCC 2.1.5.2), wildcards too */
static bool fn_char_ok(unsigned char c)
{
	return c >= 0x20 && strchr("/*?<>\"|", c) == NULL;
}

static bool fn_component_ok(const char *c)
{
	size_t len = strlen(c);
	size_t i;

	if (len == 0 || len > FN_MAX_COMPONENT) {
		return false;
	}
	for (i = 0; i < len; i++) {
		if (!fn_char_ok((unsigned char)c[i]) || c[i] == ':') {
			return false;
		}
	}
	return true;
}

/*
 * The last component may name a stream (lib/smb2/streams.c has the
 * syntax): "x::$DATA" is x's default stream (*is_stream); "x:s" and
 * "x:s:$DATA" name the stream s, returned in *stream.
 */
static NTSTATUS fn_stream(TALLOC_CTX *mem_ctx, char *c, bool *is_stream,
			  char **stream)
{
	char *colon = strchr(c, ':');
	struct smb2_stream_name sn;
	NTSTATUS status;

	if (colon == NULL) {
		return NT_STATUS_OK;
	}
	*colon = '\0';
	status = smb2_stream_name_parse(colon + 1, strlen(colon + 1), &sn);
	if (!NT_STATUS_IS_OK(status) || c[0] == '\0') {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	if (sn.len == 0) {
		*is_stream = true;
		return NT_STATUS_OK;
	}
	*stream = talloc_strndup(mem_ctx, sn.name, sn.len);
	return *stream != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/* Appends or pops one component of the path being built. */
static NTSTATUS fn_push(const char **stack, size_t *depth, const char *c)
{
	if (strcmp(c, ".") == 0) {
		return NT_STATUS_OK;
	}
	if (strcmp(c, "..") == 0) {
		if (*depth == 0) {
			/*
			 * above the share root (CVE-2015-5252's family):
			 * Samba's status (smb2.mkdir "..\\..\\..")
			 */
			return NT_STATUS_OBJECT_PATH_SYNTAX_BAD;
		}
		(*depth)--;
		return NT_STATUS_OK;
	}
	if (!fn_component_ok(c)) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	stack[(*depth)++] = c;
	return NT_STATUS_OK;
}

static char *fn_join(TALLOC_CTX *mem_ctx, const char **stack, size_t depth)
{
	char *path = talloc_strdup(mem_ctx, "");
	size_t i;

	for (i = 0; path != NULL && i < depth; i++) {
		path = talloc_asprintf_append_buffer(path, "%s%s",
						     i > 0 ? "/" : "",
						     stack[i]);
	}
	return path;
}

static void fn_slashes(char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '/') {
			*s = '\\';
		}
	}
}

static size_t fn_count(const char *s, char c)
{
	size_t n = 0;

	for (; *s != '\0'; s++) {
		n += (*s == c);
	}
	return n;
}

/* Splits s (modified in place) at '\' into the component stack. */
static NTSTATUS fn_split(TALLOC_CTX *mem_ctx, char *s, const char **stack,
			 size_t *depth, bool *is_stream, char **stream)
{
	size_t len = strlen(s);
	char *p = s;

	/* "dir\" names dir, as for Windows */
	if (len > 0 && s[len - 1] == '\\') {
		s[len - 1] = '\0';
		if (len == 1) {
			return NT_STATUS_OBJECT_NAME_INVALID;
		}
	}
	while (*p != '\0') {
		char *sep = strchr(p, '\\');
		NTSTATUS status;

		if (sep != NULL) {
			*sep = '\0';
		} else {
			status = fn_stream(mem_ctx, p, is_stream, stream);
			if (!NT_STATUS_IS_OK(status)) {
				return status;
			}
		}
		status = fn_push(stack, depth, p);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		if (sep == NULL) {
			break;
		}
		p = sep + 1;
		if (*p == '\0') {
			return NT_STATUS_OBJECT_NAME_INVALID;   /* "a\\" */
		}
	}
	return NT_STATUS_OK;
}

NTSTATUS smbd_filename_convert_stream(TALLOC_CTX *mem_ctx,
				      const struct smb2_blob *name16,
				      char **path, bool *is_stream,
				      char **stream)
{
	TALLOC_CTX *tmp = NULL;
	const char **stack = NULL;
	size_t depth = 0;
	char *s = NULL;
	NTSTATUS status;

	*is_stream = false;
	*stream = NULL;
	if (name16->len / 2 > FN_MAX_PATH_CHARS) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	/* MS-SMB2 3.3.5.9: a name starting with '\' is invalid ('/' too) */
	if (name16->len >= 2 && (pull_le16(name16->data) == '\\' ||
				 pull_le16(name16->data) == '/')) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	tmp = talloc_new(mem_ctx);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = smb2_utf16_to_utf8(tmp, name16->data, name16->len, &s);
	if (NT_STATUS_IS_OK(status)) {
		/*
		 * '/' separates components as '\' does, as Samba reads it
		 * (smbtorture's smb2.timestamps names "dir/file"); it can
		 * never be part of a name on Linux anyway
		 */
		fn_slashes(s);
		/* one slot per component: separators + 1 */
		stack = talloc_array(tmp, const char *, fn_count(s, '\\') + 1);
		status = stack ? fn_split(mem_ctx, s, stack, &depth,
					  is_stream, stream) :
			NT_STATUS_NO_MEMORY;
	}
	if (NT_STATUS_IS_OK(status)) {
		*path = fn_join(mem_ctx, stack, depth);
		status = *path ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(*stream);
	}
	return status;
}

NTSTATUS smbd_filename_convert(TALLOC_CTX *mem_ctx,
			       const struct smb2_blob *name16, char **path,
			       bool *is_stream)
{
	char *stream = NULL;
	NTSTATUS status = smbd_filename_convert_stream(mem_ctx, name16, path,
						       is_stream, &stream);

	if (NT_STATUS_IS_OK(status) && stream != NULL) {
		TALLOC_FREE(stream);
		TALLOC_FREE(*path);
		status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	return status;
}

const char *smbd_filename_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

NTSTATUS smbd_filename_wire(TALLOC_CTX *mem_ctx, const char *path,
			    struct smb2_name16 *out)
{
	char *s = talloc_asprintf(mem_ctx, "\\%s", path);
	uint8_t *u = NULL;
	size_t len = 0;
	char *p = NULL;
	NTSTATUS status;

	if (s == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (p = s; *p != '\0'; p++) {
		if (*p == '/') {
			*p = '\\';
		}
	}
	status = smb2_utf8_to_utf16(mem_ctx, s, strlen(s), &u, &len);
	talloc_free(s);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	out->data = u;
	out->len = len;
	return NT_STATUS_OK;
}
