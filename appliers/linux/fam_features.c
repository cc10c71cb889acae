/* SPDX-License-Identifier: MIT */
/* ethtool features: the kernel's feature names (ETHTOOL_MSG_STRSET_GET,
 * ETH_SS_FEATURES, once per socket), ETHTOOL_MSG_FEATURES_GET as one dump
 * of every device (compact bitsets), ETHTOOL_MSG_FEATURES_SET by name
 * (net/ethtool/features.c). */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/genl/genl.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/buf.h"
#include "ethnl_msg.h"

/* ETH_SS_FEATURES: bit -> name, and an open-addressing hash name -> bit. */
struct nt_feature_names {
	char **name;
	size_t n;
	uint32_t *slot;		/* bit + 1, 0 = empty */
	size_t nslots;		/* a power of two */
};

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
		    !sb[ETHTOOL_A_STRINGSET_ID] || nt_ethnl_u32(sb[ETHTOOL_A_STRINGSET_ID]) != ETH_SS_FEATURES ||
		    !sb[ETHTOOL_A_STRINGSET_COUNT])
			continue;
		fn->n = nt_ethnl_u32(sb[ETHTOOL_A_STRINGSET_COUNT]);
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
			k = nt_ethnl_u32(st[ETHTOOL_A_STRING_INDEX]);
			v = nt_ethnl_str(st[ETHTOOL_A_STRING_VALUE]);
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

void nt_feature_names_free(struct nt_feature_names *fn)
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

static int feature_names(struct nt_ethnl *e, const struct nt_feature_names **out)
{
	struct nt_feature_names *fn;
	struct nt_ethnl_reply r = {parse_strset, NULL, ETHTOOL_A_STRSET_MAX, 0, NULL, NULL, NULL, 0, 0,
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
	err = nt_ethnl_transact(e, m, &r, NT_IO_STRSET_GET);
	if (err) {
		nt_feature_names_free(fn);
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

static void features_reset(void *out)
{
	nt_features_free(out);
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

int nt_ethnl_features_dump(struct nt_ethnl *e, nt_ethnl_each each, void *ctx)
{
	struct nt_features scratch;
	struct nt_ethnl_reply r = {parse_features, &scratch, ETHTOOL_A_FEATURES_MAX, 0, NULL, each, ctx,
			  ETHTOOL_A_FEATURES_HEADER, sizeof(scratch)};
	struct nl_msg *m;
	int err = feature_names(e, (const struct nt_feature_names **)&r.aux);

	if (err)
		return err;
	m = nt_ethnl_dump_request(e, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_A_FEATURES_HEADER,
			 ETHTOOL_FLAG_COMPACT_BITSETS);
	return m ? nt_ethnl_transact(e, m, &r, NT_IO_FEATURES_DUMP) : -ENOMEM;
}

int nt_ethnl_features_get(struct nt_ethnl *e, const char *dev, struct nt_features *out)
{
	struct nt_ethnl_reply r = {.parse = parse_features, .out = out,
				   .maxattr = ETHTOOL_A_FEATURES_MAX};
	struct nl_msg *m;
	int err = feature_names(e, (const struct nt_feature_names **)&r.aux);

	memset(out, 0, sizeof(*out));
	if (err)
		return err;
	r.reset = features_reset;
	m = nt_ethnl_request(e, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_A_FEATURES_HEADER, dev,
			     ETHTOOL_FLAG_COMPACT_BITSETS);
	err = m ? nt_ethnl_transact(e, m, &r, NT_IO_FEATURES_GET) : -ENOMEM;
	if (err)
		nt_features_free(out);
	return err;
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

bool nt_features_at(const struct nt_features *f, size_t k, struct nt_feature_state *out)
{
	if (!f->names || k >= f->names->n || !f->bits)
		return false;
	out->hw = bit(f, 0, k);
	out->wanted = bit(f, 1, k);
	out->active = bit(f, 2, k);
	out->nochange = bit(f, 3, k);
	return true;
}

bool nt_features_find(const struct nt_features *f, const char *name, struct nt_feature_state *out)
{
	const struct nt_feature_names *fn = f->names;
	size_t h;

	if (!fn || !fn->nslots || !f->bits)
		return false;
	for (h = hash_name(name) & (fn->nslots - 1); fn->slot[h]; h = (h + 1) & (fn->nslots - 1)) {
		size_t k = fn->slot[h] - 1;

		if (!strcmp(fn->name[k], name))
			return nt_features_at(f, k, out);
	}
	return false;
}

int nt_ethnl_features_set(struct nt_ethnl *e, const char *dev, const char *const *names,
			  const bool *on, size_t n)
{
	struct nl_msg *m = nt_ethnl_request(e, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_A_FEATURES_HEADER, dev,
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
	return nt_ethnl_transact(e, m, NULL, NT_IO_FEATURES_SET);
nomem:
	nlmsg_free(m);
	return -ENOMEM;
}

int nt_ethnl_feature_set(struct nt_ethnl *e, const char *dev, const char *name, bool on)
{
	struct nl_msg *m = nt_ethnl_request(e, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_A_FEATURES_HEADER, dev,
				   ETHTOOL_FLAG_OMIT_REPLY);

	if (!m)
		return -ENOMEM;
	if (nt_ethnl_put_one_bit(m, ETHTOOL_A_FEATURES_WANTED, name, on)) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	return nt_ethnl_transact(e, m, NULL, NT_IO_FEATURES_SET);
}
