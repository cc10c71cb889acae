/* SPDX-License-Identifier: MIT */
/* ethtool netlink requests: features, channels, rings, coalesce (each also as
 * a dump), pause, private flags. */
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
#include "ethnl.h"
#include "nlio.h"

struct nt_io_stats nt_io;

static void print_stats(void)
{
	unsigned long total = 0;
	int k;

	for (k = 0; k < NT_IO__COUNT; k++)
		if (k != NT_IO_RSS_GET && k != NT_IO_RSS_SET)
			total += nt_io.req[k];
	fprintf(stderr, "nettune stats: netlink %lu (sets %lu), ioctl rss-get %lu rss-set %lu, "
		"file reads %lu, dir listings %lu, file writes %lu;", total, nt_io.netlink_sets,
		nt_io.req[NT_IO_RSS_GET], nt_io.req[NT_IO_RSS_SET], nt_io.file_reads,
		nt_io.dir_lists, nt_io.file_writes);
	for (k = 0; k < NT_IO__COUNT; k++)
		if (nt_io.req[k])
			fprintf(stderr, " %s %lu", nt_io_req_name((enum nt_io_req)k), nt_io.req[k]);
	fputc('\n', stderr);
}

bool nt_io_is_set(enum nt_io_req r)
{
	return r == NT_IO_FEATURES_SET || r == NT_IO_CHANNELS_SET || r == NT_IO_RINGS_SET ||
	       r == NT_IO_COALESCE_SET || r == NT_IO_LINK_SET || r == NT_IO_PAUSE_SET ||
	       r == NT_IO_PRIVFLAGS_SET || r == NT_IO_RSS_SET;
}

void nt_io_count(enum nt_io_req r)
{
	static bool armed;

	if (!armed) {
		const char *s = getenv("NETTUNE_STATS");

		armed = true;
		if (s && *s && strcmp(s, "0"))
			atexit(print_stats);
	}
	nt_io.req[r]++;
	if (nt_io_is_set(r) && r != NT_IO_RSS_SET)
		nt_io.netlink_sets++;
	else if (r == NT_IO_RSS_SET)
		nt_io.ioctl_sets++;
	else if (r != NT_IO_RSS_GET)
		nt_io.netlink_gets++;
}

/* ETH_SS_FEATURES: bit -> name, and an open-addressing hash name -> bit. */
struct nt_feature_names {
	char **name;
	size_t n;
	uint32_t *slot;		/* bit + 1, 0 = empty */
	size_t nslots;		/* a power of two */
};

static void names_free(struct nt_feature_names *fn);

struct nt_ethnl {
	struct nt_nl *nl;
	int family;
	struct nt_feature_names *fnames;
};

struct reply {
	int (*parse)(struct nlattr **tb, void *out, const void *aux);
	void *out;
	int maxattr;
	int perr;
	const void *aux;	/* the feature names */
	/* dumps: out is scratch of out_size bytes, cleared for each device */
	nt_ethnl_each each;
	void *ctx;
	int hdr_attr;
	size_t out_size;
	void (*reset)(void *out);	/* before a read is asked again */
};

/* Reply attributes are parsed without a policy: sizes are checked here,
 * so a short attribute is read as 0, never past its end. */
static uint32_t get_u32(const struct nlattr *a)
{
	return nla_len(a) >= (int)sizeof(uint32_t) ? nla_get_u32((struct nlattr *)a) : 0;
}

static uint8_t get_u8(const struct nlattr *a)
{
	return nla_len(a) >= 1 ? nla_get_u8((struct nlattr *)a) : 0;
}

/* A NUL-terminated string attribute, or NULL. */
static const char *get_str(const struct nlattr *a)
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
	names_free(e->fnames);
	free(e);
}

