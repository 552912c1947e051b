/*
 * SPNEGO codecs (RFC 4178, MS-SPNG) on libtasn1; the ASN.1 module is
 * spnego.asn, compiled into spnego_asn1_tab.c.
 *
 * Decoding is strict DER (ASN1_DECODE_FLAG_STRICT_DER): indefinite
 * lengths, constructed strings and lengths past the buffer are refused by
 * libtasn1 before we look at any value.  The schema has no ANY or
 * recursion, so nesting depth is bounded by the schema itself.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <libtasn1.h>

#include "lib/auth/auth_private.h"
#include "lib/util/debug.h"

extern const asn1_static_node spnego_asn1_tab[];

#define SPNEGO_MAX_TOKEN UINT16_MAX	/* SMB2 SecurityBufferLength */
#define SPNEGO_MAX_MECHS 32
#define SPNEGO_OID_MAX 128
#define GSS_APPLICATION_0 0x60
#define SPNEGO_MECH_TYPES_TAG 0xa0	/* NegTokenInit mechTypes [0] */
#define DER_SEQUENCE_TAG 0x30

static const char neg_hint[] = "not_defined_in_RFC4178@please_ignore";

/* A libtasn1 definitions tree plus one element, freed with talloc. */
struct spnego_asn {
	asn1_node defs;
	asn1_node node;
};

static int spnego_asn_destructor(struct spnego_asn *a)
{
	asn1_delete_structure(&a->node);
	asn1_delete_structure(&a->defs);
	return 0;
}

/*
 * The definitions are parsed per use rather than kept in a global: it
 * costs microseconds per SESSION_SETUP leg and keeps lib/auth free of
 * shared mutable state (docs/architecture.md, "Threads and rings").
 */
static struct spnego_asn *spnego_asn_new(TALLOC_CTX *mem_ctx,
					 const char *type)
{
	struct spnego_asn *a = talloc_zero(mem_ctx, struct spnego_asn);
	char err[ASN1_MAX_ERROR_DESCRIPTION_SIZE] = "";

	if (a == NULL) {
		return NULL;
	}
	talloc_set_destructor(a, spnego_asn_destructor);
	if (asn1_array2tree(spnego_asn1_tab, &a->defs, err) != ASN1_SUCCESS ||
	    asn1_create_element(a->defs, type, &a->node) != ASN1_SUCCESS) {
		DBG_ERR("SPNEGO ASN.1 definitions: %s\n", err);
		TALLOC_FREE(a);
	}
	return a;
}

/* An optional OCTET STRING; absent gives *out NULL. */
static NTSTATUS read_octets(TALLOC_CTX *mem_ctx, asn1_node node,
			    const char *name, uint8_t **out, size_t *out_len)
{
	int len = 0;
	int rc = asn1_read_value(node, name, NULL, &len);
	uint8_t *buf = NULL;

	*out = NULL;
	*out_len = 0;
	if (rc == ASN1_ELEMENT_NOT_FOUND || rc == ASN1_VALUE_NOT_FOUND) {
		return NT_STATUS_OK;
	}
	if ((rc != ASN1_MEM_ERROR && rc != ASN1_SUCCESS) || len < 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	buf = talloc_array(mem_ctx, uint8_t, len > 0 ? len : 1);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	rc = asn1_read_value(node, name, buf, &len);
	if (rc != ASN1_SUCCESS) {
		talloc_free(buf);
		return NT_STATUS_INVALID_PARAMETER;
	}
	*out = buf;
	*out_len = len;
	return NT_STATUS_OK;
}

static bool oid_equal(asn1_node node, const char *name, const char *oid)
{
	char buf[SPNEGO_OID_MAX];
	int len = sizeof(buf);

	if (asn1_read_value(node, name, buf, &len) != ASN1_SUCCESS) {
		return false;
	}
	return strcmp(buf, oid) == 0;
}

static NTSTATUS decode_mech_types(asn1_node node, const char *prefix,
				  struct spnego_token *out)
{
	char name[96];
	int n = 0, i;

	snprintf(name, sizeof(name), "%smechTypes", prefix);
	if (asn1_number_of_elements(node, name, &n) != ASN1_SUCCESS ||
	    n < 1 || n > SPNEGO_MAX_MECHS) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 1; i <= n; i++) {
		snprintf(name, sizeof(name), "%smechTypes.?%d", prefix, i);
		if (oid_equal(node, name, NTLMSSP_OID)) {
			out->ntlmssp_offered = true;
			out->ntlmssp_first = (i == 1);
			break;
		}
	}
	return NT_STATUS_OK;
}

