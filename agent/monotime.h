/* SPDX-License-Identifier: MIT */
/* CLOCK_MONOTONIC in nanoseconds: when the agent read an event, and every
 * timer of its loop. */
#ifndef NT_AGENT_MONOTIME_H
#define NT_AGENT_MONOTIME_H

#include <time.h>

static inline long long nt_agent_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
