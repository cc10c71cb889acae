/* SPDX-License-Identifier: MIT */
/* Fuzz target: profile -> validate -> lower -> emit sh, then a check that no
 * input byte reached the script outside a single-quoted word or a comment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../appliers/emit.h"
#include "../compiler/model/caps.h"
#include "../compiler/language/load.h"
#include "../compiler/passes/lower.h"
#include "../compiler/passes/plan.h"
#include "../compiler/formats/snapshot.h"
#include "../compiler/passes/validate.h"
#include "../pipeline/emit_profile.h"
#include "config.h"
#include "fuzz.h"

/*
 * An input may start with a line "#!PATH" (a YAML comment, so the profile
 * still loads): PATH, with \n \r \t \\ \xHH decoded, stands for the profile
 * path, the --state path and the host name, none of which the validator
 * checks on this path; they reach only header comments and NT_HOST='...'.
 * Each input is also read as lines (after the #! line) that fill the names
 * and values of a fixed valid profile (fields_profile), so that most inputs
 * reach the emitter, not only the few mutated YAML files that validate.
 * NT_FUZZ_DEBUG=1 prints why an input stopped short of the emitter.
 *
 * The check: the script is reduced to a skeleton (single-quoted words and
 * backslash escapes -> Q, comments -> #, comment-only lines dropped); the
 * skeleton must be the template's own skeleton, taken at start-up from an
 * example profile emitted with every kind and helper (sh_all_kinds), less
 * whole units (a function, a case of nt_get or nt_put, a NAME=... line)
 * and except for the steps of nt_settings (each exactly
 * "nt_step ROW Q Q Q || return 1", one per desired setting, or
 * "nt_group Q Q Q Q || return 1", one per interface and offload group,
 * whose members the script lists at run time) and the
 * interface list of nt_preflight (Q words only).  The getters and setters
 * left must be those of the steps' kinds (feature for nt_group), no
 * others.  Outside single quotes
 * only printable ASCII, tab and newline may appear.  Every
 * NT_FUZZ_SH_EVERY-th script (default 1024; 0: never) is also parsed by
 * sh -n.
 */

struct host {
	struct nt_facts facts;
	struct nt_state observed;
	bool ok;
};

static struct host linux_host;
static char **ref;		/* skeleton lines of the template */
static size_t nref;
static unsigned long sh_every = 1024, nscripts, nparsed;

static void host_load(struct host *h, const char *path)
{
	struct nt_diags d = {0};

	nt_facts_init(&h->facts);
	h->ok = !nt_snapshot_load(path, &h->facts, &h->observed, &d);
	nt_diags_free(&d);
}

/* Outside single quotes only printable ASCII, tab and newline. */
static void check_byte(char c)
{
	unsigned char u = (unsigned char)c;

	if (u != '\n' && u != '\t' && (u < 0x20 || u >= 0x7f))
		abort();	/* a raw control or non-ASCII byte outside quotes */
}

/* Single-quoted words and backslash escapes -> Q, comments -> #. */
static void skeleton(const char *s, struct nt_buf *o)
{
	bool word_start = true, q = false;

	while (*s) {
		char c = *s;

		if (c == '\'' || c == '\\') {
			if (c == '\'') {
				const char *e = strchr(s + 1, '\'');

				if (!e)
					abort();	/* unterminated single quote */
				s = e + 1;
			} else {
				if (!s[1])
					abort();
				check_byte(s[1]);
				s += 2;
			}
			if (!q)
				nt_buf_putc(o, 'Q');
			q = true;
			word_start = false;
			continue;
		}
		q = false;
		if (c == '"') {
			/* template text only; copied as is, escapes included */
			nt_buf_putc(o, *s++);
			while (*s && *s != '"') {
				if (*s == '\\' && s[1])
					nt_buf_putc(o, *s++);
				check_byte(*s);
				nt_buf_putc(o, *s++);
			}
			if (!*s)
				abort();	/* unterminated double quote */
			nt_buf_putc(o, *s++);
			word_start = false;
			continue;
		}
		if (c == '#' && word_start) {
			while (*s && *s != '\n')
				check_byte(*s++);
			nt_buf_putc(o, '#');
			continue;
		}
		check_byte(c);
		word_start = c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' ||
			     c == '&' || c == '(' || c == ')';
		nt_buf_putc(o, *s++);
	}
}

/* Skeleton lines of a script, comment-only lines dropped. */
static char **lines_of(const char *script, size_t *n)
{
	struct nt_buf b = {0};
	char **v = NULL, *p, *nl;
	size_t cap = 0;

	skeleton(script, &b);
	nt_buf_putc(&b, 0);
	*n = 0;
	for (p = b.p; ; p = nl + 1) {
		const char *t;

		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		for (t = p; *t == ' ' || *t == '\t'; t++)
			;
		if (*t && strcmp(t, "#")) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					abort();
			}
			v[(*n)++] = nt_xstrdup(p);
		}
		if (!nl)
			break;
	}
	free(b.p);
	return v;
}

