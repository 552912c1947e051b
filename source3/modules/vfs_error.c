/*
 * vfs_error: faults on purpose, for tests (docs/vfs.md, "vfs_error";
 * docs/reliability.md, "Faults under the VFS").  Configured per share
 * with parametric options:
 *
 *	vfs objects = error io_uring
 *	error:ops = pwrite fsync
 *	error:errno = ENOSPC
 *	error:nth = 3
 *
 * The selected operations fail with the errno (or, with error:short,
 * move only half their range) from their nth call on, error:times of
 * them, or at random with error:probability and error:seed.  error:log
 * appends a line per call ("fsync 0", "pwrite -28") when the call
 * completes, before the module passes the completion up: once a client
 * holds a reply, the lines of every call that reply waited for are in
 * the file.  error:delay holds completions back, so a reply that did not
 * wait for its call arrives before the call's line.
 *
 * Nothing is configured: every call passes through untouched.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "lib/param/param.h"
#include "lib/util/debug.h"
#include "lib/uring/uring.h"
#include "source3/modules/vfs.h"
#include "source3/modules/vfs_error.h"

#define VFS_ERROR_MAX_DELAY_MS 60000

static const char *const op_names[VFS_ERROR_NUM_OPS] = {
	[VFS_ERROR_OPENAT] = "openat",
	[VFS_ERROR_PREAD] = "pread",
	[VFS_ERROR_PWRITE] = "pwrite",
	[VFS_ERROR_FSYNC] = "fsync",
	[VFS_ERROR_FTRUNCATE] = "ftruncate",
	[VFS_ERROR_FALLOCATE] = "fallocate",
	[VFS_ERROR_MKDIRAT] = "mkdirat",
	[VFS_ERROR_UNLINKAT] = "unlinkat",
	[VFS_ERROR_RENAMEAT] = "renameat",
};

#define E(x) { #x, x }
static const struct {
	const char *name;
	int err;
} errno_names[] = {
	E(EIO), E(ENOSPC), E(EDQUOT), E(EAGAIN), E(EINTR), E(ENOMEM),
	E(EACCES), E(EPERM), E(EROFS), E(EFBIG), E(ENOENT), E(EBUSY),
	E(ETIMEDOUT), E(ENXIO), E(EBADF), E(EINVAL), E(ENOSYS),
	E(ENOTSUP), E(ESTALE), E(EMFILE), E(ENFILE), E(ECANCELED),
};
#undef E

const char *vfs_error_op_name(enum vfs_error_op op)
{
	return op < VFS_ERROR_NUM_OPS ? op_names[op] : "?";
}

void vfs_error_config_init(struct vfs_error_config *c)
{
	*c = (struct vfs_error_config) { .err = EIO, .nth = 1 };
}

/* ---- values ---- */

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0') {
		return false;
	}
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s) ||
		    v > (max - (uint64_t)(*s - '0')) / 10) {
			return false;
		}
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

static bool parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "1", "on" };
	static const char *const no[] = { "no", "false", "0", "off" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
			*out = strcasecmp(s, yes[i]) == 0;
			return true;
		}
	}
	return false;
}

static bool parse_errno(const char *s, int *out)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++) {
		if (strcasecmp(s, errno_names[i].name) == 0) {
			*out = errno_names[i].err;
			return true;
		}
	}
	if (!parse_u64(s, 4095, &v) || v == 0) {
		return false;
	}
	*out = (int)v;
	return true;
}

static bool parse_probability(const char *s, double *out)
{
	char *end = NULL;
	double v;

	if (*s == '\0' || isspace((unsigned char)*s)) {
		return false;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v) || v < 0.0 ||
	    v > 1.0) {
		return false;
	}
	*out = v;
	return true;
}

/* error:ring: no, eagain or hang (enum uring_fault) */
static bool parse_ring_fault(const char *s, uint8_t *out)
{
	static const char *const names[] = {
		[URING_FAULT_NONE] = "no",
		[URING_FAULT_EAGAIN] = "eagain",
		[URING_FAULT_HANG] = "hang",
	};
	uint8_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(s, names[i]) == 0) {
			*out = i;
			return true;
		}
	}
	return false;
}

