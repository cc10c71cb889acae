/* SPDX-License-Identifier: MIT */
/* nettune emit --format ps1: the desired state as an idempotent PowerShell playbook. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/model/names.h"
#include "../../compiler/base/version.h"
#include "../emit.h"
#include "playbook_ps1.h"

/*
 * One row per Windows kind: a branch of Get-NtValue (returns the current
 * value as the desired one is written: [bool], [int] or [string]; CIM enums
 * through ConvertTo-NtEnumName) and a branch of Set-NtValue ($Value).
 * Parameters are splatted with literal keys: the offline grammar the tests
 * use rejects parameter names with digits (-IPv4Enabled), and literal keys
 * let the parameter checker (tests/emit/ps1params.js) see every name.
 * restart: the Set runs with -NoRestart, so a stale read-back is pending a
 * restart of the adapter rather than a failure.
 */
struct ps_row {
	enum nt_kind_id kind;
	const char *name;
	bool restart;
	const char *get;
	const char *set;
};

#define PS_FAMILY_SET(cmdlet) \
	"$p = @{ Name = $S.Object; NoRestart = $true }\n" \
	"            if ($S.Arg -eq 'ipv6') { $p['IPv6Enabled'] = [bool]$Value } else { $p['IPv4Enabled'] = [bool]$Value }\n" \
	"            " cmdlet " @p"
#define PS_FAMILY_GET(cmdlet) \
	"$a = " cmdlet " -Name $S.Object\n" \
	"            if ($S.Arg -eq 'ipv6') { return [bool]$a.IPv6Enabled }\n" \
	"            return [bool]$a.IPv4Enabled"

