/* SPDX-License-Identifier: MIT */
/*
 * An ethtool netlink message family whose arguments are fixed attributes
 * (channels, rings, coalesce, pause): one descriptor each, in a file of its
 * own (fam_*.c), read by ethnl.c (the GET, the dump and the SET), the
 * device cache (one dump per family, devcache.c), the kind rows
 * (kinds.c: the row names its family, the argument is found by name) and
 * the sh emitter (sh_label).  A new family is one fam_*.c file, its meson
 * line, and, when it is dumped, its extern line here, its requests in
 * enum nt_io_req (ethnl.h, nlio.c) and its slot in devcache; a family read
 * per device counts its requests by name and may keep its kind's row
 * (nt_row_ID, rows.h) beside it, as fam_pause.c does.
 */
#ifndef NT_FAMILY_H
#define NT_FAMILY_H

#include <stdbool.h>
#include <stdint.h>

#include "../../compiler/model/settings.h"
#include "ethnl.h"

/* Most arguments of one family. */
#define NT_ETHNL_ARGS_MAX 8

/* One argument of a family: a kind's argument and its attribute. */
struct nt_ethnl_arg {
	enum nt_kind_id kind;	/* the kind row it belongs to */
	const char *name;	/* the kind's argument name (kinds.def, settings.c) */
	int attr;		/* the value (GET reply and SET request) */
	int max_attr;		/* the reply's maximum of it, 0: none */
	unsigned width;		/* 1: NLA_U8 (a flag 0/1), 4: NLA_U32 */
	const char *sh_label;	/* what ethtool(8) prints before it */
};

/* When an argument the device reports counts as present. */
enum nt_ethnl_present {
	NT_EP_ATTR,		/* its attribute is in the reply */
	NT_EP_MAX,		/* ... and its maximum is not 0 (rings) */
	NT_EP_MAX_OR_CUR,	/* ... and its maximum or value is not 0 (channels) */
};

struct nt_ethnl_family {
	const char *name;		/* "coalesce" */
	const char *what;		/* "coalescing": in error text */
	uint8_t get_msg, set_msg;	/* ETHTOOL_MSG_*_GET, _SET */
	int hdr_attr;			/* ETHTOOL_A_*_HEADER */
	int max_attr;			/* ETHTOOL_A_*_MAX */
	enum nt_io_req get_req, dump_req, set_req;	/* NETTUNE_STATS counters */
	bool named_reqs;		/* ... none: counted by name (nt_io_named) */
	/* read by one GET per device, not from the device cache's dump; a
	 * write drops every cached reply (the link renegotiates) */
	bool per_device;
	enum nt_ethnl_present present;
	const struct nt_ethnl_arg *args;	/* ends with {.name = NULL} */
};

/* One reply of a family (or one SET), by argument index. */
struct nt_ethnl_vals {
	bool have[NT_ETHNL_ARGS_MAX];
	uint32_t max[NT_ETHNL_ARGS_MAX], cur[NT_ETHNL_ARGS_MAX];
};

extern const struct nt_ethnl_family nt_fam_channels;	/* fam_channels.c */
extern const struct nt_ethnl_family nt_fam_rings;	/* fam_rings.c */
extern const struct nt_ethnl_family nt_fam_coalesce;	/* fam_coalesce.c */

/* The index of kind k's argument name in f, or -1. */
int nt_ethnl_arg_index(const struct nt_ethnl_family *f, enum nt_kind_id k, const char *name);
/* Whether argument i is present in v (f->present). */
bool nt_ethnl_present(const struct nt_ethnl_family *f, const struct nt_ethnl_vals *v, int i);

int nt_ethnl_vals_get(struct nt_ethnl *e, const struct nt_ethnl_family *f, const char *dev,
		      struct nt_ethnl_vals *out);
/* Every argument with have[i] set, in one SET. */
int nt_ethnl_vals_set(struct nt_ethnl *e, const struct nt_ethnl_family *f, const char *dev,
		      const struct nt_ethnl_vals *v);
/* One dump of every device: each(ctx, dev, struct nt_ethnl_vals *). */
int nt_ethnl_vals_dump(struct nt_ethnl *e, const struct nt_ethnl_family *f, nt_ethnl_each each,
		       void *ctx);

#endif
