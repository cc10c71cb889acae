/* SPDX-License-Identifier: MIT */
/*
 * nettune agent: keeps a host converged to its profile between events.
 * It converges once at start, then re-converges an interface when the
 * kernel says it changed (agent/events.h) and every host-wide setting at a
 * periodic check, each correction a journaled apply of only the drifted
 * settings through the pipeline and the transaction (txn.h), read back.
 * A setting undone too often is left alone for a while (damping); an
 * operator can hold all corrections; status and metrics say what
 * happened.  The control socket (root only) serves status, hold, resume.
 */
#ifndef NT_AGENT_H
#define NT_AGENT_H

#include <stdbool.h>
#include <stddef.h>

#include "../compiler/base/buf.h"
#include "../pipeline/pipeline.h"

struct nt_agent_cfg {
	/* the profile and the global options (nt_cli_request) */
	struct nt_pipeline_req base;
	bool report_only;		/* --mode report */
	long long interval_ms;		/* the periodic check */
	const char *metrics;		/* --metrics FILE, or NULL */
	unsigned damp_n;		/* corrected more than damp_n times (0: never damped) ... */
	long long damp_window_ms;	/* ... within this: back off */
	long long backoff_ms;
	bool debug;			/* --log-level debug */
	size_t keep_journals;		/* of its own, the newest kept; 0: all */
};

#define NT_AGENT_INTERVAL_MS 30000
#define NT_AGENT_DAMP_N 5
#define NT_AGENT_DAMP_WINDOW_MS 60000
#define NT_AGENT_BACKOFF_MS 300000
#define NT_AGENT_KEEP_JOURNALS 1000

/* Runs until SIGTERM or SIGINT (0), or fails to start (1). */
int nt_agent_run(const struct nt_agent_cfg *cfg);

/* The control socket's path in the state directory: agent.sock, or
 * agent@NETNS.sock for an agent of a named network namespace. */
void nt_agent_socket_path(const char *netns, char *out, size_t n);

/*
 * One request to a running agent ("status", "status json", "hold
 * SECONDS", "hold", "resume"); its answer in reply.  0 answered, -1 no
 * agent (err says why), 1 the agent refused (reply says why).
 */
int nt_agent_request(const char *netns, const char *request, struct nt_buf *reply, char *err,
		     size_t errlen);

#endif
