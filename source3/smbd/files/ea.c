/*
 * Extended attributes as user.* xattrs (ea.h, docs/vfs.md).
 *
 * Every decision about EAs is made here: whether the share has them
 * (`ea support` and a file system with user xattrs), which xattrs are
 * EAs, name rules, and the statuses of QUERY_INFO / SET_INFO / CREATE.
 * The wire lists are lib/smb2/ea_codec.c's.
 */
#include <string.h>
#include <strings.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "source3/modules/vfs.h"
#include "source3/smbd/files/ea.h"
#include "source3/smbd/files/create_open.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

#define EA_PREFIX	"user."
#define EA_PREFIX_LEN	5
/* An xattr name nobody sets: asking for it tells ENOTSUP from ENODATA */
#define EA_PROBE	"user.ringsmb-ea-probe"
#define EA_VALUE_MAX	65535

/* Xattrs that are Samba's or ours, never EAs (after "user."). */
static bool ea_private(const char *name)
{
	return strcasecmp(name, "DOSATTRIB") == 0 ||
	       strncasecmp(name, "SAMBA_", 6) == 0 ||
	       strncasecmp(name, "DosStream.", 10) == 0 ||
	       strncasecmp(name, "ringsmb", 7) == 0;
}

/* OK, or EAS_NOT_SUPPORTED for the share or the file's file system. */
static NTSTATUS ea_supported(struct smbd_tcon *tcon, struct vfs_fh *fh)
{
	char b[1];
	size_t got = 0;
	NTSTATUS status;

	if (tcon->share != NULL && !tcon->share->ea_support) {
		return NT_STATUS_EAS_NOT_SUPPORTED;
	}
	status = vfs_fgetxattr(fh, EA_PROBE, b, sizeof(b), &got);
	return NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED) ?
		NT_STATUS_EAS_NOT_SUPPORTED : NT_STATUS_OK;
}

/* ---- reading ---- */

