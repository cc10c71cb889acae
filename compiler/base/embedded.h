/* SPDX-License-Identifier: MIT */
/* Text files compiled into the binary (scripts/embed_caps.py): the NIC
 * capability tables (model/caps.h) and the bundled policy profiles. */
#ifndef NT_EMBEDDED_H
#define NT_EMBEDDED_H

#include <stddef.h>

/* A table compiled into the binary (scripts/embed_caps.py). */
struct nt_caps_text {
	const char *name;		/* file name, e.g. intel-x710.yaml */
	size_t len;
	const char *text;
};
/* The bundled policy profiles (the YAML files in profiles/), compiled in:
 * 'extends' falls back to them when no search directory has the policy. */
extern const struct nt_caps_text nt_policies_builtin[];
extern const size_t nt_policies_nbuiltin;

#endif
