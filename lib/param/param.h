/*
 * smb.conf loading: Samba syntax, Samba parameter names.
 *
 * A configuration is loaded in one go into a struct loadparm (a talloc
 * tree: every string, list and share hangs off it) and never changes
 * afterwards; SIGHUP loads a new one.  Loading collects diagnostics
 * instead of printing them, so testparm and smbd decide where they go.
 *
 * Parameters are described by one table (lib/param/param_table.c); the
 * reference is docs/smb.conf.md.
 */
#ifndef RINGSMB_PARAM_H
#define RINGSMB_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <talloc.h>
#include <sys/socket.h>

/*
 * Install prefix (Samba's /usr/local/samba); the build may override it
 * with -DRINGSMB_PREFIX=... for every directory at once.
 */
#ifndef RINGSMB_PREFIX
#define RINGSMB_PREFIX "/usr/local/ringsmb"
#endif
#define LP_DEFAULT_CONFIG_FILE   RINGSMB_PREFIX "/etc/smb.conf"
#define LP_DEFAULT_PRIVATE_DIR   RINGSMB_PREFIX "/private"
#define LP_DEFAULT_PID_DIR       RINGSMB_PREFIX "/var/run"
#define LP_DEFAULT_LOCK_DIR      RINGSMB_PREFIX "/var/lock"
#define LP_DEFAULT_SMB_PASSWD    RINGSMB_PREFIX "/private/smbpasswd"

/* SMB2 dialect codes, as in the NEGOTIATE request */
#define LP_DIALECT_SMB2_02 0x0202
#define LP_DIALECT_SMB2_10 0x0210
#define LP_DIALECT_SMB3_00 0x0300
#define LP_DIALECT_SMB3_02 0x0302
#define LP_DIALECT_SMB3_11 0x0311

enum lp_map_to_guest {
	LP_MAP_TO_GUEST_NEVER = 0,
	LP_MAP_TO_GUEST_BAD_USER,
	LP_MAP_TO_GUEST_BAD_PASSWORD,
	LP_MAP_TO_GUEST_BAD_UID,
};

/* "server signing" and "server smb encrypt" (Samba's smb_signing_setting) */
enum lp_smb_setting {
	LP_SMB_DEFAULT = 0,     /* signing: required for user sessions;
				 * encryption: offered, not required */
	LP_SMB_OFF,             /* "disabled" / "off" */
	LP_SMB_IF_REQUIRED,     /* "auto" / "if_required" */
	LP_SMB_DESIRED,         /* "desired" */
	LP_SMB_REQUIRED,        /* "mandatory" / "required" */
};

/* "case sensitive" (Samba's): auto is case-insensitive for SMB2 clients */
enum lp_case_sensitive {
	LP_CASE_AUTO = 0,
	LP_CASE_YES,
	LP_CASE_NO,
};

/* "mangled names" (Samba's): where 8.3 names show (docs/vfs.md) */
enum lp_mangled_names {
	LP_MANGLED_ILLEGAL = 0, /* opened by, not listed (Samba's default) */
	LP_MANGLED_YES,         /* also in Both/IdBoth listings */
	LP_MANGLED_NO,          /* neither */
};

/* "smb2 read mode" (ringsmb): how a READ's data reaches the socket */
enum lp_read_mode {
	LP_READ_MODE_AUTO = 0,          /* splice where allowed, else copy */
	LP_READ_MODE_COPY,              /* read into memory, one SENDMSG
					 * (the default) */
	LP_READ_MODE_SPLICE,            /* file -> pipe -> socket */
	LP_READ_MODE_ZEROCOPY,          /* read into memory, SENDMSG_ZC */
};

/* "smb2 write mode" (ringsmb, [global]): how WRITE payloads arrive */
enum lp_write_mode {
	LP_WRITE_MODE_COPY = 0,         /* received into memory (default) */
	LP_WRITE_MODE_SPLICE,           /* socket -> pipe -> file */
};

/* "inherit owner" (Samba's) */
enum lp_inherit_owner {
	LP_INHERIT_OWNER_NO = 0,
	LP_INHERIT_OWNER_WINDOWS_AND_UNIX,
	LP_INHERIT_OWNER_UNIX_ONLY,
};

/*
 * A Samba parametric option, "TYPE:OPTION = value" (docs/smb.conf.md,
 * "Parametric options"): a name with a ':' that the parameter table does
 * not know, kept for the module named TYPE (vfs_error reads "error:ops"
 * and the like through its VFS handle).  Set in [global], the default of
 * every share; a share's own setting of the same name replaces it.
 */
struct lp_parametric {
	const char *name;               /* "type:option", as written */
	const char *value;
};

/* At most this many parametric options per section (then a warning) */
#define LP_MAX_PARAMETRIC 256

