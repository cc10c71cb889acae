/* SPDX-License-Identifier: MIT */
/* Name rules: interfaces, adapters, path components, sysctl keys,
 * processes, the (object, argument) of a setting, RSS keys. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "../language/schema.h"

const char *nt_linux_ifname_problem(const char *s)
{
	size_t len = strlen(s);

	if (!len)
		return "is empty";
	if (len > 15)
		return "is longer than 15 bytes (IFNAMSIZ 16 with the NUL)";
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return "is '.' or '..'";
	for (; *s; s++) {
		if (*s == '/')
			return "contains '/'";
		if (*s == ':')
			return "contains ':'";
		if (isspace((unsigned char)*s))
			return "contains whitespace";
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return "contains a control character";
		/* the kernel takes any bytes; YAML and JSON only UTF-8 text,
		 * and a name rewritten to be valid would name another device */
		if ((unsigned char)*s >= 0x80) {
			size_t n = nt_utf8_len(s, strlen(s));

			if (!n)
				return "is not valid UTF-8";
			s += n - 1;
		}
	}
	return NULL;
}

const char *nt_windows_name_problem(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!*p)
		return "is empty";
	if (strlen(s) > 256)
		return "is longer than 256 bytes";
	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return "contains a control character (newline, tab, ...)";
		if (*p == '*' || *p == '?' || *p == '[' || *p == ']')
			return "contains a wildcard character (* ? [ ]), which -Name would match as a pattern";
		if (*p == '`')
			return "contains a backtick, PowerShell's escape character";
	}
	return NULL;
}

int nt_parse_rss_key(const char *s, unsigned char *key, size_t max, bool *per_host)
{
	size_t n = 0;

	*per_host = false;
	if (!strcmp(s, "per-host")) {
		*per_host = true;
		return 0;
	}
	while (*s) {
		int hi, lo;

		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]))
			return -1;
		hi = isdigit((unsigned char)s[0]) ? s[0] - '0' : tolower((unsigned char)s[0]) - 'a' + 10;
		lo = isdigit((unsigned char)s[1]) ? s[1] - '0' : tolower((unsigned char)s[1]) - 'a' + 10;
		if (n >= max)
			return -1;
		key[n++] = (unsigned char)(hi << 4 | lo);
		s += 2;
		if (*s == ':')
			s++;
		else if (*s)
			return -1;
	}
	return n ? (int)n : -1;
}

/* A sysctl key: '.'- or '/'-separated components of [A-Za-z0-9_-]. */
const char *nt_sysctl_key_problem(const char *k)
{
	const char *c = k;
	size_t len = strlen(k);

	if (!len)
		return "is empty";
	if (len > NT_NAME_MAX)
		return "is longer than 255 bytes";
	for (; *c; c++) {
		if (*c == '.' || *c == '/') {
			if (c == k || c[1] == '\0' || c[1] == '.' || c[1] == '/')
				return "has an empty component ('..', '//', or a leading or trailing separator)";
			continue;
		}
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return "has a character other than letters, digits, '_', '-', '.', '/'";
	}
	return NULL;
}

/* "process WHO": a systemd unit or comm (one path component) or an
 * absolute pidfile path without '.' or '..' components. */
