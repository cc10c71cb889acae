/* SPDX-License-Identifier: MIT */
/* nettune caps: list the NIC capability tables or show one with sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/base/buf.h"
#include "../compiler/model/caps.h"
#include "../compiler/base/diag.h"
#include "../compiler/language/profile.h"
#include "cli.h"
#include "opts.h"

static void num(const char *label, struct nt_num n)
{
	if (n.known)
		printf("  %-22s %u\n", label, n.v);
	else
		printf("  %-22s unknown\n", label);
}

static const char *state(enum nt_cap_state s)
{
	static const char *const n[] = {"unknown", "changeable", "fixed-on", "fixed-off", "absent"};

	return n[s];
}

static const char *wstate(enum nt_win_state s)
{
	return s == NT_WIN_SUPPORTED ? "supported" : s == NT_WIN_UNSUPPORTED ? "unsupported" : "unknown";
}

static const char *tri(enum nt_tri t)
{
	return t == NT_TRI_YES ? "yes" : t == NT_TRI_NO ? "no" : "unknown";
}

static const char *const hash_names[] = {
	[NT_HASH_TOEPLITZ] = "toeplitz",
	[NT_HASH_XOR] = "xor",
	[NT_HASH_CRC32] = "crc32",
};

/* A table's text (a --caps-dir table is anyone's file) reaches the
 * terminal escaped. */
#define E(s) nt_esc(s)

/* The notes block, each of its lines indented. */
static void notes(const char *s)
{
	printf("notes\n");
	while (*s) {
		const char *nl = strchr(s, '\n');
		char *line = strndup(s, nl ? (size_t)(nl - s) : strlen(s));

		printf("  %s\n", E(line));
		free(line);
		s = nl ? nl + 1 : s + strlen(s);
	}
}

/* id, name, file, driver, PCI ids */
static void show_ident(const struct nt_caps *c)
{
	size_t i;


	printf("%s: %s\n  %-22s %s\n", E(c->id), E(c->name), "table", E(c->file));
	printf("  %-22s %s\n", "from", c->origin ? E(c->origin) : "built-in");
	printf("  %-22s %s\n", "linux driver", E(c->driver));
	printf("  %-22s", "pci ids");
	for (i = 0; i < c->npci; i++)
		printf(" %s", E(c->pci_ids[i]));
	printf("%s\n", c->npci ? "" : " none");
	if (c->src_pci)
		printf("    source: %s\n", E(c->src_pci));
}

/* the channels block */
static void show_channels(const struct nt_caps *c)
{
	size_t i;
	bool any = false;

	printf("channels\n  %-22s", "kinds");
	for (i = 0; i < NT_CH__COUNT; i++)
		if (c->chan_kind[i]) {
			printf(" %s", nt_chan_names[i]);
			any = true;
		}
	printf("%s\n", any ? "" : " none");
	for (i = 0; i < NT_CH__COUNT; i++)
		if (c->chan_kind[i]) {
			char label[32];

			snprintf(label, sizeof(label), "max %s", nt_chan_names[i]);
			num(label, c->chan_max[i]);
		}
	printf("  %-22s %s\n", "settable", tri(c->chan_settable));
	if (c->src_channels)
		printf("    source: %s\n", E(c->src_channels));
}

/* the rings block */
static void show_rings(const struct nt_caps *c)
{
	size_t i;

	printf("rings\n");
	printf("  %-22s %s\n", "settable", tri(c->rings_settable));
	num("rx max", c->ring_rx_max);
	num("tx max", c->ring_tx_max);
	num("rx min", c->ring_rx_min);
	num("tx min", c->ring_tx_min);
	num("step", c->ring_step);
	if (c->ring_pow2 != NT_POW2_NONE)
		printf("  %-22s %s\n", "power of two", c->ring_pow2 == NT_POW2_DOWN ?
		       "rounds down" : c->ring_pow2 == NT_POW2_UP ? "rounds up" : "required");
	if (c->ring_rx_max_no_agg.known)
		printf("  %-22s %u (offloads.gro_hw and .lro off, mtu <= %u)\n",
		       "rx max without agg", c->ring_rx_max_no_agg.v, c->no_agg_mtu_max.v);
	if (c->ring_max_since) {
		printf("  %-22s %u (before kernel %s", "older max", c->ring_max_before.v,
		       E(c->ring_max_since));
		for (i = 0; i < c->nbackports; i++)
			printf("%s%s", i ? ", " : "; not on stable ", E(c->ring_backports[i]));
		printf("%s)\n", c->nbackports ? " and later in their series" : "");
	}
	if (c->src_rings)
		printf("    source: %s\n", E(c->src_rings));
}

/* the rss block */
static void show_rss(const struct nt_caps *c)
{
	size_t i;

	printf("rss\n");
	num("key bytes", c->rss_key_bytes);
	num("indirection entries", c->rss_indir_size);
	printf("  %-22s %s\n", "key settable", tri(c->key_settable));
	printf("  %-22s", "hash functions");
	if (!c->hash_known)
		printf(" unknown");
	for (i = 0; i < NT_ARRAY_SIZE(hash_names); i++)
		if (c->hash_mask & (1u << i))
			printf(" %s", hash_names[i]);
	printf("\n");
	num("xor max channels", c->xor_max_channels);
	if (c->src_rss)
		printf("    source: %s\n", E(c->src_rss));
}