static const struct ps_row ps_rows[] = {
	{NT_K_WIN_ADVPROP, "advanced-property", true,
	 "# exact match: -RegistryKeyword would read '*JumboPacket' as a wildcard\n"
	 "            $a = @(Get-NetAdapterAdvancedProperty -Name $S.Object -AllProperties | Where-Object { $_.RegistryKeyword -eq $S.Arg })\n"
	 "            if ($a.Count -ne 1) { throw \"no advanced property '$($S.Arg)' on '$($S.Object)'\" }\n"
	 "            # RegistryValue is a string array: compare its first element\n"
	 "            return [string]@($a[0].RegistryValue)[0]",
	 "$a = @(Get-NetAdapterAdvancedProperty -Name $S.Object -AllProperties | Where-Object { $_.RegistryKeyword -eq $S.Arg })\n"
	 "            if ($a.Count -ne 1) { throw \"no advanced property '$($S.Arg)' on '$($S.Object)'\" }\n"
	 "            $p = @{ RegistryValue = [string]$Value; NoRestart = $true }\n"
	 "            $a[0] | Set-NetAdapterAdvancedProperty @p"},
	{NT_K_WIN_CHECKSUM, "checksum", true,
	 "# uint32 0..3 on the CIM class, a name through the cmdlet's type data\n"
	 "            $a = Get-NetAdapterChecksumOffload -Name $S.Object\n"
	 "            return (ConvertTo-NtEnumName $a.($S.Arg + 'Enabled') 'Checksum')",
	 "$p = @{ Name = $S.Object; NoRestart = $true }\n"
	 "            switch ($S.Arg) {\n"
	 "                'IpIPv4' { $p['IpIPv4Enabled'] = [string]$Value }\n"
	 "                'TcpIPv4' { $p['TcpIPv4Enabled'] = [string]$Value }\n"
	 "                'TcpIPv6' { $p['TcpIPv6Enabled'] = [string]$Value }\n"
	 "                'UdpIPv4' { $p['UdpIPv4Enabled'] = [string]$Value }\n"
	 "                'UdpIPv6' { $p['UdpIPv6Enabled'] = [string]$Value }\n"
	 "                default { throw \"unknown checksum offload '$($S.Arg)'\" }\n"
	 "            }\n"
	 "            Set-NetAdapterChecksumOffload @p"},
	{NT_K_WIN_LSO, "lso", true, PS_FAMILY_GET("Get-NetAdapterLso"), PS_FAMILY_SET("Set-NetAdapterLso")},
	{NT_K_WIN_USO, "uso", true, PS_FAMILY_GET("Get-NetAdapterUso"), PS_FAMILY_SET("Set-NetAdapterUso")},
	{NT_K_WIN_RSC, "rsc", true, PS_FAMILY_GET("Get-NetAdapterRsc"), PS_FAMILY_SET("Set-NetAdapterRsc")},
	{NT_K_WIN_URO, "uro", true,
	 "# hardware URO: Get-/Set-NetAdapterUro exist from Windows 11 24H2 and\n"
	 "            # Windows Server 2025 on; older versions have no hardware URO\n"
	 "            if (-not (Get-Command -Name 'Get-NetAdapterUro' -ErrorAction SilentlyContinue)) {\n"
	 "                return (New-NtUnknown 'Get-NetAdapterUro is not available (hardware URO needs Windows 11 24H2 or Windows Server 2025)')\n"
	 "            }\n"
	 "            $a = Get-NetAdapterUro -Name $S.Object\n"
	 "            return [bool]$a.Enabled",
	 "$p = @{ Name = $S.Object; Enabled = [bool]$Value; NoRestart = $true }\n"
	 "            Set-NetAdapterUro @p"},
	{NT_K_WIN_RSS, "rss", true,
	 "$a = Get-NetAdapterRss -Name $S.Object\n"
	 "            $v = $a.($NtRssProps[$S.Arg])\n"
	 "            # Profile: uint32 1..5 on the CIM class\n"
	 "            if ($S.Arg -eq 'profile') { $v = ConvertTo-NtEnumName $v 'RssProfile' }\n"
	 "            return [string]$v",
	 "$p = @{ Name = $S.Object; NoRestart = $true }\n"
	 "            switch ($S.Arg) {\n"
	 "                'enabled' { $p['Enabled'] = ([string]$Value -eq 'True') }\n"
	 "                'profile' { $p['Profile'] = [string]$Value }\n"
	 "                'base-processor' { $p['BaseProcessorNumber'] = [int]$Value }\n"
	 "                'max-processor' { $p['MaxProcessorNumber'] = [int]$Value }\n"
	 "                'max-processors' { $p['MaxProcessors'] = [int]$Value }\n"
	 "                'receive-queues' { $p['NumberOfReceiveQueues'] = [int]$Value }\n"
	 "                default { throw \"unknown RSS setting '$($S.Arg)'\" }\n"
	 "            }\n"
	 "            Set-NetAdapterRss @p"},
	{NT_K_WIN_IP_MTU, "ip-mtu", false,
	 "$fam = if ($S.Arg -eq 'ipv6') { 'IPv6' } else { 'IPv4' }\n"
	 "            $a = Get-NetIPInterface -InterfaceAlias $S.Object -AddressFamily $fam\n"
	 "            return [int]$a.NlMtu",
	 "$fam = if ($S.Arg -eq 'ipv6') { 'IPv6' } else { 'IPv4' }\n"
	 "            $p = @{ InterfaceAlias = $S.Object; AddressFamily = $fam; NlMtuBytes = [int]$Value }\n"
	 "            Set-NetIPInterface @p"},
	{NT_K_WIN_GLOBAL, "offload-global", false,
	 "if ($S.Arg -eq 'receive-segment-coalescing') {\n"
	 "                # uint8 0/1 on the CIM class\n"
	 "                return (ConvertTo-NtEnumName (Get-NetOffloadGlobalSetting).ReceiveSegmentCoalescing 'OffloadGlobal')\n"
	 "            }\n"
	 "            if ($S.Arg -eq 'uro') { return (Get-NtSoftwareUro) }\n"
	 "            throw \"unknown global setting '$($S.Arg)'\"",
	 "if ($S.Arg -eq 'receive-segment-coalescing') {\n"
	 "                $p = @{ ReceiveSegmentCoalescing = [string]$Value }\n"
	 "                Set-NetOffloadGlobalSetting @p\n"
	 "                return\n"
	 "            }\n"
	 "            if ($S.Arg -eq 'uro') {\n"
	 "                # software URO; netsh is native: $ErrorActionPreference does not cover it\n"
	 "                $null = netsh int udp set global ('uro=' + ([string]$Value).ToLowerInvariant())\n"
	 "                if ($LASTEXITCODE -ne 0) { throw \"netsh int udp set global exited with $LASTEXITCODE\" }\n"
	 "                return\n"
	 "            }\n"
	 "            throw \"unknown global setting '$($S.Arg)'\""},
	{0, NULL, false, NULL, NULL},
};

