/* SPDX-License-Identifier: MIT */
/*
 * Coverage of the kind rows: every Linux kind declares each piece of its
 * row (compiler/model/settings.c nt_kinds[]: profile keys, scope, phase,
 * argument shape and names; appliers/linux/kinds.c nt_linux_rows[]: how
 * it is read and written and the functions that do it, its file, its sh
 * getter and setter),
 * and the pieces agree with each other and with the profile schema.  A
 * new kind that forgets one fails here, naming the kind and the piece.
 */
#include <ctype.h>

#include <linux/if_link.h>

#include "../../appliers/linux/link.h"
#include "../../appliers/linux/linux.h"
#include "../../appliers/linux/rows.h"
#include "../../compiler/language/profile.h"
#include "nt_test.h"
#include "schema.h"

static int fails;

#define NEED(k, cond, piece) do { if (!(cond)) { \
	fprintf(stderr, "kind %s: %s\n", nt_kinds[k].name ? nt_kinds[k].name : "?", piece); \
	fails++; CU_FAIL(piece); } } while (0)

static size_t count_s(const char *t)
{
	size_t n = 0;

	for (; t && (t = strstr(t, "%s")); t += 2)
		n++;
	return n;
}

/* "interfaces[].rss.flow_hash; ..." -> each first key below its root
 * is a documented key of the profile schema */
static void keys_known(size_t k)
{
	char *all = nt_xstrdup(nt_kinds[k].keys ? nt_kinds[k].keys : ""), *save = NULL, *one;

	for (one = strtok_r(all, ";", &save); one; one = strtok_r(NULL, ";", &save)) {
		const cyaml_schema_field_t *fields = nt_profile_schema.mapping.fields;
		char word[64];
		size_t n;

		while (*one == ' ')
			one++;
		if (!strncmp(one, "interfaces[].", 13)) {
			fields = nt_iface_fields;
			one += 13;
		}
		n = strcspn(one, ".[ {:");
		snprintf(word, sizeof(word), "%.*s", (int)n, one);
		if (!nt_key_doc(fields, word)) {
			fprintf(stderr, "kind %s: profile key '%s' is not a documented key\n",
				nt_kinds[k].name, word);
			fails++;
			CU_FAIL("profile key unknown");
		}
	}
	free(all);
}

static void test_compiler_rows(void)
{
	size_t k, j;

	for (k = 0; k < NT_K__COUNT; k++) {
		const struct nt_kinddef *d = &nt_kinds[k];
		bool has_arg = d->flags & NT_KF_HAS_ARG, per_q = d->flags & NT_KF_PER_QUEUE;
		bool queue_shape = d->argshape == NT_ARG_RXQ || d->argshape == NT_ARG_TXQ ||
				   d->argshape == NT_ARG_IRQQ;

		NEED(k, d->id == k, "row is not at its enum index");
		NEED(k, d->name && *d->name, "no attribute word");
		NEED(k, nt_kind_by_name(d->name) == d, "attribute word not unique");
		NEED(k, d->help && *d->help, "no help text");
		NEED(k, d->phase > 0, "no phase");
		NEED(k, d->keys && *d->keys, "no profile key");
		/* lower_plain: one interface key, a u32 or a bool, no argument
		 * or named ones */
		NEED(k, !d->lower_at || (!strncmp(d->keys, "interfaces[].", 13) &&
					 !strpbrk(d->keys, ";({ ")),
		     "lowered by the rows but not from one interface key");
		NEED(k, !d->lower_at || d->vtype == NT_V_U32 || d->vtype == NT_V_BOOL,
		     "lowered by the rows but neither a u32 nor a bool");
		NEED(k, !d->lower_at || d->argshape == NT_ARG_NONE || d->argshape == NT_ARG_NAMED,
		     "lowered by the rows but its arguments are not named");
		NEED(k, has_arg == (d->argshape != NT_ARG_NONE), "NT_KF_HAS_ARG disagrees with the argument shape");
		NEED(k, per_q == queue_shape, "NT_KF_PER_QUEUE disagrees with the argument shape");
		NEED(k, d->argshape != NT_ARG_NAMED || (d->args && d->args[0]), "named argument without names");
		NEED(k, d->argshape != NT_ARG_OPEN || (d->argfrom && *d->argfrom),
		     "open argument without saying where names come from");
		for (j = 0; d->argshape == NT_ARG_NAMED && d->args && d->args[j]; j++)
			NEED(k, nt_kind_arg_index((enum nt_kind_id)k, d->args[j]) == (int)j,
			     "argument names repeat");
		NEED(k, d->scope == NT_SCOPE_HOST || d->scope == NT_SCOPE_NETNS ||
		     d->scope == NT_SCOPE_BY_KEY, "scope out of range");
		if (!(d->flags & NT_KF_WINDOWS))
			keys_known(k);
	}
}

