/* SPDX-License-Identifier: MIT */
/*
 * The desired/observed state representation shared by lowering, diff,
 * apply, verification, rollback and both emitters.
 *
 * A setting is one (object, attribute) pair with a typed value: object is
 * an interface/adapter name, "sysctl", "irqbalance", "global" or
 * "process NAME"; the attribute is a kind (one row of nt_kinds[]) plus an
 * optional argument: "feature tx-udp-segmentation", "irq-affinity 3",
 * "uso ipv6".  Adding a Linux tunable is: its profile key (profile.h,
 * schema.c with its one-line doc), a row of kinds.def (id, keys, scope,
 * phase, flags, argument shape and names), a row of nt_linux_rows[]
 * (appliers/linux/kinds.c: how it is read and written and the functions
 * that do it, generic ones for a plain file or a link attribute, its sh
 * getter and setter), and one lowering line (lower_linux.c).  An offload
 * is one row of compiler/language/offloads.def.  README.md "Adding a
 * tunable" counts the files; tests/unit/test_kinds.c fails when a row
 * lacks a piece; test_scope.c repeats the scopes.
 */
#ifndef NT_SETTINGS_H
#define NT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"
#include "cpuset.h"
#include "../base/diag.h"

/*
 * Bounds on sizes that come from input (profiles, snapshots, manifests,
 * capability tables, the kernel): loaders refuse larger values with a
 * located error, and every buffer that holds such data is sized by these.
 */
#define NT_NAME_MAX 255		/* a path component, a sysctl key, a process */
#define NT_QUEUE_MAX 65535	/* a queue index */
#define NT_QUEUES_MAX 65536	/* a queue count */
#define NT_RSS_KEY_MAX 256	/* RSS key bytes (the largest driver uses 52) */
#define NT_RSS_INDIR_MAX 65536	/* RSS indirection table entries */
#define NT_IRQ_MAX 1048575	/* an IRQ number (/proc/irq/N) */
#define NT_SYSCTL_VALUE_MAX 4096	/* a sysctl value: one page, as /proc/sys reads */

enum nt_vtype {
	NT_V_BOOL,	/* on/off */
	NT_V_U32,
	NT_V_STR,	/* compared with runs of white space folded */
	NT_V_CPUS,	/* CPU set; printed as a cpulist */
	NT_V_BYTES,	/* RSS key; printed as aa:bb:.. */
	NT_V_U32LIST,	/* RSS indirection table */
};

struct nt_value {
	enum nt_vtype t;
	bool b;
	uint32_t u;
	char *s;
	struct nt_cpuset *cpus;
	uint8_t *bytes;
	uint32_t *list;
	size_t n;		/* bytes / list length */
};

/* Kinds of settings.  Order of this enum is not the apply order: see
 * nt_kind.phase. */
enum nt_kind_id {
#define NT_KIND(id, ...) NT_K_##id,
#include "kinds.def"
#undef NT_KIND
	NT_K__COUNT,
};

enum nt_kind_flag {
	NT_KF_DISRUPTIVE = 1 << 0,	/* link flap / adapter restart */
	NT_KF_HAS_ARG = 1 << 1,		/* attribute takes an argument */
	NT_KF_WINDOWS = 1 << 2,
	NT_KF_PER_QUEUE = 1 << 3,	/* argument is a queue index */
	NT_KF_HOST_OBJ = 1 << 4,	/* object is the host's ("sysctl", "irqbalance",
					 * "process WHO", "global"), not an interface */
};

/*
 * What a write of a kind reaches when nettune runs inside a network
 * namespace (--netns).  Zero is host-wide, so a row that forgets to say
 * is refused under --netns rather than let through (compiler/model/scope.h).
 */
enum nt_scope {
	NT_SCOPE_HOST = 0,	/* one value for the whole host */
	NT_SCOPE_NETNS,		/* belongs to a device or value of the namespace */
	NT_SCOPE_BY_KEY,	/* sysctl: decided per key (nt_sysctl_scope()) */
};

/* What the argument of a kind is (tests/unit/test_kinds.c checks that
 * NT_KF_HAS_ARG and NT_KF_PER_QUEUE agree with it). */
enum nt_argshape {
	NT_ARG_NONE,			/* no argument */
	NT_ARG_RXQ,			/* an RX queue index (queues/rx-N) */
	NT_ARG_TXQ,			/* a TX queue index (queues/tx-N) */
	NT_ARG_IRQQ,			/* a queue index, addressing the queue's IRQ */
	NT_ARG_NAMED,			/* one of args[] */
	NT_ARG_OPEN,			/* a name the device or profile gives (argfrom) */
};

