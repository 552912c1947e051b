/*
 * The dispatch table.  Body offsets are those of MS-SMB2 2.2.x requests
 * (FileId and the length fields that CreditCharge must cover); they are
 * written here once and nowhere else.
 */
#include "source3/smbd/dispatch.h"

#define CMD(fn) .send = smb2_##fn##_send, .recv = smb2_##fn##_recv

static const struct smbd_cmd smbd_cmds[SMB2_OP_COUNT] = {
	[SMB2_OP_NEGPROT] = { "NEGOTIATE", SMBD_NEED_NONE, CMD(negprot),
			      .on_response = smb2_negprot_on_response },
	[SMB2_OP_SESSSETUP] = { "SESSION_SETUP", SMBD_NEED_NONE,
				CMD(sesssetup),
				.on_response = smb2_sesssetup_on_response },
	[SMB2_OP_LOGOFF] = { "LOGOFF", SMBD_NEED_SESSION, CMD(logoff) },
	[SMB2_OP_TCON] = { "TREE_CONNECT", SMBD_NEED_SESSION, CMD(tcon) },
	[SMB2_OP_TDIS] = { "TREE_DISCONNECT", SMBD_NEED_TCON, CMD(tdis) },
	[SMB2_OP_CREATE] = { "CREATE", SMBD_NEED_TCON, CMD(create) },
	[SMB2_OP_CLOSE] = { "CLOSE", SMBD_NEED_TCON, .fileid_ofs = 0x08,
			    CMD(close) },
	[SMB2_OP_READ] = { "READ", SMBD_NEED_TCON, .fileid_ofs = 0x10,
			   .charge_ofs = 0x04, CMD(read) },
	[SMB2_OP_WRITE] = { "WRITE", SMBD_NEED_TCON, .fileid_ofs = 0x10,
			    .charge_ofs = 0x04, CMD(write) },
	[SMB2_OP_FLUSH] = { "FLUSH", SMBD_NEED_TCON, .fileid_ofs = 0x08,
			    CMD(flush) },
	[SMB2_OP_LOCK] = { "LOCK", SMBD_NEED_TCON, .fileid_ofs = 0x08,
			   CMD(lock) },
	[SMB2_OP_IOCTL] = { "IOCTL", SMBD_NEED_TCON, .fileid_ofs = 0x08,
			    .fileid_optional = true, .charge_ofs = 0x1C,
			    .charge_ofs2 = 0x2C, CMD(ioctl) },
	[SMB2_OP_ECHO] = { "ECHO", SMBD_NEED_NONE, CMD(echo) },
	[SMB2_OP_QUERY_DIRECTORY] = { "QUERY_DIRECTORY", SMBD_NEED_TCON,
				      .fileid_ofs = 0x08, .charge_ofs = 0x1C,
				      CMD(query_directory) },
	[SMB2_OP_QUERY_INFO] = { "QUERY_INFO", SMBD_NEED_TCON,
				 .fileid_ofs = 0x18, .charge_ofs = 0x04,
				 .charge_ofs2 = 0x0C, CMD(query_info) },
	/* MS-SMB2 2.2.39: FileId follows AdditionalInformation at 0x10 */
	[SMB2_OP_SET_INFO] = { "SET_INFO", SMBD_NEED_TCON,
			       .fileid_ofs = 0x10, .charge_ofs = 0x04,
			       CMD(set_info) },
	/* OutputBufferLength at 0x04 is what CreditCharge must cover */
	[SMB2_OP_CHANGE_NOTIFY] = { "CHANGE_NOTIFY", SMBD_NEED_TCON,
				    .fileid_ofs = 0x08, .charge_ofs = 0x04,
				    CMD(notify) },
	/* the oplock acknowledgment has a FileId, the lease one not */
	[SMB2_OP_OPLOCK_BREAK] = { "OPLOCK_BREAK", SMBD_NEED_TCON,
				   .fileid_ofs = 0x08,
				   .fileid_body_len = SMB2_OPLOCK_BREAK_SIZE,
				   CMD(oplock_break) },
	/* CANCEL is handled by the pipeline: it has no response at all. */
};

const struct smbd_cmd *smbd_cmd_lookup(uint16_t opcode)
{
	if (opcode >= SMB2_OP_COUNT || smbd_cmds[opcode].send == NULL) {
		return NULL;
	}
	return &smbd_cmds[opcode];
}
