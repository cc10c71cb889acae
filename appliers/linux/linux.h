/* SPDX-License-Identifier: MIT */
/*
 * The Linux applier: observe a live host (or a --root fixture) into facts
 * and settings, and read/write one setting of each kind.  The per-kind
 * operations are the functions of the kind rows (nt_linux_rows[],
 * kinds.c) indexed by the compiler's kind id, so diff, journal,
 * verification and rollback stay generic (apply.c).
 */
#ifndef NT_LINUX_H
#define NT_LINUX_H

#include <stdbool.h>

#include "../../compiler/base/diag.h"
#include "../../compiler/model/facts.h"
#include "../../compiler/model/settings.h"
#include "ethnl.h"
#include "family.h"
#include "rows.h"

/* What a kind's read and write get: the kernel's replies are in the
 * device cache (devcache.h), the queue -> IRQ map in facts (irqmap.h). */
struct nt_lctx {
	struct nt_ethnl *nl;		/* NULL when ethtool netlink is unavailable */
	struct nt_facts *facts;
	char err[512];			/* detail of the last failure */
	const struct nt_linux_row *row;	/* the row being read or written */
};

/* The CHANNELS_GET reply of a device (facts and values share it). */
int nt_lctx_channels(struct nt_lctx *x, const char *dev, struct nt_ethnl_vals *out);
/* After a channel write: the device's queue -> IRQ map is read again. */
void nt_lctx_channels_changed(struct nt_lctx *x, const char *dev);

/* Read and write of (kind, obj, arg) through the kind's row: 0 (and *out
 * set), -ENOENT when the object/attribute does not exist, or -errno with
 * x->err saying why; -EOPNOTSUPP for a kind without a Linux row. */
int nt_linux_read(struct nt_lctx *x, enum nt_kind_id k, const char *obj, const char *arg,
		  struct nt_value *out);
int nt_linux_write(struct nt_lctx *x, enum nt_kind_id k, const char *obj, const char *arg,
		   const struct nt_value *v);
/* The /proc/sys file of a sysctl key (below --root), malloc'd. */
char *nt_linux_sysctl_path(const char *key);

/* The current values of the kinds whose rows have NT_LR_OBSERVE (those
 * not in skip, indexed by kind; NULL: all) of interface obj, added to st:
 * one loop over the rows by argument shape. */
void nt_linux_observe_rows(struct nt_lctx *x, const char *obj, struct nt_state *st,
			   const bool *skip);

int nt_lctx_open(struct nt_lctx *x, struct nt_facts *facts);
void nt_lctx_close(struct nt_lctx *x);
/* Every cached reply is stale: the next reads dump again. */
void nt_lctx_drop_cache(struct nt_lctx *x);

/* The pids whose /proc/PID/comm is comm (at most max, 0: every one),
 * malloc'd in *pids; returns how many. */
int nt_linux_pids_by_comm(const char *comm, int **pids, int max);

/* The features worth observing on one interface: the offload groups
 * lowering can set or read (a mask of nt_fgroups[] indexes, offloads.h)
 * and the features its profile names itself (linux: features). */
struct nt_feature_want {
	const char *iface;
	uint64_t groups;
	const char *const *names;
	size_t nnames;
};

/* What to observe, a plain request the caller works out (pipeline/want.h
 * from a profile, pipeline.c from a PLAN.json): interfaces (NULL = every
 * interface), sysctl keys, process objects ("process NAME"). */
struct nt_observe_req {
	const char *const *ifaces;
	size_t nifaces;
	const char *const *sysctls;
	size_t nsysctls;
	const char *const *processes;
	size_t nprocesses;
	bool irqbalance;
	/* snapshots: every readable sysctl below /proc/sys, and the CPU
	 * affinity of every systemd service and user-space process name, so
	 * that any profile's sysctl: and processes: have a value to compare */
	bool all_sysctls, all_processes;
	/* groups not worth reading for this request (NT_OBS_*); 0 = read all */
	unsigned skip;
	/* kinds the rows observe (NT_LR_OBSERVE) not worth reading; NULL = read all */
	const bool *skip_rows;
	/* plan and apply (want_features): only the features of features[]
	 * enter the observed state, none on an interface it does not list
	 * (the facts keep every feature); false = every feature (snapshots) */
	bool want_features;
	const struct nt_feature_want *features;
	size_t nfeatures;
	/* a few interfaces of many (the agent's correction of one): the
	 * device cache asks for them one device at a time (a GET each) rather
	 * than dumping every device of the namespace */
	bool narrow;
};

enum {
	NT_OBS_RINGS = 1 << 0,
	NT_OBS_COALESCE = 1 << 1,
	NT_OBS_RSS = 1 << 2,
	NT_OBS_QUEUES = 1 << 3,		/* IRQ affinity, RPS, XPS files; with
					 * NT_OBS_RSS, the queues/ listing */
};

int nt_linux_observe(const struct nt_observe_req *req, struct nt_facts *facts,
		     struct nt_state *observed, struct nt_diags *d);

#endif