static void lines_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Kind number of sh function suffix fn. */
static size_t kind_of(const char *fn)
{
	size_t k;

	for (k = 0; k < NT_K__COUNT; k++)
		if (nt_emit_sh_row((enum nt_kind_id)k) && !strcmp(nt_emit_sh_row((enum nt_kind_id)k), fn))
			return k;
	abort();
}

/* The kind of a step line ("feature" for an nt_group), or NULL: not a step. */
static const char *step_kind(const char *l)
{
	enum nt_kind_id k;
	const char *fn;
	size_t len;

	if (!strcmp(l, "\tnt_group Q Q Q Q || return 1"))
		return nt_emit_sh_row(NT_K_FEATURE);
	if (strncmp(l, "\tnt_step ", 9))
		return NULL;
	l += 9;
	for (k = 0; k < NT_K__COUNT; k++) {
		fn = nt_emit_sh_row(k);
		len = fn ? strlen(fn) : 0;
		if (fn && !strncmp(l, fn, len) && !strcmp(l + len, " Q Q Q || return 1"))
			return fn;
	}
	return NULL;
}

/* "\tnt_preflight" followed by " Q" words only (the interface list). */
static bool is_preflight(const char *l)
{
	if (strncmp(l, "\tnt_preflight", 13))
		return false;
	for (l += 13; *l; l += 2)
		if (l[0] != ' ' || l[1] != 'Q')
			return false;
	return true;
}

/* Drops the steps of nt_settings from v; returns how many there were.
 * kinds, when not NULL, gets the kinds of the steps (by enum nt_kind_id). */
static size_t strip_steps(char **v, size_t *n, bool *kinds)
{
	size_t i, k = 0, steps = 0;
	bool in = false;

	for (i = 0; i < *n; i++) {
		if (in && !strcmp(v[i], "}"))
			in = false;
		if (in) {
			const char *fn = step_kind(v[i]);

			if (fn)
				steps++;
			else if (strcmp(v[i], "\t:"))
				abort();	/* not a step in nt_settings */
			if (fn && kinds)
				kinds[kind_of(fn)] = true;
			free(v[i]);
			continue;
		}
		if (!strcmp(v[i], "nt_settings() {"))
			in = true;
		v[k++] = v[i];
	}
	*n = k;
	return steps;
}

/* Steps the script should have: one per setting, but one per interface
 * and offload group for the features of a group (nt_emit_sh_group). */
static size_t nsteps(const struct nt_emit_input *in)
{
	struct nt_state seen = {0};
	size_t i, n = 0;

	for (i = 0; i < in->desired->n; i++) {
		const struct nt_setting *s = &in->desired->v[i];
		const char *g = nt_emit_sh_group(in, s);

		if (g && nt_state_get(&seen, NT_K_FEATURE, s->object, g))
			continue;
		if (g)
			nt_state_set(&seen, NT_K_FEATURE, s->object, g, nt_v_bool(false), s->src);
		n++;
	}
	nt_state_free(&seen);
	return n;
}

/* The end of the unit of the reference script at ref[j] that a script
 * may leave out: a function (through its closing "}"), a case of nt_get
 * or nt_put, or a variable of the template (NAME=...). */
