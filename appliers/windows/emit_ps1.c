/* SPDX-License-Identifier: MIT */
/* nettune emit --format ps1: the desired state as an idempotent PowerShell playbook. */
#include <stdlib.h>
#include <string.h>

#include "../../compiler/version.h"
#include "../emit.h"
#include "playbook_ps1.h"

/*
 * One row per Windows kind: a branch of Get-NtValue (returns the current
 * value as the desired one is written: [bool], [int] or [string]) and a
 * branch of Set-NtValue ($Value).  Parameters are splatted: the offline
 * grammar the tests use rejects parameter names with digits (-IPv4Enabled),
 * and splatting reads better anyway.  Cmdlets that restart the adapter get
 * NoRestart and record the adapter with Add-NtRestart.
 */
struct ps_row {
	enum nt_kind_id kind;
	const char *name;
	const char *get;
	const char *set;
};

static const struct ps_row ps_rows[] = {
	{NT_K_WIN_ADVPROP, "advanced-property",
	 "# exact match: -RegistryKeyword would read '*JumboPacket' as a wildcard\n"
	 "            $a = @(Get-NetAdapterAdvancedProperty -Name $S.Object -AllProperties | Where-Object { $_.RegistryKeyword -eq $S.Arg })\n"
	 "            if ($a.Count -ne 1) { throw \"no advanced property '$($S.Arg)' on '$($S.Object)'\" }\n"
	 "            # RegistryValue is a string array: compare its first element\n"
	 "            return [string]@($a[0].RegistryValue)[0]",
	 "$a = @(Get-NetAdapterAdvancedProperty -Name $S.Object -AllProperties | Where-Object { $_.RegistryKeyword -eq $S.Arg })\n"
	 "            if ($a.Count -ne 1) { throw \"no advanced property '$($S.Arg)' on '$($S.Object)'\" }\n"
	 "            $p = @{ RegistryValue = [string]$Value; NoRestart = $true }\n"
	 "            $a[0] | Set-NetAdapterAdvancedProperty @p\n"
	 "            Add-NtRestart $S.Object"},
	{NT_K_WIN_CHECKSUM, "checksum",
	 "$a = Get-NetAdapterChecksumOffload -Name $S.Object\n"
	 "            return [string]$a.($S.Arg + 'Enabled')",
	 "$p = @{ Name = $S.Object; NoRestart = $true }\n"
	 "            $p[$S.Arg + 'Enabled'] = [string]$Value\n"
	 "            Set-NetAdapterChecksumOffload @p\n"
	 "            Add-NtRestart $S.Object"},
	{NT_K_WIN_LSO, "lso",
	 "$a = Get-NetAdapterLso -Name $S.Object\n"
	 "            return [bool]$a.(Get-NtFamilyProp $S.Arg)",
	 "$p = @{ Name = $S.Object; NoRestart = $true }\n"
	 "            $p[(Get-NtFamilyProp $S.Arg)] = [bool]$Value\n"
	 "            Set-NetAdapterLso @p\n"
	 "            Add-NtRestart $S.Object"},
	{NT_K_WIN_USO, "uso",
	 "$a = Get-NetAdapterUso -Name $S.Object\n"
	 "            return [bool]$a.(Get-NtFamilyProp $S.Arg)",
	 "$p = @{ Name = $S.Object; NoRestart = $true }\n"
	 "            $p[(Get-NtFamilyProp $S.Arg)] = [bool]$Value\n"
	 "            Set-NetAdapterUso @p\n"
	 "            Add-NtRestart $S.Object"},
	{NT_K_WIN_RSC, "rsc",
	 "$a = Get-NetAdapterRsc -Name $S.Object\n"
	 "            return [bool]$a.(Get-NtFamilyProp $S.Arg)",
	 "$p = @{ Name = $S.Object; NoRestart = $true }\n"
	 "            $p[(Get-NtFamilyProp $S.Arg)] = [bool]$Value\n"
	 "            Set-NetAdapterRsc @p\n"
	 "            Add-NtRestart $S.Object"},
	{NT_K_WIN_URO, "uro",
	 "# hardware URO; the cmdlets exist on newer Windows only\n"
	 "            if (-not (Get-Command -Name 'Get-NetAdapterUro' -ErrorAction SilentlyContinue)) {\n"
	 "                throw 'Get-NetAdapterUro is not available on this Windows version'\n"
	 "            }\n"
	 "            $a = Get-NetAdapterUro -Name $S.Object\n"
	 "            return [bool]$a.Enabled",
	 "$p = @{ Name = $S.Object; Enabled = [bool]$Value; NoRestart = $true }\n"
	 "            Set-NetAdapterUro @p\n"
	 "            Add-NtRestart $S.Object"},
	{NT_K_WIN_RSS, "rss",
	 "$a = Get-NetAdapterRss -Name $S.Object\n"
	 "            $v = $a.($NtRssProps[$S.Arg])\n"
	 "            # CIM reports Profile as 1..5\n"
	 "            if ($S.Arg -eq 'profile' -and \"$v\" -match '^[0-9]+$') { $v = $NtRssProfiles[[int]\"$v\"] }\n"
	 "            return [string]$v",
	 "$p = @{ Name = $S.Object; NoRestart = $true }\n"
	 "            if ($S.Arg -eq 'enabled') { $p['Enabled'] = ([string]$Value -eq 'True') }\n"
	 "            elseif ($S.Arg -eq 'profile') { $p['Profile'] = [string]$Value }\n"
	 "            else { $p[$NtRssProps[$S.Arg]] = [int]$Value }\n"
	 "            Set-NetAdapterRss @p\n"
	 "            Add-NtRestart $S.Object"},
	{NT_K_WIN_IP_MTU, "ip-mtu",
	 "$fam = if ($S.Arg -eq 'ipv6') { 'IPv6' } else { 'IPv4' }\n"
	 "            $a = Get-NetIPInterface -InterfaceAlias $S.Object -AddressFamily $fam\n"
	 "            return [int]$a.NlMtu",
	 "$fam = if ($S.Arg -eq 'ipv6') { 'IPv6' } else { 'IPv4' }\n"
	 "            $p = @{ InterfaceAlias = $S.Object; AddressFamily = $fam; NlMtuBytes = [int]$Value }\n"
	 "            Set-NetIPInterface @p"},
	{NT_K_WIN_GLOBAL, "offload-global",
	 "if ($S.Arg -eq 'receive-segment-coalescing') {\n"
	 "                return [string](Get-NetOffloadGlobalSetting).ReceiveSegmentCoalescing\n"
	 "            }\n"
	 "            if ($S.Arg -eq 'uro') {\n"
	 "                # software URO; netsh is native: $ErrorActionPreference does not cover it\n"
	 "                $out = netsh int udp show global\n"
	 "                if ($LASTEXITCODE -ne 0) { throw \"netsh int udp show global exited with $LASTEXITCODE\" }\n"
	 "                $m = [regex]::Match(($out -join \"`n\"), 'Receive Offload State\\s*:\\s*(\\w+)')\n"
	 "                if (-not $m.Success) { throw \"no 'Receive Offload State' in netsh int udp show global (a non-English display language?)\" }\n"
	 "                if ($m.Groups[1].Value -eq 'enabled') { return 'Enabled' }\n"
	 "                return 'Disabled'\n"
	 "            }\n"
	 "            throw \"unknown global setting '$($S.Arg)'\"",
	 "if ($S.Arg -eq 'receive-segment-coalescing') {\n"
	 "                $p = @{ ReceiveSegmentCoalescing = [string]$Value }\n"
	 "                Set-NetOffloadGlobalSetting @p\n"
	 "                return\n"
	 "            }\n"
	 "            if ($S.Arg -eq 'uro') {\n"
	 "                $null = netsh int udp set global ('uro=' + ([string]$Value).ToLowerInvariant())\n"
	 "                if ($LASTEXITCODE -ne 0) { throw \"netsh int udp set global exited with $LASTEXITCODE\" }\n"
	 "                return\n"
	 "            }\n"
	 "            throw \"unknown global setting '$($S.Arg)'\""},
	{0, NULL, NULL, NULL},
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

/* Text for a comment-based help block: no "#>" and no control characters. */
static char *comment_text(const char *s)
{
	char *t = nt_xstrdup(s ? s : ""), *c;

	for (c = t; *c; c++)
		if ((unsigned char)*c < 0x20 || (c[0] == '#' && c[1] == '>') || (c[0] == '<' && c[1] == '#'))
			*c = ' ';
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

int nt_emit_ps1(const struct nt_emit_input *in, struct nt_buf *o, struct nt_diags *d)
{
	size_t n, i;
	const struct nt_setting **ord = nt_emit_order(in, &n);
	struct nt_buf set = {0}, gets = {0}, sets = {0}, adapters = {0}, ifaces = {0}, kinds = {0};
	struct nt_buf hostq = {0}, against = {0}, rem = {0};
	char *hostc = NULL, *profc = NULL, *hostf = NULL;
	int bad = 0;

	for (i = 0; i < n; i++) {
		const struct nt_setting *s = ord[i];
		const struct ps_row *r = row(s->kind);
		const char *why = NULL;

		if (!r) {
			nt_error(d, s->src, "emit",
				 "%s %s cannot be expressed in a PowerShell playbook: no ps1 row for kind "
				 "'%s' (a Linux setting in a Windows profile?)", s->object,
				 s->arg ? s->arg : "", nt_kinds[s->kind].name);
			bad = -1;
			continue;
		}
		if (strcmp(s->object, "global"))
			why = nt_ps_name_problem(s->object);
		if (!why && s->arg)
			why = arg_problem(s->arg);
		if (!why && s->val.t == NT_V_STR && s->val.s && *s->val.s && arg_problem(s->val.s))
			why = "has a value with a control character or invalid UTF-8";
		if (why) {
			nt_error(d, s->src, "emit", "'%s' %s cannot be used in a PowerShell playbook: "
				 "the name or value %s", s->object, nt_kinds[s->kind].name, why);
			bad = -1;
			continue;
		}
		if (s->note) {
			char *note = comment_text(s->note);

			nt_buf_printf(&set, "    # %s\n", note);
			free(note);
		}
		nt_buf_printf(&set, "    @{ Kind = '%s'; Object = ", r->name);
		nt_ps_quote(&set, s->object);
		nt_buf_puts(&set, "; Arg = ");
		nt_ps_quote(&set, s->arg ? s->arg : "");
		nt_buf_puts(&set, "; Want = ");
		ps_value(&set, &s->val);
		nt_buf_puts(&set, "; Source = ");
		{
			char *src = nt_xasprintf("%s:%d:%d", s->src.file ? s->src.file : in->profile_path,
						 s->src.line, s->src.col);

			nt_ps_quote(&set, src);
			free(src);
		}
		nt_buf_puts(&set, " }\n");
		if (!strcmp(s->object, "global"))
			continue;
		if (s->kind == NT_K_WIN_IP_MTU)
			add_name(&ifaces, s->object);
		else
			add_name(&adapters, s->object);
		if (s->kind == NT_K_WIN_IP_MTU && !strcmp(s->arg, "ipv4") && s->note &&
		    strstr(s->note, "MTU =")) {
			nt_buf_printf(&rem, "        Write-Host ");
			{
				char *t = nt_xasprintf("reminder: put 'MTU = %u' in the [Interface] section of "
						       "the WireGuard tunnel config of %s, or the tunnel "
						       "service resets the MTU when the tunnel restarts",
						       s->val.u, s->object);

				nt_ps_quote(&rem, t);
				free(t);
			}
			nt_buf_putc(&rem, '\n');
		}
	}
	if (bad)
		goto out;
	for (i = 0; ps_rows[i].name; i++) {
		nt_buf_printf(&gets, "        '%s' {\n            %s\n        }\n", ps_rows[i].name,
			      ps_rows[i].get);
		nt_buf_printf(&sets, "        '%s' {\n            %s\n        }\n", ps_rows[i].name,
			      ps_rows[i].set);
		nt_buf_printf(&kinds, "%s'%s'", i ? ", " : "", ps_rows[i].name);
	}
	nt_ps_quote(&hostq, in->host);
	if (in->against) {
		char *a = comment_text(in->against);

		nt_buf_printf(&against, ", ordered against the snapshot %s (values are read at run time)", a);
		free(a);
	}
	hostc = comment_text(in->host);
	profc = comment_text(in->profile_path);
	hostf = file_text(in->host);
	{
		const char *kv[] = {
			"HOSTC", hostc, "PROFILEC", profc, "VERSION", NT_VERSION,
			"AGAINST", against.p ? against.p : "", "HOSTF", hostf, "HOST", hostq.p,
			"SETTINGS", set.p ? set.p : "", "ADAPTERS", adapters.p, "INTERFACES", ifaces.p,
			"KINDS", kinds.p, "GETROWS", gets.p, "SETROWS", sets.p, "REMINDERS", rem.p,
			NULL,
		};

		nt_emit_tmpl(o, playbook_ps1, kv);
	}
out:
	free(hostc);
	free(profc);
	free(hostf);
	nt_buf_free(&set);
	nt_buf_free(&gets);
	nt_buf_free(&sets);
	nt_buf_free(&adapters);
	nt_buf_free(&ifaces);
	nt_buf_free(&kinds);
	nt_buf_free(&hostq);
	nt_buf_free(&against);
	nt_buf_free(&rem);
	free(ord);
	return bad;
}
