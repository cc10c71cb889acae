/* SPDX-License-Identifier: MIT */
/* ethtool netlink requests: features, channels, rings, coalesce. */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../../compiler/buf.h"
#include "ethnl.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLMSGERR_ATTR_MSG
#define NLMSGERR_ATTR_MSG 1
#endif

struct nt_io_stats nt_io;

struct nt_ethnl {
	struct nl_sock *sk;
	int family;
	char extack[512];
	int error;
};

struct call {
	struct nt_ethnl *e;
	struct reply *r;
	int done;		/* 1 running, 0 acked, <0 -errno */
};

struct reply {
	int (*parse)(struct nlattr **tb, void *out);
	void *out;
	int maxattr;
	int perr;
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

/* Keeps the kernel's error and extack text of a failed request. */
static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct call *c = arg;
	struct nt_ethnl *e = c->e;
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);
	size_t off = sizeof(*err);

	(void)nla;
	c->done = err->error ? err->error : 0;
	e->extack[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - NLMSG_HDRLEN;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && nlh->nlmsg_len > NLMSG_HDRLEN + off) {
		struct nlattr *attrs = (struct nlattr *)((char *)err + NLMSG_ALIGN(off));
		int len = (int)(nlh->nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(off));
		struct nlattr *tb[NLMSGERR_ATTR_MSG + 1] = {0};

		if (len > 0 && !nla_parse(tb, NLMSGERR_ATTR_MSG, attrs, len, NULL) &&
		    tb[NLMSGERR_ATTR_MSG])
			snprintf(e->extack, sizeof(e->extack), "%s",
				 get_str(tb[NLMSGERR_ATTR_MSG]) ? get_str(tb[NLMSGERR_ATTR_MSG]) : "");
	}
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct call *c = arg;

	(void)msg;
	c->done = 0;
	return NL_STOP;
}

int nt_ethnl_open(struct nt_ethnl **out)
{
	struct nt_ethnl *e = nt_xcalloc(1, sizeof(*e));
	int one = 1, r;

	*out = NULL;
	e->sk = nl_socket_alloc();
	if (!e->sk) {
		free(e);
		return -ENOMEM;
	}
	r = genl_connect(e->sk);
	if (r < 0) {
		nl_socket_free(e->sk);
		free(e);
		return -ENOTCONN;
	}
	setsockopt(nl_socket_get_fd(e->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(e->sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	e->family = genl_ctrl_resolve(e->sk, ETHTOOL_GENL_NAME);
	if (e->family < 0) {
		nl_socket_free(e->sk);
		free(e);
		return -EPROTONOSUPPORT;
	}
	*out = e;
	return 0;
}

void nt_ethnl_close(struct nt_ethnl *e)
{
	if (!e)
		return;
	nl_socket_free(e->sk);
	free(e);
}

const char *nt_ethnl_extack(const struct nt_ethnl *e)
{
	return e && e->extack[0] ? e->extack : NULL;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct call *c = arg;
	struct reply *r = c->r;
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[64] = {0};

	if (!r || r->maxattr >= 64)
		return NL_SKIP;
	if (nla_parse(tb, r->maxattr, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), NULL) < 0) {
		r->perr = -EINVAL;
		return NL_SKIP;
	}
	if (r->parse)
		r->perr = r->parse(tb, r->out);
	return NL_OK;
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

/* Sends m, parses replies with r, waits for the ack.  Returns 0 or -errno. */
static int transact(struct nt_ethnl *e, struct nl_msg *m, struct reply *r, bool is_set)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	struct call c = {e, r, 1};
	int err;

	if (!cb) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	e->extack[0] = '\0';
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &c);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &c);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &c);
	if (is_set)
		nt_io.netlink_sets++;
	else
		nt_io.netlink_gets++;
	err = nl_send_auto(e->sk, m);
	nlmsg_free(m);
	if (err < 0) {
		nl_cb_put(cb);
		return -EIO;
	}
	while (c.done > 0) {
		err = nl_recvmsgs(e->sk, cb);
		if (err < 0 && c.done > 0) {
			c.done = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	if (c.done < 0)
		return c.done;
	if (r && r->perr)
		return r->perr;
	return 0;
}

static int parse_bitset_list(struct nlattr *set, struct nt_features *f, int which)
{
	struct nlattr *tb[ETHTOOL_A_BITSET_MAX + 1] = {0}, *bit;
	int rem;

	if (!set || nla_parse_nested(tb, ETHTOOL_A_BITSET_MAX, set, NULL) < 0)
		return -EINVAL;
	if (!tb[ETHTOOL_A_BITSET_BITS])
		return 0;
	nla_for_each_nested(bit, tb[ETHTOOL_A_BITSET_BITS], rem) {
		struct nlattr *bt[ETHTOOL_A_BITSET_BIT_MAX + 1] = {0};
		const char *name;
		size_t i;
		bool val;

		if (nla_type(bit) != ETHTOOL_A_BITSET_BITS_BIT ||
		    nla_parse_nested(bt, ETHTOOL_A_BITSET_BIT_MAX, bit, NULL) < 0 ||
		    !bt[ETHTOOL_A_BITSET_BIT_NAME])
			continue;
		name = get_str(bt[ETHTOOL_A_BITSET_BIT_NAME]);
		if (!name || !*name)
			continue;	/* an unnamed (reserved) bit */
		/* in list form (NOMASK) every listed bit is set */
		val = tb[ETHTOOL_A_BITSET_NOMASK] || bt[ETHTOOL_A_BITSET_BIT_VALUE];
		for (i = 0; i < f->n; i++)
			if (!strcmp(f->v[i].name, name))
				break;
		if (i == f->n) {
			f->v = nt_xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
			memset(&f->v[f->n], 0, sizeof(f->v[f->n]));
			f->v[f->n++].name = nt_xstrdup(name);
		}
		if (!val)
			continue;
		switch (which) {
		case 0: f->v[i].hw = true; break;
		case 1: f->v[i].wanted = true; break;
		case 2: f->v[i].active = true; break;
		default: f->v[i].nochange = true; break;
		}
	}
	return 0;
}

static int parse_features(struct nlattr **tb, void *out)
{
	struct nt_features *f = out;
	int r = 0;

	r |= parse_bitset_list(tb[ETHTOOL_A_FEATURES_HW], f, 0);
	r |= parse_bitset_list(tb[ETHTOOL_A_FEATURES_WANTED], f, 1);
	r |= parse_bitset_list(tb[ETHTOOL_A_FEATURES_ACTIVE], f, 2);
	r |= parse_bitset_list(tb[ETHTOOL_A_FEATURES_NOCHANGE], f, 3);
	return r ? -EINVAL : 0;
}

int nt_ethnl_features_get(struct nt_ethnl *e, const char *dev, struct nt_features *out)
{
	struct reply r = {parse_features, out, ETHTOOL_A_FEATURES_MAX, 0};
	struct nl_msg *m = request(e, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_A_FEATURES_HEADER, dev, 0);
	int err;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOMEM;
	err = transact(e, m, &r, false);
	if (err)
		nt_features_free(out);
	return err;
}

void nt_features_free(struct nt_features *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].name);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