static size_t unit_end(size_t j)
{
	const char *l = ref[j];
	size_t n = strspn(l, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	if (n && !strcmp(l + n, "() {")) {
		while (++j < nref && strcmp(ref[j], "}"))
			;
		if (j == nref)
			abort();
		return j + 1;
	}
	if ((n && l[n] == '=') || (l[0] == '\t' && (strstr(l, ") nt_get_") || strstr(l, ") nt_put_"))))
		return j + 1;
	abort();	/* a line of the template, not a unit it may leave out */
}

/* The kinds whose function PREFIXfn (nt_get_ or nt_put_) the script defines. */
static void defined_kinds(char **v, size_t n, const char *prefix, bool *kinds)
{
	size_t i, p = strlen(prefix);

	for (i = 0; i < n; i++) {
		size_t len = strlen(v[i]);

		if (!strncmp(v[i], prefix, p) && len > p + 4 && !strcmp(v[i] + len - 4, "() {")) {
			char *fn = nt_xstrdup(v[i] + p);

			fn[len - p - 4] = 0;
			kinds[kind_of(fn)] = true;
			free(fn);
		}
	}
}

static void check_script(const char *script, size_t nsteps)
{
	bool used[NT_K__COUNT] = {0}, gets[NT_K__COUNT] = {0}, puts[NT_K__COUNT] = {0};
	size_t n, i, j;
	char **v = lines_of(script, &n);

	if (strip_steps(v, &n, used) != nsteps)
		abort();	/* lines that are not the template's */
	/* the reference with whole units left out, nothing else */
	for (i = j = 0; j < nref; ) {
		if (i < n && (!strcmp(v[i], ref[j]) || (is_preflight(v[i]) && is_preflight(ref[j])))) {
			i++;
			j++;
		} else {
			j = unit_end(j);
		}
	}
	if (i != n)
		abort();	/* input outside quotes or comments */
	/* the getters and setters of the kinds of its steps, no others */
	defined_kinds(v, n, "nt_get_", gets);
	defined_kinds(v, n, "nt_put_", puts);
	if (memcmp(used, gets, sizeof(used)) || memcmp(used, puts, sizeof(used)))
		abort();
	lines_free(v, n);
}

static void sh_parse(const char *script)
{
	FILE *p;

	if (++nscripts % (sh_every ? sh_every : 1) || !sh_every)
		return;
	p = popen("sh -n", "w");
	if (!p)
		return;
	fputs(script, p);
	if (pclose(p) != 0)
		abort();	/* sh -n refused the script */
	nparsed++;
}

static int emit(const struct nt_loaded *l, const struct nt_capsdb *db, const struct host *h,
		const char *path, bool check_template)
{
	static const struct nt_facts nofacts;
	static const struct nt_state noobs;
	struct nt_state desired = {0};
	struct nt_diags d = {0};
	struct nt_lower L = {0};
	struct nt_plan p = {0};
	struct nt_buf b = {0};
	struct nt_emit_input in = {0};
	struct nt_emit_profile prof;
	int rc = -1;

	L.l = l;
	L.db = db;
	L.facts = h ? &h->facts : &nofacts;
	L.observed = h ? &h->observed : &noobs;
	L.desired = &desired;
	L.d = &d;
	L.hostname = l->p->metadata && l->p->metadata->name ? l->p->metadata->name : "fuzz";
	if (!nt_lower(&L)) {
		struct nt_plan_input pin = {l, &desired, L.observed, L.facts};

		nt_plan_build(&pin, &p);
		in.profile_path = path ? path : "fuzz.yaml";
		in.host = path ? path : L.hostname;
		in.against = h ? (path ? path : "snapshot.json") : NULL;
		in.desired = &desired;
		in.plan = &p;
		in.facts = L.facts;
		nt_emit_profile_of(l, &prof);
		in.prof = &prof;
		in.sh_all_kinds = !check_template;
		if (!nt_emit_sh(&in, &b, &d) && b.p) {
			if (check_template) {
				check_script(b.p, nsteps(&in));
				sh_parse(b.p);
			} else {
				ref = lines_of(b.p, &nref);
				strip_steps(ref, &nref, NULL);
			}
			rc = 0;
		}
		nt_emit_profile_free(&prof);
		nt_plan_free(&p);
	}
	nt_buf_free(&b);
	nt_state_free(&desired);
	nt_diags_free(&d);
	return rc;
}

static int load_and_emit(const char *data, size_t size, const char *path, bool check)
{
	const struct nt_capsdb *db;
	struct nt_diags d = {0};
	struct nt_loaded l;
	struct nt_load_opts o = {0};
	int rc = -1;

	db = nt_capsdb_default(&d);
	nt_diags_free(&d);
	memset(&d, 0, sizeof(d));
	if (nt_load_profile_data("fuzz.yaml", data, size, &o, &l, &d))
		goto out;
	if (nt_validate(&l, db, &d) || l.p->kind != NT_KIND_HOST ||
	    (l.p->target && *l.p->target == NT_TARGET_WINDOWS))
		goto out_loaded;
	rc = emit(&l, db, NULL, path, check);
	if (check && linux_host.ok)
		emit(&l, db, &linux_host, path, check);
out_loaded:
	nt_loaded_free(&l);
out:
	if (check && getenv("NT_FUZZ_DEBUG"))
		nt_diags_print_text(&d, stderr);	/* why an input stopped short */
	nt_diags_free(&d);
	return rc;
}

static char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	struct nt_buf b = {0};
	char chunk[4096];
	size_t k;

	if (!f)
		abort();
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		nt_buf_putn(&b, chunk, k);
	fclose(f);
	*n = b.n;
	return nt_buf_take(&b);
}

/* How many inputs got as far as a script: the figure in fuzz/README.md. */
static void report(void)
{
	fprintf(stderr, "fuzz-emit: %lu scripts checked, %lu parsed by sh -n\n", nscripts, nparsed);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *every = getenv("NT_FUZZ_SH_EVERY");
	size_t n;
	char *y;

	(void)argc;
	(void)argv;
	if (every)
		sh_every = strtoul(every, NULL, 10);
	host_load(&linux_host, NT_SRCDIR "/examples/states/x710-wireguard-gateway.json");
	/* the template: any example's script, steps and interfaces aside */
	y = read_all(NT_SRCDIR "/examples/veth-lab.yaml", &n);
	if (load_and_emit(y, n, NULL, false) || !nref)
		abort();
	free(y);
	if (getenv("NT_FUZZ_REPORT"))
		atexit(report);
	return 0;
}

