/* SPDX-License-Identifier: MIT */
/* The agent's Prometheus textfile: counters, gauges, a histogram, the 0.0.4 text and its atomic write. */
#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the histogram's upper bounds; the strings are the le labels */
static const double bounds[] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
	1, 2.5, 5, 10,
};
static const char *const bound_labels[] = {
	"0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
	"0.1", "0.25", "0.5", "1", "2.5", "5", "10",
};
#define NBOUNDS NT_ARRAY_SIZE(bounds)

/* the causes metrics.h names, sorted; anything else counts as "other" so
 * that the cause label stays a closed set */
static const char *const causes[] = {
	"ethtool", "link", "other", "periodic", "reload", "resume", "start",
};
#define NCAUSES NT_ARRAY_SIZE(causes)

/* one {interface,setting,cause} (or {interface,setting}: cause NULL) */
struct series {
	char *iface, *setting;
	const char *cause;	/* one of causes[], or NULL */
	uint64_t drift, corrected, failed;	/* with cause */
	uint64_t conflicts;	/* without: times damping started */
	bool conflict;		/* without: backing off now */
};

/* series sorted by (iface, setting, cause); at most NT_METRICS_MAX_SERIES
 * plus the overflow series (one per cause, and one without) */
struct table {
	struct series *v;
	size_t n, cap;
};

struct hist {
	uint64_t bucket[NBOUNDS + 1];	/* per bucket (not cumulative); last +Inf */
	uint64_t count;
	double sum;
};

struct nt_metrics {
	struct table by_cause, by_setting;
	struct hist latency[NCAUSES];
	bool converged, held;
	double check_at, check_duration, started_at;
};

struct nt_metrics *nt_metrics_new(void)
{
	return nt_xcalloc(1, sizeof(struct nt_metrics));
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].iface);
		free(t->v[i].setting);
	}
	free(t->v);
}

void nt_metrics_free(struct nt_metrics *m)
{
	if (!m)
		return;
	table_free(&m->by_cause);
	table_free(&m->by_setting);
	free(m);
}

static size_t cause_index(const char *cause)
{
	size_t other = 0;

	for (size_t i = 0; i < NCAUSES; i++) {
		if (cause && !strcmp(cause, causes[i]))
			return i;
		if (!strcmp(causes[i], "other"))
			other = i;
	}
	return other;
}

/* A label value as stored: valid UTF-8 (the collector refuses a file with
 * anything else, so a byte that is not becomes U+FFFD), at most
 * NT_METRICS_LABEL_MAX bytes, cut between characters.  Two names that
 * become equal here share one series: the file never holds a series
 * twice. */
static char *label_value(const char *s)
{
	struct nt_buf b = {0};
	size_t len = s ? strlen(s) : 0, i = 0;

	while (i < len) {
		size_t k = nt_utf8_len(s + i, len - i);
		const char *p = k ? s + i : "\xef\xbf\xbd";
		size_t pn = k ? k : 3;

		if (b.n + pn > NT_METRICS_LABEL_MAX)
			break;
		nt_buf_putn(&b, p, pn);
		i += k ? k : 1;
	}
	return nt_buf_take(&b);
}

static int series_cmp(const char *iface, const char *setting, const char *cause,
		      const struct series *s)
{
	int c = strcmp(iface, s->iface);

	if (!c)
		c = strcmp(setting, s->setting);
	if (!c && cause)
		c = strcmp(cause, s->cause);
	return c;
}

/* Index of the key in t, or where it goes (*found false). */
static size_t table_find(const struct table *t, const char *iface, const char *setting,
			 const char *cause, bool *found)
{
	size_t lo = 0, hi = t->n;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = series_cmp(iface, setting, cause, &t->v[mid]);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static struct series *table_insert(struct table *t, size_t at, const char *iface,
				   const char *setting, const char *cause)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->v = nt_xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	memmove(t->v + at + 1, t->v + at, (t->n - at) * sizeof(*t->v));
	t->n++;
	t->v[at] = (struct series){.iface = nt_xstrdup(iface), .setting = nt_xstrdup(setting),
				   .cause = cause};
	return &t->v[at];
}

/* The series of the key; past NT_METRICS_MAX_SERIES new keys all land on
 * the overflow series (interface and setting NT_METRICS_OVERFLOW, the
 * cause kept), so a host whose names keep changing cannot grow it. */
static struct series *table_get(struct table *t, const char *iface, const char *setting,
				const char *cause)
{
	char *i = label_value(iface), *s = label_value(setting);
	bool found;
	size_t at = table_find(t, i, s, cause, &found);
	struct series *r;

	if (!found && t->n >= NT_METRICS_MAX_SERIES) {
		free(i);
		free(s);
		i = nt_xstrdup(NT_METRICS_OVERFLOW);
		s = nt_xstrdup(NT_METRICS_OVERFLOW);
		at = table_find(t, i, s, cause, &found);
	}
	r = found ? &t->v[at] : table_insert(t, at, i, s, cause);
	free(i);
	free(s);
	return r;
}

