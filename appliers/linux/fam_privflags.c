/* SPDX-License-Identifier: MIT */
/* ethtool private flags: ETHTOOL_MSG_PRIVFLAGS_GET/SET, ETHTOOL_A_PRIVFLAGS_FLAGS,
 * a bitset by name (net/ethtool/privflags.c), read in its verbose form
 * (no compact flag): a list of bits with names and values. */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/buf.h"
#include "ethnl_msg.h"

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
		name = nt_ethnl_str(bt[ETHTOOL_A_BITSET_BIT_NAME]);
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
	struct nt_ethnl_reply r = {.parse = parse_privflags, .out = out, .maxattr = ETHTOOL_A_PRIVFLAGS_MAX,
			  .reset = privflags_reset};
	struct nl_msg *m = nt_ethnl_request(e, ETHTOOL_MSG_PRIVFLAGS_GET, ETHTOOL_A_PRIVFLAGS_HEADER, dev, 0);
	int err;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOMEM;
	err = nt_ethnl_transact(e, m, &r, nt_io_named("privflags", false));
	if (err)
		nt_privflags_free(out);
	return err;
}

int nt_ethnl_privflag_set(struct nt_ethnl *e, const char *dev, const char *name, bool on)
{
	struct nl_msg *m = nt_ethnl_request(e, ETHTOOL_MSG_PRIVFLAGS_SET, ETHTOOL_A_PRIVFLAGS_HEADER, dev, 0);

	if (!m)
		return -ENOMEM;
	if (nt_ethnl_put_one_bit(m, ETHTOOL_A_PRIVFLAGS_FLAGS, name, on)) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	return nt_ethnl_transact(e, m, NULL, nt_io_named("privflags", true));
}
