/*
 * One smb2bench connection, the synchronous part: the TCP socket, one
 * request at a time (setup, CREATE, CLOSE, LOGOFF), and the per-message
 * work the engine shares: header, credits, signing, encryption
 * (smb2_conn_seal) and their checks on the way in (smb2_conn_open_rsp).
 * NEGOTIATE, SESSION_SETUP and TREE_CONNECT are in setup.c.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "source3/utils/smb2bench/conn.h"
#include "lib/smb2/transform.h"
#include "lib/util/byteorder.h"

#define NBT_HDR 4
#define NBT_MAX 0x00FFFFFF

uint16_t smb2_conn_charge(const struct smb2_conn *c, uint64_t len)
{
	if (!c->large_mtu || len == 0) {
		return 1;
	}
	return (uint16_t)((len - 1) / 65536 + 1);
}

/* What a request costs in MessageIds and credits: charge, at least 1. */
static uint16_t cost(uint16_t charge)
{
	return charge == 0 ? 1 : charge;
}

int smb2_conn_seal(struct smb2_conn *c, uint16_t charge, uint16_t ask,
		   struct iovec *iov, int iovcnt, uint8_t *tf)
{
	uint8_t *h = iov[0].iov_base;

	push_le32(h + SMB2_HDR_OFS_PROTOCOL_ID, SMB2_PROTOCOL_ID);
	push_le16(h + SMB2_HDR_OFS_STRUCTURE_SIZE, SMB2_HDR_SIZE);
	push_le16(h + SMB2_HDR_OFS_CREDIT_CHARGE,
		  c->dialect == SMB2_DIALECT_0202 ? 0 : charge);
	push_le16(h + SMB2_HDR_OFS_CREDIT, ask);
	push_le64(h + SMB2_HDR_OFS_MESSAGE_ID, c->next_mid);
	push_le32(h + SMB2_HDR_OFS_TREE_ID, c->tree_id);
	push_le64(h + SMB2_HDR_OFS_SESSION_ID, c->session_id);
	c->next_mid += cost(charge);
	c->credits -= cost(charge);
	if (c->cipher != 0 && tf != NULL) {
		return smb2_encrypt(c->cipher, c->keys.decrypt,
				    c->keys.cipher_key_len, tf, iov, iovcnt,
				    c->session_id, c->ng);
	}
	if (c->sign) {
		return smb2_sign_pdu(c->dialect, c->signing_alg,
				     c->keys.signing, iov, iovcnt, false);
	}
	return 0;
}

static int open_transform(struct smb2_conn *c, uint8_t *buf, size_t len,
			  uint8_t **msg, size_t *msg_len)
{
	struct smb2_transform_hdr tf;
	size_t consumed = 0;
	struct iovec iov;
	int ret;

	if (c->cipher == 0 ||
	    !NT_STATUS_IS_OK(smb2_transform_pull(buf, len, &tf, &consumed)) ||
	    consumed != len || tf.session_id != c->session_id) {
		return -EINVAL;
	}
	iov = (struct iovec){ buf + SMB2_TRANSFORM_HDR_SIZE, tf.msg_size };
	ret = smb2_decrypt(c->cipher, c->keys.encrypt, c->keys.cipher_key_len,
			   buf, &iov, 1);
	if (ret != 0) {
		return ret;
	}
	*msg = iov.iov_base;
	*msg_len = iov.iov_len;
	return 0;
}

int smb2_conn_open_rsp(struct smb2_conn *c, uint8_t *buf, size_t len,
		       uint8_t **msg, size_t *msg_len)
{
	struct iovec iov = { buf, len };
	uint32_t flags, status;

	if (len >= 4 && pull_le32(buf) == SMB2_TRANSFORM_PROTOCOL_ID) {
		return open_transform(c, buf, len, msg, msg_len);
	}
	if (len < SMB2_HDR_SIZE) {
		return -EINVAL;
	}
	*msg = buf;
	*msg_len = len;
	if (c->cipher != 0) {
		return -EACCES;	/* an encrypted session gets only those */
	}
	if (!c->sign || c->binding) {
		/* a binding's answer is checked with the channel's new key */
		return 0;
	}
	flags = pull_le32(buf + SMB2_HDR_OFS_FLAGS);
	status = pull_le32(buf + SMB2_HDR_OFS_STATUS);
	if ((flags & SMB2_FLAGS_SIGNED) == 0) {
		/* interim responses are not signed (MS-SMB2 3.3.4.1.1) */
		return status == NT_STATUS_V(NT_STATUS_PENDING) ? 0 : -EACCES;
	}
	return smb2_sign_check(c->dialect, c->signing_alg, c->keys.signing,
			       &iov, 1, true);
}