/*
 * The MechTypeList bytes as the client sent them: the mechListMIC covers
 * its DER encoding (RFC 4178 5), and strict DER decoding means these are
 * that encoding.  libtasn1 reports the element with its [0] tag.
 */
static NTSTATUS mech_types_der(asn1_node node, const char *name,
			       struct auth_slice der, struct auth_slice *out)
{
	int start = 0, end = 0;
	size_t hdr;

	if (asn1_der_decoding_startEnd(node, der.data, (int)der.len, name,
				       &start, &end) != ASN1_SUCCESS ||
	    start < 0 || end < start || (size_t)end >= der.len) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->data = der.data + start;
	out->len = (size_t)(end - start) + 1;
	/* skip the [0] tag and its length (DER: short or 0x8n long form) */
	if (out->len < 2 || out->data[0] != SPNEGO_MECH_TYPES_TAG) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	hdr = 2 + (out->data[1] & 0x80 ? (out->data[1] & 0x7f) : 0);
	if (hdr >= out->len || out->data[hdr] != DER_SEQUENCE_TAG) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->data += hdr;
	out->len -= hdr;
	return NT_STATUS_OK;
}

static NTSTATUS decode_init(TALLOC_CTX *mem_ctx, asn1_node node,
			    const char *prefix, struct auth_slice der,
			    struct spnego_token *out)
{
	char name[96];
	NTSTATUS status;

