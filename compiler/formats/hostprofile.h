/* SPDX-License-Identifier: MIT */
/*
 * A HostProfile of an observed Linux host (nettune observe --profile): the
 * inverse of lowering, in the portable vocabulary of the profile language,
 * leaving out values that are the kernel's known defaults.  Planning the
 * profile against the state it was made from yields no changes.
 */
#ifndef NT_HOSTPROFILE_H
#define NT_HOSTPROFILE_H

#include "../base/buf.h"
#include "../model/caps.h"
#include "../model/facts.h"
#include "../model/settings.h"

/* Writes the YAML of the named interfaces (they must be in f) to out. */
void nt_hostprofile_linux(const struct nt_facts *f, const struct nt_state *st,
			  const struct nt_capsdb *db, const char *const *ifaces, size_t n,
			  struct nt_buf *out);
/* Interfaces observe --profile describes by default: physical NICs and
 * tunnels (never lo, veth, bridges and other virtual devices). */
bool nt_hostprofile_default_iface(const struct nt_iface_facts *i);

#endif