/* blank- or comma-separated names; "all" for every op */
static bool parse_ops(const char *s, uint32_t *out)
{
	uint32_t ops = 0;

	while (*s != '\0') {
		size_t len = strcspn(s, " \t,");
		unsigned i;

		if (len == 3 && strncasecmp(s, "all", 3) == 0) {
			ops |= (1u << VFS_ERROR_NUM_OPS) - 1;
		} else if (len > 0) {
			for (i = 0; i < VFS_ERROR_NUM_OPS; i++) {
				if (strlen(op_names[i]) == len &&
				    strncasecmp(s, op_names[i], len) == 0) {
					break;
				}
			}
			if (i == VFS_ERROR_NUM_OPS) {
				return false;
			}
			ops |= 1u << i;
		}
		s += len;
		s += strspn(s, " \t,");
	}
	*out = ops;
	return true;
}

bool vfs_error_config_set(TALLOC_CTX *mem_ctx, struct vfs_error_config *c,
			  const char *option, const char *value,
			  const char **why)
{
	uint64_t v = 0;
	bool ok = false;

	*why = "bad value";
	if (strcasecmp(option, "ops") == 0) {
		ok = parse_ops(value, &c->ops);
	} else if (strcasecmp(option, "errno") == 0) {
		ok = parse_errno(value, &c->err);
	} else if (strcasecmp(option, "short") == 0) {
		ok = parse_bool(value, &c->short_io);
	} else if (strcasecmp(option, "nth") == 0) {
		ok = parse_u64(value, UINT64_MAX, &v) && v >= 1;
		c->nth = ok ? v : c->nth;
	} else if (strcasecmp(option, "times") == 0) {
		ok = parse_u64(value, UINT64_MAX, &c->times);
	} else if (strcasecmp(option, "probability") == 0) {
		ok = parse_probability(value, &c->probability);
		c->random = c->random || ok;
	} else if (strcasecmp(option, "seed") == 0) {
		ok = parse_u64(value, UINT64_MAX, &c->seed);
	} else if (strcasecmp(option, "delay") == 0) {
		ok = parse_u64(value, VFS_ERROR_MAX_DELAY_MS, &v);
		c->delay_ms = ok ? (uint32_t)v : c->delay_ms;
	} else if (strcasecmp(option, "ring") == 0) {
		ok = parse_ring_fault(value, &c->ring);
	} else if (strcasecmp(option, "log") == 0) {
		ok = value[0] == '/' &&
			(c->log = talloc_strdup(mem_ctx, value)) != NULL;
	} else {
		*why = "unknown option";
	}
	return ok;
}

/* ---- the decision ---- */

/* splitmix64 of the seed: xorshift64* must not start at 0 */
void vfs_error_counter_init(struct vfs_error_counter *k,
			    const struct vfs_error_config *c)
{
	uint64_t z = c->seed + 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	*k = (struct vfs_error_counter) { .rng = z != 0 ? z : 1 };
}

/* uniform in [0, 1) */
static double rng_next(struct vfs_error_counter *k)
{
	k->rng ^= k->rng >> 12;
	k->rng ^= k->rng << 25;
	k->rng ^= k->rng >> 27;
	return (double)((k->rng * 0x2545F4914F6CDD1DULL) >> 11) *
		(1.0 / 9007199254740992.0);
}

bool vfs_error_fires(const struct vfs_error_config *c,
		     struct vfs_error_counter *k, enum vfs_error_op op)
{
	if (op >= VFS_ERROR_NUM_OPS || (c->ops & (1u << op)) == 0) {
		return false;
	}
	k->calls++;
	if (k->calls < c->nth) {
		return false;
	}
	if (c->times != 0 && k->fired >= c->times) {
		return false;
	}
	if (c->random && !(rng_next(k) < c->probability)) {
		return false;
	}
	k->fired++;
	return true;
}

/* ---- the module ---- */

struct error_priv {
	struct vfs_error_config cfg;
	struct vfs_error_counter k;
	int log_fd;
};

static int error_priv_destructor(struct error_priv *p)
{
	if (p->log_fd != -1) {
		close(p->log_fd);
		p->log_fd = -1;
	}
	return 0;
}

/* does the module look at calls of op at all? */
static bool error_watches(const struct error_priv *p, enum vfs_error_op op)
{
	return (p->cfg.ops & (1u << op)) != 0 || p->log_fd != -1 ||
		p->cfg.delay_ms != 0;
}

static void error_log(struct error_priv *p, enum vfs_error_op op, long ret)
{
	char line[64];
	int n;

	if (p->log_fd == -1) {
		return;
	}
	n = snprintf(line, sizeof(line), "%s %ld\n", op_names[op], ret);
	/* one O_APPEND write: lines of several connections never mix */
	if (write(p->log_fd, line, (size_t)n) != n) {
		DBG_ERR("vfs_error: cannot write %s: %s\n", p->cfg.log,
			strerror(errno));
	}
}

