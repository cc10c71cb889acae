/* SPDX-License-Identifier: MIT */
/* ethtool private flags: ETHTOOL_MSG_PRIVFLAGS_GET/SET, ETHTOOL_A_PRIVFLAGS_FLAGS,
 * a bitset by name (net/ethtool/privflags.c), read in its verbose form
 * (no compact flag): a list of bits with names and values; and the kind's
 * row, which has no other file in the applier. */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/model/names.h"
#include "ethnl_msg.h"
#include "linux.h"

/* A device's private flags by name. */
struct nt_privflags {
	size_t n;
	struct nt_privflag {
		char *name;
		bool on;
	} *v;
};

static const struct nt_privflag *nt_privflags_find(const struct nt_privflags *f, const char *name);

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

static void nt_privflags_free(struct nt_privflags *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].name);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

static const struct nt_privflag *nt_privflags_find(const struct nt_privflags *f, const char *name)
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

static int nt_ethnl_privflags_get(struct nt_ethnl *e, const char *dev, struct nt_privflags *out)
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

static int nt_ethnl_privflag_set(struct nt_ethnl *e, const char *dev, const char *name, bool on)
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

/* The device's flags: 0, -ENOENT when it has none, or the failure. */
static int flags_of(struct nt_lctx *x, const char *obj, struct nt_privflags *f)
{
	int r;

	if (!x->nl)
		return -ENOENT;
	r = nt_ethnl_privflags_get(x->nl, obj, f);
	return r ? nt_row_absent(r) : 0;
}

static int privflag_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	struct nt_privflags f;
	const struct nt_privflag *s;
	int r = flags_of(x, obj, &f);

	if (r)
		return r;
	s = nt_privflags_find(&f, arg);
	if (s)
		*out = nt_v_bool(s->on);
	nt_privflags_free(&f);
	return s ? 0 : -ENOENT;
}

static int privflag_all(struct nt_lctx *x, const char *obj, struct nt_state *st)
{
	struct nt_privflags f;
	const char *part;
	size_t i;
	int r = flags_of(x, obj, &f);

	if (r)
		return r;
	for (i = 0; i < f.n; i++)
		if (!nt_setting_problem(NT_K_PRIV_FLAG, obj, f.v[i].name, &part))
			nt_state_set(st, NT_K_PRIV_FLAG, obj, f.v[i].name, nt_v_bool(f.v[i].on),
				     (struct nt_mark){0});
	nt_privflags_free(&f);
	return 0;
}

static int privflag_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	int r;

	nt_lctx_drop_cache(x);
	if (!x->nl)
		return -EOPNOTSUPP;
	r = nt_ethnl_privflag_set(x->nl, obj, arg, v->b);
	return r ? nt_row_nl_err(x, r) : 0;
}

const struct nt_linux_row nt_row_PRIV_FLAG = {
	.kind = NT_K_PRIV_FLAG,
	.get = {NT_IO_ETHNL, "ETHTOOL_MSG_PRIVFLAGS_GET ETHTOOL_A_PRIVFLAGS_FLAGS (a bitset by name)"},
	.set = {NT_IO_ETHNL, "ETHTOOL_MSG_PRIVFLAGS_SET ETHTOOL_A_PRIVFLAGS_FLAGS (the named bit only)"},
	.sh_fn = "private_flag",
	.sh_get = "# \"legacy-rx      : off\"\n"
		"\tethtool --show-priv-flags \"$1\" | awk -v k=\"$2\" -F: 'NR > 1 { n = $1; sub(/[ \\t]+$/, \"\", n)\n"
		"\t\tif (n == k) { v = $2; gsub(/[ \\t]/, \"\", v); print v; f = 1; exit } }\n"
		"\t\tEND { if (!f) exit 1 }'",
	.sh_put = "ethtool --set-priv-flags \"$1\" \"$2\" \"$3\"",
	.read = privflag_read,
	.write = privflag_write,
	.all = privflag_all,
	.flags = NT_LR_OBSERVE,
};