static const struct ps_row *row(enum nt_kind_id k)
{
	size_t i;

	for (i = 0; ps_rows[i].name; i++)
		if (ps_rows[i].kind == k)
			return &ps_rows[i];
	return NULL;
}

const char *nt_emit_ps1_row(enum nt_kind_id k)
{
	const struct ps_row *r = row(k);

	return r ? r->name : NULL;
}

/* Arguments and values are only ever compared exactly or passed as quoted
 * strings, never as -Name patterns: wildcards are fine there. */
static const char *arg_problem(const char *s)
{
	char *t = nt_xstrdup(s), *c;
	const char *why;

	for (c = t; *c; c++)
		if (*c == '*' || *c == '?' || *c == '[' || *c == ']' || *c == '`')
			*c = 'x';
	why = nt_ps_name_problem(t);
	free(t);
	return why;
}

static void ps_value(struct nt_buf *b, const struct nt_value *v)
{
	struct nt_buf t = {0};

	switch (v->t) {
	case NT_V_BOOL:
		nt_buf_puts(b, v->b ? "$true" : "$false");
		return;
	case NT_V_U32:
		nt_buf_printf(b, "%u", v->u);
		return;
	default:
		nt_value_format(v, &t, true);
		nt_ps_quote(b, t.p ? t.p : "");
		nt_buf_free(&t);
		return;
	}
}

static bool listed(struct nt_buf *names, const char *s)
{
	struct nt_buf q = {0};
	bool r;

	nt_ps_quote(&q, s);
	r = names->p && strstr(names->p, q.p);
	nt_buf_free(&q);
	return r;
}

static void add_name(struct nt_buf *names, const char *s)
{
	if (listed(names, s))
		return;
	if (names->n)
		nt_buf_puts(names, ", ");
	nt_ps_quote(names, s);
}

/*
 * The one way profile- and file-derived text reaches a comment: control
 * characters (a newline would end the comment) and the block-comment
 * delimiters become spaces.  Code gets such text only through nt_ps_quote.
 */
static char *comment_text(const char *s)
{
	char *t = nt_xstrdup(s ? s : ""), *c;

	for (c = t; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || (c[0] == '#' && c[1] == '>') ||
		    (c[0] == '<' && c[1] == '#'))
			*c = ' ';
	/* U+0085, U+2028, U+2029: line ends to some readers */
	for (c = t; *c; c++)
		if ((unsigned char)c[0] == 0xc2 && (unsigned char)c[1] == 0x85)
			c[0] = c[1] = ' ';
		else if ((unsigned char)c[0] == 0xe2 && (unsigned char)c[1] == 0x80 &&
			 ((unsigned char)c[2] == 0xa8 || (unsigned char)c[2] == 0xa9))
			c[0] = c[1] = c[2] = ' ';
	return t;
}

