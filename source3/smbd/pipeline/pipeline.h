/*
 * The request pipeline (docs/architecture.md, "Layers"): compound splitting,
 * the credit window, session/tree/file lookups the dispatch table asks for,
 * dispatch, and response assembly.
 */
#ifndef RINGSMB_SMBD_PIPELINE_H
#define RINGSMB_SMBD_PIPELINE_H

#include "source3/smbd/smbd.h"
#include "source3/smbd/files/dir.h"
#include "source3/smbd/files/open_files.h"

int smbd_pipeline_init(struct smbd_conn *conn);
/*
 * The transport's callback: one PDU of len bytes at buf.  owner is the
 * talloc chunk that keeps buf alive (buf itself, or a reference to a
 * shared receive buffer): the pipeline owns it now.
 */
void smbd_pipeline_got_pdu(struct smbd_conn *conn, void *owner, uint8_t *buf,
			   size_t len);
/*
 * A lone WRITE whose len-byte head (header + fixed body) is in buf and
 * whose payload bytes wait in the pipes of sp (splice write mode).
 */
struct smbd_splice;
void smbd_pipeline_got_spliced_write(struct smbd_conn *conn, uint8_t *buf,
				     size_t len, struct smbd_splice *sp,
				     size_t payload);



/*
 * unsolicited.c: the Oplock Break Notification to open's client
 * (the file layer's oplock_break hook).
 */
void smbd_pipeline_send_oplock_break(struct smbd_open *open, uint8_t level);

/* The lease_break hook: a Lease Break Notification (2.2.23.2). */
void smbd_pipeline_send_lease_break(struct smbd_open *open,
				    const struct smb2_lease_break *lb);

/*
 * pipeline_crypto.c: the settings of 'smb2 crypto threads' and offload;
 * each worker starts its share of the threads (server/worker.c)
 */
void smbd_crypto_pool_start(struct smbd_server *server);

/* The send queue drained: start the next queued compound, if any. */
void smbd_pipeline_kick(struct smbd_conn *conn);

/* A compound is being processed: its request may hold session pointers. */
bool smbd_pipeline_busy(const struct smbd_conn *conn);

/*
 * Some connection's command finished (or it went away): pipelines that
 * wait for another channel of a session (pipeline.c, channel_wait) try
 * again, from an immediate.
 */
void smbd_pipeline_channels_idle(struct smbd_server *server);

#endif