struct lp_share {
	const char *name;
	const char *path;
	bool read_only;
	bool guest_ok;
	const char **vfs_objects;       /* NULL-terminated, maybe empty */
	bool browseable;
	const char *comment;
	bool available;
	/*
	 * Who may connect and how (docs/security.md).  Lists hold names,
	 * @group (NSS group, as Samba: a Unix group), +group (Unix
	 * group), &group (also Unix here: there is no NIS netgroup
	 * support) and are NULL-terminated; empty lists restrict nothing.
	 */
	const char **valid_users;
	const char **invalid_users;
	const char **read_list;
	const char **write_list;
	const char **admin_users;       /* act as root on this share */
	bool guest_only;
	const char **hosts_allow;       /* [global]: also at connect time */
	const char **hosts_deny;
	const char *force_user;         /* "" = none */
	const char *force_group;        /* "" = none; "+name": only if a
					 * member (Samba) */
	/* names: "/pattern/pattern/" as Samba (* and ?), "" = none */
	const char *veto_files;
	bool delete_veto_files;
	const char *hide_files;
	bool hide_dot_files;
	bool hide_unreadable;
	bool access_based_share_enum;
	/* modes of what clients create */
	int create_mask;                /* 0744 */
	int directory_mask;             /* 0755 */
	int force_create_mode;          /* 0 */
	int force_directory_mode;       /* 0 */
	bool inherit_permissions;
	bool map_archive;               /* ARCHIVE <-> owner x (Samba's) */
	int inherit_owner;              /* enum lp_inherit_owner */
	int smb_encrypt;                /* enum lp_smb_setting */
	bool strict_sync;               /* FLUSH waits for an fsync */
	bool ea_support;                /* EAs as user.* xattrs */
	bool oplocks;                   /* CREATE may grant oplocks */
	bool level2_oplocks;            /* ... level II ones too */
	bool kernel_oplocks;            /* ... backed by Linux file leases */
	bool durable_handles;           /* CREATE may grant DHnQ/DH2Q */
	int case_sensitive;             /* enum lp_case_sensitive */
	int mangled_names;              /* enum lp_mangled_names */
	bool preserve_case;             /* new names keep the client's case */
	int read_mode;                  /* enum lp_read_mode */
	int min_splice_size;            /* bytes: smaller READs are copied */
	int registered_buffers;         /* zerocopy READ buffer pool, 0 = off */
	/* parametric options, in the order first set; NULL when none */
	struct lp_parametric *parametric;
	size_t num_parametric;
};

struct lp_global {
	uint16_t *smb_ports;
	size_t num_smb_ports;           /* >= 1 */
	const char **interfaces;        /* NULL-terminated; empty = all */
	bool bind_interfaces_only;
	uint16_t server_min_protocol;   /* LP_DIALECT_* */
	uint16_t server_max_protocol;
	int log_level;                  /* the `all` level */
	const char *log_levels;         /* the whole value: "1 auth_audit:3" */
	const char *log_file;           /* "" = standard error; %m %I %U */
	int max_log_size;               /* KiB: rotate to .old; 0 = never */
	const char *logging;            /* "file syslog@1 systemd" */
	enum lp_map_to_guest map_to_guest;
	const char *netbios_name;       /* upper case, <= 15 characters */
	const char *workgroup;
	const char *server_string;
	bool io_uring;
	bool logon_backoff;             /* ringsmb: failed-logon back-off */
	bool server_multi_channel_support; /* SMB2_GLOBAL_CAP_MULTI_CHANNEL */
	int max_connections;            /* 0 = unlimited */
	/* untrusted sessions and the fd budget (param_table.c) */
	int max_open_files;             /* all handles; 0 = from NOFILE */
	int fd_reserve;                 /* fds never given to handles */
	int max_open_files_per_session; /* a user session's handles */
	int untrusted_max_open_files;   /* a guest/anonymous session's */
	int untrusted_max_open_files_per_client; /* ... per address */
	int untrusted_max_open_files_total; /* all of them; 0 = budget/4 */
	int untrusted_max_pdu;          /* bytes, also before a logon */
	int untrusted_timeout;          /* seconds */
	int max_receive_buffer;         /* MiB for incomplete PDUs */
	int deadtime;                   /* minutes, 0 = never */
	const char *pid_directory;
	const char *private_dir;
	const char *lock_directory;
	const char *metrics_listen;     /* "" or ADDR:PORT (metrics.c) */
	const char *smb_passwd_file;
	int algorithmic_rid_base;
	int server_signing;             /* enum lp_smb_setting */
	int smb_encrypt;                /* enum lp_smb_setting ([global]) */
	int restrict_anonymous;         /* 0, 1, 2 */
	const char *guest_account;
	const char *username_map;       /* "" = none */
	int oplock_break_timeout;       /* seconds a break waits for an ack */
	bool smb2_leases;               /* SMB2_GLOBAL_CAP_LEASING, RqLs */
	int write_mode;                 /* enum lp_write_mode */
	int workers;                    /* -1: online CPUs */
	int crypto_threads;             /* -1: online CPUs (<= 8), 0: none */
	const char **crypto_offload;    /* decrypt encrypt verify sign */
	int crypto_min_size;            /* smaller messages stay inline */
};

