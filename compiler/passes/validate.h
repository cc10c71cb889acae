/* SPDX-License-Identifier: MIT */
/* Semantic validation of a loaded profile against the NIC capability
 * tables; every finding is located through the merged tree. */
#ifndef NT_VALIDATE_H
#define NT_VALIDATE_H

#include "../model/caps.h"
#include "../base/diag.h"
#include "../language/load.h"
#include "../model/names.h"
#include "../model/settings.h"

/* Returns the number of errors added. db may be NULL (tables unavailable). */
size_t nt_validate(const struct nt_loaded *l, const struct nt_capsdb *db, struct nt_diags *d);

/* At plan time, a table picked from the observed device (no nic:, or
 * nic: auto) gets the table checks validate gives a declared one (ring
 * minimums, read-only channels and rings, RSS hash, key and xor limit) for
 * interface i; the caller blanks the limits it checks itself against the
 * observed maxima; with offloads, also the offload states (when the host's
 * features were not observed).  Returns the number of errors added. */
size_t nt_validate_chosen_caps(const struct nt_loaded *l, struct nt_diags *d, size_t i,
			       const struct nt_caps *c, bool offloads);
#endif