/* A file-name-safe form of the host name for the .EXAMPLE lines. */
static char *file_text(const char *s)
{
	char *t = nt_xstrdup(s), *c;

	for (c = t; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", *c))
			*c = '_';
	return t;
}

static void put_source(struct nt_buf *set, const struct nt_emit_input *in, struct nt_mark m)
{
	char *src = nt_xasprintf("%s:%d:%d", m.file ? m.file : in->profile_path, m.line, m.col);

	nt_ps_quote(set, src);
	free(src);
}

/*
 * Tunnels whose MTU the lowering could not derive (no snapshot, no underlay
 * MTU in the profile): the playbook derives it on the host from the
 * underlay's IPv4 MTU at run time (Resolve-NtDerived).
 */
static void derived_mtus(const struct nt_emit_input *in, struct nt_buf *set, struct nt_buf *ifaces)
{
	static const char *const fams[] = {"ipv4", "ipv6"};
	const struct nt_emit_profile *p = in->prof;
	size_t i, k;

	for (i = 0; p && i < p->ntunnels; i++) {
		const struct nt_emit_tunnel *t = &p->tunnels[i];

		if (nt_state_get(in->desired, NT_K_WIN_IP_MTU, t->name, "ipv4") ||
		    nt_ps_name_problem(t->name) || nt_ps_name_problem(t->underlay))
			continue;
		nt_buf_printf(set, "    # derived on the host: the underlay's IPv4 MTU minus the %s overhead\n",
			      t->label);
		for (k = 0; k < NT_ARRAY_SIZE(fams); k++) {
			nt_buf_printf(set, "    @{ Kind = 'ip-mtu'; Object = ");
			nt_ps_quote(set, t->name);
			nt_buf_printf(set, "; Arg = '%s'; Want = $null; Derive = @{ Underlay = ", fams[k]);
			nt_ps_quote(set, t->underlay);
			nt_buf_printf(set, "; Overhead = %u; Outer = '%s' }; Source = ",
				      t->overhead, t->outer);
			put_source(set, in, t->src);
			nt_buf_puts(set, " }\n");
		}
		add_name(ifaces, t->underlay);
		add_name(ifaces, t->name);
	}
}

/* The parts of the playbook that the settings fill in. */
struct ps_parts {
	struct nt_buf set;		/* @SETTINGS@: one hashtable per setting */
	struct nt_buf adapters;		/* @ADAPTERS@ */
	struct nt_buf ifaces;		/* @INTERFACES@ */
	struct nt_buf rem;		/* @REMINDERS@: MTU = lines for tunnel configs */
};

static void ps_parts_free(struct ps_parts *x)
{
	nt_buf_free(&x->set);
	nt_buf_free(&x->adapters);
	nt_buf_free(&x->ifaces);
	nt_buf_free(&x->rem);
}

/* NULL, or why the setting cannot be written into a playbook. */
static const char *setting_problem(const struct nt_setting *s)
{
	const char *why = NULL;

	/* the kind says what the object is: an adapter may be named "global" */
	if (s->kind != NT_K_WIN_GLOBAL)
		why = nt_ps_name_problem(s->object);
	if (!why && s->arg)
		why = arg_problem(s->arg);
	if (!why && s->val.t == NT_V_STR && s->val.s && *s->val.s && arg_problem(s->val.s))
		why = "has a value with a control character or invalid UTF-8";
	return why;
}

static void add_setting(struct ps_parts *x, const struct nt_emit_input *in,
			const struct ps_row *r, const struct nt_setting *s)
{
	if (s->note) {
		char *note = comment_text(s->note);

		nt_buf_printf(&x->set, "    # %s\n", note);
		free(note);
	}
	nt_buf_printf(&x->set, "    @{ Kind = '%s'; Object = ", r->name);
	nt_ps_quote(&x->set, s->object);
	nt_buf_puts(&x->set, "; Arg = ");
	nt_ps_quote(&x->set, s->arg ? s->arg : "");
	nt_buf_puts(&x->set, "; Want = ");
	ps_value(&x->set, &s->val);
	nt_buf_puts(&x->set, "; Source = ");
	put_source(&x->set, in, s->src);
	nt_buf_puts(&x->set, " }\n");
	if (s->kind == NT_K_WIN_GLOBAL)
		return;
	add_name(s->kind == NT_K_WIN_IP_MTU ? &x->ifaces : &x->adapters, s->object);
	if (s->kind == NT_K_WIN_IP_MTU && !strcmp(s->arg, "ipv4") && s->note &&
	    strstr(s->note, "MTU =")) {
		char *t = nt_xasprintf("reminder: put 'MTU = %u' in the [Interface] section of "
				       "the WireGuard tunnel config of %s, or the tunnel "
				       "service resets the MTU when the tunnel restarts",
				       s->val.u, s->object);

		nt_buf_printf(&x->rem, "            Write-Host ");
		nt_ps_quote(&x->rem, t);
		nt_buf_putc(&x->rem, '\n');
		free(t);
	}
}

static void expand(const struct nt_emit_input *in, const struct ps_parts *x, struct nt_buf *o)
{
	struct nt_buf gets = {0}, sets = {0}, kinds = {0}, rkinds = {0};
	struct nt_buf hostq = {0}, hostfq = {0}, against = {0};
	char *hostc = comment_text(in->host), *profc = comment_text(in->profile_path);
	char *hostf = file_text(in->host);
	size_t i;

	for (i = 0; ps_rows[i].name; i++) {
		nt_buf_printf(&gets, "        '%s' {\n            %s\n        }\n", ps_rows[i].name,
			      ps_rows[i].get);
		nt_buf_printf(&sets, "        '%s' {\n            %s\n        }\n", ps_rows[i].name,
			      ps_rows[i].set);
		nt_buf_printf(&kinds, "%s'%s'", i ? ", " : "", ps_rows[i].name);
		if (ps_rows[i].restart)
			nt_buf_printf(&rkinds, "%s'%s'", rkinds.n ? ", " : "", ps_rows[i].name);
	}
	nt_ps_quote(&hostq, in->host);
	nt_ps_quote(&hostfq, hostf);
	if (in->against) {
		char *a = comment_text(in->against);

		nt_buf_printf(&against, ", ordered against the snapshot %s (values are read at run time)", a);
		free(a);
	}
	{
		const char *kv[] = {
			"HOSTC", hostc, "PROFILEC", profc, "VERSION", NT_VERSION,
			"AGAINST", against.p, "HOSTF", hostf, "HOSTFQ", hostfq.p,
			"HOST", hostq.p, "SETTINGS", x->set.p, "ADAPTERS", x->adapters.p,
			"INTERFACES", x->ifaces.p, "KINDS", kinds.p, "RESTARTKINDS", rkinds.p,
			"GETROWS", gets.p, "SETROWS", sets.p, "REMINDERS", x->rem.p,
			NULL,
		};

		nt_emit_tmpl(o, playbook_ps1, kv);
	}
	free(hostc);
	free(profc);
	free(hostf);
	nt_buf_free(&gets);
	nt_buf_free(&sets);
	nt_buf_free(&kinds);
	nt_buf_free(&rkinds);
	nt_buf_free(&hostq);
	nt_buf_free(&hostfq);
	nt_buf_free(&against);
}

int nt_emit_ps1(const struct nt_emit_input *in, struct nt_buf *o, struct nt_diags *d)
{
	size_t n, i;
	const struct nt_setting **ord = nt_emit_order(in, &n);
	struct ps_parts x = {0};
	int bad = 0;

	for (i = 0; i < n; i++) {
		const struct nt_setting *s = ord[i];
		const struct ps_row *r = row(s->kind);
		const char *why;

		if (!r) {
			nt_error(d, s->src, "emit",
				 "%s %s cannot be expressed in a PowerShell playbook: no ps1 row for kind "
				 "'%s' (a Linux setting in a Windows profile?)", s->object,
				 s->arg ? s->arg : "", nt_kinds[s->kind].name);
			bad = -1;
		} else if ((why = setting_problem(s))) {
			nt_error(d, s->src, "emit", "'%s' %s cannot be used in a PowerShell playbook: "
				 "the name or value %s", s->object, nt_kinds[s->kind].name, why);
			bad = -1;
		} else {
			add_setting(&x, in, r, s);
		}
	}
	if (!bad) {
		derived_mtus(in, &x.set, &x.ifaces);
		expand(in, &x, o);
	}
	ps_parts_free(&x);
	free(ord);
	return bad;
}
