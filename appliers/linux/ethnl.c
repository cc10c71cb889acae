/* SPDX-License-Identifier: MIT */
/* The ethtool netlink socket (family "ethtool" resolved once), its request
 * and reply helpers (ethnl_msg.h), and the GET, dump and SET of every
 * family of fixed attributes (family.h).  Features and private flags:
 * fam_features.c, fam_privflags.c. */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../../compiler/base/buf.h"
#include "ethnl_msg.h"
#include "family.h"

/* Reply attributes are parsed without a policy: sizes are checked here,
 * so a short attribute is read as 0, never past its end. */
uint32_t nt_ethnl_u32(const struct nlattr *a)
{
	return nla_len(a) >= (int)sizeof(uint32_t) ? nla_get_u32((struct nlattr *)a) : 0;
}

uint8_t nt_ethnl_u8(const struct nlattr *a)
{
	return nla_len(a) >= 1 ? nla_get_u8((struct nlattr *)a) : 0;
}

/* A NUL-terminated string attribute, or NULL. */
const char *nt_ethnl_str(const struct nlattr *a)
{
	int n = nla_len(a);

	if (n < 1 || ((const char *)nla_data(a))[n - 1])
		return NULL;
	return nla_data(a);
}

/* The id of generic netlink family "ethtool" (CTRL_CMD_GETFAMILY). */
static int on_family(const struct nlmsghdr *h, void *arg)
{
	const struct genlmsghdr *gh = NLMSG_DATA(h);
	struct nlattr *tb[CTRL_ATTR_MAX + 1] = {0};
	int *family = arg;

	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    nla_parse(tb, CTRL_ATTR_MAX, (struct nlattr *)((char *)gh + GENL_HDRLEN),
		      (int)(h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)), NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID] || nla_len(tb[CTRL_ATTR_FAMILY_ID]) < 2)
		return -EPROTO;
	*family = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	return 0;
}

static int resolve_family(struct nt_nl *nl, int *family)
{
	struct nl_msg *m = nlmsg_alloc();
	int r, k;

	if (!m || !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, 0,
			       CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(m, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME) < 0) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	/* a read: asked again after a transport failure */
	for (k = 0; k < NT_ETHNL_READ_TRIES; k++) {
		*family = -1;
		r = nt_nl_transact(nl, nlmsg_hdr(m), on_family, family, NT_IO_GENL_RESOLVE);
		if (!r || !nt_nl_transient(nl) || r == -EINTR)
			break;
	}
	nlmsg_free(m);
	if (r == -ENOENT)
		return -EPROTONOSUPPORT;	/* no ethtool netlink in this kernel */
	return r ? r : *family < 0 ? -EPROTO : 0;
}

int nt_ethnl_open(struct nt_ethnl **out)
{
	struct nt_ethnl *e = nt_xcalloc(1, sizeof(*e));
	int r;

	*out = NULL;
	r = nt_nl_open(&e->nl, NETLINK_GENERIC);
	if (r) {
		free(e);
		return r;
	}
	r = resolve_family(e->nl, &e->family);
	if (r) {
		nt_nl_close(e->nl);
		free(e);
		return r;
	}
	*out = e;
	return 0;
}

void nt_ethnl_close(struct nt_ethnl *e)
{
	if (!e)
		return;
	nt_nl_close(e->nl);
	nt_feature_names_free(e->fnames);
	free(e);
}

bool nt_ethnl_transient(const struct nt_ethnl *e)
{
	return e && nt_nl_transient(e->nl);
}

const char *nt_ethnl_reason(const struct nt_ethnl *e, int err, char *buf, size_t len)
{
	return nt_nl_reason(e ? e->nl : NULL, err, buf, len);
}

