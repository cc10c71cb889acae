/* SPDX-License-Identifier: MIT */
/* The agent's state, shared by its files (agent.c the loop, converge.c a
 * correction and damping, control.c the socket and status). */
#ifndef NT_AGENT_INT_H
#define NT_AGENT_INT_H

#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "agent.h"
#include "../compiler/language/load.h"
#include "monotime.h"

enum { NT_LOG_ERR = 3, NT_LOG_WARNING = 4, NT_LOG_NOTICE = 5, NT_LOG_INFO = 6, NT_LOG_DEBUG = 7 };

#define NT_AGENT_MAX_DIRTY 256
#define NT_AGENT_RECENT 8
#define NT_AGENT_CTL_WAITING 16
/* settings tracked for damping and reported drift (then the oldest go) */
#define NT_AGENT_MAX_TRACKED 4096

/* Why a convergence runs: a metrics label ("link", "ethtool",
 * "periodic", "start", "reload", "resume"), the journal's cause, and when
 * the event was read (CLOCK_MONOTONIC). */
struct nt_agent_why {
	char label[16];
	char cause[200];
	long long at_ns;
};

/* One setting of one object (an interface, "sysctl", ...), as damping and
 * drift reports track it. */
struct nt_tracked {
	char *key;			/* "OBJECT\tATTR" */
	long long t[16];		/* times it was corrected (ms), oldest first */
	unsigned nt;
	long long backoff_until_ms;	/* 0: not backing off */
	unsigned conflicts;
	char *reported;			/* the wanted value a drift was last logged for */
	bool outstanding;		/* drifted and not corrected */
	long long seen_ms;
};

struct nt_recent {
	char *object, *attr, *from, *to, *cause;
	char journal[128];
	long long at_ns;		/* CLOCK_REALTIME */
	double latency_ms;
};

struct nt_metrics;
struct nt_events;

struct nt_agent {
	const struct nt_agent_cfg *cfg;
	struct nt_buf profile;		/* its bytes, as last (re)loaded */
	struct nt_loaded loaded;	/* ... loaded and validated */
	char *profile_shown;		/* the profile's path for a text line: control
					 * characters as \xHH */
	char **names;
	size_t nnames;
	bool match;			/* an interface is matched, not named */
	bool journald;
	struct nt_events *ev;
	struct nt_metrics *m;
	int ctl_fd;
	char ctl_path[512];
	struct {
		int fd;
		long long until_ms;
	} ctl_wait[NT_AGENT_CTL_WAITING];	/* connections whose request has not come */
	size_t nctl_wait;
	/* work */
	struct {
		char name[IF_NAMESIZE];
		char label[16];
		char cause[200];
		long long at_ns;
	} dirty[NT_AGENT_MAX_DIRTY];
	size_t ndirty;
	bool all_dirty;
	char all_label[16], all_cause[200];
	long long all_at_ns;
	/* timers (CLOCK_MONOTONIC ms) */
	long long next_check_ms, hold_until_ms, watchdog_ms, next_watchdog_ms, metrics_at_ms;
	long long damp_next_ms, retry_ms;
	bool metrics_dirty;
	/* what happened */
	struct nt_tracked *tr;
	size_t ntr;
	size_t outstanding;		/* settings drifted and not corrected */
	unsigned long long events, corrections, failures, checks, reloads, reload_failures;
	long long last_check_real_ns, last_check_dur_ns;
	struct nt_recent recent[NT_AGENT_RECENT];
	size_t nrecent;			/* ring: recent[(head + i) % N] */
	size_t recent_head;
	char **kept;			/* ring of the journals this agent made */
	size_t nkept, kept_head;
	char blocked[256];		/* why corrections wait (an open journal), or "" */
	char retry_cause[200];		/* what the retry at retry_ms is for */
	/* what could not be planned: the whole profile (so its host-wide
	 * settings went unchecked) and the interfaces whose own plan failed;
	 * the first error of the last such plan, FILE:LINE:COL: message */
	struct nt_unplanned {
		char *iface;		/* NULL: the whole profile */
		char why[320];		/* its first error, FILE:LINE:COL: message */
		unsigned long long hash;	/* of all its errors: logged once */
	} *unplanned;
	size_t nunplanned;
	bool lock_busy_said;		/* "another nettune holds the lock" logged */
	bool lock_busy_now;		/* in this convergence */
};

/* After a reload: nothing is known unplanned or drifted until the new
 * profile is planned. */
void nt_agent_forget_plan(struct nt_agent *a);
/* Whether the whole profile could not be planned; the first error to show. */
bool nt_agent_unplanned_all(const struct nt_agent *a);
const char *nt_agent_plan_error(const struct nt_agent *a);
/* Converged: nothing drifted and everything planned. */
bool nt_agent_converged(const struct nt_agent *a);
/* "converged", "drifted" or "not planned" (status, STATUS=). */
const char *nt_agent_state(const struct nt_agent *a);

void nt_agent_log(const struct nt_agent *a, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
long long nt_agent_mono_ms(void);
void nt_agent_mark_all(struct nt_agent *a, const char *label, const char *cause,
		       long long at_ns);
/* Whether corrections are held (an expired hold ends here). */
bool nt_agent_held(struct nt_agent *a);

/* converge.c: plans iface (NULL: all) and corrects what drifted */
void nt_agent_converge(struct nt_agent *a, const char *iface, const struct nt_agent_why *w);
void nt_agent_damp_expire(struct nt_agent *a);
size_t nt_agent_conflicts(const struct nt_agent *a);
void nt_agent_state_free(struct nt_agent *a);

/* control.c */
int nt_agent_ctl_open(struct nt_agent *a, char *err, size_t errlen);
/* Accepts and answers what it can at once; connections whose request
 * has not come wait, polled by the loop (nt_agent_ctl_pollfds), answered
 * or dropped after a deadline (nt_agent_ctl_serve_waiting,
 * nt_agent_ctl_next_ms: 0 none). */
void nt_agent_ctl_serve(struct nt_agent *a);
size_t nt_agent_ctl_pollfds(const struct nt_agent *a, struct pollfd *p);
void nt_agent_ctl_serve_waiting(struct nt_agent *a, const struct pollfd *p, size_t n);
long long nt_agent_ctl_next_ms(const struct nt_agent *a);
void nt_agent_ctl_close(struct nt_agent *a);

#endif
