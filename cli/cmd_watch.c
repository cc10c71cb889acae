/* SPDX-License-Identifier: MIT */
/* nettune watch: measure where traffic really lands and judge it against the intended placement. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../appliers/linux/apply.h"
#include "../appliers/linux/journal.h"
#include "../appliers/linux/statedir.h"
#include "../appliers/linux/linux.h"
#include "../appliers/linux/sysio.h"
#include "../appliers/linux/watch.h"
#include "../report/watch.h"
#include "../compiler/formats/json.h"
#include "../compiler/language/profile.h"
#include "common.h"
#include "opts.h"
#include "../report/topomap.h"

static void help(void)
{
	printf("Usage: nettune watch [PROFILE] [--interval S] [--count N] [--json] [--svg FILE] [IFACE...]\n\n"
	       "Samples /proc/interrupts, /proc/softirqs, /proc/net/softnet_stat, the per-queue\n"
	       "ethtool statistics and /sys/class/net/IFACE/statistics over an interval, draws\n"
	       "where the queues' work really ran (NUMA node -> core -> queue, with rates), and\n"
	       "judges it against the intent: the PROFILE's IRQ placement, or without a PROFILE\n"
	       "the profile of the newest applied journal in $NETTUNE_STATE_DIR/journal.\n\n"
	       "Findings: queue IRQs firing outside their intended CPUs, queues that carry no\n"
	       "traffic, imbalance across queues (max/mean > %.1f or Jain's index < %.2f),\n"
	       "NET_RX softirqs off the NIC's NUMA node (> %.0f%%), growing drops, softnet\n"
	       "drops and time_squeeze.  Each names the object, the figure and what to do.\n\n"
	       "  --interval S   seconds between samples (default 1; fractions allowed)\n"
	       "  --count N      number of intervals (default 1); judged over the whole window\n"
	       "  --json         machine-readable report on stdout\n"
	       "  --svg FILE     also write the map as a standalone SVG with a heat scale\n\n"
	       "With --root DIR, DIR/sample-0, DIR/sample-1, ... are successive samples (each a\n"
	       "tree of /proc and /sys; per-queue counters in DIR/sample-K/ethtool-S/IFACE as\n"
	       "'ethtool -S' prints them; elapsed time from each sample's /proc/uptime).\n"
	       "A DIR without sample-N subdirectories is read twice (no traffic).\n\n"
	       "Exit status: 0 the host behaves as planned, 2 it does not (findings), 1 error,\n"
	       "64 usage.\n", NT_WATCH_MAX_OVER_MEAN, NT_WATCH_JAIN_MIN, 100 * NT_WATCH_OFF_NODE_MAX);
}

struct intent {
	struct nt_compiled c;
	bool compiled;
	struct nt_facts facts;		/* when not compiled */
	struct nt_state observed;
	struct nt_state journal;	/* irq-affinity from journal entries */
	char *against;
	char *restore;
};

static bool is_profile_arg(const char *a)
{
	size_t n = strlen(a);
	struct stat st;

	return (n > 5 && !strcmp(a + n - 5, ".yaml")) || (n > 4 && !strcmp(a + n - 4, ".yml")) ||
	       (!stat(a, &st) && S_ISREG(st.st_mode));
}

/* The newest journal whose changes are in force (applied, awaiting
 * confirmation, confirmed), by recorded time; false if none. */
static bool newest_applied_journal(struct nt_journal *out)
{
	char err[256];
	int jfd = nt_statedir_open(false, NULL, err, sizeof(err));
	struct nt_journal *v = NULL;
	size_t n = 0, k;
	bool found = false;

	if (jfd >= 0) {
		n = nt_journal_list(jfd, false, &v, NULL);
		close(jfd);
	}
	for (k = 0; k < n && !found; k++) {
		if (v[k].state == NT_JS_APPLIED || v[k].state == NT_JS_PENDING_CONFIRM ||
		    v[k].state == NT_JS_CONFIRMED) {
			*out = v[k];
			memset(&v[k], 0, sizeof(v[k]));
			found = true;
		}
	}
	nt_journal_list_free(v, n);
	return found;
}

/* The journal's irq-affinity "after" values, when its profile is gone. */
static void journal_intent(const struct nt_journal *j, struct nt_state *st)
{
	for (size_t k = 0; k < j->n; k++) {
		const struct nt_jentry *e = &j->e[k];
		struct nt_value v;

		if (e->kind != NT_K_IRQ_AFFINITY)
			continue;
		nt_value_copy(&v, &e->after);
		nt_state_set(st, NT_K_IRQ_AFFINITY, e->object, e->arg, v, (struct nt_mark){0});
	}
}

