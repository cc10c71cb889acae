/* SPDX-License-Identifier: MIT */
/*
 * Which settings a network namespace confines (--netns, the Ansible
 * module's netns): the scope of each setting, and the refusal of the
 * host-wide ones.
 */
#ifndef NT_SCOPE_H
#define NT_SCOPE_H

#include <stdbool.h>

#include "../base/diag.h"
#include "actions.h"
#include "settings.h"

/* NT_SCOPE_HOST or NT_SCOPE_NETNS for a sysctl key ("net.core.rmem_max";
 * '/' separators as sysctl(8) accepts them). */
enum nt_scope nt_sysctl_scope(const char *key);
/* The kind's scope, resolved by key for sysctls (arg is the key). */
enum nt_scope nt_setting_scope(enum nt_kind_id k, const char *arg);

/*
 * One located error per host-wide setting (one per kind, object and
 * profile position: the queues of one irq policy are one error) saying
 * that --netns NETNS would change the whole host.  With only (apply
 * --only IFACE), the settings of other objects are not applied and not
 * refused.  Returns the number of errors added; 0 means everything stays
 * inside the namespace.
 */
size_t nt_netns_refuse_state(const struct nt_state *st, const char *only, const char *netns,
			     struct nt_diags *d);
/* A located error at the profile's target (m) unless it is "linux":
 * Windows has no network namespaces.  Returns whether it refused. */
bool nt_netns_refuse_target(const char *target, struct nt_mark m, const char *netns,
			    struct nt_diags *d);
/* The same for the actions of a plan (a PLAN.json applied with --netns). */
size_t nt_netns_refuse_plan(const struct nt_plan *p, const char *netns, struct nt_diags *d);

#endif
