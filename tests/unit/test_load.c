/* SPDX-License-Identifier: MIT */
/* Profile loader: mark index, extends merge rules, defaults, cycles, and
 * the failure contract (-1, zeroed result, exact located message). */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "load.h"
#include "profile.h"
#include "typed.h"
#include "ytree.h"

static const char host_text[] =
	"apiVersion: nettune/v1\n"			/* 1 */
	"kind: HostProfile\n"				/* 2 */
	"metadata: {name: h1}\n"			/* 3 */
	"target: linux\n"				/* 4 */
	"interfaces:\n"					/* 5 */
	"  - name: enp1s0f0\n"				/* 6 */
	"    mtu: 1500\n"				/* 7 */
	"    offloads:\n"				/* 8 */
	"      gro: on\n"				/* 9 */
	"      uso: on\n"				/* 10 */
	"  - name: wg0\n"				/* 11 */
	"    tunnel: {kind: wireguard, underlay: enp1s0f0}\n"	/* 12 */
	"sysctl:\n"					/* 13 */
	"  net/ipv4/ip_forward: 1\n";			/* 14 */

/* "FILE:LINE:COL: message" of the first diagnostic, or "" */
static char *first_diag(const struct nt_diags *d)
{
	if (!d->n)
		return nt_xstrdup("");
	return nt_xasprintf("%s:%u:%u: %s", d->v[0].mark.file, d->v[0].mark.line,
			    d->v[0].mark.col, d->v[0].msg);
}

static bool has_diag(const struct nt_diags *d, enum nt_severity sev, const char *text)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		char *s = nt_xasprintf("%s:%u:%u: %s", d->v[i].mark.file, d->v[i].mark.line,
				       d->v[i].mark.col, d->v[i].msg);
		bool eq = d->v[i].sev == sev && !strcmp(s, text);

		free(s);
		if (eq)
			return true;
	}
	return false;
}

static bool is_zeroed(const struct nt_loaded *l)
{
	return !l->p && !l->tree && !l->file && !l->sources && !l->nsources;
}

static void test_marks(void)
{
	struct nt_diags d = {0};
	struct nt_loaded l;
	struct nt_mark m;
	const struct nt_ynode *n;

	CU_ASSERT_EQUAL_FATAL(nt_load_profile_data("mem.yaml", host_text, strlen(host_text),
						   NULL, &l, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_STRING_EQUAL(l.file, "mem.yaml");
	/* the key "uso:" and its value "on" */
	m = nt_loaded_mark(&l, "/interfaces/0/offloads/uso", true);
	CU_ASSERT_STRING_EQUAL(m.file, "mem.yaml");
	CU_ASSERT_EQUAL(m.line, 10);
	CU_ASSERT_EQUAL(m.col, 7);
	m = nt_loaded_mark(&l, "/interfaces/0/offloads/uso", false);
	CU_ASSERT_EQUAL(m.line, 10);
	CU_ASSERT_EQUAL(m.col, 12);
	/* "uso: on" was normalised to {all: on}; the value keeps its mark */
	n = nt_yget(l.tree, "/interfaces/0/offloads/uso/all", false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_STRING_EQUAL(n->scalar, "true");
	CU_ASSERT_EQUAL(n->mark.line, 10);
	CU_ASSERT_EQUAL(n->mark.col, 12);
	/* flow mapping inside a sequence item */
	m = nt_loaded_mark(&l, "/interfaces/1/tunnel/underlay", false);
	CU_ASSERT_EQUAL(m.line, 12);
	CU_ASSERT_EQUAL(m.col, 41);
	/* a path that does not exist falls back to its nearest ancestor's key */
	m = nt_loaded_mark(&l, "/interfaces/1/tunnel/outer", false);
	CU_ASSERT_EQUAL(m.line, 12);
	CU_ASSERT_EQUAL(m.col, 5);
	m = nt_loaded_mark(&l, "/interfaces/7/mtu", false);
	CU_ASSERT_EQUAL(m.line, 5);
	CU_ASSERT_EQUAL(m.col, 1);
	/* '/' inside a key is written ~1 */
	m = nt_loaded_mark(&l, "/sysctl/net~1ipv4~1ip_forward", true);
	CU_ASSERT_EQUAL(m.line, 14);
	CU_ASSERT_EQUAL(m.col, 3);
	CU_ASSERT_PTR_NULL(nt_yget(l.tree, "/sysctl/net/ipv4/ip_forward", true));
	/* the typed profile agrees with the tree */
	CU_ASSERT_EQUAL_FATAL(l.p->interfaces_count, 2);
	CU_ASSERT_EQUAL(*l.p->interfaces[0].mtu, 1500);
	CU_ASSERT_TRUE(*l.p->interfaces[0].offloads->uso->all);
	CU_ASSERT_PTR_NULL(l.p->interfaces[0].offloads->tso);
	CU_ASSERT_PTR_NULL(l.p->interfaces[1].mtu);
	nt_loaded_free(&l);
	CU_ASSERT_TRUE(is_zeroed(&l));
	nt_diags_free(&d);
}

static const struct nt_iface *iface(const struct nt_profile *p, const char *name)
{
	unsigned i;

	for (i = 0; i < p->interfaces_count; i++)
		if (!strcmp(p->interfaces[i].name, name))
			return &p->interfaces[i];
	return NULL;
}

static const char *kv(const struct nt_kv *v, unsigned n, const char *key)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].key, key))
			return v[i].value;
	return NULL;
}

