/*
 * vfs_error's configuration and its decision, apart from the VFS so that
 * unit tests and the fuzzer reach them (docs/vfs.md, "vfs_error").
 */
#ifndef RINGSMB_VFS_ERROR_H
#define RINGSMB_VFS_ERROR_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

/* the operations a fault can be put on (error:ops) */
enum vfs_error_op {
	VFS_ERROR_OPENAT = 0,
	VFS_ERROR_PREAD,
	VFS_ERROR_PWRITE,
	VFS_ERROR_FSYNC,
	VFS_ERROR_FTRUNCATE,
	VFS_ERROR_FALLOCATE,
	VFS_ERROR_MKDIRAT,
	VFS_ERROR_UNLINKAT,
	VFS_ERROR_RENAMEAT,
	VFS_ERROR_NUM_OPS
};

struct vfs_error_config {
	uint32_t ops;           /* 1 << enum vfs_error_op */
	int err;                /* error:errno; EIO by default */
	bool short_io;          /* error:short: half the range, no error */
	uint64_t nth;           /* error:nth: the first call to fail (1..) */
	uint64_t times;         /* error:times: how many fail; 0 = all */
	bool random;            /* error:probability given */
	double probability;     /* 0.0 .. 1.0 */
	uint64_t seed;          /* error:seed */
	uint32_t delay_ms;      /* error:delay: hold completions */
	const char *log;        /* error:log: a line per call, or NULL */
	/* error:ring: the call goes to the ring, which fails it there
	 * (enum uring_fault: 1 eagain, 2 hang); 0: the module fails it */
	uint8_t ring;
};

/* Every call of the selected ops fails with EIO; nothing else. */
void vfs_error_config_init(struct vfs_error_config *c);

/*
 * Apply one option (the part after "error:", e.g. "ops") with its value.
 * false: unknown option or bad value, *why says which (static text).
 * Strings are kept on mem_ctx.
 */
bool vfs_error_config_set(TALLOC_CTX *mem_ctx, struct vfs_error_config *c,
			  const char *option, const char *value,
			  const char **why);

/* "pwrite" for VFS_ERROR_PWRITE */
const char *vfs_error_op_name(enum vfs_error_op op);

/* The counting state of one share connection. */
struct vfs_error_counter {
	uint64_t calls;         /* of the selected ops, all together */
	uint64_t fired;
	uint64_t rng;           /* xorshift64* state */
};

void vfs_error_counter_init(struct vfs_error_counter *k,
			    const struct vfs_error_config *c);

/*
 * One call of op: does the fault fire?  Counts only calls of the
 * selected ops; deterministic for a given configuration and sequence.
 */
bool vfs_error_fires(const struct vfs_error_config *c,
		     struct vfs_error_counter *k, enum vfs_error_op op);

#endif