const char *nt_process_problem(const char *who)
{
	const char *c;

	if (!*who)
		return "names no process";
	if (strlen(who) > NT_NAME_MAX)
		return "is longer than 255 bytes";
	for (c = who; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return "contains a control character";
	if (who[0] != '/')
		return strchr(who, '/') ? "contains '/' but is not an absolute pidfile path" :
		       nt_path_component_problem(who);
	for (c = who; *c; c++)
		if (*c == '/' && (c[1] == '/' || c[1] == '\0' ||
				  (c[1] == '.' && (c[2] == '/' || c[2] == '\0' ||
						   (c[2] == '.' && (c[3] == '/' || c[3] == '\0'))))))
			return "is a pidfile path with an empty, '.' or '..' component";
	return NULL;
}

const char *nt_path_component_problem(const char *s)
{
	size_t len = strlen(s);

	if (!len)
		return "is empty";
	if (len > NT_NAME_MAX)
		return "is longer than 255 bytes";
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return "is '.' or '..'";
	if (strchr(s, '/'))
		return "contains '/'";
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return "contains a control character";
	return NULL;
}

/* The map of driver-given names a kind is lowered from (language/ifkeys.def
 * NT_LINUX_NAMES), or NULL. */
static const struct nt_name_map *kind_name_map(enum nt_kind_id k)
{
	const char *key = nt_kinds[k].keys;

	if (!key || strncmp(key, "interfaces[].", strlen("interfaces[].")))
		return NULL;
	return nt_name_map_at(key + strlen("interfaces[]."));
}

static const char *name_problem(const struct nt_name_map *m, const char *arg)
{
	static _Thread_local char why[160];

	switch (nt_name_map_check(m, arg)) {
	case NT_NAME_LONG:
		snprintf(why, sizeof(why), "is longer than a %s name (%u bytes)", m->noun, m->name_max);
		return why;
	case NT_NAME_CHAR:
		snprintf(why, sizeof(why), "has a character other than a letter, digit, %s", m->said);
		return why;
	case NT_NAME_OK:
		break;
	}
	return NULL;
}

/* Arguments of the Linux kinds: a queue index, a sysctl key, or a word
 * (feature, channel kind, ring, coalescing parameter). */
static const char *arg_problem(enum nt_kind_id k, const char *arg)
{
	const struct nt_name_map *m;
	const char *c;

	if (!(nt_kinds[k].flags & NT_KF_HAS_ARG))
		return arg ? "takes no argument" : NULL;
	if (!arg || !*arg)
		return "needs an argument";
	if (k == NT_K_SYSCTL)
		return nt_sysctl_key_problem(arg);
	if (nt_kinds[k].flags & NT_KF_PER_QUEUE) {
		if (strlen(arg) > 5 || strtoul(arg, NULL, 10) > NT_QUEUE_MAX ||
		    (arg[0] == '0' && arg[1]))
			return "is not a queue number 0..65535";
		for (c = arg; *c; c++)
			if (!isdigit((unsigned char)*c))
				return "is not a queue number 0..65535";
		return NULL;
	}
	if (nt_kinds[k].argshape == NT_ARG_NAMED && nt_kind_arg_index(k, arg) < 0) {
		static _Thread_local char why[256];
		const char *const *a;
		size_t n;

		n = (size_t)snprintf(why, sizeof(why), "is not one of");
		for (a = nt_kinds[k].args; *a && n < sizeof(why); a++)
			n += (size_t)snprintf(why + n, sizeof(why) - n, "%s %s",
					      a == nt_kinds[k].args ? "" : ",", *a);
		return why;
	}
	if (nt_kinds[k].argshape == NT_ARG_OPEN && (m = kind_name_map(k)))
		return name_problem(m, arg);	/* as validate.c takes them from a profile */
	if (strlen(arg) > NT_NAME_MAX)
		return "is longer than 255 bytes";
	for (c = arg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f ||
		    (!(nt_kinds[k].flags & NT_KF_WINDOWS) && (*c == '/' || isspace((unsigned char)*c))))
			return "contains '/', white space or a control character";
	return NULL;
}

const char *nt_setting_problem(enum nt_kind_id k, const char *object, const char *arg,
			       const char **what)
{
	const char *why;

	*what = "object";
	if ((unsigned)k >= NT_K__COUNT)
		return "has an unknown kind";
	switch (k) {
	case NT_K_SYSCTL:
		why = strcmp(object, "sysctl") ? "must be \"sysctl\" for a sysctl setting" : NULL;
		break;
	case NT_K_IRQBALANCE_BAN:
	case NT_K_IRQBALANCE_SERVICE:
		why = strcmp(object, "irqbalance") ?
		      "must be \"irqbalance\" for an irqbalance setting" : NULL;
		break;
	case NT_K_PROCESS_CPUS:
		why = strncmp(object, "process ", 8) ? "must be \"process WHO\"" :
		      nt_process_problem(object + 8);
		break;
	case NT_K_WIN_GLOBAL:
		why = strcmp(object, "global") ? "must be \"global\" for a global setting" : NULL;
		break;
	default:
		why = nt_kinds[k].flags & NT_KF_WINDOWS ? nt_windows_name_problem(object) :
		      nt_linux_ifname_problem(object);
		break;
	}
	if (why)
		return why;
	*what = "argument";
	return arg_problem(k, arg);
}
