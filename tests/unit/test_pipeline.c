/* SPDX-License-Identifier: MIT */
/* The pipeline's one entry point: profile text in memory, the state sources, the stops and --netns. */
#include "nt_test.h"
#include "pipeline/pipeline.h"

#define HOST \
	"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\ntarget: linux\n" \
	"interfaces:\n  - name: eth0\n    mtu: 9000\n"
#define SYSCTL "sysctl:\n  net.core.rmem_max: \"8388608\"\n"
#define POLICY "apiVersion: nettune/v1\nkind: PolicyProfile\nmetadata: {name: p}\n"

static struct nt_pipeline_req mem(const char *text)
{
	struct nt_pipeline_req rq = {0};

	rq.profile = "mem.yaml";
	rq.data = text;
	rq.len = strlen(text);
	return rq;
}

/* Offline: desired state and an all-new plan, no host facts. */
static void test_offline(void)
{
	struct nt_pipeline_req rq = mem(HOST);
	struct nt_compiled c;
	struct nt_diags d = {0};

	rq.source = NT_STATE_OFFLINE;
	CU_ASSERT_EQUAL(nt_pipeline_run(&rq, &c, &d), 0);
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_PTR_NULL(c.against);
	CU_ASSERT_PTR_NOT_NULL(nt_state_get(&c.desired, NT_K_MTU, "eth0", NULL));
	CU_ASSERT_EQUAL(c.plan.n, 1);
	nt_compiled_free(&c);
	nt_diags_free(&d);
}

/* A PolicyProfile: an error, or NT_PIPE_POLICY when the caller stops there;
 * NT_STATE_NONE stops after validation. */
static void test_stops(void)
{
	struct nt_pipeline_req rq = mem(POLICY);
	struct nt_compiled c;
	struct nt_diags d = {0};
	char *e;

	rq.source = NT_STATE_OFFLINE;
	CU_ASSERT_EQUAL(nt_pipeline_run(&rq, &c, &d), -1);
	e = t_first_error(&d);
	CU_ASSERT_STRING_EQUAL(e, "mem.yaml:2:7: mem.yaml is a PolicyProfile; plan a HostProfile "
			       "that extends it");
	free(e);
	nt_compiled_free(&c);
	nt_diags_free(&d);
	memset(&d, 0, sizeof(d));
	rq.policy_stops = true;
	CU_ASSERT_EQUAL(nt_pipeline_run(&rq, &c, &d), NT_PIPE_POLICY);
	CU_ASSERT_EQUAL(d.errors, 0);
	nt_compiled_free(&c);
	rq = mem(HOST);
	rq.source = NT_STATE_NONE;
	CU_ASSERT_EQUAL(nt_pipeline_run(&rq, &c, &d), NT_PIPE_NO_STATE);
	CU_ASSERT_EQUAL(c.desired.n, 0);
	nt_compiled_free(&c);
	nt_diags_free(&d);
}

/* An observer lending its facts and state: the plan is computed against them. */
struct lender {
	struct nt_facts f;
	struct nt_state obs;
	int calls;
};

static int lend(void *ctx, struct nt_compiled *c, struct nt_diags *d)
{
	struct lender *x = ctx;

	(void)d;
	x->calls++;
	c->lent_facts = &x->f;
	c->lent_observed = &x->obs;
	c->against = "the lender";
	return 0;
}

static void test_observer(void)
{
	struct nt_pipeline_req rq = mem(HOST);
	struct lender x = {0};
	struct nt_observer ob = {lend, &x};
	struct nt_compiled c;
	struct nt_diags d = {0};
	int k;

	nt_facts_init(&x.f);
	x.f.known = true;
	t_nic(&x.f, "eth0", 0, 0, 0);
	nt_state_set(&x.obs, NT_K_MTU, "eth0", NULL, nt_v_u32(1500), (struct nt_mark){0});
	rq.source = NT_STATE_OBSERVER;
	rq.observer = &ob;
	CU_ASSERT_EQUAL_FATAL(nt_pipeline_run(&rq, &c, &d), 0);
	CU_ASSERT_EQUAL(x.calls, 1);
	CU_ASSERT_PTR_EQUAL(nt_compiled_facts(&c), &x.f);
	CU_ASSERT_STRING_EQUAL(c.against, "the lender");
	k = t_find(&c.plan, "eth0", "mtu");
	CU_ASSERT_FATAL(k >= 0);
	CU_ASSERT_TRUE(c.plan.v[k].has_from);
	CU_ASSERT_EQUAL(c.plan.v[k].from.u, 1500);
	CU_ASSERT_EQUAL(c.plan.v[k].to.u, 9000);
	nt_compiled_free(&c);
	/* the lender's facts and state are its own: still whole */
	CU_ASSERT_EQUAL(x.f.nifs, 1);
	CU_ASSERT_EQUAL(x.obs.n, 1);
	nt_facts_free(&x.f);
	nt_state_free(&x.obs);
	nt_diags_free(&d);
}

/* --netns refuses host-wide settings, except for a read-only run (watch). */
static void test_netns(void)
{
	struct nt_pipeline_req rq = mem(HOST SYSCTL);
	struct nt_compiled c;
	struct nt_diags d = {0};
	char *e;

	rq.source = NT_STATE_OFFLINE;
	rq.netns = "lab";
	CU_ASSERT_EQUAL(nt_pipeline_run(&rq, &c, &d), -1);
	e = t_first_error(&d);
	CU_ASSERT_PTR_NOT_NULL(strstr(e, "net.core.rmem_max"));
	CU_ASSERT_PTR_NOT_NULL(strstr(e, "--netns lab"));
	free(e);
	nt_compiled_free(&c);
	nt_diags_free(&d);
	memset(&d, 0, sizeof(d));
	rq.read_only = true;
	CU_ASSERT_EQUAL(nt_pipeline_run(&rq, &c, &d), 0);
	CU_ASSERT_EQUAL(d.errors, 0);
	nt_compiled_free(&c);
	nt_diags_free(&d);
}

