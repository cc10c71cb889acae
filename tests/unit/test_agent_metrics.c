/* SPDX-License-Identifier: MIT */
/*
 * The agent's Prometheus textfile (agent/metrics.c): exact exposition
 * lines, escaping, the histogram, the series cap, the atomic write; and
 * the systemd notify protocol (agent/notify.c) against a socket bound
 * here.  "test_agent_metrics --write FILE" writes awkward metrics for
 * agent_promtool.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "nt_test.h"
#include "agent/metrics.h"
#include "agent/notify.h"

static char *fmt(const struct nt_metrics *m)
{
	struct nt_buf b = {0};

	nt_metrics_format(m, &b);
	return nt_buf_take(&b);
}

/* Whether text holds line as a whole line. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* Lines that start with prefix. */
static size_t count_prefix(const char *text, const char *prefix)
{
	size_t k = 0, n = strlen(prefix);

	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, prefix, n))
			k++;
		if (!strchr(p, '\n'))
			break;
	}
	return k;
}

#define ASSERT_LINE(text, line)                                         \
	do {                                                            \
		bool hit_ = has_line((text), (line));                   \
		if (!hit_)                                              \
			fprintf(stderr, "\n  missing line: %s\n", (line)); \
		CU_ASSERT_TRUE(hit_);                                   \
	} while (0)

static const char golden_small[] =
	"# HELP nettune_agent_conflict 1 while the setting is not corrected because it was undone too often (damping).\n"
	"# TYPE nettune_agent_conflict gauge\n"
	"# HELP nettune_agent_conflicts_total Times damping started for the setting.\n"
	"# TYPE nettune_agent_conflicts_total counter\n"
	"# HELP nettune_agent_converged 1 when nothing is drifted and the whole profile was planned.\n"
	"# TYPE nettune_agent_converged gauge\n"
	"nettune_agent_converged 1\n"
	"# HELP nettune_agent_correction_failures_total Corrections that failed or did not read back as wanted.\n"
	"# TYPE nettune_agent_correction_failures_total counter\n"
	"nettune_agent_correction_failures_total{interface=\"veth0\",setting=\"mtu\",cause=\"link\"} 0\n"
	"# HELP nettune_agent_correction_latency_seconds Seconds from the event, or the check that found the drift, to the verified read-back.\n"
	"# TYPE nettune_agent_correction_latency_seconds histogram\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.0001\"} 0\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.00025\"} 0\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.0005\"} 0\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.001\"} 0\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.0025\"} 0\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.005\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.01\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.025\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.05\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.1\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.25\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"0.5\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"1\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"2.5\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"5\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"10\"} 1\n"
	"nettune_agent_correction_latency_seconds_bucket{cause=\"link\",le=\"+Inf\"} 1\n"
	"nettune_agent_correction_latency_seconds_sum{cause=\"link\"} 0.003\n"
	"nettune_agent_correction_latency_seconds_count{cause=\"link\"} 1\n"
	"# HELP nettune_agent_corrections_total Corrections verified by read-back.\n"
	"# TYPE nettune_agent_corrections_total counter\n"
	"nettune_agent_corrections_total{interface=\"veth0\",setting=\"mtu\",cause=\"link\"} 1\n"
	"# HELP nettune_agent_drift_events_total Settings found drifted from the profile.\n"
	"# TYPE nettune_agent_drift_events_total counter\n"
	"nettune_agent_drift_events_total{interface=\"veth0\",setting=\"mtu\",cause=\"link\"} 1\n"
	"# HELP nettune_agent_held 1 while 'nettune agent hold' lasts.\n"
	"# TYPE nettune_agent_held gauge\n"
	"nettune_agent_held 0\n"
	"# HELP nettune_agent_last_check_duration_seconds Duration of the last full check.\n"
	"# TYPE nettune_agent_last_check_duration_seconds gauge\n"
	"nettune_agent_last_check_duration_seconds 0.125\n"
	"# HELP nettune_agent_last_check_timestamp_seconds Unix time of the last full check (0: none yet).\n"
	"# TYPE nettune_agent_last_check_timestamp_seconds gauge\n"
	"nettune_agent_last_check_timestamp_seconds 1700000030.25\n"
	"# HELP nettune_agent_start_time_seconds Unix time the agent started.\n"
	"# TYPE nettune_agent_start_time_seconds gauge\n"
	"nettune_agent_start_time_seconds 1700000000.5\n";