static int error_parse_params(struct vfs_module *m, struct error_priv *p)
{
	const struct vfs_handle *vfs = m->vfs;
	size_t i;

	for (i = 0; i < vfs->num_parametric; i++) {
		const struct lp_parametric *o = &vfs->parametric[i];
		const char *why = NULL;

		if (strncasecmp(o->name, "error:", 6) != 0) {
			continue;
		}
		if (!vfs_error_config_set(p, &p->cfg, o->name + 6, o->value,
					  &why)) {
			DBG_ERR("share [%s]: vfs_error: %s = %s: %s\n",
				vfs->share_name, o->name, o->value, why);
			return -EINVAL;
		}
	}
	return 0;
}

static int error_connect(struct vfs_module *m, const char *path)
{
	struct error_priv *p = talloc_zero(m, struct error_priv);
	int ret;

	if (p == NULL) {
		return -ENOMEM;
	}
	p->log_fd = -1;
	talloc_set_destructor(p, error_priv_destructor);
	vfs_error_config_init(&p->cfg);
	ret = error_parse_params(m, p);
	if (ret < 0) {
		talloc_free(p);
		return ret;
	}
	vfs_error_counter_init(&p->k, &p->cfg);
	if (p->cfg.log != NULL) {
		p->log_fd = open(p->cfg.log, O_WRONLY | O_APPEND | O_CREAT |
				 O_CLOEXEC, 0600);
		if (p->log_fd == -1) {
			ret = -errno;
			DBG_ERR("share [%s]: vfs_error: cannot open %s: %s\n",
				m->vfs->share_name, p->cfg.log,
				strerror(errno));
			talloc_free(p);
			return ret;
		}
	}
	m->private_data = p;
	return vfs_next_connect(m, path);
}

/* ---- synchronous ops: fail or pass, then log ---- */

static int error_sync_begin(struct vfs_module *m, enum vfs_error_op op)
{
	struct error_priv *p = m->private_data;

	return vfs_error_fires(&p->cfg, &p->k, op) ? -p->cfg.err : 0;
}

static int error_sync_end(struct vfs_module *m, enum vfs_error_op op,
			  int ret)
{
	error_log(m->private_data, op, ret);
	return ret;
}

static int error_openat(struct vfs_module *m, const char *path, int flags,
			int *fd, struct statx *st)
{
	int ret = error_sync_begin(m, VFS_ERROR_OPENAT);

	if (ret == 0) {
		ret = vfs_next_openat(m, path, flags, fd, st);
	}
	return error_sync_end(m, VFS_ERROR_OPENAT, ret);
}

static int error_ftruncate(struct vfs_module *m, struct vfs_fh *fh,
			   uint64_t len)
{
	int ret = error_sync_begin(m, VFS_ERROR_FTRUNCATE);

	if (ret == 0) {
		ret = vfs_next_ftruncate(m, fh, len);
	}
	return error_sync_end(m, VFS_ERROR_FTRUNCATE, ret);
}

static int error_fallocate(struct vfs_module *m, struct vfs_fh *fh,
			   int mode, uint64_t off, uint64_t len)
{
	int ret = error_sync_begin(m, VFS_ERROR_FALLOCATE);

	if (ret == 0) {
		ret = vfs_next_fallocate(m, fh, mode, off, len);
	}
	return error_sync_end(m, VFS_ERROR_FALLOCATE, ret);
}

static int error_mkdirat(struct vfs_module *m, const char *path,
			 mode_t mode)
{
	int ret = error_sync_begin(m, VFS_ERROR_MKDIRAT);

	if (ret == 0) {
		ret = vfs_next_mkdirat(m, path, mode);
	}
	return error_sync_end(m, VFS_ERROR_MKDIRAT, ret);
}

static int error_unlinkat(struct vfs_module *m, const char *path, int flags)
{
	int ret = error_sync_begin(m, VFS_ERROR_UNLINKAT);

	if (ret == 0) {
		ret = vfs_next_unlinkat(m, path, flags);
	}
	return error_sync_end(m, VFS_ERROR_UNLINKAT, ret);
}

static int error_renameat(struct vfs_module *m, const char *src,
			  const char *dst, unsigned int flags)
{
	int ret = error_sync_begin(m, VFS_ERROR_RENAMEAT);

	if (ret == 0) {
		ret = vfs_next_renameat(m, src, dst, flags);
	}
	return error_sync_end(m, VFS_ERROR_RENAMEAT, ret);
}

/* ---- asynchronous ops ---- */