const char *nt_ethnl_extack(const struct nt_ethnl *e)
{
	return e ? nt_nl_extack(e->nl) : NULL;
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
	struct reply *r = arg;
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
		    !hb[ETHTOOL_A_HEADER_DEV_NAME] || !(dev = get_str(hb[ETHTOOL_A_HEADER_DEV_NAME])))
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
static struct nl_msg *request(struct nt_ethnl *e, int cmd, int hdr_attr, const char *dev,
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
static int transact(struct nt_ethnl *e, struct nl_msg *m, struct reply *r, enum nt_io_req what)
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

/* Reads the feature names (string set ETH_SS_FEATURES) once per socket. */
static int parse_strset(struct nlattr **tb, void *out, const void *aux)
{
	struct nt_feature_names *fn = out;
	struct nlattr *set, *str;
	int rem, rem2;

	(void)aux;
	if (!tb[ETHTOOL_A_STRSET_STRINGSETS])
		return -EINVAL;
	nla_for_each_nested(set, tb[ETHTOOL_A_STRSET_STRINGSETS], rem) {
		struct nlattr *sb[ETHTOOL_A_STRINGSET_MAX + 1] = {0};

		if (nla_parse_nested(sb, ETHTOOL_A_STRINGSET_MAX, set, NULL) < 0 ||
		    !sb[ETHTOOL_A_STRINGSET_ID] || get_u32(sb[ETHTOOL_A_STRINGSET_ID]) != ETH_SS_FEATURES ||
		    !sb[ETHTOOL_A_STRINGSET_COUNT])
			continue;
		fn->n = get_u32(sb[ETHTOOL_A_STRINGSET_COUNT]);
		if (fn->n > 4096)
			return -EINVAL;
		fn->name = nt_xcalloc(fn->n + 1, sizeof(char *));
		if (!sb[ETHTOOL_A_STRINGSET_STRINGS])
			continue;
		nla_for_each_nested(str, sb[ETHTOOL_A_STRINGSET_STRINGS], rem2) {
			struct nlattr *st[ETHTOOL_A_STRING_MAX + 1] = {0};
			const char *v;
			uint32_t k;

			if (nla_parse_nested(st, ETHTOOL_A_STRING_MAX, str, NULL) < 0 ||
			    !st[ETHTOOL_A_STRING_INDEX] || !st[ETHTOOL_A_STRING_VALUE])
				continue;
			k = get_u32(st[ETHTOOL_A_STRING_INDEX]);
			v = get_str(st[ETHTOOL_A_STRING_VALUE]);
			if (k < fn->n && v && *v && !fn->name[k])
				fn->name[k] = nt_xstrdup(v);
		}
	}
	return fn->name ? 0 : -EINVAL;
}

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void names_free(struct nt_feature_names *fn)
{
	size_t k;

	if (!fn)
		return;
	for (k = 0; k < fn->n; k++)
		free(fn->name[k]);
	free(fn->name);
	free(fn->slot);
	free(fn);
}

static void strset_reset(void *out)
{
	struct nt_feature_names *fn = out;
	size_t k;

	for (k = 0; k < fn->n && fn->name; k++)
		free(fn->name[k]);
	free(fn->name);
	fn->name = NULL;
	fn->n = 0;
}

static void features_reset(void *out)
{
	nt_features_free(out);
	memset(out, 0, sizeof(struct nt_features));
}

static int feature_names(struct nt_ethnl *e, const struct nt_feature_names **out)
{
	struct nt_feature_names *fn;
	struct reply r = {parse_strset, NULL, ETHTOOL_A_STRSET_MAX, 0, NULL, NULL, NULL, 0, 0,
			  strset_reset};
	struct nl_msg *m;
	struct nlattr *hdr, *sets, *set;
	size_t k;
	int err;

	if (e->fnames) {
		*out = e->fnames;
		return 0;
	}
	fn = nt_xcalloc(1, sizeof(*fn));
	r.out = fn;
	m = nlmsg_alloc();
	if (!m || !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, e->family, 0, NLM_F_REQUEST,
			       ETHTOOL_MSG_STRSET_GET, ETHTOOL_GENL_VERSION) ||
	    !(hdr = nla_nest_start(m, ETHTOOL_A_STRSET_HEADER)) ||
	    /* libnl drops an empty nest: the kernel wants the header */
	    nla_put_u32(m, ETHTOOL_A_HEADER_FLAGS, 0) < 0 || (nla_nest_end(m, hdr), false) ||
	    !(sets = nla_nest_start(m, ETHTOOL_A_STRSET_STRINGSETS)) ||
	    !(set = nla_nest_start(m, ETHTOOL_A_STRINGSETS_STRINGSET)) ||
	    nla_put_u32(m, ETHTOOL_A_STRINGSET_ID, ETH_SS_FEATURES) < 0) {
		nlmsg_free(m);
		free(fn);
		return -ENOMEM;
	}
	nla_nest_end(m, set);
	nla_nest_end(m, sets);
	err = transact(e, m, &r, NT_IO_STRSET_GET);
	if (err) {
		names_free(fn);
		return err;
	}
	for (fn->nslots = 16; fn->nslots < fn->n * 2; fn->nslots *= 2)
		;
	fn->slot = nt_xcalloc(fn->nslots, sizeof(*fn->slot));
	for (k = 0; k < fn->n; k++) {
		size_t h;

		if (!fn->name[k])
			continue;
		for (h = hash_name(fn->name[k]) & (fn->nslots - 1); fn->slot[h];
		     h = (h + 1) & (fn->nslots - 1))
			;
		fn->slot[h] = (uint32_t)k + 1;
	}
	e->fnames = fn;
	*out = fn;
	return 0;
}