static bool sysfs_path(const char *p)
{
	return p && !strncmp(p, "/sys/", 5);
}

static void test_linux_rows(void)
{
	size_t k, j;

	for (k = 0; k < NT_K__COUNT; k++) {
		const struct nt_kinddef *d = &nt_kinds[k];
		const struct nt_linux_row *r = nt_linux_row((enum nt_kind_id)k);

		if (d->flags & NT_KF_WINDOWS) {
			NEED(k, !r, "a Windows kind has a Linux row");
			NEED(k, !nt_linux_rows[k]->read && !nt_linux_rows[k]->write,
			     "a Windows kind has Linux functions");
			continue;
		}
		NEED(k, r != NULL, "no Linux row (appliers/linux/kinds.c)");
		if (!r)
			continue;
		NEED(k, r->kind == k, "Linux row is not at its enum index");
		NEED(k, r->get.how != NT_IO_NONE && r->get.what && *r->get.what, "no way to read it");
		NEED(k, r->set.how != NT_IO_NONE && r->set.what && *r->set.what, "no way to write it");
		NEED(k, (r->get.how != NT_IO_SYSFS && r->set.how != NT_IO_SYSFS) || sysfs_path(r->path),
		     "read or written through sysfs without a /sys path template");
		/* a path takes the object, then the argument (irq-affinity: the IRQ) */
		if (r->path)
			NEED(k, count_s(r->path) == (d->argshape == NT_ARG_IRQQ ? 1 :
						     d->argshape == NT_ARG_NONE ? 1 : 2),
			     "path template takes the wrong number of names");
		NEED(k, r->sh_fn && *r->sh_fn, "no sh function name");
		for (j = 0; r->sh_fn && r->sh_fn[j]; j++)
			NEED(k, islower((unsigned char)r->sh_fn[j]) || r->sh_fn[j] == '_',
			     "sh function name is not [a-z_]");
		NEED(k, r->sh_get && *r->sh_get, "no sh getter");
		NEED(k, r->sh_put && *r->sh_put, "no sh setter");
		/* the file of a sysfs row is spelled once: the sh getter uses the row's */
		if (sysfs_path(r->path))
			NEED(k, strstr(r->sh_get, "@PATH@") != NULL, "sh getter spells the path again");
		NEED(k, !strstr(r->sh_get, "@PATH@") || r->path, "sh getter uses @PATH@ without a path");
		NEED(k, !strstr(r->sh_put, "@PATH@") || r->path, "sh setter uses @PATH@ without a path");
		NEED(k, d->vtype != NT_V_CPUS || r->sh_value != NT_SHV_FOLDED, "CPU set folded as text");
		NEED(k, r->read && r->write, "no read or write function (kinds.c)");
		NEED(k, !(r->flags & NT_LR_OBSERVE) || d->argshape != NT_ARG_OPEN || r->all,
		     "observed by its row but the argument shape cannot be listed (open: no all function)");
		NEED(k, !r->all || (r->flags & NT_LR_OBSERVE), "an all function nothing calls");
		/* nt_linux_rows_skip finds the profile's use of the kind by its keys */
		NEED(k, !(r->flags & NT_LR_OBSERVE) || !strncmp(d->keys, "interfaces[].", 13),
		     "observed by its row but its profile key is not an interface key");
		/* the generic functions: a file row has a path taking object and
		 * argument and a type they parse; a link row an attribute of the dump */
		if (r->read == nt_rw_file_read || r->write == nt_rw_file_write) {
			NEED(k, r->path && d->argshape != NT_ARG_IRQQ && d->argshape != NT_ARG_OPEN,
			     "generic file functions without a path of object and argument");
			NEED(k, d->vtype == NT_V_U32 || d->vtype == NT_V_STR || d->vtype == NT_V_CPUS,
			     "generic file functions cannot parse the kind's type");
			NEED(k, r->get.how == NT_IO_SYSFS || r->get.how == NT_IO_PROCFS,
			     "generic file functions but the row says it is not a file");
		}
		if (r->read == nt_rw_link_read || r->write == nt_rw_link_write) {
			NEED(k, nt_link_attr_index(r->attr) >= 0,
			     "generic link functions for an attribute the link dump does not keep");
			NEED(k, d->vtype == NT_V_U32 && d->argshape == NT_ARG_NONE && r->path,
			     "generic link functions need a u32 without argument and a path for --root");
			NEED(k, r->get.how == NT_IO_RTNL && r->set.how == NT_IO_RTNL,
			     "generic link functions but the row says it is not rtnetlink");
		}
		NEED(k, r->attr == 0 || r->read == nt_rw_link_read, "an attribute nothing reads");
		/* an ethtool family row: every argument of the kind is one of
		 * the family's, found by name */
		NEED(k, !r->fam || d->argshape == NT_ARG_NAMED,
		     "an ethtool family row whose arguments are not named");
		for (j = 0; r->fam && d->args && d->args[j]; j++)
			NEED(k, nt_ethnl_arg_index(r->fam, (enum nt_kind_id)k, d->args[j]) >= 0,
			     "an argument its ethtool family does not have");
		NEED(k, !r->fam == (r->read != nt_rw_ethnl_read && r->write != nt_rw_ethnl_write),
		     "generic ethtool functions without a family, or a family nothing reads");
		for (j = 0; j < k; j++) {
			const struct nt_linux_row *o = nt_linux_row((enum nt_kind_id)j);

			NEED(k, !o || strcmp(o->sh_fn, r->sh_fn), "sh function name not unique");
		}
	}
}