static void test_merge(void)
{
	struct nt_diags d = {0};
	struct nt_loaded l;
	const struct nt_iface *eth0, *eth1, *eth9, *wg0;
	const struct nt_ynode *n;

	CU_ASSERT_EQUAL_FATAL(nt_load_profile("fixtures/host.yaml", NULL, &l, &d), 0);
	/* two extended policies set one value differently: a warning names both */
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_EQUAL(d.warnings, 1);
	CU_ASSERT_TRUE(has_diag(&d, NT_WARNING,
				"fixtures/later.yaml:7:10: defaults.physical.mtu set here overrides "
				"the different value from fixtures/base.yaml:7:10; the later entry "
				"in extends wins"));
	CU_ASSERT_EQUAL(l.nsources, 4);
	CU_ASSERT_STRING_EQUAL(l.sources[0], "fixtures/host.yaml");

	/* interfaces merge by name: policy order first, new ones appended */
	CU_ASSERT_EQUAL_FATAL(l.p->interfaces_count, 4);
	CU_ASSERT_STRING_EQUAL(l.p->interfaces[0].name, "eth0");
	CU_ASSERT_STRING_EQUAL(l.p->interfaces[1].name, "eth9");
	CU_ASSERT_STRING_EQUAL(l.p->interfaces[2].name, "wg0");
	CU_ASSERT_STRING_EQUAL(l.p->interfaces[3].name, "eth1");
	eth0 = iface(l.p, "eth0");
	eth1 = iface(l.p, "eth1");
	eth9 = iface(l.p, "eth9");
	wg0 = iface(l.p, "wg0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(eth0);

	/* maps merge key by key: eth0's offloads come from three files */
	CU_ASSERT_TRUE(*eth0->offloads->gro->all);	/* base defaults */
	CU_ASSERT_FALSE(*eth0->offloads->tso->all);	/* host beats base */
	CU_ASSERT_FALSE(*eth0->offloads->lro->all);	/* ifaces policy */
	CU_ASSERT_EQUAL(*eth0->rings->rx, 512);
	/* later wins: later.yaml's 1500 beats base.yaml's 9000 */
	CU_ASSERT_EQUAL(*eth0->mtu, 1500);
	/* the interface's own value beats defaults.physical */
	CU_ASSERT_EQUAL(*eth9->mtu, 1280);
	CU_ASSERT_EQUAL(*eth1->mtu, 4000);
	/* defaults.tunnel goes beneath tunnels only, defaults.physical not */
	CU_ASSERT_PTR_NULL(wg0->mtu);
	CU_ASSERT_TRUE(*wg0->offloads->gso->all);
	CU_ASSERT_PTR_NULL(wg0->offloads->gro);
	CU_ASSERT_PTR_NULL(eth1->offloads->gso);
	CU_ASSERT_TRUE(*eth1->offloads->gro->all);
	/* sysctl maps from both policies are merged */
	CU_ASSERT_STRING_EQUAL(kv(l.p->sysctl, l.p->sysctl_count, "net.core.rmem_max"), "1000");
	CU_ASSERT_STRING_EQUAL(kv(l.p->sysctl, l.p->sysctl_count, "net.core.wmem_max"), "2000");
	/* the profile's identity is never inherited */
	CU_ASSERT_STRING_EQUAL(l.p->metadata->name, "h1");
	CU_ASSERT_EQUAL(l.p->kind, NT_KIND_HOST);

	/* inherited values keep the mark of the file they were written in */
	n = nt_yget(l.tree, "/interfaces/0/offloads/gro/all", false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_STRING_EQUAL(n->mark.file, "fixtures/base.yaml");
	CU_ASSERT_EQUAL(n->mark.line, 8);
	CU_ASSERT_EQUAL(n->mark.col, 21);
	n = nt_yget(l.tree, "/interfaces/0/mtu", false);
	CU_ASSERT_STRING_EQUAL(n->mark.file, "fixtures/later.yaml");
	CU_ASSERT_EQUAL(n->mark.line, 7);
	n = nt_yget(l.tree, "/interfaces/0/offloads/tso/all", false);
	CU_ASSERT_STRING_EQUAL(n->mark.file, "fixtures/host.yaml");
	CU_ASSERT_EQUAL(n->mark.line, 9);
	n = nt_yget(l.tree, "/interfaces/1/mtu", false);
	CU_ASSERT_STRING_EQUAL(n->mark.file, "fixtures/ifaces.yaml");
	CU_ASSERT_EQUAL(n->mark.line, 10);
	CU_ASSERT_EQUAL(n->mark.col, 10);
	nt_loaded_free(&l);
	nt_diags_free(&d);
}

static void test_cycle(void)
{
	struct nt_diags d = {0};
	struct nt_loaded l;

	memset(&l, 0xa5, sizeof(l));
	CU_ASSERT_EQUAL(nt_load_profile("fixtures/cycle-a.yaml", NULL, &l, &d), -1);
	CU_ASSERT_TRUE(is_zeroed(&l));
	CU_ASSERT_EQUAL(d.errors, 2);
	CU_ASSERT_TRUE(has_diag(&d, NT_ERROR,
				"fixtures/cycle-b.yaml:5:11: extends cycle: fixtures/cycle-a.yaml -> "
				"fixtures/cycle-b.yaml -> fixtures/cycle-a.yaml"));
	CU_ASSERT_TRUE(has_diag(&d, NT_ERROR,
				"fixtures/cycle-a.yaml:5:11: policy profile 'cycle-b' "
				"(fixtures/cycle-b.yaml) has errors"));
	nt_diags_free(&d);
}

static void test_failures(void)
{
	static const char bad[] =
		"apiVersion: nettune/v1\n"
		"kind: HostProfile\n"
		"target: linux\n"
		"interfaces:\n"
		"  - name: eth0\n"
		"    mtu: 67\n"
		"    offlods: {gro: on}\n";
	static const char syntax[] = "kind: [HostProfile\n";
	struct nt_diags d = {0};
	struct nt_loaded l;
	char *s;

	/* every schema error of the file, each located; nothing loaded */
	memset(&l, 0xa5, sizeof(l));
	CU_ASSERT_EQUAL(nt_load_profile_data("bad.yaml", bad, strlen(bad), NULL, &l, &d), -1);
	CU_ASSERT_TRUE(is_zeroed(&l));
	CU_ASSERT_EQUAL(d.errors, 2);
	CU_ASSERT_TRUE(has_diag(&d, NT_ERROR,
				"bad.yaml:6:10: interfaces[0].mtu = 67 is out of range 68..65535"));
	CU_ASSERT_TRUE(has_diag(&d, NT_ERROR,
				"bad.yaml:7:5: unknown key 'offlods' in interfaces[0]; did you mean "
				"'offloads'?"));
	nt_diags_free(&d);

	memset(&l, 0xa5, sizeof(l));
	CU_ASSERT_EQUAL(nt_load_profile_data("syn.yaml", syntax, strlen(syntax), NULL, &l, &d),
			-1);
	CU_ASSERT_TRUE(is_zeroed(&l));
	CU_ASSERT_EQUAL(d.n, 1);
	s = first_diag(&d);
	CU_ASSERT_STRING_EQUAL(s, "syn.yaml:2:1: did not find expected ',' or ']' while parsing "
			       "a flow sequence that starts at line 1 column 7");
	free(s);
	nt_diags_free(&d);

	memset(&l, 0xa5, sizeof(l));
	CU_ASSERT_EQUAL(nt_load_profile("fixtures/no-such.yaml", NULL, &l, &d), -1);
	CU_ASSERT_TRUE(is_zeroed(&l));
	CU_ASSERT_EQUAL(d.n, 1);
	s = first_diag(&d);
	CU_ASSERT_STRING_EQUAL(s, "fixtures/no-such.yaml:0:0: cannot open: No such file or "
			       "directory");
	free(s);
	nt_diags_free(&d);

	/* an empty document is an error, not an empty profile */
	CU_ASSERT_EQUAL(nt_load_profile_data("e.yaml", "", 0, NULL, &l, &d), -1);
	CU_ASSERT_TRUE(is_zeroed(&l));
	s = first_diag(&d);
	CU_ASSERT_STRING_EQUAL(s, "e.yaml:0:0: file is empty; expected a mapping with apiVersion "
			       "and kind");
	free(s);
	nt_diags_free(&d);
}

static void test_ytree(void)
{
	struct nt_diags d = {0};
	struct nt_ynode *t;
	static const char dup[] = "kind: HostProfile\na: 1\nb:\n  c: 2\n  c: 3\n";
	/* not a profile (no apiVersion or kind): its text is never quoted */
	static const char shadow[] = "root:$6$hash:1::\nroot:$6$hash:1::\n";
	static const char tab[] = "a:\n\tb: 1\n";

	t = nt_yparse_data("dup.yaml", dup, strlen(dup), &d);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_STRING_EQUAL(d.v[0].msg, "duplicate key 'c' (first at line 4)");
	CU_ASSERT_EQUAL(d.v[0].mark.line, 5);
	CU_ASSERT_EQUAL(d.v[0].mark.col, 3);
	nt_diags_free(&d);

	t = nt_yparse_data("shadow", shadow, strlen(shadow), &d);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_STRING_EQUAL(d.v[0].msg, "duplicate key (first at line 1); not a nettune profile "
			       "(no apiVersion or kind before it), its text is not quoted");
	CU_ASSERT_PTR_NULL(strstr(d.v[0].msg, "hash"));
	CU_ASSERT_EQUAL(d.v[0].mark.line, 2);
	nt_diags_free(&d);

	t = nt_yparse_data("tab.yaml", tab, strlen(tab), &d);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_STRING_EQUAL(d.v[0].msg, "tab character; YAML is indented with spaces only");
	CU_ASSERT_EQUAL(d.v[0].mark.line, 2);
	CU_ASSERT_EQUAL(d.v[0].mark.col, 1);
	nt_diags_free(&d);

	/* a copy keeps every mark */
	t = nt_yparse_data("ok.yaml", dup + 18, 10, &d);	/* "a: 1\nb:\n  " */
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	{
		struct nt_ynode *c = nt_ycopy(t);
		struct nt_mark m = nt_ymark(c, "/b", true);

		CU_ASSERT_STRING_EQUAL(m.file, "ok.yaml");
		CU_ASSERT_EQUAL(m.line, 2);
		CU_ASSERT_EQUAL(m.col, 1);
		nt_yfree(c);
	}
	nt_yfree(t);
	nt_diags_free(&d);
}

/* The typed profile built from the tree must be what libcyaml makes of the
 * same tree re-emitted as YAML: both load or both refuse, and what loads is
 * equal field by field.  Checked on every profile of the repository, on
 * what the schema check leaves of every bad one, and on hand-made shapes
 * the check lets through. */
static int typed_agree(struct nt_ynode *t)
{
	void *a = NULL, *b = NULL;
	struct nt_mark where;
	const char *why;
	int ra = nt_typed_load(t, &nt_profile_schema, &a, &where, &why);
	int rb = nt_typed_load_cyaml(t, &nt_profile_schema, &b);
	int ok = ra == rb && (ra || nt_typed_equal(&nt_profile_schema, a, b));

	if (a)
		cyaml_free(&nt_cyaml_config, &nt_profile_schema, a, 0);
	if (b)
		cyaml_free(&nt_cyaml_config, &nt_profile_schema, b, 0);
	return ok ? (ra ? 0 : 1) : -1;
}

static void typed_dir(const char *dir, size_t *loaded, size_t *refused)
{
	DIR *dp = opendir(dir);
	struct dirent *e;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dp);
	while ((e = readdir(dp))) {
		size_t n = strlen(e->d_name);
		char *path;
		struct nt_diags d = {0};
		struct nt_loaded l;
		struct nt_load_opts o = {0};
		struct nt_ynode *t;
		int r;

		if (n < 6 || strcmp(e->d_name + n - 5, ".yaml"))
			continue;
		path = nt_xasprintf("%s/%s", dir, e->d_name);
		/* the whole loader (extends, defaults) on the file */
		o.keep_going = true;
		if (!nt_load_profile(path, &o, &l, &d)) {
			void *b = NULL;

			CU_ASSERT_EQUAL(nt_typed_load_cyaml(l.tree, &nt_profile_schema, &b), 0);
			if (!nt_typed_equal(&nt_profile_schema, l.p, b))
				CU_FAIL(path);
			if (b)
				cyaml_free(&nt_cyaml_config, &nt_profile_schema, b, 0);
			nt_loaded_free(&l);
		}
		nt_diags_free(&d);
		/* what the schema check leaves of the file, errors and all */
		t = nt_yparse_file(path, &d);
		if (t && t->type == NT_Y_MAP) {
			struct nt_mark *parents = NULL;
			size_t np = 0;

			nt_check_prune(t, &nt_profile_schema, &d, &parents, &np);
			free(parents);
			r = typed_agree(t);
			if (r < 0)
				CU_FAIL(path);
			*(r > 0 ? loaded : refused) += 1;
		}
		nt_yfree(t);
		nt_diags_free(&d);
		free(path);
	}
	closedir(dp);
}

static void test_typed(void)
{
	static const char *const shapes[] = {
		/* a sysctl sequence of {key, value}: the check allows it */
		"apiVersion: v\nkind: HostProfile\nsysctl: [{key: a, value: b}]\n",
		/* ... and of anything else: both refuse */
		"apiVersion: v\nkind: HostProfile\nsysctl: [{a: 1}]\n",
		"apiVersion: v\nkind: HostProfile\nsysctl: {}\nextends: []\n",
		"apiVersion: v\nkind: PolicyProfile\nextends: [a, b]\ninterfaces: []\n",
		"apiVersion: v\nkind: HostProfile\nhost: {numa: []}\n",
		"apiVersion: v\nkind: HostProfile\ninterfaces: [{name: x, irq: {per_queue: ['0', 1-2]}}]\n",
		"apiVersion: v\nkind: HostProfile\nprocesses: [{match: {comm: x}, cpus: '1'}]\n",
		"apiVersion: v\nkind: HostProfile\nprocesses: [{cpus: '1'}]\n",
		"apiVersion: v\nkind: HostProfile\ninterfaces: [{mtu: 0x10, offloads: {uso: {all: yes}}}]\n",
		"apiVersion: v\nkind: HostProfile\ninterfaces: [{mtu: 99999999999}]\n",
		"apiVersion: v\nkind: HostProfile\ninterfaces: [{linux: {features: {a: 'true', b: x}}}]\n",
		"apiVersion: v\nkind: HostProfile\nglobal: {uro: enabled}\ntarget: windows\n",
		"apiVersion: ''\nkind: HostProfile\n",
		"kind: HostProfile\n",
	};
	size_t loaded = 0, refused = 0, i;
	int r;

	typed_dir("../../examples", &loaded, &refused);
	typed_dir("../../profiles", &loaded, &refused);
	typed_dir("fixtures", &loaded, &refused);
	typed_dir("../bad", &loaded, &refused);
	typed_dir("../bad/policies", &loaded, &refused);
	/* both paths were exercised */
	CU_ASSERT(loaded >= 50);
	CU_ASSERT(refused >= 1);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct nt_diags d = {0};
		struct nt_ynode *t = nt_yparse_data("s.yaml", shapes[i], strlen(shapes[i]), &d);

		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		r = typed_agree(t);
		if (r < 0)
			CU_FAIL(shapes[i]);
		*(r > 0 ? &loaded : &refused) += r >= 0;
		nt_yfree(t);
		nt_diags_free(&d);
	}
	/* the hand-made shapes refuse in 4 ways */
	CU_ASSERT(refused >= 5);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static size_t count_diag(const struct nt_diags *d, const char *msg)
{
	size_t i, n = 0;

	for (i = 0; i < d->n; i++)
		n += !strcmp(d->v[i].msg, msg);
	return n;
}

/* A policy is parsed once per process, but every profile that extends it
 * gets its diagnostics, and a policy whose bytes changed is read anew. */
static void test_policy_cache(void)
{
	char dir[] = "/tmp/nt-policy-XXXXXX";
	struct nt_diags d = {0};
	struct nt_loaded l;
	char *pol, *a, *b;
	int k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	pol = nt_xasprintf("%s/pol.yaml", dir);
	a = nt_xasprintf("%s/a.yaml", dir);
	b = nt_xasprintf("%s/b.yaml", dir);
	write_text(pol, "apiVersion: nettune/v1\nkind: PolicyProfile\nsysctl: {x: 1}\nbogus: 1\n");
	write_text(a, "apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: a}\n"
		   "target: linux\nextends: [pol]\n");
	write_text(b, "apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: b}\n"
		   "target: linux\nextends: [pol]\n");
	for (k = 0; k < 2; k++) {
		CU_ASSERT_EQUAL(nt_load_profile(a, NULL, &l, &d), -1);
		CU_ASSERT_EQUAL(nt_load_profile(b, NULL, &l, &d), -1);
	}
	CU_ASSERT_EQUAL(count_diag(&d, "unknown key 'bogus' at the top level"), 4);
	nt_diags_free(&d);
	/* fixed: the next load sees the new bytes */
	write_text(pol, "apiVersion: nettune/v1\nkind: PolicyProfile\nsysctl: {x: 2}\n");
	CU_ASSERT_EQUAL_FATAL(nt_load_profile(a, NULL, &l, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_EQUAL_FATAL(l.p->sysctl_count, 1);
	CU_ASSERT_STRING_EQUAL(l.p->sysctl[0].value, "2");
	CU_ASSERT_EQUAL(l.nsources, 2);
	nt_loaded_free(&l);
	write_text(pol, "apiVersion: nettune/v1\nkind: PolicyProfile\nsysctl: {x: 3}\n");
	CU_ASSERT_EQUAL_FATAL(nt_load_profile(b, NULL, &l, &d), 0);
	CU_ASSERT_STRING_EQUAL(l.p->sysctl[0].value, "3");
	nt_loaded_free(&l);
	nt_diags_free(&d);
	unlink(pol);
	unlink(a);
	unlink(b);
	rmdir(dir);
	free(pol);
	free(a);
	free(b);
}

int main(void)
{
	CU_pSuite s;
	unsigned fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("load", NULL, NULL);
	CU_add_test(s, "mark index", test_marks);
	CU_add_test(s, "extends merge rules and defaults", test_merge);
	CU_add_test(s, "extends cycle", test_cycle);
	CU_add_test(s, "failing loads", test_failures);
	CU_add_test(s, "yaml tree", test_ytree);
	CU_add_test(s, "typed load agrees with libcyaml", test_typed);
	CU_add_test(s, "policies parsed once, diagnostics for each profile", test_policy_cache);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_failure_records();
	CU_cleanup_registry();
	nt_intern_free();
	return fails ? 1 : 0;
}