/* one drift corrected: the whole file, byte for byte */
static void test_small_exact(void)
{
	struct nt_metrics *m = nt_metrics_new();
	char *t;

	nt_metrics_started(m, 1700000000.5);
	nt_metrics_drift(m, "veth0", "mtu", "link");
	nt_metrics_corrected(m, "veth0", "mtu", "link", 0.003);
	nt_metrics_converged(m, true);
	nt_metrics_check(m, 1700000030.25, 0.125);
	t = fmt(m);
	if (strcmp(t, golden_small))
		fprintf(stderr, "\n--- got:\n%s--- end\n", t);
	CU_ASSERT_STRING_EQUAL(t, golden_small);
	free(t);
	nt_metrics_free(m);
}

/* a fresh agent: every family has its HELP and TYPE, gauges are 0 */
static void test_empty(void)
{
	static const char *const families[][2] = {
		{"nettune_agent_converged", "gauge"},
		{"nettune_agent_held", "gauge"},
		{"nettune_agent_drift_events_total", "counter"},
		{"nettune_agent_corrections_total", "counter"},
		{"nettune_agent_correction_failures_total", "counter"},
		{"nettune_agent_correction_latency_seconds", "histogram"},
		{"nettune_agent_conflicts_total", "counter"},
		{"nettune_agent_conflict", "gauge"},
		{"nettune_agent_last_check_timestamp_seconds", "gauge"},
		{"nettune_agent_last_check_duration_seconds", "gauge"},
		{"nettune_agent_start_time_seconds", "gauge"},
	};
	struct nt_metrics *m = nt_metrics_new();
	char *t = fmt(m);

	for (size_t i = 0; i < NT_ARRAY_SIZE(families); i++) {
		char *type = nt_xasprintf("# TYPE %s %s", families[i][0], families[i][1]);
		char *help = nt_xasprintf("# HELP %s ", families[i][0]);

		ASSERT_LINE(t, type);
		CU_ASSERT_EQUAL(count_prefix(t, help), 1);
		free(type);
		free(help);
	}
	CU_ASSERT_EQUAL(count_prefix(t, "# TYPE "), NT_ARRAY_SIZE(families));
	ASSERT_LINE(t, "nettune_agent_converged 0");
	ASSERT_LINE(t, "nettune_agent_held 0");
	ASSERT_LINE(t, "nettune_agent_last_check_timestamp_seconds 0");
	CU_ASSERT_EQUAL(count_prefix(t, "nettune_agent_correction_latency_seconds_"), 0);
	free(t);
	nt_metrics_free(m);
}

/* backslash, double quote and newline escaped; invalid UTF-8 as U+FFFD
 * (two such names are one series); long values cut between characters */
static void test_escaping(void)
{
	struct nt_metrics *m = nt_metrics_new();
	char longname[200], *t, *want;

	nt_metrics_drift(m, "a\"b\\c\nd", "feature rx-checksum", "ethtool");
	nt_metrics_drift(m, "x\xff", "channels combined", "periodic");
	nt_metrics_drift(m, "x\xfe", "channels combined", "periodic");
	nt_metrics_drift(m, "tab\there", "mtu", "no such cause");
	nt_metrics_drift(m, NULL, NULL, NULL);
	memset(longname, 'a', 127);
	strcpy(longname + 127, "\xc3\xa9tail");	/* é across byte 128 */
	nt_metrics_drift(m, longname, "mtu", "start");
	t = fmt(m);
	ASSERT_LINE(t, "nettune_agent_drift_events_total{interface=\"a\\\"b\\\\c\\nd\","
		       "setting=\"feature rx-checksum\",cause=\"ethtool\"} 1");
	ASSERT_LINE(t, "nettune_agent_drift_events_total{interface=\"x\xef\xbf\xbd\","
		       "setting=\"channels combined\",cause=\"periodic\"} 2");
	ASSERT_LINE(t, "nettune_agent_drift_events_total{interface=\"tab\there\","
		       "setting=\"mtu\",cause=\"other\"} 1");
	ASSERT_LINE(t, "nettune_agent_drift_events_total{interface=\"\",setting=\"\","
		       "cause=\"other\"} 1");
	longname[127] = '\0';
	want = nt_xasprintf("nettune_agent_drift_events_total{interface=\"%s\",setting=\"mtu\","
			    "cause=\"start\"} 1", longname);
	ASSERT_LINE(t, want);
	CU_ASSERT_EQUAL(count_prefix(t, "nettune_agent_drift_events_total{"), 5);
	/* the raw bytes never reach the file */
	CU_ASSERT_PTR_NULL(strchr(t, '\xff'));
	CU_ASSERT_PTR_NULL(strstr(t, "c\nd"));
	free(want);
	free(t);
	nt_metrics_free(m);
}

