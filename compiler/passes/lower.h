/* SPDX-License-Identifier: MIT */
/*
 * Lowering: a validated profile plus host facts become the desired state,
 * a flat list of settings (settings.h) for the profile's target.
 */
#ifndef NT_LOWER_H
#define NT_LOWER_H

#include "../model/caps.h"
#include "../base/diag.h"
#include "../model/facts.h"
#include "../model/offloads.h"
#include "../language/load.h"
#include "../model/settings.h"

struct nt_lower {
	const struct nt_loaded *l;
	const struct nt_capsdb *db;
	const struct nt_facts *facts;		/* may have known == false */
	const struct nt_state *observed;	/* may be empty */
	struct nt_state *desired;
	struct nt_diags *d;
	const char *hostname;			/* seeds per-host RSS keys */
	/* Interfaces missing on the host are an error, except: with only set
	 * (apply --only, hotplug) any other interface, with skip_missing
	 * (apply --skip-missing, boot) every one; those get a warning and no
	 * settings, and their own hotplug event applies them later. */
	const char *only;
	/* with only: only that interface and the underlays it rides on are
	 * lowered, and no host-wide setting (the agent's correction of one
	 * interface, whose observation read nothing else) */
	bool narrow;
	bool skip_missing;
	size_t errs;				/* errors added so far (what nt_lower returns) */
};

/* Returns the number of errors added. */
size_t nt_lower(struct nt_lower *L);
size_t nt_lower_linux(struct nt_lower *L);
size_t nt_lower_windows(struct nt_lower *L);
/* Derives a stable RSS key of n bytes from host and interface name
 * (HMAC-SHA256 in counter mode); re-planning never churns it. */
int nt_rss_key_per_host(const char *host, const char *iface, uint8_t *out, size_t n);

/* IRQ placement: the CPU set for queue q of nqueues under a policy. */
struct nt_placement {
	struct nt_cpuset usable;	/* candidate CPUs after reserved are removed */
	int cores[NT_MAX_CPUS];		/* one CPU per physical core, in order */
	int ncores;
	int siblings[NT_MAX_CPUS];	/* the remaining SMT siblings, in order */
	int nsiblings;
};
/* Builds the ordered candidate list from a CPU set and topology: one thread
 * per physical core first (lowest CPU of each core), then SMT siblings. */
void nt_placement_init(struct nt_placement *p, const struct nt_cpuset *cands,
		       const struct nt_facts *topo);
/* numa-local-spread: queue q -> its own physical core, then the SMT
 * siblings, wrapping only past every candidate CPU. */
int nt_placement_spread(const struct nt_placement *p, unsigned q);

#endif