static int observe_plain(const char *const *ifaces, size_t n, struct intent *in)
{
	struct nt_observe_req req = {0};
	struct nt_diags d = {0};
	int r;

	req.ifaces = n ? ifaces : NULL;
	req.nifaces = n;
	r = nt_linux_observe(&req, &in->facts, &in->observed, &d);
	nt_print_diags(&d);
	nt_diags_free(&d);
	return r;
}

static int load_intent(const char *profile, const char *const *ifaces, size_t nifaces,
		       struct intent *in)
{
	struct nt_diags d = {0};
	struct nt_pipeline_req rq = nt_cli_request(NULL);
	struct nt_journal j = {0};
	bool have_j = false;

	if (!profile) {
		have_j = newest_applied_journal(&j);
		if (have_j && j.profile && *j.profile && !access(j.profile, R_OK))
			profile = j.profile;
	}
	rq.profile = profile;
	rq.read_only = true;
	if (profile && have_j && nifaces) {
		/* the journal's profile must cover the named interfaces */
		struct nt_compiled c;
		size_t k;

		if (nt_pipeline_run(&rq, &c, &d)) {
			profile = NULL;
		} else {
			for (k = 0; k < nifaces; k++)
				if (!nt_facts_iface(&c.facts, ifaces[k]))
					profile = NULL;
		}
		nt_compiled_free(&c);
		nt_diags_free(&d);
		memset(&d, 0, sizeof(d));
	}
	if (profile) {
		if (nt_pipeline_run(&rq, &in->c, &d)) {
			nt_print_diags(&d);
			nt_diags_free(&d);
			nt_compiled_free(&in->c);
			nt_journal_free(&j);
			return -1;
		}
		nt_print_diags(&d);
		in->compiled = true;
		in->against = have_j ? nt_xasprintf("journal %s (profile %s)", j.id, profile) :
				       nt_xstrdup(profile);
		in->restore = nt_xasprintf("nettune apply %s", profile);
	} else {
		if (have_j) {
			journal_intent(&j, &in->journal);
			in->against = nt_xasprintf("journal %s (its profile %s is gone: irq-affinity "
						   "entries only)", j.id, j.profile ? j.profile : "");
		}
		in->restore = nt_xstrdup("nettune apply PROFILE");
		if (observe_plain(ifaces, nifaces, in)) {
			nt_journal_free(&j);
			return -1;
		}
	}
	nt_diags_free(&d);
	nt_journal_free(&j);
	return 0;
}

static void intent_free(struct intent *in)
{
	if (in->compiled)
		nt_compiled_free(&in->c);
	else {
		nt_facts_free(&in->facts);
		nt_state_free(&in->observed);
	}
	nt_state_free(&in->journal);
	free(in->against);
	free(in->restore);
}

/* The interfaces to watch when none are named: the profile's (or the
 * journal's) that exist, else every interface with queue IRQs. */
