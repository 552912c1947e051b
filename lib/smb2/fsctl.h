/*
 * FSCTL payloads carried in IOCTL Input/Output buffers (MS-SMB2 2.2.31.1,
 * 2.2.31.4, 2.2.32.1-2.2.32.6; MS-FSCC 2.3).  Pure pull/push functions:
 * bytes in, struct out, each with its own length check, results may
 * point into the input.  The server's policy (copychunk
 * limits, access checks) is not decided here.
 */
#ifndef RINGSMB_SMB2_FSCTL_H
#define RINGSMB_SMB2_FSCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/util/ntstatus.h"

#define FSCTL_GET_COMPRESSION		0x0009003C
#define FSCTL_SET_COMPRESSION		0x0009C040

/* The device type of a control code (MS-FSCC 2.3: CtlCode >> 16). */
#define FSCTL_DEVICE_DFS		0x0006
#define FSCTL_DEVICE_FILESYSTEM		0x0009
#define FSCTL_DEVICE_NAMED_PIPE		0x0011
#define FSCTL_DEVICE_NETWORK_FS		0x0014

/* SRV_REQUEST_RESUME_KEY response (2.2.32.3): key, ContextLength, pad */
#define SMB2_RESUME_KEY_LEN		24
#define SMB2_RESUME_KEY_RSP_SIZE	32

/*
 * VALIDATE_NEGOTIATE_INFO request (2.2.31.4): Capabilities, Guid,
 * SecurityMode, DialectCount, then the dialects; response (2.2.32.6):
 * Capabilities, Guid, SecurityMode, Dialect.
 */
#define SMB2_VNEG_REQ_FIXED		24
#define SMB2_VNEG_RSP_SIZE		24

/* SRV_COPYCHUNK_COPY (2.2.31.1) and SRV_COPYCHUNK (2.2.31.1.1) */
#define SMB2_COPYCHUNK_COPY_FIXED	32
#define SMB2_COPYCHUNK_SIZE		24
#define SMB2_COPYCHUNK_RSP_SIZE		12	/* 2.2.32.1 */

/* MS-FSCC 2.3.69 FILE_ZERO_DATA_INFORMATION, 2.3.52 / 2.3.53 ranges */
#define SMB2_ZERO_DATA_SIZE		16
#define SMB2_ALLOC_RANGE_SIZE		16
/* MS-FSCC 2.1.3.1 FILE_OBJECTID_BUFFER (type 1) */
#define SMB2_OBJECT_ID_SIZE		64
/* MS-SMB2 2.2.32.5 NETWORK_INTERFACE_INFO with its SOCKADDR_STORAGE */
#define SMB2_NET_IFACE_SIZE		152
#define SMB2_NET_IFACE_RSS		0x00000001
#define SMB2_NET_IFACE_RDMA		0x00000002
#define SMB2_SOCKADDR_INET		0x0002
#define SMB2_SOCKADDR_INET6		0x0017

#define SMB2_COMPRESSION_FORMAT_NONE	0x0000

struct smb2_validate_negotiate_req {
	uint32_t capabilities;
	uint8_t guid[16];
	uint16_t security_mode;
	uint16_t dialect_count;
	const uint8_t *dialects;	/* dialect_count LE uint16s (input) */
};

struct smb2_validate_negotiate_rsp {
	uint32_t capabilities;
	uint8_t guid[16];
	uint16_t security_mode;
	uint16_t dialect;
};

struct smb2_copychunk_copy {
	const uint8_t *source_key;	/* SMB2_RESUME_KEY_LEN bytes */
	uint32_t chunk_count;
	const uint8_t *chunks;		/* chunk_count elements (input) */
};

struct smb2_copychunk {
	uint64_t source_offset;
	uint64_t target_offset;
	uint32_t length;
};

struct smb2_copychunk_rsp {
	uint32_t chunks_written;
	uint32_t chunk_bytes_written;
	uint32_t total_bytes_written;
};

struct smb2_zero_data {
	uint64_t file_offset;
	uint64_t beyond_final_zero;
};

struct smb2_alloc_range {
	uint64_t file_offset;
	uint64_t length;
};

struct smb2_object_id {
	uint8_t object_id[16];
	uint8_t birth_volume_id[16];
	uint8_t birth_object_id[16];
	uint8_t domain_id[16];
};

struct smb2_net_iface {
	uint32_t if_index;
	uint32_t capability;		/* SMB2_NET_IFACE_* */
	uint64_t link_speed;		/* bits per second */
	uint16_t family;		/* SMB2_SOCKADDR_INET(6) */
	uint16_t port;			/* host order */
	uint8_t addr[16];		/* 4 bytes for INET, network order */
	uint32_t flow_info;
	uint32_t scope_id;
};

/*
 * VALIDATE_NEGOTIATE_INFO request.  INVALID_PARAMETER when the fixed
 * part is short, DialectCount is 0 or the dialects do not fit in len;
 * bytes after them are ignored.  Whether the values match what
 * NEGOTIATE saw is the server's decision (3.3.5.15.12).
 */