/* A compact bitset (ETHTOOL_A_BITSET_VALUE words) into dst[words]. */
static int parse_compact(struct nlattr *set, uint32_t *dst, size_t words)
{
	struct nlattr *tb[ETHTOOL_A_BITSET_MAX + 1] = {0};
	size_t len;

	if (!set)
		return 0;
	if (nla_parse_nested(tb, ETHTOOL_A_BITSET_MAX, set, NULL) < 0)
		return -EINVAL;
	if (!tb[ETHTOOL_A_BITSET_VALUE])
		return tb[ETHTOOL_A_BITSET_BITS] ? -EINVAL : 0;	/* not compact */
	len = (size_t)nla_len(tb[ETHTOOL_A_BITSET_VALUE]);
	if (len > words * 4)
		len = words * 4;
	memcpy(dst, nla_data(tb[ETHTOOL_A_BITSET_VALUE]), len);
	return 0;
}

static int parse_features(struct nlattr **tb, void *out, const void *aux)
{
	static const int attr[4] = {ETHTOOL_A_FEATURES_HW, ETHTOOL_A_FEATURES_WANTED,
				    ETHTOOL_A_FEATURES_ACTIVE, ETHTOOL_A_FEATURES_NOCHANGE};
	const struct nt_feature_names *fn = aux;
	struct nt_features *f = out;
	int k;

	f->names = fn;
	f->words = (fn->n + 31) / 32;
	f->bits = nt_xcalloc(4 * f->words + 1, sizeof(uint32_t));
	for (k = 0; k < 4; k++)
		if (parse_compact(tb[attr[k]], f->bits + (size_t)k * f->words, f->words)) {
			nt_features_free(f);
			return -EINVAL;
		}
	return 0;
}

/* Builds the request header nest with no device: a dump of every device. */
static struct nl_msg *dump_request(struct nt_ethnl *e, int cmd, int hdr_attr, uint32_t flags)
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

int nt_ethnl_features_get(struct nt_ethnl *e, const char *dev, struct nt_features *out)
{
	struct reply r = {parse_features, out, ETHTOOL_A_FEATURES_MAX, 0, NULL, NULL, NULL, 0, 0,
			  features_reset};
	struct nl_msg *m;
	int err;

	memset(out, 0, sizeof(*out));
	err = feature_names(e, (const struct nt_feature_names **)&r.aux);
	if (err)
		return err;
	m = request(e, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_A_FEATURES_HEADER, dev,
		    ETHTOOL_FLAG_COMPACT_BITSETS);
	if (!m)
		return -ENOMEM;
	err = transact(e, m, &r, NT_IO_FEATURES_GET);
	if (err)
		nt_features_free(out);
	return err;
}

int nt_ethnl_features_dump(struct nt_ethnl *e, nt_ethnl_each each, void *ctx)
{
	struct nt_features scratch;
	struct reply r = {parse_features, &scratch, ETHTOOL_A_FEATURES_MAX, 0, NULL, each, ctx,
			  ETHTOOL_A_FEATURES_HEADER, sizeof(scratch)};
	struct nl_msg *m;
	int err = feature_names(e, (const struct nt_feature_names **)&r.aux);

	if (err)
		return err;
	m = dump_request(e, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_A_FEATURES_HEADER,
			 ETHTOOL_FLAG_COMPACT_BITSETS);
	return m ? transact(e, m, &r, NT_IO_FEATURES_DUMP) : -ENOMEM;
}