static int on_valid(const struct nlmsghdr *h, void *arg)
{
	struct nt_ethnl_reply *r = arg;
	struct nlattr *tb[64] = {0};

	if (!r || r->maxattr >= 64)
		return 0;
	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    nla_parse(tb, r->maxattr, (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN),
		      (int)(h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)), NULL) < 0) {
		r->perr = -EINVAL;
		return 0;
	}
	if (r->each) {
		struct nlattr *hb[ETHTOOL_A_HEADER_MAX + 1] = {0};
		const char *dev;

		if (!tb[r->hdr_attr] ||
		    nla_parse_nested(hb, ETHTOOL_A_HEADER_MAX, tb[r->hdr_attr], NULL) < 0 ||
		    !hb[ETHTOOL_A_HEADER_DEV_NAME] || !(dev = nt_ethnl_str(hb[ETHTOOL_A_HEADER_DEV_NAME])))
			return 0;
		memset(r->out, 0, r->out_size);
		if (!r->parse(tb, r->out, r->aux))
			r->each(r->ctx, dev, r->out);
		return 0;
	}
	if (r->parse)
		r->perr = r->parse(tb, r->out, r->aux);
	return 0;
}

/* Builds the request header nest (device name, flags). */
struct nl_msg *nt_ethnl_request(struct nt_ethnl *e, int cmd, int hdr_attr, const char *dev,
			      uint32_t flags)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *h;

	if (!m)
		return NULL;
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, e->family, 0, NLM_F_REQUEST, (uint8_t)cmd,
			 ETHTOOL_GENL_VERSION))
		goto fail;
	h = nla_nest_start(m, hdr_attr);
	if (!h || nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, dev) < 0 ||
	    (flags && nla_put_u32(m, ETHTOOL_A_HEADER_FLAGS, flags) < 0))
		goto fail;
	nla_nest_end(m, h);
	return m;
fail:
	nlmsg_free(m);
	return NULL;
}

/* Sends m, parses replies with r, waits for the ack.  Returns 0 or -errno.
 * A read (a GET or dump: no SET) is asked again after a transport failure,
 * on a fresh socket, up to NT_ETHNL_READ_TRIES times; a write is not (its
 * outcome is unknown: the caller reads it back). */
int nt_ethnl_transact(struct nt_ethnl *e, struct nl_msg *m, struct nt_ethnl_reply *r, enum nt_io_req what)
{
	bool read = !nt_io_is_set(what);
	int err, k;

	for (k = 0; k < (read ? NT_ETHNL_READ_TRIES : 1); k++) {
		if (r) {
			r->perr = 0;
			if (r->reset)
				r->reset(r->out);
		}
		err = nt_nl_transact(e->nl, nlmsg_hdr(m), on_valid, r, what);
		if (!err || !nt_nl_transient(e->nl) || err == -EINTR)
			break;
	}
	nlmsg_free(m);
	if (err)
		return err;
	if (r && r->perr)
		return r->perr;
	return 0;
}

/* Builds the request header nest with no device: a dump of every device. */
struct nl_msg *nt_ethnl_dump_request(struct nt_ethnl *e, int cmd, int hdr_attr, uint32_t flags)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *h;

	if (!m)
		return NULL;
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, e->family, 0, NLM_F_REQUEST | NLM_F_DUMP,
			 (uint8_t)cmd, ETHTOOL_GENL_VERSION))
		goto fail;
	/* flags even when 0: libnl drops an empty nest */
	h = nla_nest_start(m, hdr_attr);
	if (!h || nla_put_u32(m, ETHTOOL_A_HEADER_FLAGS, flags) < 0)
		goto fail;
	nla_nest_end(m, h);
	return m;
fail:
	nlmsg_free(m);
	return NULL;
}

/* A bitset attribute in list form that names one bit and its value
 * (verbose form, as ethtool -K and --set-priv-flags send a single bit). */
int nt_ethnl_put_one_bit(struct nl_msg *m, int attr, const char *name, bool on)
{
	struct nlattr *w = nla_nest_start(m, attr), *bits, *bit;

	bits = w ? nla_nest_start(m, ETHTOOL_A_BITSET_BITS) : NULL;
	bit = bits ? nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT) : NULL;
	if (!bit || nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, name) < 0 ||
	    (on && nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE) < 0))
		return -1;
	nla_nest_end(m, bit);
	nla_nest_end(m, bits);
	nla_nest_end(m, w);
	return 0;
}