/* A narrow run (the agent's correction of one interface) of a profile
 * loaded once: only that interface and the underlay it rides on are
 * planned (the tunnel's MTU still derives from the underlay's), no other
 * interface and no host-wide setting; the borrowed profile is neither
 * freed nor changed, so it serves every run. */
#define NARROW \
	"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\ntarget: linux\n" \
	"sysctl:\n  net.core.rmem_max: \"8388608\"\n" \
	"interfaces:\n" \
	"  - {name: eth0, mtu: 9000}\n" \
	"  - {name: ovu0, nic: veth, mtu: 4000}\n" \
	"  - {name: ovx0, tunnel: {kind: vxlan, underlay: ovu0, outer: ipv4}}\n" \
	"  - {name: eth2, mtu: 4000}\n"

static void test_narrow(void)
{
	struct nt_pipeline_req rq = {0};
	struct lender x = {0};
	struct nt_observer ob = {lend, &x};
	struct nt_loaded l;
	struct nt_compiled c;
	struct nt_diags d = {0};
	const struct nt_setting *s;
	const char *names[] = {"eth0", "ovu0", "ovx0", "eth2"};

	t_load("narrow.yaml", NARROW, &l);
	nt_facts_init(&x.f);
	x.f.known = true;
	x.f.ifaces_known = true;
	for (size_t i = 0; i < 4; i++) {
		struct nt_iface_facts *f = t_nic(&x.f, names[i], 0, 0, 0);

		free(f->kind);
		f->kind = nt_xstrdup(i == 2 ? "vxlan" : i == 1 ? "veth" : "physical");
		if (i == 1 || i == 2) {
			free(f->driver);
			f->driver = nt_xstrdup(i == 1 ? "veth" : "vxlan");
		}
		nt_state_set(&x.obs, NT_K_MTU, names[i], NULL, nt_v_u32(1500), (struct nt_mark){0});
	}
	nt_facts_add_sysctl(&x.f, "net.core.rmem_max", true, true);
	rq.profile = "narrow.yaml";
	rq.loaded = &l;
	rq.source = NT_STATE_OBSERVER;
	rq.observer = &ob;
	rq.only = "ovx0";
	rq.narrow = true;
	for (int run = 0; run < 2; run++) {
		int r = nt_pipeline_run(&rq, &c, &d);

		if (r) {
			char *e = t_first_error(&d);

			fprintf(stderr, "narrow: %s\n", e);
			free(e);
		}
		CU_ASSERT_EQUAL_FATAL(r, 0);
		CU_ASSERT_EQUAL(d.errors, 0);
		/* vxlan over IPv4: 50 bytes (tunnel.c) */
		s = nt_state_get(&c.desired, NT_K_MTU, "ovx0", NULL);
		CU_ASSERT_FATAL(s != NULL);
		CU_ASSERT_EQUAL(s->val.u, 3950);
		CU_ASSERT_PTR_NOT_NULL(nt_state_get(&c.desired, NT_K_MTU, "ovu0", NULL));
		CU_ASSERT_PTR_NULL(nt_state_get(&c.desired, NT_K_MTU, "eth0", NULL));
		CU_ASSERT_PTR_NULL(nt_state_get(&c.desired, NT_K_MTU, "eth2", NULL));
		CU_ASSERT_PTR_NULL(nt_state_get(&c.desired, NT_K_SYSCTL, "sysctl", "net.core.rmem_max"));
		CU_ASSERT_EQUAL(t_find(&c.plan, "eth0", "mtu"), -1);
		CU_ASSERT(t_find(&c.plan, "ovx0", "mtu") >= 0);
		nt_compiled_free(&c);
	}
	/* the same profile, not narrow: every interface and the sysctl */
	rq.narrow = false;
	CU_ASSERT_EQUAL_FATAL(nt_pipeline_run(&rq, &c, &d), 0);
	CU_ASSERT_PTR_NOT_NULL(nt_state_get(&c.desired, NT_K_MTU, "eth0", NULL));
	CU_ASSERT_PTR_NOT_NULL(nt_state_get(&c.desired, NT_K_MTU, "eth2", NULL));
	CU_ASSERT_PTR_NOT_NULL(nt_state_get(&c.desired, NT_K_SYSCTL, "sysctl", "net.core.rmem_max"));
	nt_compiled_free(&c);
	/* still whole: the runs borrowed it */
	CU_ASSERT_EQUAL(l.p->interfaces_count, 4);
	nt_loaded_free(&l);
	nt_facts_free(&x.f);
	nt_state_free(&x.obs);
	nt_diags_free(&d);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("pipeline", NULL, NULL);
	CU_add_test(s, "offline: profile text in memory to a plan", test_offline);
	CU_add_test(s, "PolicyProfile and validate-only stops", test_stops);
	CU_add_test(s, "an observer's lent facts and state", test_observer);
	CU_add_test(s, "--netns refusals, read-only runs", test_netns);
	CU_add_test(s, "narrow: one interface and its underlay, a borrowed profile", test_narrow);
	return t_run(s);
}
