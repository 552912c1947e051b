/*
 * SMB2/3 message signing in the pipeline (MS-SMB2 3.3.4.1.1, 3.3.5.2.4):
 * which requests must be signed, verifying them, signing responses.
 */
#ifndef RINGSMB_SMBD_SIGNING_H
#define RINGSMB_SMBD_SIGNING_H

#include "source3/smbd/smbd.h"

/*
 * A signature checked ahead of time on a pool thread (pipeline_crypto.c):
 * its result stands for a check of the same PDU with the same key,
 * dialect and algorithm, and for nothing else.
 */
struct smbd_sig_pre {
	bool done;
	int result;                     /* smb2_sign_check's */
	uint8_t key[16];
	uint16_t dialect, alg;
};

/* SecurityMode of our NEGOTIATE response, from 'server signing'. */
uint16_t smbd_signing_security_mode(const struct smbd_server *server,
				    uint16_t dialect);
/* Either side required signing in NEGOTIATE. */
bool smbd_signing_required(const struct smbd_conn *conn);
/* A user session established on conn must sign (signing.c). */
bool smbd_signing_user_required(const struct smbd_conn *conn);

/*
 * Checks a request's signature against the session it names.  *sign_rsp
 * says whether the response must be signed (and with which key, copied
 * into key: LOGOFF frees the session before its response is built).
 */
NTSTATUS smbd_signing_check(const struct smbd_conn *conn,
			    const struct smb2_pdu *pdu,
			    const struct smbd_session *s, bool *sign_rsp,
			    uint8_t key[16]);
/* The same, using pre when it was made with the key the session has. */
NTSTATUS smbd_signing_check_pre(const struct smbd_conn *conn,
				const struct smb2_pdu *pdu,
				const struct smbd_session *s,
				const struct smbd_sig_pre *pre,
				bool *sign_rsp, uint8_t key[16]);
/* The channel key a signed request of s on conn is checked with, or NULL */
const uint8_t *smbd_signing_channel_key(const struct smbd_conn *conn,
					const struct smbd_session *s);

/* Checks a signature with a given key, dialect and algorithm. */
NTSTATUS smbd_signing_check_key(const struct smbd_conn *conn,
				uint16_t dialect, uint16_t alg,
				const struct smb2_pdu *pdu,
				const uint8_t check_key[16], bool *sign_rsp,
				uint8_t key[16]);

/* Signs one response element (its iovecs, header first). */
/* With another connection's dialect and algorithm (a binding refusal). */
void smbd_signing_sign_as(const struct smbd_conn *conn, uint16_t dialect,
			  uint16_t alg, const uint8_t key[16],
			  struct iovec *iov, int iovcnt);
void smbd_signing_sign(const struct smbd_conn *conn, const uint8_t key[16],
		       struct iovec *iov, int iovcnt);

#endif
