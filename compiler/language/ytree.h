/* SPDX-License-Identifier: MIT */
/*
 * A YAML document as a tree of nodes that remember where they were read.
 * This is nettune's mark index: any YAML path ("/interfaces/0/mtu") maps
 * to the FILE:LINE:COL of the key or value it names, also after extends
 * have been merged (each node keeps the file it came from).
 */
#ifndef NT_YTREE_H
#define NT_YTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"
#include "../base/diag.h"
#include "../base/strindex.h"

enum nt_ytype { NT_Y_SCALAR, NT_Y_MAP, NT_Y_SEQ };

struct nt_ynode {
	enum nt_ytype type;
	struct nt_mark mark;	/* where the node starts */
	char *scalar;		/* NT_Y_SCALAR: the text */
	bool plain;		/* scalar was unquoted (so may be a number/bool) */
	unsigned char blk;	/* ytree.c: the node's block size class */
	size_t n, cap;
	struct nt_ynode **keys;	/* NT_Y_MAP: scalar key nodes */
	struct nt_ynode **vals;	/* NT_Y_MAP values, NT_Y_SEQ items */
	struct nt_strindex *index;	/* NT_Y_MAP: key lookup, built when large */
};

/* Limits for untrusted input.  A map of n keys is 2n + 1 nodes: 500,000
 * nodes let a 100,000-key map reach the schema check (and its located
 * range error) instead of stopping at the node count; at about 150
 * bytes a node, the worst 4 MiB file stays under 80 MiB. */
#define NT_YAML_MAX_BYTES (4u << 20)
#define NT_YAML_MAX_DEPTH 32
#define NT_YAML_MAX_NODES 500000

/* Parses one YAML document.  Returns NULL and adds located errors on any
 * syntax error, alias, duplicate key, non-scalar key or limit breach. */
struct nt_ynode *nt_yparse_file(const char *path, struct nt_diags *d);
/* The same with nt_read_input() flags (NT_IN_NOFOLLOW). */
struct nt_ynode *nt_yparse_input(const char *path, unsigned flags, struct nt_diags *d);
struct nt_ynode *nt_yparse_data(const char *file, const char *data, size_t len,
				struct nt_diags *d);
void nt_yfree(struct nt_ynode *n);
void nt_yarr_free(struct nt_ynode **a, size_t cap);	/* a node's keys or vals array */
struct nt_ynode *nt_ycopy(const struct nt_ynode *n);

struct nt_ynode *nt_ynew(enum nt_ytype t, struct nt_mark m);
struct nt_ynode *nt_ynew_scalar(const char *s, bool plain, struct nt_mark m);
/* Replaces a scalar's text (NULL: none, when the node becomes a map);
 * never assign n->scalar directly: it may live in the node's allocation. */
void nt_yset_scalar(struct nt_ynode *n, const char *s);
void nt_ymap_set(struct nt_ynode *map, struct nt_ynode *key, struct nt_ynode *val);
void nt_yseq_push(struct nt_ynode *seq, struct nt_ynode *item);
/* Map lookup by key; *idx gets the position when found. */
struct nt_ynode *nt_ymap_get(const struct nt_ynode *map, const char *key, size_t *idx);
void nt_ymap_del(struct nt_ynode *map, size_t idx);

/* Looks up a JSON-pointer-like path ("/interfaces/0/offloads/uso"; "~1"
 * stands for '/' and "~0" for '~' inside a segment).  With key_mark set
 * and the last segment a map key, returns the key node, so a diagnostic
 * points at "uso:" rather than at its value. */
const struct nt_ynode *nt_yget(const struct nt_ynode *root, const char *path,
			       bool key_mark);
/* Mark of path, or of its nearest existing ancestor. */
struct nt_mark nt_ymark(const struct nt_ynode *root, const char *path, bool key_mark);

/* Writes the tree as YAML (for libcyaml and for debugging). */
int nt_yemit(const struct nt_ynode *root, struct nt_buf *out);

#endif