static NTSTATUS ea_names(TALLOC_CTX *mem_ctx, struct vfs_fh *fh, char **buf,
			 size_t *len)
{
	char small[256];
	NTSTATUS status = vfs_flistxattr(fh, small, sizeof(small) - 1, len);

	/* most files have a short list (DOSATTRIB, maybe NTACL): one call */
	if (NT_STATUS_IS_OK(status)) {
		*buf = talloc_memdup(mem_ctx, small, *len + 1);
		if (*buf == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		(*buf)[*len] = '\0';
		return NT_STATUS_OK;
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED)) {
		return status;  /* no xattrs here: asking for the size fails too */
	}
	status = vfs_flistxattr(fh, NULL, 0, len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*buf = talloc_zero_size(mem_ctx, *len + 1);
	if (*buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/* the list may have grown since: ERANGE reads as "try later" */
	return *len == 0 ? NT_STATUS_OK :
		vfs_flistxattr(fh, *buf, *len, len);
}

/* One EA's value; false if it vanished or is too long for the wire. */
static bool ea_value(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
		     const char *xname, struct smb2_ea *ea)
{
	uint8_t *v = talloc_size(mem_ctx, EA_VALUE_MAX + 1);
	size_t got = 0;

	if (v == NULL ||
	    !NT_STATUS_IS_OK(vfs_fgetxattr(fh, xname, v, EA_VALUE_MAX + 1,
					   &got)) ||
	    got > EA_VALUE_MAX) {
		talloc_free(v);
		return false;
	}
	ea->value = v;
	ea->value_len = got;
	return true;
}

/* Whether an xattr name is an EA we show: user.<valid, not private> */
static bool ea_listed(const char *xname)
{
	const char *n = xname + EA_PREFIX_LEN;

	return strncmp(xname, EA_PREFIX, EA_PREFIX_LEN) == 0 &&
	       smb2_ea_name_valid(n, strlen(n)) && !ea_private(n);
}

/* All EAs of a file, in listxattr's order, names and values on mem_ctx */
static NTSTATUS ea_read_all(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			    struct smb2_ea **eas, size_t *count)
{
	char *names = NULL;
	size_t len = 0, n = 0, ofs;
	NTSTATUS status = ea_names(mem_ctx, fh, &names, &len);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* at most one EA per 7 bytes of names ("user.x\0") */
	*eas = talloc_zero_array(mem_ctx, struct smb2_ea, len / 7 + 1);
	if (*eas == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (ofs = 0; ofs < len; ofs += strlen(names + ofs) + 1) {
		struct smb2_ea *ea = &(*eas)[n];

		if (!ea_listed(names + ofs) ||
		    !ea_value(*eas, fh, names + ofs, ea)) {
			continue;
		}
		ea->name = names + ofs + EA_PREFIX_LEN;
		ea->name_len = strlen(ea->name);
		n++;
	}
	*count = n;
	return NT_STATUS_OK;
}

uint32_t smbd_ea_size(struct smbd_tcon *tcon, struct vfs_fh *fh)
{
	TALLOC_CTX *tmp = NULL;
	struct smb2_ea *eas = NULL;
	size_t n = 0, size = 0;

	/*
	 * No probe (ea_supported): on a file system without user xattrs the
	 * list fails and the size is 0 all the same, one call fewer.
	 */
	if (tcon->share != NULL && !tcon->share->ea_support) {
		return 0;
	}
	tmp = talloc_new(NULL);
	if (tmp != NULL &&
	    NT_STATUS_IS_OK(ea_read_all(tmp, fh, &eas, &n))) {
		size = smb2_ea_list_size(eas, n);
	}
	talloc_free(tmp);
	return (uint32_t)size;
}

/* ---- writing ---- */

/* Names valid, none private, the whole list within NTFS's limit. */
static NTSTATUS ea_check_list(const struct smb2_ea *eas, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!smb2_ea_name_valid(eas[i].name, eas[i].name_len)) {
			return NT_STATUS_INVALID_EA_NAME;
		}
	}
	if (smb2_ea_list_size(eas, n) > SMBD_EA_MAX_LIST) {
		return NT_STATUS_EA_TOO_LARGE;
	}
	return NT_STATUS_OK;
}

static NTSTATUS ea_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
			 struct smb2_ea **eas, size_t *n)
{
	NTSTATUS status = smb2_ea_list_pull(mem_ctx, buf, len, eas, n);

	return NT_STATUS_IS_OK(status) ? ea_check_list(*eas, *n) : status;
}

/* "user." + the name of an existing EA that matches without case */
static char *ea_xname(TALLOC_CTX *mem_ctx, const struct smb2_ea *ea,
		      const struct smb2_ea *have, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (have[i].name_len == ea->name_len &&
		    strncasecmp(have[i].name, ea->name, ea->name_len) == 0) {
			return talloc_asprintf(mem_ctx, EA_PREFIX "%s",
					       have[i].name);
		}
	}
	return talloc_asprintf(mem_ctx, EA_PREFIX "%.*s", (int)ea->name_len,
			       ea->name);
}

