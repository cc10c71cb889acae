/* SPDX-License-Identifier: MIT */
/*
 * The Linux half of a kind row, one row per kind in kinds.c: how the
 * applier reads and writes the kind (ethtool netlink message + attribute,
 * rtnetlink attribute, a sysfs or procfs file, an ioctl, or something else
 * and why), the functions that do it, and the body of the sh script's
 * getter and setter.  A row that is a plain file (a path template) or one
 * rtnetlink attribute of the link dump names the generic functions
 * (nt_rw_file_*, nt_rw_link_*) and needs no code of its own.  The compiler
 * half (profile keys, scope, phase, disruptive flag, argument shape and
 * names) is nt_kinds[] in compiler/model/settings.c.
 * tests/unit/test_kinds.c fails when a Linux kind lacks a piece.
 */
#ifndef NT_ROWS_H
#define NT_ROWS_H

#include <stdbool.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/model/settings.h"

enum nt_io {
	NT_IO_NONE,
	NT_IO_ETHNL,		/* ethtool generic netlink: message and attribute(s) */
	NT_IO_RTNL,		/* rtnetlink: message and IFLA_ attribute */
	NT_IO_SYSFS,		/* the row's path under /sys */
	NT_IO_PROCFS,		/* a file under /proc */
	NT_IO_IOCTL,		/* SIOCETHTOOL command (and structure) */
	NT_IO_OTHER,		/* anything else; what says what and why */
};

struct nt_io_way {
	enum nt_io how;
	const char *what;
};

/* How the sh getter prints a value (want_text must print the same). */
enum nt_sh_value {
	NT_SHV_TEXT,		/* nt_value_format(full) */
	NT_SHV_HEXMASK,		/* a CPU set as a hex bitmap without leading zeros */
	NT_SHV_FOLDED,		/* runs of white space folded to one space */
};

struct nt_ethnl_family;
struct nt_lctx;
struct nt_state;

/* 0 and *out set, -ENOENT when the object/attribute does not exist, or -errno */
typedef int (*nt_row_read)(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out);
/* 0 or -errno (x->err holds the kernel's words where there are any) */
typedef int (*nt_row_write)(struct nt_lctx *x, const char *obj, const char *arg,
			    const struct nt_value *v);
/* Adds every (obj, name) the device has to st (NT_ARG_OPEN kinds the
 * rows observe); 0 or -errno */
typedef int (*nt_row_all)(struct nt_lctx *x, const char *obj, struct nt_state *st);
/* Writes n settings of the kind of one device in one request of the row's
 * wire family (args[k] to *vals[k]); 0 or -errno, x->err as for write */
typedef int (*nt_row_batch)(struct nt_lctx *x, const char *obj, const char *const *args,
			    const struct nt_value *const *vals, size_t n);

enum nt_row_flag {
	/* observed by nt_linux_observe_rows (one loop over the rows by
	 * argument shape) when the profile names one of the kind's keys */
	NT_LR_OBSERVE = 1 << 0,
};

enum nt_sh_flag {
	NT_SH_ARG_IRQ = 1 << 0,	/* the argument is passed as QUEUE@IRQ when the IRQ is known */
};

struct nt_linux_row {
	enum nt_kind_id kind;
	struct nt_io_way get, set;
	/* File of the kind (printf template: %s object, then %s argument, or
	 * the IRQ for irq-affinity); NULL when the kind has none. */
	const char *path;
	const char *sh_fn;		/* shell function suffix and record-file word */
	unsigned sh_flags;
	enum nt_sh_value sh_value;
	/* Bodies of nt_get_FN / nt_put_FN: $1 object, $2 argument, $3 value.
	 * @PATH@ is the path with its %s replaced by sh_path_args. */
	const char *sh_get, *sh_put;
	const char *sh_path_args[2];	/* default "$1", "$2" */
	/* Why the sh setter cannot write this value, or NULL. */
	const char *(*sh_refuse)(const struct nt_value *v);
	/* The applier's functions (the generic nt_rw_* for plain files and
	 * link attributes); all: NT_ARG_OPEN kinds with NT_LR_OBSERVE. */
	nt_row_read read;
	nt_row_write write;
	nt_row_all all;
	unsigned flags;			/* enum nt_row_flag */
	int attr;			/* nt_rw_link_*: the IFLA_ attribute */
	/* nt_rw_ethnl_*: the ethtool family (family.h), the argument found
	 * there by the kind and its name */
	const struct nt_ethnl_family *fam;
	/* after a write that succeeded (channels: the IRQs may move) */
	void (*after_write)(struct nt_lctx *x, const char *obj);
	/* The kind's settings of a device go in one request (its features in
	 * one FEATURES_SET, as ethtool -K; its channel counts in one
	 * CHANNELS_SET, as ethtool -L); NULL: one write per setting. */
	nt_row_batch batch;
};

/* Every kind's row (nt_row_ID, kinds.c or its family's fam_*.c), by kind;
 * a Windows kind's has no functions. */
extern const struct nt_linux_row *const nt_linux_rows[NT_K__COUNT];

/* The row of a Linux kind, or NULL (Windows kinds, an id out of range). */
const struct nt_linux_row *nt_linux_row(enum nt_kind_id k);
/* A read's error: -ENOENT when the device does not report the kind (veth
 * has no pause, no private flags, no rx-flow-hash: -EOPNOTSUPP), else r. */
int nt_row_absent(int r);
/* An ethtool netlink failure r with the kernel's words in x->err; r. */
int nt_row_nl_err(struct nt_lctx *x, int r);
/* body with @PATH@ expanded, appended to o */
void nt_linux_row_sh(const struct nt_linux_row *r, const char *body, struct nt_buf *o);

/* Generic functions of the rows.  file: the row's path template (object,
 * then argument), the value as the kind's type (a CPU set as a hex mask
 * when sh_value is NT_SHV_HEXMASK, else as a list).  link: the row's
 * IFLA_ attribute from the RTM_GETLINK dump, written by RTM_NEWLINK; the
 * row's path under --root. */
int nt_rw_file_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out);
int nt_rw_file_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v);
int nt_rw_link_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out);
int nt_rw_link_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v);
/* ethnl: the row's family (fam) and the argument of the row's kind there;
 * the value an NLA_U32 or a flag as the kind's type. */
int nt_rw_ethnl_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out);
int nt_rw_ethnl_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v);

#endif