/* The sh setter of rx-flow-hash maps the profile key's words to the
 * letters ethtool(8) parse_rxfhashopts gives their RXH_* bits, and the
 * kind's formatter and parser agree. */
static void test_rxh(void)
{
	static const struct { uint32_t bit; char letter; } ethtool[] = {
		{1u << 1, 'm'}, {1u << 2, 'v'}, {1u << 3, 't'}, {1u << 4, 's'},
		{1u << 5, 'd'}, {1u << 6, 'f'}, {1u << 7, 'n'}, {1u << 31, 'r'},
	};
	const struct nt_linux_row *r = nt_linux_row(NT_K_FLOW_HASH);
	const struct nt_word_map *m = nt_kind_word_map(NT_K_FLOW_HASH);
	uint32_t bits;
	char *s;
	size_t i, j;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_EQUAL(m, nt_word_map_at("rss.flow_hash"));
	for (i = 0; m->words[i].word; i++) {
		char pair[32];

		for (j = 0; j < sizeof(ethtool) / sizeof(ethtool[0]) && ethtool[j].bit != m->words[i].bit; j++)
			;
		CU_ASSERT_FATAL(j < sizeof(ethtool) / sizeof(ethtool[0]));
		snprintf(pair, sizeof(pair), "%s %c", m->words[i].word, ethtool[j].letter);
		if (!strstr(r->sh_put, pair)) {
			fprintf(stderr, "rx-flow-hash sh setter lacks '%s'\n", pair);
			CU_FAIL("sh letters disagree with the profile key's words");
		}
	}
	CU_ASSERT_EQUAL(i, 8);
	/* the arguments are the kind's, in its order */
	for (i = 0; m->args[i].arg; i++)
		CU_ASSERT_EQUAL(nt_kind_arg_index(NT_K_FLOW_HASH, m->args[i].arg), (int)i);
	CU_ASSERT_PTR_NULL(nt_kinds[NT_K_FLOW_HASH].args[i]);
	/* RXH_IP_SRC | RXH_IP_DST | RXH_L4_B_0_1 | RXH_L4_B_2_3 (include/uapi/linux/ethtool.h) */
	s = nt_kind_words_format(NT_K_FLOW_HASH, 0xf0);
	CU_ASSERT_STRING_EQUAL(s, "src-ip dst-ip src-port dst-port");
	CU_ASSERT_TRUE(nt_kind_words_parse(NT_K_FLOW_HASH, s, &bits));
	CU_ASSERT_EQUAL(bits, 0xf0);
	free(s);
	s = nt_kind_words_format(NT_K_FLOW_HASH, 0);
	CU_ASSERT_STRING_EQUAL(s, "none");
	free(s);
	s = nt_kind_words_format(NT_K_FLOW_HASH, 1u << 31 | 1u << 1);
	CU_ASSERT_STRING_EQUAL(s, "l2da discard");
	free(s);
	/* a bit this table does not name (RXH_GTP_TEID, 1 << 8) is shown, not
	 * dropped, and reads back (a snapshot of such a NIC loads) */
	s = nt_kind_words_format(NT_K_FLOW_HASH, 0x130);
	CU_ASSERT_STRING_EQUAL(s, "src-ip dst-ip 0x100");
	CU_ASSERT_TRUE(nt_kind_words_parse(NT_K_FLOW_HASH, s, &bits));
	CU_ASSERT_EQUAL(bits, 0x130);
	CU_ASSERT_FALSE(nt_kind_words_parse(NT_K_FLOW_HASH, "0xZ", &bits));
	free(s);
	CU_ASSERT_FALSE(nt_kind_words_parse(NT_K_FLOW_HASH, "src-ip dst", &bits));
	/* every word map (ifkeys.def NT_IFKEY_WORDS) is the key of exactly
	 * one kind, its alone word is one of its words, its pairs name two of
	 * its arguments */
	for (m = nt_word_maps; m->key; m++) {
		const struct nt_word_pair *p;
		int kinds = 0;

		for (j = 0; j < NT_K__COUNT; j++)
			kinds += nt_kind_word_map((enum nt_kind_id)j) == m;
		CU_ASSERT_EQUAL(kinds, 1);
		CU_ASSERT_PTR_NOT_NULL(nt_word_of(m, m->alone));
		for (p = m->pairs; p->a; p++) {
			size_t a, b;

			for (a = 0; m->args[a].arg && strcmp(m->args[a].arg, p->a); a++)
				;
			for (b = 0; m->args[b].arg && strcmp(m->args[b].arg, p->b); b++)
				;
			CU_ASSERT_PTR_NOT_NULL(m->args[a].arg);
			CU_ASSERT_PTR_NOT_NULL(m->args[b].arg);
		}
	}
	m = nt_kind_word_map(NT_K_FLOW_HASH);
	/* a kind without a word map has no words */
	CU_ASSERT_PTR_NULL(nt_kind_words_format(NT_K_MTU, 0));
	CU_ASSERT_FALSE(nt_kind_words_parse(NT_K_MTU, "none", &bits));
}

