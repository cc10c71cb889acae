/* SPDX-License-Identifier: MIT */
/* Entering a named network namespace (--netns; the Ansible module's netns). */
#ifndef NT_PIPELINE_NETNS_H
#define NT_PIPELINE_NETNS_H

#include <stdbool.h>

/* setns into /run/netns/NAME as 'ip netns exec' does; unless remount_sys
 * is false (a --root fixture), also a private mount namespace with /sys
 * remounted for that netns, so /sys/class/net shows its devices.
 * Returns 0, or -1 with the reason on stderr. */
int nt_enter_netns(const char *name, bool remount_sys);

#endif