const struct nt_feature_state *nt_features_find(const struct nt_features *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].name, name))
			return &f->v[i];
	return NULL;
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
	return transact(e, m, NULL, true);
nomem:
	nlmsg_free(m);
	return -ENOMEM;
}

int nt_ethnl_feature_set(struct nt_ethnl *e, const char *dev, const char *name, bool on)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_A_FEATURES_HEADER, dev,
				   ETHTOOL_FLAG_OMIT_REPLY);
	struct nlattr *w, *bits, *bit;

	if (!m)
		return -ENOMEM;
	w = nla_nest_start(m, ETHTOOL_A_FEATURES_WANTED);
	bits = w ? nla_nest_start(m, ETHTOOL_A_BITSET_BITS) : NULL;
	bit = bits ? nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT) : NULL;
	if (!bit || nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, name) < 0 ||
	    (on && nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE) < 0)) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	nla_nest_end(m, bit);
	nla_nest_end(m, bits);
	nla_nest_end(m, w);
	return transact(e, m, NULL, true);
}

static const int chan_count_attr[4] = {ETHTOOL_A_CHANNELS_COMBINED_COUNT,
				       ETHTOOL_A_CHANNELS_RX_COUNT, ETHTOOL_A_CHANNELS_TX_COUNT,
				       ETHTOOL_A_CHANNELS_OTHER_COUNT};
static const int chan_max_attr[4] = {ETHTOOL_A_CHANNELS_COMBINED_MAX, ETHTOOL_A_CHANNELS_RX_MAX,
				     ETHTOOL_A_CHANNELS_TX_MAX, ETHTOOL_A_CHANNELS_OTHER_MAX};

static int parse_channels(struct nlattr **tb, void *out)
{
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
	struct reply r = {parse_channels, out, ETHTOOL_A_CHANNELS_MAX, 0};
	struct nl_msg *m = request(e, ETHTOOL_MSG_CHANNELS_GET, ETHTOOL_A_CHANNELS_HEADER, dev, 0);

	memset(out, 0, sizeof(*out));
	return m ? transact(e, m, &r, false) : -ENOMEM;
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
	return transact(e, m, NULL, true);
}

static const int ring_cur_attr[4] = {ETHTOOL_A_RINGS_RX, ETHTOOL_A_RINGS_TX,
				     ETHTOOL_A_RINGS_RX_MINI, ETHTOOL_A_RINGS_RX_JUMBO};