static struct series *with_cause(struct nt_metrics *m, const char *iface, const char *setting,
				 const char *cause)
{
	return table_get(&m->by_cause, iface, setting, causes[cause_index(cause)]);
}

void nt_metrics_drift(struct nt_metrics *m, const char *iface, const char *setting,
		      const char *cause)
{
	with_cause(m, iface, setting, cause)->drift++;
}

void nt_metrics_corrected(struct nt_metrics *m, const char *iface, const char *setting,
			  const char *cause, double latency_s)
{
	struct hist *h = &m->latency[cause_index(cause)];
	size_t b = 0;

	with_cause(m, iface, setting, cause)->corrected++;
	/* a clock step can make it negative, and NaN would stick in the
	 * sum forever: both count as 0 */
	if (!(latency_s >= 0))
		latency_s = 0;
	while (b < NBOUNDS && latency_s > bounds[b])
		b++;
	h->bucket[b]++;
	h->count++;
	h->sum += latency_s;
}

void nt_metrics_failed(struct nt_metrics *m, const char *iface, const char *setting,
		       const char *cause)
{
	with_cause(m, iface, setting, cause)->failed++;
}

void nt_metrics_conflict(struct nt_metrics *m, const char *iface, const char *setting,
			 bool active)
{
	struct series *s = table_get(&m->by_setting, iface, setting, NULL);

	if (active && !s->conflict)
		s->conflicts++;
	s->conflict = active;
}

void nt_metrics_converged(struct nt_metrics *m, bool converged)
{
	m->converged = converged;
}

void nt_metrics_held(struct nt_metrics *m, bool held)
{
	m->held = held;
}

void nt_metrics_check(struct nt_metrics *m, double at_unix_s, double duration_s)
{
	m->check_at = at_unix_s;
	m->check_duration = duration_s;
}

void nt_metrics_started(struct nt_metrics *m, double at_unix_s)
{
	m->started_at = at_unix_s;
}

/* A sample value as Go's ParseFloat reads it back: the shortest of %.15g
 * and %.17g that gives the same double, NaN and +-Inf spelled as the
 * format says. */