static NTSTATUS ea_apply_one(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			     const struct smb2_ea *ea,
			     const struct smb2_ea *have, size_t n)
{
	char *xname = ea_xname(mem_ctx, ea, have, n);
	NTSTATUS status;

	if (xname == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (ea_private(xname + EA_PREFIX_LEN)) {
		return NT_STATUS_ACCESS_DENIED;         /* as Samba */
	}
	if (ea->value_len > 0) {
		return vfs_fsetxattr(fh, xname, ea->value, ea->value_len, 0);
	}
	/* a zero-length value deletes; deleting what is not there is fine */
	status = vfs_fremovexattr(fh, xname);
	return NT_STATUS_EQUAL(status, NT_STATUS_NONEXISTENT_EA_ENTRY) ?
		NT_STATUS_OK : status;
}

/* Applies a checked list in order (a later entry wins). */
static NTSTATUS ea_apply(TALLOC_CTX *mem_ctx, struct vfs_fh *fh,
			 const struct smb2_ea *eas, size_t n)
{
	struct smb2_ea *have = NULL;
	size_t nhave = 0, i;
	NTSTATUS status = ea_read_all(mem_ctx, fh, &have, &nhave);

	for (i = 0; NT_STATUS_IS_OK(status) && i < n; i++) {
		status = ea_apply_one(mem_ctx, fh, &eas[i], have, nhave);
	}
	if (NT_STATUS_EQUAL(status, NT_STATUS_NOT_SUPPORTED)) {
		status = NT_STATUS_EAS_NOT_SUPPORTED;
	}
	return status;
}

NTSTATUS smbd_ea_set_info(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			  const uint8_t *buf, size_t len)
{
	struct smb2_ea *eas = NULL;
	size_t n = 0;
	NTSTATUS status = ea_supported(open->tcon, open->fh);

	if (NT_STATUS_IS_OK(status) &&
	    !(open->access_mask & SMB2_FILE_WRITE_EA)) {
		status = NT_STATUS_ACCESS_DENIED;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ea_parse(mem_ctx, buf, len, &eas, &n);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ea_apply(mem_ctx, open->fh, eas, n);
	}
	return status;
}

/* ---- CREATE (ExtA, MS-SMB2 2.2.13.2.2) ---- */

static const struct smb2_create_ctx *ea_exta(
	const struct smb2_create_ctx_list *l)
{
	size_t n = 0;

	return smb2_create_ctx_find(l, SMB2_CREATE_TAG_EXTA, &n);
}

NTSTATUS smbd_ea_create_check(struct smbd_tcon *tcon,
			      const struct smb2_create_ctx_list *l)
{
	const struct smb2_create_ctx *c = ea_exta(l);
	struct vfs_fh root = {
		.vfs = tcon->vfs, .fd = tcon->vfs->root_fd,
		.is_path_only = true,
	};
	struct smb2_ea *eas = NULL;
	size_t n = 0;
	NTSTATUS status;

	if (c == NULL) {
		return NT_STATUS_OK;
	}
	status = ea_supported(tcon, &root);
	if (NT_STATUS_IS_OK(status)) {
		status = ea_parse(tcon, c->data, c->data_len, &eas, &n);
	}
	talloc_free(eas);
	return status;
}

NTSTATUS smbd_ea_create_apply(struct smbd_tcon *tcon, struct vfs_fh *fh,
			      uint32_t action,
			      const struct smb2_create_ctx_list *l)
{
	const struct smb2_create_ctx *c = ea_exta(l);
	TALLOC_CTX *tmp = NULL;
	struct smb2_ea *eas = NULL;
	size_t n = 0;
	NTSTATUS status;

	/* an existing file opened as it is keeps its EAs (MS-FSA 2.1.5.1) */
	if (c == NULL || action == SMB2_FILE_OPENED) {
		return NT_STATUS_OK;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = ea_parse(tmp, c->data, c->data_len, &eas, &n);
	if (NT_STATUS_IS_OK(status)) {
		status = ea_apply(tmp, fh, eas, n);
	}
	talloc_free(tmp);
	return status;
}

/* ---- QUERY_INFO ---- */

/*
 * The entries a FILE_GET_EA_INFORMATION list names, in its order; a
 * name the file does not have comes back with an empty value, as
 * Windows answers it.  The list was checked by ea_names.
 */
static void ea_select(struct smb2_ea *sel, size_t nsel,
		      const struct smb2_ea *all, size_t nall)
{
	size_t i, j;

	for (i = 0; i < nsel; i++) {
		for (j = 0; j < nall; j++) {
			if (all[j].name_len == sel[i].name_len &&
			    strncasecmp(all[j].name, sel[i].name,
					sel[i].name_len) == 0) {
				sel[i] = all[j];
				break;
			}
		}
	}
}

/* The request's name list, checked before the file is looked at. */
static NTSTATUS ea_get_names(TALLOC_CTX *mem_ctx, const struct smb2_blob *in,
			     struct smb2_ea **sel, size_t *n)
{
	NTSTATUS status = smb2_ea_names_pull(mem_ctx, in->data, in->len,
					     sel, n);
	size_t i;

	for (i = 0; NT_STATUS_IS_OK(status) && i < *n; i++) {
		if (!smb2_ea_name_valid((*sel)[i].name, (*sel)[i].name_len)) {
			status = NT_STATUS_INVALID_EA_NAME;
		}
	}
	return status;
}

/*
 * Without a name list the open's scan position applies: RESTART_SCAN
 * starts over, INDEX_SPECIFIED starts at AdditionalInformation (1 is the
 * first EA), otherwise the scan continues where the last query ended.
 */
static NTSTATUS ea_start(struct smbd_open *open,
			 const struct smb2_query_info_req *r, size_t nall,
			 size_t *start)
{
	if (r->flags & SMB2_SL_INDEX_SPECIFIED) {
		if (r->additional_information == 0 ||
		    r->additional_information > nall) {
			return NT_STATUS_NONEXISTENT_EA_ENTRY;
		}
		*start = r->additional_information - 1;
	} else if (r->flags & SMB2_SL_RESTART_SCAN) {
		*start = 0;
	} else {
		*start = open->ea_index;
	}
	return *start < nall ? NT_STATUS_OK : NT_STATUS_NO_MORE_EAS;
}

static NTSTATUS ea_query_push(TALLOC_CTX *mem_ctx, struct smbd_open *open,
			      const struct smb2_query_info_req *r,
			      const struct smb2_ea *eas, size_t n,
			      bool scan, uint8_t **out, size_t *out_len)
{
	bool single = (r->flags & SMB2_SL_RETURN_SINGLE_ENTRY) != 0;
	size_t pushed = 0;
	NTSTATUS status = smb2_ea_list_push(mem_ctx, eas, n,
					    r->output_buffer_length, single,
					    out, out_len, &pushed);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (pushed == 0) {
		TALLOC_FREE(*out);
		return NT_STATUS_BUFFER_TOO_SMALL;
	}
	if (scan) {
		open->ea_index += (uint32_t)pushed;
	}
	return pushed < n && !single ? NT_STATUS_BUFFER_OVERFLOW :
		NT_STATUS_OK;
}

static NTSTATUS ea_query_run(TALLOC_CTX *tmp, TALLOC_CTX *mem_ctx,
			     struct smbd_open *open,
			     const struct smb2_query_info_req *r,
			     uint8_t **out, size_t *out_len)
{
	struct smb2_ea *all = NULL, *sel = NULL;
	size_t nall = 0, nsel = 0, start = 0;
	NTSTATUS status = NT_STATUS_OK;

	if (r->input.len > 0) {
		status = ea_get_names(tmp, &r->input, &sel, &nsel);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ea_read_all(tmp, open->fh, &all, &nall);
	}
	if (NT_STATUS_IS_OK(status) && nall == 0) {
		status = NT_STATUS_NO_EAS_ON_FILE;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (sel != NULL) {
		ea_select(sel, nsel, all, nall);
		return ea_query_push(mem_ctx, open, r, sel, nsel, false, out,
				     out_len);
	}
	status = ea_start(open, r, nall, &start);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	open->ea_index = (uint32_t)start;
	return ea_query_push(mem_ctx, open, r, all + start, nall - start,
			     true, out, out_len);
}

NTSTATUS smbd_ea_query(TALLOC_CTX *mem_ctx, struct smbd_open *open,
		       const struct smb2_query_info_req *r, uint8_t **out,
		       size_t *out_len)
{
	TALLOC_CTX *tmp = NULL;
	NTSTATUS status = ea_supported(open->tcon, open->fh);

	if (NT_STATUS_IS_OK(status) &&
	    !(open->access_mask & SMB2_FILE_READ_EA)) {
		status = NT_STATUS_ACCESS_DENIED;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	tmp = talloc_new(mem_ctx);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = ea_query_run(tmp, mem_ctx, open, r, out, out_len);
	talloc_free(tmp);
	return status;
}
