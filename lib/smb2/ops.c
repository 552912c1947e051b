/*
 * Per-opcode facts: names for logs and request StructureSize values
 * (MS-SMB2 2.2.3 - 2.2.39).
 */
#include "lib/smb2/smb2_private.h"

static const struct {
	const char *name;
	uint16_t req_size;
} smb2_ops[SMB2_OP_COUNT] = {
	[SMB2_OP_NEGPROT] = { "NEGOTIATE", SMB2_NEGPROT_REQ_SIZE },
	[SMB2_OP_SESSSETUP] = { "SESSION_SETUP", SMB2_SESSSETUP_REQ_SIZE },
	[SMB2_OP_LOGOFF] = { "LOGOFF", SMB2_LOGOFF_REQ_SIZE },
	[SMB2_OP_TCON] = { "TREE_CONNECT", SMB2_TCON_REQ_SIZE },
	[SMB2_OP_TDIS] = { "TREE_DISCONNECT", SMB2_TDIS_REQ_SIZE },
	[SMB2_OP_CREATE] = { "CREATE", SMB2_CREATE_REQ_SIZE },
	[SMB2_OP_CLOSE] = { "CLOSE", SMB2_CLOSE_REQ_SIZE },
	[SMB2_OP_FLUSH] = { "FLUSH", SMB2_FLUSH_REQ_SIZE },
	[SMB2_OP_READ] = { "READ", SMB2_READ_REQ_SIZE },
	[SMB2_OP_WRITE] = { "WRITE", SMB2_WRITE_REQ_SIZE },
	[SMB2_OP_LOCK] = { "LOCK", SMB2_LOCK_REQ_SIZE },
	[SMB2_OP_IOCTL] = { "IOCTL", SMB2_IOCTL_REQ_SIZE },
	[SMB2_OP_CANCEL] = { "CANCEL", SMB2_CANCEL_REQ_SIZE },
	[SMB2_OP_ECHO] = { "ECHO", SMB2_ECHO_REQ_SIZE },
	[SMB2_OP_QUERY_DIRECTORY] = { "QUERY_DIRECTORY",
				      SMB2_QUERY_DIRECTORY_REQ_SIZE },
	[SMB2_OP_CHANGE_NOTIFY] = { "CHANGE_NOTIFY",
				    SMB2_CHANGE_NOTIFY_REQ_SIZE },
	[SMB2_OP_QUERY_INFO] = { "QUERY_INFO", SMB2_QUERY_INFO_REQ_SIZE },
	[SMB2_OP_SET_INFO] = { "SET_INFO", SMB2_SET_INFO_REQ_SIZE },
	[SMB2_OP_OPLOCK_BREAK] = { "OPLOCK_BREAK", SMB2_OPLOCK_BREAK_SIZE },
};

const char *smb2_op_name(uint16_t command)
{
	if (command >= SMB2_OP_COUNT) {
		return "UNKNOWN";
	}
	return smb2_ops[command].name;
}

uint16_t smb2_req_struct_size(uint16_t command)
{
	if (command >= SMB2_OP_COUNT) {
		return 0;
	}
	return smb2_ops[command].req_size;
}

uint16_t smb2_u16_at(const uint8_t *arr, size_t i)
{
	return pull_le16(arr + 2 * i);
}

bool smb2_u16_array_has(const uint8_t *arr, size_t count, uint16_t v)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (smb2_u16_at(arr, i) == v) {
			return true;
		}
	}
	return false;
}
