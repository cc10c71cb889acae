/* SPDX-License-Identifier: MIT */
/*
 * The agent's Prometheus metrics, in the node_exporter textfile-collector
 * convention: a text exposition file (format 0.0.4) written atomically (a
 * temporary file in the same directory, fsync'ed, renamed over the old
 * one), readable by the collector (0644).  Every metric is
 * nettune_agent_*; label values are escaped as the format says (\\, \",
 * \n).  Series:
 *
 *   nettune_agent_converged                 gauge   1 when nothing is drifted and
 *                                                 the whole profile was planned
 *   nettune_agent_held                      gauge   1 while 'agent hold' lasts
 *   nettune_agent_drift_events_total        counter {interface,setting,cause}
 *   nettune_agent_corrections_total         counter {interface,setting,cause}
 *   nettune_agent_correction_failures_total counter {interface,setting,cause}
 *   nettune_agent_correction_latency_seconds histogram {cause}: from the
 *                                           event (or the check that found
 *                                           the drift) to the verified
 *                                           read-back
 *   nettune_agent_conflicts_total           counter {interface,setting}: times
 *                                           damping started
 *   nettune_agent_conflict                  gauge   {interface,setting} 1 while
 *                                           backing off (0 after)
 *   nettune_agent_last_check_timestamp_seconds gauge
 *   nettune_agent_last_check_duration_seconds  gauge
 *   nettune_agent_start_time_seconds        gauge
 *
 * cause is one of "start", "link" (rtnetlink), "ethtool" (an ethtool
 * notification), "periodic", "reload", "resume"; any other (or NULL) is
 * counted as "other".
 *
 * Bounded: interface and setting values are stored as valid UTF-8 (a byte
 * that is not becomes U+FFFD) of at most NT_METRICS_LABEL_MAX bytes, and
 * each of the two label sets ({interface,setting,cause} and
 * {interface,setting}) holds at most NT_METRICS_MAX_SERIES series; past
 * that, events of a new interface/setting are counted on the overflow
 * series, interface="/overflow",setting="/overflow" (cause kept) -- a '/'
 * is never in a Linux interface name, so it cannot be a real one.
 */
#ifndef NT_AGENT_METRICS_H
#define NT_AGENT_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "../compiler/base/buf.h"

#define NT_METRICS_MAX_SERIES 4096
#define NT_METRICS_LABEL_MAX 128
#define NT_METRICS_OVERFLOW "/overflow"

struct nt_metrics;

struct nt_metrics *nt_metrics_new(void);
void nt_metrics_free(struct nt_metrics *m);

void nt_metrics_drift(struct nt_metrics *m, const char *iface, const char *setting,
		      const char *cause);
/* a correction verified by read-back, latency_s after its event */
void nt_metrics_corrected(struct nt_metrics *m, const char *iface, const char *setting,
			  const char *cause, double latency_s);
void nt_metrics_failed(struct nt_metrics *m, const char *iface, const char *setting,
		       const char *cause);
/* damping started (active) or ended for a setting */
void nt_metrics_conflict(struct nt_metrics *m, const char *iface, const char *setting,
			 bool active);
void nt_metrics_converged(struct nt_metrics *m, bool converged);
void nt_metrics_held(struct nt_metrics *m, bool held);
void nt_metrics_check(struct nt_metrics *m, double at_unix_s, double duration_s);
void nt_metrics_started(struct nt_metrics *m, double at_unix_s);

/* The exposition text, series sorted so that equal metrics give equal
 * bytes. */
void nt_metrics_format(const struct nt_metrics *m, struct nt_buf *out);
/* Writes it to path atomically; 0 or -errno with err saying why. */
int nt_metrics_write(const struct nt_metrics *m, const char *path, char *err, size_t errlen);
/* The same for text already formatted (the agent's disk writer). */
int nt_metrics_write_text(const struct nt_buf *text, const char *path, char *err, size_t errlen);

#endif