void nt_features_free(struct nt_features *f)
{
	free(f->bits);
	memset(f, 0, sizeof(*f));
}

size_t nt_features_count(const struct nt_features *f)
{
	return f->names ? f->names->n : 0;
}

const char *nt_features_name(const struct nt_features *f, size_t k)
{
	return f->names && k < f->names->n ? f->names->name[k] : NULL;
}

static bool bit(const struct nt_features *f, int which, size_t k)
{
	return (f->bits[(size_t)which * f->words + k / 32] >> (k % 32)) & 1;
}

bool nt_features_find(const struct nt_features *f, const char *name, struct nt_feature_state *out)
{
	const struct nt_feature_names *fn = f->names;
	size_t h;

	if (!fn || !fn->nslots || !f->bits)
		return false;
	for (h = hash_name(name) & (fn->nslots - 1); fn->slot[h]; h = (h + 1) & (fn->nslots - 1)) {
		size_t k = fn->slot[h] - 1;

		if (strcmp(fn->name[k], name))
			continue;
		out->hw = bit(f, 0, k);
		out->wanted = bit(f, 1, k);
		out->active = bit(f, 2, k);
		out->nochange = bit(f, 3, k);
		return true;
	}
	return false;
}

int nt_ethnl_features_set(struct nt_ethnl *e, const char *dev, const char *const *names,
			  const bool *on, size_t n)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_A_FEATURES_HEADER, dev,
				   ETHTOOL_FLAG_OMIT_REPLY);
	struct nlattr *w, *bits;
	size_t i;

	if (!m)
		return -ENOMEM;
	w = nla_nest_start(m, ETHTOOL_A_FEATURES_WANTED);
	bits = w ? nla_nest_start(m, ETHTOOL_A_BITSET_BITS) : NULL;
	if (!bits)
		goto nomem;
	for (i = 0; i < n; i++) {
		struct nlattr *bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);

		if (!bit || nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, names[i]) < 0 ||
		    (on[i] && nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE) < 0))
			goto nomem;
		nla_nest_end(m, bit);
	}
	nla_nest_end(m, bits);
	nla_nest_end(m, w);
	return transact(e, m, NULL, NT_IO_FEATURES_SET);
nomem:
	nlmsg_free(m);
	return -ENOMEM;
}

/* A bitset attribute in list form that names one bit and its value
 * (verbose form, as ethtool -K and --set-priv-flags send a single bit). */
static int put_one_bit(struct nl_msg *m, int attr, const char *name, bool on)
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

int nt_ethnl_feature_set(struct nt_ethnl *e, const char *dev, const char *name, bool on)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_A_FEATURES_HEADER, dev,
				   ETHTOOL_FLAG_OMIT_REPLY);

	if (!m)
		return -ENOMEM;
	if (put_one_bit(m, ETHTOOL_A_FEATURES_WANTED, name, on)) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	return transact(e, m, NULL, NT_IO_FEATURES_SET);
}

static const int chan_count_attr[4] = {ETHTOOL_A_CHANNELS_COMBINED_COUNT,
				       ETHTOOL_A_CHANNELS_RX_COUNT, ETHTOOL_A_CHANNELS_TX_COUNT,
				       ETHTOOL_A_CHANNELS_OTHER_COUNT};
static const int chan_max_attr[4] = {ETHTOOL_A_CHANNELS_COMBINED_MAX, ETHTOOL_A_CHANNELS_RX_MAX,
				     ETHTOOL_A_CHANNELS_TX_MAX, ETHTOOL_A_CHANNELS_OTHER_MAX};

static int parse_channels(struct nlattr **tb, void *out, const void *aux)
{
	(void)aux;
	struct nt_channels_state *c = out;
	int k;

	for (k = 0; k < 4; k++) {
		if (tb[chan_count_attr[k]]) {
			c->have[k] = true;
			c->count[k] = get_u32(tb[chan_count_attr[k]]);
		}
		if (tb[chan_max_attr[k]])
			c->max[k] = get_u32(tb[chan_max_attr[k]]);
	}
	return 0;
}

int nt_ethnl_channels_get(struct nt_ethnl *e, const char *dev, struct nt_channels_state *out)
{
	struct reply r = {parse_channels, out, ETHTOOL_A_CHANNELS_MAX, 0, NULL, NULL, NULL, 0, 0};
	struct nl_msg *m = request(e, ETHTOOL_MSG_CHANNELS_GET, ETHTOOL_A_CHANNELS_HEADER, dev, 0);

	memset(out, 0, sizeof(*out));
	return m ? transact(e, m, &r, NT_IO_CHANNELS_GET) : -ENOMEM;
}