/* buckets are cumulative and le is inclusive; negative and NaN latencies
 * count as 0; one histogram per cause */
static void test_histogram(void)
{
	static const char *const want[] = {
		"0.0001\"} 2", "0.00025\"} 2", "0.0005\"} 2", "0.001\"} 2", "0.0025\"} 2",
		"0.005\"} 2", "0.01\"} 2", "0.025\"} 2", "0.05\"} 2", "0.1\"} 2", "0.25\"} 3",
		"0.5\"} 3", "1\"} 4", "2.5\"} 4", "5\"} 4", "10\"} 4", "+Inf\"} 5",
	};
	struct nt_metrics *m = nt_metrics_new();
	char *t;

	nt_metrics_corrected(m, "eth0", "mtu", "start", 0.25);
	nt_metrics_corrected(m, "eth0", "mtu", "start", 1);
	nt_metrics_corrected(m, "eth0", "mtu", "start", 20);
	nt_metrics_corrected(m, "eth0", "mtu", "start", -1);
	nt_metrics_corrected(m, "eth1", "mtu", "start", NAN);
	nt_metrics_corrected(m, "eth0", "mtu", "resume", 0.0001);
	t = fmt(m);
	for (size_t i = 0; i < NT_ARRAY_SIZE(want); i++) {
		char *l = nt_xasprintf("nettune_agent_correction_latency_seconds_bucket"
				       "{cause=\"start\",le=\"%s", want[i]);

		ASSERT_LINE(t, l);
		free(l);
	}
	ASSERT_LINE(t, "nettune_agent_correction_latency_seconds_sum{cause=\"start\"} 21.25");
	ASSERT_LINE(t, "nettune_agent_correction_latency_seconds_count{cause=\"start\"} 5");
	ASSERT_LINE(t, "nettune_agent_correction_latency_seconds_bucket{cause=\"resume\",le=\"0.0001\"} 1");
	ASSERT_LINE(t, "nettune_agent_correction_latency_seconds_sum{cause=\"resume\"} 0.0001");
	ASSERT_LINE(t, "nettune_agent_correction_latency_seconds_count{cause=\"resume\"} 1");
	CU_ASSERT_EQUAL(count_prefix(t, "nettune_agent_correction_latency_seconds_bucket{"), 34);
	ASSERT_LINE(t, "nettune_agent_corrections_total{interface=\"eth0\",setting=\"mtu\",cause=\"start\"} 4");
	ASSERT_LINE(t, "nettune_agent_corrections_total{interface=\"eth1\",setting=\"mtu\",cause=\"start\"} 1");
	ASSERT_LINE(t, "nettune_agent_drift_events_total{interface=\"eth0\",setting=\"mtu\",cause=\"start\"} 0");
	ASSERT_LINE(t, "nettune_agent_correction_failures_total{interface=\"eth0\",setting=\"mtu\",cause=\"resume\"} 0");
	free(t);
	nt_metrics_free(m);
}

/* equal metrics give equal bytes whatever the order of the events; series
 * sorted by interface, setting, cause */
static void test_sorted(void)
{
	struct nt_metrics *a = nt_metrics_new(), *b = nt_metrics_new();
	char *ta, *tb, *p1, *p10, *p2, *pl, *pp;

	nt_metrics_failed(a, "eth2", "mtu", "link");
	nt_metrics_failed(a, "eth10", "mtu", "link");
	nt_metrics_failed(a, "eth1", "rings rx", "periodic");
	nt_metrics_failed(a, "eth1", "rings rx", "link");
	nt_metrics_failed(b, "eth1", "rings rx", "link");
	nt_metrics_failed(b, "eth1", "rings rx", "periodic");
	nt_metrics_failed(b, "eth10", "mtu", "link");
	nt_metrics_failed(b, "eth2", "mtu", "link");
	ta = fmt(a);
	tb = fmt(b);
	CU_ASSERT_STRING_EQUAL(ta, tb);
	pl = strstr(ta, "failures_total{interface=\"eth1\",setting=\"rings rx\",cause=\"link\"} 1\n");
	pp = strstr(ta, "failures_total{interface=\"eth1\",setting=\"rings rx\",cause=\"periodic\"} 1\n");
	p1 = pl;
	p10 = strstr(ta, "failures_total{interface=\"eth10\"");
	p2 = strstr(ta, "failures_total{interface=\"eth2\"");
	CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p10);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p2);
	CU_ASSERT_TRUE(pl < pp && p1 < p10 && p10 < p2);
	free(ta);
	free(tb);
	nt_metrics_free(a);
	nt_metrics_free(b);
}

