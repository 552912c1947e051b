/*
 * The parameter table: every smb.conf parameter ringsmb understands, with
 * Samba's names and synonyms.  Adding a parameter is a struct field plus
 * one entry here (and a line in docs/smb.conf.md).
 */
#include <ctype.h>
#include <string.h>
#include "lib/param/param_private.h"

_Static_assert(sizeof(enum lp_map_to_guest) == sizeof(int),
	       "LP_ENUM fields are accessed as int");

#define G(field) .scope = LP_SCOPE_GLOBAL, \
	.offset = offsetof(struct lp_global, field)
#define S(field) .scope = LP_SCOPE_SHARE, \
	.offset = offsetof(struct lp_share, field)
#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const struct lp_enum_val map_to_guest_vals[] = {
	{ "Never", LP_MAP_TO_GUEST_NEVER },
	{ "Bad User", LP_MAP_TO_GUEST_BAD_USER },
	{ "Bad Password", LP_MAP_TO_GUEST_BAD_PASSWORD },
	{ "Bad Uid", LP_MAP_TO_GUEST_BAD_UID },
	{ NULL, 0 },
};

static const struct lp_enum_val signing_vals[] = {
	{ "default", LP_SMB_DEFAULT },
	{ "auto", LP_SMB_IF_REQUIRED },
	{ "mandatory", LP_SMB_REQUIRED },
	{ "disabled", LP_SMB_OFF },
	{ "desired", LP_SMB_DESIRED },
	{ "if_required", LP_SMB_IF_REQUIRED },
	{ "required", LP_SMB_REQUIRED },
	{ "off", LP_SMB_OFF },
	{ "no", LP_SMB_OFF },
	{ "false", LP_SMB_OFF },
	{ "yes", LP_SMB_IF_REQUIRED },
	{ "true", LP_SMB_IF_REQUIRED },
	{ NULL, 0 },
};

static const struct lp_enum_val encrypt_vals[] = {
	{ "default", LP_SMB_DEFAULT },
	{ "off", LP_SMB_OFF },
	{ "if_required", LP_SMB_IF_REQUIRED },
	{ "desired", LP_SMB_DESIRED },
	{ "required", LP_SMB_REQUIRED },
	{ "disabled", LP_SMB_OFF },
	{ "no", LP_SMB_OFF },
	{ "false", LP_SMB_OFF },
	{ "auto", LP_SMB_IF_REQUIRED },
	{ "enabled", LP_SMB_IF_REQUIRED },
	{ "yes", LP_SMB_IF_REQUIRED },
	{ "true", LP_SMB_IF_REQUIRED },
	{ "mandatory", LP_SMB_REQUIRED },
	{ NULL, 0 },
};

static const struct lp_enum_val inherit_owner_vals[] = {
	{ "no", LP_INHERIT_OWNER_NO },
	{ "windows and unix", LP_INHERIT_OWNER_WINDOWS_AND_UNIX },
	{ "unix only", LP_INHERIT_OWNER_UNIX_ONLY },
	{ "false", LP_INHERIT_OWNER_NO },
	{ "off", LP_INHERIT_OWNER_NO },
	{ "yes", LP_INHERIT_OWNER_WINDOWS_AND_UNIX },
	{ "true", LP_INHERIT_OWNER_WINDOWS_AND_UNIX },
	{ "on", LP_INHERIT_OWNER_WINDOWS_AND_UNIX },
	{ NULL, 0 },
};

static const struct lp_enum_val read_mode_vals[] = {
	{ "auto", LP_READ_MODE_AUTO },
	{ "copy", LP_READ_MODE_COPY },
	{ "splice", LP_READ_MODE_SPLICE },
	{ "zerocopy", LP_READ_MODE_ZEROCOPY },
	{ NULL, 0 },
};

static const struct lp_enum_val write_mode_vals[] = {
	{ "copy", LP_WRITE_MODE_COPY },
	{ "splice", LP_WRITE_MODE_SPLICE },
	{ NULL, 0 },
};

static const struct lp_enum_val case_sensitive_vals[] = {
	{ "auto", LP_CASE_AUTO },
	{ "yes", LP_CASE_YES },
	{ "true", LP_CASE_YES },
	{ "no", LP_CASE_NO },
	{ "false", LP_CASE_NO },
	{ NULL, 0 },
};

static const struct lp_enum_val mangled_names_vals[] = {
	{ "illegal", LP_MANGLED_ILLEGAL },
	{ "yes", LP_MANGLED_YES },
	{ "true", LP_MANGLED_YES },
	{ "no", LP_MANGLED_NO },
	{ "false", LP_MANGLED_NO },
	{ NULL, 0 },
};