static int hex(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* "#!PATH\n" at the start: PATH with \n \r \t \\ \xHH decoded, else NULL. */
static char *hostile_path(const uint8_t *data, size_t size)
{
	struct nt_buf b = {0};
	size_t i;

	if (size < 2 || data[0] != '#' || data[1] != '!')
		return NULL;
	for (i = 2; i < size && data[i] != '\n'; i++) {
		char c = (char)data[i];

		if (c == '\\' && i + 1 < size) {
			char e = (char)data[++i];

			if (e == 'n')
				c = '\n';
			else if (e == 'r')
				c = '\r';
			else if (e == 't')
				c = '\t';
			else if (e == 'x' && i + 2 < size && hex(data[i + 1]) >= 0 && hex(data[i + 2]) >= 0) {
				c = (char)(hex(data[i + 1]) * 16 + hex(data[i + 2]));
				i += 2;
			} else
				c = e;
		}
		if (c)
			nt_buf_putc(&b, c);
	}
	return b.p ? nt_buf_take(&b) : nt_xstrdup("");
}

/* A YAML double-quoted scalar: bytes other than printable ASCII as \xHH. */
static void yaml_str(struct nt_buf *b, const uint8_t *p, size_t n)
{
	size_t i;

	nt_buf_putc(b, '"');
	for (i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			nt_buf_putc(b, (char)p[i]);
		else
			nt_buf_printf(b, "\\x%02x", p[i]);
	}
	nt_buf_putc(b, '"');
}

static bool has_ctrl(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] == 0x7f)
			return true;
	return false;
}

/* A line the validator and the emitter take as a Linux interface name. */
static bool ifname_ok(const uint8_t *p, size_t n)
{
	char name[17];

	if (!n || n > 16 || p[0] == '-' || memchr(p, 0, n))
		return false;
	memcpy(name, p, n);
	name[n] = 0;
	return !nt_linux_ifname_problem(name);
}

/*
 * The lines of the input (after a #! line) as the names and values of a
 * fixed profile: up to two interfaces named by the first lines the
 * interface-name rule accepts, the first line as a sysctl value and the
 * last as a process comm name (at most 15 bytes) where they have no
 * control character.  A line the validator would refuse is left out
 * rather than sinking the whole profile, so nearly every input reaches
 * the emitter.
 */
static char *fields_profile(const uint8_t *data, size_t size, size_t *len)
{
	struct nt_buf b = {0};
	const uint8_t *p = data, *end = data + size, *first = NULL, *last = NULL, *ifs[2];
	size_t nfirst = 0, nlast = 0, nifs[2], k = 0, i;

	nt_buf_puts(&b, "apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: fuzz}\n"
		    "target: linux\n");
	if (size >= 2 && p[0] == '#' && p[1] == '!')
		while (p < end && *p++ != '\n')
			;
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!first) {
			first = p;
			nfirst = n;
		}
		last = p;
		nlast = n;
		if (k < 2 && ifname_ok(p, n) && !(k && nifs[0] == n && !memcmp(ifs[0], p, n))) {
			ifs[k] = p;
			nifs[k++] = n;
		}
		p = nl ? nl + 1 : end;
	}
	if (k)
		nt_buf_puts(&b, "interfaces:\n");
	for (i = 0; i < k; i++) {
		nt_buf_puts(&b, i ? "  - {channels: {rx: 2, tx: 2}, name: "
				  : "  - {mtu: 1400, offloads: {gro: on, tso: off}, name: ");
		yaml_str(&b, ifs[i], nifs[i]);
		nt_buf_puts(&b, "}\n");
	}
	if (first && !has_ctrl(first, nfirst)) {
		nt_buf_puts(&b, "sysctl:\n  net.core.rmem_max: ");
		yaml_str(&b, first, nfirst);
		nt_buf_puts(&b, "\n");
	}
	if (last && nlast && nlast <= 15 && !has_ctrl(last, nlast)) {
		nt_buf_puts(&b, "processes:\n  - {cpus: \"0-1\", match: {comm: ");
		yaml_str(&b, last, nlast);
		nt_buf_puts(&b, "}}\n");
	}
	*len = b.n;
	return nt_buf_take(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = hostile_path(data, size);
	const char *hp = path && *path ? path : NULL;
	size_t n;
	char *y;

	load_and_emit((const char *)data, size, hp, true);
	y = fields_profile(data, size, &n);
	load_and_emit(y, n, hp, true);
	free(y);
	free(path);
	return 0;
}
