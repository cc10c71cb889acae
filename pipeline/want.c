/* SPDX-License-Identifier: MIT */
/* What a profile makes worth observing (want.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/base/strindex.h"
#include "../compiler/model/offloads.h"
#include "../compiler/model/tunnel.h"
#include "want.h"

/* "/interfaces/I/" in path (48 bytes or more), its length (snprintf is
 * the most of a lookup's cost) */
static size_t iface_path(char *path, size_t i)
{
	char d[24];
	size_t n = 0, o = sizeof("/interfaces/") - 1;

	do
		d[n++] = (char)('0' + i % 10);
	while ((i /= 10));
	memcpy(path, "/interfaces/", o);
	while (n)
		path[o++] = d[--n];
	path[o++] = '/';
	path[o] = '\0';
	return o;
}

/* "interfaces[].rss.flow_hash; ..." -> whether interface i of the profile
 * names one of those keys */
static bool names_key(const struct nt_loaded *l, size_t i, const char *keys)
{
	const char *p = keys;

	while (p && *p) {
		char path[256];
		size_t n, o;

		p += strspn(p, " ;");
		n = strcspn(p, "; ({");
		if (n > 13 && !strncmp(p, "interfaces[].", 13)) {
			o = iface_path(path, i);
			if (o + n - 13 < sizeof(path)) {
				memcpy(path + o, p + 13, n - 13);
				path[o + n - 13] = '\0';
				for (char *c = path + o; *c; c++)
					if (*c == '.')
						*c = '/';
				if (nt_yget(l->tree, path, false))
					return true;
			}
		}
		p += n;
		p += strcspn(p, ";");
	}
	return false;
}

/* skip[k] for the kinds the rows observe (NT_LR_OBSERVE): true unless
 * some interface of the request names one of the kind's profile keys. */
static void want_rows(const struct nt_loaded *l, const bool *in, bool skip[NT_K__COUNT])
{
	size_t k, i, n = l->p ? l->p->interfaces_count : 0;

	for (k = 0; k < NT_K__COUNT; k++) {
		const struct nt_linux_row *r = nt_linux_row((enum nt_kind_id)k);

		skip[k] = true;
		for (i = 0; r && (r->flags & NT_LR_OBSERVE) && i < n && skip[k]; i++)
			skip[k] = !in[i] || !names_key(l, i, nt_kinds[k].keys);
	}
}

/* Read only the groups some interface of the profile sets: the other
 * groups can produce no action (a no-op apply reads nothing else). */
static unsigned want_groups(const struct nt_iface *f, unsigned skip)
{
	if (f->rings)
		skip &= ~NT_OBS_RINGS;
	if (f->coalesce)
		skip &= ~NT_OBS_COALESCE;
	/* channels too: shrinking them needs the RSS table (plan.c resets it) */
	if (f->rss || f->channels)
		skip &= ~NT_OBS_RSS;
	if (f->irq || f->rps || f->xps)
		skip &= ~NT_OBS_QUEUES;
	return skip;
}

static const char *want_iface_key(const void *arr, size_t i)
{
	return ((const struct nt_feature_want *)arr)[i].iface;
}

/* The features lowering can set or read, one entry per interface name:
 * the feature groups of its offloads and its linux: features. */
static void want_features(const struct nt_profile *p, const bool *in, struct nt_want *w)
{
	struct nt_strindex ix = {0};
	size_t i, n = 0;

	w->features = nt_xcalloc(p->interfaces_count + 1, sizeof(*w->features));
	for (i = 0; i < p->interfaces_count; i++) {
		const struct nt_iface *f = &p->interfaces[i];
		size_t at;
		struct nt_feature_want *e;
		const char **names;
		unsigned j;

		if (!in[i])
			continue;
		at = nt_strindex_find(&ix, w->features, n, want_iface_key, f->name);
		if (at == SIZE_MAX) {
			at = n++;
			w->features[at].iface = f->name;
		}
		e = &w->features[at];
		e->groups |= nt_linux_feature_groups(f);
		if (!f->linux_opts || !f->linux_opts->features_count)
			continue;
		names = nt_xrealloc((void *)e->names, (e->nnames + f->linux_opts->features_count) *
				    sizeof(*names));
		for (j = 0; j < f->linux_opts->features_count; j++)
			names[e->nnames++] = f->linux_opts->features[j].key;
		e->names = names;
	}
	nt_strindex_reset(&ix);
	w->req.want_features = true;
	w->req.features = w->features;
	w->req.nfeatures = n;
}

/* The interfaces of the request: every one, or (narrow) the entries of
 * that interface and of its underlays (nt_tunnel_chain). */
static bool *in_request(const struct nt_profile *p, const char *narrow)
{
	bool *in = nt_xcalloc(p->interfaces_count + 1, sizeof(*in));

	if (narrow)
		nt_tunnel_chain(p, narrow, in);
	else
		memset(in, 1, p->interfaces_count * sizeof(*in));
	return in;
}

void nt_want_profile(const struct nt_loaded *l, const char *narrow, struct nt_want *w)
{
	const struct nt_profile *p = l->p;
	struct nt_observe_req *req = &w->req;
	bool *in = in_request(p, narrow);
	size_t i;

	memset(w, 0, sizeof(*w));
	w->ifaces = nt_xcalloc(p->interfaces_count + 1, sizeof(char *));
	w->sysctls = nt_xcalloc(p->sysctl_count + 1, sizeof(char *));
	w->processes = nt_xcalloc(p->processes_count + 1, sizeof(char *));
	req->skip = NT_OBS_RINGS | NT_OBS_COALESCE | NT_OBS_RSS | NT_OBS_QUEUES;
	want_rows(l, in, w->skip_rows);
	req->skip_rows = w->skip_rows;
	for (i = 0; i < p->interfaces_count; i++) {
		const struct nt_iface *f = &p->interfaces[i];

		if (!in[i])
			continue;
		w->ifaces[req->nifaces++] = f->name;
		req->irqbalance |= f->irq != NULL && !narrow;
		req->skip = want_groups(f, req->skip);
	}
	/* host-wide settings are not in a narrow request */
	for (i = 0; !narrow && i < p->sysctl_count; i++)
		w->sysctls[req->nsysctls++] = p->sysctl[i].key;
	for (i = 0; !narrow && i < p->processes_count; i++) {
		const struct nt_process_match *m = &p->processes[i].match;

		w->processes[req->nprocesses++] = nt_xasprintf("process %s", m->systemd_unit ?
							       m->systemd_unit : m->comm ? m->comm :
							       m->pidfile);
	}
	want_features(p, in, w);
	free(in);
	req->ifaces = w->ifaces;
	req->sysctls = w->sysctls;
	req->processes = (const char *const *)w->processes;
	/* the applier reads one device at a time rather than dumping all */
	req->narrow = narrow != NULL;
}

void nt_want_free(struct nt_want *w)
{
	size_t i;

	for (i = 0; i < w->req.nprocesses; i++)
		free(w->processes[i]);
	for (i = 0; i < w->req.nfeatures; i++)
		free((void *)w->features[i].names);
	free(w->processes);
	free(w->features);
	free(w->ifaces);
	free(w->sysctls);
	memset(w, 0, sizeof(*w));
}
