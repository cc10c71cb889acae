/* SPDX-License-Identifier: MIT */
/* The offload feature groups of offloads.def: portable key -> ethtool
 * features, read by lowering, host profiles, observation and the sh
 * emitter. */
#include <string.h>

#include "../language/profile.h"
#include "offloads.h"

const struct nt_fgroup nt_fgroups[] = {
#define NT_OFFLOAD(key, cap, where, pf, lowers_to, doc, ...) {#key, lowers_to, {__VA_ARGS__}},
#include "../language/offloads.def"
#undef NT_OFFLOAD
};

#define NFGROUPS (sizeof(nt_fgroups) / sizeof(nt_fgroups[0]))

enum nt_gmatch nt_fgroup_match(const struct nt_fgroup *g)
{
	if (!strcmp(g->portable, "tx_checksum"))
		return NT_GM_TX_CSUM;
	if (!strcmp(g->portable, "tso"))
		return NT_GM_TSO;
	return NT_GM_LIST;
}

bool nt_fgroup_has_as(const struct nt_fgroup *g, enum nt_gmatch m, const char *feature)
{
	size_t k, n;

	switch (m) {
	case NT_GM_TX_CSUM:
		return !strncmp(feature, "tx-checksum-", 12);
	case NT_GM_TSO:
		/* the glob tx-tcp*-segmentation */
		n = strlen(feature);
		return n >= 19 && !strncmp(feature, "tx-tcp", 6) &&
		       !strcmp(feature + n - 13, "-segmentation");
	case NT_GM_LIST:
		break;
	}
	for (k = 0; k < 6 && g->names[k]; k++)
		if (!strcmp(g->names[k], feature))
			return true;
	return false;
}

static bool nt_fgroup_has(const struct nt_fgroup *g, const char *feature)
{
	return nt_fgroup_has_as(g, nt_fgroup_match(g), feature);
}

const char *nt_linux_offload(size_t k)
{
	size_t i;

	for (i = 0; i < NFGROUPS; i++)
		if (nt_fgroups[i].names[0] && !k--)
			return nt_fgroups[i].portable;
	return NULL;
}

const char *nt_linux_offload_of(const char *feature)
{
	size_t k;

	for (k = 0; k < NFGROUPS; k++)
		if (nt_fgroup_has(&nt_fgroups[k], feature))
			return nt_fgroups[k].portable;
	return NULL;
}

void nt_linux_offload_patterns(size_t k, struct nt_buf *out)
{
	size_t i, j;

	for (i = 0; i < NFGROUPS; i++)
		if (nt_fgroups[i].names[0] && !k--)
			break;
	if (i == NFGROUPS)
		return;
	/* the same rules as in_group_as, written as sh case patterns */
	switch (nt_fgroup_match(&nt_fgroups[i])) {
	case NT_GM_TX_CSUM:
		nt_buf_puts(out, "tx-checksum-*");
		return;
	case NT_GM_TSO:
		nt_buf_puts(out, "tx-tcp*-segmentation");
		return;
	case NT_GM_LIST:
		break;
	}
	for (j = 0; j < 6 && nt_fgroups[i].names[j]; j++)
		nt_buf_printf(out, "%s%s", j ? " | " : "", nt_fgroups[i].names[j]);
}

const struct nt_fgroup *nt_fgroup_named(const char *portable)
{
	size_t k;

	for (k = 0; k < NFGROUPS; k++)
		if (nt_fgroups[k].names[0] && !strcmp(nt_fgroups[k].portable, portable))
			return &nt_fgroups[k];
	return NULL;
}

const char *nt_fgroup_next(const struct nt_fgroup *g, const char **p, char *buf, size_t n)
{
	const char *s = *p ? *p : g->lowers_to ? g->lowers_to : g->portable;
	size_t len;

	s += strspn(s, " ");
	len = strcspn(s, " ");
	if (!len || len >= n || (!g->lowers_to && !g->names[0]))
		return NULL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*p = s + len;
	return buf;
}

/* The feature groups (a mask of nt_fgroups[] indexes) lowering f can set or
 * read: the groups its offloads name or lower to, and those they imply
 * (tx checksum, scatter-gather, rx checksum).  Observation for plan and
 * apply keeps only their features (and f's linux: features); a superset
 * is harmless, a subset would lose a value. */
uint64_t nt_linux_feature_groups(const struct nt_iface *f)
{
	const struct nt_offloads *o = f->offloads;
	const struct nt_toggle *const t[] = {
#define NT_OFFLOAD(key, ...) o ? o->key : NULL,
#include "../language/offloads.def"
#undef NT_OFFLOAD
	};
	static const char *const implied[] = {"tx_checksum", "sg", "rx_checksum"};
	uint64_t mask = 0;
	size_t k;

	_Static_assert(NFGROUPS <= 64, "a mask of 64 groups");
	if (!o)
		return 0;
	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		const char *p = NULL, *gname;
		char buf[64];

		if (!t[k])
			continue;
		while ((gname = nt_fgroup_next(&nt_fgroups[k], &p, buf, sizeof(buf)))) {
			const struct nt_fgroup *g = nt_fgroup_named(gname);

			if (g)
				mask |= 1ULL << (g - nt_fgroups);
		}
	}
	for (k = 0; k < sizeof(implied) / sizeof(implied[0]); k++)
		mask |= 1ULL << (nt_fgroup_named(implied[k]) - nt_fgroups);
	return mask;
}

bool nt_linux_feature_in_groups(uint64_t mask, const char *feature)
{
	while (mask) {
		const struct nt_fgroup *g = &nt_fgroups[__builtin_ctzll(mask)];

		if (nt_fgroup_has(g, feature))
			return true;
		mask &= mask - 1;
	}
	return false;
}
