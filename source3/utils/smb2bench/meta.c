/*
 * Metadata modes (--rw=create|stat|listdir|connect): operations, not
 * bytes, one at a time per job over its connection (--numjobs gives
 * concurrency).  Each job works in its own folder (--filename, default
 * NAME.N.0) of --nrfiles files f0 ... fN-1:
 *
 *   create   CREATE (overwrite-if) + WRITE of --bs bytes + CLOSE, per file
 *   stat     CREATE (open) + QUERY_INFO FileAllInformation + CLOSE;
 *            with --compound all three in one related compound
 *   listdir  CREATE of the folder + QUERY_DIRECTORY (FileIdBothDirectory)
 *            until STATUS_NO_MORE_FILES + CLOSE: one operation
 *   connect  TCP + NEGOTIATE + SESSION_SETUP + TREE_CONNECT +
 *            TREE_DISCONNECT + LOGOFF
 *
 * stat and listdir lay the files out first, unmeasured.  The folder is
 * made if missing; the session's user must be able to add files to it
 * (Samba's anonymous session cannot in a folder it made: its token is
 * not the folder's owner).  A pass is one
 * operation per file (listdir: one listing); --time_based repeats passes
 * until --runtime.  Operations are counted as fio counts I/Os, in the
 * job's write (create) or read (the others) statistics: iops is
 * operations per second, clat_ns each operation's latency.
 */
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "source3/utils/smb2bench/conn.h"
#include "lib/util/byteorder.h"

#define DIR_OUT (64 * 1024)

struct meta {
	struct job *job;
	struct smb2_conn *c;
	uint8_t *data;		/* create: --bs bytes of the pattern */
	uint64_t entries;	/* listdir: entries in the last listing */
	char *err;
};