struct nt_kinddef {
	enum nt_kind_id id;
	const char *name;		/* attribute word: "feature", "irq-affinity" */
	enum nt_vtype vtype;
	int phase;			/* apply order, lower first */
	unsigned flags;
	const char *help;
	enum nt_scope scope;		/* under --netns: confined or host-wide */
	const char *keys;		/* profile key(s) it is lowered from, "; " between */
	enum nt_argshape argshape;
	const char *const *args;	/* NT_ARG_NAMED: the names, NULL-terminated */
	const char *argfrom;		/* NT_ARG_OPEN: where the names come from */
	/* Lowered by the rows (lower_linux.c lower_plain) from one member of
	 * struct nt_iface, offset at + 1 (0: the kind has lowering code of its
	 * own): a pointer to the value (NT_ARG_NONE), or to a struct of one
	 * value pointer per argument, in args[] order (NT_ARG_NAMED).  The
	 * value is a uint32_t (NT_V_U32) or a bool (NT_V_BOOL). */
	size_t lower_at;
};
/* The last column of a kinds.def row lowered by the rows: the member of
 * struct nt_iface (compiler/language/profile.h). */
#define NT_LOWER(member) (offsetof(struct nt_iface, member) + 1)

extern const struct nt_kinddef nt_kinds[NT_K__COUNT];
const struct nt_kinddef *nt_kind_by_name(const char *name);
/* Index of arg in the kind's args[], or -1. */
int nt_kind_arg_index(enum nt_kind_id k, const char *arg);

/* The word map of a kind's profile key (language/ifkeys.def
 * NT_IFKEY_WORDS, schema.h), or NULL: its value is a list of words, each
 * a bit. */
struct nt_word_map;
const struct nt_word_map *nt_kind_word_map(enum nt_kind_id k);
/* The kind's bits in words ("src-ip dst-ip", "none" for 0), malloc'd;
 * NULL when the kind has no word map. */
char *nt_kind_words_format(enum nt_kind_id k, uint32_t bits);
/* The reverse; false on a word the map does not have, or no map. */
bool nt_kind_words_parse(enum nt_kind_id k, const char *s, uint32_t *bits);

enum nt_setting_flag {
	NT_SF_IMPLIED = 1 << 0,		/* added by lowering for a dependency */
	NT_SF_CANNOT_CHANGE = 1 << 1,	/* fixed feature, managed IRQ */
	NT_SF_DISRUPTIVE = 1 << 2,	/* this change flaps the link (kind or driver) */
	NT_SF_NOT_OBSERVED = 1 << 3,	/* no observed value to compare with */
	NT_SF_RESET = 1 << 4,		/* inserted reset (e.g. RSS table before shrinking) */
};

struct nt_setting {
	enum nt_kind_id kind;
	char *object;
	char *arg;			/* NULL when the kind takes none */
	struct nt_value val;
	struct nt_mark src;		/* profile position it comes from */
	unsigned flags;
	char *note;			/* why (implied by, rounded to, ...) */
	int order;			/* tie-break within a phase */
};

struct nt_state {
	struct nt_setting *v;
	size_t n, cap;
	/* open-addressing index over (kind, object, arg) */
	size_t *idx;
	size_t idx_cap;
	/* the settings' object and arg strings (a setting's strings live
	 * as long as the state) */
	struct nt_strpool strings;
};

void nt_value_free(struct nt_value *v);
void nt_value_copy(struct nt_value *dst, const struct nt_value *src);
bool nt_value_equal(const struct nt_value *a, const struct nt_value *b);
/* Human text: on/off, 1500, 0-3, aa:bb:..(52 bytes); a string on one line
 * (newline as \n, other control characters \xNN).  full: every byte of a
 * key or table, and strings exactly as they are (scripts, digests). */
void nt_value_format(const struct nt_value *v, struct nt_buf *b, bool full);
/* Canonical JSON: true/false, numbers, strings, hex string, arrays. */
void nt_value_json(const struct nt_value *v, struct nt_buf *b);

struct nt_value nt_v_bool(bool b);
struct nt_value nt_v_u32(uint32_t u);
struct nt_value nt_v_str(const char *s);
struct nt_value nt_v_cpus(const struct nt_cpuset *c);
struct nt_value nt_v_bytes(const uint8_t *p, size_t n);
struct nt_value nt_v_list(const uint32_t *p, size_t n);

/* Adds or replaces the setting with the same key; takes ownership of val. */
struct nt_setting *nt_state_set(struct nt_state *st, enum nt_kind_id k, const char *object,
				const char *arg, struct nt_value val, struct nt_mark src);
struct nt_setting *nt_state_get(const struct nt_state *st, enum nt_kind_id k,
				const char *object, const char *arg);
void nt_state_free(struct nt_state *st);
/* "feature tx-udp-segmentation" */
char *nt_setting_attr(const struct nt_setting *s);
/* What people read: "eth0 feature rx-gro", "sysctl net.core.x" (never
 * "sysctl sysctl net.core.x"); malloc'd. */
char *nt_setting_label(enum nt_kind_id k, const char *object, const char *arg);
/* The one spelling of a sysctl key that plans, snapshots and journals
 * compare: "net/core/rmem_max" is "net.core.rmem_max"; a key with both
 * separators stays as written ("net/ipv4/conf/eth0.10/rp_filter": its
 * dots are part of a name).  malloc'd. */
char *nt_sysctl_key_canon(const char *key);
/* Parses "feature tx-udp-segmentation" back into kind and arg. */
bool nt_parse_attr(const char *attr, enum nt_kind_id *k, char **arg);

#endif