/* conflicts_total counts starts of damping, not repeats; the gauge follows */
static void test_conflict(void)
{
	struct nt_metrics *m = nt_metrics_new();
	char *t;

	nt_metrics_conflict(m, "veth0", "feature rx-checksum", true);
	nt_metrics_conflict(m, "veth0", "feature rx-checksum", true);
	nt_metrics_conflict(m, "veth0", "feature rx-checksum", false);
	nt_metrics_conflict(m, "veth0", "feature rx-checksum", true);
	nt_metrics_conflict(m, "veth1", "mtu", true);
	nt_metrics_conflict(m, "veth1", "mtu", false);
	nt_metrics_held(m, true);
	t = fmt(m);
	ASSERT_LINE(t, "nettune_agent_conflicts_total{interface=\"veth0\",setting=\"feature rx-checksum\"} 2");
	ASSERT_LINE(t, "nettune_agent_conflict{interface=\"veth0\",setting=\"feature rx-checksum\"} 1");
	ASSERT_LINE(t, "nettune_agent_conflicts_total{interface=\"veth1\",setting=\"mtu\"} 1");
	ASSERT_LINE(t, "nettune_agent_conflict{interface=\"veth1\",setting=\"mtu\"} 0");
	ASSERT_LINE(t, "nettune_agent_held 1");
	/* the {interface,setting} label set is apart from the other one */
	CU_ASSERT_EQUAL(count_prefix(t, "nettune_agent_drift_events_total{"), 0);
	free(t);
	nt_metrics_free(m);
}

/* past NT_METRICS_MAX_SERIES a new series is counted on the overflow
 * series; the existing ones keep counting */
static void test_overflow(void)
{
	struct nt_metrics *m = nt_metrics_new();
	char name[32], *t;
	unsigned i;

	for (i = 0; i < NT_METRICS_MAX_SERIES; i++) {
		snprintf(name, sizeof(name), "v%u", i);
		nt_metrics_drift(m, name, "mtu", "periodic");
		nt_metrics_conflict(m, name, "mtu", true);
	}
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "late%u", i);
		nt_metrics_drift(m, name, "mtu", "periodic");
		nt_metrics_drift(m, name, "mtu", "link");
		nt_metrics_conflict(m, name, "mtu", true);
	}
	nt_metrics_drift(m, "v7", "mtu", "periodic");
	t = fmt(m);
	CU_ASSERT_EQUAL(count_prefix(t, "nettune_agent_drift_events_total{"),
			NT_METRICS_MAX_SERIES + 2);
	CU_ASSERT_EQUAL(count_prefix(t, "nettune_agent_conflict{"), NT_METRICS_MAX_SERIES + 1);
	ASSERT_LINE(t, "nettune_agent_drift_events_total{interface=\"/overflow\","
		       "setting=\"/overflow\",cause=\"periodic\"} 10");
	ASSERT_LINE(t, "nettune_agent_drift_events_total{interface=\"/overflow\","
		       "setting=\"/overflow\",cause=\"link\"} 10");
	ASSERT_LINE(t, "nettune_agent_conflict{interface=\"/overflow\",setting=\"/overflow\"} 1");
	ASSERT_LINE(t, "nettune_agent_drift_events_total{interface=\"v7\",setting=\"mtu\","
		       "cause=\"periodic\"} 2");
	CU_ASSERT_PTR_NULL(strstr(t, "interface=\"late"));
	free(t);
	nt_metrics_free(m);
}

static char *slurp(const char *path)
{
	struct nt_buf b = {0};
	char why[256];

	CU_ASSERT_EQUAL(nt_read_input(path, 1 << 24, 0, &b, why, sizeof(why)), 0);
	return nt_buf_take(&b);
}

static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* 0644 whatever the umask, the exact bytes, nothing left beside it; a
 * rewrite replaces it; errors are -errno with a message, no temp file */
