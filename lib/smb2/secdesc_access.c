/*
 * Access decisions and inheritance from security descriptors
 * (secdesc_access.h).  Written from MS-DTYP 2.5.3.2 and 2.5.3.4.
 */
#include <string.h>
#include "lib/smb2/secdesc_access.h"
#include "lib/smb2/smb2_const.h"

struct smb2_sid smb2_sid_well_known(uint64_t authority, uint32_t rid)
{
	return (struct smb2_sid) {
		.num_auths = 1, .authority = authority, .sub_auths = { rid },
	};
}

static bool sid_is(const struct smb2_sid *sid, uint64_t authority,
		   uint32_t rid)
{
	return sid->num_auths == 1 && sid->authority == authority &&
	       sid->sub_auths[0] == rid;
}

uint32_t smb2_access_map_generic(uint32_t mask)
{
	uint32_t out = mask & ~(SMB2_GENERIC_READ | SMB2_GENERIC_WRITE |
				SMB2_GENERIC_EXECUTE | SMB2_GENERIC_ALL);

	if (mask & SMB2_GENERIC_READ) {
		out |= SMB2_RIGHTS_FILE_READ;
	}
	if (mask & SMB2_GENERIC_WRITE) {
		out |= SMB2_RIGHTS_FILE_WRITE;
	}
	if (mask & SMB2_GENERIC_EXECUTE) {
		out |= SMB2_RIGHTS_FILE_EXECUTE;
	}
	if (mask & SMB2_GENERIC_ALL) {
		out |= SMB2_RIGHTS_FILE_ALL;
	}
	return out;
}

bool smb2_token_has(const struct smb2_token *t, const struct smb2_sid *sid)
{
	size_t i;

	for (i = 0; i < t->num_sids; i++) {
		if (smb2_sid_equal(&t->sids[i], sid)) {
			return true;
		}
	}
	return false;
}

static bool ace_applies(const struct smb2_ace *ace)
{
	return (ace->flags & SMB2_ACE_INHERIT_ONLY) == 0 &&
	       (ace->type == SMB2_ACE_ACCESS_ALLOWED ||
		ace->type == SMB2_ACE_ACCESS_DENIED);
}

uint32_t smb2_secdesc_granted(const struct smb2_secdesc *sd,
			      const struct smb2_token *t)
{
	uint32_t granted = SMB2_FILE_READ_ATTRIBUTES, denied = 0;
	bool owner = sd->owner != NULL && smb2_token_has(t, sd->owner);
	bool owner_rights = false;
	size_t i;

	if (!sd->has_dacl || sd->null_dacl) {
		return SMB2_RIGHTS_FILE_ALL;
	}
	for (i = 0; i < sd->num_aces; i++) {
		if (ace_applies(&sd->aces[i]) &&
		    sid_is(&sd->aces[i].sid, SMB2_SID_AUTH_CREATOR,
			   SMB2_SID_OWNER_RIGHTS)) {
			owner_rights = true;
		}
	}
	if (owner && !owner_rights) {
		granted |= SMB2_READ_CONTROL | SMB2_WRITE_DAC;
	}
	for (i = 0; i < sd->num_aces; i++) {
		const struct smb2_ace *ace = &sd->aces[i];
		uint32_t mask = smb2_access_map_generic(ace->mask);

		if (!ace_applies(ace)) {
			continue;
		}
		if (!smb2_token_has(t, &ace->sid) &&
		    !(owner && sid_is(&ace->sid, SMB2_SID_AUTH_CREATOR,
				      SMB2_SID_OWNER_RIGHTS))) {
			continue;
		}
		if (ace->type == SMB2_ACE_ACCESS_ALLOWED) {
			granted |= mask & ~denied;
		} else {
			denied |= mask & ~granted;
		}
	}
	return granted;
}

/* ---- inheritance ---- */


/* The new object's SID for CREATOR OWNER / GROUP, or NULL. */
static const struct smb2_sid *creator_of(const struct smb2_sid *sid,
					 const struct smb2_sid *owner,
					 const struct smb2_sid *group)
{
	if (sid_is(sid, SMB2_SID_AUTH_CREATOR, SMB2_SID_CREATOR_OWNER)) {
		return owner;
	}
	if (sid_is(sid, SMB2_SID_AUTH_CREATOR, SMB2_SID_CREATOR_GROUP)) {
		return group;
	}
	return NULL;
}