	out->is_init = true;
	status = decode_mech_types(node, prefix, out);
	if (NT_STATUS_IS_OK(status)) {
		snprintf(name, sizeof(name), "%smechTypes", prefix);
		status = mech_types_der(node, name, der, &out->mech_types);
	}
	if (NT_STATUS_IS_OK(status)) {
		snprintf(name, sizeof(name), "%smechListMIC", prefix);
		status = read_octets(mem_ctx, node, name, &out->mic,
				     &out->mic_len);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	snprintf(name, sizeof(name), "%smechToken", prefix);
	return read_octets(mem_ctx, node, name, &out->token, &out->token_len);
}

static NTSTATUS decode_resp(TALLOC_CTX *mem_ctx, asn1_node node,
			    const char *prefix, struct spnego_token *out)
{
	char name[96];
	uint8_t state[4];
	int len = sizeof(state);
	NTSTATUS status;

	out->is_init = false;
	out->neg_state = SPNEGO_NO_STATE;
	snprintf(name, sizeof(name), "%snegState", prefix);
	if (asn1_read_value(node, name, state, &len) == ASN1_SUCCESS) {
		if (len != 1 || state[0] > SPNEGO_REQUEST_MIC) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		out->neg_state = state[0];
	}
	snprintf(name, sizeof(name), "%smechListMIC", prefix);
	status = read_octets(mem_ctx, node, name, &out->mic, &out->mic_len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	snprintf(name, sizeof(name), "%sresponseToken", prefix);
	return read_octets(mem_ctx, node, name, &out->token, &out->token_len);
}

/* Which NegotiationToken alternative was chosen at name ("" = root). */
static NTSTATUS decode_choice(TALLOC_CTX *mem_ctx, asn1_node node,
			      const char *name, struct auth_slice der,
			      struct spnego_token *out)
{
	char choice[32], prefix[64];
	int len = sizeof(choice);

	if (asn1_read_value(node, name, choice, &len) != ASN1_SUCCESS) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	snprintf(prefix, sizeof(prefix), "%s%s%s.", name,
		 name[0] != '\0' ? "." : "", choice);
	if (strcmp(choice, "negTokenInit") == 0) {
		return decode_init(mem_ctx, node, prefix, der, out);
	}
	if (strcmp(choice, "negTokenResp") == 0) {
		return decode_resp(mem_ctx, node, prefix, out);
	}
	return NT_STATUS_INVALID_PARAMETER;
}

NTSTATUS spnego_decode(TALLOC_CTX *mem_ctx, const uint8_t *in, size_t len,
		       struct spnego_token *out)
{
	char err[ASN1_MAX_ERROR_DESCRIPTION_SIZE] = "";
	bool framed = len > 0 && in[0] == GSS_APPLICATION_0;
	struct spnego_asn *a = NULL;
	int ilen = (int)len;
	NTSTATUS status = NT_STATUS_INVALID_PARAMETER;

	*out = (struct spnego_token){ .neg_state = SPNEGO_NO_STATE };
	if (len == 0 || len > SPNEGO_MAX_TOKEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	a = spnego_asn_new(mem_ctx, framed ? "SPNEGO.InitialContextToken" :
					     "SPNEGO.NegotiationToken");
	if (a == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (asn1_der_decoding2(&a->node, in, &ilen,
			       ASN1_DECODE_FLAG_STRICT_DER, err) !=
	    ASN1_SUCCESS) {
		DBG_INFO("client sent bad SPNEGO: %s\n", err);
	} else if (framed && !oid_equal(a->node, "thisMech", SPNEGO_OID)) {
		DBG_INFO("client sent a GSS-API token for another mech\n");
	} else {
		struct auth_slice der = { in, len };

		status = decode_choice(mem_ctx, a->node,
				       framed ? "innerContextToken" : "", der,
				       out);
	}
	talloc_free(a);
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(out->token);
		TALLOC_FREE(out->mic);
		out->mech_types = (struct auth_slice){ NULL, 0 };
	}
	return status;
}

static NTSTATUS der_encode(TALLOC_CTX *mem_ctx, asn1_node node,
			   uint8_t **out, size_t *out_len)
{
	char err[ASN1_MAX_ERROR_DESCRIPTION_SIZE] = "";
	int len = 0;
	uint8_t *buf = NULL;
	int rc = asn1_der_coding(node, "", NULL, &len, err);

	if (rc != ASN1_MEM_ERROR || len <= 0) {
		DBG_ERR("SPNEGO encoding failed: %s %s\n", asn1_strerror(rc),
			err);
		return NT_STATUS_INTERNAL_ERROR;
	}
	buf = talloc_array(mem_ctx, uint8_t, len);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	rc = asn1_der_coding(node, "", buf, &len, err);
	if (rc != ASN1_SUCCESS) {
		DBG_ERR("SPNEGO encoding failed: %s %s\n", asn1_strerror(rc),
			err);
		talloc_free(buf);
		return NT_STATUS_INTERNAL_ERROR;
	}
	*out = buf;
	*out_len = len;
	return NT_STATUS_OK;
}

/* Write a value, or remove the OPTIONAL element when value is NULL. */
static bool write_opt(asn1_node node, const char *name, const void *value,
		      size_t len)
{
	if (len > INT_MAX) {
		return false;
	}
	if (value == NULL) {
		len = 0;	/* NULL, 0 deletes an OPTIONAL element */
	}
	return asn1_write_value(node, name, value, (int)len) == ASN1_SUCCESS;
}

static const char *neg_state_name(enum spnego_neg_state s)
{
	switch (s) {
	case SPNEGO_ACCEPT_COMPLETED:
		return "accept-completed";
	case SPNEGO_ACCEPT_INCOMPLETE:
		return "accept-incomplete";
	case SPNEGO_REQUEST_MIC:
		return "request-mic";
	default:
		return "reject";
	}
}

NTSTATUS spnego_encode_resp(TALLOC_CTX *mem_ctx, const struct spnego_resp *r,
			    uint8_t **out, size_t *out_len)
{
	struct spnego_asn *a = spnego_asn_new(mem_ctx,
					      "SPNEGO.NegotiationToken");
	NTSTATUS status = NT_STATUS_INTERNAL_ERROR;
	bool ok;

	if (a == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	ok = write_opt(a->node, "", "negTokenResp", 1) &&
	     /* len 0: the value is the name of the ENUMERATED constant */
	     write_opt(a->node, "negTokenResp.negState",
		       neg_state_name(r->neg_state), 0) &&
	     write_opt(a->node, "negTokenResp.supportedMech",
		       r->supported_mech ? NTLMSSP_OID : NULL, 1) &&
	     write_opt(a->node, "negTokenResp.responseToken", r->token,
		       r->token != NULL ? r->token_len : 0) &&
	     write_opt(a->node, "negTokenResp.mechListMIC", r->mic,
		       r->mic != NULL ? r->mic_len : 0);
	if (ok) {
		status = der_encode(mem_ctx, a->node, out, out_len);
	}
	talloc_free(a);
	return status;
}

NTSTATUS spnego_encode_negprot(TALLOC_CTX *mem_ctx, uint8_t **out,
			       size_t *out_len)
{
	struct spnego_asn *a = spnego_asn_new(mem_ctx,
					      "SPNEGO.ServerInitToken");
	NTSTATUS status = NT_STATUS_INTERNAL_ERROR;
	bool ok;

	if (a == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	ok = write_opt(a->node, "thisMech", SPNEGO_OID, 1) &&
	     write_opt(a->node, "negTokenInit2.mechTypes", "NEW", 1) &&
	     write_opt(a->node, "negTokenInit2.mechTypes.?LAST",
		       NTLMSSP_OID, 1) &&
	     write_opt(a->node, "negTokenInit2.reqFlags", NULL, 0) &&
	     write_opt(a->node, "negTokenInit2.mechToken", NULL, 0) &&
	     write_opt(a->node, "negTokenInit2.negHints.hintName",
		       neg_hint, sizeof(neg_hint) - 1) &&
	     write_opt(a->node, "negTokenInit2.negHints.hintAddress",
		       NULL, 0) &&
	     write_opt(a->node, "negTokenInit2.mechListMIC", NULL, 0);
	if (ok) {
		status = der_encode(mem_ctx, a->node, out, out_len);
	}
	talloc_free(a);
	return status;
}

NTSTATUS spnego_encode_init(TALLOC_CTX *mem_ctx, const uint8_t *token,
			    size_t token_len, uint8_t **out, size_t *out_len)
{
	struct spnego_asn *a = spnego_asn_new(mem_ctx,
					      "SPNEGO.InitialContextToken");
	const char *init = "innerContextToken.negTokenInit";
	char name[64];
	NTSTATUS status = NT_STATUS_INTERNAL_ERROR;
	bool ok;

	if (a == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	ok = write_opt(a->node, "thisMech", SPNEGO_OID, 1) &&
	     write_opt(a->node, "innerContextToken", "negTokenInit", 1);
	snprintf(name, sizeof(name), "%s.mechTypes", init);
	ok = ok && write_opt(a->node, name, "NEW", 1);
	snprintf(name, sizeof(name), "%s.mechTypes.?LAST", init);
	ok = ok && write_opt(a->node, name, NTLMSSP_OID, 1);
	snprintf(name, sizeof(name), "%s.reqFlags", init);
	ok = ok && write_opt(a->node, name, NULL, 0);
	snprintf(name, sizeof(name), "%s.mechToken", init);
	ok = ok && write_opt(a->node, name, token, token_len);
	snprintf(name, sizeof(name), "%s.mechListMIC", init);
	ok = ok && write_opt(a->node, name, NULL, 0);
	if (ok) {
		status = der_encode(mem_ctx, a->node, out, out_len);
	}
	talloc_free(a);
	return status;
}