static void test_write(void)
{
	char dir[] = "/tmp/nt-metrics-XXXXXX", err[512] = "";
	struct nt_metrics *m = nt_metrics_new();
	char *path, *bad, *sub, *got, *want;
	struct stat st, st2;
	mode_t old;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	path = nt_xasprintf("%s/nettune.prom", dir);
	nt_metrics_drift(m, "veth0", "mtu", "link");
	old = umask(077);
	CU_ASSERT_EQUAL(nt_metrics_write(m, path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_TRUE(S_ISREG(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0644);
	got = slurp(path);
	want = fmt(m);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	free(want);
	CU_ASSERT_EQUAL(dir_entries(dir), 1);

	nt_metrics_corrected(m, "veth0", "mtu", "link", 0.01);
	CU_ASSERT_EQUAL(nt_metrics_write(m, path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(stat(path, &st2), 0);
	CU_ASSERT_NOT_EQUAL(st.st_ino, st2.st_ino);	/* renamed over, not rewritten */
	CU_ASSERT_EQUAL(st2.st_mode & 07777, 0644);
	got = slurp(path);
	want = fmt(m);
	CU_ASSERT_STRING_EQUAL(got, want);
	CU_ASSERT_TRUE(has_line(got, "nettune_agent_corrections_total{interface=\"veth0\","
				     "setting=\"mtu\",cause=\"link\"} 1"));
	free(got);
	free(want);
	CU_ASSERT_EQUAL(dir_entries(dir), 1);
	umask(old);

	bad = nt_xasprintf("%s/no/such/dir.prom", dir);
	CU_ASSERT_EQUAL(nt_metrics_write(m, bad, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot create"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, bad));
	/* the rename fails (a directory is in the way): the temp file is
	 * removed */
	sub = nt_xasprintf("%s/sub", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
	free(bad);
	bad = nt_xasprintf("%s/x", sub);
	CU_ASSERT_EQUAL_FATAL(mkdir(bad, 0755), 0);
	err[0] = '\0';
	CU_ASSERT_EQUAL(nt_metrics_write(m, bad, err, sizeof(err)), -EISDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot rename over"));
	CU_ASSERT_EQUAL(dir_entries(sub), 1);
	rmdir(bad);
	rmdir(sub);
	unlink(path);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	free(bad);
	free(sub);
	free(path);
	nt_metrics_free(m);
}

static size_t open_fds(void)
{
	return dir_entries("/proc/self/fd");
}

/* A datagram socket bound at addr (a path, or "@name"): its fd. */
static int bind_dgram(const char *addr)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(addr);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	CU_ASSERT_FATAL(fd >= 0 && n < sizeof(sa.sun_path));
	memcpy(sa.sun_path, addr, n);
	if (addr[0] == '@')
		sa.sun_path[0] = '\0';
	else
		len++;
	CU_ASSERT_EQUAL_FATAL(bind(fd, (struct sockaddr *)&sa, len), 0);
	return fd;
}

/* The next datagram on fd ("" when there is none). */
static char *recv_one(int fd)
{
	char buf[4096];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return nt_xstrdup(buf);
}

static void notify_at(const char *addr)
{
	int fd = bind_dgram(addr);
	size_t fds;
	char *got;

	setenv("NOTIFY_SOCKET", addr, 1);
	fds = open_fds();
	CU_ASSERT_EQUAL(nt_notify("READY=1\nSTATUS=converged at start: 3 changes"), 0);
	got = recv_one(fd);
	CU_ASSERT_STRING_EQUAL(got, "READY=1\nSTATUS=converged at start: 3 changes");
	free(got);
	CU_ASSERT_EQUAL(nt_notifyf("STATUS=%u drifted, %s", 2u, "held"), 0);
	got = recv_one(fd);
	CU_ASSERT_STRING_EQUAL(got, "STATUS=2 drifted, held");
	free(got);
	CU_ASSERT_EQUAL(nt_notify("WATCHDOG=1"), 0);
	got = recv_one(fd);
	CU_ASSERT_STRING_EQUAL(got, "WATCHDOG=1");
	free(got);
	CU_ASSERT_EQUAL(open_fds(), fds);	/* its socket is closed */
	got = recv_one(fd);
	CU_ASSERT_STRING_EQUAL(got, "");	/* one datagram per call */
	free(got);
	unsetenv("NOTIFY_SOCKET");
	close(fd);
}

static void test_notify_path(void)
{
	char dir[] = "/tmp/nt-notify-XXXXXX";
	char *sock;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	sock = nt_xasprintf("%s/notify", dir);
	notify_at(sock);
	unlink(sock);
	rmdir(dir);
	free(sock);
}

static void test_notify_abstract(void)
{
	char *name = nt_xasprintf("@nettune-test-notify-%d", (int)getpid());

	notify_at(name);
	free(name);
}

/* no socket: nothing to do; a socket that is not there or cannot be is
 * an error */
static void test_notify_errors(void)
{
	char *long_path = nt_xcalloc(1, 200);

	unsetenv("NOTIFY_SOCKET");
	CU_ASSERT_EQUAL(nt_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "", 1);
	CU_ASSERT_EQUAL(nt_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "/nonexistent/nettune-notify", 1);
	CU_ASSERT_EQUAL(nt_notify("READY=1"), -ENOENT);
	CU_ASSERT_EQUAL(nt_notify(""), -EINVAL);
	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	CU_ASSERT_EQUAL(nt_notify("READY=1"), -EAFNOSUPPORT);
	long_path[0] = '/';
	memset(long_path + 1, 'x', 150);
	setenv("NOTIFY_SOCKET", long_path, 1);
	CU_ASSERT_EQUAL(nt_notify("READY=1"), -ENAMETOOLONG);
	unsetenv("NOTIFY_SOCKET");
	free(long_path);
}

static void test_watchdog(void)
{
	char pid[32];

	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "30000000", 1);
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), 30000000);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), 30000000);
	snprintf(pid, sizeof(pid), "%d", (int)getppid());
	setenv("WATCHDOG_PID", pid, 1);
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_PID", "12x", 1);
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "18446744073709551615", 1);
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), UINT64_MAX);
	setenv("WATCHDOG_USEC", "18446744073709551616", 1);
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "0", 1);
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "-5", 1);
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "5s", 1);
	CU_ASSERT_EQUAL(nt_notify_watchdog_usec(), 0);
	unsetenv("WATCHDOG_USEC");
}