static bool inheritable(const struct smb2_ace *a, bool is_dir)
{
	if (a->type != SMB2_ACE_ACCESS_ALLOWED &&
	    a->type != SMB2_ACE_ACCESS_DENIED) {
		return false;           /* their SIDs were not kept */
	}
	if (!is_dir) {
		return (a->flags & SMB2_ACE_OBJECT_INHERIT) != 0;
	}
	return (a->flags & SMB2_ACE_CONTAINER_INHERIT) ||
	       ((a->flags & SMB2_ACE_OBJECT_INHERIT) &&
		!(a->flags & SMB2_ACE_NO_PROPAGATE));
}

/*
 * What one inheritable parent ACE gives a child: one or two ACEs at
 * out; returns how many.  mark is INHERITED or 0.
 */
static size_t inherit_ace(const struct smb2_ace *p, bool is_dir,
			  const struct smb2_sid *owner,
			  const struct smb2_sid *group, uint8_t mark,
			  struct smb2_ace *out)
{
	const struct smb2_sid *creator = creator_of(&p->sid, owner, group);
	uint8_t flags = 0;

	out[0] = *p;
	if (is_dir) {
		flags = p->flags & ~(SMB2_ACE_INHERIT_ONLY |
				     SMB2_ACE_INHERITED);
		if (!(flags & SMB2_ACE_CONTAINER_INHERIT)) {
			flags |= SMB2_ACE_INHERIT_ONLY;  /* for its files */
		}
		if (flags & SMB2_ACE_NO_PROPAGATE) {
			flags = 0;
		}
	}
	if (creator != NULL && is_dir &&
	    (flags & SMB2_ACE_CONTAINER_INHERIT)) {
		/* the creator's own ACE, and the creator SID passed on */
		out[0].sid = *creator;
		out[0].flags = mark;
		out[1] = *p;
		out[1].flags = flags | SMB2_ACE_INHERIT_ONLY | mark;
		return 2;
	}
	if (creator != NULL &&
	    (!is_dir || (p->flags & SMB2_ACE_NO_PROPAGATE))) {
		out[0].sid = *creator;
	}
	out[0].flags = flags | mark;
	return 1;
}

static bool ace_equal(const struct smb2_ace *a, const struct smb2_ace *b)
{
	return a->type == b->type && a->flags == b->flags &&
	       a->mask == b->mask && smb2_sid_equal(&a->sid, &b->sid);
}

bool smb2_secdesc_inherit(TALLOC_CTX *mem_ctx,
			  const struct smb2_secdesc *parent, bool is_dir,
			  const struct smb2_sid *owner,
			  const struct smb2_sid *group,
			  struct smb2_secdesc *out)
{
	bool auto_inherited = parent != NULL &&
		(parent->control & SMB2_SD_DACL_AUTO_INHERITED) != 0;
	uint8_t mark = auto_inherited ? SMB2_ACE_INHERITED : 0;
	size_t np = (parent != NULL && parent->has_dacl) ?
		parent->num_aces : 0;
	struct smb2_ace *aces = NULL;
	size_t n = 0, i, j;

	*out = (struct smb2_secdesc) { .owner = owner, .group = group };
	for (i = 0; i < np && out->num_aces == 0; i++) {
		if (inheritable(&parent->aces[i], is_dir)) {
			out->num_aces = 1;
		}
	}
	if (out->num_aces == 0) {
		return true;            /* nothing to inherit */
	}
	aces = talloc_zero_array(mem_ctx, struct smb2_ace, 2 * np);
	if (aces == NULL) {
		return false;
	}
	for (i = 0; i < np; i++) {
		struct smb2_ace got[2];
		size_t k, m = 0;

		if (!inheritable(&parent->aces[i], is_dir)) {
			continue;
		}
		m = inherit_ace(&parent->aces[i], is_dir, owner, group, mark,
				got);
		for (k = 0; k < m; k++) {
			bool dup = false;

			for (j = 0; j < n && !dup; j++) {
				dup = ace_equal(&aces[j], &got[k]);
			}
			if (!dup) {
				aces[n++] = got[k];
			}
		}
	}
	out->aces = aces;
	out->num_aces = n;
	out->has_dacl = true;
	out->control = auto_inherited ? SMB2_SD_DACL_AUTO_INHERITED : 0;
	return true;
}