struct error_io_state {
	struct vfs_io_state io;         /* first: vfs_io_recv */
	struct tevent_context *ev;
	struct error_priv *priv;
	enum vfs_error_op op;
	long ret;                       /* count or -errno */
	struct uring *ring;             /* error:ring fired: arm it */
};

static void error_io_passed_done(struct tevent_req *subreq);
static void error_io_delayed(struct tevent_context *ev,
			     struct tevent_timer *te, struct timeval now,
			     void *private_data);

static void error_io_finish(struct tevent_req *req)
{
	struct error_io_state *state = tevent_req_data(
		req, struct error_io_state);

	error_log(state->priv, state->op, state->ret);
	if (state->ret < 0) {
		tevent_req_error(req, (int)-state->ret);
		return;
	}
	vfs_io_done(req, (size_t)state->ret);
}

/* the call is over (state->ret): complete, after error:delay if set */
static void error_io_complete(struct tevent_req *req)
{
	struct error_io_state *state = tevent_req_data(
		req, struct error_io_state);
	uint32_t ms = state->priv->cfg.delay_ms;
	struct tevent_timer *te = NULL;

	if (ms == 0) {
		error_io_finish(req);
		return;
	}
	te = tevent_add_timer(state->ev, state,
			      tevent_timeval_current_ofs(ms / 1000,
							 (ms % 1000) * 1000),
			      error_io_delayed, req);
	if (te == NULL) {
		tevent_req_oom(req);
	}
}

static void error_io_delayed(struct tevent_context *ev,
			     struct tevent_timer *te, struct timeval now,
			     void *private_data)
{
	error_io_finish(talloc_get_type_abort(private_data,
					      struct tevent_req));
}

/*
 * The module's request for a call of op.  NULL: out of memory.  When the
 * fault fires as an error, the request is already on its way (returned
 * as is; the caller must not pass the call down).  *len is halved when
 * it fires as a short call.
 */
static struct tevent_req *error_io_create(struct vfs_module *m,
					  TALLOC_CTX *mem_ctx,
					  struct tevent_context *ev,
					  enum vfs_error_op op, size_t *len,
					  bool *pass)
{
	struct error_priv *p = m->private_data;
	struct error_io_state *state = NULL;
	struct tevent_req *req = tevent_req_create(mem_ctx, &state,
						   struct error_io_state);
	bool fires = vfs_error_fires(&p->cfg, &p->k, op);

	*pass = true;
	if (req == NULL) {
		return NULL;
	}
	state->ev = ev;
	state->priv = p;
	state->op = op;
	if (fires && p->cfg.ring != URING_FAULT_NONE) {
		state->ring = uring_ev_get(ev);
	} else if (fires && p->cfg.short_io && len != NULL) {
		*len = *len > 1 ? *len / 2 : *len;
	} else if (fires) {
		*pass = false;
		state->ret = -p->cfg.err;
		error_io_complete(req);
		if (tevent_req_is_in_progress(req)) {
			return req;             /* the delay's timer */
		}
		return tevent_req_post(req, ev);
	}
	return req;
}

/*
 * error:ring: the next module's call goes to the ring (vfs_io_uring
 * below), armed so that the ring fails it (uring_fault_arm); without a
 * ring, or when the module below does not use it, nothing happens.
 */
static void error_io_arm(struct tevent_req *req, bool on)
{
	struct error_io_state *state = tevent_req_data(
		req, struct error_io_state);

	if (state->ring != NULL) {
		uring_fault_arm(state->ring, on ? state->priv->cfg.ring :
				URING_FAULT_NONE);
	}
}

static struct tevent_req *error_io_pass(struct tevent_req *req,
					struct tevent_req *subreq)
{
	struct error_io_state *state = tevent_req_data(
		req, struct error_io_state);

	error_io_arm(req, false);
	if (tevent_req_nomem(subreq, req)) {
		return tevent_req_post(req, state->ev);
	}
	tevent_req_set_callback(subreq, error_io_passed_done, req);
	return req;
}

static void error_io_passed_done(struct tevent_req *subreq)
{
	struct tevent_req *req = tevent_req_callback_data(subreq,
							  struct tevent_req);
	struct error_io_state *state = tevent_req_data(
		req, struct error_io_state);
	size_t count = 0;
	int ret = vfs_io_recv(subreq, &count);

	TALLOC_FREE(subreq);
	state->ret = ret < 0 ? ret : (long)count;
	error_io_complete(req);
}