NTSTATUS smb2_validate_negotiate_req_pull(
	const uint8_t *buf, size_t len,
	struct smb2_validate_negotiate_req *out);
/* Dialect i < r->dialect_count of a pulled request. */
uint16_t smb2_validate_negotiate_dialect(
	const struct smb2_validate_negotiate_req *r, size_t i);
/* For tests and the fuzzer: the request, dialects copied as they are. */
size_t smb2_validate_negotiate_req_push(
	const struct smb2_validate_negotiate_req *in, uint8_t *buf,
	size_t len);
size_t smb2_validate_negotiate_rsp_push(
	const struct smb2_validate_negotiate_rsp *in, uint8_t *buf,
	size_t len);
NTSTATUS smb2_validate_negotiate_rsp_pull(
	const uint8_t *buf, size_t len,
	struct smb2_validate_negotiate_rsp *out);

/*
 * SRV_COPYCHUNK_COPY.  The chunk array is not copied: chunk i is read
 * with smb2_copychunk_get().  INVALID_PARAMETER when the fixed part is
 * short or ChunkCount elements do not fit in len (a lying count costs
 * nothing).  Bytes after the last chunk are ignored, as Samba does.
 */
NTSTATUS smb2_copychunk_copy_pull(const uint8_t *buf, size_t len,
				  struct smb2_copychunk_copy *out);
/* Element i < cc->chunk_count of a pulled SRV_COPYCHUNK_COPY. */
void smb2_copychunk_get(const struct smb2_copychunk_copy *cc, uint32_t i,
			struct smb2_copychunk *out);
/* For tests and the fuzzer: the request from its parts. */
size_t smb2_copychunk_copy_push(const uint8_t *key,
				const struct smb2_copychunk *chunks,
				uint32_t count, uint8_t *buf, size_t len);

/*
 * Pushes write at most len bytes and return the size written, or 0 when
 * len is too small for the structure.
 */
size_t smb2_copychunk_rsp_push(const struct smb2_copychunk_rsp *in,
			       uint8_t *buf, size_t len);
NTSTATUS smb2_copychunk_rsp_pull(const uint8_t *buf, size_t len,
				 struct smb2_copychunk_rsp *out);
size_t smb2_resume_key_rsp_push(const uint8_t *key, uint8_t *buf,
				size_t len);

/*
 * Our ResumeKey (opaque to the client, 2.2.32.3): the source open's
 * FileId, Persistent then Volatile, and 8 zero bytes.  The pull reads
 * the FileId back out of the SourceKey of a SRV_COPYCHUNK_COPY (which
 * smb2_copychunk_copy_pull checked to be SMB2_RESUME_KEY_LEN bytes).
 */
void smb2_resume_key_push(uint64_t persistent, uint64_t volatile_id,
			  uint8_t key[SMB2_RESUME_KEY_LEN]);
void smb2_resume_key_pull(const uint8_t key[SMB2_RESUME_KEY_LEN],
			  uint64_t *persistent, uint64_t *volatile_id);

/* FILE_SET_SPARSE_BUFFER: an empty buffer means SetSparse = TRUE. */
NTSTATUS smb2_set_sparse_pull(const uint8_t *buf, size_t len, bool *sparse);

/* Exactly-sized or longer (trailing bytes ignored); short: INVALID_PARAMETER */
NTSTATUS smb2_zero_data_pull(const uint8_t *buf, size_t len,
			     struct smb2_zero_data *out);
NTSTATUS smb2_alloc_range_pull(const uint8_t *buf, size_t len,
			       struct smb2_alloc_range *out);
size_t smb2_alloc_range_push(const struct smb2_alloc_range *in,
			     uint8_t *buf, size_t len);

/* COMPRESSION_STATE: a 16-bit CompressionFormat (MS-FSCC 2.3.9, 2.3.67) */
NTSTATUS smb2_compression_pull(const uint8_t *buf, size_t len,
			       uint16_t *format);
size_t smb2_compression_push(uint16_t format, uint8_t *buf, size_t len);

size_t smb2_object_id_push(const struct smb2_object_id *in, uint8_t *buf,
			   size_t len);

/*
 * The NETWORK_INTERFACE_INFO chain: n entries, each Next pointing at the
 * following one, the last 0.  Returns n * SMB2_NET_IFACE_SIZE or 0 when
 * that does not fit in len.  An unknown family is refused (0).
 */
size_t smb2_net_iface_push(const struct smb2_net_iface *ifs, size_t n,
			   uint8_t *buf, size_t len);
/*
 * Entry i of such a chain, walked by Next with every offset checked
 * (for tests and the fuzzer: clients parse this, we only build it).
 */
NTSTATUS smb2_net_iface_pull(const uint8_t *buf, size_t len, size_t *ofs,
			     struct smb2_net_iface *out);

#endif