static void put_float(struct nt_buf *b, double v)
{
	char s[40];

	if (isnan(v)) {
		nt_buf_puts(b, "NaN");
		return;
	}
	if (isinf(v)) {
		nt_buf_puts(b, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	snprintf(s, sizeof(s), "%.15g", v);
	if (strtod(s, NULL) != v)
		snprintf(s, sizeof(s), "%.17g", v);
	nt_buf_puts(b, s);
}

/* The text format's label value escapes: backslash, double quote,
 * newline; everything else (valid UTF-8, label_value) as is. */
static void put_label(struct nt_buf *b, const char *name, const char *v)
{
	nt_buf_printf(b, "%s=\"", name);
	for (; *v; v++) {
		if (*v == '\\')
			nt_buf_puts(b, "\\\\");
		else if (*v == '"')
			nt_buf_puts(b, "\\\"");
		else if (*v == '\n')
			nt_buf_puts(b, "\\n");
		else
			nt_buf_putc(b, *v);
	}
	nt_buf_putc(b, '"');
}

static void put_head(struct nt_buf *b, const char *name, const char *type, const char *help)
{
	nt_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_gauge(struct nt_buf *b, const char *name, const char *help, double v)
{
	put_head(b, name, "gauge", help);
	nt_buf_printf(b, "%s ", name);
	put_float(b, v);
	nt_buf_putc(b, '\n');
}

static void put_series_labels(struct nt_buf *b, const struct series *s)
{
	put_label(b, "interface", s->iface);
	nt_buf_putc(b, ',');
	put_label(b, "setting", s->setting);
	if (s->cause) {
		nt_buf_putc(b, ',');
		put_label(b, "cause", s->cause);
	}
}

enum field { F_DRIFT, F_CORRECTED, F_FAILED, F_CONFLICTS, F_CONFLICT };

static uint64_t field_of(const struct series *s, enum field f)
{
	switch (f) {
	case F_DRIFT:
		return s->drift;
	case F_CORRECTED:
		return s->corrected;
	case F_FAILED:
		return s->failed;
	case F_CONFLICTS:
		return s->conflicts;
	case F_CONFLICT:
		return s->conflict;
	}
	return 0;
}

static void put_family(struct nt_buf *b, const char *name, const char *type, const char *help,
		       const struct table *t, enum field f)
{
	put_head(b, name, type, help);
	for (size_t i = 0; i < t->n; i++) {
		nt_buf_printf(b, "%s{", name);
		put_series_labels(b, &t->v[i]);
		nt_buf_puts(b, "} ");
		nt_buf_put_u64(b, field_of(&t->v[i], f));
		nt_buf_putc(b, '\n');
	}
}

static void put_histogram(struct nt_buf *b, const struct nt_metrics *m)
{
	static const char name[] = "nettune_agent_correction_latency_seconds";

	put_head(b, name, "histogram",
		 "Seconds from the event, or the check that found the drift, to the verified read-back.");
	for (size_t c = 0; c < NCAUSES; c++) {
		const struct hist *h = &m->latency[c];
		uint64_t cum = 0;

		if (!h->count)
			continue;
		for (size_t i = 0; i <= NBOUNDS; i++) {
			cum += h->bucket[i];
			nt_buf_printf(b, "%s_bucket{cause=\"%s\",le=\"%s\"} ", name, causes[c],
				      i < NBOUNDS ? bound_labels[i] : "+Inf");
			nt_buf_put_u64(b, cum);
			nt_buf_putc(b, '\n');
		}
		nt_buf_printf(b, "%s_sum{cause=\"%s\"} ", name, causes[c]);
		put_float(b, h->sum);
		nt_buf_printf(b, "\n%s_count{cause=\"%s\"} ", name, causes[c]);
		nt_buf_put_u64(b, h->count);
		nt_buf_putc(b, '\n');
	}
}

/* families in name order */
void nt_metrics_format(const struct nt_metrics *m, struct nt_buf *out)
{
	put_family(out, "nettune_agent_conflict", "gauge",
		   "1 while the setting is not corrected because it was undone too often (damping).",
		   &m->by_setting, F_CONFLICT);
	put_family(out, "nettune_agent_conflicts_total", "counter",
		   "Times damping started for the setting.", &m->by_setting, F_CONFLICTS);
	put_gauge(out, "nettune_agent_converged", "1 when nothing is drifted and the whole profile was planned.", m->converged);
	put_family(out, "nettune_agent_correction_failures_total", "counter",
		   "Corrections that failed or did not read back as wanted.", &m->by_cause,
		   F_FAILED);
	put_histogram(out, m);
	put_family(out, "nettune_agent_corrections_total", "counter",
		   "Corrections verified by read-back.", &m->by_cause, F_CORRECTED);
	put_family(out, "nettune_agent_drift_events_total", "counter",
		   "Settings found drifted from the profile.", &m->by_cause, F_DRIFT);
	put_gauge(out, "nettune_agent_held", "1 while 'nettune agent hold' lasts.", m->held);
	put_gauge(out, "nettune_agent_last_check_duration_seconds",
		  "Duration of the last full check.", m->check_duration);
	put_gauge(out, "nettune_agent_last_check_timestamp_seconds",
		  "Unix time of the last full check (0: none yet).", m->check_at);
	put_gauge(out, "nettune_agent_start_time_seconds", "Unix time the agent started.",
		  m->started_at);
}

static void say(char *err, size_t errlen, const char *what, const char *path, int e)
{
	if (err && errlen)
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(e));
}

int nt_metrics_write_text(const struct nt_buf *b, const char *path, char *err, size_t errlen)
{
	/* not *.prom: the textfile collector never reads a half-written file */
	char *tmp = nt_xasprintf("%s.tmp.XXXXXX", path);
	int fd, r = 0;

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		say(err, errlen, "cannot create", tmp, -r);
		goto out;
	}
	/* mkostemp made it 0600; the collector may run as another user */
	if (fchmod(fd, 0644)) {
		r = -errno;
		say(err, errlen, "cannot chmod", tmp, -r);
	}
	/* Not fsync'ed (the agent writes it every second): after a crash the
	 * file is the previous one or empty, and the agent's next start
	 * rewrites it.  Its blocks are allocated now (its size left to the
	 * write), so that ext4 does not write it out in the rename over the
	 * previous file (auto_da_alloc). */
	(void)!fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)b->n);
	if (!r && (r = nt_write_all(fd, b->p, b->n)))
		say(err, errlen, "cannot write", tmp, -r);
	if (close(fd) && !r) {
		r = -errno;
		say(err, errlen, "cannot write", tmp, -r);
	}
	if (!r && rename(tmp, path)) {
		r = -errno;
		say(err, errlen, "cannot rename over", path, -r);
	}
	if (r)
		unlink(tmp);
out:
	free(tmp);
	return r;
}

int nt_metrics_write(const struct nt_metrics *m, const char *path, char *err, size_t errlen)
{
	struct nt_buf b = {0};
	int r;

	nt_metrics_format(m, &b);
	r = nt_metrics_write_text(&b, path, err, errlen);
	nt_buf_free(&b);
	return r;
}
