/* SPDX-License-Identifier: MIT */
/* Fuzz target: profile loader + validator, then lowering and planning of
 * what validates (against a Linux and a Windows seed snapshot). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/formats/planprint.h"
#include "../compiler/base/buf.h"
#include "../compiler/model/caps.h"
#include "../compiler/language/load.h"
#include "../compiler/passes/lower.h"
#include "../compiler/passes/plan.h"
#include "../compiler/formats/snapshot.h"
#include "../compiler/language/typed.h"
#include "../compiler/passes/validate.h"
#include "config.h"
#include "fuzz.h"

struct host {
	struct nt_facts facts;
	struct nt_state observed;
	bool ok;
};

static struct host linux_host, windows_host;

static void host_load(struct host *h, const char *path)
{
	struct nt_diags d = {0};

	nt_facts_init(&h->facts);
	h->ok = !nt_snapshot_load(path, &h->facts, &h->observed, &d);
	nt_diags_free(&d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	host_load(&linux_host, NT_SRCDIR "/examples/states/x710-wireguard-gateway.json");
	host_load(&windows_host, NT_SRCDIR "/examples/states/windows-wireguard-host.json");
	return 0;
}

/* Lowers against one host (or none), plans and prints the plan both ways. */
static void lower_and_plan(const struct nt_loaded *l, const struct nt_capsdb *db,
			   const struct host *h)
{
	static const struct nt_facts nofacts;
	static const struct nt_state noobs;
	struct nt_state desired = {0};
	struct nt_diags d = {0};
	struct nt_lower L = {0};
	struct nt_plan p = {0};
	struct nt_buf b = {0};

	L.l = l;
	L.db = db;
	L.facts = h ? &h->facts : &nofacts;
	L.observed = h ? &h->observed : &noobs;
	L.desired = &desired;
	L.d = &d;
	L.hostname = l->p->metadata && l->p->metadata->name ? l->p->metadata->name : "fuzz";
	if (!nt_lower(&L)) {
		struct nt_plan_input in = {l, &desired, L.observed, L.facts};

		nt_plan_build(&in, &p);
		nt_plan_print_json(&p, &b);
		nt_plan_print_text(&p, h ? "snapshot" : NULL, false, &b);
		nt_plan_free(&p);
	}
	nt_buf_free(&b);
	nt_state_free(&desired);
	nt_diags_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nt_capsdb *db;
	struct nt_diags d = {0};
	struct nt_loaded l;
	struct nt_load_opts o = {0};
	bool windows;

	db = nt_capsdb_default(&d);
	nt_diags_free(&d);
	memset(&d, 0, sizeof(d));
	if (nt_load_profile_data("fuzz.yaml", (const char *)data, size, &o, &l, &d))
		goto out;
	{
		/* the typed profile built from the tree is what libcyaml makes of it */
		void *ref = NULL;

		if (nt_typed_load_cyaml(l.tree, &nt_profile_schema, &ref) ||
		    !nt_typed_equal(&nt_profile_schema, l.p, ref))
			abort();
		cyaml_free(&nt_cyaml_config, &nt_profile_schema, ref, 0);
	}
	if (nt_validate(&l, db, &d) || l.p->kind != NT_KIND_HOST)
		goto out_loaded;
	windows = l.p->target && *l.p->target == NT_TARGET_WINDOWS;
	lower_and_plan(&l, db, NULL);
	if ((windows ? &windows_host : &linux_host)->ok)
		lower_and_plan(&l, db, windows ? &windows_host : &linux_host);
out_loaded:
	nt_loaded_free(&l);
out:
	nt_diags_sort(&d);
	nt_fuzz_print_diags(&d);
	nt_diags_free(&d);
	return 0;
}