/* the coalesce block */
static void show_coalesce(const struct nt_caps *c)
{
	size_t i;
	bool any = false;

	printf("coalesce\n");
	printf("  %-22s", "params");
	if (!c->coal_params_known)
		printf(" unknown");
	else if (!c->coal_params)
		printf(" none");
	for (i = 0; i < NT_CO__COUNT; i++)
		if (c->coal_params & (1u << i))
			printf(" %s", nt_coal_names[i]);
	printf("\n");
	num("usecs max", c->coal_usecs_max);
	if (c->coal_usecs_min.known) {
		printf("  %-22s %u", "usecs min", c->coal_usecs_min.v);
		for (i = 0, any = false; i < 32; i++)
			if (c->coal_usecs_modes & (1u << i)) {
				printf("%s%zu", any ? ", " : " (below it only ", i);
				any = true;
			}
		printf("%s\n", any ? ")" : "");
	}
	num("frames max", c->coal_frames_max);
	if (c->coal_usecs_with_adaptive != NT_TRI_UNKNOWN)
		printf("  %-22s %s\n", "usecs with adaptive", tri(c->coal_usecs_with_adaptive));
	if (c->src_coalesce)
		printf("    source: %s\n", E(c->src_coalesce));
}

/* the offloads, windows and notes blocks */
static void show_offloads_windows(const struct nt_caps *c)
{
	size_t i;

	printf("offloads (linux)\n");
	for (i = 0; i < NT_OFF__COUNT; i++)
		printf("  %-22s %s\n", nt_off_names[i], state(c->off[i]));
	if (c->src_offloads)
		printf("    source: %s\n", E(c->src_offloads));
	printf("windows\n");
	printf("  %-22s %s\n  %-22s %s\n  %-22s %s\n  %-22s %s\n", "uso", wstate(c->win_uso),
	       "rsc", wstate(c->win_rsc), "hardware uro", wstate(c->win_hw_uro),
	       "rss", wstate(c->win_rss));
	printf("  %-22s", "rss profiles");
	for (i = 0; i < c->nrss_profiles; i++)
		printf(" %s", E(c->rss_profiles[i]));
	printf("%s\n", c->rss_profiles ? "" : " unknown");
	if (c->src_windows)
		printf("    source: %s\n", E(c->src_windows));
	if (c->notes)
		notes(c->notes);
}

static void show(const struct nt_caps *c)
{
	show_ident(c);
	show_channels(c);
	show_rings(c);
	show_rss(c);
	show_coalesce(c);
	show_offloads_windows(c);
}

static void help(void)
{
	printf("Usage: nettune caps [MODEL]\n\n"
	       "Without MODEL, lists the NIC capability tables (id, driver, name).\n"
	       "With MODEL, shows every value of that table and where it was read.\n"
	       "The tables of schema/nics/ are compiled into nettune; a local directory\n"
	       "(--caps-dir DIR, or $NETTUNE_CAPS_DIR) adds tables or replaces a built-in\n"
	       "table with the same id.  Each table says where it came from.\n");
}

int cmd_caps(int argc, char **argv)
{
	struct nt_diags d = {0};
	const struct nt_capsdb *db;
	const char *model = NULL;
	int r;
	const struct nt_opts spec = {"caps", NULL, help, .one = &model,
				     .more = "one MODEL at a time"};

	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO)
		return r;
	r = NT_EXIT_OK;
	db = nt_capsdb_default(&d);
	if (!model)	/* the list shows (and checks) every table */
		nt_capsdb_parse_all(db, &d);
	nt_diags_sort(&d);
	nt_diags_print_text(&d, stderr);
	if (!db) {
		nt_diags_free(&d);
		return NT_EXIT_FAIL;
	}
	/* a table that did not load is left out: say so in the exit code */
	if (d.errors)
		r = NT_EXIT_FAIL;
	if (!model) {
		for (size_t k = 0; k < db->n; k++)
			printf("%-18s %-12s %s%s%s%s\n", E(db->v[k].id), E(db->v[k].driver),
			       E(db->v[k].name), strcmp(db->v[k].origin, "built-in") ? " [" : "",
			       strcmp(db->v[k].origin, "built-in") ? E(db->v[k].origin) : "",
			       strcmp(db->v[k].origin, "built-in") ? "]" : "");
	} else {
		const struct nt_caps *c = nt_caps_find(db, model);

		if (c) {
			show(c);
		} else {
			const char *s = nt_caps_suggest(db, model);

			fprintf(stderr, "nettune caps: no capability table '%s'%s%s%s\n", E(model),
				s ? "; did you mean '" : "", s ? E(s) : "", s ? "'?" : "");
			r = NT_EXIT_FAIL;
		}
	}
	nt_diags_free(&d);
	return r;
}
