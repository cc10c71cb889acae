/* SPDX-License-Identifier: MIT */
/*
 * Want, then observe: what a profile makes worth reading on a Linux host
 * (want.c), as the plain request the applier's observation takes
 * (struct nt_observe_req, appliers/linux/linux.h): interfaces, sysctls,
 * processes, the groups of kinds, the kinds the rows observe and the
 * features of each interface.  The applier never reads the profile.
 */
#ifndef NT_WANT_H
#define NT_WANT_H

#include <stdbool.h>

#include "../appliers/linux/linux.h"
#include "../compiler/language/load.h"

struct nt_want {
	struct nt_observe_req req;
	bool skip_rows[NT_K__COUNT];
	const char **ifaces, **sysctls;
	char **processes;
	struct nt_feature_want *features;
};

/* The request of plan and apply without --state: the profile's
 * interfaces, sysctls and processes, irqbalance when it places IRQs, and
 * only the groups, row kinds and features some interface can set.
 * narrow (or NULL): only that interface's entries and those of the
 * underlays it rides on, no host-wide setting (the agent's correction of
 * one interface; nt_pipeline_req.narrow). */
void nt_want_profile(const struct nt_loaded *l, const char *narrow, struct nt_want *w);
void nt_want_free(struct nt_want *w);

#endif