static size_t pick_ifaces(const struct intent *in, const struct nt_facts *f, const char ***out)
{
	const char **v = nt_xcalloc(f->nifs + 1, sizeof(char *));
	size_t n = 0, k;
	const struct nt_state *want = in->compiled ? &in->c.desired : &in->journal;

	for (k = 0; k < f->nifs; k++) {
		size_t s;
		bool named = false;

		for (s = 0; s < want->n; s++)
			named |= want->v[s].kind == NT_K_IRQ_AFFINITY && !strcmp(want->v[s].object, f->ifs[k].name);
		if (named)
			v[n++] = f->ifs[k].name;
	}
	for (k = 0; !n && k < f->nifs; k++)
		if (f->ifs[k].nirqs)
			v[n++] = f->ifs[k].name;
	*out = v;
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void build_map(const struct nt_watch_report *r, const struct nt_facts *f,
		      const struct nt_cpuset *reserved, struct nt_map *m)
{
	size_t k, q;
	unsigned c;

	memset(m, 0, sizeof(*m));
	m->f = f;
	m->reserved = *reserved;
	m->rates = true;
	m->unit = r->nifs ? r->ifs[0].metric : "packets";
	m->cpu_rate = nt_xcalloc(f->ncpus + 1, sizeof(double));
	for (c = 0; c < r->ncpus && c < f->ncpus; c++)
		m->cpu_rate[c] = (double)r->net_rx[c] / r->seconds;
	for (k = 0; k < r->nifs; k++) {
		const struct nt_watch_ifreport *ir = &r->ifs[k];

		for (q = 0; q < ir->nq; q++) {
			const struct nt_watch_queue *x = &ir->q[q];
			struct nt_map_q *mq;
			uint64_t v = !strcmp(ir->metric, "packets") ?
				     x->v[NT_QF_RX_PACKETS] + x->v[NT_QF_TX_PACKETS] : x->irqs;
			int first = x->has_intent ? nt_cpuset_next(&x->intent, 0) : -1;

			m->q = nt_xrealloc(m->q, (m->nq + 1) * sizeof(*m->q));
			mq = &m->q[m->nq++];
			memset(mq, 0, sizeof(*mq));
			mq->iface = ir->name;
			mq->queue = x->queue;
			mq->irq = x->irq;
			mq->cpu = x->top_cpu >= 0 ? x->top_cpu : first;
			if (mq->cpu < 0 && x->aff_known && nt_cpuset_count(&x->aff) <= 2)
				mq->cpu = nt_cpuset_next(&x->aff, 0);	/* idle: where it would run */
			mq->want = x->top_cpu >= 0 && x->has_intent &&
				   !nt_cpuset_has(&x->intent, (unsigned)x->top_cpu) ? first : -1;
			mq->spread = x->has_intent && nt_cpuset_count(&x->intent) > 2;
			mq->rate = (double)v / r->seconds;
			mq->dead = !v && ir->nq > 1 && ir->total >= NT_WATCH_MIN_TRAFFIC &&
				   !ir->queues_uncounted;
		}
	}
}

static int write_file(const char *path, const struct nt_buf *b)
{
	FILE *fp = fopen(path, "w");
	int r = 0;

	if (!fp)
		return -errno;
	if (b->n && fwrite(b->p, 1, b->n, fp) != b->n)
		r = -EIO;
	if (fclose(fp) && !r)
		r = -errno;
	return r;
}

static bool sample_dir(const char *root, unsigned k, char **out)
{
	char *p = nt_xasprintf("%s/sample-%u", root, k);
	struct stat st;

	if (!stat(p, &st) && S_ISDIR(st.st_mode)) {
		*out = p;
		return true;
	}
	free(p);
	return false;
}

/* The map and the findings of a report: text (or JSON) into out, and the
 * SVG file when asked; progress, when given, replaces the title's window. */
static void render(const struct nt_watch_report *rep, const struct nt_facts *f,
		   const struct nt_cpuset *reserved, const struct intent *in, unsigned count,
		   bool json, const char *svg, const char *progress, struct nt_buf *out)
{
	struct nt_map map = {0};
	char **notes = nt_xcalloc(rep->nf + 1, sizeof(char *));
	char *title;
	size_t n;

	build_map(rep, f, reserved, &map);
	if (progress)
		title = nt_xasprintf("nettune watch: %s; %zu finding%s so far; intent: %s", progress,
				     rep->nf, rep->nf == 1 ? "" : "s",
				     in->against ? in->against : "none (pass a PROFILE)");
	else
		title = nt_xasprintf("nettune watch: %u interval%s, %.1f s; intent: %s", count,
				     count == 1 ? "" : "s", rep->seconds,
				     in->against ? in->against : "none (pass a PROFILE)");
	for (n = 0; n < rep->nf; n++)
		notes[n] = nt_xasprintf("[%s] %s: %s", rep->fv[n].kind, rep->fv[n].object,
					rep->fv[n].figure);
	map.title = title;
	map.notes = (const char *const *)notes;
	map.nnotes = rep->nf;
	if (svg) {
		struct nt_buf sb = {0};
		int w;

		nt_map_svg(&map, &sb);
		w = write_file(svg, &sb);
		nt_buf_free(&sb);
		if (w)
			fprintf(stderr, "nettune watch: error: cannot write %s: %s\n", nt_esc(svg),
				strerror(-w));
	}
	if (json) {
		nt_watch_print_json(rep, f, in->against, out);
	} else {
		nt_map_text(&map, nt_g.color, out);
		nt_buf_putc(out, '\n');
		nt_watch_print_text(rep, out);
	}
	for (n = 0; n < rep->nf; n++)
		free(notes[n]);
	free(notes);
	free(title);
	free(map.cpu_rate);
	nt_map_free_queues(&map);
}

static int interval_opt(const char *opt, const char *val, void *to)
{
	char *end;
	double v = strtod(val, &end);

	(void)opt;
	if (*end || !(v >= 0.01 && v <= 3600))
		return -1;
	*(double *)to = v;
	return 0;
}

static int count_opt(const char *opt, const char *val, void *to)
{
	char *end;
	unsigned long v = strtoul(val, &end, 10);

	(void)opt;
	if (*end || !v || v > 100000)
		return -1;
	*(unsigned long *)to = v;
	return 0;
}

/* PROFILE first (when it looks like one), then interfaces */
struct watch_args {
	const char *profile;
	const char **ifaces;
	size_t n;
};

static int watch_arg(const char *a, void *ctx)
{
	struct watch_args *w = ctx;

	if (!w->profile && !w->n && is_profile_arg(a))
		w->profile = a;
	else
		w->ifaces[w->n++] = a;
	return NT_OPTS_GO;
}

/* One run of nettune watch. */
struct watch {
	const char *svg;
	const char **ifaces;		/* named on the command line */
	size_t nifaces;
	double interval, t0;
	unsigned long count;
	bool json, live;
	char **dirs;			/* --root DIR/sample-N */
	unsigned nsamples;
	struct intent in;
	const struct nt_facts *f;
	struct nt_cpuset reserved;
	const char **watch;		/* the interfaces watched */
	size_t nwatch;
	struct nt_watch_sample a, b;	/* the first sample and the latest */
};

static int parse_watch(struct watch *w, const char **profile, int argc, char **argv)
{
	struct watch_args args = {NULL, w->ifaces, 0};
	const struct nt_opt rows[] = {
		{"--count", NULL, NT_OPT_VALUE, &w->count, count_opt, NULL,
		 "--count takes 1..100000 intervals"},
		{"--interval", NULL, NT_OPT_VALUE, &w->interval, interval_opt, NULL,
		 "--interval takes 0.01..3600 seconds"},
		{"--json", NULL, 0, &w->json},
		{"--svg", NULL, NT_OPT_VALUE, &w->svg},
		{NULL},
	};
	const struct nt_opts spec = {"watch", rows, help, NT_DD_SKIP, false, watch_arg, &args};
	int rc = nt_opts_parse(&spec, argc, argv);

	*profile = args.profile;
	w->nifaces = args.n;
	return rc;
}

/* --root DIR with DIR/sample-N: successive fixture samples */
static int find_samples(struct watch *w, const char *root)
{
	char *sdir = NULL;

	while (sample_dir(root, w->nsamples, &sdir)) {
		w->dirs = nt_xrealloc(w->dirs, (w->nsamples + 1) * sizeof(char *));
		w->dirs[w->nsamples++] = sdir;
	}
	if (w->nsamples == 1) {
		fprintf(stderr, "nettune watch: error: %s has only sample-0; successive samples "
			"need sample-1 too\n", nt_esc(root));
		return -1;
	}
	if (w->nsamples) {
		if (!w->count || w->count > w->nsamples - 1)
			w->count = w->nsamples - 1;
		nt_sys_root = w->dirs[0];
	}
	return 0;
}

/* The facts, the reserved CPUs and the interfaces to watch: the ones
 * named, else the intent's. */
static int choose_ifaces(struct watch *w)
{
	struct intent *in = &w->in;

	w->f = in->compiled ? &in->c.facts : &in->facts;
	nt_cpuset_clear(&w->reserved);
	if (in->compiled && in->c.l.p->host && in->c.l.p->host->reserved_cpus) {
		const char *err;

		nt_cpuset_parse(in->c.l.p->host->reserved_cpus, &w->reserved, &err);
	}
	if (w->nifaces) {
		for (size_t k = 0; k < w->nifaces; k++)
			if (!nt_facts_iface(w->f, w->ifaces[k])) {
				fprintf(stderr, "nettune watch: error: no interface %s\n",
					nt_esc(w->ifaces[k]));
				return -1;
			}
		w->watch = nt_xcalloc(w->nifaces + 1, sizeof(char *));
		memcpy(w->watch, w->ifaces, w->nifaces * sizeof(char *));
		w->nwatch = w->nifaces;
	} else {
		w->nwatch = pick_ifaces(in, w->f, &w->watch);
	}
	if (!w->nwatch) {
		fprintf(stderr, "nettune watch: error: no interface with queue IRQs to watch; name one\n");
		return -1;
	}
	return 0;
}

/* What the samples are judged against. */
static void intent_of(const struct watch *w, struct nt_watch_intent *wi)
{
	wi->desired = w->in.compiled ? &w->in.c.desired : w->in.journal.n ? &w->in.journal : NULL;
	wi->restore = w->in.restore;
}

/* Like top: the map after interval k, redrawn on the terminal. */
static void redraw(const struct watch *w, unsigned k)
{
	struct nt_watch_report so_far = {0};
	struct nt_watch_intent wi;
	struct nt_buf screen = {0};
	char *progress = nt_xasprintf("interval %u of %lu, %.1f s elapsed (Ctrl-C stops)", k,
				      w->count, now_s() - w->t0);

	intent_of(w, &wi);
	nt_watch_judge(w->f, &wi, &w->a, &w->b, now_s() - w->t0, k, &so_far);
	nt_buf_puts(&screen, "\033[H\033[2J");
	render(&so_far, w->f, &w->reserved, &w->in, k, false, NULL, progress, &screen);
	nt_buf_write(&screen, stdout);
	fflush(stdout);
	nt_buf_free(&screen);
	nt_watch_report_free(&so_far);
	free(progress);
}

/* The first sample, then one per interval (or per fixture sample). */
static int sample_all(struct watch *w)
{
	w->t0 = now_s();
	if (nt_watch_sample(w->f, w->watch, w->nwatch, &w->a)) {
		fprintf(stderr, "nettune watch: error: cannot read %s/proc/interrupts: %s\n",
			nt_esc(nt_sys_root), strerror(errno));
		return -1;
	}
	for (unsigned k = 1; k <= w->count; k++) {
		if (w->nsamples) {
			nt_sys_root = w->dirs[k];
		} else {
			struct timespec ts = {(time_t)w->interval,
					      (long)((w->interval - (double)(time_t)w->interval) * 1e9)};

			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
		nt_watch_sample_free(&w->b);
		if (nt_watch_sample(w->f, w->watch, w->nwatch, &w->b)) {
			fprintf(stderr, "nettune watch: error: cannot read %s/proc/interrupts\n",
				nt_esc(nt_sys_root));
			return -1;
		}
		if (w->live && k < w->count)
			redraw(w, k);
	}
	if (w->live)
		fputs("\033[H\033[2J", stdout);
	return 0;
}

/* The judgement of the whole window, printed; 0 nothing found, 2 findings. */
static int judge(struct watch *w)
{
	struct nt_watch_report rep = {0};
	struct nt_watch_intent wi;
	struct nt_buf out = {0};
	const struct nt_watch_sample *a = &w->a, *b = &w->b;
	double secs = w->nsamples ? (a->t_known && b->t_known && b->t > a->t ? b->t - a->t :
				     w->interval * (double)w->count) :
		      *nt_sys_root ? w->interval * (double)w->count : now_s() - w->t0;
	int rc;

	intent_of(w, &wi);
	nt_watch_judge(w->f, &wi, a, b, secs, (unsigned)w->count, &rep);
	render(&rep, w->f, &w->reserved, &w->in, (unsigned)w->count, w->json, w->svg, NULL, &out);
	nt_buf_write(&out, stdout);
	rc = rep.nf ? NT_EXIT_CHANGES : NT_EXIT_OK;
	nt_buf_free(&out);
	nt_watch_report_free(&rep);
	return rc;
}

int cmd_watch(int argc, char **argv)
{
	struct watch w = {0};
	const char *profile = NULL;
	const char *root = *nt_sys_root ? nt_sys_root : NULL;
	int rc;

	w.interval = 1.0;
	w.ifaces = nt_xcalloc((size_t)argc + 1, sizeof(char *));
	rc = parse_watch(&w, &profile, argc, argv);
	if (rc != NT_OPTS_GO) {
		free(w.ifaces);
		return rc;
	}
	rc = NT_EXIT_FAIL;
	if (root && find_samples(&w, root))
		goto out;
	if (!w.count)
		w.count = 1;
	if (load_intent(profile, w.ifaces, w.nifaces, &w.in) || choose_ifaces(&w))
		goto out;
	/* on a terminal a window of several intervals is redrawn as it goes;
	 * a pipe gets the final judgement only */
	w.live = !w.json && !w.nsamples && w.count > 1 && isatty(STDOUT_FILENO) && nt_g.color;
	if (sample_all(&w))
		goto out;
	rc = judge(&w);
out:
	nt_sys_root = root ? root : "";
	nt_watch_sample_free(&w.a);
	nt_watch_sample_free(&w.b);
	intent_free(&w.in);
	for (unsigned k = 0; k < w.nsamples; k++)
		free(w.dirs[k]);
	free(w.dirs);
	free(w.watch);
	free(w.ifaces);
	return rc;
}
