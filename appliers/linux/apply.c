/* SPDX-License-Identifier: MIT */
/* The steps of a Linux apply, generic over the kind rows: previous values
 * read, each write made through its row (batched by the row's wire
 * family), read back, and restored in reverse.  The transaction around
 * them is txn.c. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/formats/planprint.h"
#include "apply.h"
#include "devcache.h"
#include "irqmap.h"
#include "journal.h"
#include "link.h"
#include "nlio.h"
#include "statedir.h"
#include "sysio.h"

#define interrupted nt_interrupted

/* "eth0 mtu", "sysctl net.core.x" */
static char *label_of(const struct nt_jentry *e)
{
	return nt_setting_label(e->kind, e->object, e->arg);
}

static bool verify(struct nt_lctx *x, const struct nt_jentry *e, struct nt_value *seen)
{
	int r = nt_linux_read(x, e->kind, e->object, e->arg, seen);

	if (r)
		return false;
	return nt_value_equal(seen, &e->after);
}

void nt_apply_say(const struct nt_apply_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o && o->quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

#define say nt_apply_say

/* say() of the pieces of a line, NULL-terminated, without printf (a line
 * per step of an apply). */
static void say_line(const struct nt_apply_opts *o, const char *const *part)
{
	if (o && o->quiet)
		return;
	for (; *part; part++)
		fputs(*part, stdout);
	fflush(stdout);
}

/* Test hooks: VAR=k NETTUNE_SIGNAL=N raises signal N right after step k,
 * as if an operator or the OOM killer struck then: NETTUNE_SIGNAL_STEP
 * counts the writes of an apply, NETTUNE_ROLLBACK_SIGNAL_STEP the restores
 * of a rollback. */
static void fault_raise(const char *var, size_t step)
{
#ifdef NT_FAULT_INJECTION
	const char *k = getenv(var), *sig = getenv("NETTUNE_SIGNAL");

	if (k && sig && (size_t)atoi(k) == step)
		raise(atoi(sig));
#else
	(void)var;
	(void)step;
#endif
}

static void fault_rollback_signal(size_t step)
{
	fault_raise("NETTUNE_ROLLBACK_SIGNAL_STEP", step);
}

void nt_apply_failure(struct nt_journal *j, const char *fmt, ...)
{
	char m[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	fprintf(stderr, "nettune apply: %s\n", m);
	nt_journal_set_error(j, strncmp(m, "error: ", 7) ? m : m + 7);
}

#define failure nt_apply_failure

/* The words for a failed read of e (into x->err). */
static void read_failed(struct nt_lctx *x, int r)
{
	char why[256];

	if (nt_devcache_transient())
		snprintf(why, sizeof(why), "%s, %d tries", strerror(-r), NT_ETHNL_READ_TRIES);
	else
		snprintf(why, sizeof(why), "%s", r == -ENOENT ? "it is not there" : strerror(-r));
	snprintf(x->err, sizeof(x->err), "cannot read it back: %s", why);
}

/* Writes e's previous value back unless it is already there, and reads it
 * back; 0 or -errno with the reason in x->err (-EIO: accepted but reads
 * back otherwise). */
static int restore_one(struct nt_lctx *x, struct nt_jentry *e)
{
	struct nt_value cur, seen;
	int r;

	x->err[0] = '\0';
	if (!e->had) {
		/* it was not there before (the kernel said so): as before while
		 * it still is not; nothing can remove it again */
		r = nt_linux_read(x, e->kind, e->object, e->arg, &cur);
		if (r == -ENOENT)
			return 0;
		if (r) {
			read_failed(x, r);
			return r;
		}
		nt_value_free(&cur);
		snprintf(x->err, sizeof(x->err), "it did not exist before and does now");
		return -EEXIST;
	}
	if (!nt_linux_read(x, e->kind, e->object, e->arg, &cur)) {
		bool same = nt_value_equal(&cur, &e->before);

		nt_value_free(&cur);
		if (same)
			return 0;
	}
	x->err[0] = '\0';
	r = nt_linux_write(x, e->kind, e->object, e->arg, &e->before);
	if (r)
		return r;
	r = nt_linux_read(x, e->kind, e->object, e->arg, &seen);
	if (r) {
		read_failed(x, r);
		return r;
	}
	if (!nt_value_equal(&seen, &e->before)) {
		struct nt_buf v = {0};

		nt_value_format(&seen, &v, false);
		snprintf(x->err, sizeof(x->err), "accepted, but it reads %s", v.p);
		nt_buf_free(&v);
		r = -EIO;
	}
	nt_value_free(&seen);
	return r;
}

/* "  restored eth0 mtu = 1500" and how */
static void say_restored(const struct nt_jentry *e, const char *how)
{
	char *attr = label_of(e);
	struct nt_buf v = {0};

	nt_value_format(&e->before, &v, false);
	printf("  restored %s = %s%s\n", attr, v.p, how);
	nt_buf_free(&v);
	free(attr);
}

/* The second pass over what failed the first, once everything else is
 * back; why[i] gets the reason of each that fails again. */
static void restore_again(struct nt_lctx *x, struct nt_jentry *e, size_t upto, int *err,
			  char **why, bool verbose)
{
	for (size_t i = upto; i-- > 0;) {
		if (!err[i])
			continue;
		err[i] = restore_one(x, &e[i]);
		if (!err[i] && verbose)
			say_restored(&e[i], " (after the settings it depends on)");
		if (err[i] && !*x->err)
			snprintf(x->err, sizeof(x->err), "%s", strerror(-err[i]));
		if (err[i])
			why[i] = nt_xstrdup(x->err);
	}
}

/* Whether e reads as before the apply (from the current dumps); 0, or
 * -errno with the reason in x->err. */
static int reads_as_before(struct nt_lctx *x, const struct nt_jentry *e)
{
	struct nt_value seen;
	int r = nt_linux_read(x, e->kind, e->object, e->arg, &seen);

	if (!e->had) {
		if (r == -ENOENT)
			return 0;	/* still not there, as before */
		if (!r) {
			nt_value_free(&seen);
			snprintf(x->err, sizeof(x->err), "it did not exist before and does now");
			return -EEXIST;
		}
		read_failed(x, r);
		return r;
	}
	if (r) {
		read_failed(x, r);
		return r;
	}
	if (!nt_value_equal(&seen, &e->before)) {
		struct nt_buf v = {0};

		nt_value_format(&seen, &v, false);
		snprintf(x->err, sizeof(x->err), "it reads %s after the rollback (another "
			 "restore changed it)", v.p);
		nt_buf_free(&v);
		r = -EIO;
	}
	nt_value_free(&seen);
	return r;
}

/* "  rollback FAILED: ..." for each entry the journal lists as not restored */
static size_t say_unrestored(const struct nt_journal *j)
{
	for (size_t i = 0; i < j->nunrestored; i++) {
		const struct nt_jentry *u = &j->e[j->unrestored[i].entry];
		char *attr = label_of(u);
		struct nt_buf v = {0};

		if (u->had)
			nt_value_format(&u->before, &v, false);
		fprintf(stderr, "  rollback FAILED: %s back to %s: %s\n", attr, u->had ? v.p : "?",
			j->unrestored[i].reason);
		nt_buf_free(&v);
		free(attr);
	}
	return j->nunrestored;
}

size_t nt_apply_restore(struct nt_lctx *x, struct nt_journal *j, size_t upto, bool verbose)
{
	struct nt_jentry *e = j->e;
	size_t i, failed;
	int *err = nt_xcalloc(upto + 1, sizeof(*err));
	char **why = nt_xcalloc(upto + 1, sizeof(*why));	/* a failed restore's reason */

	nt_journal_clear_unrestored(j);
	for (i = upto; i-- > 0;) {
		err[i] = restore_one(x, &e[i]);
		fault_rollback_signal(upto - i);
		if (!err[i] && verbose)
			say_restored(&e[i], "");
	}
	restore_again(x, e, upto, err, why, verbose);
	/* the final check, from fresh dumps, of every entry: a restore that
	 * failed may have been made by a later one (a feature its parent
	 * turns back on), and one that worked may have been undone */
	nt_devcache_stale_all();
	nt_irqmap_stale();
	for (i = 0; i < upto; i++)
		if (reads_as_before(x, &e[i]))
			nt_journal_add_unrestored(j, i, why[i] ? why[i] : x->err);
	for (i = 0; i < upto; i++)
		free(why[i]);
	free(why);
	failed = say_unrestored(j);
	free(err);
	return failed;
}

static void progress(const struct nt_apply_opts *o, size_t k, size_t n, long long t0, char *out,
		     size_t len);

/* Kinds read from the device cache: their read-back waits until every
 * write is made, then costs one dump per family. */
static bool deferred_check(enum nt_kind_id k)
{
	return k == NT_K_MTU || k == NT_K_FEATURE || k == NT_K_CHANNELS || k == NT_K_RING ||
	       k == NT_K_COALESCE || k == NT_K_COALESCE_ADAPTIVE;
}

static bool changes(const struct nt_jentry *e)
{
	return !(e->had && nt_value_equal(&e->before, &e->after));
}

/*
 * A feature request also sets the device's features that read as the
 * profile wants but are requested the other way (ethtool -K DEV tso on sg
 * off: TSO reads off, since it needs SG, but stays wanted on): turning SG
 * back on would bring TSO back.  Setting it in the same request makes the
 * request what the profile says.  Only features the device may change
 * whose requested bit the observation read (not from a snapshot).  These
 * are not journaled (they read the same before and after), so a rollback
 * leaves them requested as the profile says.
 */
static size_t add_wanted_features(struct nt_lctx *x, const struct nt_state *desired,
				  const char *dev, const char **args,
				  const struct nt_value **vals, size_t k)
{
	const struct nt_iface_facts *f = x->facts ? nt_facts_iface(x->facts, dev) : NULL;
	size_t n = k;

	for (size_t i = 0; f && desired && i < f->nfeatures; i++) {
		const struct nt_feature_fact *ff = &f->features[i];
		const struct nt_setting *s;
		size_t a;

		if (ff->fixed || !ff->requested ||
		    !(s = nt_state_get(desired, NT_K_FEATURE, dev, ff->name)) ||
		    (s->flags & NT_SF_CANNOT_CHANGE) || (ff->requested == 2) == s->val.b)
			continue;
		for (a = 0; a < k && strcmp(args[a], ff->name); a++)
			;
		if (a < k)
			continue;	/* the plan changes it */
		args[n] = s->arg;
		vals[n++] = &s->val;
	}
	return n;
}

/*
 * One request per (device, message family) for the rows that batch
 * (nt_linux_row.batch): every setting of the entry's kind and device the
 * plan changes goes in one request; each entry is still journaled,
 * verified and rolled back on its own.  (The link attributes of a device,
 * MTU and txqueuelen, go together the same way through nt_link_set.)
 * Marks the entries written; *last is the highest index written.
 */
static int write_batch(struct nt_apply_run *run, const struct nt_linux_row *row,
		       const struct nt_jentry *e, bool *written, size_t i, size_t n, size_t *last)
{
	struct nt_lctx *x = &run->x;
	const struct nt_iface_facts *f = x->facts ? nt_facts_iface(x->facts, e[i].object) : NULL;
	size_t room = n - i + 1 + (f && e[i].kind == NT_K_FEATURE ? f->nfeatures : 0);
	const char **args = nt_xcalloc(room, sizeof(*args));
	const struct nt_value **vals = nt_xcalloc(room, sizeof(*vals));
	size_t j, k = 0;
	int r;

	*last = i;
	for (j = i; j < n; j++) {
		if (written[j] || e[j].kind != e[i].kind || strcmp(e[j].object, e[i].object))
			continue;
		written[j] = true;
		*last = j;
		if (!changes(&e[j]))
			continue;
		args[k] = e[j].arg;
		vals[k++] = &e[j].after;
	}
	if (k && e[i].kind == NT_K_FEATURE)
		k = add_wanted_features(x, run->desired, e[i].object, args, vals, k);
	r = row->batch(x, e[i].object, args, vals, k);
	free(args);
	free(vals);
	return r;
}

/* Reads e back; reports it changed, or accepted but not effective (1). */
static int check_step(struct nt_lctx *x, const struct nt_apply_opts *o, struct nt_journal *j,
		      size_t i, size_t n, long long t0)
{
	const struct nt_jentry *e = &j->e[i];
	struct nt_value seen = {0};
	struct nt_buf from = {0}, to = {0}, got = {0};
	char *attr = label_of(e), stamp[48];
	int rc = 0;

	if (e->had)
		nt_value_format(&e->before, &from, false);
	else
		nt_buf_puts(&from, "(none)");
	nt_value_format(&e->after, &to, false);
	if (!verify(x, e, &seen)) {
		if (seen.t == e->after.t && (seen.s || seen.cpus || seen.bytes || seen.list ||
					     e->after.t == NT_V_BOOL || e->after.t == NT_V_U32))
			nt_value_format(&seen, &got, false);
		failure(j, "error: %s: accepted but not effective: asked %s, "
			"the kernel reports %s%s%s", attr, to.p,
			got.p ? got.p : "nothing",
			e->kind == NT_K_FEATURE ? " (fixed, or dropped by a dependency)" : "",
			e->kind == NT_K_RING ? " (the driver rounded it)" : "");
		rc = 1;
	} else {
		progress(o, i + 1, n, t0, stamp, sizeof(stamp));
		say_line(o, (const char *const[]){"  ", stamp, " changed  ", attr, ": ", from.p,
			     " -> ", to.p, "\n", NULL});
	}
	if (seen.t || seen.s || seen.cpus || seen.bytes || seen.list)
		nt_value_free(&seen);
	free(attr);
	nt_buf_free(&from);
	nt_buf_free(&to);
	nt_buf_free(&got);
	return rc;
}

static int fault_step(void)
{
#ifdef NT_FAULT_INJECTION
	const char *s = getenv("NETTUNE_FAIL_STEP");

	return s ? atoi(s) : 0;
#else
	return 0;
#endif
}

static void fault_signal(size_t step)
{
	fault_raise("NETTUNE_SIGNAL_STEP", step);
}

void nt_journal_observe_req(const struct nt_journal *j, struct nt_observe_req *req,
			    bool skip_rows[NT_K__COUNT])
{
	bool rings = false, coalesce = false;

	memset(req, 0, sizeof(*req));
	req->irqbalance = true;
	for (size_t k = 0; k < NT_K__COUNT; k++)
		skip_rows[k] = true;
	for (size_t i = 0; i < j->n; i++) {
		if ((unsigned)j->e[i].kind < NT_K__COUNT)
			skip_rows[j->e[i].kind] = false;
		rings |= j->e[i].kind == NT_K_RING;
		coalesce |= j->e[i].kind == NT_K_COALESCE || j->e[i].kind == NT_K_COALESCE_ADAPTIVE;
	}
	req->skip_rows = skip_rows;
	req->skip = (rings ? 0 : NT_OBS_RINGS) | (coalesce ? 0 : NT_OBS_COALESCE);
}

size_t nt_linux_changed_since(struct nt_journal *j, struct nt_buf *out)
{
	struct nt_observe_req req;
	bool skip_rows[NT_K__COUNT];
	struct nt_facts f;
	struct nt_state st;
	struct nt_diags d = {0};
	struct nt_lctx x;
	size_t changed = 0, i, k;

	nt_journal_observe_req(j, &req, skip_rows);
	nt_devcache_stale_all();
	nt_irqmap_stale();
	nt_linux_observe(&req, &f, &st, &d);
	nt_lctx_open(&x, &f);
	for (i = 0; i < j->n; i++) {
		const struct nt_jentry *e = &j->e[i];
		struct nt_buf a = {0}, now = {0};
		struct nt_value v;
		char *attr;

		for (k = 0; k < j->nunrestored && j->unrestored[k].entry != i; k++)
			;
		if (k < j->nunrestored)
			continue;	/* the last rollback left it as it could */
		if (nt_linux_read(&x, e->kind, e->object, e->arg, &v))
			continue;	/* not there, or unreadable: the rollback says so */
		if (nt_value_equal(&v, &e->after) || (e->had && nt_value_equal(&v, &e->before))) {
			nt_value_free(&v);
			continue;
		}
		attr = label_of(e);
		nt_value_format(&e->after, &a, false);
		nt_value_format(&v, &now, false);
		nt_buf_printf(out, "  %s: applied %s, reads %s\n", attr, a.p ? a.p : "\"\"",
			      now.p ? now.p : "\"\"");
		free(attr);
		nt_buf_free(&a);
		nt_buf_free(&now);
		nt_value_free(&v);
		changed++;
	}
	nt_lctx_close(&x);
	nt_state_free(&st);
	nt_facts_free(&f);
	nt_diags_free(&d);
	return changed;
}

/* "[ 3/12 +0.015s]": the step and the time since the apply started */
/* The decimal digits of v in out (at least 21 bytes), not terminated; the length. */
static size_t utoa_z(char *out, size_t v)
{
	char t[24];
	size_t n = 0, k = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		out[k++] = t[--n];
	return k;
}

static void progress(const struct nt_apply_opts *o, size_t k, size_t n, long long t0, char *out,
		     size_t len)
{
	/* "[%*zu/%zu +%.3fs]" (width of n) without printf: one per step */
	char nb[24], kb[24], tb[32];
	size_t nl, kl, tl = 0, pos = 0;
	long long ms = (nt_now_ns() - t0 + 500000) / 1000000, sec;
	int fr;

	(void)o;
	nl = utoa_z(nb, n);
	kl = utoa_z(kb, k);
	if (ms < 0)
		ms = 0;
	sec = ms / 1000;
	fr = (int)(ms % 1000);
	tl = utoa_z(tb, (size_t)sec);
	tb[tl++] = '.';
	tb[tl++] = (char)('0' + fr / 100);
	tb[tl++] = (char)('0' + fr / 10 % 10);
	tb[tl++] = (char)('0' + fr % 10);
	if (len < nl * 2 + tl + 8) {
		out[0] = '\0';
		return;
	}
	out[pos++] = '[';
	while (kl + (pos - 1) < nl)
		out[pos++] = ' ';
	memcpy(out + pos, kb, kl);
	pos += kl;
	out[pos++] = '/';
	memcpy(out + pos, nb, nl);
	pos += nl;
	out[pos++] = ' ';
	out[pos++] = '+';
	memcpy(out + pos, tb, tl);
	pos += tl;
	out[pos++] = 's';
	out[pos++] = ']';
	out[pos] = '\0';
}

int nt_apply_read_before(struct nt_lctx *x, struct nt_journal *j)
{
	struct nt_jentry *e = j->e;
	size_t unread = 0;

	for (size_t i = 0; i < j->n; i++) {
		struct nt_value v;
		int r = nt_linux_read(x, e[i].kind, e[i].object, e[i].arg, &v);
		char *attr;

		if (!r) {
			e[i].had = true;
			e[i].before = v;
			continue;
		}
		if (r == -ENOENT)
			continue;	/* known: not there (the kernel refuses the write) */
		/* nothing is written whose previous value is not known: it
		 * could not be restored */
		attr = label_of(&e[i]);
		read_failed(x, r);
		fprintf(stderr, "nettune apply: error: %s: cannot read the previous value (%s)\n",
			attr, x->err + strlen("cannot read it back: "));
		free(attr);
		unread++;
	}
	if (unread && interrupted) {
		fprintf(stderr, "nettune apply: interrupted (signal %d) while reading the previous "
			"values; nothing was changed\n", (int)interrupted);
		return 1;
	}
	if (unread) {
		fprintf(stderr, "nettune apply: error: %zu previous value%s could not be read; "
			"nothing was changed\n", unread, unread == 1 ? "" : "s");
		return 1;
	}
	return 0;
}

/* Writes entry i through its row: alone, or with its device's other
 * settings of the row's wire family (once, for the first of them). */
static int write_through(struct nt_apply_run *r, size_t i, bool *written)
{
	struct nt_jentry *e = r->j->e;
	const struct nt_linux_row *row = nt_linux_row(e[i].kind);

	r->x.err[0] = '\0';
	if (written[i])
		return 0;	/* written with its device's other settings of its family */
	if (row && row->batch && r->x.nl) {
		size_t last;
		int w = write_batch(r, row, e, written, i, r->j->n, &last);

		if (last + 1 > r->batch_end)
			r->batch_end = last + 1;
		return w;
	}
	written[i] = true;
	return nt_linux_write(&r->x, e[i].kind, e[i].object, e[i].arg, &e[i].after);
}

/* Step i: its line, the write, and its read-back (now, or pending[i]: from
 * one dump per family once every write is made).  0, or 1 recorded. */
static int write_step(struct nt_apply_run *r, size_t i, bool *written, bool *pending)
{
	const struct nt_jentry *e = &r->j->e[i];
	const struct nt_apply_opts *o = r->o;
	size_t n = r->j->n;
	char *attr = label_of(e), stamp[48];
	struct nt_buf from = {0}, to = {0};
	int w, rc = 0;

	if (e->had)
		nt_value_format(&e->before, &from, false);
	else
		nt_buf_puts(&from, "(none)");
	nt_value_format(&e->after, &to, false);
	progress(o, i + 1, n, r->t0, stamp, sizeof(stamp));
	if (!changes(e)) {
		say(o, "  %s ok       %s = %s\n", stamp, attr, to.p);
		goto out;
	}
	if (e->disruptive)
		say(o, "  %s next is disruptive: %s %s -> %s (the link may go down briefly)\n",
		    stamp, attr, from.p, to.p);
	w = write_through(r, i, written);
	fault_signal(i + 1);
	if (!w && fault_step() == (int)i + 1) {
		w = -EIO;
		snprintf(r->x.err, sizeof(r->x.err), "injected failure at step %zu", i + 1);
	}
	if (w == -EINTR && interrupted) {
		failure(r->j, "interrupted by signal %d while %s was written (step %zu of %zu)",
			(int)interrupted, attr, i + 1, n);
		rc = 1;
	} else if (w) {
		failure(r->j, "error: %s: %s -> %s %s: %s", attr, from.p, to.p,
			(nt_ethnl_transient(r->x.nl) || nt_link_transient()) ?
			"failed (its outcome is read back by the rollback)" : "refused",
			*r->x.err ? r->x.err : strerror(-w));
		rc = 1;
	} else if (deferred_check(e->kind)) {
		pending[i] = true;
	} else {
		rc = check_step(&r->x, o, r->j, i, n, r->t0);
	}
out:
	free(attr);
	nt_buf_free(&from);
	nt_buf_free(&to);
	return rc;
}

/* Converged means every desired setting reads back as desired: a write
 * can silently change another setting (netdev_fix_features drops TSO when
 * SG goes off, for example). */
static int check_desired(struct nt_apply_run *r, const struct nt_state *desired)
{
	const struct nt_apply_opts *o = r->o;
	int rc = 0;

	for (size_t i = 0; !rc && desired && i < desired->n; i++) {
		const struct nt_setting *s = &desired->v[i];
		struct nt_value seen;

		if ((o->only && strcmp(s->object, o->only)) ||
		    (nt_kinds[s->kind].flags & NT_KF_WINDOWS))
			continue;
		if (nt_linux_read(&r->x, s->kind, s->object, s->arg, &seen))
			continue;
		if (!nt_value_equal(&seen, &s->val)) {
			struct nt_buf want = {0}, got = {0};
			char *attr = nt_setting_attr(s);

			nt_value_format(&s->val, &want, false);
			nt_value_format(&seen, &got, false);
			failure(r->j, "error: %s %s: accepted but not effective: after the changes it "
				"reads %s instead of %s (the kernel changed it as a side effect of another "
				"setting)", s->object, attr, got.p, want.p);
			nt_buf_free(&want);
			nt_buf_free(&got);
			free(attr);
			rc = 1;
		}
		nt_value_free(&seen);
	}
	return rc;
}

/* A signal after the last write: roll back, without a read-back that the
 * signal would cut short and misreport. */
static int signalled_after(struct nt_apply_run *r)
{
	if (!interrupted)
		return 0;
	failure(r->j, "interrupted by signal %d after the last step", (int)interrupted);
	r->done = r->j->n;
	return 1;
}

int nt_apply_steps(struct nt_apply_run *r, const struct nt_state *desired)
{
	size_t n = r->j->n, i;
	bool *written = nt_xcalloc(n + 1, sizeof(*written));
	bool *pending = nt_xcalloc(n + 1, sizeof(*pending));
	int rc = 0;

	r->desired = desired;
	for (i = 0; !rc && i < n; i++) {
		if (interrupted) {
			failure(r->j, "interrupted by signal %d after %zu of %zu steps",
				(int)interrupted, i, n);
			rc = 1;
			break;
		}
		r->done = i + 1;
		rc = write_step(r, i, written, pending);
	}
	if (!rc)
		rc = signalled_after(r);
	/* the read-back of the netlink settings, and the check that every
	 * desired setting reads as desired: after all writes, from one fresh
	 * dump per message family */
	if (!rc)
		nt_devcache_stale_all();
	for (i = 0; !rc && i < n; i++)
		if (pending[i])
			rc = check_step(&r->x, r->o, r->j, i, n, r->t0);
	if (!rc)
		rc = check_desired(r, desired);
	if (!rc)
		rc = signalled_after(r);
	free(written);
	free(pending);
	return rc;
}