/* Awkward names on every series, for promtool (agent_promtool.sh). */
static int write_awkward(const char *path)
{
	static const char *const ifaces[] = {
		"eth0", "a\"b", "back\\slash", "new\nline", "\xff\xfe", "tab\there",
		"{}=,# x", "\xc3\xa9\xe6\xbc\xa2", "cr\rx", "\\\"\\n", "",
	};
	static const char *const settings[] = {
		"mtu", "feature rx-checksum", "channels combined",
	};
	static const char *const causes[] = {
		"start", "link", "ethtool", "periodic", "reload", "resume", "bogus",
	};
	struct nt_metrics *m = nt_metrics_new();
	char err[512];
	int r;

	nt_metrics_started(m, 1700000000.123);
	for (size_t i = 0; i < NT_ARRAY_SIZE(ifaces); i++)
		for (size_t s = 0; s < NT_ARRAY_SIZE(settings); s++) {
			const char *c = causes[(i + s) % NT_ARRAY_SIZE(causes)];

			nt_metrics_drift(m, ifaces[i], settings[s], c);
			nt_metrics_corrected(m, ifaces[i], settings[s], c, 0.0003 * (double)(i + s));
			nt_metrics_failed(m, ifaces[i], settings[s], c);
			nt_metrics_conflict(m, ifaces[i], settings[s], (i + s) % 2);
		}
	nt_metrics_corrected(m, "eth0", "mtu", "periodic", 42.5);
	nt_metrics_converged(m, true);
	nt_metrics_check(m, 1700000030.456, 0.0123);
	r = nt_metrics_write(m, path, err, sizeof(err));
	if (r)
		fprintf(stderr, "test_agent_metrics: %s\n", err);
	nt_metrics_free(m);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	CU_pSuite s;

	if (argc == 3 && !strcmp(argv[1], "--write"))
		return write_awkward(argv[2]);
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("agent_metrics", NULL, NULL);
	CU_add_test(s, "whole file, byte for byte", test_small_exact);
	CU_add_test(s, "every family when empty", test_empty);
	CU_add_test(s, "label escaping and UTF-8", test_escaping);
	CU_add_test(s, "histogram buckets, sum, count", test_histogram);
	CU_add_test(s, "sorted, deterministic", test_sorted);
	CU_add_test(s, "conflicts", test_conflict);
	CU_add_test(s, "series cap and overflow", test_overflow);
	CU_add_test(s, "atomic write", test_write);
	CU_add_test(s, "notify: path socket", test_notify_path);
	CU_add_test(s, "notify: abstract socket", test_notify_abstract);
	CU_add_test(s, "notify: errors", test_notify_errors);
	CU_add_test(s, "watchdog", test_watchdog);
	return t_run(s);
}
