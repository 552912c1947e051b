/*
 * Mapped reads: a READ whose payload comes straight from a read-only
 * mapping of the file (MAP_SHARED, PROT_READ) instead of a copy into a
 * buffer first.  A signed READ then makes two passes over its bytes (the
 * signature, the copy into the socket) instead of three
 * (docs/architecture.md, "Data path modes"; docs/performance.md,
 * "Mapped reads").
 *
 * An encrypted READ makes two passes instead of three as well: the
 * encryption reads the mapping and writes the ciphertext to a buffer of
 * its own (smbd_response.payload_ro, lib/crypto smb2_encrypt_seal_to),
 * instead of a copy into a buffer encrypted in place.
 *
 * The mapping is only read while a Linux read lease (fcntl(2) F_SETLEASE
 * F_RDLCK) on the open's descriptor is held: the kernel grants it only
 * while no descriptor of the file is open for writing anywhere, and
 * breaks it (SMBD_LEASE_SIGNAL, kernel_oplock.c) before anyone opens the
 * file for writing or truncates it; the opener waits in open(2) until we
 * release.  So no byte of the mapping changes and no page of it goes
 * away between the signature and the send, and no access can fault
 * (SIGBUS) on a truncated file.
 *
 * - Which READs: "smb2 read mode = auto" (the default), of at least "min
 *   splice size" bytes or from the open's 8th small READ on (a lease and
 *   a mapping cost about six system calls; a 4 KiB READ from the mapping
 *   saves a pread and an allocation), not spliced (signed, encrypted, in a compound, no
 *   pipe or ring), on a local file system (local_fs.h: a lease on NFS or FUSE does not hold
 *   off other machines), not on a "kernel oplocks" share (its leases are
 *   the oplocks'), through a VFS stack whose data are the file's pages
 *   (vfs_map_read), no open of the file on this server with write or
 *   append access, the pages in the page cache (mincore(2): a mapping
 *   would fault them in from disk in the loop thread; the copy reads
 *   them through the ring).  Anything else copies, with identical bytes.
 * - A break (a local writer, or an SMB open for writing, which
 *   smbd_read_map_yield lets through at once): no new READ uses the
 *   mapping; the lease is released and the mapping unmapped when the
 *   last READ using it has been sent.  A response its client does not
 *   take would hold the writer for the kernel's lease-break-time (45
 *   s): after 5 s the connections still holding one are dropped.  For a second the open does not
 *   take a lease again, so a writer is not broken again and again.
 * - Each READ using the mapping holds a reference to the open's
 *   descriptor (and so the lease), so a CLOSE on another channel meanwhile
 *   cannot unmap it under the signature or the send.
 */
#ifndef RINGSMB_SMBD_READ_MAP_H
#define RINGSMB_SMBD_READ_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <talloc.h>
#include "source3/smbd/smbd.h"

/*
 * READ of len bytes at off through open (its checks passed): a pointer
 * to the bytes in the file's mapping, *got of them (fewer at the end of
 * the file), and *owner, a talloc child of mem_ctx that keeps them valid
 * until it is freed (the response's payload_owner).  NULL: copy this
 * READ (see the top for when).
 */
const uint8_t *smbd_read_map_get(TALLOC_CTX *mem_ctx,
				 const struct smbd_request *req,
				 uint64_t off, size_t len, size_t *got,
				 void **owner);

/*
 * The lease-break signal named descriptor fd (kernel_oplock.c): true if
 * it was one of ours (then it is released, now or after the READs using
 * it).
 */
bool smbd_read_map_break(struct smbd_server *server, int fd);

/*
 * Our own open of the file st for writing met a lease (EWOULDBLOCK):
 * give up ours on it.  true: we held some and none is left, open again
 * now; false: we held none (the lease is someone else's), or READs still
 * use one, and the file's oplock waiters are woken when it goes.
 */
bool smbd_read_map_yield(struct smbd_server *server,
			 const struct statx *st);

/* open goes (its descriptor may live on in READs still being sent) */
void smbd_read_map_open_gone(struct smbd_open *open);

#endif
