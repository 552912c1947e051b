/*
 * The dispatch table.  Body offsets are those of MS-SMB2 2.2.x requests
 * (FileId and the length fields that CreditCharge must cover); they are
 * written here once and nowhere else.  Each handler is listed by its full
 * name (commands/commands.h).
 */
#include "source3/smbd/commands/commands.h"
#include "source3/smbd/pipeline/dispatch.h"

static const struct smbd_cmd smbd_cmds[SMB2_OP_COUNT] = {
	[SMB2_OP_NEGPROT] = {
		"NEGOTIATE", SMBD_NEED_NONE,
		.send = smbd_negprot_send, .recv = smbd_negprot_recv,
		.on_response = smbd_negprot_on_response,
	},
	[SMB2_OP_SESSSETUP] = {
		"SESSION_SETUP", SMBD_NEED_NONE,
		.frees_session_state = true, .sets_signing_key = true,
		.send = smbd_sesssetup_send, .recv = smbd_sesssetup_recv,
		.on_response = smbd_sesssetup_on_response,
	},
	[SMB2_OP_LOGOFF] = {
		"LOGOFF", SMBD_NEED_SESSION, .frees_session_state = true,
		.send = smbd_logoff_send, .recv = smbd_logoff_recv,
	},
	[SMB2_OP_TCON] = {
		"TREE_CONNECT", SMBD_NEED_SESSION,
		.send = smbd_tcon_send, .recv = smbd_tcon_recv,
	},
	[SMB2_OP_TDIS] = {
		"TREE_DISCONNECT", SMBD_NEED_TCON, .frees_session_state = true,
		.on_ipc = true,
		.send = smbd_tdis_send, .recv = smbd_tdis_recv,
	},
	[SMB2_OP_CREATE] = {
		"CREATE", SMBD_NEED_TCON, .may_change = true,
		.on_ipc = true,
		.opens_file = true,
		.send = smbd_create_send, .recv = smbd_create_recv,
	},
	[SMB2_OP_CLOSE] = {
		"CLOSE", SMBD_NEED_TCON, .fileid_ofs = 0x08,
		.on_ipc = true,
		.may_change = true, .frees_session_state = true,
		.send = smbd_close_send, .recv = smbd_close_recv,
	},
	[SMB2_OP_READ] = {
		"READ", SMBD_NEED_TCON, .fileid_ofs = 0x10,
		.on_ipc = true,
		.charge_ofs = 0x04, .io_offset_ofs = 0x08,
		.send = smbd_read_send, .recv = smbd_read_recv,
	},
	[SMB2_OP_WRITE] = {
		"WRITE", SMBD_NEED_TCON, .fileid_ofs = 0x10,
		.on_ipc = true,
		.charge_ofs = 0x04, .io_offset_ofs = 0x08, .may_change = true,
		.refuses_stale_channel = true,
		.send = smbd_write_send, .recv = smbd_write_recv,
	},
	[SMB2_OP_FLUSH] = {
		"FLUSH", SMBD_NEED_TCON, .fileid_ofs = 0x08,
		.send = smbd_flush_send, .recv = smbd_flush_recv,
	},
	[SMB2_OP_LOCK] = {
		"LOCK", SMBD_NEED_TCON, .fileid_ofs = 0x08,
		.send = smbd_lock_send, .recv = smbd_lock_recv,
	},
	[SMB2_OP_IOCTL] = {
		"IOCTL", SMBD_NEED_TCON, .fileid_ofs = 0x08,
		.on_ipc = true,
		.fileid_optional = true, .charge_ofs = 0x1C,
		.charge_ofs2 = 0x2C, .may_change = true,
		.refuses_stale_channel = true,
		.send = smbd_ioctl_send, .recv = smbd_ioctl_recv,
	},
	[SMB2_OP_ECHO] = {
		"ECHO", SMBD_NEED_NONE,
		.send = smbd_echo_send, .recv = smbd_echo_recv,
	},
	[SMB2_OP_QUERY_DIRECTORY] = {
		"QUERY_DIRECTORY", SMBD_NEED_TCON, .fileid_ofs = 0x08,
		.charge_ofs = 0x1C,
		.send = smbd_query_directory_send,
		.recv = smbd_query_directory_recv,
	},
	[SMB2_OP_QUERY_INFO] = {
		"QUERY_INFO", SMBD_NEED_TCON, .fileid_ofs = 0x18,
		.on_ipc = true,
		.charge_ofs = 0x04, .charge_ofs2 = 0x0C,
		.send = smbd_query_info_send, .recv = smbd_query_info_recv,
	},
	/* MS-SMB2 2.2.39: FileId follows AdditionalInformation at 0x10 */
	[SMB2_OP_SET_INFO] = {
		"SET_INFO", SMBD_NEED_TCON, .fileid_ofs = 0x10,
		.charge_ofs = 0x04, .may_change = true,
		.refuses_stale_channel = true,
		.send = smbd_set_info_send, .recv = smbd_set_info_recv,
	},
	/* OutputBufferLength at 0x04 is what CreditCharge must cover */
	[SMB2_OP_CHANGE_NOTIFY] = {
		"CHANGE_NOTIFY", SMBD_NEED_TCON, .fileid_ofs = 0x08,
		.charge_ofs = 0x04,
		.send = smbd_notify_send, .recv = smbd_notify_recv,
	},
	/* the oplock acknowledgment has a FileId, the lease one not */
	[SMB2_OP_OPLOCK_BREAK] = {
		"OPLOCK_BREAK", SMBD_NEED_TCON, .fileid_ofs = 0x08,
		.fileid_body_len = SMB2_OPLOCK_BREAK_SIZE,
		.send = smbd_oplock_break_send,
		.recv = smbd_oplock_break_recv,
	},
	/* CANCEL is handled by the pipeline: it has no response at all. */
};

const struct smbd_cmd *smbd_cmd_lookup(uint16_t opcode)
{
	if (opcode >= SMB2_OP_COUNT || smbd_cmds[opcode].send == NULL) {
		return NULL;
	}
	return &smbd_cmds[opcode];
}
