/* SPDX-License-Identifier: MIT */
/*
 * What the script emitters read of a loaded profile (struct
 * nt_emit_profile, appliers/emit.h), computed here so that the emitters
 * never see the profile: each interface's linux.features keys, and the
 * tunnels whose MTU the playbook may derive on the host.
 */
#ifndef NT_EMIT_PROFILE_H
#define NT_EMIT_PROFILE_H

#include "../appliers/emit.h"
#include "../compiler/language/load.h"

/* Fills ep from l; the strings point into l, which must outlive ep. */
void nt_emit_profile_of(const struct nt_loaded *l, struct nt_emit_profile *ep);
void nt_emit_profile_free(struct nt_emit_profile *ep);

#endif