int nt_ethnl_channels_dump(struct nt_ethnl *e, nt_ethnl_each each, void *ctx)
{
	struct nt_channels_state scratch;
	struct reply r = {parse_channels, &scratch, ETHTOOL_A_CHANNELS_MAX, 0, NULL, each, ctx,
			  ETHTOOL_A_CHANNELS_HEADER, sizeof(scratch)};
	struct nl_msg *m = dump_request(e, ETHTOOL_MSG_CHANNELS_GET, ETHTOOL_A_CHANNELS_HEADER, 0);

	return m ? transact(e, m, &r, NT_IO_CHANNELS_DUMP) : -ENOMEM;
}

int nt_ethnl_channels_set(struct nt_ethnl *e, const char *dev, int kind, uint32_t count)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_CHANNELS_SET, ETHTOOL_A_CHANNELS_HEADER, dev, 0);

	if (!m)
		return -ENOMEM;
	if (kind < 0 || kind > 3 || nla_put_u32(m, chan_count_attr[kind], count) < 0) {
		nlmsg_free(m);
		return -EINVAL;
	}
	return transact(e, m, NULL, NT_IO_CHANNELS_SET);
}

int nt_ethnl_channels_set_all(struct nt_ethnl *e, const char *dev, const struct nt_channels_state *c)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_CHANNELS_SET, ETHTOOL_A_CHANNELS_HEADER, dev, 0);
	int k;

	if (!m)
		return -ENOMEM;
	for (k = 0; k < 4; k++)
		if (c->have[k] && nla_put_u32(m, chan_count_attr[k], c->count[k]) < 0) {
			nlmsg_free(m);
			return -EINVAL;
		}
	return transact(e, m, NULL, NT_IO_CHANNELS_SET);
}

static const int ring_cur_attr[4] = {ETHTOOL_A_RINGS_RX, ETHTOOL_A_RINGS_TX,
				     ETHTOOL_A_RINGS_RX_MINI, ETHTOOL_A_RINGS_RX_JUMBO};
static const int ring_max_attr[4] = {ETHTOOL_A_RINGS_RX_MAX, ETHTOOL_A_RINGS_TX_MAX,
				     ETHTOOL_A_RINGS_RX_MINI_MAX, ETHTOOL_A_RINGS_RX_JUMBO_MAX};

static int parse_rings(struct nlattr **tb, void *out, const void *aux)
{
	(void)aux;
	struct nt_rings_state *r = out;
	int k;

	for (k = 0; k < 4; k++) {
		if (tb[ring_cur_attr[k]]) {
			r->have[k] = true;
			r->cur[k] = get_u32(tb[ring_cur_attr[k]]);
		}
		if (tb[ring_max_attr[k]])
			r->max[k] = get_u32(tb[ring_max_attr[k]]);
	}
	return 0;
}

int nt_ethnl_rings_get(struct nt_ethnl *e, const char *dev, struct nt_rings_state *out)
{
	struct reply r = {parse_rings, out, ETHTOOL_A_RINGS_MAX, 0, NULL, NULL, NULL, 0, 0};
	struct nl_msg *m = request(e, ETHTOOL_MSG_RINGS_GET, ETHTOOL_A_RINGS_HEADER, dev, 0);

	memset(out, 0, sizeof(*out));
	return m ? transact(e, m, &r, NT_IO_RINGS_GET) : -ENOMEM;
}

int nt_ethnl_rings_dump(struct nt_ethnl *e, nt_ethnl_each each, void *ctx)
{
	struct nt_rings_state scratch;
	struct reply r = {parse_rings, &scratch, ETHTOOL_A_RINGS_MAX, 0, NULL, each, ctx,
			  ETHTOOL_A_RINGS_HEADER, sizeof(scratch)};
	struct nl_msg *m = dump_request(e, ETHTOOL_MSG_RINGS_GET, ETHTOOL_A_RINGS_HEADER, 0);

	return m ? transact(e, m, &r, NT_IO_RINGS_DUMP) : -ENOMEM;
}

