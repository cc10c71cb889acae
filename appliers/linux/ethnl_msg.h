/* SPDX-License-Identifier: MIT */
/*
 * Inside the ethtool netlink socket: the message helpers ethnl.c gives the
 * files of the families (fam_*.c) whose messages are not fixed attributes
 * (features, private flags: bitsets by name).  Not a public header: the
 * rest of the applier includes ethnl.h and family.h.
 */
#ifndef NT_ETHNL_MSG_H
#define NT_ETHNL_MSG_H

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "ethnl.h"
#include "nlio.h"

struct nt_ethnl {
	struct nt_nl *nl;
	int family;
	struct nt_feature_names *fnames;
};

struct nt_ethnl_reply {
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

/* Reply attributes are parsed without a policy: sizes are checked, so a
 * short attribute is read as 0 (a string as NULL), never past its end. */
uint32_t nt_ethnl_u32(const struct nlattr *a);
uint8_t nt_ethnl_u8(const struct nlattr *a);
const char *nt_ethnl_str(const struct nlattr *a);
/* A request of cmd for dev with its header nest (hdr_attr, flags). */
struct nl_msg *nt_ethnl_request(struct nt_ethnl *e, int cmd, int hdr_attr, const char *dev,
				uint32_t flags);
/* A dump request of cmd (a header nest with no device). */
struct nl_msg *nt_ethnl_dump_request(struct nt_ethnl *e, int cmd, int hdr_attr, uint32_t flags);
/* Sends m (and frees it), parses the replies with r, waits for the ack;
 * a read is asked again after a transport failure.  0 or -errno. */
int nt_ethnl_transact(struct nt_ethnl *e, struct nl_msg *m, struct nt_ethnl_reply *r,
		      enum nt_io_req what);
/* A bitset attribute in list form naming one bit and its value. */
int nt_ethnl_put_one_bit(struct nl_msg *m, int attr, const char *name, bool on);

/* fam_features.c: the feature names of the socket (string set
 * ETH_SS_FEATURES), freed with the socket. */
void nt_feature_names_free(struct nt_feature_names *fn);

#endif