/* Families of fixed attributes (family.h) -------------------------------- */

int nt_ethnl_arg_index(const struct nt_ethnl_family *f, enum nt_kind_id k, const char *name)
{
	int i;

	for (i = 0; name && f->args[i].name; i++)
		if (f->args[i].kind == k && !strcmp(f->args[i].name, name))
			return i;
	return -1;
}

bool nt_ethnl_present(const struct nt_ethnl_family *f, const struct nt_ethnl_vals *v, int i)
{
	if (i < 0 || i >= NT_ETHNL_ARGS_MAX || !v->have[i])
		return false;
	if (f->present == NT_EP_MAX)
		return v->max[i] != 0;
	if (f->present == NT_EP_MAX_OR_CUR)
		return v->max[i] || v->cur[i];
	return true;
}

static int parse_vals(struct nlattr **tb, void *out, const void *aux)
{
	const struct nt_ethnl_family *f = aux;
	struct nt_ethnl_vals *v = out;
	int k;

	for (k = 0; f->args[k].name && k < NT_ETHNL_ARGS_MAX; k++) {
		const struct nt_ethnl_arg *a = &f->args[k];

		if (tb[a->attr]) {
			v->have[k] = true;
			v->cur[k] = a->width == 1 ? nt_ethnl_u8(tb[a->attr]) : nt_ethnl_u32(tb[a->attr]);
		}
		if (a->max_attr && tb[a->max_attr])
			v->max[k] = nt_ethnl_u32(tb[a->max_attr]);
	}
	return 0;
}

int nt_ethnl_vals_get(struct nt_ethnl *e, const struct nt_ethnl_family *f, const char *dev,
		      struct nt_ethnl_vals *out)
{
	struct nt_ethnl_reply r = {.parse = parse_vals, .out = out, .maxattr = f->max_attr, .aux = f};
	struct nl_msg *m = nt_ethnl_request(e, f->get_msg, f->hdr_attr, dev, 0);

	memset(out, 0, sizeof(*out));
	return m ? nt_ethnl_transact(e, m, &r, f->named_reqs ? nt_io_named(f->name, false) :
						  f->get_req) : -ENOMEM;
}

int nt_ethnl_vals_dump(struct nt_ethnl *e, const struct nt_ethnl_family *f, nt_ethnl_each each,
		       void *ctx)
{
	struct nt_ethnl_vals scratch;
	struct nt_ethnl_reply r = {.parse = parse_vals, .out = &scratch, .maxattr = f->max_attr, .aux = f,
			  .each = each, .ctx = ctx, .hdr_attr = f->hdr_attr,
			  .out_size = sizeof(scratch)};
	struct nl_msg *m;

	if (f->per_device)
		return -EOPNOTSUPP;
	m = nt_ethnl_dump_request(e, f->get_msg, f->hdr_attr, 0);
	return m ? nt_ethnl_transact(e, m, &r, f->dump_req) : -ENOMEM;
}

int nt_ethnl_vals_set(struct nt_ethnl *e, const struct nt_ethnl_family *f, const char *dev,
		      const struct nt_ethnl_vals *v)
{
	struct nl_msg *m = nt_ethnl_request(e, f->set_msg, f->hdr_attr, dev, 0);
	int k;

	if (!m)
		return -ENOMEM;
	for (k = 0; f->args[k].name && k < NT_ETHNL_ARGS_MAX; k++) {
		const struct nt_ethnl_arg *a = &f->args[k];

		if (v->have[k] && (a->width == 1 ? nla_put_u8(m, a->attr, (uint8_t)v->cur[k]) :
				   nla_put_u32(m, a->attr, v->cur[k])) < 0) {
			nlmsg_free(m);
			return -EINVAL;
		}
	}
	return nt_ethnl_transact(e, m, NULL, f->named_reqs ? nt_io_named(f->name, true) :
				 f->set_req);
}