int nt_ethnl_rings_set(struct nt_ethnl *e, const char *dev, int which, uint32_t value)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_RINGS_SET, ETHTOOL_A_RINGS_HEADER, dev, 0);

	if (!m)
		return -ENOMEM;
	if (which < 0 || which > 3 || nla_put_u32(m, ring_cur_attr[which], value) < 0) {
		nlmsg_free(m);
		return -EINVAL;
	}
	return transact(e, m, NULL, NT_IO_RINGS_SET);
}

static const int coal_attr[NT_COAL__COUNT] = {
	ETHTOOL_A_COALESCE_RX_USECS, ETHTOOL_A_COALESCE_TX_USECS,
	ETHTOOL_A_COALESCE_RX_MAX_FRAMES, ETHTOOL_A_COALESCE_TX_MAX_FRAMES,
	ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX,
};

static int parse_coalesce(struct nlattr **tb, void *out, const void *aux)
{
	(void)aux;
	struct nt_coalesce_state *c = out;
	int k;

	for (k = 0; k < NT_COAL__COUNT; k++) {
		if (!tb[coal_attr[k]])
			continue;
		c->have[k] = true;
		c->v[k] = k >= NT_COAL_ADAPTIVE_RX ? get_u8(tb[coal_attr[k]]) :
			  get_u32(tb[coal_attr[k]]);
	}
	return 0;
}

int nt_ethnl_coalesce_get(struct nt_ethnl *e, const char *dev, struct nt_coalesce_state *out)
{
	struct reply r = {parse_coalesce, out, ETHTOOL_A_COALESCE_MAX, 0, NULL, NULL, NULL, 0, 0};
	struct nl_msg *m = request(e, ETHTOOL_MSG_COALESCE_GET, ETHTOOL_A_COALESCE_HEADER, dev, 0);

	memset(out, 0, sizeof(*out));
	return m ? transact(e, m, &r, NT_IO_COALESCE_GET) : -ENOMEM;
}

int nt_ethnl_coalesce_dump(struct nt_ethnl *e, nt_ethnl_each each, void *ctx)
{
	struct nt_coalesce_state scratch;
	struct reply r = {parse_coalesce, &scratch, ETHTOOL_A_COALESCE_MAX, 0, NULL, each, ctx,
			  ETHTOOL_A_COALESCE_HEADER, sizeof(scratch)};
	struct nl_msg *m = dump_request(e, ETHTOOL_MSG_COALESCE_GET, ETHTOOL_A_COALESCE_HEADER, 0);

	return m ? transact(e, m, &r, NT_IO_COALESCE_DUMP) : -ENOMEM;
}

int nt_ethnl_coalesce_set(struct nt_ethnl *e, const char *dev, int field, uint32_t value)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_COALESCE_SET, ETHTOOL_A_COALESCE_HEADER, dev, 0);
	int r;

	if (!m)
		return -ENOMEM;
	if (field < 0 || field >= NT_COAL__COUNT)
		r = -1;
	else if (field >= NT_COAL_ADAPTIVE_RX)
		r = nla_put_u8(m, coal_attr[field], (uint8_t)value);
	else
		r = nla_put_u32(m, coal_attr[field], value);
	if (r < 0) {
		nlmsg_free(m);
		return -EINVAL;
	}
	return transact(e, m, NULL, NT_IO_COALESCE_SET);
}

/* Pause (flow control): ETHTOOL_MSG_PAUSE_GET/SET, ETHTOOL_A_PAUSE_AUTONEG,
 * _RX, _TX as u8 (net/ethtool/pause.c). */
static const int pause_attr[3] = {ETHTOOL_A_PAUSE_AUTONEG, ETHTOOL_A_PAUSE_RX, ETHTOOL_A_PAUSE_TX};

static int parse_pause(struct nlattr **tb, void *out, const void *aux)
{
	struct nt_pause_state *p = out;
	int k;

	(void)aux;
	for (k = 0; k < 3; k++)
		if (tb[pause_attr[k]]) {
			p->have[k] = true;
			p->on[k] = get_u8(tb[pause_attr[k]]) != 0;
		}
	return 0;
}