const struct lp_param lp_params[] = {
	/* [global] only */
	{ "smb ports", LP_PORTS, G(smb_ports), .def = "445",
	  .count_offset = offsetof(struct lp_global, num_smb_ports) },
	{ "interfaces", LP_LIST, G(interfaces), .def = "" },
	{ "bind interfaces only", LP_BOOL, G(bind_interfaces_only),
	  .def = "no" },
	{ "server min protocol", LP_PROTOCOL, G(server_min_protocol),
	  .def = "SMB2_02", .synonyms = NAMES("min protocol") },
	{ "server max protocol", LP_PROTOCOL, G(server_max_protocol),
	  .def = "SMB3_11", .flags = LP_FLAG_PROTO_MAX,
	  .synonyms = NAMES("max protocol", "protocol") },
	{ "log level", LP_LOGLEVEL, G(log_level), .def = "1",
	  .text_offset = offsetof(struct lp_global, log_levels),
	  .synonyms = NAMES("debuglevel") },
	{ "log file", LP_STRING, G(log_file), .def = "" },
	{ "max log size", LP_INT, G(max_log_size), .def = "5000",
	  .min = 0, .max = 1 << 30 },
	{ "logging", LP_LOGGING, G(logging), .def = "" },
	{ "map to guest", LP_ENUM, G(map_to_guest), .def = "Never",
	  .enums = map_to_guest_vals },
	{ "netbios name", LP_STRING, G(netbios_name), .def = NULL,
	  .max_len = 15, .flags = LP_FLAG_UPPER },
	{ "workgroup", LP_STRING, G(workgroup), .def = "WORKGROUP",
	  .max_len = 15 },
	{ "server string", LP_STRING, G(server_string),
	  .def = "ringsmb" },
	{ "io_uring", LP_BOOL, G(io_uring), .def = "yes" },
	{ "logon backoff", LP_BOOL, G(logon_backoff), .def = "yes" },
	{ "server multi channel support", LP_BOOL,
	  G(server_multi_channel_support), .def = "yes" },
	{ "max connections", LP_INT, G(max_connections), .def = "0",
	  .min = 0, .max = 1 << 24 },
	/*
	 * Untrusted sessions and the descriptor budget (docs/smb.conf.md,
	 * "Limits for untrusted clients"): "max open files" is Samba's name
	 * (all handles of the server here: one process serves everyone);
	 * the others are ringsmb's.  0 = computed from RLIMIT_NOFILE.
	 */
	{ "max open files", LP_INT, G(max_open_files), .def = "0",
	  .min = 0, .max = 1 << 24 },
	{ "smb2 fd reserve", LP_INT, G(fd_reserve), .def = "256",
	  .min = 16, .max = 1 << 20 },
	{ "smb2 max open files per session", LP_INT,
	  G(max_open_files_per_session), .def = "16384",
	  .min = 1, .max = 1 << 24 },
	{ "smb2 untrusted max open files", LP_INT,
	  G(untrusted_max_open_files), .def = "256",
	  .min = 1, .max = 1 << 24 },
	{ "smb2 untrusted max open files per client", LP_INT,
	  G(untrusted_max_open_files_per_client), .def = "1024",
	  .min = 1, .max = 1 << 24 },
	{ "smb2 untrusted max open files total", LP_INT,
	  G(untrusted_max_open_files_total), .def = "0",
	  .min = 0, .max = 1 << 24 },
	/* 68 KiB: one 64 KiB WRITE (or READ response) and its headers */
	{ "smb2 untrusted max pdu", LP_INT, G(untrusted_max_pdu),
	  .def = "69632", .min = 4096, .max = 8 << 20 },
	{ "smb2 untrusted timeout", LP_INT, G(untrusted_timeout),
	  .def = "60", .min = 1, .max = 86400 },
	{ "smb2 max receive buffer", LP_INT, G(max_receive_buffer),
	  .def = "512", .min = 1, .max = 1 << 20 },
	{ "deadtime", LP_INT, G(deadtime), .def = "0",
	  .min = 0, .max = 1 << 24 },
	{ "pid directory", LP_STRING, G(pid_directory),
	  .def = LP_DEFAULT_PID_DIR },
	{ "private dir", LP_STRING, G(private_dir),
	  .def = LP_DEFAULT_PRIVATE_DIR,
	  .synonyms = NAMES("private directory") },
	{ "lock directory", LP_STRING, G(lock_directory),
	  .def = LP_DEFAULT_LOCK_DIR, .synonyms = NAMES("lock dir") },
	/* the Prometheus endpoint (docs/admin.md); "": none */
	{ "metrics listen", LP_STRING, G(metrics_listen), .def = "" },
	{ "smb passwd file", LP_STRING, G(smb_passwd_file),
	  .def = LP_DEFAULT_SMB_PASSWD },
	/* users' RIDs without an entry in the SID file (docs/accounts.md) */
	{ "algorithmic rid base", LP_INT, G(algorithmic_rid_base),
	  .def = "1000", .min = 1000, .max = 1 << 30 },
	{ "server signing", LP_ENUM, G(server_signing), .def = "default",
	  .enums = signing_vals },
	{ "restrict anonymous", LP_INT, G(restrict_anonymous), .def = "0",
	  .min = 0, .max = 2 },
	{ "guest account", LP_STRING, G(guest_account), .def = "nobody" },
	{ "username map", LP_STRING, G(username_map), .def = "" },
	{ "oplock break timeout", LP_INT, G(oplock_break_timeout),
	  .def = "35", .min = 1, .max = 3600 },
	{ "smb2 leases", LP_BOOL, G(smb2_leases), .def = "yes" },
	/* ringsmb: unsigned WRITE payloads socket -> pipe -> file */
	{ "smb2 write mode", LP_ENUM, G(write_mode), .def = "copy",
	  .enums = write_mode_vals },
	/*
	 * ringsmb: worker threads, each with its own event loop and ring
	 * (docs/architecture.md, "Workers"); -1 = online CPUs
	 */
	{ "smb2 workers", LP_INT, G(workers), .def = "-1",
	  .min = -1, .max = 64 },
	/*
	 * ringsmb: threads for the AES passes over large messages
	 * (docs/performance.md, "Crypto off the event loop"); -1 = online
	 * CPUs up to 8, 0 = all in the event loop.  Which passes go to them
	 * (decrypt, encrypt, verify, sign) from how many bytes.
	 */
	{ "smb2 crypto threads", LP_INT, G(crypto_threads), .def = "-1",
	  .min = -1, .max = 64 },
	{ "smb2 crypto offload", LP_LIST, G(crypto_offload),
	  .def = "decrypt" },
	{ "smb2 crypto min size", LP_INT, G(crypto_min_size),
	  .def = "65536", .min = 0, .max = 1 << 30 },

	/* shares; in [global] they set the default for every share */
	{ "path", LP_STRING, S(path), .def = "",
	  .synonyms = NAMES("directory") },
	{ "comment", LP_STRING, S(comment), .def = "" },
	{ "read only", LP_BOOL, S(read_only), .def = "yes",
	  .inverted = NAMES("writeable", "writable", "write ok") },
	{ "guest ok", LP_BOOL, S(guest_ok), .def = "no",
	  .synonyms = NAMES("public") },
	{ "browseable", LP_BOOL, S(browseable), .def = "yes",
	  .synonyms = NAMES("browsable") },
	{ "available", LP_BOOL, S(available), .def = "yes" },
	{ "vfs objects", LP_LIST, S(vfs_objects), .def = "",
	  .synonyms = NAMES("vfs object") },
	{ "valid users", LP_LIST, S(valid_users), .def = "" },
	{ "invalid users", LP_LIST, S(invalid_users), .def = "" },
	{ "read list", LP_LIST, S(read_list), .def = "" },
	{ "write list", LP_LIST, S(write_list), .def = "" },
	{ "admin users", LP_LIST, S(admin_users), .def = "" },
	{ "guest only", LP_BOOL, S(guest_only), .def = "no",
	  .synonyms = NAMES("only guest") },
	{ "hosts allow", LP_LIST, S(hosts_allow), .def = "",
	  .synonyms = NAMES("allow hosts") },
	{ "hosts deny", LP_LIST, S(hosts_deny), .def = "",
	  .synonyms = NAMES("deny hosts") },
	{ "force user", LP_STRING, S(force_user), .def = "" },
	{ "force group", LP_STRING, S(force_group), .def = "",
	  .synonyms = NAMES("group") },
	{ "veto files", LP_STRING, S(veto_files), .def = "" },
	{ "delete veto files", LP_BOOL, S(delete_veto_files), .def = "no" },
	{ "hide files", LP_STRING, S(hide_files), .def = "" },
	{ "hide dot files", LP_BOOL, S(hide_dot_files), .def = "yes" },
	{ "hide unreadable", LP_BOOL, S(hide_unreadable), .def = "no" },
	{ "access based share enum", LP_BOOL, S(access_based_share_enum),
	  .def = "no" },
	{ "create mask", LP_OCTAL, S(create_mask), .def = "0744",
	  .synonyms = NAMES("create mode") },
	{ "directory mask", LP_OCTAL, S(directory_mask), .def = "0755",
	  .synonyms = NAMES("directory mode") },
	{ "force create mode", LP_OCTAL, S(force_create_mode), .def = "0000" },
	{ "force directory mode", LP_OCTAL, S(force_directory_mode),
	  .def = "0000" },
	{ "inherit permissions", LP_BOOL, S(inherit_permissions),
	  .def = "no" },
	{ "map archive", LP_BOOL, S(map_archive), .def = "yes" },
	{ "inherit owner", LP_ENUM, S(inherit_owner), .def = "no",
	  .enums = inherit_owner_vals },
	{ "strict sync", LP_BOOL, S(strict_sync), .def = "yes" },
	{ "ea support", LP_BOOL, S(ea_support), .def = "yes" },
	{ "oplocks", LP_BOOL, S(oplocks), .def = "yes" },
	{ "level2 oplocks", LP_BOOL, S(level2_oplocks), .def = "yes",
	  .synonyms = NAMES("level II oplocks") },
	{ "kernel oplocks", LP_BOOL, S(kernel_oplocks), .def = "no" },
	{ "durable handles", LP_BOOL, S(durable_handles), .def = "yes" },
	{ "case sensitive", LP_ENUM, S(case_sensitive), .def = "auto",
	  .enums = case_sensitive_vals,
	  .synonyms = NAMES("casesignames") },
	{ "preserve case", LP_BOOL, S(preserve_case), .def = "yes" },
	{ "mangled names", LP_ENUM, S(mangled_names), .def = "illegal",
	  .enums = mangled_names_vals },
	/*
	 * ringsmb: how READ payloads reach the socket (docs/performance.md).
	 * auto by default: splice (page-cache pages lent to the socket) only
	 * while no SMB open of the file can write it, copy otherwise, so no
	 * SMB client can change bytes already promised; "splice" always
	 * splices (sendfile semantics, docs/architecture.md, "Data path
	 * modes").
	 */
	{ "smb2 read mode", LP_ENUM, S(read_mode), .def = "auto",
	  .enums = read_mode_vals },
	{ "min splice size", LP_INT, S(min_splice_size), .def = "65536",
	  .min = 0, .max = 1 << 30 },
	/*
	 * ringsmb: zerocopy READs read into and send from a per-worker
	 * pool of this many registered buffers (max read size each);
	 * 0 = ordinary buffers.  Off by default: docs/performance.md.
	 */
	{ "io_uring:registered buffers", LP_INT, S(registered_buffers),
	  .def = "0", .min = 0, .max = 64 },
	{ "server smb encrypt", LP_ENUM, .scope = LP_SCOPE_SHARE |
	  LP_SCOPE_GLOBAL, .offset = offsetof(struct lp_share, smb_encrypt),
	  .goffset = offsetof(struct lp_global, smb_encrypt),
	  .def = "default", .enums = encrypt_vals,
	  .synonyms = NAMES("smb encrypt") },
};

const size_t lp_num_params = sizeof(lp_params) / sizeof(lp_params[0]);

static bool lp_name_skip(char c)
{
	return c == ' ' || c == '\t' || c == '_';
}

/* Samba matches names ignoring case, blanks and underscores. */
bool lp_name_eq(const char *a, const char *b)
{
	for (;;) {
		while (lp_name_skip(*a)) {
			a++;
		}
		while (lp_name_skip(*b)) {
			b++;
		}
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
			return false;
		}
		if (*a == '\0') {
			return true;
		}
		a++;
		b++;
	}
}

static bool lp_name_in(const char *name, const char *const *names)
{
	for (; names != NULL && *names != NULL; names++) {
		if (lp_name_eq(name, *names)) {
			return true;
		}
	}
	return false;
}

const struct lp_param *lp_param_find(const char *name, bool *inverted)
{
	size_t i;

	*inverted = false;
	for (i = 0; i < lp_num_params; i++) {
		const struct lp_param *p = &lp_params[i];

		if (lp_name_eq(name, p->name) ||
		    lp_name_in(name, p->synonyms)) {
			return p;
		}
		if (lp_name_in(name, p->inverted)) {
			*inverted = true;
			return p;
		}
	}
	return NULL;
}