static struct tevent_req *error_pread_send(struct vfs_module *m,
					   TALLOC_CTX *mem_ctx,
					   struct tevent_context *ev,
					   struct vfs_fh *fh, void *buf,
					   size_t len, uint64_t off)
{
	struct tevent_req *req = NULL;
	bool pass = true;

	if (!error_watches(m->private_data, VFS_ERROR_PREAD)) {
		return vfs_next_pread_send(m, mem_ctx, ev, fh, buf, len, off);
	}
	req = error_io_create(m, mem_ctx, ev, VFS_ERROR_PREAD, &len, &pass);
	if (req == NULL || !pass) {
		return req;
	}
	error_io_arm(req, true);
	return error_io_pass(req, vfs_next_pread_send(
				     m, tevent_req_data(req, struct error_io_state), ev, fh,
				     buf, len, off));
}

static struct tevent_req *error_pwrite_send(struct vfs_module *m,
					    TALLOC_CTX *mem_ctx,
					    struct tevent_context *ev,
					    struct vfs_fh *fh,
					    const void *buf, size_t len,
					    uint64_t off)
{
	struct tevent_req *req = NULL;
	bool pass = true;

	if (!error_watches(m->private_data, VFS_ERROR_PWRITE)) {
		return vfs_next_pwrite_send(m, mem_ctx, ev, fh, buf, len,
					    off);
	}
	req = error_io_create(m, mem_ctx, ev, VFS_ERROR_PWRITE, &len, &pass);
	if (req == NULL || !pass) {
		return req;
	}
	error_io_arm(req, true);
	return error_io_pass(req, vfs_next_pwrite_send(
				     m, tevent_req_data(req, struct error_io_state), ev, fh,
				     buf, len, off));
}

static struct tevent_req *error_fsync_send(struct vfs_module *m,
					   TALLOC_CTX *mem_ctx,
					   struct tevent_context *ev,
					   struct vfs_fh *fh)
{
	struct tevent_req *req = NULL;
	bool pass = true;

	if (!error_watches(m->private_data, VFS_ERROR_FSYNC)) {
		return vfs_next_fsync_send(m, mem_ctx, ev, fh);
	}
	req = error_io_create(m, mem_ctx, ev, VFS_ERROR_FSYNC, NULL, &pass);
	if (req == NULL || !pass) {
		return req;
	}
	error_io_arm(req, true);
	return error_io_pass(req, vfs_next_fsync_send(
				     m, tevent_req_data(req, struct error_io_state), ev, fh));
}

/*
 * Splicing would bypass pread and pwrite: while the module watches them,
 * ENOSYS makes READ and WRITE copy through memory and those ops.
 */
static struct tevent_req *error_splice_read_send(struct vfs_module *m,
						 TALLOC_CTX *mem_ctx,
						 struct tevent_context *ev,
						 struct vfs_fh *fh,
						 int pipe_wr, size_t len,
						 uint64_t off, void *keep)
{
	if (error_watches(m->private_data, VFS_ERROR_PREAD)) {
		return vfs_io_posted(mem_ctx, ev, ENOSYS, 0);
	}
	return vfs_next_splice_read_send(m, mem_ctx, ev, fh, pipe_wr, len,
					 off, keep);
}

/* A mapping bypasses pread as splicing does */
static int error_map_read(struct vfs_module *m, struct vfs_fh *fh,
			  size_t len, void **addr)
{
	if (error_watches(m->private_data, VFS_ERROR_PREAD)) {
		return -ENOSYS;
	}
	return vfs_next_map_read(m, fh, len, addr);
}

static struct tevent_req *error_splice_write_send(
	struct vfs_module *m, TALLOC_CTX *mem_ctx, struct tevent_context *ev,
	struct vfs_fh *fh, const struct uring_splice_src *src, unsigned n,
	uint64_t off, void *keep)
{
	if (error_watches(m->private_data, VFS_ERROR_PWRITE)) {
		return vfs_io_posted(mem_ctx, ev, ENOSYS, 0);
	}
	return vfs_next_splice_write_send(m, mem_ctx, ev, fh, src, n, off,
					  keep);
}

const struct vfs_ops vfs_error_ops = {
	.name = "error",
	.connect = error_connect,
	.openat = error_openat,
	.pread_send = error_pread_send,
	.pwrite_send = error_pwrite_send,
	.fsync_send = error_fsync_send,
	.splice_read_send = error_splice_read_send,
	.splice_write_send = error_splice_write_send,
	.map_read = error_map_read,
	.ftruncate = error_ftruncate,
	.fallocate = error_fallocate,
	.mkdirat = error_mkdirat,
	.unlinkat = error_unlinkat,
	.renameat = error_renameat,
};
