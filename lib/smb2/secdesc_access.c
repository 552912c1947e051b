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


/* CREATOR OWNER / CREATOR GROUP become the new object's owner, group. */
static bool sid_replace(struct smb2_sid *sid, const struct smb2_sid *owner,
			const struct smb2_sid *group)
{
	if (sid_is(sid, SMB2_SID_AUTH_CREATOR, SMB2_SID_CREATOR_OWNER) &&
	    owner != NULL) {
		*sid = *owner;
		return true;
	}
	if (sid_is(sid, SMB2_SID_AUTH_CREATOR, SMB2_SID_CREATOR_GROUP) &&
	    group != NULL) {
		*sid = *group;
		return true;
	}
	return false;
}

/*
 * What one parent ACE gives a child: up to two ACEs at out (the one
 * that applies, the inherit-only one passed on); returns how many.
 */
static size_t inherit_ace(const struct smb2_ace *p, bool is_dir,
			  const struct smb2_sid *owner,
			  const struct smb2_sid *group, struct smb2_ace *out)
{
	bool oi = (p->flags & SMB2_ACE_OBJECT_INHERIT) != 0;
	bool ci = (p->flags & SMB2_ACE_CONTAINER_INHERIT) != 0;
	bool np = (p->flags & SMB2_ACE_NO_PROPAGATE) != 0;
	struct smb2_ace eff = *p;
	size_t n = 0;
	bool replaced;

	if (p->type != SMB2_ACE_ACCESS_ALLOWED &&
	    p->type != SMB2_ACE_ACCESS_DENIED) {
		return 0;               /* their SIDs were not kept */
	}
	if (!is_dir) {
		if (!oi) {
			return 0;
		}
		eff.flags = SMB2_ACE_INHERITED;
		eff.mask = smb2_access_map_generic(p->mask);
		sid_replace(&eff.sid, owner, group);
		out[0] = eff;
		return 1;
	}
	if (!ci) {
		if (!oi || np) {
			return 0;
		}
		/* for the directory's files only */
		out[0] = *p;
		out[0].flags = (p->flags & ~SMB2_ACE_NO_PROPAGATE) |
			SMB2_ACE_INHERIT_ONLY | SMB2_ACE_INHERITED;
		return 1;
	}
	replaced = sid_replace(&eff.sid, owner, group);
	eff.mask = smb2_access_map_generic(p->mask);
	if (np) {
		eff.flags = SMB2_ACE_INHERITED;
		out[0] = eff;
		return 1;
	}
	if (!replaced && eff.mask == p->mask) {
		out[0] = *p;
		out[0].flags = (p->flags & ~SMB2_ACE_INHERIT_ONLY) |
			SMB2_ACE_INHERITED;
		return 1;
	}
	eff.flags = SMB2_ACE_INHERITED;
	out[n++] = eff;
	out[n] = *p;
	out[n].flags = p->flags | SMB2_ACE_INHERIT_ONLY | SMB2_ACE_INHERITED;
	return n + 1;
}

bool smb2_secdesc_inherit(TALLOC_CTX *mem_ctx,
			  const struct smb2_secdesc *parent,
			  const struct smb2_secdesc *given, bool is_dir,
			  const struct smb2_sid *owner,
			  const struct smb2_sid *group,
			  struct smb2_secdesc *out, bool *inherited)
{
	bool explicit = given != NULL && given->has_dacl;
	bool protect = explicit &&
		(given->control & SMB2_SD_DACL_PROTECTED) != 0;
	size_t np = (parent != NULL && parent->has_dacl && !protect) ?
		parent->num_aces : 0;
	size_t ne = explicit && !given->null_dacl ? given->num_aces : 0;
	struct smb2_ace *aces = NULL;
	size_t n = 0, i;

	*out = (struct smb2_secdesc) { .owner = owner, .group = group };
	*inherited = false;
	aces = talloc_zero_array(mem_ctx, struct smb2_ace, ne + 2 * np + 1);
	if (aces == NULL) {
		return false;
	}
	for (i = 0; i < ne; i++) {
		aces[n] = given->aces[i];
		aces[n].flags &= ~SMB2_ACE_INHERITED;
		n++;
	}
	for (i = 0; i < np; i++) {
		size_t got = inherit_ace(&parent->aces[i], is_dir, owner,
					 group, aces + n);

		*inherited = *inherited || got > 0;
		n += got;
	}
	out->aces = aces;
	out->num_aces = n;
	out->has_dacl = explicit || *inherited;
	out->null_dacl = explicit && given->null_dacl && n == 0;
	if (explicit) {
		out->control = given->control & (SMB2_SD_DACL_PROTECTED |
						 SMB2_SD_DACL_AUTO_INHERIT_REQ);
	}
	if (*inherited) {
		out->control |= SMB2_SD_DACL_AUTO_INHERITED;
	}
	return true;
}