struct loadparm {
	struct lp_global g;
	/* share parameters set in [global]: defaults for every share */
	struct lp_share share_defaults;
	struct lp_share **shares;
	size_t num_shares;
	const char *config_file;        /* as given; "" for a buffer */
};

enum lp_severity {
	LP_DIAG_WARNING,
	LP_DIAG_ERROR,
};

struct lp_diag {
	struct lp_diag *next;
	enum lp_severity severity;
	const char *file;
	unsigned line;                  /* 0: not about one line */
	/* complete text, "FILE:LINE: what went wrong" */
	const char *message;
};

/*
 * Load an smb.conf file.  Returns 0, or -1 if there was any error (the
 * daemon must then refuse to start).  *out is the configuration as far
 * as it could be understood, even on -1 (NULL only when out of memory);
 * *diags the warnings and errors in file order, or NULL.  Both are
 * allocated on mem_ctx; talloc_free(*diags) frees the whole list.
 */
int lp_load_file(TALLOC_CTX *mem_ctx, const char *path,
		 struct loadparm **out, struct lp_diag **diags);

/*
 * The same with Samba's command-line "name=value" options (--option)
 * applied after the file's [global]; path NULL: the embedded default.
 * A malformed option is an error ("--option: ...").
 */
int lp_load_with_options(TALLOC_CTX *mem_ctx, const char *path,
			 const char *const *options, struct loadparm **out,
			 struct lp_diag **diags);

/*
 * The same for text in memory (tests, fuzzing, the embedded default).
 * name is used in diagnostics and to resolve relative includes.  The
 * text need not be NUL-terminated.
 */
int lp_load_buffer(TALLOC_CTX *mem_ctx, const char *name,
		   const char *text, size_t len,
		   struct loadparm **out, struct lp_diag **diags);

/*
 * The configuration used when there is no smb.conf: a guest share on
 * ./share, served on 127.0.0.1:4445.  NULL only when out of memory.
 */
struct loadparm *lp_load_default(TALLOC_CTX *mem_ctx);
const char *lp_embedded_default_text(void);

const char *lp_default_config_file(void);

/* Case-insensitive share lookup; NULL if there is no such share. */
const struct lp_share *lp_find_share(const struct loadparm *lp,
				     const char *name);

/*
 * The value of the parametric option "type:option" of share (names
 * compared as Samba's: case, blanks and '_' ignored), or NULL.
 */
const char *lp_parametric_get(const struct lp_share *share,
			      const char *type, const char *option);

/*
 * Write the configuration in smb.conf form; loading the output again
 * gives the same values.  show_defaults: also the parameters that have
 * their default value (testparm -v).
 */
void lp_dump(FILE *f, const struct loadparm *lp, bool show_defaults);

/* Dialect code to "SMB3_11" etc. */
const char *lp_dialect_name(uint16_t dialect);

/*
 * One entry of "interfaces" in Samba's syntax (param_iface.c):
 *
 *	ADDRESS | ADDRESS/MASK | NAME   [;key=value[,key=value...]]
 *
 * MASK a prefix length or a dotted netmask; NAME an interface name, shell
 * wildcards allowed ("eth*").  Keys (Samba's): speed (bits per second),
 * capability (RSS or RDMA, may repeat), if_index, options (dynamic or
 * nodynamic).  The keys only change what FSCTL_QUERY_NETWORK_INTERFACE_INFO
 * tells multichannel clients about the interfaces the entry matches.
 */
#define LP_IFACE_CAP_RSS	0x1
#define LP_IFACE_CAP_RDMA	0x2

struct lp_iface {
	char what[64];          /* the address or name, no mask or keys */
	bool is_addr;
	int family;             /* AF_INET / AF_INET6 when is_addr */
	uint8_t addr[16];
	int prefix;             /* mask length; -1: no mask */
	uint64_t speed;         /* 0: not given */
	uint32_t caps;          /* LP_IFACE_CAP_* given */
	bool caps_set;
	uint32_t if_index;      /* 0: not given */
};

/*
 * "ADDR:PORT" or "[V6ADDR]:PORT", numeric only ('metrics listen'):
 * false for anything else.
 */
bool lp_parse_listen_addr(const char *v, struct sockaddr_storage *ss,
			  socklen_t *len);

/*
 * Parse one entry.  Returns NULL when it is usable; otherwise a message
 * (on mem_ctx) saying what is wrong.  *fatal: the entry cannot be used at
 * all (an address, mask or name that does not parse); else only a key
 * was refused and *out holds the rest.
 */
char *lp_iface_parse(TALLOC_CTX *mem_ctx, const char *entry,
		     struct lp_iface *out, bool *fatal);

/* Does the entry name this address (family AF_INET or AF_INET6)? */
bool lp_iface_match_addr(const struct lp_iface *e, int family,
			 const uint8_t *addr);

#endif