static const int ring_max_attr[4] = {ETHTOOL_A_RINGS_RX_MAX, ETHTOOL_A_RINGS_TX_MAX,
				     ETHTOOL_A_RINGS_RX_MINI_MAX, ETHTOOL_A_RINGS_RX_JUMBO_MAX};

static int parse_rings(struct nlattr **tb, void *out)
{
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
	struct reply r = {parse_rings, out, ETHTOOL_A_RINGS_MAX, 0};
	struct nl_msg *m = request(e, ETHTOOL_MSG_RINGS_GET, ETHTOOL_A_RINGS_HEADER, dev, 0);

	memset(out, 0, sizeof(*out));
	return m ? transact(e, m, &r, false) : -ENOMEM;
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
	return transact(e, m, NULL, true);
}

static const int coal_attr[NT_COAL__COUNT] = {
	ETHTOOL_A_COALESCE_RX_USECS, ETHTOOL_A_COALESCE_TX_USECS,
	ETHTOOL_A_COALESCE_RX_MAX_FRAMES, ETHTOOL_A_COALESCE_TX_MAX_FRAMES,
	ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX,
};

static int parse_coalesce(struct nlattr **tb, void *out)
{
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
	struct reply r = {parse_coalesce, out, ETHTOOL_A_COALESCE_MAX, 0};
	struct nl_msg *m = request(e, ETHTOOL_MSG_COALESCE_GET, ETHTOOL_A_COALESCE_HEADER, dev, 0);

	memset(out, 0, sizeof(*out));
	return m ? transact(e, m, &r, false) : -ENOMEM;
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
	return transact(e, m, NULL, true);
}

/* Pause (flow control): ETHTOOL_MSG_PAUSE_GET/SET, ETHTOOL_A_PAUSE_AUTONEG,
 * _RX, _TX as u8 (net/ethtool/pause.c). */
static const int pause_attr[3] = {ETHTOOL_A_PAUSE_AUTONEG, ETHTOOL_A_PAUSE_RX, ETHTOOL_A_PAUSE_TX};

static int parse_pause(struct nlattr **tb, void *out)
{
	struct nt_pause_state *p = out;
	int k;

	for (k = 0; k < 3; k++)
		if (tb[pause_attr[k]]) {
			p->have[k] = true;
			p->on[k] = get_u8(tb[pause_attr[k]]) != 0;
		}
	return 0;
}

int nt_ethnl_pause_get(struct nt_ethnl *e, const char *dev, struct nt_pause_state *out)
{
	struct reply r = {parse_pause, out, ETHTOOL_A_PAUSE_MAX, 0};
	struct nl_msg *m = request(e, ETHTOOL_MSG_PAUSE_GET, ETHTOOL_A_PAUSE_HEADER, dev, 0);

	memset(out, 0, sizeof(*out));
	return m ? transact(e, m, &r, false) : -ENOMEM;
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
	return transact(e, m, NULL, true);
}

/* Private flags: ETHTOOL_MSG_PRIVFLAGS_GET/SET, ETHTOOL_A_PRIVFLAGS_FLAGS,
 * a bitset by name (net/ethtool/privflags.c); the state is in .active. */
static int parse_privflags(struct nlattr **tb, void *out)
{
	return parse_bitset_list(tb[ETHTOOL_A_PRIVFLAGS_FLAGS], out, 2) ? -EINVAL : 0;
}

int nt_ethnl_privflags_get(struct nt_ethnl *e, const char *dev, struct nt_features *out)
{
	struct reply r = {parse_privflags, out, ETHTOOL_A_PRIVFLAGS_MAX, 0};
	struct nl_msg *m = request(e, ETHTOOL_MSG_PRIVFLAGS_GET, ETHTOOL_A_PRIVFLAGS_HEADER, dev, 0);
	int err;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOMEM;
	err = transact(e, m, &r, false);
	if (err)
		nt_features_free(out);
	return err;
}

int nt_ethnl_privflag_set(struct nt_ethnl *e, const char *dev, const char *name, bool on)
{
	struct nl_msg *m = request(e, ETHTOOL_MSG_PRIVFLAGS_SET, ETHTOOL_A_PRIVFLAGS_HEADER, dev, 0);
	struct nlattr *w, *bits, *bit;

	if (!m)
		return -ENOMEM;
	w = nla_nest_start(m, ETHTOOL_A_PRIVFLAGS_FLAGS);
	bits = w ? nla_nest_start(m, ETHTOOL_A_BITSET_BITS) : NULL;
	bit = bits ? nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT) : NULL;
	if (!bit || nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, name) < 0 ||
	    (on && nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE) < 0)) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	nla_nest_end(m, bit);
	nla_nest_end(m, bits);
	nla_nest_end(m, w);
	return transact(e, m, NULL, true);
}