/* The path expansion the sh emitter uses. */
static void test_sh_path(void)
{
	struct nt_buf b = {0};

	nt_linux_row_sh(nt_linux_row(NT_K_XPS_CPUS), "cat \"@PATH@\"", &b);
	CU_ASSERT_STRING_EQUAL(b.p, "cat \"/sys/class/net/$1/queues/tx-$2/xps_cpus\"");
	nt_buf_free(&b);
	nt_linux_row_sh(nt_linux_row(NT_K_IRQ_AFFINITY), nt_linux_row(NT_K_IRQ_AFFINITY)->sh_get, &b);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.p, "cat \"/proc/irq/$nt_i/smp_affinity_list\""));
	nt_buf_free(&b);
	/* the capability tables' channel kinds are the kind row's names */
	for (int k = 0; k < NT_CH__COUNT; k++)
		CU_ASSERT_STRING_EQUAL(nt_kinds[NT_K_CHANNELS].args[k], nt_chan_names[k]);
	CU_ASSERT_PTR_NULL(nt_kinds[NT_K_CHANNELS].args[NT_CH__COUNT]);
	/* lower_plain reads struct nt_pause as one pointer per argument */
	CU_ASSERT_EQUAL(offsetof(struct nt_pause, tx), 2 * sizeof(bool *));
	CU_ASSERT_EQUAL(sizeof(struct nt_pause), 3 * sizeof(bool *));
	/* apply.c batches channel counts by enum nt_chan */
	for (int k = 0; k < NT_CH__COUNT; k++)
		CU_ASSERT_EQUAL(nt_ethnl_arg_index(&nt_fam_channels, NT_K_CHANNELS, nt_chan_names[k]), k);
	CU_ASSERT_EQUAL(nt_kind_arg_index(NT_K_RING, "rx-jumbo"), 3);
	CU_ASSERT_EQUAL(nt_kind_arg_index(NT_K_PAUSE, "tx"), 2);
	CU_ASSERT_EQUAL(nt_kind_arg_index(NT_K_FLOW_HASH, "udp7"), -1);
	CU_ASSERT_EQUAL(nt_kind_arg_index(NT_K_MTU, "rx"), -1);
}

int main(void)
{
	CU_pSuite s;
	unsigned f;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("kinds", NULL, NULL);
	CU_add_test(s, "compiler rows: keys, scope, phase, argument shape", test_compiler_rows);
	CU_add_test(s, "Linux rows: read, write, path, sh getter and setter, functions",
		    test_linux_rows);
	CU_add_test(s, "rx-flow-hash fields", test_rxh);
	CU_add_test(s, "sh path expansion and argument names", test_sh_path);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	f = CU_get_number_of_failures();
	CU_cleanup_registry();
	return f || fails ? 1 : 0;
}
