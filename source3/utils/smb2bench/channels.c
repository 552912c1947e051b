/*
 * A job's channels (--channels N, MS-SMB2 3.2.4.2.3 and 3.2.5.3): after
 * the first connection's logon, the server's interfaces from
 * FSCTL_QUERY_NETWORK_INTERFACE_INFO (or --channel-addrs), and N-1 more
 * connections bound to the session, one per address, round robin.
 */
#include <string.h>

#include "source3/utils/smb2bench/conn.h"

/*
 * Where the channels after the first go: --channel-addrs as given; else
 * the advertised addresses, the first channel's own last, so that two
 * links carry two channels.
 */
static bool channel_addrs(struct smb2_conn *first, TALLOC_CTX *mem_ctx,
			  const struct smb_opts *o, char ***addrs, size_t *n)
{
	size_t i;

	if (o->num_channel_addrs > 0) {
		*addrs = o->channel_addrs;
		*n = o->num_channel_addrs;
		return true;
	}
	if (!smb2_conn_interfaces(first, mem_ctx, addrs, n)) {
		return false;
	}
	for (i = 0; i + 1 < *n; i++) {
		if (strcmp((*addrs)[i], o->host) == 0) {
			char *own = (*addrs)[i];

			memmove(&(*addrs)[i], &(*addrs)[i + 1],
				(*n - i - 1) * sizeof(**addrs));
			(*addrs)[*n - 1] = own;
			break;
		}
	}
	if (*n == 0) {
		first->err = talloc_strdup(first, "the server advertises no "
					   "interface: give --channel-addrs");
		return false;
	}
	return true;
}

struct smb2_conn **channels_open(TALLOC_CTX *mem_ctx, struct smb2_conn *first,
				 const struct smb_opts *o, char ***where,
				 char **err)
{
	struct smb2_conn **conns = talloc_zero_array(mem_ctx, struct smb2_conn *,
						     o->channels);
	char **addrs = NULL;
	size_t n = 0, i;

	*where = talloc_zero_array(mem_ctx, char *, o->channels);
	if (conns == NULL || *where == NULL) {
		*err = talloc_strdup(mem_ctx, "out of memory");
		return NULL;
	}
	conns[0] = first;
	(*where)[0] = o->host;
	if (o->channels > 1 && first->dialect < SMB2_DIALECT_0300) {
		*err = talloc_strdup(mem_ctx, "--channels: the server chose "
				     "SMB 2.x, which has no multichannel");
		return NULL;
	}
	if (o->channels > 1 && !channel_addrs(first, mem_ctx, o, &addrs, &n)) {
		*err = talloc_strdup(mem_ctx, first->err);
		return NULL;
	}
	for (i = 1; i < o->channels; i++) {
		(*where)[i] = addrs[(i - 1) % n];
		conns[i] = smb2_conn_bind(conns, first, o, (*where)[i], err);
		if (conns[i] == NULL) {
			return NULL;
		}
	}
	return conns;
}