int nt_ethnl_pause_get(struct nt_ethnl *e, const char *dev, struct nt_pause_state *out)
{
	struct reply r = {.parse = parse_pause, .out = out, .maxattr = ETHTOOL_A_PAUSE_MAX};
	struct nl_msg *m = request(e, ETHTOOL_MSG_PAUSE_GET, ETHTOOL_A_PAUSE_HEADER, dev, 0);

	memset(out, 0, sizeof(*out));
	return m ? transact(e, m, &r, NT_IO_PAUSE_GET) : -ENOMEM;
}

int nt_ethnl_pause_set(struct nt_ethnl *e, const char *dev, int which, bool on)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_PAUSE_SET, ETHTOOL_A_PAUSE_HEADER, dev, 0);

	if (!m)
		return -ENOMEM;
	if (which < 0 || which > 2 || nla_put_u8(m, pause_attr[which], on) < 0) {
		nlmsg_free(m);
		return -EINVAL;
	}
	return transact(e, m, NULL, NT_IO_PAUSE_SET);
}

/* Private flags: ETHTOOL_MSG_PRIVFLAGS_GET/SET, ETHTOOL_A_PRIVFLAGS_FLAGS,
 * a bitset by name (net/ethtool/privflags.c), read in its verbose form
 * (no compact flag): a list of bits with names and values. */
static int parse_privflags(struct nlattr **tb, void *out, const void *aux)
{
	struct nlattr *bs[ETHTOOL_A_BITSET_MAX + 1] = {0}, *bit;
	struct nt_privflags *f = out;
	int rem;

	(void)aux;
	if (!tb[ETHTOOL_A_PRIVFLAGS_FLAGS] ||
	    nla_parse_nested(bs, ETHTOOL_A_BITSET_MAX, tb[ETHTOOL_A_PRIVFLAGS_FLAGS], NULL) < 0)
		return -EINVAL;
	if (!bs[ETHTOOL_A_BITSET_BITS])
		return 0;
	nla_for_each_nested(bit, bs[ETHTOOL_A_BITSET_BITS], rem) {
		struct nlattr *bt[ETHTOOL_A_BITSET_BIT_MAX + 1] = {0};
		const char *name;

		if (nla_type(bit) != ETHTOOL_A_BITSET_BITS_BIT ||
		    nla_parse_nested(bt, ETHTOOL_A_BITSET_BIT_MAX, bit, NULL) < 0 ||
		    !bt[ETHTOOL_A_BITSET_BIT_NAME])
			continue;
		name = get_str(bt[ETHTOOL_A_BITSET_BIT_NAME]);
		if (!name || !*name || nt_privflags_find(f, name))
			continue;	/* an unnamed (reserved) bit, or a repeat */
		f->v = nt_xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
		f->v[f->n].name = nt_xstrdup(name);
		/* in list form (NOMASK) every listed bit is set */
		f->v[f->n++].on = bs[ETHTOOL_A_BITSET_NOMASK] || bt[ETHTOOL_A_BITSET_BIT_VALUE];
	}
	return 0;
}

void nt_privflags_free(struct nt_privflags *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].name);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

const struct nt_privflag *nt_privflags_find(const struct nt_privflags *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].name, name))
			return &f->v[i];
	return NULL;
}

static void privflags_reset(void *out)
{
	nt_privflags_free(out);
	memset(out, 0, sizeof(struct nt_privflags));
}

int nt_ethnl_privflags_get(struct nt_ethnl *e, const char *dev, struct nt_privflags *out)
{
	struct reply r = {.parse = parse_privflags, .out = out, .maxattr = ETHTOOL_A_PRIVFLAGS_MAX,
			  .reset = privflags_reset};
	struct nl_msg *m = request(e, ETHTOOL_MSG_PRIVFLAGS_GET, ETHTOOL_A_PRIVFLAGS_HEADER, dev, 0);
	int err;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOMEM;
	err = transact(e, m, &r, NT_IO_PRIVFLAGS_GET);
	if (err)
		nt_privflags_free(out);
	return err;
}

int nt_ethnl_privflag_set(struct nt_ethnl *e, const char *dev, const char *name, bool on)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_PRIVFLAGS_SET, ETHTOOL_A_PRIVFLAGS_HEADER, dev, 0);

	if (!m)
		return -ENOMEM;
	if (put_one_bit(m, ETHTOOL_A_PRIVFLAGS_FLAGS, name, on)) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	return transact(e, m, NULL, NT_IO_PRIVFLAGS_SET);
}