int smb2_conn_send_all(struct smb2_conn *c, struct iovec *iov, int iovcnt)
{
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = iovcnt };

	while (mh.msg_iovlen > 0) {
		ssize_t n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? -errno : -EPIPE;
		}
		while (n > 0 && mh.msg_iovlen > 0) {
			size_t step = (size_t)n < mh.msg_iov->iov_len ?
					      (size_t)n : mh.msg_iov->iov_len;

			mh.msg_iov->iov_base = (uint8_t *)mh.msg_iov->iov_base +
					       step;
			mh.msg_iov->iov_len -= step;
			n -= (ssize_t)step;
			if (mh.msg_iov->iov_len == 0) {
				mh.msg_iov++;
				mh.msg_iovlen--;
			}
		}
	}
	return 0;
}

static int recv_all(int fd, uint8_t *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = recv(fd, buf, len, 0);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? -errno : -ECONNRESET;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One NBT frame's payload, talloc'd on mem_ctx. */
static int recv_frame(struct smb2_conn *c, TALLOC_CTX *mem_ctx,
		      uint8_t **out, size_t *out_len)
{
	uint8_t nbt[NBT_HDR];
	uint32_t len;
	int ret = recv_all(c->fd, nbt, sizeof(nbt));

	if (ret != 0) {
		return ret;
	}
	len = pull_be32(nbt);
	if (len > NBT_MAX || len == 0) {
		return -EINVAL;
	}
	*out = talloc_size(mem_ctx, len);
	if (*out == NULL) {
		return -ENOMEM;
	}
	*out_len = len;
	return recv_all(c->fd, *out, len);
}

int smb2_conn_send(struct smb2_conn *c, uint16_t charge, uint16_t ask,
		   uint8_t *req, size_t req_len, bool seal)
{
	uint8_t nbt[NBT_HDR], tf[SMB2_TRANSFORM_HDR_SIZE];
	struct iovec iov[3] = {
		{ nbt, NBT_HDR }, { tf, SMB2_TRANSFORM_HDR_SIZE },
		{ req, req_len },
	};
	bool enc = seal && c->cipher != 0;
	int ret = smb2_conn_seal(c, charge, ask, &iov[2], 1,
				 enc ? tf : NULL);

	if (ret != 0) {
		return ret;
	}
	push_be32(nbt, (uint32_t)(req_len + (enc ? sizeof(tf) : 0)));
	if (!enc) {
		iov[1] = iov[0];
		return smb2_conn_send_all(c, &iov[1], 2);
	}
	return smb2_conn_send_all(c, iov, 3);
}

/*
 * Wait for the final response to mid: interim STATUS_PENDING responses
 * only give credits.  *rsp is the opened SMB2 message in *frame.
 */
int smb2_conn_recv(struct smb2_conn *c, TALLOC_CTX *mem_ctx, uint64_t mid,
		   uint8_t **frame, uint8_t **rsp, size_t *rsp_len)
{
	struct smb2_hdr h;
	size_t len = 0;
	int ret;

	for (;;) {
		ret = recv_frame(c, mem_ctx, frame, &len);
		if (ret == 0) {
			ret = smb2_conn_open_rsp(c, *frame, len, rsp, rsp_len);
		}
		if (ret != 0) {
			return ret;
		}
		if (!NT_STATUS_IS_OK(smb2_hdr_pull(*rsp, *rsp_len, &h)) ||
		    h.message_id != mid) {
			return -EINVAL;
		}
		c->credits += h.credit;
		if (h.status != NT_STATUS_V(NT_STATUS_PENDING) ||
		    (h.flags & SMB2_FLAGS_ASYNC_COMMAND) == 0) {
			return 0;
		}
		TALLOC_FREE(*frame);
	}
}

NTSTATUS smb2_conn_call(struct smb2_conn *c, TALLOC_CTX *mem_ctx,
			uint16_t cmd, const uint8_t *body, size_t body_len,
			struct smb2_pdu *pdu)
{
	uint8_t *req = talloc_zero_array(mem_ctx, uint8_t,
					 SMB2_HDR_SIZE + body_len);
	uint8_t *frame = NULL, *rsp = NULL;
	uint64_t mid = c->next_mid;
	size_t rsp_len = 0;
	bool is_error = false;
	NTSTATUS status;
	int ret;

	if (req == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	push_le16(req + SMB2_HDR_OFS_COMMAND, cmd);
	memcpy(req + SMB2_HDR_SIZE, body, body_len);
	ret = smb2_conn_send(c, 1, CONN_SETUP_CREDITS, req,
			     SMB2_HDR_SIZE + body_len, true);
	if (ret == 0) {
		ret = smb2_conn_recv(c, mem_ctx, mid, &frame, &rsp, &rsp_len);
	}
	if (ret != 0) {
		c->err = talloc_asprintf(c, "%s: %s", smb2_op_name(cmd),
					 strerror(-ret));
		return NT_STATUS_CONNECTION_DISCONNECTED;
	}
	status = smb2_rsp_carve(rsp, rsp_len, smb2_rsp_struct_size(cmd), pdu,
				&is_error);
	if (!NT_STATUS_IS_OK(status)) {
		c->err = talloc_asprintf(c, "%s: malformed response",
					 smb2_op_name(cmd));
		return status;
	}
	return NT_STATUS(pdu->hdr.status);
}

NTSTATUS smb2_conn_open_how(struct smb2_conn *c, const char *name,
			    const struct smb2_open_how *how,
			    struct smb2_file_id *fid, uint64_t *eof)
{
	TALLOC_CTX *tmp = talloc_new(c);
	struct smb2_create_creq r = {
		.desired_access = how->access,
		.file_attributes = SMB2_FILE_ATTRIBUTE_NORMAL,
		.share_access = SMB2_FILE_SHARE_READ | SMB2_FILE_SHARE_WRITE |
				SMB2_FILE_SHARE_DELETE,
		.create_disposition = how->disposition,
		.create_options = how->options,
	};
	struct smb2_create_crsp rsp;
	struct smb2_pdu pdu;
	uint8_t *u = NULL, body[SMB2_CREATE_REQ_SIZE + 2048];
	size_t ulen = 0, blen, i;
	NTSTATUS status;

	status = smb2_utf8_to_utf16(tmp, name, strlen(name), &u, &ulen);
	for (i = 0; NT_STATUS_IS_OK(status) && i + 1 < ulen; i += 2) {
		if (u[i] == '/' && u[i + 1] == 0) {
			u[i] = '\\';
		}
	}
	r.name = (struct smb2_blob){ u, ulen };
	blen = NT_STATUS_IS_OK(status) ?
		       smb2_create_creq_push(&r, body, sizeof(body)) : 0;
	status = blen == 0 ? NT_STATUS_INVALID_PARAMETER :
			     smb2_conn_call(c, tmp, SMB2_OP_CREATE, body,
					    blen, &pdu);
	if (NT_STATUS_IS_OK(status)) {
		status = smb2_create_crsp_pull(&pdu, &rsp);
	}
	if (NT_STATUS_IS_OK(status)) {
		*fid = rsp.file_id;
		*eof = rsp.end_of_file;
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS smb2_conn_create(struct smb2_conn *c, const char *name,
			  bool create, struct smb2_file_id *fid,
			  uint64_t *eof)
{
	struct smb2_open_how how = {
		.access = SMB2_FILE_READ_DATA | SMB2_FILE_READ_ATTRIBUTES |
			  SMB2_SYNCHRONIZE,
		.disposition = create ? SMB2_FILE_OPEN_IF : SMB2_FILE_OPEN,
		.options = SMB2_FILE_NON_DIRECTORY_FILE,
	};

	if (create) {
		how.access |= SMB2_FILE_WRITE_DATA;
	}
	return smb2_conn_open_how(c, name, &how, fid, eof);
}

NTSTATUS smb2_conn_close_file(struct smb2_conn *c,
			      const struct smb2_file_id *fid)
{
	TALLOC_CTX *tmp = talloc_new(c);
	uint8_t body[SMB2_CLOSE_REQ_SIZE];
	struct smb2_pdu pdu;
	size_t blen = smb2_close_creq_push(fid, body, sizeof(body));
	NTSTATUS status = smb2_conn_call(c, tmp, SMB2_OP_CLOSE, body, blen,
					 &pdu);

	talloc_free(tmp);
	return status;
}

void smb2_conn_logoff(struct smb2_conn *c)
{
	TALLOC_CTX *tmp = talloc_new(c);
	uint8_t body[4];
	struct smb2_pdu pdu;
	size_t blen = smb2_simple_creq_push(body, sizeof(body));

	if (c->tree_id != 0) {
		(void)smb2_conn_call(c, tmp, SMB2_OP_TDIS, body, blen, &pdu);
	}
	if (c->session_id != 0) {
		(void)smb2_conn_call(c, tmp, SMB2_OP_LOGOFF, body, blen, &pdu);
	}
	talloc_free(tmp);
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
}

/* Padded to 8 bytes, as every request but the last of a compound is. */
static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * Carve the responses of one frame into pdus (by MessageId - first);
 * each one's signature is checked on its own.  *got counts the final
 * ones; an interim STATUS_PENDING only gives its credits.
 */
static int compound_take(struct smb2_conn *c, uint8_t *buf, size_t len,
			 uint64_t first, const struct smb2_conn_req *reqs,
			 size_t n, struct smb2_pdu *pdus, size_t *got)
{
	bool sealed = len >= 4 && pull_le32(buf) == SMB2_TRANSFORM_PROTOCOL_ID;
	uint8_t *msg = buf;
	size_t msg_len = len;
	int ret = sealed ? smb2_conn_open_rsp(c, buf, len, &msg, &msg_len) : 0;

	while (ret == 0 && msg_len >= SMB2_HDR_SIZE) {
		uint32_t next = pull_le32(msg + SMB2_HDR_OFS_NEXT_COMMAND);
		size_t this_len = next != 0 ? next : msg_len;
		uint8_t *m = NULL;
		size_t m_len = 0;
		struct smb2_hdr h;
		bool is_error = false;

		if (this_len > msg_len || this_len < SMB2_HDR_SIZE) {
			return -EINVAL;
		}
		ret = sealed ? 0 : smb2_conn_open_rsp(c, msg, this_len, &m,
						      &m_len);
		if (ret != 0 || !NT_STATUS_IS_OK(smb2_hdr_pull(msg, this_len,
							       &h)) ||
		    h.message_id < first || h.message_id - first >= n) {
			return ret != 0 ? ret : -EINVAL;
		}
		c->credits += h.credit;
		if (h.status != NT_STATUS_V(NT_STATUS_PENDING) ||
		    (h.flags & SMB2_FLAGS_ASYNC_COMMAND) == 0) {
			size_t i = h.message_id - first;

			if (!NT_STATUS_IS_OK(smb2_rsp_carve(msg, this_len,
					smb2_rsp_struct_size(reqs[i].cmd),
					&pdus[i], &is_error))) {
				return -EINVAL;
			}
			(*got)++;
		}
		msg += this_len;
		msg_len -= this_len;
		if (next == 0) {
			break;
		}
	}
	return ret;
}

NTSTATUS smb2_conn_compound(struct smb2_conn *c, TALLOC_CTX *mem_ctx,
			    const struct smb2_conn_req *reqs, size_t n,
			    struct smb2_pdu *pdus)
{
	uint8_t nbt[NBT_HDR], tf[SMB2_TRANSFORM_HDR_SIZE];
	struct iovec iov[3] = { { nbt, NBT_HDR }, { tf, sizeof(tf) } };
	uint64_t first = c->next_mid;
	size_t total = 0, ofs = 0, got = 0, i;
	bool enc = c->cipher != 0;
	uint8_t *buf = NULL;
	int ret = 0;

	for (i = 0; i < n; i++) {
		size_t len = SMB2_HDR_SIZE + reqs[i].body_len;

		total += i + 1 < n ? pad8(len) : len;
	}
	buf = talloc_zero_array(mem_ctx, uint8_t, total);
	if (buf == NULL || n == 0) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n && ret == 0; i++) {
		size_t len = SMB2_HDR_SIZE + reqs[i].body_len;
		size_t step = i + 1 < n ? pad8(len) : len;
		uint8_t *h = buf + ofs;
		struct iovec one = { h, step };

		push_le16(h + SMB2_HDR_OFS_COMMAND, reqs[i].cmd);
		push_le32(h + SMB2_HDR_OFS_FLAGS,
			  i > 0 ? SMB2_FLAGS_RELATED_OPERATIONS : 0);
		push_le32(h + SMB2_HDR_OFS_NEXT_COMMAND,
			  i + 1 < n ? (uint32_t)step : 0);
		memcpy(h + SMB2_HDR_SIZE, reqs[i].body, reqs[i].body_len);
		/* headers and signatures one by one; a seal covers them all */
		ret = smb2_conn_seal(c, 1, CONN_SETUP_CREDITS, &one, 1, NULL);
		ofs += step;
	}
	iov[2] = (struct iovec){ buf, total };
	if (ret == 0 && enc) {
		ret = smb2_encrypt(c->cipher, c->keys.decrypt,
				   c->keys.cipher_key_len, tf, &iov[2], 1,
				   c->session_id, c->ng);
	}
	if (ret == 0) {
		push_be32(nbt, (uint32_t)(total + (enc ? sizeof(tf) : 0)));
		if (!enc) {
			iov[1] = iov[0];
		}
		ret = smb2_conn_send_all(c, enc ? iov : &iov[1], enc ? 3 : 2);
	}
	while (ret == 0 && got < n) {
		uint8_t *frame = NULL;
		size_t len = 0;

		ret = recv_frame(c, mem_ctx, &frame, &len);
		if (ret == 0) {
			ret = compound_take(c, frame, len, first, reqs, n,
					    pdus, &got);
		}
	}
	if (ret != 0) {
		c->err = talloc_asprintf(c, "compound %s...: %s",
					 smb2_op_name(reqs[0].cmd),
					 strerror(-ret));
		return NT_STATUS_CONNECTION_DISCONNECTED;
	}
	for (i = 0; i < n; i++) {
		if (pdus[i].hdr.status != 0) {
			return NT_STATUS(pdus[i].hdr.status);
		}
	}
	return NT_STATUS_OK;
}