int meta_dir(enum bench_rw rw)
{
	return rw == RW_CREATE ? DIR_WRITE : DIR_READ;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static bool fail(struct meta *m, const char *what, NTSTATUS st)
{
	if (m->err == NULL) {
		m->err = talloc_asprintf(m->job->mem, "%s: %s", what,
					 m->c != NULL && m->c->err != NULL ?
					 m->c->err : nt_errstr(st));
	}
	return false;
}

static bool open_as(struct meta *m, const char *name,
		    const struct smb2_open_how *how, struct smb2_file_id *fid)
{
	uint64_t eof = 0;
	NTSTATUS st = smb2_conn_open_how(m->c, name, how, fid, &eof);

	return NT_STATUS_IS_OK(st) || fail(m, name, st);
}

static bool close_fid(struct meta *m, const struct smb2_file_id *fid)
{
	NTSTATUS st = smb2_conn_close_file(m->c, fid);

	return NT_STATUS_IS_OK(st) || fail(m, "CLOSE", st);
}

static char *file_name(struct meta *m, TALLOC_CTX *mem_ctx, unsigned i)
{
	return talloc_asprintf(mem_ctx, "%s/f%u", m->job->filename, i);
}

static bool op_create(struct meta *m, TALLOC_CTX *tmp, unsigned i)
{
	static const struct smb2_open_how how = {
		.access = SMB2_FILE_READ_DATA | SMB2_FILE_WRITE_DATA |
			  SMB2_FILE_READ_ATTRIBUTES | SMB2_SYNCHRONIZE,
		.disposition = SMB2_FILE_OVERWRITE_IF,
		.options = SMB2_FILE_NON_DIRECTORY_FILE,
	};
	struct smb2_file_id fid;
	uint32_t len = (uint32_t)m->job->o->bs;
	uint8_t *body = talloc_array(tmp, uint8_t, SMB2_WRITE_CREQ_LEN + len);
	struct smb2_pdu pdu;
	uint32_t count = 0;
	NTSTATUS st;

	if (body == NULL || !open_as(m, file_name(m, tmp, i), &how, &fid)) {
		return fail(m, "create", NT_STATUS_NO_MEMORY);
	}
	smb2_write_creq_push(&fid, 0, len, body, SMB2_WRITE_CREQ_LEN);
	memcpy(body + SMB2_WRITE_CREQ_LEN, m->data, len);
	st = smb2_conn_call(m->c, tmp, SMB2_OP_WRITE, body,
			    SMB2_WRITE_CREQ_LEN + len, &pdu);
	if (NT_STATUS_IS_OK(st)) {
		st = smb2_write_crsp_pull(&pdu, &count);
	}
	if (!NT_STATUS_IS_OK(st) || count != len) {
		return fail(m, "WRITE", NT_STATUS_IS_OK(st) ?
			    NT_STATUS_DISK_FULL : st);
	}
	return close_fid(m, &fid);
}

static const struct smb2_open_how stat_how = {
	.access = SMB2_FILE_READ_ATTRIBUTES | SMB2_SYNCHRONIZE,
	.disposition = SMB2_FILE_OPEN,
	.options = SMB2_FILE_NON_DIRECTORY_FILE,
};

/*
 * stat as Windows sends it (--compound): CREATE, QUERY_INFO and CLOSE
 * in one related compound, one round trip.
 */
static bool op_stat_compound(struct meta *m, TALLOC_CTX *tmp, unsigned i)
{
	static const struct smb2_file_id related = {
		SMB2_FILE_ID_RELATED, SMB2_FILE_ID_RELATED,
	};
	struct smb2_create_creq r = {
		.desired_access = stat_how.access,
		.file_attributes = SMB2_FILE_ATTRIBUTE_NORMAL,
		.share_access = SMB2_FILE_SHARE_READ | SMB2_FILE_SHARE_WRITE |
				SMB2_FILE_SHARE_DELETE,
		.create_disposition = stat_how.disposition,
		.create_options = stat_how.options,
	};
	uint8_t create[SMB2_CREATE_REQ_SIZE + 512];
	uint8_t query[SMB2_QUERY_INFO_CREQ_LEN], close[SMB2_CLOSE_REQ_SIZE];
	struct smb2_conn_req reqs[3] = {
		{ SMB2_OP_CREATE, create, 0 },
		{ SMB2_OP_QUERY_INFO, query, 0 },
		{ SMB2_OP_CLOSE, close, 0 },
	};
	struct smb2_pdu pdus[3] = {};
	struct smb2_blob out = {};
	const char *name = file_name(m, tmp, i);
	uint8_t *u = NULL;
	size_t ulen = 0, k;
	NTSTATUS st = smb2_utf8_to_utf16(tmp, name, strlen(name), &u, &ulen);

	for (k = 0; NT_STATUS_IS_OK(st) && k + 1 < ulen; k += 2) {
		if (u[k] == '/' && u[k + 1] == 0) {
			u[k] = '\\';
		}
	}
	r.name = (struct smb2_blob){ u, ulen };
	reqs[0].body_len = NT_STATUS_IS_OK(st) ?
		smb2_create_creq_push(&r, create, sizeof(create)) : 0;
	reqs[1].body_len = smb2_query_info_creq_push(&related, SMB2_INFO_FILE,
			SMB2_FILE_ALL_INFORMATION, 4096, query, sizeof(query));
	reqs[2].body_len = smb2_close_creq_push(&related, close,
						sizeof(close));
	if (reqs[0].body_len == 0 || reqs[1].body_len == 0 ||
	    reqs[2].body_len == 0) {
		return fail(m, name, NT_STATUS_INVALID_PARAMETER);
	}
	st = smb2_conn_compound(m->c, tmp, reqs, 3, pdus);
	if (NT_STATUS_IS_OK(st)) {
		st = smb2_outbuf_crsp_pull(&pdus[1], &out);
	}
	if (!NT_STATUS_IS_OK(st) || out.len == 0) {
		return fail(m, "CREATE + QUERY_INFO + CLOSE", NT_STATUS_IS_OK(st)
			    ? NT_STATUS_INVALID_NETWORK_RESPONSE : st);
	}
	return true;
}

static bool op_stat(struct meta *m, TALLOC_CTX *tmp, unsigned i)
{
	uint8_t body[SMB2_QUERY_INFO_CREQ_LEN];
	struct smb2_file_id fid;
	struct smb2_blob out = {};
	struct smb2_pdu pdu;
	NTSTATUS st;

	if (!open_as(m, file_name(m, tmp, i), &stat_how, &fid)) {
		return false;
	}
	st = smb2_conn_call(m->c, tmp, SMB2_OP_QUERY_INFO, body,
			    smb2_query_info_creq_push(
				    &fid, SMB2_INFO_FILE,
				    SMB2_FILE_ALL_INFORMATION, 4096, body,
				    sizeof(body)), &pdu);
	if (NT_STATUS_IS_OK(st)) {
		st = smb2_outbuf_crsp_pull(&pdu, &out);
	}
	if (!NT_STATUS_IS_OK(st) || out.len == 0) {
		return fail(m, "QUERY_INFO", NT_STATUS_IS_OK(st) ?
			    NT_STATUS_INVALID_NETWORK_RESPONSE : st);
	}
	return close_fid(m, &fid);
}

/* Entries in one QUERY_DIRECTORY output: NextEntryOffset chain. */
static uint64_t count_entries(struct smb2_blob out)
{
	uint64_t n = 0;
	size_t ofs = 0;

	while (ofs + 4 <= out.len) {
		uint32_t next = pull_le32(out.data + ofs);

		n++;
		if (next == 0 || next > out.len - ofs) {
			break;
		}
		ofs += next;
	}
	return n;
}

static bool list_once(struct meta *m, TALLOC_CTX *tmp,
		      const struct smb2_file_id *fid, bool *done)
{
	static const uint8_t star[] = { '*', 0 };
	uint8_t body[SMB2_QUERY_DIRECTORY_REQ_SIZE + sizeof(star)];
	struct smb2_blob out = {};
	struct smb2_pdu pdu;
	NTSTATUS st;

	st = smb2_conn_call(m->c, tmp, SMB2_OP_QUERY_DIRECTORY, body,
			    smb2_query_directory_creq_push(
				    fid, SMB2_FILE_ID_BOTH_DIRECTORY_INFORMATION,
				    0, (struct smb2_blob){ star, sizeof(star) },
				    DIR_OUT, body, sizeof(body)), &pdu);
	if (NT_STATUS_EQUAL(st, NT_STATUS_NO_MORE_FILES)) {
		*done = true;
		return true;
	}
	if (NT_STATUS_IS_OK(st)) {
		st = smb2_outbuf_crsp_pull(&pdu, &out);
	}
	if (!NT_STATUS_IS_OK(st)) {
		return fail(m, "QUERY_DIRECTORY", st);
	}
	m->entries += count_entries(out);
	return true;
}

static bool op_listdir(struct meta *m, TALLOC_CTX *tmp, unsigned i)
{
	static const struct smb2_open_how how = {
		.access = SMB2_FILE_LIST_DIRECTORY | SMB2_FILE_READ_ATTRIBUTES |
			  SMB2_SYNCHRONIZE,
		.disposition = SMB2_FILE_OPEN,
		.options = SMB2_FILE_DIRECTORY_FILE,
	};
	struct smb2_file_id fid;
	bool done = false;

	m->entries = 0;
	if (!open_as(m, m->job->filename, &how, &fid)) {
		return false;
	}
	while (!done && list_once(m, tmp, &fid, &done)) {
	}
	if (!done) {
		return false;
	}
	/* "." and ".." come with the files */
	if (m->entries < m->job->o->nrfiles) {
		return fail(m, "QUERY_DIRECTORY", NT_STATUS_NOT_FOUND);
	}
	m->job->entries += m->entries;
	return close_fid(m, &fid);
}

static bool op_connect(struct meta *m, TALLOC_CTX *tmp, unsigned i)
{
	char *err = NULL;
	struct smb2_conn *c = smb2_conn_open(tmp, m->job->smb, &err);

	if (c == NULL) {
		m->err = talloc_asprintf(m->job->mem, "connect: %s", err);
		return false;
	}
	smb2_conn_logoff(c);
	return true;
}

typedef bool (*meta_op_fn)(struct meta *m, TALLOC_CTX *tmp, unsigned i);

static meta_op_fn op_of(enum bench_rw rw, bool compound)
{
	switch (rw) {
	case RW_CREATE:
		return op_create;
	case RW_STAT:
		return compound ? op_stat_compound : op_stat;
	case RW_LISTDIR:
		return op_listdir;
	default:
		return op_connect;
	}
}

/* Lay out file i unless it is there (it may be another user's). */
static bool lay_out(struct meta *m, TALLOC_CTX *tmp, unsigned i)
{
	struct smb2_file_id fid;
	uint64_t eof = 0;
	NTSTATUS st = smb2_conn_open_how(m->c, file_name(m, tmp, i),
					 &stat_how, &fid, &eof);

	if (NT_STATUS_EQUAL(st, NT_STATUS_OBJECT_NAME_NOT_FOUND)) {
		return op_create(m, tmp, i);
	}
	return (NT_STATUS_IS_OK(st) || fail(m, "lay out", st)) &&
	       close_fid(m, &fid);
}

/* The job's folder, and for stat and listdir its files. */
static bool prepare(struct meta *m)
{
	static const struct smb2_open_how how = {
		.access = SMB2_FILE_LIST_DIRECTORY | SMB2_FILE_READ_ATTRIBUTES |
			  SMB2_SYNCHRONIZE,
		.disposition = SMB2_FILE_OPEN_IF,
		.options = SMB2_FILE_DIRECTORY_FILE,
	};
	const struct job_opts *o = m->job->o;
	struct smb2_file_id fid;
	char *err = NULL;
	unsigned i;
	bool ok = true;

	m->c = smb2_conn_open(m, m->job->smb, &err);
	if (m->c == NULL) {
		m->err = talloc_steal(m->job->mem, err);
		return false;
	}
	m->data = talloc_size(m, o->bs);
	if (m->data == NULL) {
		return fail(m, "memory", NT_STATUS_NO_MEMORY);
	}
	pattern_fill(m->data, o->bs & ~7ULL, 0, o->randseed);
	if (o->rw == RW_CONNECT) {
		return true;
	}
	if (!open_as(m, m->job->filename, &how, &fid) || !close_fid(m, &fid)) {
		return false;
	}
	for (i = 0; ok && o->rw != RW_CREATE && i < o->nrfiles; i++) {
		TALLOC_CTX *tmp = talloc_new(m);

		ok = lay_out(m, tmp, i);
		talloc_free(tmp);
	}
	return ok;
}

static void account(struct meta *m, uint64_t t0)
{
	struct job *job = m->job;
	int d = meta_dir(job->o->rw);
	uint64_t bytes = job->o->rw == RW_CREATE ? job->o->bs : 0;

	job->dir[d].io_bytes += bytes;
	job->dir[d].ios++;
	lat_add(&job->dir[d].clat, now_ns() - t0);
	atomic_fetch_add_explicit(&job->live_bytes[d], bytes,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&job->live_ios, 1, memory_order_relaxed);
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void measure(struct meta *m, const _Atomic bool *stop)
{
	const struct job_opts *o = m->job->o;
	meta_op_fn op = op_of(o->rw, m->job->smb->compound);
	unsigned per_pass = o->rw == RW_LISTDIR ? 1 : o->nrfiles;
	uint64_t t0 = now_ns(), t_end = 0, n = 0;
	struct rusage r0, r1;

	t_end = o->runtime > 0 ? t0 + (uint64_t)(o->runtime * 1e9) : 0;
	getrusage(RUSAGE_THREAD, &r0);
	atomic_store(&m->job->started, true);
	while (!*stop && (t_end == 0 || now_ns() < t_end) &&
	       (o->time_based || n < per_pass)) {
		TALLOC_CTX *tmp = talloc_new(m);
		uint64_t t1 = now_ns();
		bool ok = op(m, tmp, (unsigned)(n % per_pass));

		talloc_free(tmp);
		if (!ok) {
			break;
		}
		account(m, t1);
		n++;
	}
	m->job->runtime_ns = now_ns() - t0;
	getrusage(RUSAGE_THREAD, &r1);
	m->job->usr_s = tv_s(r1.ru_utime) - tv_s(r0.ru_utime);
	m->job->sys_s = tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
}

void meta_run(struct job *job, engine_wait_fn wait, void *private_data,
	      const _Atomic bool *stop)
{
	struct meta *m = talloc_zero(job->mem, struct meta);
	bool ready = false;

	m->job = job;
	ready = prepare(m);
	wait(private_data);
	if (ready) {
		measure(m, stop);
	}
	if (m->c != NULL && m->c->fd >= 0) {
		smb2_conn_logoff(m->c);
	}
	job->err = m->err;
	atomic_store(&job->finished, true);
	talloc_free(m);
}
